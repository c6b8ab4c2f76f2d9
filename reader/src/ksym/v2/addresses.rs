//! Addresses, types and the links between the two orders (spec 4.2 and 4.3).

use super::blob::{Blob, BlockData, Firsts};
use crate::partition::{partition_points, partition_points_by};

/// One address of a batch between the block search and the in-block search.
#[derive(Clone, Copy, Debug, Default)]
struct Lane<'a> {
    block: Option<usize>,
    first: u64,
    data: BlockData<'a>,
    relative: u64,
    len: usize,
}

/// Where a stored address falls: the symbols at or below it and their neighbours'
/// addresses, found together so that a lookup reads each block once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Located {
    /// How many symbols have an address at or below the query.
    pub count: usize,
    /// The address of symbol `count − 1` (the last at or below the query).
    pub start: u64,
    /// The address of symbol `count` (the first above), if there is one.
    pub following: Option<u64>,
    /// Whether symbol `count − 2` has the same address as `count − 1` (an alias).
    pub alias_before: bool,
}

impl<'a> Blob<'a> {
    /// The stored address of symbol `index` (address order), or `None` past the end.
    #[inline]
    pub fn address(&self, index: usize) -> Option<u64> {
        if index >= self.len() {
            return None;
        }
        let shift = self.g.addr_block_shift;
        let j = index.wrapping_shr(shift);
        let k = index & 1usize.wrapping_shl(shift).wrapping_sub(1);
        let offset = match k.checked_sub(1) {
            Some(k) => self.first(j).wrapping_add(self.block_data(j).get(k)),
            None => self.first(j),
        };
        Some(self.g.base.wrapping_add(offset))
    }

    /// How many symbols have a stored address at or below `stored` (on a blob whose
    /// addresses are sorted; on any other blob still a count in `0..=len()`).
    #[inline]
    pub(crate) fn count_at_or_below(&self, stored: u64) -> usize {
        self.locate(stored).map_or(0, |l| l.count)
    }

    /// [`Located`] for `stored`, or `None` when no symbol is at or below it.
    #[inline]
    pub(crate) fn locate(&self, stored: u64) -> Option<Located> {
        let [located] = self.locate_each(&[stored]);
        located
    }

    /// [`locate`](Self::locate) of several addresses; the block searches run in lockstep
    /// so that their loads overlap.
    #[inline(always)]
    pub(crate) fn locate_each<const N: usize>(&self, stored: &[u64; N]) -> [Option<Located>; N] {
        let base = self.g.base;
        let mut offsets = [0u64; N];
        for (o, s) in offsets.iter_mut().zip(stored) {
            // Below the base: u64::MAX marks "nothing at or below" (no block passes).
            *o = s.checked_sub(base).unwrap_or(u64::MAX);
        }
        let blocks = match self.firsts() {
            Firsts::Words(firsts) => partition_points(firsts, &offsets, |f, &o| {
                o != u64::MAX && u64::from(f.get()) <= o
            }),
            Firsts::Wide(firsts) => {
                partition_points(firsts, &offsets, |f, &o| o != u64::MAX && f.get() <= o)
            }
        };
        // Every key's block and its data first, then the in-block searches in lockstep:
        // the blocks' cache misses overlap instead of following one another.
        let mut lanes = [Lane::default(); N];
        for ((lane, &o), blocks) in lanes.iter_mut().zip(&offsets).zip(blocks) {
            if let Some(j) = blocks.checked_sub(1) {
                let first = self.first(j);
                *lane = Lane {
                    block: Some(j),
                    first,
                    data: self.block_data(j),
                    relative: o.wrapping_sub(first),
                    len: self.block_len(j).saturating_sub(1),
                };
            }
        }
        let most = 1usize.wrapping_shl(self.g.addr_block_shift).wrapping_sub(1);
        let positions = partition_points_by(most, &lanes, |k, lane| {
            k < lane.len && lane.data.get(k) <= lane.relative
        });
        let mut located = [None; N];
        for ((slot, lane), p) in located.iter_mut().zip(&lanes).zip(positions) {
            *slot = lane.block.map(|j| self.located(j, lane, p));
        }
        located
    }

    /// [`Located`] for a lane whose block is `j` and whose position in it is `p` (the
    /// block's offsets at or below the lane's).
    #[inline(always)]
    fn located(&self, j: usize, lane: &Lane<'a>, p: usize) -> Located {
        let (first, data) = (lane.first, lane.data);
        let at = |k: usize| match k.checked_sub(1) {
            Some(k) => data.get(k),
            None => 0,
        };
        let start = at(p);
        let following = if p < lane.len {
            Some(first.wrapping_add(data.get(p)))
        } else {
            let next = j.wrapping_add(1);
            (next < self.address_blocks()).then(|| self.first(next))
        };
        let alias_before = match p.checked_sub(1) {
            Some(previous) => at(previous) == start,
            // The block's first symbol: its alias would end the previous block.
            None => j.checked_sub(1).is_some_and(|previous| {
                let data = self.block_data(previous);
                let last = self.block_len(previous).saturating_sub(1);
                let end = match last.checked_sub(1) {
                    Some(k) => data.get(k),
                    None => 0,
                };
                self.first(previous).wrapping_add(end) == first
            }),
        };
        let base = self.g.base;
        Located {
            count: j
                .wrapping_shl(self.g.addr_block_shift)
                .wrapping_add(1)
                .wrapping_add(p),
            start: base.wrapping_add(first).wrapping_add(start),
            following: following.map(|f| base.wrapping_add(f)),
            alias_before,
        }
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
