//! An error in an input names that input, with the offset or entry where it is wrong:
//! never `<stdout>` (the output being written when a lazily decoded record turned out
//! bad), never a name the library gave it, never another input of the same command.

use std::fs;
use std::path::{Path, PathBuf};

use symblob_build::lidia::{Flags, LidiaWriter, LineEntry, RangeSpec};

use crate::common::{failed, run, s, testdata};

/// A copy of symblib's range file for `inl` without its last byte: the header and the
/// first records read, the last record is cut.
fn truncated_symbfile(dir: &Path) -> PathBuf {
    let whole = fs::read(testdata("symbfile/symblib/inl.ranges.symbfile")).unwrap();
    let cut = dir.join("inl.cut.symbfile");
    fs::write(&cut, &whole[..whole.len() - 1]).unwrap();
    cut
}

/// Asserts that `err` is one line naming `file` first, and not standard output.
fn names(err: &str, file: &Path, what: &[&str]) {
    let rest = err.strip_prefix(&format!("symblob: {}", s(file)));
    assert!(
        rest.is_some_and(|r| r.starts_with([' ', ':'])),
        "{what:?}: {err}"
    );
    assert!(!err.contains("<stdout>"), "{what:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{what:?}: {err}");
}

#[test]
fn a_lookup_in_a_truncated_symbfile_names_the_file_and_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let cut = truncated_symbfile(dir.path());
    let f = s(&cut);
    // Every range is swept for an address no range covers, so the cut record is reached.
    for args in [
        vec!["lookup", f, "0x5"],
        vec!["lookup", f, "--json", "0x5"],
        vec!["symbfile", "lookup", f, "0x5"],
    ] {
        let err = failed(&run(&args, b""));
        names(&err, &cut, &args);
        assert!(err.contains(" at offset 0x"), "{args:?}: {err}");
    }
    // Addresses from standard input: the error is still the file's.
    let err = failed(&run(&["lookup", f], b"0x5\n"));
    names(&err, &cut, &["lookup", f]);
}

#[test]
fn convert_names_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let cut = truncated_symbfile(dir.path());
    let args = ["convert", s(&cut), "-o", s(&out), "--to", "lidia"];
    names(&failed(&run(&args, b"")), &cut, &args);

    // A Lidia file whose line table goes backwards: the Lidia reader takes it, the
    // symbfile writer refuses the range, and the error names the Lidia file and range.
    let mut writer = LidiaWriter::new(Flags {
        files: true,
        lines: true,
    });
    let lines = [
        LineEntry { offset: 8, line: 3 },
        LineEntry { offset: 0, line: 2 },
    ];
    writer.add(&RangeSpec {
        va: 0x1000,
        length: 16,
        depth: 0,
        function: b"backwards",
        file: b"a.c",
        call_file: b"",
        call_line: 0,
        lines: &lines,
    });
    let lidia = dir.path().join("backwards.lidia");
    fs::write(&lidia, writer.finish()).unwrap();
    let args = ["convert", s(&lidia), "-o", s(&out), "--to", "symbfile"];
    let err = failed(&run(&args, b""));
    names(&err, &lidia, &args);
    assert!(
        err.contains("at entry 0") && err.contains("backwards"),
        "{err}"
    );
    assert!(!out.exists(), "a failed conversion wrote {}", out.display());
}

#[test]
fn size_archive_names_the_stripped_copy_when_it_is_the_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let elf = testdata("lidia/elf/simple");
    let not_elf = testdata("symbfile/symblib/inl.ranges.symbfile");
    let out = dir.path().join("x.size");
    let args = [
        "size",
        "archive",
        s(&elf),
        "--stripped",
        s(&not_elf),
        "-o",
        s(&out),
    ];
    let err = failed(&run(&args, b""));
    names(&err, &not_elf, &args);
    assert!(!err.contains(s(&elf)), "{err}");
}
