//! `POST /api/symbolize-batch`: the frames of addresses in several executables, in one
//! request.
//!
//! Request `{"requests": [<symbolize request>, …]}`, each element what
//! `POST /api/symbolize` takes ([`super::symbolize`]); answer `{"results": [<answer>,
//! …]}` in the same order, each element what `/api/symbolize` answers, or, for an
//! executable that cannot be answered (no symbols, a debuginfod miss, the store not
//! answering), `{"fileID": …, "error": {"Code": …, "Text": …}, "status": …}` with the code
//! and status `/api/symbolize` would have answered. One unknown executable does not void
//! the answers of the others.
//!
//! A request that is not well formed is refused whole (400, naming the element, e.g.
//! `requests[2].fileID`), as is one over the limits: at most [`MAX_FILES`] elements and
//! the service's address limit over all of them (413).

use std::sync::Arc;

use futures::StreamExt as _;
use serde::Deserialize;

use super::cache::Entry;
use super::reply::{bad_request, Failure, Refused};
use super::symbolize::{self, check_count, Raw, Request};
use super::State;

/// Elements of one batch.
pub const MAX_FILES: usize = 1_000;

/// Executables whose symbols are looked up (in the cache, the store or debuginfod) at
/// once for one batch.
const CONCURRENT_LOOKUPS: usize = 8;

/// Parses a batch body, refusing more than [`MAX_FILES`] elements or `max_addresses`
/// addresses in all.
pub fn parse(body: &[u8], max_addresses: usize) -> Result<Vec<Request>, Refused> {
    #[derive(Deserialize)]
    struct Batch {
        requests: Option<Vec<Raw>>,
    }
    let batch: Batch = serde_json::from_slice(body).map_err(|e| {
        bad_request(format!(
            "the body is not a symbolize batch's JSON ({{\"requests\": [...]}}): {e}"
        ))
    })?;
    let raws = batch
        .requests
        .ok_or_else(|| bad_request("`requests` is missing or not an array"))?;
    if raws.len() > MAX_FILES {
        return Err(Refused::new(
            Failure::TooLarge,
            format!(
                "{} requests in the batch; a batch takes at most {MAX_FILES}",
                raws.len()
            ),
        ));
    }
    check_count(raws.iter().map(Raw::count).sum(), max_addresses)?;
    raws.into_iter()
        .enumerate()
        .map(|(i, raw)| Request::from_raw(raw, &format!("requests[{i}].")))
        .collect()
}

/// The symbols of every request, looked up a few at a time, in order.
pub async fn symbols(state: &Arc<State>, requests: &[Request]) -> Vec<Result<Arc<Entry>, Refused>> {
    // By index: a closure taking `&Request` would have to be general over its lifetime,
    // which the future it returns is not (and axum needs the handler's future `Send`).
    futures::stream::iter(0..requests.len())
        .map(|i| symbolize::symbols(state, &requests[i]))
        .buffered(CONCURRENT_LOOKUPS)
        .collect()
        .await
}

/// The batch's answer: each request's answer from its symbols, or its refusal.
pub fn answer(answered: &[(Request, Result<Arc<Entry>, Refused>)]) -> Vec<u8> {
    let addresses: usize = answered.iter().map(|(r, _)| r.addresses.len()).sum();
    let mut out = Vec::with_capacity(256 * addresses + 64 * answered.len() + 16);
    out.extend_from_slice(b"{\"results\":[");
    for (i, (request, symbols)) in answered.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match symbols {
            Ok(entry) => symbolize::write_answer(&mut out, entry, request),
            Err(refused) => {
                let failed = serde_json::json!({
                    "fileID": request.id.es(),
                    "error": refused.error(),
                    "status": refused.failure.status().as_u16(),
                });
                // Writing to a Vec cannot fail.
                let _ = serde_json::to_writer(&mut out, &failed);
            }
        }
    }
    out.extend_from_slice(b"]}");
    out
}
