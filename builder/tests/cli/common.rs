//! Running the `symblob` binary and finding test data.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

/// Runs `symblob ARGS` with `stdin` as standard input and returns its output.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = symblob()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn symblob");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait for symblob")
}
