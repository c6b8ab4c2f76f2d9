//! `symblob serve`: runs the symbolization service (`symblob_build::serve`) until
//! interrupted (Ctrl-C or SIGTERM end it after the requests in flight).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use symblob_build::serve::debuginfod::DebuginfodOptions;
use symblob_build::serve::keys::Keys;
use symblob_build::serve::store::Store;
use symblob_build::serve::{serve, Limits, ServeOptions};
use symblob_build::Error;

use crate::common::{parse_size, Failure, Result};

/// Arguments of `symblob serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Where uploaded files are kept: a directory (created when missing), or
    /// `s3://bucket[/prefix]` with credentials, region and endpoint from the `AWS_*`
    /// environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`). Several instances on one bucket
    /// serve the same files.
    #[arg(long, default_value = "./symbols")]
    store: String,
    /// Address and port to listen on (port 0: any free port; the address chosen is
    /// printed).
    #[arg(long, default_value = "127.0.0.1:8470")]
    listen: SocketAddr,
    /// API keys, one `KEY ROLE[,ROLE]` a line (roles `upload`, `symbolize`). Without it
    /// uploads are refused and symbolize answers only clients on this machine.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Bytes of symbol files kept in memory (decimal or 0x hex); the least recently used
    /// go first.
    #[arg(long, value_name = "BYTES", default_value = "1073741824", value_parser = parse_size)]
    cache_size: u64,
    /// Largest uploaded part, in bytes.
    #[arg(long, value_name = "BYTES", default_value = "268435456", value_parser = parse_size)]
    max_body: u64,
    /// Most addresses in one symbolize request (in a batch: in all).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_addresses: usize,
    /// Uploads handled at once; more wait up to 30 s for a turn, then get 503, which
    /// `symbfile push` retries.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_uploads: usize,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    timeout: u64,
    /// Seconds after which a part of an upload that never completed (given up, or sent
    /// again after its file was published) is removed from the store.
    #[arg(long, value_name = "SECONDS", default_value_t = 86_400)]
    stale_parts: u64,
    /// A debuginfod server (`http://host:port`) to fetch the debug file of an executable
    /// whose symbols were never uploaded, when a symbolize request gives its `buildID`;
    /// the file's ranges are then published as an upload's. Repeat for more servers,
    /// asked in the order given.
    #[arg(long = "debuginfod", value_name = "URL", value_parser = parse_server)]
    debuginfod: Vec<String>,
    /// Seconds a build ID that no debuginfod server had is remembered (answered 404
    /// without asking again); 0: not remembered.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    debuginfod_miss_ttl: u64,
    /// Largest debug file fetched from debuginfod, in bytes (decimal or 0x hex); a larger
    /// one counts as a miss.
    #[arg(long, value_name = "BYTES", default_value = "2147483648", value_parser = parse_size)]
    debuginfod_max_size: u64,
    /// Seconds one request to a debuginfod server may take, the download included.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    debuginfod_timeout: u64,
}

/// A debuginfod server's URL: `http://` or `https://`.
fn parse_server(text: &str) -> std::result::Result<String, String> {
    let rest = text
        .strip_prefix("http://")
        .or_else(|| text.strip_prefix("https://"))
        .ok_or_else(|| format!("{text:?} is not an http:// or https:// URL"))?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(format!("{text:?} names no host"));
    }
    Ok(text.to_owned())
}

/// Runs the service.
pub fn run(args: ServeArgs) -> Result<()> {
    let keys = match &args.keys {
        Some(path) => Keys::read(path)?,
        None => Keys::default(),
    };
    let store = Store::open(&args.store)?;
    let options = ServeOptions {
        store,
        keys,
        cache_size: usize::try_from(args.cache_size).unwrap_or(usize::MAX),
        limits: Limits {
            max_body: usize::try_from(args.max_body).unwrap_or(usize::MAX),
            max_addresses: args.max_addresses,
            max_uploads: args.max_uploads,
            timeout: Duration::from_secs(args.timeout),
            stale_parts: Duration::from_secs(args.stale_parts),
            ..Limits::default()
        },
        debuginfod: DebuginfodOptions {
            servers: args.debuginfod.clone(),
            miss_ttl: Duration::from_secs(args.debuginfod_miss_ttl),
            max_size: args.debuginfod_max_size,
            timeout: Duration::from_secs(args.debuginfod_timeout),
        },
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Message(format!("serve: cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Error::io(args.listen.to_string(), e))?;
        let bound = listener
            .local_addr()
            .map_err(|e| Error::io(args.listen.to_string(), e))?;
        note!(
            "symblob serve: listening on http://{bound}, store {}",
            args.store
        );
        if !args.debuginfod.is_empty() {
            note!(
                "symblob serve: symbols never uploaded are fetched by build ID from {}",
                args.debuginfod.join(", ")
            );
        }
        serve(listener, options, shutdown())
            .await
            .map_err(|e| Error::io(bound.to_string(), e))?;
        Ok(())
    })
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
