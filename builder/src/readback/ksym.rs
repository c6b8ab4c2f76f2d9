//! ksym-bin blobs as a source: every stored symbol with its type, in address order, the
//! blob's text ranges, and the functions its lookups answer with. Both versions of the
//! format are read ([`AnyKsym`]).

use std::fmt;
use std::io;
use std::ops::Range;

use symblob::ksym::{v2, KsymBlob, Ksyms, LayoutKind, TextRanges, Version};

use super::reader_error;
use crate::model::{functions_of_symbols, Model, Symbol};
use crate::Result;

/// What a ksym-bin blob holds, in the model.
#[derive(Clone, Debug)]
pub struct KsymSource {
    /// Symbols in stored (address) order, aliases in their stored order; functions that
    /// cover each symbol's addresses up to the next symbol or the end of its text range.
    pub model: Model<'static>,
    /// The blob's layout (sized or plain), so that a rewrite can keep it; sized for a v2
    /// blob, which has one framing only.
    pub layout: LayoutKind,
}

/// Reads the ksym-bin blob `bytes` (v1 or v2; named `input` in errors) into the model.
pub fn read(bytes: &[u8], input: &str) -> Result<KsymSource> {
    let blob = AnyKsym::parse(bytes).map_err(|e| reader_error(input, e))?;
    let symbols: Vec<Symbol> = blob.rows().collect();
    let text_ranges = blob.text_ranges();
    let functions = functions_of_symbols(&symbols, &text_ranges);
    Ok(KsymSource {
        model: Model {
            functions,
            symbols,
            text_ranges,
            ..Model::default()
        },
        layout: match blob {
            AnyKsym::V1(b) => b.layout_kind(),
            AnyKsym::V2(_) => LayoutKind::Sized,
        },
    })
}

/// The text ranges a blob's lookups use when the caller gives none: `_stext.._etext`
/// (and `_sinittext.._einittext` when disjoint from it) where the blob has those
/// markers, as the kernel's own kallsyms does; otherwise from the first symbol to one
/// byte past the last (the blob does not say where the last symbol ends).
pub fn text_ranges(blob: &KsymBlob<'_>) -> Vec<Range<u64>> {
    AnyKsym::V1(*blob).text_ranges()
}

/// A ksym-bin blob of either version ([`Version::detect`] chooses), with what the
/// commands and the readback need from it.
#[derive(Clone, Copy, Debug)]
pub enum AnyKsym<'a> {
    /// ksym-bin v1, in either framing.
    V1(KsymBlob<'a>),
    /// ksym-bin v2.
    V2(v2::Blob<'a>),
}

impl<'a> AnyKsym<'a> {
    /// Parses and validates `bytes` as the version they start as.
    pub fn parse(bytes: &'a [u8]) -> std::result::Result<Self, symblob::Error> {
        if Version::detect(bytes) == Version::V2 {
            v2::Blob::parse(bytes).map(AnyKsym::V2)
        } else {
            KsymBlob::parse(bytes).map(AnyKsym::V1)
        }
    }

    /// Opens `bytes` as what `parse` checks for v1, and with the O(1) layout checks only
    /// for v2 ([`validate`](Self::validate) checks the rest).
    pub fn open(bytes: &'a [u8]) -> std::result::Result<Self, symblob::Error> {
        if Version::detect(bytes) == Version::V2 {
            v2::Blob::open(bytes).map(AnyKsym::V2)
        } else {
            KsymBlob::parse(bytes).map(AnyKsym::V1)
        }
    }

    /// The format version: 1 or 2.
    pub fn version(&self) -> u8 {
        match self {
            AnyKsym::V1(_) => 1,
            AnyKsym::V2(_) => 2,
        }
    }

    /// The number of symbols.
    pub fn len(&self) -> usize {
        match self {
            AnyKsym::V1(b) => b.len(),
            AnyKsym::V2(b) => b.len(),
        }
    }

    /// Whether the blob holds no symbol.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the blob proper (without padding after it).
    pub fn used_size(&self) -> usize {
        match self {
            AnyKsym::V1(b) => b.layout().used_size,
            AnyKsym::V2(b) => b.used_size(),
        }
    }

    /// Checks every rule of the blob's spec.
    pub fn validate(&self) -> std::result::Result<(), symblob::Error> {
        match self {
            AnyKsym::V1(b) => b.validate(),
            AnyKsym::V2(b) => b.validate(),
        }
    }

    /// Symbol `index` in address order: its stored address, type and name (invalid
    /// UTF-8 replaced), or `None` past the end.
    pub fn symbol(&self, index: usize) -> Option<Symbol> {
        let (address, kind, name) = match self {
            AnyKsym::V1(b) => b
                .symbol(index)
                .map(|e| (e.address, e.kind, lossy(e.name.bytes())))?,
            AnyKsym::V2(b) => b
                .symbol(index)
                .map(|e| (e.address, e.kind, lossy(e.name.bytes())))?,
        };
        Some(Symbol {
            address,
            kind,
            name,
        })
    }

    /// Every symbol in address order, as [`symbol`](Self::symbol) gives them.
    pub fn rows(&self) -> Box<dyn Iterator<Item = Symbol> + 'a> {
        let row = |address, kind, name: String| Symbol {
            address,
            kind,
            name,
        };
        match *self {
            AnyKsym::V1(b) => Box::new(
                b.symbols()
                    .map(move |e| row(e.address, e.kind, lossy(e.name.bytes()))),
            ),
            AnyKsym::V2(b) => Box::new(
                b.symbols()
                    .map(move |e| row(e.address, e.kind, lossy(e.name.bytes()))),
            ),
        }
    }

    /// Writes the `/proc/kallsyms`-style dump (`%016x %c %s\n` per symbol, address
    /// order) to `out`, one line at a time.
    pub fn write_dump(&self, out: &mut dyn io::Write) -> io::Result<()> {
        match self {
            AnyKsym::V1(b) => (0..b.len())
                .filter_map(|i| b.dump_line(i))
                .try_for_each(|line| write!(out, "{line}")),
            AnyKsym::V2(b) => b.symbols().try_for_each(|e| {
                writeln!(out, "{:016x} {} {}", e.address, char::from(e.kind), e.name)
            }),
        }
    }

    /// The lowest stored address among the symbols named exactly `name`.
    pub fn lookup_name(&self, name: &str) -> Option<u64> {
        match self {
            AnyKsym::V1(b) => b.lookup_name(name),
            AnyKsym::V2(b) => b.lookup_name(name),
        }
    }

    /// Address and type of every symbol named exactly `name`, by address.
    pub fn lookup_name_all(&self, name: &str) -> Vec<(u64, u8)> {
        match self {
            AnyKsym::V1(b) => b
                .lookup_name_all(name)
                .map(|e| (e.address, e.kind))
                .collect(),
            AnyKsym::V2(b) => b
                .lookup_name_all(name)
                .map(|e| (e.address, e.kind))
                .collect(),
        }
    }

    /// The text ranges the lookups use when the caller gives none (see [`text_ranges`]).
    pub fn text_ranges(&self) -> Vec<Range<u64>> {
        let marker = |name: &str| self.lookup_name(name);
        let mut ranges = Vec::new();
        if let (Some(start), Some(end)) = (marker("_stext"), marker("_etext")) {
            if start < end {
                ranges.push(start..end);
                if let (Some(s), Some(e)) = (marker("_sinittext"), marker("_einittext")) {
                    if s < e && (e <= start || s >= end) {
                        ranges.push(s..e);
                    }
                }
                return ranges;
            }
        }
        let address = |i: usize| match self {
            AnyKsym::V1(b) => b.symbol(i).map(|e| e.address),
            AnyKsym::V2(b) => b.address(i),
        };
        let first = address(0);
        let last = self.len().checked_sub(1).and_then(address);
        if let (Some(first), Some(last)) = (first, last) {
            ranges.push(first..last.saturating_add(1).max(first.saturating_add(1)));
        }
        ranges
    }

    /// The blob ready for address lookups in `ranges` (runtime addresses) with the load
    /// bias `bias` (runtime − stored).
    pub fn ksyms(self, ranges: TextRanges<'a>, bias: u64) -> AnyKsyms<'a> {
        match self {
            AnyKsym::V1(b) => AnyKsyms::V1(Ksyms::new(b, ranges).with_bias(bias)),
            AnyKsym::V2(b) => AnyKsyms::V2(v2::Ksyms::new(b, ranges).with_bias(bias)),
        }
    }
}

/// A blob of either version ready for address lookups ([`AnyKsym::ksyms`]).
#[derive(Clone, Copy, Debug)]
pub enum AnyKsyms<'a> {
    /// ksym-bin v1.
    V1(Ksyms<'a>),
    /// ksym-bin v2.
    V2(v2::Ksyms<'a>),
}

/// The symbol that covers an address, as both versions answer. `Display` prints
/// `name+0xoff/0xsize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Index in address order: the first of the aliases at this address.
    pub index: usize,
    /// Runtime address of the symbol's start.
    pub address: u64,
    /// Distance to the next greater stored address or to the end of the text range.
    pub size: u64,
    /// Distance from the symbol's start to the queried address (plus one for return
    /// addresses).
    pub offset: u64,
    /// The nm type letter as a byte.
    pub kind: u8,
    /// The name, as the reader prints it.
    pub name: String,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{:#x}/{:#x}", self.name, self.offset, self.size)
    }
}

macro_rules! found {
    ($s:expr) => {
        $s.map(|s| Found {
            index: s.index,
            address: s.address,
            size: s.size,
            offset: s.offset,
            kind: s.kind,
            name: s.name.to_string(),
        })
    };
}

impl AnyKsyms<'_> {
    /// The symbol covering the runtime address `addr`.
    pub fn lookup_address(&self, addr: u64) -> Option<Found> {
        match self {
            AnyKsyms::V1(k) => found!(k.lookup_address(addr)),
            AnyKsyms::V2(k) => found!(k.lookup_address(addr)),
        }
    }

    /// The symbol of the return address `ra` (looks up `ra − 1`, reports `ra`'s offset).
    pub fn lookup_return_address(&self, ra: u64) -> Option<Found> {
        match self {
            AnyKsyms::V1(k) => found!(k.lookup_return_address(ra)),
            AnyKsyms::V2(k) => found!(k.lookup_return_address(ra)),
        }
    }
}

fn lossy(bytes: impl Iterator<Item = u8>) -> String {
    String::from_utf8_lossy(&bytes.collect::<Vec<u8>>()).into_owned()
}
