//! GSYM from DWARF held outside the ELF: split units in `.dwo` files and `.dwp` packages,
//! and `dwz` supplementary files. `llvm-gsymutil-14 --convert` reads neither packages'
//! inlined calls reliably nor supplementary files, so the expectation is its file of the
//! twin built without splitting, or of the program before `dwz` (same code, checked);
//! `llvm-gsymutil-14` then answers the sampled addresses in both files alike.

use symblob_build::convert::{convert, ConvertOptions, Target};
use symblob_build::dwarf::DebugFiles;

use super::oracle::GSYMUTIL;
use super::writer::{compare_with_llvm, llvm_convert, ours};
use crate::common::{run_scratch_dir, tool};
use crate::lidia_dwarf::fixtures::{fixtures, DWZ_PROGRAMS};

/// (program, twin with the same code and all its DWARF in the ELF).
fn pairs() -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> =
        ["split-gcc4", "split-gcc5", "split-clang4", "split-clang5"]
            .iter()
            .map(|d| (format!("{d}/prog"), format!("{d}/twin")))
            .collect();
    for version in ["4", "5"] {
        pairs.push((
            format!("dwp-clang{version}/prog"),
            format!("split-clang{version}/twin"),
        ));
    }
    for name in DWZ_PROGRAMS {
        pairs.push((name.to_owned(), format!("{name}-whole")));
    }
    pairs
}

#[test]
fn gsym_of_split_and_dwz_dwarf_answers_as_llvm_gsymutil_on_the_whole_twin() {
    if tool(GSYMUTIL).is_none() {
        return;
    }
    let dir = run_scratch_dir("gsym-debug-files");
    let mut compared = 0;
    for (name, twin) in pairs() {
        let (Some(bin), Some(twin_bin)) = (fixtures().get(&name), fixtures().get(&twin)) else {
            continue;
        };
        assert_eq!(
            crate::lidia_dwarf::section_bytes(bin, ".text"),
            crate::lidia_dwarf::section_bytes(twin_bin, ".text"),
            "{name} and {twin} have the same code"
        );
        let ours = ours(&name, bin, &dir);
        let theirs = llvm_convert(&twin, twin_bin, &dir);
        compared += compare_with_llvm(&name, twin_bin, &ours, &theirs, 64);
    }
    eprintln!("{compared} addresses answered alike");
}

/// A package named with `--dwp` (library: `DebugFiles::dwp`) is read when it is not
/// where the builder looks by itself; without it the split units are missing and the
/// file has fewer inlined calls.
#[test]
fn gsym_reads_a_package_named_by_dwp() {
    let Some(bin) = fixtures().get("dwp-clang5/prog") else {
        return;
    };
    let dir = run_scratch_dir("gsym-named-dwp");
    let elf = dir.join("prog");
    std::fs::copy(bin, &elf).unwrap();
    let package = dir.join("elsewhere.dwp");
    std::fs::copy(bin.with_extension("dwp"), &package).expect("the fixture has prog.dwp");
    let bytes = std::fs::read(&elf).unwrap();
    let build = |debug_files: DebugFiles| {
        let options = ConvertOptions {
            debug_files,
            ..ConvertOptions::default()
        };
        convert(&elf, &bytes, Target::Gsym, &options).expect("converts")
    };
    let named = build(DebugFiles {
        dwp: Some(package.clone()),
        ..DebugFiles::default()
    });
    let found = ours("dwp-clang5/prog", bin, &dir);
    assert!(
        named.bytes == std::fs::read(found).unwrap(),
        "the named package gives the file the package beside the program gives"
    );
    assert!(named
        .files_read
        .as_slice()
        .iter()
        .any(|f| f.path == package));
    let without = build(DebugFiles::default());
    assert!(
        without.bytes != named.bytes,
        "the package adds what it holds"
    );
}
