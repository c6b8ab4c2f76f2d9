//! The files a DWARF build reads are returned to its caller (`DwarfStats::files_read`,
//! `ExtractStats::files_read`): the ELF, then the debug file, the supplementary file, the
//! split DWARF package or the `.dwo` files it found by itself. The expected lists are the
//! files the toolchain left beside each program (`objcopy`'s debug file, `dwz`'s
//! `common.debug`, `llvm-dwp-14`'s package, the compiler's `.dwo` files). A Lidia file
//! written over one of them is refused before anything is written.

use std::path::{Path, PathBuf};

use symblob_build::dwarf::DwarfOptions;
use symblob_build::extract::{self, ExtractOptions};
use symblob_build::input::FileRole;
use symblob_build::lidia::LidiaWriter;
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::{write_from_elf, ElfOptions};
use symblob_build::ErrorKind;

use super::fixtures::fixtures;

/// The files both DWARF readers list for `bin`, sorted by path; they must agree.
fn files_read(bin: &Path) -> Vec<(PathBuf, FileRole)> {
    let sorted = |files: &symblob_build::input::FilesRead| {
        let mut v: Vec<(PathBuf, FileRole)> = files
            .as_slice()
            .iter()
            .map(|f| (f.path.clone(), f.role))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let data = std::fs::read(bin).expect("read fixture");
    let options = ElfOptions::with_dwarf(DwarfOptions::default());
    let mut writer = LidiaWriter::new(options.lidia);
    let lidia = collect_dwarf(bin, &data, &options, &mut writer).expect("DWARF build");
    let symbfile = extract::ranges(bin, &ExtractOptions::default()).expect("extraction");
    let (a, b) = (
        sorted(&lidia.files_read),
        sorted(&symbfile.stats.files_read),
    );
    assert_eq!(
        a, b,
        "the Lidia build and the symbfile extraction read the same files"
    );
    assert_eq!(
        lidia.files_read.elf(),
        Some(bin),
        "the ELF is listed as such"
    );
    a
}

/// `bin` as the ELF and the files `beside` (names in its folder) as `role`, sorted.
fn expected(bin: &Path, beside: &[String], role: FileRole) -> Vec<(PathBuf, FileRole)> {
    let dir = bin.parent().expect("a folder");
    let mut v = vec![(bin.to_path_buf(), FileRole::Elf)];
    v.extend(beside.iter().map(|n| (dir.join(n), role)));
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[test]
fn the_files_found_beside_each_program_are_listed() {
    let fx = fixtures();
    let own = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    if let Some(bin) = fx.get("c-dwarf5") {
        assert_eq!(files_read(bin), expected(bin, &[], FileRole::Elf));
    }
    if let Some(bin) = fx.get("c-stripped") {
        let want = expected(bin, &own(&["c-stripped.debug"]), FileRole::DebugFile);
        assert_eq!(files_read(bin), want);
    }
    if let Some(bin) = fx.get("dwz5/o2") {
        let want = expected(bin, &own(&["common.debug"]), FileRole::Supplementary);
        assert_eq!(files_read(bin), want);
    }
    if let Some(bin) = fx.get("dwp-clang5/prog") {
        let want = expected(bin, &own(&["prog.dwp"]), FileRole::DwarfPackage);
        assert_eq!(files_read(bin), want);
    }
    for name in ["split-clang5/prog", "split-gcc4/prog"] {
        let Some(bin) = fx.get(name) else { continue };
        // Every `.dwo` file the compiler wrote beside the program, each once.
        let mut dwo: Vec<String> = std::fs::read_dir(bin.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".dwo"))
            .collect();
        dwo.sort();
        assert!(dwo.len() >= 2, "{name}: {dwo:?}");
        assert_eq!(
            files_read(bin),
            expected(bin, &dwo, FileRole::SplitObject),
            "{name}"
        );
    }
}

#[test]
fn a_lidia_file_is_never_written_over_the_package_the_build_found() {
    let Some(bin) = fixtures().get("dwp-clang5/prog") else {
        return;
    };
    // A copy: the fixture is shared with other tests.
    let dir = tempfile::tempdir().unwrap();
    let (prog, package) = (dir.path().join("prog"), dir.path().join("prog.dwp"));
    std::fs::copy(bin, &prog).unwrap();
    std::fs::copy(bin.with_file_name("prog.dwp"), &package).unwrap();
    let before = std::fs::read(&package).unwrap();
    let options = ElfOptions::with_dwarf(DwarfOptions::default());
    match write_from_elf(&prog, &package, &options) {
        Err(e) if e.kind() == ErrorKind::OutputIsInput => {
            let refusal = e.refusal().expect("the refused output");
            assert_eq!(
                (&refusal.output, e.input()),
                (&package, Some(package.as_path()))
            );
            assert_eq!(refusal.found, Some((FileRole::DwarfPackage, prog.clone())));
        }
        other => panic!("not refused: {other:?}"),
    }
    assert!(
        std::fs::read(&package).unwrap() == before,
        "the package kept"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

    let out = dir.path().join("prog.lidia");
    let stats = write_from_elf(&prog, &out, &options).expect("a build beside it");
    let read: Vec<&Path> = stats
        .report
        .files_read
        .as_slice()
        .iter()
        .map(|f| f.path.as_path())
        .collect();
    assert_eq!(read, [prog.as_path(), package.as_path()]);
}
