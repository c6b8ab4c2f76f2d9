//! Split DWARF (`.dwo` files, `.dwp` packages, Rust's unpacked split debug info) and
//! `dwz` supplementary files, against llvm-symbolizer or the same program unsplit.

use std::path::{Path, PathBuf};

use symblob_build::dwarf::DwarfStats;
use symblob_build::dwarf::{DebugFiles, DwarfOptions};
use symblob_build::lidia::LidiaWriter;
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::ElfOptions;

use super::fixtures::{fixtures, DWZ_PROGRAMS};
use super::{
    all_frames, build, compare_with_symbolizer, differential, differential_against, oracle,
};

/// llvm-symbolizer-14 reads split units but loses the inline frames of some (it answers
/// the outermost function with the innermost line): all of GCC's, and Clang's inlined
/// calls with `DW_AT_ranges` (DWARF 4: it does not add the skeleton's
/// `DW_AT_GNU_ranges_base` and reports "invalid range list offset"; DWARF 5: it does not
/// resolve `DW_FORM_rnglistx` in the split unit; the original C program had no such call).
/// The expectation is therefore its answer on `twin`, the same program built without
/// `-gsplit-dwarf`, whose code is checked to be identical.
#[test]
fn split_dwarf_loose_dwo_files_agree_with_llvm_symbolizer_on_the_unsplit_twin() {
    for dir in ["split-gcc4", "split-gcc5", "split-clang4", "split-clang5"] {
        differential_against(&format!("{dir}/prog"), &format!("{dir}/twin"));
    }
}

/// Packages by `llvm-dwp-14` (of Clang's `.dwo` files), as
/// [`split_dwarf_loose_dwo_files_agree_with_llvm_symbolizer_on_the_unsplit_twin`].
#[test]
fn split_dwarf_packages_agree_with_llvm_symbolizer_on_the_unsplit_twin() {
    for version in ["4", "5"] {
        let twin = format!("split-clang{version}/twin");
        differential_against(&format!("dwp-clang{version}/prog"), &twin);
    }
}

/// C++ split by Clang with its type units in the `.dwo` files and in a package.
#[test]
fn split_dwarf_type_units_agree_with_llvm_symbolizer() {
    for name in ["split-types4/prog", "split-types5/prog", "dwp-types5/prog"] {
        differential(name);
    }
}

/// Rust with `split-debuginfo = "unpacked"`: the `.dwo` files rustc leaves are read (the
/// check that they exist keeps this from passing on the standard library's units alone).
#[test]
fn rust_unpacked_split_debuginfo_agrees_with_llvm_symbolizer() {
    let Some(bin) = fixtures().get("rust-split/prog") else {
        return;
    };
    let dwo_files = std::fs::read_dir(bin.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "dwo"))
        .count();
    assert!(dwo_files > 0, "rustc left .dwo files");
    differential("rust-split/prog");
    // Most sampled code is the standard library's: also every byte of the program's own
    // functions, whose DIEs are all in the `.dwo` files.
    let Some(tool) = oracle::symbolizer() else {
        return;
    };
    let own: Vec<_> = oracle::functions(bin)
        .into_iter()
        .filter(|f| f.2.starts_with("_ZN5iters"))
        .collect();
    assert!(own.len() >= 3, "{own:?}");
    compare_with_symbolizer(&tool, "rust-split/prog", bin, bin, &own);
}

/// llvm-symbolizer-14 does not read supplementary files (it answers `??` for every
/// function named there), so the expectation is its answer on the same program before
/// `dwz` (same code, checked).
#[test]
fn dwz_multifile_programs_agree_with_llvm_symbolizer_before_dwz() {
    for name in DWZ_PROGRAMS {
        differential_against(name, &format!("{name}-whole"));
    }
}

/// A dwz'd program gives the frames of the program before dwz.
#[test]
fn dwz_multifile_gives_the_frames_of_the_whole_program() {
    for name in ["dwz4/o2", "dwz5/o1", "dwz5sup/o2"] {
        let (Some(bin), Some(whole)) = (
            fixtures().get(name),
            fixtures().get(&format!("{name}-whole")),
        ) else {
            continue;
        };
        let a = build(bin, None).expect("build the dwz'd program");
        let b = build(whole, None).expect("build the whole program");
        assert_eq!(all_frames(bin, &a), all_frames(whole, &b), "{name}");
    }
}

/// A program copied alone into a new directory: nothing it refers to by a relative path
/// (`.dwo` files, a package, a supplementary file) comes along.
struct Alone {
    dir: tempfile::TempDir,
    path: PathBuf,
    data: Vec<u8>,
}

impl Alone {
    /// `bin` copied as `name`.
    fn copy(bin: &Path, name: &str) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join(name);
        std::fs::copy(bin, &path).expect("copy the program alone");
        let data = std::fs::read(&path).expect("read");
        Alone { dir, path, data }
    }

    /// Builds the copy with `options`: the statistics, what the warnings say, and the
    /// Lidia file.
    fn build(&self, options: &ElfOptions) -> (DwarfStats, Vec<String>, Vec<u8>) {
        let mut writer = LidiaWriter::new(options.lidia);
        let stats =
            collect_dwarf(&self.path, &self.data, options, &mut writer).expect("build goes on");
        let texts = stats.warnings.iter().map(ToString::to_string).collect();
        (stats, texts, writer.finish())
    }
}

/// A skeleton whose `.dwo` file is gone is a warning naming the unit and every path
/// looked in; the build goes on with the symbol table. (The packaged program: its
/// `.dwo` files were deleted, and its package is not copied.)
#[test]
fn missing_dwo_file_is_a_warning_naming_it() {
    let Some(bin) = fixtures().get("dwp-clang5/prog") else {
        return;
    };
    let moved = Alone::copy(bin, "prog");
    let options = ElfOptions::dwarf_with_files_and_lines(DwarfOptions::default());
    let (stats, texts, _) = moved.build(&options);
    // The two units of the program, as clang names their `.dwo` files.
    for unit in ["main.dwo", "other.dwo"] {
        let next_to_binary = moved.dir.path().join(unit);
        assert!(
            texts
                .iter()
                .any(|w| w.contains(&format!("split unit {unit} "))
                    && w.contains(&next_to_binary.display().to_string())),
            "{texts:#?}"
        );
    }
    assert!(stats.fallback_ranges > 0, "{stats:?}");
}

/// A dwz'd program without its supplementary file is a warning listing where it was
/// looked for; `--sup` names it.
#[test]
fn missing_supplementary_file_is_a_warning_and_sup_names_it() {
    let Some(bin) = fixtures().get("dwz5/o2") else {
        return;
    };
    let moved = Alone::copy(bin, "o2");
    let mut options = ElfOptions::dwarf_with_files_and_lines(DwarfOptions::default());
    let (_, texts, _) = moved.build(&options);
    let next_to_it = moved.dir.path().join("common.debug").display().to_string();
    assert!(
        texts
            .iter()
            .any(|w| w.contains("supplementary debug file not found") && w.contains(&next_to_it)),
        "{texts:#?}"
    );

    options.dwarf = Some(DwarfOptions {
        debug_files: DebugFiles {
            sup: Some(bin.with_file_name("common.debug")),
            ..DebugFiles::default()
        },
        ..DwarfOptions::default()
    });
    let (stats, _, named) = moved.build(&options);
    assert!(stats.warnings.is_empty(), "{:?}", stats.warnings);
    let original = build(bin, None).expect("build in place");
    assert_eq!(all_frames(bin, &named), all_frames(bin, &original));
}
