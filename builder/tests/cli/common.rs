//! Running the `symblob` binary and finding test data.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

#[path = "../../../tests/support/oracles.rs"]
mod oracles;
pub use oracles::*;

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A file under the project's own `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// A `symblob` command ready to run.
pub fn symblob() -> Command {
    Command::new(env!("CARGO_BIN_EXE_symblob"))
}

/// Starts `symblob ARGS` with its three standard streams piped.
pub fn spawn(args: &[&str]) -> Child {
    symblob()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn symblob")
}

/// Runs `symblob ARGS` with `stdin` as standard input and returns its output.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = spawn(args);
    let written = child.stdin.take().expect("stdin").write_all(stdin);
    // A command that fails before it reads its input (a bad file named on the command
    // line) may exit while the input is still being written: its output tells.
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    child.wait_with_output().expect("wait for symblob")
}

/// The path of `p` as a `&str` (test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Runs `symblob ARGS` under the shell with `umask MASK` and returns its output.
pub fn run_with_umask(mask: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask {mask} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_symblob"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run sh")
}

/// Standard error of a run as text.
pub fn stderr_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that a run succeeded and returns its standard output as text.
pub fn ok(out: &Output) -> String {
    assert!(out.status.success(), "symblob failed: {}", stderr_text(out));
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// Asserts that a run succeeded and returns its standard output.
pub fn success(o: Output) -> Vec<u8> {
    assert!(o.status.success(), "symblob failed: {}", stderr_text(&o));
    o.stdout
}

/// Asserts that a run failed and returns its standard error as text.
pub fn failed(o: &Output) -> String {
    assert!(!o.status.success(), "symblob succeeded: {}", stderr_text(o));
    stderr_text(o)
}
