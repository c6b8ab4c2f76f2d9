//! Generators: `arbitrary` turns fuzz bytes into symbol sets and range sets that the
//! builder accepts, so the structure-aware targets start from valid blobs.
//!
//! Names are drawn from a few shared prefixes and a small alphabet (with multi-byte
//! UTF-8 characters), so that token selection, aliases and equal names all happen often.

use arbitrary::Arbitrary;
use symblob_build::ksym::{
    build, BuildOptions, FormatVersion, LayoutKind, NameHash, Symbol, WholeSearchNames,
};
use symblob_build::lidia::{LineEntry, RangeSpec};

/// Name prefixes: several names share each, which makes tokens pay off.
const PREFIXES: [&str; 8] = [
    "",
    "_",
    "__",
    "do_",
    "sys_",
    "x86_",
    "_ZN4core3fmt",
    "très_",
];

/// Characters of the name suffixes, including two- and three-byte UTF-8.
const ALPHABET: [&str; 16] = [
    "a", "b", "c", "_", "0", "1", ".", "$", "x", "y", "é", "€", "z", "q", " ", "T",
];

/// Builds a name from a prefix choice and suffix bytes; never empty.
fn name(prefix: u8, suffix: &[u8], max: usize) -> String {
    let mut name = String::from(PREFIXES[usize::from(prefix) % PREFIXES.len()]);
    for &b in suffix.iter().take(max) {
        name.push_str(ALPHABET[usize::from(b) % ALPHABET.len()]);
    }
    if name.is_empty() {
        name.push('f');
    }
    name
}

/// One generated ksym symbol: a step from the previous address, a type and a name.
#[derive(Arbitrary, Clone, Debug)]
pub struct GenSymbol {
    /// Address step from the previous symbol; 0 makes an alias, `u16::MAX` a far jump.
    pub step: u16,
    /// `T` (global) or `t` (local).
    pub global: bool,
    /// Which shared prefix the name starts with.
    pub prefix: u8,
    /// Suffix characters (indexes into the alphabet).
    pub suffix: Vec<u8>,
}

/// A generated symbol set: where addresses start, whether the input comes in reverse
/// order, and the symbols.
#[derive(Arbitrary, Clone, Debug)]
pub struct GenSymbols {
    /// First address.
    pub base: u64,
    /// Hand the symbols to the builder in reverse order (it must sort them).
    pub reversed: bool,
    /// The symbols.
    pub symbols: Vec<GenSymbol>,
}

impl GenSymbols {
    /// The symbols as the builder takes them (at most 2,000, names of at most 48
    /// suffix characters).
    pub fn symbols(&self) -> Vec<Symbol> {
        let mut address = self.base;
        let mut out: Vec<Symbol> = self
            .symbols
            .iter()
            .take(2000)
            .map(|g| {
                address = address.wrapping_add(match g.step {
                    u16::MAX => 1 << 40,
                    step => u64::from(step),
                });
                Symbol {
                    address,
                    kind: if g.global { b'T' } else { b't' },
                    name: name(g.prefix, &g.suffix, 48),
                }
            })
            .collect();
        if self.reversed {
            out.reverse();
        }
        out
    }
}

/// One generated Lidia range.
#[derive(Arbitrary, Clone, Debug)]
pub struct GenRange {
    /// Start address step from the previous range (ranges may overlap and nest).
    pub step: u16,
    /// Length in bytes (0 allowed: such ranges never match).
    pub length: u16,
    /// Inline depth (taken modulo 4).
    pub depth: u8,
    /// Function name choice.
    pub function: (u8, u8),
    /// File name choice.
    pub file: u8,
    /// Call file choice (0 = none).
    pub call_file: u8,
    /// Call line.
    pub call_line: u16,
    /// Line entries: (offset, line).
    pub lines: Vec<(u16, u16)>,
}

/// A generated range set with the writer flags.
#[derive(Arbitrary, Clone, Debug)]
pub struct GenRanges {
    /// First address (a large one forces 8-byte VAs).
    pub base: u64,
    /// Store files.
    pub files: bool,
    /// Store line tables.
    pub lines: bool,
    /// Make the line values large enough for 4-byte line fields.
    pub wide_lines: bool,
    /// The ranges.
    pub ranges: Vec<GenRange>,
}

/// A generated range with owned strings and lines, ready to become a [`RangeSpec`].
#[derive(Clone, Debug)]
pub struct OwnedRange {
    /// Start address.
    pub va: u64,
    /// Length.
    pub length: u64,
    /// Inline depth.
    pub depth: u64,
    /// Function name.
    pub function: Vec<u8>,
    /// File.
    pub file: Vec<u8>,
    /// Call file.
    pub call_file: Vec<u8>,
    /// Call line.
    pub call_line: u64,
    /// Line entries.
    pub lines: Vec<LineEntry>,
}

impl OwnedRange {
    /// The writer's view of this range.
    pub fn spec(&self) -> RangeSpec<'_> {
        RangeSpec {
            va: self.va,
            length: self.length,
            depth: self.depth,
            function: &self.function,
            file: &self.file,
            call_file: &self.call_file,
            call_line: self.call_line,
            lines: &self.lines,
        }
    }
}

impl GenRanges {
    /// The ranges in insertion order (at most 1,000, at most 16 line entries each).
    pub fn ranges(&self) -> Vec<OwnedRange> {
        let scale = if self.wide_lines { 3 } else { 1 };
        let mut va = self.base;
        self.ranges
            .iter()
            .take(1000)
            .map(|g| {
                va = va.wrapping_add(u64::from(g.step));
                OwnedRange {
                    va,
                    length: u64::from(g.length),
                    depth: u64::from(g.depth % 4),
                    function: name(g.function.0, &[g.function.1], 4).into_bytes(),
                    file: format!("src/f{}.c", g.file % 8).into_bytes(),
                    call_file: match g.call_file % 4 {
                        0 => Vec::new(),
                        n => format!("inc/h{n}.h").into_bytes(),
                    },
                    call_line: u64::from(g.call_line),
                    lines: g
                        .lines
                        .iter()
                        .take(16)
                        .map(|&(offset, line)| LineEntry {
                            offset: u64::from(offset) * scale,
                            line: u64::from(line) * scale,
                        })
                        .collect(),
                }
            })
            .collect()
    }
}

/// The bit of [`build_blob`]'s `max_tokens` that chooses ksym-bin v2.
pub const V2_BIT: u16 = 0x4000;

/// With [`V2_BIT`]: the v2 blob always carries the name hash index (otherwise the builder
/// decides).
pub const HASH_BIT: u16 = 0x8000;

/// Builds `symbols` into a ksym-bin blob with at most `max_tokens % 512` tokens (the
/// builder never uses token id 511), in the plain layout when bit 9 of `max_tokens` is
/// set and the sized one otherwise; bits 10–13 choose the whole search names (0: the
/// default, r: the first r − 1 rounds); bit 14 builds ksym-bin v2 instead, where none of
/// the others apply. Generated names are always valid input.
pub fn build_blob(symbols: &[Symbol], max_tokens: u16) -> Vec<u8> {
    let layout = if max_tokens & 0x200 != 0 {
        LayoutKind::Plain
    } else {
        LayoutKind::Sized
    };
    let options = BuildOptions {
        format_version: if max_tokens & V2_BIT != 0 {
            FormatVersion::V2
        } else {
            FormatVersion::V1
        },
        max_tokens: usize::from(max_tokens % 512),
        pad_to: None,
        layout,
        whole_search_names: match (max_tokens >> 10) & 0xf {
            0 => WholeSearchNames::Auto,
            r => WholeSearchNames::Rounds(usize::from(r - 1)),
        },
        name_hash: if max_tokens & HASH_BIT != 0 {
            NameHash::Always
        } else {
            NameHash::Auto
        },
    };
    build(symbols, &options)
        .expect("generated names are valid")
        .bytes
}
