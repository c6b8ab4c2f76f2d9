//! Addresses, types and the links between the two orders (spec 4.2 and 4.3).

use super::blob::Blob;
use crate::partition::partition_points_by;

impl<'a> Blob<'a> {
    /// The stored address of symbol `index` (address order), or `None` past the end.
    #[inline]
    pub fn address(&self, index: usize) -> Option<u64> {
        if index >= self.len() {
            return None;
        }
        let shift = self.g.addr_block_shift;
        let record = self.block(index.wrapping_shr(shift));
        let k = index & 1usize.wrapping_shl(shift).wrapping_sub(1);
        let offset = match k.checked_sub(1) {
            Some(k) => record.first.wrapping_add(self.in_block(&record, k)),
            None => record.first,
        };
        Some(self.g.base.wrapping_add(offset))
    }

    /// How many symbols have a stored address at or below `stored` (on a blob whose
    /// addresses are sorted; on any other blob still a count in `0..=len()`).
    #[inline]
    pub(crate) fn count_at_or_below(&self, stored: u64) -> usize {
        let [count] = self.counts_at_or_below(&[stored]);
        count
    }

    /// [`count_at_or_below`](Self::count_at_or_below) of several addresses, searched in
    /// lockstep so that their loads overlap.
    #[inline(always)]
    pub(crate) fn counts_at_or_below<const N: usize>(&self, stored: &[u64; N]) -> [usize; N] {
        let base = self.g.base;
        let mut offsets = [0u64; N];
        for (o, s) in offsets.iter_mut().zip(stored) {
            // Below the base: u64::MAX marks "nothing at or below".
            *o = s.checked_sub(base).unwrap_or(u64::MAX);
        }
        let blocks = partition_points_by(self.address_blocks(), &offsets, |j, &o| {
            o != u64::MAX && self.block(j).first <= o
        });
        let mut counts = [0usize; N];
        for ((count, &o), blocks) in counts.iter_mut().zip(&offsets).zip(blocks) {
            let Some(j) = blocks.checked_sub(1) else {
                continue;
            };
            let record = self.block(j);
            let relative = o.wrapping_sub(record.first);
            let in_block = self.block_len(j).saturating_sub(1);
            let [after_first] = partition_points_by(in_block, &[relative], |k, &r| {
                self.in_block(&record, k) <= r
            });
            *count = j
                .wrapping_shl(self.g.addr_block_shift)
                .wrapping_add(1)
                .wrapping_add(after_first);
        }
        counts
    }

    /// The type index and group of symbol `index` (`a2n`).
    #[inline(always)]
    fn a2n_fields(&self, index: usize) -> (usize, usize) {
        let value = self.a2n().get(index);
        let type_mask = 1u64.wrapping_shl(self.g.type_bits).wrapping_sub(1);
        let group = usize::try_from(value.wrapping_shr(self.g.type_bits)).unwrap_or(usize::MAX);
        let kind = usize::try_from(value & type_mask).unwrap_or(usize::MAX);
        (kind, group)
    }

    /// The type byte of symbol `index` (`?` for an index past the type table, which only
    /// an invalid blob has).
    #[inline]
    pub fn kind(&self, index: usize) -> u8 {
        let (kind, _) = self.a2n_fields(index);
        self.types().get(kind).copied().unwrap_or(b'?')
    }

    /// The rank in name order of symbol `index`: its group's entries of `n2a` are scanned
    /// for it (spec 4.3). `None` past the end or when the group does not hold it.
    #[inline]
    pub fn rank_of(&self, index: usize) -> Option<usize> {
        if index >= self.len() {
            return None;
        }
        let (_, group) = self.a2n_fields(index);
        let first = group.checked_shl(self.g.group_shift)?;
        let end = first
            .saturating_add(1usize.wrapping_shl(self.g.group_shift))
            .min(self.len());
        let n2a = self.n2a();
        let wanted = index as u64;
        (first..end).find(|&rank| n2a.get(rank) == wanted)
    }

    /// The address-order index of the name at `rank` (`n2a`), or `None` past the end.
    #[inline]
    pub fn index_of_rank(&self, rank: usize) -> Option<usize> {
        if rank >= self.len() {
            return None;
        }
        usize::try_from(self.n2a().get(rank)).ok()
    }
}
