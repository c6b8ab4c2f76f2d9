//! The in-memory model of a SuperSize archive: containers, sections and symbols, with
//! SuperSize's section tables, symbol order and padding rule.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::json::Json;

/// Flag: the name had an `(anonymous namespace)::` (removed).
pub const FLAG_ANONYMOUS: u32 = 1;
/// Flag: the symbol was a `[clone …]` (suffix removed).
pub const FLAG_CLONE: u32 = 64;
/// Flag: the source path is a generated file.
pub const FLAG_GENERATED_SOURCE: u32 = 32;

/// The `.other` pseudo-section: everything that is not a known section.
pub const SECTION_OTHER: &str = ".other";
/// The prefix of padding-only symbols whose written size is their full size.
pub const OVERHEAD_PREFIX: &str = "Overhead: ";

/// Sections whose symbols are native code or data (padding is computed between them).
pub const NATIVE_SECTIONS: &[&str] = &[
    ".text",
    ".rodata",
    ".data",
    ".data.rel.ro",
    ".data.rel.ro.local",
    ".bss",
    ".bss.rel.ro",
    ".part.end",
];

/// Sections that take no space in the file.
pub const BSS_SECTIONS: &[&str] = &[".bss", ".bss.rel.ro", ".relro_padding", ".part.end"];

/// The known sections that are not native ([`KNOWN_SECTIONS`] is the native ones, then
/// these).
const KNOWN_NOT_NATIVE: &[&str] = &[
    ".relro_padding",
    ".dex",
    ".dex.method",
    ".pak.nontranslated",
    ".pak.translations",
    ".arsc",
    ".other",
];

/// Every section name SuperSize knows (spec §5); others are lumped into `.other`.
pub const KNOWN_SECTIONS: &[&str] = &concat::<{ NATIVE_SECTIONS.len() + KNOWN_NOT_NATIVE.len() }>(
    NATIVE_SECTIONS,
    KNOWN_NOT_NATIVE,
);

/// `a` followed by `b`, at compile time (`N` is their total length).
const fn concat<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - a.len()];
        i += 1;
    }
    out
}

/// SuperSize's section sort order (spec §2.6); unknown names sort with `.other`.
pub fn section_order(section: &str) -> u8 {
    match section {
        ".text" | ".rodata" | ".data" | ".data.rel.ro" | ".data.rel.ro.local" => 0,
        ".bss" | ".bss.rel.ro" | ".relro_padding" | ".part.end" => 1,
        ".dex" => 2,
        ".dex.method" => 3,
        ".pak.nontranslated" => 4,
        ".pak.translations" => 5,
        ".arsc" => 6,
        _ => 7,
    }
}

/// Whether `section` is a native section (spec §5).
pub fn is_native(section: &str) -> bool {
    NATIVE_SECTIONS.contains(&section)
}

/// Whether `section` is bss-like (takes no file space).
pub fn is_bss(section: &str) -> bool {
    BSS_SECTIONS.contains(&section)
}

/// Sections that take no file space but are not bss-like to SuperSize: thread-local bss,
/// which linkers always make NOBITS. SuperSize archives it as a section of the file (its
/// `Overhead: ELF file` is short by its size); only the name survives in a `.size` file,
/// so reports recognise it by name.
pub const NOBITS_NOT_BSS: &[&str] = &[".tbss"];

/// Whether `section` takes no space in the file: bss-like, or in [`NOBITS_NOT_BSS`].
pub fn not_in_file(section: &str) -> bool {
    is_bss(section) || NOBITS_NOT_BSS.contains(&section)
}

/// One symbol of an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Index of the container in [`SizeInfo::containers`].
    pub container: usize,
    /// Section name (`.text`, `.other`, …).
    pub section: String,
    /// Address (0 for symbols without one).
    pub address: u64,
    /// Size including padding.
    pub size: i64,
    /// Padding before the symbol (bytes between it and the previous symbol).
    pub padding: i64,
    /// Name as written (demangled).
    pub full_name: String,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Object file path (empty without a linker map).
    pub object_path: String,
    /// Source file path.
    pub source_path: String,
    /// Component (team/owner) name.
    pub component: String,
    /// Alias group: members share an id and sit next to each other; `None` when alone.
    pub alias_group: Option<usize>,
    /// Number of members of the alias group (1 when alone).
    pub num_aliases: u32,
    /// Disassembly text, when present.
    pub disassembly: Option<String>,
}

impl Symbol {
    /// A symbol of the first container with no padding, paths or aliases.
    pub fn new(section: &str, address: u64, size: i64, full_name: String) -> Self {
        Symbol {
            container: 0,
            section: section.to_string(),
            address,
            size,
            padding: 0,
            full_name,
            flags: 0,
            object_path: String::new(),
            source_path: String::new(),
            component: String::new(),
            alias_group: None,
            num_aliases: 1,
            disassembly: None,
        }
    }

    /// Size without the padding before it.
    pub fn size_without_padding(&self) -> i64 {
        self.size.wrapping_sub(self.padding)
    }

    /// Whether this is an `Overhead: …` symbol (padding-only, written with its full size).
    pub fn is_overhead(&self) -> bool {
        self.full_name.starts_with(OVERHEAD_PREFIX)
    }

    /// Size shared among the alias group (SuperSize's `pss`).
    pub fn pss(&self) -> f64 {
        self.size as f64 / f64::from(self.num_aliases.max(1))
    }

    /// Padding shared among the alias group.
    pub fn padding_pss(&self) -> f64 {
        self.padding as f64 / f64::from(self.num_aliases.max(1))
    }
}

/// One container: a binary with its metadata and section sizes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Container {
    /// Container name (empty in single-container files).
    pub name: String,
    /// Metadata (`elf_arch`, `elf_build_id`, …), without the build config.
    pub metadata: BTreeMap<String, Json>,
    /// Section name → size in bytes, `.other` included.
    pub section_sizes: BTreeMap<String, i64>,
    /// File name → metric name → value.
    pub metrics_by_file: BTreeMap<String, Json>,
}

/// A whole archive.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeInfo {
    /// Build configuration (`git_revision`, `gn_args`, `out_directory`, `title`, `url`).
    pub build_config: BTreeMap<String, Json>,
    /// Containers (one for an ELF archive).
    pub containers: Vec<Container>,
    /// Symbols in file order.
    pub symbols: Vec<Symbol>,
}

/// SuperSize's symbol sort key (spec §2.6), as a comparison.
pub fn compare_symbols(a: &Symbol, b: &Symbol) -> Ordering {
    let key = |s: &Symbol| {
        (
            s.container,
            section_order(&s.section),
            s.is_overhead(),
            s.address,
            s.address != 0 && s.size_without_padding() > 0,
            s.full_name.starts_with("**"),
        )
    };
    key(a)
        .cmp(&key(b))
        .then_with(|| a.full_name.cmp(&b.full_name))
        .then_with(|| a.object_path.cmp(&b.object_path))
}

/// Sorts symbols as SuperSize's writer does (stable, so alias groups keep their order).
pub fn sort_symbols(symbols: &mut [Symbol]) {
    symbols.sort_by(compare_symbols);
}

/// Why [`calculate_padding`] refused the symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaddingError {
    /// A (container, section) pair appears in two separate runs.
    SegmentRepeats(usize),
    /// Two symbols outside one alias group share an address and the first has a size.
    DuplicateSymbols(usize),
    /// Padding made a symbol's size negative (symbols out of order or overlapping).
    NegativeSize(usize),
}

/// SuperSize's `CalculatePadding` over symbols in file order (spec §3 item 5): sets
/// `padding` and grows `size` by it. Errors carry the index of the offending symbol.
pub fn calculate_padding(symbols: &mut [Symbol]) -> Result<(), PaddingError> {
    let mut seen = std::collections::BTreeSet::new();
    for i in 1..symbols.len() {
        let (head, tail) = symbols.split_at_mut(i);
        let prev = &head[i - 1];
        let sym = &mut tail[0];
        if sym.is_overhead() {
            sym.padding = sym.size;
        }
        if (prev.container, &prev.section) != (sym.container, &sym.section) {
            if !seen.insert((sym.container, sym.section.clone())) {
                return Err(PaddingError::SegmentRepeats(i));
            }
            continue;
        }
        if sym.address == 0
            || prev.address == 0
            || !is_native(&sym.section)
            || !is_native(&prev.section)
        {
            continue;
        }
        if sym.address == prev.address {
            if sym.alias_group.is_some() && sym.alias_group == prev.alias_group {
                sym.padding = prev.padding;
                sym.size = prev.size;
                continue;
            }
            if prev.size_without_padding() != 0 {
                return Err(PaddingError::DuplicateSymbols(i));
            }
        }
        let prev_end = prev.address as i128 + i128::from(prev.size_without_padding());
        let padding =
            (sym.address as i128 - prev_end).clamp(i64::MIN.into(), i64::MAX.into()) as i64;
        sym.padding = padding;
        sym.size = sym.size.saturating_add(padding);
        if sym.size < 0 {
            return Err(PaddingError::NegativeSize(i));
        }
    }
    Ok(())
}
