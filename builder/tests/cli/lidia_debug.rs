//! `symblob lidia build --dwarf`: separate debug files are checked against the binary, and
//! the library's warnings reach standard error.

use crate::common::{run, testdata};

#[test]
fn a_debug_file_of_another_binary_is_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.lidia");
    let binary = testdata("lidia/elf/inl");
    let other = testdata("lidia/elf/simple");
    let args = [
        "lidia",
        "build",
        "--dwarf",
        binary.to_str().unwrap(),
        "--debug-file",
        other.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let refused = run(&args, b"");
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8(refused.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(binary.to_str().unwrap()), "{err}");
    assert!(err.contains(other.to_str().unwrap()), "{err}");
    assert!(err.contains("build ID"), "{err}");
    assert!(!out.exists());

    let forced = run(&[&args[..], &["--debug-file-mismatch-ok"]].concat(), b"");
    assert_eq!(forced.status.code(), Some(0));
    let err = String::from_utf8(forced.stderr).unwrap();
    assert!(err.starts_with("warning: "), "{err}");
    assert!(out.exists());
}

#[test]
fn no_dwarf_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.lidia");
    // Stripped, with no .gnu_debuglink; its build ID names no installed debug file.
    let stripped = testdata("lidia/elf/libdemo-stripped.so");
    let done = run(
        &[
            "lidia",
            "build",
            "--dwarf",
            stripped.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(done.status.code(), Some(0));
    let err = String::from_utf8(done.stderr).unwrap();
    assert!(err.starts_with("warning: "), "{err}");
    assert!(err.contains("no DWARF"), "{err}");
    assert!(err.contains("libdemo-stripped.so"), "{err}");
}
