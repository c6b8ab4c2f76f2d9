//! `POST /api/symbols-ranges` and `POST /api/symbols-returnpads`: one part of a symbfile
//! for an executable, with `FileID`, `FilePart` and `FileParts` headers.
//!
//! Each part is a complete symbfile (the parts rule of `symblob symbfile push`), checked
//! record by record before it is stored. Parts may come in any order, to any instance,
//! more than once: each is stored under its own key, and whichever request finds all of
//! them in the store joins them ([`super::assemble`]). A part that is refused leaves
//! nothing behind.

use axum::body::Body;
use axum::http::HeaderMap;
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;

use super::assemble::{self, FileKind};
use super::reply::{bad_request, Failure, Refused};
use super::store::parts_dir;
use super::State;
use crate::readback;
use crate::symbfile::fileid::FileId;

/// A part's place in its file, from the headers.
#[derive(Clone, Copy, Debug)]
struct PartHeaders {
    id: FileId,
    part: u32,
    parts: u32,
}

/// Stores one part, and publishes the file when it was the last one missing.
pub async fn receive(
    state: &State,
    kind: FileKind,
    headers: &HeaderMap,
    body: Body,
) -> Result<(), Refused> {
    let at = part_headers(headers, state.limits.max_parts)?;
    let bytes = read_body(headers, body, state.limits.max_body).await?;
    if bytes.is_empty() {
        return Err(bad_request("the body is empty: a part is a whole symbfile"));
    }
    // Checking a part decodes every record: off the async threads.
    let checked = bytes.clone();
    tokio::task::spawn_blocking(move || check_part(&checked, kind))
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))??;

    let dir = parts_dir(at.id, kind.name());
    // Parts are stored under their count: one folder per way of splitting the file, so
    // the folders are listed, not the parts (which would cost every upload of n parts
    // n² listed entries). Another count is rare: its parts are read only then.
    let counts = state.store.folders(&dir).await.map_err(unavailable)?;
    for count in counts.iter().filter(|&c| *c != at.parts.to_string()) {
        let other = format!("{dir}/{count}");
        for part in state.store.list(&other).await.map_err(unavailable)? {
            if !stale(part.modified, state.limits.stale_parts) {
                return Err(Refused::new(
                    Failure::Conflict,
                    format!(
                        "FileParts is {} but parts of this file were received with FileParts {count}",
                        at.parts
                    ),
                ));
            }
            // An upload given up long ago, split another way: it never completes.
            state
                .store
                .delete(&format!("{other}/{}", part.name))
                .await
                .map_err(unavailable)?;
        }
    }
    state
        .store
        .put(&format!("{dir}/{}/{}", at.parts, at.part), bytes.clone())
        .await
        .map_err(unavailable)?;
    state.metrics.stored(bytes.len());
    assemble::publish_when_complete(state, kind, at.id, (at.part, at.parts)).await
}

/// Whether a part written at `modified` is older than `after`.
pub(super) fn stale(modified: std::time::SystemTime, after: std::time::Duration) -> bool {
    modified.elapsed().is_ok_and(|age| age > after)
}

/// A store failure as the answer it gets.
pub fn unavailable(e: super::store::StoreError) -> Refused {
    Refused::new(Failure::Unavailable, e.to_string())
}

fn part_headers(headers: &HeaderMap, max_parts: u32) -> Result<PartHeaders, Refused> {
    let text = |name: &str| -> Result<&str, Refused> {
        headers
            .get(name)
            .ok_or_else(|| bad_request(format!("the {name} header is missing")))?
            .to_str()
            .map_err(|_| bad_request(format!("the {name} header is not text")))
    };
    let es = text("FileID")?;
    // The API names the ES form: 22 characters of base64 (24 with padding).
    let id = match es.len() {
        22 | 24 => FileId::parse(es).ok(),
        _ => None,
    }
    .ok_or_else(|| {
        bad_request(format!(
            "FileID {es:?} is not a FileID in ES form (22 characters of URL-safe base64)"
        ))
    })?;
    let number = |name: &str| -> Result<u32, Refused> {
        let value = text(name)?;
        value
            .parse::<u32>()
            .map_err(|_| bad_request(format!("{name} {value:?} is not a number")))
    };
    let (part, parts) = (number("FilePart")?, number("FileParts")?);
    if parts == 0 || parts > max_parts {
        return Err(bad_request(format!(
            "FileParts {parts} is outside 1..={max_parts}"
        )));
    }
    if part >= parts {
        return Err(bad_request(format!(
            "FilePart {part} is outside 0..{parts} (FileParts {parts})"
        )));
    }
    Ok(PartHeaders { id, part, parts })
}

/// Bytes of a body over the limit still read (and dropped) before the 413 answer, so that
/// a client that sends its whole body before reading the answer gets the answer instead of
/// a broken connection; beyond that the connection is closed.
const DRAIN: u64 = 64 << 20;

/// The body, refused with 413 when it is over `limit` bytes (declared in
/// `Content-Length`, or found while reading).
pub async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, Refused> {
    let too_large = || {
        Refused::new(
            Failure::TooLarge,
            format!("the body is over the limit of {limit} bytes"),
        )
    };
    let declared = headers
        .get("Content-Length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut body = body;
    let mut kept = BytesMut::with_capacity(declared.unwrap_or(0).min(limit as u64) as usize);
    let mut read = 0u64;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| bad_request(format!("the body could not be read: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        read += data.len() as u64;
        if read > limit as u64 {
            if read > limit as u64 + DRAIN {
                break;
            }
            continue;
        }
        kept.extend_from_slice(&data);
    }
    if read > limit as u64 || declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    Ok(kept.freeze())
}

/// Refuses a part that is not a symbfile holding only records of `kind`.
fn check_part(bytes: &[u8], kind: FileKind) -> Result<(), Refused> {
    let model = readback::symbfile::read(bytes, "the part")
        .map_err(|e| bad_request(format!("the part is not a valid symbfile: {}", chain(&e))))?;
    let (ranges, pads) = (model.functions.len(), model.return_pads.len());
    match kind {
        FileKind::Ranges if pads > 0 => Err(bad_request(format!(
            "a range file holds {pads} return-pad records (they go to /api/symbols-returnpads)"
        ))),
        FileKind::ReturnPads if ranges > 0 => Err(bad_request(format!(
            "a return-pad file holds {ranges} range records (they go to /api/symbols-ranges)"
        ))),
        _ => Ok(()),
    }
}

/// An error with its sources, for an answer's text.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}
