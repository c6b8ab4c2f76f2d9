//! Random access, iteration in both orders, name lookups and the `/proc/kallsyms` dump of
//! a v2 blob.

use core::fmt;
use core::ops::Range;

use super::blob::Blob;
use super::name::Name;

/// One stored symbol: its address-order index, stored address, type byte and name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Index in address order (`0..len()`).
    pub index: usize,
    /// The stored (link-time) address.
    pub address: u64,
    /// The nm type letter as a byte.
    pub kind: u8,
    /// The name.
    pub name: Name<'a>,
}

impl<'a> Blob<'a> {
    /// Symbol `index` in address order, or `None` if `index ≥ len()`.
    pub fn symbol(&self, index: usize) -> Option<Entry<'a>> {
        Some(Entry {
            index,
            address: self.address(index)?,
            kind: self.kind(index),
            name: Name::of_index(*self, index),
        })
    }

    /// The symbol at `rank` in name order, or `None` if `rank ≥ len()`.
    pub fn symbol_by_rank(&self, rank: usize) -> Option<Entry<'a>> {
        let index = self.index_of_rank(rank)?;
        Some(Entry {
            index,
            address: self.address(index)?,
            kind: self.kind(index),
            name: Name::of_rank(*self, rank),
        })
    }

    /// Every symbol in address order.
    pub fn symbols(&self) -> Symbols<'a> {
        Symbols {
            blob: *self,
            positions: 0..self.len(),
            by_name: false,
        }
    }

    /// Every symbol in name order (equal names by address).
    pub fn symbols_by_name(&self) -> Symbols<'a> {
        Symbols {
            blob: *self,
            positions: 0..self.len(),
            by_name: true,
        }
    }

    /// The lowest stored address among the symbols named exactly `name`, or `None`.
    pub fn lookup_name(&self, name: impl AsRef<[u8]>) -> Option<u64> {
        let rank = self.find_rank(name.as_ref())?;
        self.address(self.index_of_rank(rank)?)
    }

    /// Every symbol named exactly `name`, in name order (so by address).
    pub fn lookup_name_all(&self, name: impl AsRef<[u8]>) -> Symbols<'a> {
        Symbols {
            blob: *self,
            positions: self.equal_names(name.as_ref()),
            by_name: true,
        }
    }

    /// Writes `{address:016x} {type} {name}\n` for every symbol in address order.
    pub fn dump<W: fmt::Write>(&self, w: &mut W) -> fmt::Result {
        self.symbols()
            .try_for_each(|e| writeln!(w, "{:016x} {} {}", e.address, char::from(e.kind), e.name))
    }
}

/// The symbols of a v2 blob in address or name order (see [`Blob::symbols`],
/// [`Blob::symbols_by_name`], [`Blob::lookup_name_all`]).
#[derive(Clone, Debug)]
pub struct Symbols<'a> {
    blob: Blob<'a>,
    positions: Range<usize>,
    by_name: bool,
}

impl<'a> Symbols<'a> {
    /// The ranks (name order) or indices (address order) still to come.
    pub fn positions(&self) -> Range<usize> {
        self.positions.clone()
    }

    fn at(&self, position: usize) -> Option<Entry<'a>> {
        if self.by_name {
            self.blob.symbol_by_rank(position)
        } else {
            self.blob.symbol(position)
        }
    }
}

impl<'a> Iterator for Symbols<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        let position = self.positions.next()?;
        self.at(position)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.positions.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<Entry<'a>> {
        let position = self.positions.nth(n)?;
        self.at(position)
    }
}

impl DoubleEndedIterator for Symbols<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let position = self.positions.next_back()?;
        self.at(position)
    }
}

impl ExactSizeIterator for Symbols<'_> {}
impl core::iter::FusedIterator for Symbols<'_> {}
