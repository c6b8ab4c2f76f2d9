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

/// A directory for fixtures that a static holds for the whole run (a static is never
/// dropped, so a temporary directory would be left behind by every run): `name/<pid>` in
/// the test build's scratch space. The directories of earlier runs whose process is gone
/// are removed first; another run at the same time keeps its own.
pub fn run_scratch_dir(name: &str) -> PathBuf {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if Path::new("/proc/self").exists() {
        for entry in std::fs::read_dir(&parent).into_iter().flatten().flatten() {
            let gone = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if gone {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let dir = parent.join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).expect("fixtures directory");
    dir
}
