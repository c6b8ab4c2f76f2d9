//! Starting `symblob serve` on a free loopback port and talking to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::common::{s, symblob};

/// A key with both roles, one that may only symbolize, and one that may only upload.
pub const KEYS: &str = "both-key upload,symbolize\nsee-key symbolize\nup-key upload\n";

/// A running `symblob serve`; killed when dropped.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    child: Child,
    /// Its standard error so far (one JSON line per request).
    pub log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `symblob serve --listen 127.0.0.1:0 ARGS` with `env`, waiting until it
    /// listens.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut command = symblob();
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("spawn symblob serve");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        stderr.read_line(&mut first).expect("read the first line");
        let url = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("serve did not start: {first}"))
            .trim_end_matches(',')
            .to_owned();
        let log = Arc::new(Mutex::new(String::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            let mut rest = String::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.get_mut().read(&mut buf) {
                if n == 0 {
                    break;
                }
                rest.push_str(&String::from_utf8_lossy(&buf[..n]));
                sink.lock().unwrap().push_str(&rest);
                rest.clear();
            }
        });
        Server { url, child, log }
    }

    /// Starts a service on the directory `store` with the keys file `keys`.
    pub fn on_dir(store: &Path, keys: &Path) -> Server {
        Server::on_dir_with(store, keys, &[])
    }

    /// [`on_dir`](Self::on_dir) with the options `more`.
    pub fn on_dir_with(store: &Path, keys: &Path, more: &[&str]) -> Server {
        let mut args = vec!["--store", s(store), "--keys", s(keys)];
        args.extend_from_slice(more);
        Server::start(&args, &[])
    }

    /// Kills the process at once (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// `POST path` with `headers` and `body`: the status and the body as JSON (`Null`
    /// when it is not JSON).
    pub fn post(&self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Value) {
        let mut request = agent().post(&format!("{}{path}", self.url));
        for (k, v) in headers {
            request = request.set(k, v);
        }
        answer(request.send_bytes(body))
    }

    /// `GET path`: the status and the body's bytes.
    pub fn get(&self, path: &str) -> (u16, Vec<u8>) {
        match agent().get(&format!("{}{path}", self.url)).call() {
            Ok(r) => (r.status(), body(r)),
            Err(ureq::Error::Status(status, r)) => (status, body(r)),
            Err(e) => panic!("GET {path}: {e}"),
        }
    }

    /// A value of the service's `/metrics`.
    pub fn metric(&self, name: &str) -> f64 {
        let (status, body) = self.get("/metrics");
        assert_eq!(status, 200);
        let text = String::from_utf8(body).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("{name} not in /metrics:\n{text}"))
    }

    /// `POST /api/symbolize` with `key`.
    pub fn symbolize(&self, key: &str, request: &Value) -> (u16, Value) {
        self.post(
            "/api/symbolize",
            &[("Authorization", &format!("APIKey {key}"))],
            request.to_string().as_bytes(),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(120))
        .build()
}

fn body(r: ureq::Response) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = r.into_reader().read_to_end(&mut bytes);
    bytes
}

fn answer(result: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    let (status, bytes) = match result {
        Ok(r) => (r.status(), body(r)),
        Err(ureq::Error::Status(status, r)) => (status, body(r)),
        Err(e) => panic!("request failed: {e}"),
    };
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A fresh scratch folder with a keys file ([`KEYS`]): `(folder, keys file)`.
pub fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("serve-{name}-"))
        .tempdir()
        .expect("temporary folder");
    let keys = dir.path().join("keys");
    std::fs::write(&keys, KEYS).unwrap();
    (dir, keys)
}

/// Checks that `answer` is the API's failure shape with `status`.
pub fn assert_refused(answer: &(u16, Value), status: u16) {
    let (got, body) = answer;
    assert_eq!(*got, status, "{body}");
    assert_eq!(body["success"], Value::Bool(false), "{body}");
    assert_eq!(body["status"], Value::from(status), "{body}");
    assert!(
        body["error"]["Code"]
            .as_str()
            .is_some_and(|c| !c.is_empty()),
        "{body}"
    );
    assert!(
        body["error"]["Text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "{body}"
    );
    assert!(
        body["uuid"].as_str().is_some_and(|u| u.len() == 36),
        "{body}"
    );
}
