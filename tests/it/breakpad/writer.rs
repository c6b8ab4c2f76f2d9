//! The Breakpad writer against Mozilla's `dump_syms --inlines` (2.3.9): on C (GCC, Clang,
//! AArch64, a non-PIE program), C++ (GCC, Clang), Rust and Go programs, our `.sym` and
//! dump_syms's agree record by record once file and origin numbers are resolved
//! ([`Records`]): the `MODULE` and `INFO CODE_ID` lines exactly, `FUNC` and `PUBLIC`
//! sets at least 99.9 %, line and `INLINE` records at least 99.5 % (of each side).
//!
//! Difference classes, each checked narrowly:
//! * [`resolved_symlink`]: dump_syms resolves a source path that exists on the machine it
//!   runs on through its symbolic links (Debian's Go sources, `/usr/lib/go-1.19` →
//!   `/usr/share/go-1.19`); symblob's output does not depend on the machine.
//! * [`joined_absolute_name`]: dump_syms joins a line-table file name that is already
//!   absolute (Clang's DWARF 5 names the primary source so) under its directory, giving
//!   `/build/dir/src/dir/file.cpp`; `llvm-symbolizer-14` prints the name as it is, and so
//!   does symblob.
//! * GCC's row-less first bytes of some inlined calls (`cpp-gxx`): dump_syms starts the
//!   call where its first line row is; symblob's model starts it where DWARF's range
//!   does and gives the bytes before the first row line 0 (as `llvm-symbolizer-14`
//!   answers `??:0` there). Within the thresholds; listed when the test runs.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use symblob_build::dwarf::DebugFiles;
use symblob_build::pipeline::breakpad::from_elf;
use symblob_build::Progress;

use super::records::{agreement, Records};
use crate::common::{cargo_oracle, run_scratch_dir, testdata, tool};
use crate::lidia_dwarf::fixtures::fixtures;

/// The programs compared, from the DWARF test fixtures.
const PROGRAMS: &[&str] = &[
    "c-dwarf5",
    "c-clang",
    "c-aarch64",
    "cpp-gxx",
    "cpp-clang5-types",
    "rust",
    "go",
];

/// dump_syms's `.sym` of `elf` (no `INFO GENERATOR` line, which names the tool).
pub fn dump_syms(elf: &Path) -> Option<String> {
    let dump_syms = cargo_oracle("dump_syms")?;
    let out = Command::new(dump_syms)
        .args(["--inlines", "--no-generator"])
        .arg(elf)
        .output()
        .expect("run dump_syms");
    assert!(
        out.status.success(),
        "dump_syms {}: {}",
        elf.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("dump_syms writes UTF-8"))
}

/// Our `.sym` of `elf`.
pub fn ours(elf: &Path) -> String {
    let bytes = std::fs::read(elf).unwrap();
    from_elf(elf, &bytes, &DebugFiles::default(), &Progress::default())
        .unwrap_or_else(|e| panic!("{}: {e}", elf.display()))
        .1
        .into_string()
}

/// A path of theirs that is one of ours with its symbolic links resolved.
fn resolved_symlink(theirs: &str, ours: &str) -> bool {
    std::fs::canonicalize(ours).is_ok_and(|real| real == Path::new(theirs)) && theirs != ours
}

/// A path of theirs that is one of ours, absolute, joined under another absolute folder.
fn joined_absolute_name(theirs: &str, ours: &str) -> bool {
    ours.starts_with('/')
        && theirs
            .strip_suffix(ours)
            .is_some_and(|dir| dir.starts_with('/') && !dir.ends_with('/'))
}

/// How each of dump_syms's paths that symblob does not write maps to ours, by the two
/// path classes; counts of each class.
fn path_map(ours: &Records, theirs: &Records) -> (BTreeMap<String, String>, [usize; 2]) {
    let mut map = BTreeMap::new();
    let mut counts = [0; 2];
    for path in theirs.files.difference(&ours.files) {
        if let Some(o) = ours.files.iter().find(|o| resolved_symlink(path, o)) {
            map.insert(path.clone(), o.clone());
            counts[0] += 1;
        } else if let Some(o) = ours.files.iter().find(|o| joined_absolute_name(path, o)) {
            map.insert(path.clone(), o.clone());
            counts[1] += 1;
        }
    }
    (map, counts)
}

/// Checks that `common` is at least `min` % of both `ours` and `theirs`.
fn at_least(what: &str, program: &str, (common, ours, theirs): (usize, usize, usize), min: f64) {
    let pct = |n: usize| {
        if n == 0 {
            100.0
        } else {
            100.0 * common as f64 / n as f64
        }
    };
    eprintln!(
        "{program}: {what}: {common} common of {ours} ours, {theirs} dump_syms's ({:.2} %)",
        pct(theirs)
    );
    assert!(
        pct(ours) >= min && pct(theirs) >= min,
        "{program}: {what} agree on {common} of {ours} (ours) / {theirs} (dump_syms), \
         below {min} %"
    );
}

fn compare(program: &str, elf: &Path) {
    compare_with(program, elf, elf);
}

/// Compares our `.sym` of `elf` with dump_syms's of `theirs_elf`: the same program, or one
/// with the same code whose DWARF dump_syms reads whole (the `MODULE` and `INFO CODE_ID`
/// lines are compared only when both are one file).
fn compare_with(program: &str, elf: &Path, theirs_elf: &Path) {
    let Some(mut their_text) = dump_syms(theirs_elf) else {
        return;
    };
    if elf != theirs_elf {
        // The section markers name the module: the twin's file name for ours.
        let name = |p: &Path| format!(" in {}>", p.file_name().unwrap().to_string_lossy());
        their_text = their_text.replace(&name(theirs_elf), &name(elf));
    }
    let our_text = ours(elf);
    let ours = Records::parse(&our_text, &BTreeMap::new());
    let unmapped = Records::parse(&their_text, &BTreeMap::new());
    let (map, [symlinks, joined]) = path_map(&ours, &unmapped);
    eprintln!("{program}: {symlinks} paths resolved through links, {joined} joined names");
    let theirs = Records::parse(&their_text, &map);
    if elf == theirs_elf {
        assert_eq!(
            ours.header, theirs.header,
            "{program}: MODULE / INFO CODE_ID"
        );
    }
    assert_eq!(ours.files, theirs.files, "{program}: FILE paths");
    at_least("FUNC", program, agreement(&ours.funcs, &theirs.funcs), 99.9);
    at_least(
        "PUBLIC",
        program,
        agreement(&ours.publics, &theirs.publics),
        99.9,
    );
    at_least(
        "line records",
        program,
        agreement(&ours.lines, &theirs.lines),
        99.5,
    );
    at_least(
        "INLINE",
        program,
        agreement(&ours.inlines, &theirs.inlines),
        99.5,
    );
    at_least(
        "STACK CFI",
        program,
        agreement(&ours.cfi, &theirs.cfi),
        100.0,
    );
    for only in ours.lines.difference(&theirs.lines).take(5) {
        eprintln!("{program}: line record only ours: {only:?}");
    }
}

#[test]
fn records_agree_with_dump_syms() {
    for &program in PROGRAMS {
        let Some(elf) = fixtures().get(program) else {
            continue;
        };
        compare(program, elf);
    }
}

/// A program linked at a fixed address (not position-independent): record addresses are
/// relative to its first loadable segment, as dump_syms writes them.
#[test]
fn non_pie_addresses_are_relative_to_the_first_segment() {
    let Some(gcc) = tool("gcc") else {
        return;
    };
    let dir = run_scratch_dir("breakpad-non-pie");
    let elf = dir.join("c-no-pie");
    let src = |name: &str| testdata(&format!("dwarf/{name}"));
    let ok = Command::new(gcc)
        .args(["-O2", "-g", "-no-pie"])
        .args([src("main.c"), src("other.c"), src("asm_double.S")])
        .arg("-o")
        .arg(&elf)
        .status()
        .expect("run gcc")
        .success();
    assert!(ok, "gcc -no-pie");
    compare("c-no-pie", &elf);
}

/// The line and file at each address where a record of `records` starts, by the record
/// covering it.
fn position_at(records: &Records, address: u64) -> Option<(u32, &str)> {
    let below = records
        .lines
        .range(..=(address, u64::MAX, u32::MAX, String::new()));
    below
        .last()
        .filter(|(start, size, ..)| address < start + size.max(&1))
        .map(|(_, _, line, file)| (*line, file.as_str()))
}

/// A Go program without DWARF: its functions and lines come from `.gopclntab`. dump_syms
/// writes only `PUBLIC` records for it, so the expectation is dump_syms's file of the
/// same program before `objcopy --strip-debug`: the same `FUNC` records, and at every
/// address where one of its line records starts, the same line and file (Go's DWARF line
/// table is made from the same table; the records themselves differ where dump_syms cuts
/// at inlined calls, which the Go table does not describe).
#[test]
fn go_without_dwarf_reads_the_go_table() {
    let (Some(elf), Some(objcopy)) = (fixtures().get("go"), tool("objcopy")) else {
        return;
    };
    let Some(their_text) = dump_syms(elf) else {
        return;
    };
    let stripped = run_scratch_dir("breakpad-go").join("go-nodwarf");
    let ok = Command::new(objcopy)
        .arg("--strip-debug")
        .arg(elf)
        .arg(&stripped)
        .status()
        .expect("run objcopy")
        .success();
    assert!(ok, "objcopy --strip-debug");
    let ours = Records::parse(&self::ours(&stripped), &BTreeMap::new());
    let unmapped = Records::parse(&their_text, &BTreeMap::new());
    let (map, _) = path_map(&ours, &unmapped);
    let theirs = Records::parse(&their_text, &map);
    at_least(
        "FUNC",
        "go-nodwarf",
        agreement(&ours.funcs, &theirs.funcs),
        99.9,
    );
    let starts: Vec<u64> = theirs.lines.iter().map(|r| r.0).collect();
    let same = starts
        .iter()
        .filter(|&&a| {
            position_at(&ours, a).is_some() && position_at(&ours, a) == position_at(&theirs, a)
        })
        .count();
    at_least(
        "positions",
        "go-nodwarf",
        (same, starts.len(), starts.len()),
        99.5,
    );
}

/// Split DWARF (`.dwo` files and `.dwp` packages, GCC and Clang, DWARF 4 and 5) and
/// `dwz`-compressed programs: our `.sym` of each agrees with dump_syms's of its twin, the
/// same program with its DWARF whole, as the programs above agree with their own.
#[test]
fn split_and_dwz_programs_agree_with_dump_syms_on_their_whole_twins() {
    let pairs = [
        ("split-gcc4/prog", "split-gcc4/twin"),
        ("split-gcc5/prog", "split-gcc5/twin"),
        ("split-clang4/prog", "split-clang4/twin"),
        ("split-clang5/prog", "split-clang5/twin"),
        ("dwp-clang5/prog", "split-clang5/twin"),
        ("dwz5/o2", "dwz5/o2-whole"),
        ("dwz4/o1", "dwz4/o1-whole"),
    ];
    for (program, twin) in pairs {
        let (Some(elf), Some(whole)) = (fixtures().get(program), fixtures().get(twin)) else {
            continue;
        };
        compare_with(program, elf, whole);
    }
}

/// The same input gives the same bytes.
#[test]
fn output_is_deterministic() {
    let Some(elf) = fixtures().get("cpp-gxx") else {
        return;
    };
    assert_eq!(ours(elf), ours(elf));
}

/// rust-minidump's `breakpad-symbols` parses every file we write, and answers on ours as
/// on dump_syms's: function, file, line and inline frames at every `FUNC` start and
/// middle and every line record start of dump_syms's file (its paths mapped to ours by
/// the two path classes); at least 99.5 % equal per program, the rest GCC's row-less call
/// starts.
#[test]
fn breakpad_symbols_answers_on_ours_as_on_dump_syms() {
    use breakpad_symbols::SymbolFile;
    for &program in PROGRAMS {
        let Some(elf) = fixtures().get(program) else {
            continue;
        };
        let Some(their_text) = dump_syms(elf) else {
            return;
        };
        let our_text = ours(elf);
        let (map, _) = path_map(
            &Records::parse(&our_text, &BTreeMap::new()),
            &Records::parse(&their_text, &BTreeMap::new()),
        );
        let records = Records::parse(&their_text, &map);
        let mut addresses: Vec<u64> = records.lines.iter().map(|r| r.0).collect();
        addresses.extend(records.funcs.iter().flat_map(|f| [f.0, f.0 + f.1 / 2]));
        let ours =
            SymbolFile::from_bytes(our_text.as_bytes()).expect("breakpad-symbols parses ours");
        let theirs = SymbolFile::from_bytes(their_text.as_bytes()).expect("it parses dump_syms's");
        let mapped = |frames: Vec<(String, String, u64)>| -> Vec<(String, String, u64)> {
            frames
                .into_iter()
                .map(|(f, file, line)| (f, map.get(&file).cloned().unwrap_or(file), line))
                .collect()
        };
        let reference = crate::breakpad::reader::reference;
        let same = addresses
            .iter()
            .filter(|&&a| reference(&ours, a) == mapped(reference(&theirs, a)))
            .count();
        at_least(
            "breakpad-symbols answers",
            program,
            (same, addresses.len(), addresses.len()),
            99.5,
        );
    }
}
