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

/// Whether a missing oracle (an external tool, a fixture, the shared folder) must fail the
/// test instead of skipping it. CI sets `SYMBLOB_REQUIRE_ORACLES=1`.
pub fn oracles_required() -> bool {
    std::env::var_os("SYMBLOB_REQUIRE_ORACLES").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Reports a missing oracle: panics under `SYMBLOB_REQUIRE_ORACLES=1`, otherwise prints
/// why the check is skipped. Call it on every path that would skip a check.
pub fn missing_oracle(what: &str) {
    if oracles_required() {
        panic!("oracle missing (SYMBLOB_REQUIRE_ORACLES=1): {what}");
    }
    eprintln!("skipped: oracle missing: {what}");
}

/// The path of an external tool on `PATH` (for example `llvm-symbolizer-14`), or `None`
/// after [`missing_oracle`] when it is absent.
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        missing_oracle(&format!("tool `{name}` not on PATH"));
    }
    found
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

/// Asserts that a run succeeded and returns its standard output.
pub fn success(o: Output) -> Vec<u8> {
    assert!(o.status.success(), "symblob failed: {}", stderr_text(&o));
    o.stdout
}
