//! `symblob serve`: runs the symbolization service (`symblob_build::serve`) until
//! interrupted (Ctrl-C or SIGTERM end it after the requests in flight).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
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
    /// Most addresses in one symbolize request.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_addresses: usize,
    /// Uploads handled at once; more wait up to 30 s for a turn, then get 503, which
    /// `symbfile push` retries.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_uploads: usize,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    timeout: u64,
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
            ..Limits::default()
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
