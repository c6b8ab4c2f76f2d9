//! Paths to test data shared by every test module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file under the project's own `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// A file under the shared folder next to the repository (`../shared/testdata/…`), used
/// for files that must not be committed (`upstream/`). `None` when it is absent, so tests
/// skip cleanly.
pub fn shared_testdata(rel: &str) -> Option<PathBuf> {
    let p = root().join("../shared/testdata").join(rel);
    p.exists().then_some(p)
}
