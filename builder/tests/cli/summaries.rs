//! A build's summary says where its functions came from: the DWARF of which file (a debug
//! file found by itself named), Go's `.gopclntab`, the symbol tables, or `no DWARF`; the
//! counts of its sources add up to the ranges it wrote. A DWARF build that finds no
//! DWARF and no function says so rather than blaming the DWARF.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use crate::common::{failed, ok, run, s, stderr_text, testdata, tool};
use crate::output_discovered::debug_link_named;

/// Runs a build and returns its summary: what is between `read ELF (` and `), wrote`,
/// and the number of ranges written.
fn summary(args: &[&str], elf: &Path) -> (String, u64) {
    let o = run(args, b"");
    ok(&o);
    let err = stderr_text(&o);
    let line = err.lines().last().unwrap();
    let rest = line
        .split_once(&format!(": read {} (", s(elf)))
        .unwrap_or_else(|| panic!("{args:?}: {err}"))
        .1;
    let (sources, rest) = rest.split_once("), wrote ").unwrap();
    let ranges = rest.split_once(": ").unwrap().1;
    let ranges = ranges.split_once(" ranges").unwrap().0.parse().unwrap();
    (sources.to_string(), ranges)
}

/// The `name: count` parts of a summary's sources, and their sum.
fn counts(sources: &str) -> (Vec<String>, u64) {
    let mut names = Vec::new();
    let mut sum = 0;
    for part in sources.split(", ") {
        if let Some((name, n)) = part.rsplit_once(": ") {
            names.push(name.to_string());
            sum += n.parse::<u64>().unwrap();
        } else {
            names.push(part.to_string());
        }
    }
    (names, sum)
}

/// Whether `readelf -SW` lists a section named `name` in `elf`.
fn has_section(readelf: &Path, elf: &Path, name: &str) -> bool {
    let out = Command::new(readelf)
        .args([OsStr::new("-SW"), elf.as_os_str()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .any(|w| w == name)
}

#[test]
fn a_dwarf_build_names_the_debug_file_it_found() {
    let Some(fx) = debug_link_named("prog.debug") else {
        return;
    };
    let (elf, dir) = (s(&fx.elf), &fx.dir);
    let dwarf = format!("DWARF of {}", s(&fx.found));
    let lidia = dir.join("out.lidia");
    let ranges = dir.join("out.ranges");
    for args in [
        vec!["lidia", "build", "--dwarf", elf, "-o", s(&lidia)],
        vec!["symbfile", "build", elf, "-o", s(&ranges)],
    ] {
        let (sources, written) = summary(&args, &fx.elf);
        let (names, sum) = counts(&sources);
        assert_eq!(names[0], dwarf, "{args:?}: {sources}");
        assert_eq!(sum, written, "{args:?}: {sources}");
    }
    // The symbfile's records, counted by its own dump.
    let dump = ok(&run(&["symbfile", "dump", s(&ranges)], b""));
    let (sources, _) = summary(&["symbfile", "build", elf, "-o", s(&ranges)], &fx.elf);
    assert_eq!(counts(&sources).1, dump.lines().count() as u64);
}

#[test]
fn a_build_from_the_symbol_tables_says_so() {
    let Some(readelf) = tool("readelf") else {
        return;
    };
    // A C program with symbols and no DWARF.
    let elf = testdata("lidia/elf/libdemo-stripped.so");
    assert!(!has_section(&readelf, &elf, ".debug_info"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (args, want) in [
        (
            vec!["lidia", "build", "--dwarf", s(&elf), "-o", s(&out)],
            vec!["no DWARF", "symbol tables"],
        ),
        (
            vec!["lidia", "build", s(&elf), "-o", s(&out)],
            vec!["symbol tables"],
        ),
        (
            vec!["symbfile", "build", s(&elf), "-o", s(&out)],
            vec!["no DWARF", ".dynsym"],
        ),
    ] {
        let (sources, written) = summary(&args, &elf);
        let (names, sum) = counts(&sources);
        assert_eq!(names, want, "{args:?}: {sources}");
        assert_eq!(sum, written, "{args:?}: {sources}");
    }
}

#[test]
fn a_go_build_reads_gopclntab_and_a_dwarf_build_of_it_says_no_dwarf() {
    let Some(readelf) = tool("readelf") else {
        return;
    };
    // Go, without DWARF and without a symbol table: only .gopclntab knows its functions.
    let elf = testdata("lidia/elf/gohello-stripped");
    for section in [".debug_info", ".symtab"] {
        assert!(!has_section(&readelf, &elf, section), "{section}");
    }
    assert!(has_section(&readelf, &elf, ".gopclntab"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (sources, written) = summary(&["lidia", "build", s(&elf), "-o", s(&out)], &elf);
    assert_eq!(counts(&sources), (vec!["Go .gopclntab".into()], written));

    let args = ["lidia", "build", "--dwarf", s(&elf), "-o", s(&out)];
    let err = failed(&run(&args, b""));
    let last = err.lines().last().unwrap();
    assert!(last.contains("no DWARF"), "{err}");
    assert!(!last.contains("in its DWARF"), "{err}");
}
