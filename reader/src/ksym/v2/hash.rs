//! The name hash index (spec 4.5): buckets of ranks by the hash of their names, so that a
//! name lookup on names with long shared prefixes compares one name instead of searching.

use core::cmp::Ordering;
use core::ops::Range;

use super::blob::Blob;
use super::header::{hash_start_bits, FINGERPRINT_BITS};
use super::packed::Packed;
use crate::ksym::name_index::{hash_bytes, Hasher};

/// The hash of a name (ksym-bin-v2.md 4.5): 8-byte little-endian words, the last one
/// zero-filled, each mixed in as `h = (h.rotate_left(5) ^ word) · 0x9E3779B97F4A7C15`, then
/// the length as one more word, then murmur3's 64-bit finaliser.
#[inline]
pub fn name_hash(name: &[u8]) -> u64 {
    hash_bytes(name)
}

/// Where a hash points: its bucket and its fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub bucket: usize,
    pub fingerprint: u64,
}

impl<'a> Blob<'a> {
    /// Whether the blob has a name hash index.
    #[inline(always)]
    pub(crate) fn has_name_hash(&self) -> bool {
        self.g.hash_bits != 0
    }

    /// `hash_starts`: 2^b + 1 bucket starts.
    #[inline(always)]
    pub(crate) fn hash_starts(&self) -> Packed<'a> {
        Packed {
            bytes: self.segment(self.g.hash_starts, self.g.hash_entries),
            width: hash_start_bits(self.g.num_syms),
        }
    }

    /// `hash_entries`: `(rank << 8) | fingerprint` per name, by bucket then rank.
    #[inline(always)]
    pub(crate) fn hash_entries(&self) -> Packed<'a> {
        Packed {
            bytes: self.segment(self.g.hash_entries, self.g.end),
            width: self.g.index_bits.wrapping_add(FINGERPRINT_BITS),
        }
    }

    /// The bucket (the hash's top b bits) and fingerprint (the 8 bits below them) of a
    /// hash. Only meaningful when the blob has the index (1 ≤ b ≤ 32).
    #[inline(always)]
    pub(crate) fn slot_of(&self, hash: u64) -> Slot {
        let b = self.g.hash_bits;
        Slot {
            bucket: usize::try_from(hash.wrapping_shr(64u32.wrapping_sub(b))).unwrap_or(0),
            fingerprint: hash.wrapping_shr(56u32.wrapping_sub(b)) & 0xFF,
        }
    }

    /// The entries of `bucket` (clamped to the entries there are).
    #[inline(always)]
    pub(crate) fn bucket_entries(&self, bucket: usize) -> Range<usize> {
        let starts = self.hash_starts();
        let n = self.len() as u64;
        let start = starts.get(bucket).min(n);
        let end = starts.get(bucket.wrapping_add(1)).min(n).max(start);
        usize::try_from(start).unwrap_or(0)..usize::try_from(end).unwrap_or(0)
    }

    /// The first rank whose name equals `query`, through the hash index: the entries of
    /// the query's bucket with its fingerprint, in rank order, each name compared.
    #[inline]
    pub(crate) fn hash_find(&self, query: &[u8]) -> Option<usize> {
        let slot = self.slot_of(name_hash(query));
        let entries = self.hash_entries();
        for e in self.bucket_entries(slot.bucket) {
            let value = entries.get(e);
            if value & 0xFF != slot.fingerprint {
                continue;
            }
            let rank = usize::try_from(value.wrapping_shr(FINGERPRINT_BITS)).ok()?;
            if self.rank_equals(rank, query) {
                return Some(rank);
            }
        }
        None
    }

    /// Whether the name at `rank` equals `query`: a walk from its restart that keeps the
    /// length of the common prefix of the query and the current name, comparing codes only
    /// where an entry shares no more with the previous name than the query does.
    #[inline]
    pub(crate) fn rank_equals(&self, rank: usize, query: &[u8]) -> bool {
        if rank >= self.len() {
            return false;
        }
        let shift = self.g.restart_shift;
        let restart = rank.wrapping_shr(shift);
        let first = restart.wrapping_shl(shift);
        let mut at = self.restart_pos(restart);
        let (mut common, mut equal) = (0usize, false);
        let entries = self.entries();
        for r in first..=rank {
            let Some(head) = entries.head(at) else {
                return false;
            };
            at = head.next();
            if r != first && head.lcp > common as u64 {
                // Shares more with the previous name than the query does: it differs
                // from the query where the previous name did.
                equal = false;
                continue;
            }
            let from = if r == first {
                0
            } else {
                usize::try_from(head.lcp).unwrap_or(usize::MAX)
            };
            let (order, now) = self.compare_codes(&head, query, from);
            common = now;
            equal = order == Ordering::Equal;
        }
        equal
    }

    /// The hash of the name at `rank`, from its decoded bytes (validation).
    pub(crate) fn hash_of_rank(&self, rank: usize) -> u64 {
        let mut hasher = Hasher::new();
        super::name::Name::of_rank(*self, rank).for_each_chunk(|chunk| {
            hasher.write(chunk);
            true
        });
        hasher.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::name_hash;

    #[test]
    fn the_hash_of_the_spec() {
        // ksym-bin-v2.md 4.5's examples.
        assert_eq!(name_hash(b""), 0);
        assert_eq!(name_hash(b"a"), 0xBF8A_C999_76AD_C387);
        assert_eq!(
            name_hash(b"_ZN4core3ptr13drop_in_place"),
            0x6C66_F5C6_F490_1283
        );
    }
}
