//! Name entries (spec 4.4): the header of each entry, walking a restart's entries, and
//! comparing an entry's codes with a query.

use core::cmp::Ordering;

use super::blob::Blob;
use crate::varint::decode_uleb128;

/// The header byte that announces explicit (ULEB128) lcp and count.
pub(crate) const ESCAPE: u8 = 0xFF;

/// One entry of `names`: how much it shares with the previous name, and where its codes
/// are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// Bytes shared with the previous name (as stored; 0 at a restart).
    pub lcp: u64,
    /// Offset of the first code in `names`.
    pub codes: usize,
    /// Number of codes.
    pub count: usize,
}

impl Head {
    /// The offset just past the entry.
    #[inline(always)]
    pub fn next(&self) -> usize {
        self.codes.wrapping_add(self.count)
    }
}

/// The `names` stream and the shapes its one-byte headers index, cut from the blob once
/// for a run of entry reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entries<'a> {
    names: &'a [u8],
    shapes: &'a [u8],
}

impl Entries<'_> {
    /// The entry whose header is at offset `at` of `names`, or `None` when it is not well
    /// formed (a header byte outside the shapes, an escape that is not two ULEB128
    /// values below 2^32, codes past the stream's end).
    #[inline(always)]
    pub fn head(&self, at: usize) -> Option<Head> {
        let names = self.names;
        let h = *names.get(at)?;
        let after = at.wrapping_add(1);
        let (lcp, count, codes) = if h == ESCAPE {
            let (lcp, used) = decode_uleb128(names.get(after..)?)?;
            let at_count = after.wrapping_add(used);
            let (count, used) = decode_uleb128(names.get(at_count..)?)?;
            if lcp > u64::from(u32::MAX) || count > u64::from(u32::MAX) {
                return None;
            }
            (lcp, count, at_count.wrapping_add(used))
        } else {
            // `shapes` holds exactly the S shapes, so a header byte past them reads none.
            let at = usize::from(h).wrapping_mul(2);
            match *self.shapes.get(at..at.wrapping_add(2))? {
                [lcp, count] => (u64::from(lcp), u64::from(count), after),
                _ => return None,
            }
        };
        let count = usize::try_from(count).ok()?;
        let head = Head { lcp, codes, count };
        (head.next() <= names.len() && head.next() >= codes).then_some(head)
    }
}

impl<'a> Blob<'a> {
    /// The entries' stream and shapes.
    #[inline(always)]
    pub(crate) fn entries(&self) -> Entries<'a> {
        let shapes = self.segment(self.g.shapes, self.g.addr_blocks);
        let count = (self.g.num_shapes as usize).wrapping_mul(2);
        Entries {
            names: self.names(),
            shapes: shapes.get(..count).unwrap_or(shapes),
        }
    }

    /// The entry whose header is at offset `at` of `names` ([`Entries::head`]).
    #[inline(always)]
    pub(crate) fn head(&self, at: usize) -> Option<Head> {
        self.entries().head(at)
    }

    /// The codes of an entry.
    #[inline(always)]
    pub(crate) fn codes(&self, head: &Head) -> &'a [u8] {
        self.names()
            .get(head.codes..head.next())
            .unwrap_or_default()
    }

    /// The number of bytes an entry's codes expand to.
    #[inline]
    pub(crate) fn expanded_len(&self, head: &Head) -> u64 {
        let table = self.code_table();
        self.codes(head)
            .iter()
            .map(|&c| table.string(c).len() as u64)
            .fold(0, u64::wrapping_add)
    }

    /// Calls `visit(rank, offset, head)` for the entries from the restart of `rank` up to
    /// `rank` itself, in order, and returns whether all of them were well formed. At most
    /// R entries are visited.
    #[inline]
    pub(crate) fn walk_to(&self, rank: usize, mut visit: impl FnMut(usize, usize, &Head)) -> bool {
        if rank >= self.len() {
            return false;
        }
        let restart = rank.wrapping_shr(self.g.restart_shift);
        let first = restart.wrapping_shl(self.g.restart_shift);
        let mut at = self.restart_pos(restart);
        let entries = self.entries();
        for r in first..=rank {
            let Some(head) = entries.head(at) else {
                return false;
            };
            visit(r, at, &head);
            at = head.next();
        }
        true
    }

    /// Compares the name an entry's codes spell, placed at position `from` of a name
    /// whose first `from` bytes equal `query`'s, with `query`. Returns the order of the
    /// name against the query and the length of their common prefix. The first `skip`
    /// bytes the codes spell are known to equal the query's and are not compared.
    #[inline]
    pub(crate) fn compare_codes(
        &self,
        head: &Head,
        query: &[u8],
        from: usize,
    ) -> (Ordering, usize) {
        self.compare_codes_skipping(head, query, from, 0)
    }

    /// [`compare_codes`](Self::compare_codes) that steps over the first `skip` bytes of
    /// the codes without comparing them (the search knows they equal the query's).
    #[inline]
    pub(crate) fn compare_codes_skipping(
        &self,
        head: &Head,
        query: &[u8],
        from: usize,
        skip: usize,
    ) -> (Ordering, usize) {
        let mut at = from;
        let known = from.saturating_add(skip).min(query.len());
        let table = self.code_table();
        let strings = table.strings;
        for &c in self.codes(head) {
            let (start, piece) = table.at(c);
            let end = at.wrapping_add(piece.len());
            if end <= known {
                at = end;
                continue;
            }
            // Codes are short strings (most of one to eight bytes): a code of at most 8
            // bytes is compared as one word with the query's next 8 bytes (the code
            // table's bytes after the string, and the query's after the code, are masked
            // off); near the end of the query or the table, a byte loop.
            if piece.len() <= 8 {
                let word = |bytes: &[u8], at: usize| {
                    bytes
                        .get(at..at.wrapping_add(8))
                        .and_then(|w| <[u8; 8]>::try_from(w).ok())
                        .map(u64::from_le_bytes)
                };
                if let (Some(ours), Some(theirs)) = (word(strings, start), word(query, at)) {
                    let mask = u64::MAX >> (64usize.wrapping_sub(piece.len().wrapping_mul(8)) & 63);
                    let mask = if piece.is_empty() { 0 } else { mask };
                    let diff = (ours ^ theirs) & mask;
                    if diff == 0 {
                        at = end;
                        continue;
                    }
                    let k = (diff.trailing_zeros() / 8) as usize;
                    let (byte, q) = (piece.get(k).copied(), query.get(at.wrapping_add(k)));
                    return match (byte, q) {
                        (Some(byte), Some(&q)) => (byte.cmp(&q), at.wrapping_add(k)),
                        _ => (Ordering::Greater, at.wrapping_add(k)),
                    };
                }
            }
            for &byte in piece {
                match query.get(at) {
                    Some(&q) if q == byte => at = at.wrapping_add(1),
                    Some(&q) => return (byte.cmp(&q), at),
                    // The query ended inside this code: the name is longer.
                    None => return (Ordering::Greater, at),
                }
            }
        }
        (at.cmp(&query.len()), at)
    }
}
