//! elfutils' `debuginfod`, started on a free loopback port over copies of debug files
//! from `testdata/golden/inputs`, and what it logs it was asked.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{testdata, tool};

/// A running `debuginfod` over a folder of debug files; killed when dropped.
pub struct Debuginfod {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    port: u16,
    program: PathBuf,
    child: Child,
    /// Its files, database and log.
    dir: tempfile::TempDir,
}

impl Debuginfod {
    /// Starts `debuginfod` over copies of `files`, waiting until it serves each of
    /// `build_ids`; `None` (after `missing_oracle`) when it is not installed.
    pub fn start(files: &[&str], build_ids: &[&str]) -> Option<Debuginfod> {
        let program = tool("debuginfod")?;
        let dir = tempfile::Builder::new()
            .prefix("debuginfod-")
            .tempdir()
            .unwrap();
        std::fs::create_dir(dir.path().join("files")).unwrap();
        for name in files {
            let to = dir.path().join("files").join(name);
            std::fs::copy(testdata(&format!("golden/inputs/{name}")), to).unwrap();
        }
        let port = free_port();
        let child = launch(&program, dir.path(), port, "log");
        let mut server = Debuginfod {
            url: format!("http://127.0.0.1:{port}"),
            port,
            program,
            child,
            dir,
        };
        for id in build_ids {
            server.wait_for(id);
        }
        Some(server)
    }

    /// Polls until it serves the debug file of `build_id`: its first scan has indexed it.
    fn wait_for(&mut self, build_id: &str) {
        let url = format!("{}/buildid/{build_id}/debuginfo", self.url);
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(5))
            .build();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = agent.get(&url).call() {
                if r.status() == 200 {
                    return;
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("debuginfod exited ({status}): {}", self.log());
            }
            assert!(
                Instant::now() < deadline,
                "debuginfod did not index {build_id} in 60 s: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops it and waits for it to exit (its port is free again).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same port, files and database.
    pub fn restart(&mut self, build_id: &str) {
        self.stop();
        self.child = launch(&self.program, self.dir.path(), self.port, "log.2");
        self.wait_for(build_id);
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        ["log", "log.2"]
            .iter()
            .filter_map(|name| std::fs::read_to_string(self.dir.path().join(name)).ok())
            .collect()
    }

    /// How many requests for the debug file of `build_id` it has answered (its `-vvv`
    /// log has a line per request, written once answered).
    pub fn asked(&self, build_id: &str) -> usize {
        let request = format!("GET /buildid/{build_id}/debuginfo ");
        self.log().lines().filter(|l| l.contains(&request)).count()
    }

    /// [`Self::asked`] once the count stops changing: the log line of a request comes
    /// after its answer.
    pub fn asked_settled(&self, build_id: &str) -> usize {
        let mut last = self.asked(build_id);
        loop {
            std::thread::sleep(Duration::from_millis(300));
            let now = self.asked(build_id);
            if now == last {
                return now;
            }
            last = now;
        }
    }
}

impl Drop for Debuginfod {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A port free now on 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `debuginfod` on `port` over `dir/files`: one scan at start (no rescans, no grooming),
/// its database in `dir`, every request logged to `dir/<log>`. No `DEBUGINFOD_URLS`: it
/// must not forward what it lacks to other servers.
fn launch(program: &Path, dir: &Path, port: u16, log: &str) -> Child {
    let log = std::fs::File::create(dir.join(log)).unwrap();
    Command::new(program)
        .args([
            "-p",
            &port.to_string(),
            "-F",
            "-t",
            "0",
            "-g",
            "0",
            "-c",
            "1",
            "-vvv",
        ])
        .arg("-d")
        .arg(dir.join("db.sqlite"))
        .arg(dir.join("files"))
        .env_remove("DEBUGINFOD_URLS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("spawn debuginfod")
}
