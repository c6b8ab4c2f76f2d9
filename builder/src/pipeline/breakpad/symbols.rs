//! The symbol-table functions a Breakpad file is made with, as symbolic (and so
//! dump_syms) reads them, and the two forms their names take.

use object::{Object, ObjectSection, ObjectSymbol, SectionIndex, SymbolFlags, SymbolSection};
use rayon::prelude::*;

use crate::model::Symbol;

/// The `STT_FUNC` symbols of `obj` (from `.symtab`, or `.dynsym` when `.symtab` is empty)
/// that lie in an executable section at or above `base`, in table order, with their
/// names as the file has them. `STT_GNU_IFUNC` and untyped symbols (assembly labels,
/// `_text`) are not functions to symbolic.
pub(crate) fn function_symbols(obj: &object::File<'_>, base: u64) -> Vec<(u64, String)> {
    let mut table: Vec<_> = obj.symbols().collect();
    if table.is_empty() {
        table = obj.dynamic_symbols().collect();
    }
    let executable = |index: SectionIndex| {
        obj.section_by_index(index).is_ok_and(|s| {
            matches!(s.flags(), object::SectionFlags::Elf { sh_flags, .. }
                if sh_flags.contains(object::elf::SHF_EXECINSTR))
        })
    };
    table
        .iter()
        .filter(|s| {
            matches!(s.flags(), SymbolFlags::Elf { st_info, .. }
                if st_info.st_type() == object::elf::STT_FUNC)
        })
        .filter(|s| matches!(s.section(), SymbolSection::Section(i) if executable(i)))
        .filter(|s| s.address() >= base)
        .filter_map(|s| Some((s.address(), s.name().ok()?.to_owned())))
        .collect()
}

/// The symbols as they name functions: in dump_syms's form (compiler suffixes dropped,
/// demangled; [`crate::demangle::breakpad_name`]).
pub(crate) fn as_function_names(symbols: &[(u64, String)]) -> Vec<Symbol> {
    symbols
        .par_iter()
        .map(|(address, name)| symbol(*address, crate::demangle::breakpad_name(name)))
        .collect()
}

/// The symbols as `PUBLIC` records name them: a Rust or C++ name as functions are named,
/// any other name exactly as the table has it (dump_syms changes only names whose
/// language it recognises, so a C function's `.cold` copy keeps its suffix).
pub(crate) fn as_public_names(symbols: &[(u64, String)]) -> Vec<Symbol> {
    symbols
        .par_iter()
        .map(|(address, name)| {
            let mangled = name.starts_with("_Z") || rustc_demangle::try_demangle(name).is_ok();
            let name = if mangled {
                crate::demangle::breakpad_name(name)
            } else {
                name.clone()
            };
            symbol(*address, name)
        })
        .collect()
}

fn symbol(address: u64, name: String) -> Symbol {
    Symbol {
        address,
        kind: b'T',
        name,
    }
}
