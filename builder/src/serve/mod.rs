//! `symblob serve`: the symbolization service of symbfile's upload API, on a local
//! directory or an object store.
//!
//! | endpoint | what |
//! |---|---|
//! | `POST /api/symbols-ranges`, `POST /api/symbols-returnpads` | one part of an executable's range or return-pad symbfile ([`upload`]) |
//! | `POST /api/symbolize` | frames of addresses ([`symbolize`]); symbols never uploaded fetched by build ID from debuginfod ([`debuginfod`]) |
//! | `POST /api/symbolize-batch` | the same for several executables in one request ([`batch`]) |
//! | `GET /<es[0:2]>/<es[2:4]>/<es>/metadata.json`, `…/ranges`, `…/returnpads` | the download layout devfiler reads ([`store`]) |
//! | `GET /health`, `GET /metrics` | liveness; Prometheus counters ([`metrics`]) |
//!
//! Every failure is answered with the API's JSON error shape ([`reply`]) and logged as one
//! JSON line on standard error with the request's `uuid`; keys are never logged.
//! `docs/serve.md` is the user's guide.

pub mod assemble;
pub mod batch;
pub mod cache;
pub mod debuginfod;
pub mod keys;
pub mod metrics;
pub mod reply;
pub mod store;
pub mod sweep;
pub mod symbolize;
pub mod upload;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State as Shared};
use axum::http::{header, HeaderMap};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use self::assemble::FileKind;
use self::cache::Cache;
use self::debuginfod::{Debuginfod, DebuginfodOptions};
use self::keys::Keys;
use self::metrics::Metrics;
use self::reply::{Failure, Refused};
use self::store::Store;
use crate::symbfile::fileid::FileId;

/// Limits on what one request may ask.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of one uploaded part.
    pub max_body: usize,
    /// `FileParts` of one file.
    pub max_parts: u32,
    /// Addresses of one symbolize request.
    pub max_addresses: usize,
    /// Uploads handled at once; more wait for a turn (30 s at most, then 503, which the
    /// client retries).
    pub max_uploads: usize,
    /// Time one request may take.
    pub timeout: Duration,
    /// Parts of a file split another way are removed after this long without the file
    /// completing, instead of refusing the new split.
    pub stale_parts: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 256 << 20,
            max_parts: 10_000,
            max_addresses: 100_000,
            max_uploads: 16,
            timeout: Duration::from_secs(300),
            stale_parts: Duration::from_secs(24 * 3600),
        }
    }
}

/// How the service runs.
#[derive(Debug)]
pub struct ServeOptions {
    /// Where files are kept.
    pub store: Store,
    /// API keys; none: uploads refused, symbolize open to loopback clients only.
    pub keys: Keys,
    /// Bytes of executables kept in memory.
    pub cache_size: usize,
    /// Request limits.
    pub limits: Limits,
    /// The debuginfod servers symbols never uploaded are fetched from.
    pub debuginfod: DebuginfodOptions,
}

/// How long an upload waits for one of the `max_uploads` turns before it is refused.
const UPLOAD_QUEUE_WAIT: Duration = Duration::from_secs(30);

/// What every request handler shares.
pub struct State {
    store: Store,
    keys: Keys,
    limits: Limits,
    cache: Cache,
    metrics: Metrics,
    uploads: Semaphore,
    /// `None` without servers.
    debuginfod: Option<Debuginfod>,
}

/// The request's id, for its answer and its log line.
#[derive(Clone)]
struct RequestId(String);

/// The service on `options`, as a router (with the client's address needed: serve it
/// with `into_make_service_with_connect_info::<SocketAddr>()`). Stale parts are not
/// swept: [`serve`] runs [`sweep::run`] beside it.
pub fn router(options: ServeOptions) -> Router {
    routes(shared(options))
}

/// What the handlers of `options` share.
fn shared(options: ServeOptions) -> Arc<State> {
    Arc::new(State {
        uploads: Semaphore::new(options.limits.max_uploads.max(1)),
        store: options.store,
        keys: options.keys,
        cache: Cache::new(options.cache_size),
        metrics: Metrics::default(),
        limits: options.limits,
        debuginfod: Debuginfod::new(options.debuginfod),
    })
}

fn routes(state: Arc<State>) -> Router {
    Router::new()
        .route("/api/symbols-ranges", post(upload::<false>))
        .route("/api/symbols-returnpads", post(upload::<true>))
        .route("/api/symbolize", post(symbolize_handler::<false>))
        .route("/api/symbolize-batch", post(symbolize_handler::<true>))
        .route("/health", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics_handler))
        .route("/{a}/{b}/{es}/{name}", get(download))
        .fallback(no_such_endpoint)
        .layer(middleware::from_fn_with_state(state.clone(), around))
        .with_state(state)
}

/// Serves `options` on `listener` until `shutdown` completes, sweeping stale parts from
/// the store meanwhile ([`sweep`]).
pub async fn serve(
    listener: TcpListener,
    options: ServeOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let state = shared(options);
    let sweeper = tokio::spawn(sweep::run(state.clone()));
    let served = axum::serve(
        listener,
        routes(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await;
    sweeper.abort();
    served
}

/// Gives each request its id and time limit, counts it and logs it.
async fn around(Shared(state): Shared<Arc<State>>, mut request: Request, next: Next) -> Response {
    let id = uuid::Uuid::new_v4().to_string();
    let started = Instant::now();
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    request.extensions_mut().insert(RequestId(id.clone()));
    let response = match tokio::time::timeout(state.limits.timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => Refused::new(Failure::Unavailable, "the request took too long").answer(&id),
    };
    let took = started.elapsed();
    let status = response.status().as_u16();
    state.metrics.request(endpoint(&path), status, took);
    let line = serde_json::json!({
        "uuid": id,
        "method": method,
        "path": path,
        "status": status,
        "ms": took.as_secs_f64() * 1e3,
    });
    eprintln_quiet(&line.to_string());
    response
}

/// The endpoint a path is counted under (paths of the download layout are not labels).
fn endpoint(path: &str) -> &'static str {
    match path {
        "/api/symbols-ranges" => "symbols-ranges",
        "/api/symbols-returnpads" => "symbols-returnpads",
        "/api/symbolize" => "symbolize",
        "/api/symbolize-batch" => "symbolize-batch",
        "/health" => "health",
        "/metrics" => "metrics",
        _ => "download",
    }
}

fn eprintln_quiet(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// What an endpoint needs of the caller.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    Upload,
    Symbolize,
}

/// Checks the caller's `Authorization: APIKey <key>` for `need`.
fn authorize(
    state: &State,
    headers: &HeaderMap,
    peer: SocketAddr,
    need: Need,
) -> Result<(), Refused> {
    if state.keys.is_empty() {
        return match need {
            Need::Upload => Err(Refused::new(
                Failure::Forbidden,
                "this service takes no uploads: it was started without a keys file",
            )),
            Need::Symbolize if peer.ip().is_loopback() => Ok(()),
            Need::Symbolize => Err(Refused::new(
                Failure::Forbidden,
                "without a keys file this service answers only its own machine",
            )),
        };
    }
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, key) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("APIKey").then(|| key.trim())
        })
        .ok_or_else(|| {
            Refused::new(
                Failure::Unauthorized,
                "an `Authorization: APIKey <key>` header is needed",
            )
        })?;
    let roles = state
        .keys
        .roles(presented)
        .ok_or_else(|| Refused::new(Failure::Unauthorized, "the API key is not known"))?;
    let allowed = match need {
        Need::Upload => roles.upload,
        Need::Symbolize => roles.symbolize,
    };
    if allowed {
        Ok(())
    } else {
        Err(Refused::new(
            Failure::Forbidden,
            match need {
                Need::Upload => "the API key may not upload",
                Need::Symbolize => "the API key may not symbolize",
            },
        ))
    }
}

/// One part of a range file (`RETURN_PADS` false) or of a return-pad file.
async fn upload<const RETURN_PADS: bool>(
    Shared(state): Shared<Arc<State>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    axum::Extension(RequestId(id)): axum::Extension<RequestId>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let kind = if RETURN_PADS {
        FileKind::ReturnPads
    } else {
        FileKind::Ranges
    };
    let result = async {
        authorize(&state, &headers, peer, Need::Upload)?;
        // Uploads over the limit wait for a turn, for a while: a burst is served late
        // rather than refused, a flood is refused (503, which clients retry).
        let busy = || {
            Refused::new(
                Failure::Unavailable,
                "too many uploads at once; retry later",
            )
        };
        let _permit = tokio::time::timeout(UPLOAD_QUEUE_WAIT, state.uploads.acquire())
            .await
            .map_err(|_| busy())?
            .map_err(|_| busy())?;
        upload::receive(&state, kind, &headers, body).await
    };
    match result.await {
        Ok(()) => reply::success(),
        Err(refused) => refused.answer(&id),
    }
}

/// A symbolize request: of one executable (`BATCH` false) or of several.
async fn symbolize_handler<const BATCH: bool>(
    Shared(state): Shared<Arc<State>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    axum::Extension(RequestId(id)): axum::Extension<RequestId>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let result = async {
        authorize(&state, &headers, peer, Need::Symbolize)?;
        let max = state.limits.max_addresses;
        // Room for the addresses allowed, each a long hex string, and the rest.
        let limit = max.saturating_mul(64).saturating_add(64 << 10);
        let body = upload::read_body(&headers, body, limit).await?;
        let requests = if BATCH {
            batch::parse(&body, max)?
        } else {
            vec![symbolize::Request::parse(&body, max)?]
        };
        let symbols = batch::symbols(&state, &requests).await;
        let answered: Vec<_> = requests.into_iter().zip(symbols).collect();
        let addresses = answered
            .iter()
            .filter(|(_, symbols)| symbols.is_ok())
            .map(|(r, _)| r.addresses.len())
            .sum();
        state.metrics.answered(addresses);
        // The answer is a millisecond of work per thousand addresses: on a blocking
        // thread, so that a large one does not hold up the requests sharing its worker.
        tokio::task::spawn_blocking(move || {
            if BATCH {
                return Ok(batch::answer(&answered));
            }
            match answered.into_iter().next() {
                Some((request, symbols)) => {
                    symbols.map(|entry| symbolize::answer(&entry, &request))
                }
                None => Err(Refused::new(Failure::Internal, "no request was read")),
            }
        })
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))?
    };
    match result.await {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(refused) => refused.answer(&id),
    }
}

async fn no_such_endpoint(axum::Extension(RequestId(id)): axum::Extension<RequestId>) -> Response {
    Refused::new(Failure::NotFound, "no such endpoint").answer(&id)
}

async fn metrics_handler(Shared(state): Shared<Arc<State>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state
            .metrics
            .render(state.cache.stats(), state.store.entries_listed()),
    )
        .into_response()
}

/// `GET /<es[0:2]>/<es[2:4]>/<es>/<name>`: a published file, as stored.
async fn download(
    Shared(state): Shared<Arc<State>>,
    axum::Extension(RequestId(rid)): axum::Extension<RequestId>,
    axum::extract::Path((a, b, es, name)): axum::extract::Path<(String, String, String, String)>,
) -> Response {
    let not_found = || Refused::new(Failure::NotFound, "no such file").answer(&rid);
    let Ok(id) = FileId::parse(&es) else {
        return not_found();
    };
    let canonical = id.es();
    let content_type = match name.as_str() {
        "metadata.json" => "application/json",
        "ranges" | "returnpads" => "application/zstd",
        _ => return not_found(),
    };
    if es != canonical || a != canonical[0..2] || b != canonical[2..4] {
        return not_found();
    }
    match state
        .store
        .get(&format!("{}/{name}", store::published_dir(id)))
        .await
    {
        Ok(Some(bytes)) => ([(header::CONTENT_TYPE, content_type)], bytes).into_response(),
        Ok(None) => not_found(),
        Err(e) => upload::unavailable(e).answer(&rid),
    }
}
