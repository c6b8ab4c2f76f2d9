//! One name for one symbol: `ksym` builds from the symbol table and Lidia builds from
//! DWARF linkage names, both with demangling, name every function the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use symblob::lidia::LidiaFile;
use symblob_build::dwarf::DwarfOptions;
use symblob_build::elf::read_elf;
use symblob_build::ksym::{Demangle, InputOptions, TypeFilter};
use symblob_build::lidia::LidiaWriter;
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::{ElfOptions, SymbolSources};

use super::fixtures::fixtures;

/// Address → the demangled names the symbol table gives it (aliases share an address).
fn ksym_names(data: &[u8]) -> BTreeMap<u64, BTreeSet<String>> {
    let options = InputOptions {
        types: TypeFilter::new("TtWw"),
        demangle: Demangle::RustAndCpp,
    };
    let read = read_elf(data, "fixture", &options).expect("ksym reads the fixture");
    let mut out: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for s in read.symbols.symbols {
        out.entry(s.address).or_default().insert(s.name);
    }
    out
}

/// (start, name) of every outermost Lidia range of a DWARF build with demangling; with
/// `symtab` false every name comes from DWARF (a linkage name, demangled with the unit's
/// language), otherwise outermost names come from the symbol table as in LLVM.
fn lidia_names(bin: &Path, data: &[u8], symtab: bool) -> Vec<(u64, String)> {
    let options = ElfOptions {
        symbols: SymbolSources {
            symtab,
            ..SymbolSources::default()
        },
        dwarf: Some(DwarfOptions {
            demangle: true,
            ..DwarfOptions::default()
        }),
        ..ElfOptions::default()
    };
    let mut writer = LidiaWriter::new(options.lidia);
    collect_dwarf(bin, data, &options, &mut writer).expect("DWARF build");
    let blob = writer.finish();
    let file = LidiaFile::parse(&blob).expect("parse");
    file.ranges()
        .filter(|r| r.depth == 0)
        .map(|r| (r.va, String::from_utf8_lossy(r.function.0).into_owned()))
        .collect()
}

fn same_names(fixture: &str, symtab: bool) {
    let Some(bin) = fixtures().get(fixture) else {
        crate::common::missing_oracle(&format!("fixture {fixture}"));
        return;
    };
    let data = std::fs::read(bin).expect("read fixture");
    let ksym = ksym_names(&data);
    let mut compared = 0;
    let mut differ = Vec::new();
    for (va, name) in lidia_names(bin, &data, symtab) {
        // Only ranges that start at a symbol: the pieces after a hole continue a
        // function, and unnamed code has no symbol to compare with.
        let Some(names) = ksym.get(&va) else {
            continue;
        };
        compared += 1;
        if !names.contains(&name) {
            differ.push((va, name, names.clone()));
        }
    }
    for (va, name, names) in &differ {
        eprintln!("{fixture} {va:#x}: lidia {name:?}, ksym {names:?}");
    }
    eprintln!(
        "{fixture}: {compared} functions compared, {} differ",
        differ.len()
    );
    assert!(
        compared > 20,
        "{fixture}: only {compared} functions compared"
    );
    assert!(differ.is_empty());
}

/// GCC's C++ DWARF often names a function only by `DW_AT_name` (`histogram`, `main` of a
/// `main.cold` piece), so C++ is compared as users build it: outermost names from the
/// symbol table, demangled by the shared policy.
#[test]
fn cpp_functions_get_the_same_name_from_ksym_and_lidia() {
    same_names("cpp-gxx", true);
}

/// Every Rust function has a `DW_AT_linkage_name`: the DWARF path (the unit's language
/// first) and the symbol table path (the mangling prefix) must agree.
#[test]
fn rust_functions_get_the_same_name_from_ksym_and_lidia() {
    same_names("rust", false);
    same_names("rust", true);
}
