//! Name → address (spec D11): a lower-bound binary search over `seqs` in name order.
//!
//! The search works on a half-open interval, so no index ever goes below zero (the origin
//! underflowed on queries that sort first). Each probe compares the query with the stored
//! name piece by piece (token, then rest) without decoding into a buffer.

use core::cmp::Ordering;
use core::ops::Range;

use super::iter::{entry_iterator, Entry};
use super::name::{compare, Name};
use super::parse::KsymBlob;
use super::raw::TOKEN_MARKER;
use super::search;

impl<'a> KsymBlob<'a> {
    /// The lowest stored address among the symbols named exactly `name`, or `None`.
    ///
    /// Nothing is normalised: no demangling, no suffix stripping, no type letter. Equal
    /// names are scanned, so the answer is the lowest address even in blobs whose name table
    /// does not order equal names by address.
    pub fn lookup_name(&self, name: impl AsRef<[u8]>) -> Option<u64> {
        // Only the addresses of the matches are read: no entry is built.
        let matches = self.equal_names(name.as_ref());
        matches
            .filter_map(|rank| self.address(self.seq(rank)?))
            .min()
    }

    /// Every symbol named exactly `name`, in name-table order (for callers that prefer a
    /// global `T` over a local `t` symbol).
    pub fn lookup_name_all(&self, name: impl AsRef<[u8]>) -> NameMatches<'a> {
        NameMatches {
            blob: *self,
            ranks: self.equal_names(name.as_ref()),
        }
    }

    /// The ranks of the names equal to `query`: from the first rank whose name is not
    /// less, the run of equal names (in a sorted table it is contiguous).
    #[inline]
    fn equal_names(&self, query: &[u8]) -> Range<usize> {
        let first = self.lower_bound(query);
        let mut end = first;
        while self.name_at_rank(end).is_some_and(|n| n == *query) {
            end = end.wrapping_add(1);
        }
        first..end
    }

    /// The first rank whose name is not less than `query` (or `len()`): a K-ary search
    /// (see `search`), so that the records of several probes are fetched at once. A
    /// probe's record is fetched with the others of its round, but decoded only when it
    /// is compared (a round stops comparing at the first name not below the query).
    #[inline]
    fn lower_bound(&self, query: &[u8]) -> usize {
        let fetch = |rank| self.payload_at_rank(rank).unwrap_or_default();
        if self.token_index.is_empty() {
            // No tokens: a payload is the name itself unless it starts with a marker
            // (which then refers to no token, as `decode` reads it).
            return search::partition_point(0..self.seqs.len(), fetch, |&payload: &&[u8]| {
                let order = match payload.first() {
                    Some(&TOKEN_MARKER) => self.decode(payload).cmp_bytes(query),
                    _ => compare(payload, query),
                };
                order == Ordering::Less
            });
        }
        search::partition_point(0..self.seqs.len(), fetch, |&payload| {
            self.decode(payload).cmp_bytes(query) == Ordering::Less
        })
    }

    /// The record payload at name-order rank `rank`.
    #[inline]
    fn payload_at_rank(&self, rank: usize) -> Option<&'a [u8]> {
        Some(self.record(self.seq(rank)?)?.1)
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

entry_iterator!(NameMatches, ranks, symbol_by_rank);
