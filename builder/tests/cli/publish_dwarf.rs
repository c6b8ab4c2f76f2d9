//! `symbfile publish` files the range file under the file its DWARF was read from, and
//! `metadata.json`'s `dwarfFileID` names it, however that file was found: named with
//! `--debug-file`, or found by the extraction itself (`.gnu_debuglink` beside the
//! program, the build ID under the system's debug folder). The FileIDs come from
//! `symblob symbfile fileid`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{c_library, missing_oracle, ok, run, s, tool};
use crate::output_discovered::debug_link_named;

/// `symblob symbfile fileid`'s ES form of `file`.
fn file_id(file: &Path) -> String {
    let out = ok(&run(&["symbfile", "fileid", "--json", s(file)], b""));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["es"].as_str().unwrap().to_string()
}

/// Publishes `elf` into a new folder under `root` (named `name`) with `extra` options;
/// returns `dwarfFileID` and the range file's bytes.
fn published(root: &Path, name: &str, elf: &Path, extra: &[&str]) -> (String, Vec<u8>) {
    let dir = root.join(name);
    let out = ok(&run(
        &[&["symbfile", "publish", s(elf), s(&dir)], extra].concat(),
        b"",
    ));
    let paths: Vec<PathBuf> = out.lines().map(PathBuf::from).collect();
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&paths[0]).unwrap()).unwrap();
    let id = meta["symbolFileReferences"]["dwarfFileID"]
        .as_str()
        .unwrap()
        .to_string();
    // The range file is in the folder of the FileID metadata names.
    let folder = paths[1].parent().unwrap().file_name().unwrap();
    assert_eq!(folder.to_str().unwrap(), id, "{out}");
    (id, std::fs::read(&paths[1]).unwrap())
}

/// Checks that publishing `elf` with and without `--debug-file debug` gives the same
/// range file and names `debug` as the file of the DWARF both times.
fn names_the_debug_file(elf: &Path, debug: &Path) {
    let root = tempfile::tempdir().unwrap();
    let found = published(root.path(), "found", elf, &[]);
    let named = published(root.path(), "named", elf, &["--debug-file", s(debug)]);
    let want = file_id(debug);
    assert_ne!(want, file_id(elf));
    assert_eq!(found.0, want, "found by itself");
    assert_eq!(named.0, want, "named with --debug-file");
    assert!(found.1 == named.1, "the range files differ");
}

#[test]
fn publish_names_a_debug_file_found_by_debuglink() {
    if let Some(fx) = debug_link_named("prog.debug") {
        names_the_debug_file(&fx.elf, &fx.found);
    }
}

/// The C library and its debug file, when installed under the build-ID folder (Debian's
/// `libc6-dbg`).
#[test]
fn publish_names_the_c_library_debug_file_found_by_build_id() {
    let (Some(libc), Some(readelf)) = (c_library(), tool("readelf")) else {
        return;
    };
    let notes = Command::new(readelf).arg("-n").arg(&libc).output().unwrap();
    let notes = String::from_utf8_lossy(&notes.stdout).into_owned();
    let id = notes
        .lines()
        .find_map(|l| l.trim().strip_prefix("Build ID: "))
        .unwrap_or("");
    let debug = PathBuf::from(format!(
        "/usr/lib/debug/.build-id/{}/{}.debug",
        id.get(..2).unwrap_or(""),
        id.get(2..).unwrap_or("")
    ));
    if id.len() < 4 || !debug.is_file() {
        missing_oracle("the C library's debug file under /usr/lib/debug/.build-id");
        return;
    }
    names_the_debug_file(&libc, &debug);
}
