//! Symbols as every symbol source yields them (ELF tables, nm / System.map / kallsyms
//! text), and the one rule that decides which symbols are kept.
//!
//! Invariants: a [`Symbol`]'s name is valid UTF-8, not a mapping symbol, and already
//! normalised ([`Demangle`]); a [`SymbolList`] keeps input order (writers sort).

use std::collections::BTreeMap;

use super::names::{finish_name, is_mapping_symbol, Demangle, NameError};

/// One symbol as read from an input: link-time address, nm type character, final name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Link-time virtual address.
    pub address: u64,
    /// The nm type character, e.g. `b'T'` (global text) or `b't'` (local text).
    pub kind: u8,
    /// The name as it will be stored (after demangling, if that was asked for).
    pub name: String,
}

/// Which nm type characters are kept: the ones given, or the input's own rule.
///
/// The input's rule (the default) is the kernel's for text input, `T` and `t` (what its
/// kallsyms generator keeps from `nm` of a vmlinux, and the text of `/proc/kallsyms`), and
/// every function symbol for an ELF file (`STT_FUNC`, `STT_GNU_IFUNC` and untyped symbols
/// in code, of any binding: nm types `T`, `t`, `W`, `i`, `u`), so that lookups answer as
/// `nm` and `addr2line -f` do on a userland binary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeFilter {
    given: Option<[bool; 256]>,
}

impl TypeFilter {
    /// Keeps exactly the type characters in `types`, e.g. `"Tt"` or `"TtWw"`, from any
    /// input.
    pub fn new(types: &str) -> Self {
        let mut kept = [false; 256];
        for b in types.bytes() {
            kept[usize::from(b)] = true;
        }
        TypeFilter { given: Some(kept) }
    }

    /// The input's own rule (the default; see the type docs).
    pub fn input_default() -> Self {
        TypeFilter { given: None }
    }

    /// Whether symbols of type `kind` are kept from text input (nm, System.map,
    /// `/proc/kallsyms`).
    pub fn keeps_from_text(&self, kind: u8) -> bool {
        match &self.given {
            Some(kept) => kept[usize::from(kind)],
            None => matches!(kind, b'T' | b't'),
        }
    }

    /// Whether a function symbol of type `kind` is kept from an ELF file.
    pub fn keeps_from_elf(&self, kind: u8) -> bool {
        self.given.is_none_or(|kept| kept[usize::from(kind)])
    }
}

/// How inputs are read: which types are kept and how names are normalised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputOptions {
    /// The symbol types to keep (default: the input's rule, `T` and `t` from text, every
    /// function symbol from an ELF file).
    pub types: TypeFilter,
    /// Name demangling (default: none, names stored exactly as given).
    pub demangle: Demangle,
}

/// The symbols read from one input, with counts of what was skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolList {
    /// The kept symbols, in input order.
    pub symbols: Vec<Symbol>,
    /// Symbols dropped by the type filter.
    pub skipped_type: u64,
    /// How many of [`skipped_type`](Self::skipped_type) had each type character.
    pub skipped_types: BTreeMap<u8, u64>,
    /// ELF symbols that are not functions in code (objects, sections, files, symbols of
    /// data sections), which a blob never holds.
    pub skipped_not_function: u64,
    /// Lines or symbols without an address (undefined symbols) and blank lines.
    pub skipped_undefined: u64,
    /// Mapping symbols (`$x`, `$d`, …) and, for ELF, `.L` locals.
    pub skipped_mapping: u64,
    /// `/proc/kallsyms` module symbols (`\t[module]`), which v1 cannot represent.
    pub skipped_module: u64,
}

/// Applies the type filter (`kept`: its verdict on `kind` for this input), the
/// mapping-symbol rule and the name rules to one symbol and appends it to `list` if it is
/// kept.
pub(crate) fn accept(
    list: &mut SymbolList,
    options: &InputOptions,
    kept: bool,
    address: u64,
    kind: u8,
    name: &[u8],
) -> std::result::Result<(), NameError> {
    if !kept {
        list.skipped_type += 1;
        *list.skipped_types.entry(kind).or_default() += 1;
        return Ok(());
    }
    if is_mapping_symbol(name) {
        list.skipped_mapping += 1;
        return Ok(());
    }
    let name = finish_name(name, options.demangle)?;
    list.symbols.push(Symbol {
        address,
        kind,
        name,
    });
    Ok(())
}
