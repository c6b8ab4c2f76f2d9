//! Record names of a Rust program: whole (never a mangled name cut at `..clone..` by the
//! clone-suffix rule, spec §5.5) and, for every function, the name a Lidia DWARF build
//! (`symblob lidia build --dwarf --demangle`) gives the same address.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use symblob::lidia::LidiaFile;
use symblob_build::dwarf::DwarfOptions;
use symblob_build::extract::{ranges, ExtractOptions};
use symblob_build::lidia::LidiaWriter;
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::ElfOptions;

use crate::common::{missing_oracle, tool};
use crate::lidia_dwarf::fixtures::fixtures;
use crate::lidia_dwarf::oracle;

/// The outermost frame's name of every address in `addrs`, from a Lidia file built from
/// the DWARF of `bin` with demangling (the symbol table naming outermost frames, as the
/// command line does by default).
fn lidia_outer_names(bin: &Path, addrs: &[u64]) -> Vec<Option<String>> {
    let data = std::fs::read(bin).expect("read fixture");
    let options = ElfOptions {
        dwarf: Some(DwarfOptions {
            demangle: true,
            ..DwarfOptions::default()
        }),
        ..ElfOptions::default()
    };
    let mut writer = LidiaWriter::new(options.lidia);
    collect_dwarf(bin, &data, &options, &mut writer).expect("DWARF build");
    let blob = writer.finish();
    let file = LidiaFile::parse(&blob).expect("our reader opens the file");
    addrs
        .iter()
        .map(|&a| {
            file.lookup(a)
                .last()
                .map(|f| String::from_utf8_lossy(f.function.0).into_owned())
        })
        .collect()
}

/// Address → the names `nm -C` gives the symbols there (binutils drops the legacy hash).
fn nm_demangled(nm: &Path, bin: &Path) -> BTreeMap<u64, BTreeSet<String>> {
    let out = Command::new(nm)
        .args(["-C", "--defined-only"])
        .arg(bin)
        .output()
        .expect("nm runs");
    let mut names: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut parts = line.splitn(3, ' ');
        if let (Some(a), Some(_), Some(name)) = (parts.next(), parts.next(), parts.next()) {
            if let Ok(a) = u64::from_str_radix(a, 16) {
                names.entry(a).or_default().insert(name.to_string());
            }
        }
    }
    names
}

/// The Rust program holds legacy-mangled `<iters::Tagged<T> as core::clone::Clone>::clone`
/// (`core..clone..Clone` in the symbol), which the clone-suffix rule once cut to
/// `_ZN61_$LT$iters..Tagged$LT$T$GT$$u20$as$u20$core.`.
#[test]
fn rust_record_names_are_whole_and_lidia_s_names() {
    let Some(bin) = fixtures().get("rust") else {
        return;
    };
    let Some(nm) = tool("nm") else {
        return;
    };
    let symbols: BTreeSet<String> = oracle::functions(bin).into_iter().map(|f| f.2).collect();
    let clones = symbols.iter().filter(|s| s.contains("..clone..")).count();
    if clones == 0 {
        missing_oracle("a `..clone..` symbol in the Rust program (legacy mangling)");
        return;
    }
    let records = ranges(bin, &ExtractOptions::default()).unwrap().records;

    // A name still mangled is one no demangler accepted: it must be the symbol itself.
    let cut: BTreeSet<&str> = records
        .iter()
        .map(|r| r.func.as_str())
        .filter(|f| (f.starts_with("_Z") || f.starts_with("_R")) && !symbols.contains(*f))
        .collect();
    assert!(cut.is_empty(), "mangled names that are no symbol: {cut:#?}");

    let functions: Vec<_> = records.iter().filter(|r| r.depth == 0).collect();
    let starts: Vec<u64> = functions.iter().map(|r| r.va).collect();
    let lidia = lidia_outer_names(bin, &starts);
    // Identical code folded by the linker: several functions (symbols and subprograms) at
    // one address. symbfile keeps the first subprogram's name (spec §5.6), Lidia the name
    // it prefers; both must be names `nm -C` gives that address.
    let aliases = nm_demangled(&nm, bin);
    let mut folded = 0;
    let mut differ = Vec::new();
    for (r, l) in functions.iter().zip(&lidia) {
        if l.as_deref() == Some(r.func.as_str()) {
            continue;
        }
        let names = aliases.get(&r.va);
        if l.as_ref().zip(names).is_some_and(|(l, names)| {
            names.len() > 1 && names.contains(l) && names.contains(&r.func)
        }) {
            folded += 1;
            continue;
        }
        differ.push(format!("{:#x}: symbfile {:?}, Lidia {l:?}", r.va, r.func));
    }
    eprintln!(
        "rust: {} functions ({clones} `..clone..` symbols), {folded} folded, {} differ",
        functions.len(),
        differ.len()
    );
    let tagged: Vec<&str> = aliases
        .values()
        .flatten()
        .filter(|n| n.starts_with("<iters::Tagged<T> as core::clone::Clone>"))
        .map(String::as_str)
        .collect();
    assert!(
        !tagged.is_empty()
            && tagged
                .iter()
                .all(|n| functions.iter().any(|r| r.func == *n)),
        "the clone impls as `nm -C` names them: {tagged:?}"
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
