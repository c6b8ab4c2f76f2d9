//! Symbols as every symbol source yields them (ELF tables, nm / System.map / kallsyms
//! text), and the one rule that decides which symbols are kept.
//!
//! Invariants: a [`Symbol`]'s name is valid UTF-8, not a mapping symbol, and already
//! normalised ([`Demangle`]); a [`SymbolList`] keeps input order (writers sort).

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

/// Which nm type characters are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeFilter {
    kept: [bool; 256],
}

impl TypeFilter {
    /// Keeps exactly the type characters in `types`, e.g. `"Tt"` or `"TtWw"`.
    pub fn new(types: &str) -> Self {
        let mut kept = [false; 256];
        for b in types.bytes() {
            kept[usize::from(b)] = true;
        }
        TypeFilter { kept }
    }

    /// Whether symbols of type `kind` are kept.
    pub fn keeps(&self, kind: u8) -> bool {
        self.kept[usize::from(kind)]
    }
}

impl Default for TypeFilter {
    /// `T` and `t`, the text symbols the original generator keeps.
    fn default() -> Self {
        TypeFilter::new("Tt")
    }
}

/// How inputs are read: which types are kept and how names are normalised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputOptions {
    /// The symbol types to keep (default `T` and `t`).
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
    /// Lines or symbols without an address (undefined symbols) and blank lines.
    pub skipped_undefined: u64,
    /// Mapping symbols (`$x`, `$d`, …) and, for ELF, `.L` locals.
    pub skipped_mapping: u64,
    /// `/proc/kallsyms` module symbols (`\t[module]`), which v1 cannot represent.
    pub skipped_module: u64,
}

/// Applies the type filter, the mapping-symbol rule and the name rules to one symbol and
/// appends it to `list` if it is kept.
pub(crate) fn accept(
    list: &mut SymbolList,
    options: &InputOptions,
    address: u64,
    kind: u8,
    name: &[u8],
) -> std::result::Result<(), NameError> {
    if !options.types.keeps(kind) {
        list.skipped_type += 1;
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
