//! The embedded symbol table in either ksym-bin version, behind one type: the version is
//! told from the blob's first bytes, and every operation the program uses dispatches to
//! the reader of that version.

use core::fmt;

use symblob::ksym::{self, v2, KsymBlob, TextRanges, Version};
use symblob::Error;

/// A parsed blob of either version with the program's text ranges.
#[derive(Clone, Copy)]
pub enum Table<'a> {
    V1(ksym::Ksyms<'a>),
    V2(v2::Ksyms<'a>),
}

/// The symbol covering an address; `Display` prints `name+0xoff/0xsize`.
pub enum Symbol<'a> {
    V1(ksym::Symbol<'a>),
    V2(v2::Symbol<'a>),
}

impl fmt::Display for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::V1(symbol) => symbol.fmt(f),
            Symbol::V2(symbol) => symbol.fmt(f),
        }
    }
}

impl<'a> Table<'a> {
    /// Detects the version of `bytes` and parses (validates) them with its reader.
    pub fn parse(bytes: &'a [u8], ranges: TextRanges<'a>) -> Result<Self, Error> {
        Ok(match Version::detect(bytes) {
            Version::V1(kind) => {
                Table::V1(ksym::Ksyms::new(KsymBlob::parse_as(bytes, kind)?, ranges))
            }
            Version::V2 => Table::V2(v2::Ksyms::new(v2::Blob::parse(bytes)?, ranges)),
        })
    }

    /// The format version, 1 or 2.
    pub fn version(&self) -> u8 {
        match self {
            Table::V1(_) => 1,
            Table::V2(_) => 2,
        }
    }

    /// The text ranges the table was made with.
    pub fn ranges(&self) -> TextRanges<'a> {
        match self {
            Table::V1(k) => k.ranges(),
            Table::V2(k) => k.ranges(),
        }
    }

    /// The number of symbols.
    pub fn len(&self) -> usize {
        match self {
            Table::V1(k) => k.blob().len(),
            Table::V2(k) => k.blob().len(),
        }
    }

    /// Whether the blob holds no symbol (as an all-zero section parses).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The blob's own length, padding excluded.
    pub fn used_size(&self) -> usize {
        match self {
            Table::V1(k) => k.blob().used_size(),
            Table::V2(k) => k.blob().used_size(),
        }
    }

    /// The symbol covering the address `addr`.
    pub fn lookup_address(&self, addr: u64) -> Option<Symbol<'a>> {
        match self {
            Table::V1(k) => k.lookup_address(addr).map(Symbol::V1),
            Table::V2(k) => k.lookup_address(addr).map(Symbol::V2),
        }
    }

    /// The symbol of the call that returns to `ra` (looked up as `ra − 1`).
    pub fn lookup_return_address(&self, ra: u64) -> Option<Symbol<'a>> {
        match self {
            Table::V1(k) => k.lookup_return_address(ra).map(Symbol::V1),
            Table::V2(k) => k.lookup_return_address(ra).map(Symbol::V2),
        }
    }

    /// The lowest address of the symbols named exactly `name`.
    pub fn lookup_name(&self, name: &[u8]) -> Option<u64> {
        match self {
            Table::V1(k) => k.blob().lookup_name(name),
            Table::V2(k) => k.blob().lookup_name(name),
        }
    }

    /// Runs every check of the version's spec again.
    pub fn validate(&self) -> Result<(), Error> {
        match self {
            Table::V1(k) => k.blob().validate(),
            Table::V2(k) => k.blob().validate(),
        }
    }

    /// Writes the `/proc/kallsyms`-style dump.
    pub fn dump<W: fmt::Write>(&self, w: &mut W) -> fmt::Result {
        match self {
            Table::V1(k) => k.blob().dump(w),
            Table::V2(k) => k.blob().dump(w),
        }
    }

    /// The stored address of symbol `index` in address order.
    pub fn address(&self, index: usize) -> Option<u64> {
        match self {
            Table::V1(k) => k.blob().symbol(index).map(|e| e.address),
            Table::V2(k) => k.blob().address(index),
        }
    }

    /// Copies the name of symbol `index` into `buf` and returns its length; `None` past
    /// the last symbol or when `buf` is too short.
    pub fn copy_name(&self, index: usize, buf: &mut [u8]) -> Option<usize> {
        match self {
            Table::V1(k) => k.blob().symbol(index)?.name.copy_to(buf).ok(),
            Table::V2(k) => k.blob().symbol(index)?.name.copy_to(buf).ok(),
        }
    }
}
