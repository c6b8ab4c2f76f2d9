//! The `/proc/kallsyms`-style dump (spec 5.3 and D12): `%016x %c %s\n` per symbol.

use core::fmt;

use super::iter::Entry;
use super::parse::KsymBlob;

/// One dump line, `{address:016x} {type} {name}\n`, ready to be written with `Display`.
///
/// Random access by index lets a seq_file-style reader resume anywhere without walking the
/// list; nothing is allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DumpLine<'a> {
    /// The symbol the line describes.
    pub entry: Entry<'a>,
}

impl fmt::Display for DumpLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.entry;
        writeln!(f, "{:016x} {} {}", e.address, char::from(e.kind), e.name)
    }
}

impl<'a> KsymBlob<'a> {
    /// Writes the dump line of every symbol, in address order, to `w`.
    pub fn dump<W: fmt::Write>(&self, w: &mut W) -> fmt::Result {
        self.symbols()
            .try_for_each(|entry| write!(w, "{}", DumpLine { entry }))
    }

    /// The dump line of symbol `index` (address order), or `None` if `index ≥ len()`.
    pub fn dump_line(&self, index: usize) -> Option<DumpLine<'a>> {
        self.symbol(index).map(|entry| DumpLine { entry })
    }
}
