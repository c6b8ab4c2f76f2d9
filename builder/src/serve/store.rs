//! Where the service keeps files: a local directory or an S3 bucket, through
//! `object_store`. Every object is written by one `put`, which both backends make atomic
//! (the local one writes a temporary file and renames it; an S3 `PUT` is visible whole
//! or not at all), so no reader ever sees half a file. A store that does not answer is
//! refused in seconds: each request must start being answered within 10 s (a write gets
//! 1 s more for each MiB it sends), whatever the client's limit for a whole transfer.
//!
//! Layout (`es` = the executable's FileID in ES form):
//!
//! | key | what |
//! |---|---|
//! | `<es[0:2]>/<es[2:4]>/<es>/metadata.json` | devfiler's pointer to the debug file's ranges (here the same FileID) |
//! | `<es[0:2]>/<es[2:4]>/<es>/ranges` | the range symbfile, parts joined, zstd-compressed |
//! | `<es[0:2]>/<es[2:4]>/<es>/ranges.lidia` | the same ranges as a Lidia file, answered in place |
//! | `<es[0:2]>/<es[2:4]>/<es>/returnpads` | the return-pad symbfile, parts joined, zstd-compressed |
//! | `uploads/<es>/<kind>/<parts>/<part>` | a received part until its file is complete |

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::prefix::PrefixStore;
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreExt, RetryConfig};

use crate::symbfile::fileid::FileId;
use crate::{Error, ErrorKind, Location, Result};

/// A store that failed to answer (unreachable, full, refusing): the request gets a 503.
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<object_store::Error> for StoreError {
    fn from(e: object_store::Error) -> Self {
        StoreError(format!("the store failed: {e}"))
    }
}

/// One object of a listing.
#[derive(Clone, Debug)]
pub struct Listed {
    /// The key's part after the listed prefix.
    pub name: String,
    /// When it was written.
    pub modified: std::time::SystemTime,
}

/// The service's store.
#[derive(Clone)]
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    describe: String,
    /// The directory of a local store.
    local: Option<PathBuf>,
    /// Entries listings have returned (objects and folders), for the metrics: the upload
    /// path's cost grows with them.
    listed: Arc<AtomicU64>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe)
    }
}

impl Store {
    /// Opens `spec`: `s3://bucket[/prefix]` (credentials, region and endpoint from the
    /// usual `AWS_*` environment variables, e.g. `AWS_ENDPOINT` and `AWS_ALLOW_HTTP` for
    /// a self-hosted server; path-style requests unless `AWS_VIRTUAL_HOSTED_STYLE_REQUEST`;
    /// 5 s to connect and 120 s a request unless `AWS_CONNECT_TIMEOUT` or `AWS_TIMEOUT`
    /// say otherwise; two retries within 10 s), or a directory, created when missing.
    pub fn open(spec: &str) -> Result<Store> {
        if let Some(rest) = spec.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            let bad = |e: object_store::Error| {
                Error::new(ErrorKind::InvalidArgument, spec, Location::Whole, "").with_source(e)
            };
            // A store that does not answer makes requests fail in seconds, not after
            // the default retries' minutes.
            let retry = RetryConfig {
                max_retries: 2,
                retry_timeout: Duration::from_secs(10),
                ..RetryConfig::default()
            };
            let mut s3 = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_retry(retry);
            // The time limits are set one by one, and only where the environment sets
            // none: `with_client_options` would replace every client setting read from
            // it, `AWS_ALLOW_HTTP` included. (The builder cannot tell, since its own
            // defaults are set: 5 s to connect, 30 s a request, too little for a large
            // part.) 5 s to connect answers an unreachable store in seconds.
            for (var, key, limit) in [
                ("AWS_CONNECT_TIMEOUT", ClientConfigKey::ConnectTimeout, "5s"),
                ("AWS_TIMEOUT", ClientConfigKey::Timeout, "120s"),
            ] {
                if std::env::var_os(var).is_none() {
                    s3 = s3.with_config(AmazonS3ConfigKey::Client(key), limit);
                }
            }
            let s3 = s3.build().map_err(bad)?;
            let inner: Arc<dyn ObjectStore> = match prefix.trim_matches('/') {
                "" => Arc::new(s3),
                p => Arc::new(PrefixStore::new(s3, p)),
            };
            return Ok(Store {
                inner,
                describe: spec.to_owned(),
                local: None,
                listed: Arc::default(),
            });
        }
        std::fs::create_dir_all(spec).map_err(|e| Error::io(spec, e))?;
        let local = LocalFileSystem::new_with_prefix(spec)
            .map_err(|e| Error::new(ErrorKind::Io, spec, Location::Whole, "").with_source(e))?;
        Ok(Store {
            inner: Arc::new(local),
            describe: spec.to_owned(),
            local: Some(PathBuf::from(spec)),
            listed: Arc::default(),
        })
    }

    /// The object at `key`, or `None` when there is none.
    pub async fn get(&self, key: &str) -> std::result::Result<Option<Bytes>, StoreError> {
        // The answer must start within ANSWER_WITHIN; its body may take the client's
        // request limit, as a large file does.
        match within(ANSWER_WITHIN, "a read", self.inner.get(&Key::from(key))).await? {
            Ok(found) => Ok(Some(found.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes `bytes` at `key`, whole or not at all.
    pub async fn put(&self, key: &str, bytes: Bytes) -> std::result::Result<(), StoreError> {
        let mib = u32::try_from(bytes.len() >> 20).unwrap_or(u32::MAX);
        let limit = ANSWER_WITHIN.saturating_add(WRITE_TIME_PER_MIB.saturating_mul(mib));
        within(
            limit,
            "a write",
            self.inner.put(&Key::from(key), bytes.into()),
        )
        .await??;
        Ok(())
    }

    /// Removes `key` (no error when it is already gone).
    pub async fn delete(&self, key: &str) -> std::result::Result<(), StoreError> {
        match within(
            ANSWER_WITHIN,
            "a removal",
            self.inner.delete(&Key::from(key)),
        )
        .await?
        {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the empty folders of the parts layout ([`in_parts_layout`]) below the
    /// folder `prefix` of a local store, which keeps the folders of the objects it
    /// removes (an object store has no folders). A folder
    /// that a write fills meanwhile stays: only empty folders can be removed, and a write
    /// whose folder went away makes it again.
    pub async fn remove_empty_folders(&self, prefix: &str) {
        let Some(root) = &self.local else {
            return;
        };
        let folder = root.join(prefix);
        let _ =
            tokio::task::spawn_blocking(move || remove_empty_below(&folder, &mut Vec::new())).await;
    }

    /// Whether an object is at `key`.
    pub async fn exists(&self, key: &str) -> std::result::Result<bool, StoreError> {
        match within(ANSWER_WITHIN, "a lookup", self.inner.head(&Key::from(key))).await? {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// The names of the folders directly under `prefix` (a folder, without its final
    /// `/`): one entry each, however many objects they hold.
    pub async fn folders(&self, prefix: &str) -> std::result::Result<Vec<String>, StoreError> {
        let folder = Key::from(prefix);
        let listing = self.inner.list_with_delimiter(Some(&folder));
        let found = within(ANSWER_WITHIN, "a listing", listing).await??;
        self.listed.fetch_add(
            (found.common_prefixes.len() + found.objects.len()) as u64,
            Relaxed,
        );
        Ok(found
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename().map(str::to_owned))
            .collect())
    }

    /// Entries all listings so far have returned.
    pub fn entries_listed(&self) -> u64 {
        self.listed.load(Relaxed)
    }

    /// The objects under `prefix` (a folder, without its final `/`).
    pub async fn list(&self, prefix: &str) -> std::result::Result<Vec<Listed>, StoreError> {
        let folder = Key::from(prefix);
        let listing = self.inner.list(Some(&folder)).try_collect::<Vec<_>>();
        let found = within(ANSWER_WITHIN, "a listing", listing).await??;
        self.listed.fetch_add(found.len() as u64, Relaxed);
        let skip = folder.as_ref().len() + 1;
        Ok(found
            .into_iter()
            .filter_map(|meta| {
                let name = meta.location.as_ref().get(skip..)?.to_owned();
                Some(Listed {
                    name,
                    modified: meta.last_modified.into(),
                })
            })
            .collect())
    }
}

/// Removes the empty folders of the parts layout below `folder` (itself at `depth`
/// below the uploads folder), deepest first; the layout is four levels deep, so the
/// recursion is too.
fn remove_empty_below(folder: &std::path::Path, depth: &mut Vec<String>) {
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        depth.push(name);
        let components: Vec<&str> = depth.iter().map(String::as_str).collect();
        if entry.file_type().is_ok_and(|t| t.is_dir()) && in_parts_layout(&components) {
            let path = entry.path();
            remove_empty_below(&path, depth);
            // Fails, as it should, when the folder is not empty.
            let _ = std::fs::remove_dir(&path);
        }
        depth.pop();
    }
}

/// How long the store may take to start answering a request (a read's headers, a
/// listing, a removal, a small write), retries included. A store that does not answer
/// (unreachable, or accepting connections and never answering, as a hung server or a
/// network that drops packets does with the connections already open) is refused in
/// this time, instead of after the client's request limit, which is there for large
/// transfers.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// The time a write is given on top of [`ANSWER_WITHIN`] for each MiB it sends (at
/// least 1 MiB/s; the client's request limit still applies).
const WRITE_TIME_PER_MIB: Duration = Duration::from_secs(1);

/// `op`'s result, or a [`StoreError`] when it took longer than `limit` (the request is
/// then dropped, which closes its connection).
async fn within<T>(
    limit: Duration,
    what: &str,
    op: impl std::future::Future<Output = T>,
) -> std::result::Result<T, StoreError> {
    tokio::time::timeout(limit, op).await.map_err(|_| {
        StoreError(format!(
            "the store did not answer {what} within {} s",
            limit.as_secs()
        ))
    })
}

/// The folder of every part received and not yet joined ([`parts_dir`]).
pub const UPLOADS: &str = "uploads";

/// Whether the components of a path below [`UPLOADS`] are (a prefix of) the parts
/// layout `<es>/<kind>/<parts>/<part>`: the sweep removes nothing else, so a store
/// pointed at a folder that already held an `uploads` folder loses none of its files.
pub fn in_parts_layout(components: &[&str]) -> bool {
    let number = |text: &str| -> Option<u32> {
        (!text.starts_with('0') || text == "0")
            .then(|| text.parse().ok())
            .flatten()
    };
    components.len() <= 4
        && components.iter().enumerate().all(|(depth, c)| match depth {
            0 => FileId::parse(c).is_ok_and(|id| id.es() == *c),
            1 => *c == "ranges" || *c == "returnpads",
            2 => number(c).is_some_and(|n| n > 0),
            _ => match (number(components[2]), number(c)) {
                (Some(parts), Some(part)) => part < parts,
                _ => false,
            },
        })
}

/// The folder of an executable's published files.
pub fn published_dir(id: FileId) -> String {
    let es = id.es();
    format!("{}/{}/{}", &es[0..2], &es[2..4], es)
}

/// The folder of the received parts of one file kind (`ranges` or `returnpads`).
pub fn parts_dir(id: FileId, kind: &str) -> String {
    format!("{UPLOADS}/{}/{kind}", id.es())
}
