//! Paths to test data shared by every test module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

#[path = "../support/oracles.rs"]
mod oracles;
pub use oracles::*;
#[path = "../support/splitmix.rs"]
pub mod splitmix;

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file under the project's own `testdata/`.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// The files directly in `dir` whose names end in `suffix`, each with its name without
/// the suffix, in directory order.
pub fn files_ending_in(dir: &Path, suffix: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        if let Some(stem) = name.strip_suffix(suffix) {
            let stem = stem.to_owned();
            out.push((path, stem));
        }
    }
    out
}
