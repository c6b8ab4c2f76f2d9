//! Upload to a symbolization service (`push`, spec §9) and the static download layout
//! that devfiler reads (`publish`).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::thread::sleep;
use std::time::Duration;

use crate::output::Output;
use crate::{Error, ErrorKind, Location, Result};

use super::fileid::FileId;

/// The two kinds of file a service receives for an executable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Range records: `POST /api/symbols-ranges`.
    Ranges,
    /// Return-pad records: `POST /api/symbols-returnpads`.
    ReturnPads,
}

impl FileKind {
    /// The REST path.
    pub fn path(self) -> &'static str {
        match self {
            FileKind::Ranges => "/api/symbols-ranges",
            FileKind::ReturnPads => "/api/symbols-returnpads",
        }
    }
}

/// An API key. Its `Debug` form hides it, so it cannot leak into a log by accident.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key (surrounding white space, such as a file's final newline, is removed).
    pub fn new(key: &str) -> Self {
        ApiKey(key.trim().to_owned())
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<hidden>)")
    }
}

/// Where and how to push.
#[derive(Clone, Debug)]
pub struct PushOptions {
    /// Base URL of the service, e.g. `https://symbols.example.com`.
    pub endpoint: String,
    /// The API key, sent as `Authorization: APIKey <key>`.
    pub api_key: ApiKey,
    /// Attempts per part after a 5xx answer or a connection error (4xx is never retried).
    pub attempts: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
    /// Time limit of each request.
    pub timeout: Duration,
}

impl PushOptions {
    /// Options with 5 attempts, 500 ms first backoff and a 60 s timeout.
    pub fn new(endpoint: &str, api_key: ApiKey) -> Self {
        PushOptions {
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            api_key,
            attempts: 5,
            backoff: Duration::from_millis(500),
            timeout: Duration::from_secs(60),
        }
    }
}

/// The service's answer to a failed request (spec §9).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceError {
    /// HTTP status.
    pub status: u16,
    /// `error.Code`.
    pub code: String,
    /// `error.Text`.
    pub text: String,
    /// `uuid` of the request in the server's logs.
    pub uuid: String,
}

impl ServiceError {
    fn from_body(status: u16, body: &str) -> Self {
        let json: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        let field = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        };
        ServiceError {
            status,
            code: field(&json["error"]["Code"]),
            text: field(&json["error"]["Text"]),
            uuid: field(&json["uuid"]),
        }
    }
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "HTTP {}: error {} ({}), request uuid {}",
            self.status,
            if self.code.is_empty() {
                "-"
            } else {
                &self.code
            },
            if self.text.is_empty() {
                "no text"
            } else {
                &self.text
            },
            if self.uuid.is_empty() {
                "-"
            } else {
                &self.uuid
            }
        )
    }
}

/// Progress of a push, for the caller to print.
#[derive(Clone, Debug)]
pub enum PushEvent {
    /// A part was accepted.
    Accepted {
        /// Part number.
        part: usize,
        /// Attempts it took.
        attempts: u32,
    },
    /// A part failed with a retryable error and will be sent again after `wait`.
    Retry {
        /// Part number.
        part: usize,
        /// What went wrong.
        reason: String,
        /// Wait before the next attempt.
        wait: Duration,
    },
}

enum Attempt {
    Done,
    Retry(String),
    Fail(String),
}

/// Uploads the parts of one file (each a complete symbfile) for the executable `file_id`:
/// one `POST` per part with `FileID`, `FilePart`, `FileParts`, `Content-Length` and
/// `Authorization` headers; 5xx answers and connection errors are retried with
/// exponential backoff, 4xx answers fail at once with the service's error.
pub fn push(
    options: &PushOptions,
    kind: FileKind,
    file_id: FileId,
    parts: &[Vec<u8>],
    mut progress: impl FnMut(PushEvent),
) -> Result<()> {
    let url = format!("{}{}", options.endpoint, kind.path());
    let agent = ureq::AgentBuilder::new().timeout(options.timeout).build();
    let fail =
        |message: String| Error::new(ErrorKind::Remote, url.clone(), Location::Whole, message);
    for (part, body) in parts.iter().enumerate() {
        let mut wait = options.backoff;
        let mut attempt = 1;
        loop {
            match send(&agent, &url, options, file_id, part, parts.len(), body) {
                Attempt::Done => {
                    progress(PushEvent::Accepted {
                        part,
                        attempts: attempt,
                    });
                    break;
                }
                Attempt::Fail(m) => return Err(fail(format!("part {part}: {m}"))),
                Attempt::Retry(m) if attempt >= options.attempts.max(1) => {
                    return Err(fail(format!(
                        "part {part}: {m} (gave up after {attempt} attempts)"
                    )))
                }
                Attempt::Retry(reason) => {
                    progress(PushEvent::Retry { part, reason, wait });
                    sleep(wait);
                    wait = wait.saturating_mul(2);
                    attempt += 1;
                }
            }
        }
    }
    Ok(())
}

fn send(
    agent: &ureq::Agent,
    url: &str,
    options: &PushOptions,
    file_id: FileId,
    part: usize,
    parts: usize,
    body: &[u8],
) -> Attempt {
    let response = agent
        .post(url)
        .set("FileID", &file_id.es())
        .set("FilePart", &part.to_string())
        .set("FileParts", &parts.to_string())
        .set("Content-Length", &body.len().to_string())
        .set("Authorization", &format!("APIKey {}", options.api_key.0))
        .send_bytes(body);
    match response {
        Ok(r) => {
            let status = r.status();
            let text = read_body(r);
            let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            if json["success"] == serde_json::Value::Bool(false) {
                Attempt::Fail(ServiceError::from_body(status, &text).to_string())
            } else {
                Attempt::Done
            }
        }
        Err(ureq::Error::Status(status, r)) => {
            let e = ServiceError::from_body(status, &read_body(r)).to_string();
            if status >= 500 {
                Attempt::Retry(e)
            } else {
                Attempt::Fail(e)
            }
        }
        Err(ureq::Error::Transport(t)) => Attempt::Retry(format!("connection error: {t}")),
    }
}

fn read_body(r: ureq::Response) -> String {
    let mut text = String::new();
    let _ = r.into_reader().take(1 << 20).read_to_string(&mut text);
    text
}

/// The directory of `id` in the download layout: `<es[0:2]>/<es[2:4]>/<es>`.
pub fn layout_dir(root: &Path, id: FileId) -> PathBuf {
    let es = id.es();
    root.join(&es[0..2]).join(&es[2..4]).join(&es)
}

/// The two files [`publish`] writes: `metadata.json` under the executable's FileID and
/// `ranges` under `debug_id`.
pub fn publish_paths(root: &Path, executable: FileId, debug_id: FileId) -> (PathBuf, PathBuf) {
    (
        layout_dir(root, executable).join("metadata.json"),
        layout_dir(root, debug_id).join("ranges"),
    )
}

/// The text of `metadata.json` in the download layout: it points at the range file of
/// `debug_id`.
pub fn metadata_json(debug_id: FileId) -> String {
    let metadata = serde_json::json!({
        "version": 1,
        "symbolFileReferences": { "dwarfFileID": debug_id.es() },
    });
    let mut text = serde_json::to_string_pretty(&metadata).expect("JSON value serializes");
    text.push('\n');
    text
}

/// Writes the download layout for an executable: `metadata.json` under its FileID,
/// pointing at `debug_id`, and the zstd-compressed range file under `debug_id`. Returns
/// the two paths written ([`publish_paths`]). `debug_id` is the FileID of the file the
/// range file's DWARF was read from (a separate debug file however it was found; the
/// executable when it holds its own DWARF or there is none): `dwarfFileID` names it.
pub fn publish(
    root: &Path,
    executable: FileId,
    debug_id: FileId,
    ranges: &[u8],
) -> Result<(PathBuf, PathBuf)> {
    let (meta_path, ranges_path) = publish_paths(root, executable, debug_id);
    for dir in [&meta_path, &ranges_path]
        .into_iter()
        .filter_map(|p| p.parent())
    {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let text = metadata_json(debug_id);
    let compressed = zstd::encode_all(ranges, 19).map_err(|e| Error::io(&ranges_path, e))?;
    // Both files are complete before either is put in place, and the range file goes
    // first: a failed publish never leaves metadata pointing at a range file it did not
    // write.
    let staged_ranges = Output::create(&ranges_path)?.stage(|w| w.write_all(&compressed))?;
    let staged_meta = Output::create(&meta_path)?.stage(|w| w.write_all(text.as_bytes()))?;
    staged_ranges.commit()?;
    staged_meta.commit()?;
    Ok((meta_path, ranges_path))
}
