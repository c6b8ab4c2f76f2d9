//! Name → address (spec D11): a lower-bound binary search over `seqs` in name order.
//!
//! The search works on a half-open interval, so no index ever goes below zero (the origin
//! underflowed on queries that sort first). Each probe compares the query with the stored
//! name piece by piece (token, then rest) without decoding into a buffer.

use core::cmp::Ordering;
use core::iter::FusedIterator;
use core::ops::Range;

use super::iter::Entry;
use super::name::Name;
use super::parse::KsymBlob;
use super::search;

impl<'a> KsymBlob<'a> {
    /// The lowest stored address among the symbols named exactly `name`, or `None`.
    ///
    /// Nothing is normalised: no demangling, no suffix stripping, no type letter. Equal
    /// names are scanned, so the answer is the lowest address even in blobs whose name table
    /// does not order equal names by address.
    pub fn lookup_name(&self, name: impl AsRef<[u8]>) -> Option<u64> {
        self.lookup_name_all(name).map(|e| e.address).min()
    }

    /// Every symbol named exactly `name`, in name-table order (for callers that prefer a
    /// global `T` over a local `t` symbol).
    pub fn lookup_name_all(&self, name: impl AsRef<[u8]>) -> NameMatches<'a> {
        let query = name.as_ref();
        let first = self.lower_bound(query);
        // Walk the run of equal names; in a sorted table it is contiguous.
        let mut end = first;
        while self.name_at_rank(end).is_some_and(|n| n == *query) {
            end = end.wrapping_add(1);
        }
        NameMatches {
            blob: *self,
            ranks: first..end,
        }
    }

    /// The first rank whose name is not less than `query` (or `len()`): a K-ary search
    /// (see `search`), so that the records of several probes are fetched at once.
    fn lower_bound(&self, query: &[u8]) -> usize {
        search::partition_point(
            0..self.seqs.len(),
            |rank| self.name_at_rank(rank).unwrap_or_default(),
            |name| name.cmp_bytes(query) == Ordering::Less,
        )
    }

    /// The name at name-order rank `rank`.
    #[inline]
    fn name_at_rank(&self, rank: usize) -> Option<Name<'a>> {
        let (_, payload) = self.record(self.seq(rank)?)?;
        Some(self.decode(payload))
    }
}

/// The symbols whose name equals a query, in name-table order; see
/// [`KsymBlob::lookup_name_all`].
#[derive(Clone, Debug)]
pub struct NameMatches<'a> {
    blob: KsymBlob<'a>,
    ranks: Range<usize>,
}

impl NameMatches<'_> {
    /// The name-order ranks of the matches.
    pub fn ranks(&self) -> Range<usize> {
        self.ranks.clone()
    }
}

impl<'a> Iterator for NameMatches<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        self.blob.symbol_by_rank(self.ranks.next()?)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ranks.size_hint()
    }
}

impl<'a> DoubleEndedIterator for NameMatches<'a> {
    fn next_back(&mut self) -> Option<Entry<'a>> {
        self.blob.symbol_by_rank(self.ranks.next_back()?)
    }
}

impl ExactSizeIterator for NameMatches<'_> {}
impl FusedIterator for NameMatches<'_> {}
