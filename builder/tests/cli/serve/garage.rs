//! A single-node Garage (a real S3 server) on 127.0.0.1, for the tests of the S3 store.
//!
//! The `garage` binary is an oracle `.ci/install-oracles` builds with `cargo install`
//! ([`crate::common::cargo_oracle`]). Everything Garage writes (its configuration, its
//! metadata and data folders, its log) is in one temporary folder, so that it can be
//! stopped and started again on the same files, as an outage and a recovery.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use object_store::aws::{AmazonS3, AmazonS3Builder};

use crate::common::{cargo_oracle, s};

/// Garage's default S3 region, which request signatures must name.
pub const REGION: &str = "garage";

/// How long Garage may take to answer after it is started.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// A running single-node Garage with one bucket and one key allowed to use it; killed
/// when dropped.
pub struct Garage {
    bin: PathBuf,
    /// Configuration, `meta/`, `data/` and `garage.log`.
    dir: tempfile::TempDir,
    s3_port: u16,
    admin_port: u16,
    child: Option<Child>,
    /// The bucket the tests use.
    pub bucket: String,
    key_id: String,
    secret: String,
    /// How long the first start took, up to a bucket the key may use.
    pub setup_took: Duration,
}

impl Garage {
    /// Starts Garage, lays out its one node, and creates a key and `bucket`. `None`
    /// after [`crate::common::missing_oracle`] when the `garage` binary is not installed.
    pub fn start(bucket: &str) -> Option<Garage> {
        let bin = cargo_oracle("garage")?;
        let started = Instant::now();
        let dir = tempfile::Builder::new()
            .prefix("serve-garage-")
            .tempdir()
            .expect("temporary folder");
        // Held together so that the three ports differ; Garage binds them right after.
        let listeners: Vec<TcpListener> = (0..3)
            .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
            .collect();
        let port = |i: usize| listeners[i].local_addr().unwrap().port();
        let (rpc_port, s3_port, admin_port) = (port(0), port(1), port(2));
        drop(listeners);
        std::fs::write(
            dir.path().join("garage.toml"),
            config(dir.path(), rpc_port, s3_port, admin_port),
        )
        .expect("write Garage's configuration");
        let mut garage = Garage {
            bin,
            dir,
            s3_port,
            admin_port,
            child: None,
            bucket: bucket.to_owned(),
            key_id: String::new(),
            secret: String::new(),
            setup_took: Duration::ZERO,
        };
        garage.spawn();
        garage.wait_until(|g| g.cli(&["status"]).status.success(), "`garage status`");
        garage.setup();
        garage.wait_healthy();
        garage.setup_took = started.elapsed();
        Some(garage)
    }

    /// The environment `symblob serve --store s3://…` needs to reach the bucket:
    /// credentials, region and the plain-HTTP endpoint.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", self.key_id.clone()),
            ("AWS_SECRET_ACCESS_KEY", self.secret.clone()),
            ("AWS_REGION", REGION.to_owned()),
            ("AWS_ENDPOINT", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
        ]
    }

    /// `http://127.0.0.1:<s3 port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.s3_port)
    }

    /// A client of the bucket, for the tests to look at what the service wrote.
    pub fn client(&self) -> AmazonS3 {
        AmazonS3Builder::new()
            .with_bucket_name(&self.bucket)
            .with_access_key_id(&self.key_id)
            .with_secret_access_key(&self.secret)
            .with_region(REGION)
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .build()
            .expect("an S3 client of Garage")
    }

    /// The keys of every object in the bucket, sorted, listed through Garage's S3 API.
    pub fn objects(&self) -> Vec<String> {
        use futures::TryStreamExt;
        use object_store::ObjectStore;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the S3 client");
        let client = self.client();
        let listed: Vec<_> = runtime
            .block_on(client.list(None).try_collect())
            .unwrap_or_else(|e| panic!("list the bucket: {e}\n{}", self.log()));
        let mut keys: Vec<String> = listed.into_iter().map(|m| m.location.to_string()).collect();
        keys.sort();
        keys
    }

    /// Kills Garage (SIGKILL, as a crash or a lost machine) and waits for it to end.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops Garage where it is (SIGSTOP): connections are still accepted by the
    /// system, and nothing answers them, as with a hung server or a network that drops
    /// packets.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused Garage go on (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        let pid = self.child.as_ref().expect("Garage is running").id();
        // The shell's own `kill`: a `kill` program need not be on PATH.
        let status = Command::new("/bin/sh")
            .args(["-c", &format!("kill {which} {pid}")])
            .status()
            .expect("run /bin/sh");
        assert!(status.success(), "kill {which} {pid}");
    }

    /// Starts Garage again on the same configuration and files, waiting until it
    /// serves the bucket again.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
        self.wait_healthy();
    }

    /// Garage's log so far, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("garage.log")).unwrap_or_default()
    }

    fn config_path(&self) -> PathBuf {
        self.dir.path().join("garage.toml")
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("garage.log"))
            .expect("Garage's log file");
        let child = Command::new(&self.bin)
            .arg("-c")
            .arg(self.config_path())
            .arg("server")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn()
            .expect("spawn garage server");
        self.child = Some(child);
    }

    /// `garage -c CONFIG ARGS`, run to its end.
    fn cli(&self, args: &[&str]) -> Output {
        Command::new(&self.bin)
            .arg("-c")
            .arg(self.config_path())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run garage")
    }

    /// `garage -c CONFIG ARGS`, which must succeed: its standard output.
    fn must(&self, args: &[&str]) -> String {
        let out = self.cli(args);
        assert!(
            out.status.success(),
            "garage {}: {}{}\n--- garage.log\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// One zone and 1 GB for the only node, a key, and the bucket with every right for
    /// that key (`garage status` shows the node's ID; `layout assign` takes a prefix).
    fn setup(&mut self) {
        let status = self.must(&["status"]);
        let node = status
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .find(|id| id.len() >= 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
            .unwrap_or_else(|| panic!("no node ID in `garage status`:\n{status}"))
            .to_owned();
        self.must(&["layout", "assign", "-z", "dc1", "-c", "1G", &node]);
        self.must(&["layout", "apply", "--version", "1"]);
        let key = self.must(&["key", "create", "symblob-test"]);
        let field = |name: &str| {
            key.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or_else(|| panic!("no {name:?} in `garage key create`:\n{key}"))
                .to_owned()
        };
        self.key_id = field("Key ID:");
        self.secret = field("Secret key:");
        self.must(&["bucket", "create", &self.bucket]);
        self.must(&[
            "bucket",
            "allow",
            "--read",
            "--write",
            "--owner",
            &self.bucket,
            "--key",
            &self.key_id,
        ]);
    }

    /// Waits until the admin API's `/health` answers 200: the node is up and its data
    /// reachable, so S3 requests are served.
    fn wait_healthy(&mut self) {
        let url = format!("http://127.0.0.1:{}/health", self.admin_port);
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(5))
            .build();
        self.wait_until(
            |_| agent.get(&url).call().is_ok_and(|r| r.status() == 200),
            "the admin API's /health",
        );
    }

    /// Polls `ready` until it holds, failing with Garage's log after [`READY_WITHIN`] or
    /// when Garage has ended.
    fn wait_until(&mut self, ready: impl Fn(&Garage) -> bool, what: &str) {
        let start = Instant::now();
        loop {
            if ready(self) {
                return;
            }
            if let Some(child) = &mut self.child {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!("garage server ended ({status}):\n{}", self.log());
                }
            }
            assert!(
                start.elapsed() < READY_WITHIN,
                "Garage did not answer {what} within {READY_WITHIN:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Garage {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A single-node configuration: SQLite metadata (no LMDB map to size), one copy of each
/// block, every API on loopback, a fresh RPC secret.
fn config(dir: &Path, rpc_port: u16, s3_port: u16, admin_port: u16) -> String {
    let meta = dir.join("meta");
    let data = dir.join("data");
    format!(
        r#"metadata_dir = "{meta}"
data_dir = "{data}"
db_engine = "sqlite"
replication_factor = 1

rpc_bind_addr = "127.0.0.1:{rpc_port}"
rpc_public_addr = "127.0.0.1:{rpc_port}"
rpc_secret = "{secret}"

[s3_api]
s3_region = "{REGION}"
api_bind_addr = "127.0.0.1:{s3_port}"

[admin]
api_bind_addr = "127.0.0.1:{admin_port}"
admin_token = "{admin_token}"
"#,
        meta = s(&meta),
        data = s(&data),
        secret = random_hex(),
        admin_token = random_hex(),
    )
}

/// 64 random hex digits (32 bytes, as Garage's `rpc_secret` must be): two version-4
/// UUIDs, whose fixed version and variant bits leave 244 random ones.
fn random_hex() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}
