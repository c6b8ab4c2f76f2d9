//! Range records against `llvm-symbolizer-14 --inlining` (the frames a sweep of our
//! records gives for sampled addresses) on the C, C++ and Rust DWARF fixtures, and return
//! pads against the call sites `objdump -d` lists, on x86-64 and aarch64.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use symblob_build::extract::{demangle, ranges, ExtractOptions, RangeRecord};

use crate::common::{missing_oracle, tool};
use crate::lidia_dwarf::fixtures::{fixtures, DWZ_PROGRAMS};
use crate::lidia_dwarf::oracle::{self, Frame};
use crate::lidia_dwarf::section_bytes;

/// The frames our records give `addr`, innermost first: every record containing it by
/// depth; each level's file and line are the call site of the level inside it, the
/// innermost level's come from its line table.
fn sweep(records: &[RangeRecord], addr: u64) -> Vec<Frame> {
    let mut hits: Vec<&RangeRecord> = records.iter().filter(|r| r.contains(addr)).collect();
    hits.sort_by_key(|r| r.depth);
    let mut frames = Vec::new();
    for (k, r) in hits.iter().enumerate() {
        let (file, line) = match hits.get(k + 1) {
            Some(inner) => (inner.call_file.clone(), inner.call_line),
            None => (r.file.clone(), r.line_for(addr)),
        };
        frames.push((
            r.func.clone(),
            base_name(file.as_deref().unwrap_or("")),
            u64::from(line.unwrap_or(0)),
        ));
    }
    frames.reverse();
    frames
}

/// symblib names files `"<dir>/<name>"` without joining relative parts the way LLVM does;
/// the file name itself is compared.
pub fn base_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or("").to_string()
}

/// LLVM's answer for one inline level: the names symblib may give it and the call site.
pub struct Level {
    /// LLVM's linkage name demangled by symblib's rules (spec §5.5), and LLVM's short name:
    /// symblib takes the linkage name if any DIE of the reference chain has one, else
    /// `DW_AT_name` (spec §5.2), while LLVM's `--functions=linkage` may also take the
    /// symbol table's name for the outermost frame.
    names: [String; 2],
    file: String,
    line: u64,
}

/// LLVM's levels; where the short-name run knows no function (code described by the symbol
/// table only), the linkage name stands for both.
pub fn levels(linkage: &[Frame], short: &[Frame]) -> Vec<Level> {
    linkage
        .iter()
        .enumerate()
        .map(|(i, l)| Level {
            names: [
                demangle(&l.0),
                short
                    .get(i)
                    .filter(|_| short.len() == linkage.len())
                    .map_or_else(|| demangle(&l.0), |s| s.0.clone()),
            ],
            file: base_name(&l.1),
            line: l.2,
        })
        .collect()
}

fn same(g: &Frame, l: &Level) -> bool {
    l.names.contains(&g.0) && g.1 == l.file && g.2 == l.line
}

/// Whether our frames (innermost first) are LLVM's. Two modelled differences:
/// * line-0 rows are dropped by symblib's rules (spec §5.3: the row before continues, and an
///   inline level whose rows are all line 0 gets no record): where LLVM's innermost frame
///   has line 0, ours may lack innermost levels and our innermost frame has the file and
///   line of a preceding row; its name and every outer frame must agree;
/// * at an address where the linker folded identical functions (`folded`), which function
///   is named outermost is arbitrary: its name may differ, nothing else.
pub fn agree(got: &[Frame], exp: &[Level], folded: bool) -> bool {
    let outer_ok = |g: &Frame, l: &Level, outermost: bool| {
        same(g, l) || (outermost && folded && g.1 == l.file && g.2 == l.line)
    };
    let n = got.len();
    if n == exp.len()
        && got
            .iter()
            .zip(exp)
            .enumerate()
            .all(|(i, (g, l))| outer_ok(g, l, i + 1 == n))
    {
        return true;
    }
    if exp.first().is_none_or(|e| e.line != 0) || n == 0 || n > exp.len() {
        return false;
    }
    let skip = exp.len() - n;
    (exp[skip].names.contains(&got[0].0) || (n == 1 && folded))
        && got[1..]
            .iter()
            .zip(&exp[skip + 1..])
            .enumerate()
            .all(|(i, (g, l))| outer_ok(g, l, i + 2 == n))
}

/// Addresses where the symbol table has several text symbols (identical code folded by the
/// linker): which function LLVM names there is arbitrary.
fn folded_addresses(bin: &Path) -> BTreeSet<u64> {
    let out = Command::new("nm")
        .args(["--defined-only"])
        .arg(bin)
        .output()
        .expect("nm runs");
    let mut count = BTreeMap::new();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 3 && matches!(f[1], "t" | "T" | "W" | "w") {
            if let Ok(a) = u64::from_str_radix(f[0], 16) {
                *count.entry(a).or_insert(0) += 1;
            }
        }
    }
    count
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(a, _)| a)
        .collect()
}

fn llvm_differential(name: &str) {
    let Some(bin) = fixtures().get(name) else {
        missing_oracle(&format!("fixture {name}"));
        return;
    };
    let extraction = ranges(bin, &ExtractOptions::default()).unwrap();
    assert!(
        extraction.stats.warnings.is_empty(),
        "{name}: {:?}",
        extraction.stats.warnings
    );
    llvm_differential_of(name, bin, &extraction.records);
}

/// Our `records` of the program `bin` against llvm-symbolizer's frames of `bin`.
fn llvm_differential_of(name: &str, bin: &Path, records: &[RangeRecord]) {
    let Some(symbolizer) = tool("llvm-symbolizer-14") else {
        return;
    };
    if tool("nm").is_none() {
        return;
    }
    let funcs = oracle::functions(bin);
    assert!(!funcs.is_empty(), "{name}: nm lists functions");
    let addrs = oracle::sample(&funcs, 3000);
    let linkage = oracle::symbolize_names(&symbolizer, bin, &addrs, "linkage");
    let short = oracle::symbolize_names(&symbolizer, bin, &addrs, "short");
    let folded = folded_addresses(bin);
    let mut bad = Vec::new();
    let mut exact = 0;
    for ((a, link), short) in addrs.iter().zip(&linkage).zip(&short) {
        let got = sweep(records, *a);
        let top_folded = records
            .iter()
            .any(|r| r.depth == 0 && r.contains(*a) && folded.contains(&r.va));
        let exp = levels(link, short);
        if got.len() == exp.len() && got.iter().zip(&exp).all(|(g, l)| same(g, l)) {
            exact += 1;
        } else if !agree(&got, &exp, top_folded) {
            bad.push(format!(
                "{a:#x}\n  ours: {got:?}\n  llvm: {link:?}\n  short: {short:?}"
            ));
        }
    }
    eprintln!(
        "{name}: {} addresses: {exact} identical, {} by the line-0 or folding rules, {} disagree",
        addrs.len(),
        addrs.len() - exact - bad.len(),
        bad.len()
    );
    oracle::assert_agreement(name, addrs.len(), &bad);
}

#[test]
fn c_gcc_ranges_agree_with_llvm_symbolizer() {
    llvm_differential("c-dwarf5");
}

#[test]
fn c_gcc_dwarf4_ranges_agree_with_llvm_symbolizer() {
    llvm_differential("c-dwarf4");
}

#[test]
fn c_clang_ranges_agree_with_llvm_symbolizer() {
    llvm_differential("c-clang");
}

#[test]
fn cpp_ranges_agree_with_llvm_symbolizer() {
    llvm_differential("cpp-gxx");
}

#[test]
fn rust_ranges_agree_with_llvm_symbolizer() {
    llvm_differential("rust");
}

/// Our records of `name` against llvm-symbolizer's frames of `oracle_name`, a build of
/// the same program whose code is checked to be identical (llvm-symbolizer-14 loses the
/// inline frames of GCC's split units and of Clang's split inlined calls with
/// `DW_AT_ranges`, and does not read supplementary files at all).
fn llvm_differential_against(name: &str, oracle_name: &str) {
    let (Some(bin), Some(oracle_bin)) = (fixtures().get(name), fixtures().get(oracle_name)) else {
        return;
    };
    assert_eq!(
        section_bytes(bin, ".text"),
        section_bytes(oracle_bin, ".text"),
        "{name} and {oracle_name} have the same code"
    );
    let extraction = ranges(bin, &ExtractOptions::default()).unwrap();
    assert!(
        extraction.stats.warnings.is_empty(),
        "{name}: {:?}",
        extraction.stats.warnings
    );
    assert_eq!(extraction.stats.dwarf.units_broken, 0, "{name}");
    llvm_differential_of(name, oracle_bin, &extraction.records);
}

/// Split DWARF, GCC and Clang, DWARF 4 and 5: loose `.dwo` files beside the objects, and
/// Clang's units in a `.dwp` package found beside the binary. The frames come from the
/// split units, the line programs from the skeletons.
#[test]
fn split_dwarf_ranges_agree_with_llvm_symbolizer_on_the_unsplit_twin() {
    for dir in ["split-gcc4", "split-gcc5", "split-clang4", "split-clang5"] {
        llvm_differential_against(&format!("{dir}/prog"), &format!("{dir}/twin"));
    }
    for version in ["4", "5"] {
        llvm_differential_against(
            &format!("dwp-clang{version}/prog"),
            &format!("split-clang{version}/twin"),
        );
    }
}

/// C++ split by Clang with type units in the `.dwo` files and in a package, and Rust's
/// `split-debuginfo = "unpacked"` (a `.dwo` file per codegen unit), which llvm-symbolizer
/// reads correctly.
#[test]
fn split_dwarf_type_units_and_rust_unpacked_ranges_agree_with_llvm_symbolizer() {
    for name in [
        "split-types4/prog",
        "split-types5/prog",
        "dwp-types5/prog",
        "rust-split/prog",
    ] {
        llvm_differential(name);
    }
}

/// `dwz -m`: names moved into the supplementary file are followed there
/// (`DW_FORM_GNU_ref_alt`, `DW_FORM_GNU_strp_alt`; with `--dwarf-5` `DW_FORM_ref_sup4`,
/// `DW_FORM_strp_sup`); the expectation is llvm-symbolizer on the same program before
/// `dwz`.
#[test]
fn dwz_multifile_ranges_agree_with_llvm_symbolizer_before_dwz() {
    for name in DWZ_PROGRAMS {
        llvm_differential_against(name, &format!("{name}-whole"));
    }
}
