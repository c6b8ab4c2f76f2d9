//! The fallback of `POST /api/symbolize` for an executable whose symbols were never
//! uploaded: its debug file fetched by build ID from debuginfod servers, extracted,
//! published and answered.
//!
//! A FileID is a hash of the executable's bytes and cannot be turned into a build ID, so
//! the request names it: `"buildID": "<hex>"` beside `"fileID"`. When the FileID has no
//! published symbols, the request has a build ID and servers are configured:
//!
//! 1. A build ID in the memory of misses ([`MissMemory`]) is answered 404 at once, saying
//!    it was looked up and what the servers said.
//! 2. Otherwise the request joins the build ID's flight ([`Flights`]): requests for the
//!    same build ID at once wait for one fetch, then find its result (the published
//!    symbols, or the miss). One asking under another FileID (a stripped and an
//!    unstripped copy of one build) fetches again, for its own FileID.
//! 3. The fetch asks each server in the order configured, `GET
//!    <url>/buildid/<hex>/debuginfo`, on a blocking thread (`ureq`, with a time limit per
//!    request and a size limit on the body, which is written to a temporary file). The
//!    first file that is an ELF with that build ID and gives range records wins: the
//!    range symbfile is extracted as `symblob symbfile build` extracts it, without return
//!    pads (a debug file has no code bytes to make them from).
//! 4. The range file is published under the request's FileID exactly as an upload is
//!    ([`assemble::publish`]): the download layout and the Lidia file, so the next
//!    request, on any instance of the store, reads it like uploaded symbols.
//!
//! A miss — every server answered 404, or the files they gave are over the size limit,
//! not the build ID's, or hold no functions — is remembered per build ID for the time to
//! live and answered 404. A server that could not be asked (unreachable, an HTTP error
//! other than 404, a broken transfer, too slow) makes the answer 503 and nothing is
//! remembered, since it may have the file: the client retries.
//!
//! The fetch runs as a task of its own: a request that gives up (its time limit) does
//! not stop it, and its result is published for the retry. At most
//! [`MAX_FETCHES`] fetches run at once; more wait their turn.
//!
//! Trust: the pairing of FileID and build ID is the client's word, as a profiler reads
//! both from the same executable. A key that may symbolize can thus make the service
//! publish a debug file's symbols under a FileID that has none yet; uploads, which
//! replace them, still need a key that may upload.

mod memory;

use std::io::{Read as _, Write as _};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

pub use self::memory::{BuildId, Flight, Flights, Miss, MissMemory};
use super::assemble::{self, FileKind};
use super::cache::Entry;
use super::metrics::Fallback;
use super::reply::{Failure, Refused};
use super::symbolize::{self, Request};
use super::upload::chain;
use super::State;
use crate::extract::ExtractOptions;
use crate::pipeline::symbfile::extract_ranges;
use crate::symbfile::fileid::FileId;

/// Fetches running at once; each holds a blocking thread and a temporary file.
pub const MAX_FETCHES: usize = 4;

/// Where and how the fallback fetches debug files.
#[derive(Clone, Debug)]
pub struct DebuginfodOptions {
    /// Server URLs (`http://host:port`, maybe with a path), asked in this order; none:
    /// no fallback.
    pub servers: Vec<String>,
    /// How long a miss is remembered (zero: never).
    pub miss_ttl: Duration,
    /// Largest debug file taken, in bytes.
    pub max_size: u64,
    /// Time one request to a server may take, the body included.
    pub timeout: Duration,
}

impl Default for DebuginfodOptions {
    fn default() -> Self {
        DebuginfodOptions {
            servers: Vec::new(),
            // As elfutils' debuginfod client keeps its misses (`cache_miss_s`).
            miss_ttl: Duration::from_secs(600),
            max_size: 2 << 30,
            timeout: Duration::from_secs(120),
        }
    }
}

/// The fallback's state, shared by every request.
pub struct Debuginfod {
    options: Arc<DebuginfodOptions>,
    agent: ureq::Agent,
    misses: MissMemory,
    flights: Flights,
    fetches: Semaphore,
}

impl Debuginfod {
    /// The fallback on `options`, or `None` when no server is configured.
    pub fn new(options: DebuginfodOptions) -> Option<Debuginfod> {
        if options.servers.is_empty() {
            return None;
        }
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(10).min(options.timeout))
            .timeout(options.timeout)
            .build();
        Some(Debuginfod {
            misses: MissMemory::new(options.miss_ttl, MissMemory::CAPACITY),
            options: Arc::new(options),
            agent,
            flights: Flights::default(),
            fetches: Semaphore::new(MAX_FETCHES),
        })
    }
}

/// The symbols of `request`'s executable when none were published: fetched through
/// debuginfod when the request names a build ID and servers are configured, else the
/// 404 of a FileID without symbols.
pub async fn fallback(state: &Arc<State>, request: &Request) -> Result<Arc<Entry>, Refused> {
    let id = request.id;
    let (Some(build_id), Some(d)) = (&request.build_id, &state.debuginfod) else {
        return Err(symbolize::no_symbols(id));
    };
    if let Some(miss) = d.misses.remembered(build_id, Instant::now()) {
        state.metrics.fallback(Fallback::RememberedMiss);
        return Err(missed(id, build_id, &miss));
    }
    // A task of its own: the fetch goes on when the request gives up.
    tokio::spawn(resolve(state.clone(), id, build_id.clone()))
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))?
}

/// One request's turn in the flight of `build_id`: the symbols another fetch published,
/// its remembered miss, or a fetch of its own.
async fn resolve(state: Arc<State>, id: FileId, build_id: BuildId) -> Result<Arc<Entry>, Refused> {
    let Some(d) = &state.debuginfod else {
        return Err(symbolize::no_symbols(id));
    };
    let flight = d.flights.join(&build_id);
    let _turn = flight.lock.lock().await;
    if let Some(miss) = d.misses.remembered(&build_id, Instant::now()) {
        state.metrics.fallback(Fallback::RememberedMiss);
        return Err(missed(id, &build_id, &miss));
    }
    if let Some(entry) = symbolize::entry(&state, id).await? {
        return Ok(entry);
    }
    let _permit = d
        .fetches
        .acquire()
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))?;
    state.metrics.fallback(Fallback::Fetch);
    let started = Instant::now();
    let (agent, options, asked) = (d.agent.clone(), d.options.clone(), build_id.clone());
    let fetched = tokio::task::spawn_blocking(move || fetch(&agent, &options, &asked))
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))?;
    log(id, &build_id, &fetched, started.elapsed());
    match fetched {
        Fetched::Found(ranges) => {
            assemble::publish(&state, FileKind::Ranges, id, vec![ranges.into()]).await?;
            state.metrics.fallback(Fallback::Hit);
            symbolize::entry(&state, id).await?.ok_or_else(|| {
                Refused::new(
                    Failure::Internal,
                    "the published symbols are not in the store",
                )
            })
        }
        Fetched::Missing(why) => {
            let now = Instant::now();
            d.misses.remember(&build_id, &why, now);
            state.metrics.fallback(Fallback::Miss);
            let miss = Miss {
                why: why.into(),
                left: d.options.miss_ttl,
            };
            Err(missed(id, &build_id, &miss))
        }
        Fetched::Unavailable(why) => {
            state.metrics.fallback(Fallback::Failure);
            Err(Refused::new(
                Failure::Unavailable,
                format!("build ID {build_id} could not be looked up on debuginfod: {why}"),
            ))
        }
    }
}

/// One JSON line on standard error per fetch, beside the request log's lines.
fn log(id: FileId, build_id: &BuildId, fetched: &Fetched, took: Duration) {
    let (outcome, why) = match fetched {
        Fetched::Found(_) => ("hit", ""),
        Fetched::Missing(why) => ("miss", why.as_str()),
        Fetched::Unavailable(why) => ("failure", why.as_str()),
    };
    let line = serde_json::json!({
        "debuginfod": outcome,
        "buildID": build_id.hex(),
        "fileID": id.es(),
        "why": why,
        "ms": took.as_secs_f64() * 1e3,
    });
    super::eprintln_quiet(&line.to_string());
}

/// The 404 of a build ID the servers did not have.
fn missed(id: FileId, build_id: &BuildId, miss: &Miss) -> Refused {
    Refused::new(
        Failure::NotFound,
        format!(
            "no symbols for FileID {}: build ID {build_id} was looked up on debuginfod \
             and not found ({}); {}",
            id.es(),
            miss.why,
            again(miss.left),
        ),
    )
}

/// When a miss is asked about again, in words.
fn again(left: Duration) -> String {
    if left.is_zero() {
        "asked again at the next request".into()
    } else {
        format!("asked again in {} s", left.as_secs().max(1))
    }
}

/// What a fetch came to.
#[derive(Debug)]
enum Fetched {
    /// A range symbfile.
    Found(Vec<u8>),
    /// No server has a usable file: why, server by server.
    Missing(String),
    /// A server could not be asked: why, server by server.
    Unavailable(String),
}

/// Why one server gave no range file.
enum NotThere {
    /// It has no usable file (remembered when no server has one).
    Missing(String),
    /// It could not be asked.
    Failed(String),
}

/// Asks the servers in order for the debug file of `build_id`.
fn fetch(agent: &ureq::Agent, options: &DebuginfodOptions, build_id: &BuildId) -> Fetched {
    let (mut missing, mut failed) = (Vec::new(), Vec::new());
    for server in &options.servers {
        match from_server(agent, options, server, build_id) {
            Ok(ranges) => return Fetched::Found(ranges),
            Err(NotThere::Missing(why)) => missing.push(format!("{server}: {why}")),
            Err(NotThere::Failed(why)) => failed.push(format!("{server}: {why}")),
        }
    }
    if failed.is_empty() {
        Fetched::Missing(missing.join("; "))
    } else {
        failed.extend(missing);
        Fetched::Unavailable(failed.join("; "))
    }
}

/// The range file of the debug file `server` has for `build_id`.
fn from_server(
    agent: &ureq::Agent,
    options: &DebuginfodOptions,
    server: &str,
    build_id: &BuildId,
) -> Result<Vec<u8>, NotThere> {
    let url = format!(
        "{}/buildid/{build_id}/debuginfo",
        server.trim_end_matches('/')
    );
    let response = match agent.get(&url).call() {
        Ok(response) => response,
        Err(ureq::Error::Status(404, _)) => return Err(NotThere::Missing("not found".into())),
        Err(ureq::Error::Status(code, _)) => {
            return Err(NotThere::Failed(format!("HTTP status {code}")))
        }
        Err(ureq::Error::Transport(e)) => {
            // Its text starts with the URL, which the server's name already gives.
            let text = e.to_string();
            let text = text.strip_prefix(&format!("{url}: ")).unwrap_or(&text);
            return Err(NotThere::Failed(text.to_owned()));
        }
    };
    let over = |size: u64| {
        NotThere::Missing(format!(
            "the debug file is {size} bytes, over the limit of {} bytes",
            options.max_size
        ))
    };
    let declared = response
        .header("Content-Length")
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(size) = declared.filter(|&n| n > options.max_size) {
        return Err(over(size));
    }
    let local = |what: &str, e: std::io::Error| NotThere::Failed(format!("{what}: {e}"));
    let mut file = tempfile::Builder::new()
        .prefix("symblob-debuginfo-")
        .tempfile()
        .map_err(|e| local("no temporary file", e))?;
    // One byte over the limit tells a file over it from one of exactly its size.
    let mut body = response
        .into_reader()
        .take(options.max_size.saturating_add(1));
    let copied = std::io::copy(&mut body, &mut file)
        .map_err(|e| NotThere::Failed(format!("the transfer broke: {e}")))?;
    if copied > options.max_size {
        return Err(over(copied));
    }
    file.flush().map_err(|e| local("the temporary file", e))?;
    check_build_id(file.path(), build_id)?;
    let extracted = extract_ranges(file.path(), &ExtractOptions::default())
        .map_err(|e| NotThere::Missing(format!("the debug file does not read: {}", chain(&e))))?;
    if extracted.records == 0 {
        return Err(NotThere::Missing(
            "the debug file holds no functions".into(),
        ));
    }
    Ok(extracted.bytes)
}

/// Refuses a file that is not an ELF whose build ID is `want`: a server that answers
/// with another file would put wrong symbols under the FileID.
fn check_build_id(path: &std::path::Path, want: &BuildId) -> Result<(), NotThere> {
    use object::Object as _;
    let not = |why: String| NotThere::Missing(format!("the debug file {why}"));
    let bytes = crate::input::open(path).map_err(|e| not(format!("does not read: {e}")))?;
    let elf = object::File::parse(&*bytes).map_err(|e| not(format!("is not an ELF file: {e}")))?;
    match elf.build_id() {
        Ok(Some(got)) if BuildId::from_bytes(got) == *want => Ok(()),
        Ok(Some(got)) => Err(not(format!("has build ID {}", BuildId::from_bytes(got)))),
        _ => Err(not("has no build ID".into())),
    }
}
