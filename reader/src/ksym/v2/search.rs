//! Name → rank (spec 8.2): through the name hash index when the blob has one; otherwise
//! the restart keys narrow the search to one restart, whose front-coded entries are then
//! scanned without decoding the names they skip.

use core::cmp::Ordering;
use core::ops::Range;

use super::blob::Blob;
use crate::partition::partition_points_by;

/// The search key of a query: its first eight bytes, zero-filled, big-endian.
#[inline(always)]
fn key_of(query: &[u8]) -> u64 {
    let mut key = [0u8; 8];
    for (k, b) in key.iter_mut().zip(query) {
        *k = *b;
    }
    u64::from_be_bytes(key)
}

impl<'a> Blob<'a> {
    /// The ranks of the names equal to `query` (empty when there is none).
    #[inline]
    pub(crate) fn equal_names(&self, query: &[u8]) -> Range<usize> {
        let Some(first) = self.find_rank(query) else {
            return 0..0;
        };
        let mut end = first.wrapping_add(1);
        while end < self.len() && self.equals_previous_of_len(end, query) {
            end = end.wrapping_add(1);
        }
        first..end
    }

    /// Whether the name at `rank` equals the name before it, which equals `query`.
    fn equals_previous_of_len(&self, rank: usize, query: &[u8]) -> bool {
        let restart_mask = 1usize.wrapping_shl(self.g.restart_shift).wrapping_sub(1);
        if rank & restart_mask == 0 {
            return self.restart_equals(rank.wrapping_shr(self.g.restart_shift), query);
        }
        // Not a restart: `rank − 1`'s entry is just before, but entries have no back
        // links, so walk from the restart (at most R entries).
        let mut equal = false;
        self.walk_to(rank, |r, _, head| {
            if r == rank {
                equal = head.lcp == query.len() as u64 && head.count == 0;
            }
        });
        equal
    }

    /// The first rank whose name equals `query`, if any.
    #[inline]
    pub(crate) fn find_rank(&self, query: &[u8]) -> Option<usize> {
        if self.has_name_hash() {
            return self.hash_find(query);
        }
        let Some(restart) = self.restart_below(query) else {
            // Every restart is at or above the query: only the first name can equal it.
            return self.restart_equals(0, query).then_some(0);
        };
        let shift = self.g.restart_shift;
        let first = restart.wrapping_shl(shift);
        let end = first
            .saturating_add(1usize.wrapping_shl(shift))
            .min(self.len());
        let entries = self.entries();
        let head = entries.head(self.restart_pos(restart))?;
        let (order, mut common) = self.compare_codes(&head, query, 0);
        if order != Ordering::Less {
            return None; // only in a blob whose keys or order are broken
        }
        let mut at = head.next();
        for rank in first.wrapping_add(1)..end {
            let head = entries.head(at)?;
            at = head.next();
            let (lcp, common64) = (head.lcp, common as u64);
            if lcp > common64 {
                // Shares more with the previous name than the query does: still below.
                continue;
            }
            if lcp < common64 {
                return None;
            }
            let (order, now) = self.compare_codes(&head, query, common);
            match order {
                Ordering::Equal => return Some(rank),
                Ordering::Greater => return None,
                Ordering::Less => common = now,
            }
        }
        // Every name of this restart is below the query: the next restart may be it.
        let next = restart.wrapping_add(1);
        self.restart_equals(next, query).then_some(end)
    }

    /// Whether restart `m`'s name equals `query`.
    fn restart_equals(&self, m: usize, query: &[u8]) -> bool {
        m < self.restarts()
            && self
                .head(self.restart_pos(m))
                .is_some_and(|head| self.compare_codes(&head, query, 0).0 == Ordering::Equal)
    }

    /// The last restart whose name is below `query` (`None`: none is). Keys below the
    /// query's key decide alone; among equal keys the names are compared.
    #[inline]
    fn restart_below(&self, query: &[u8]) -> Option<usize> {
        let restarts = self.restarts();
        let key = key_of(query);
        let [below] = partition_points_by(restarts, &[key], |m, &k| self.restart_key(m) < k);
        let mut last = below.checked_sub(1);
        // Restarts with the query's key: usually none or one, many when names share
        // eight-byte prefixes; binary search them by full comparison.
        let (mut lo, mut hi) = (below, below);
        while hi < restarts && self.restart_key(hi) == key {
            hi = hi.wrapping_add(1);
            if hi.wrapping_sub(lo) > 4 {
                let [equal] = partition_points_by(restarts.wrapping_sub(hi), &[key], |d, &k| {
                    self.restart_key(hi.wrapping_add(d)) <= k
                });
                hi = hi.wrapping_add(equal);
                break;
            }
        }
        // Names sorted between two bounds share with the query at least the shorter of
        // the bounds' common prefixes with it: each probe compares only past that.
        let (mut common_lo, mut common_hi) = (0usize, 0usize);
        while lo < hi {
            let mid = lo.wrapping_add(hi.wrapping_sub(lo) / 2);
            let at = self.restart_pos(mid);
            let skip = common_lo.min(common_hi);
            let (order, common) = self.head(at).map_or((Ordering::Greater, 0), |h| {
                self.compare_codes_skipping(&h, query, 0, skip)
            });
            if order != Ordering::Less {
                hi = mid;
                common_hi = common;
            } else {
                last = Some(mid);
                lo = mid.wrapping_add(1);
                common_lo = common;
            }
        }
        last
    }
}
