//! Random access and iteration over the symbols, in address order and in name order.

use core::ops::Range;

use super::name::Name;
use super::parse::KsymBlob;

/// Implements the iterator traits for a struct with a `blob: KsymBlob` and a
/// `Range<usize>` of positions: each position `i` yields `blob.$get(i)`. Every position
/// below the blob's `len()` has a symbol, so stopping at the first `None` only matters as
/// a defence against a broken invariant. (Three public iterators share these impls; a
/// macro because each needs its own trait impls.)
macro_rules! entry_iterator {
    ($iter:ident, $positions:ident, $get:ident) => {
        impl<'a> Iterator for $iter<'a> {
            type Item = Entry<'a>;

            fn next(&mut self) -> Option<Entry<'a>> {
                self.blob.$get(self.$positions.next()?)
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.$positions.size_hint()
            }

            fn nth(&mut self, n: usize) -> Option<Entry<'a>> {
                self.blob.$get(self.$positions.nth(n)?)
            }
        }

        impl<'a> DoubleEndedIterator for $iter<'a> {
            fn next_back(&mut self) -> Option<Entry<'a>> {
                self.blob.$get(self.$positions.next_back()?)
            }
        }

        impl ExactSizeIterator for $iter<'_> {}
        impl core::iter::FusedIterator for $iter<'_> {}
    };
}
pub(crate) use entry_iterator;

/// One stored symbol: its address-order index, stored address, type byte and name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Index in address order (`0..len()`).
    pub index: usize,
    /// The stored (link-time) address.
    pub address: u64,
    /// The nm type letter as a byte, e.g. `b'T'` or `b't'`.
    pub kind: u8,
    /// The decoded name.
    pub name: Name<'a>,
}

impl<'a> KsymBlob<'a> {
    /// Symbol `index` in address order, or `None` if `index ≥ len()`. O(1).
    #[inline]
    pub fn symbol(&self, index: usize) -> Option<Entry<'a>> {
        let address = self.address(index)?;
        let (kind, name) = self.kind_and_name(index)?;
        Some(Entry {
            index,
            address,
            kind,
            name,
        })
    }

    /// All symbols in address order (the stored order).
    pub fn symbols(&self) -> Symbols<'a> {
        Symbols {
            blob: *self,
            indices: 0..self.len(),
        }
    }

    /// All symbols in name order (the order of `seqs`).
    pub fn symbols_by_name(&self) -> SymbolsByName<'a> {
        SymbolsByName {
            blob: *self,
            ranks: 0..self.seqs.len(),
        }
    }

    /// The symbol at name-order rank `rank`.
    #[inline]
    pub(crate) fn symbol_by_rank(&self, rank: usize) -> Option<Entry<'a>> {
        self.symbol(self.seq(rank)?)
    }
}

/// Iterator over the symbols in address order; see [`KsymBlob::symbols`].
#[derive(Clone, Debug)]
pub struct Symbols<'a> {
    blob: KsymBlob<'a>,
    indices: Range<usize>,
}

entry_iterator!(Symbols, indices, symbol);

/// Iterator over the symbols in name order; see [`KsymBlob::symbols_by_name`].
#[derive(Clone, Debug)]
pub struct SymbolsByName<'a> {
    blob: KsymBlob<'a>,
    ranks: Range<usize>,
}

entry_iterator!(SymbolsByName, ranks, symbol_by_rank);
