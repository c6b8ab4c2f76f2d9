//! Paths to test data shared by every test module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[path = "../support/oracles.rs"]
mod oracles;
pub use oracles::*;

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file under the project's own `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}
