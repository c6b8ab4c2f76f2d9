//! Addresses, types and the links between the two orders (spec 4.2 and 4.3).

use super::blob::{Blob, Firsts};
use super::packed::Packed;
use crate::partition::partition_points_ways;

/// One block of the address table as a lookup reads it: its first offset and its packed
/// in-block offsets.
#[derive(Clone, Copy, Debug, Default)]
struct Block<'a> {
    first: u64,
    data: Packed<'a>,
    /// In-block offsets: the block's symbols but its first.
    offsets: usize,
}

impl Block<'_> {
    /// In-block position of `k` (0 is the block's first symbol, at offset 0).
    #[inline(always)]
    fn at(&self, k: usize) -> u64 {
        match k.checked_sub(1) {
            Some(k) => self.data.get(k),
            None => 0,
        }
    }
}

/// The searches of the address table: `W − 1` pivots a step for one address alone, three
/// for a batch. One lookup waits on each step's chain of arithmetic, so fewer, wider steps
/// shorten it; a batch keeps the core busy with its other lanes, so fewer comparisons in
/// all pay more. (`N` is a constant: one branch remains.)
#[inline(always)]
fn search<K, const N: usize, const W: usize>(
    len: usize,
    keys: &[K; N],
    holds: impl Fn(usize, &K) -> bool,
) -> [usize; N] {
    if N == 1 {
        partition_points_ways::<W, K, N>(len, keys, holds)
    } else {
        partition_points_ways::<4, K, N>(len, keys, holds)
    }
}

/// Ways of a step among the first offsets, for one address (the kernel's 1,452 blocks:
/// three steps of seven pivots and a last three).
const FIRST_WAYS: usize = 8;
/// Ways of a step inside a block, for one address: its 31 offsets take two steps of five
/// pivots and one last probe (eleven probes), where seven a step took 17 in three steps
/// and was 10 % slower (measured beside 4, 5, 7 and 8).
const BLOCK_WAYS: usize = 6;

/// One address of a batch between the block search and the in-block search.
#[derive(Clone, Copy, Debug, Default)]
struct Lane<'a> {
    j: Option<usize>,
    block: Block<'a>,
    /// The query's offset from the block's first.
    relative: u64,
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
    /// The index of the first symbol at `start` (the first of its aliases), when it is
    /// known from the block the lookup read; `None` when the aliases reach into the
    /// previous block (a second search finds the first).
    pub first: Option<usize>,
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
    ///
    /// Out of line: only an alias group that reaches into the block before needs this
    /// second search; inlined, it put a second copy of the search in every lookup.
    #[cold]
    #[inline(never)]
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
        // Below the base nothing is at or below: such a lane searches for 0 and is
        // answered `None` at the end, so the probes need no test of their own for it.
        let mut below = [false; N];
        for ((o, b), s) in offsets.iter_mut().zip(&mut below).zip(stored) {
            *b = *s < base;
            *o = s.checked_sub(base).unwrap_or(0);
        }
        let counts = match self.firsts() {
            Firsts::Words(firsts) => {
                // Compared as 32-bit words: an offset past 2^32 − 1 is above every word,
                // as `u32::MAX` is at or above every word.
                let mut keys = [0u32; N];
                for (k, &o) in keys.iter_mut().zip(&offsets) {
                    *k = u32::try_from(o).unwrap_or(u32::MAX);
                }
                search::<_, N, FIRST_WAYS>(firsts.len(), &keys, |j, &k| {
                    firsts.get(j).is_some_and(|f| f.get() <= k)
                })
            }
            Firsts::Wide(firsts) => search::<_, N, FIRST_WAYS>(firsts.len(), &offsets, |j, &o| {
                firsts.get(j).is_some_and(|f| f.get() <= o)
            }),
        };
        // Every key's block and its data first, then the in-block searches in lockstep:
        // the blocks' cache misses overlap instead of following one another.
        let mut lanes = [Lane::default(); N];
        for ((lane, count), &o) in lanes.iter_mut().zip(counts).zip(&offsets) {
            if let Some(j) = count.checked_sub(1) {
                let block = self.block(j);
                *lane = Lane {
                    j: Some(j),
                    relative: o.wrapping_sub(block.first),
                    block,
                };
            }
        }
        let most = 1usize.wrapping_shl(self.g.addr_block_shift).wrapping_sub(1);
        let positions = search::<_, N, BLOCK_WAYS>(most, &lanes, |k, lane| {
            k < lane.block.offsets && lane.block.data.get(k) <= lane.relative
        });
        let mut located = [None; N];
        for (((slot, lane), p), &b) in located.iter_mut().zip(&lanes).zip(positions).zip(&below) {
            if !b {
                *slot = lane.j.map(|j| self.located(j, &lane.block, p));
            }
        }
        located
    }

    /// Block `j` of the address table.
    #[inline(always)]
    fn block(&self, j: usize) -> Block<'a> {
        Block {
            first: self.first(j),
            data: self.block_data(j),
            offsets: self.block_len(j).saturating_sub(1),
        }
    }

    /// [`Located`] for position `p` of block `j` (`p` of its offsets are at or below the
    /// query).
    #[inline(always)]
    fn located(&self, j: usize, block: &Block<'a>, p: usize) -> Located {
        let start = block.at(p);
        let following = if p < block.offsets {
            Some(block.first.wrapping_add(block.data.get(p)))
        } else {
            let next = j.wrapping_add(1);
            (next < self.address_blocks()).then(|| self.first(next))
        };
        let block_start = j.wrapping_shl(self.g.addr_block_shift);
        // Aliases are a few symbols: walk back inside the block to the first of them.
        let mut q = p;
        while let Some(before) = q.checked_sub(1) {
            if block.at(before) != start {
                break;
            }
            q = before;
        }
        // At the block's first symbol, an alias would end the previous block.
        let reaches_back = q == 0
            && j.checked_sub(1).is_some_and(|previous| {
                let previous = self.block(previous);
                previous.first.wrapping_add(previous.at(previous.offsets)) == block.first
            });
        let base = self.g.base;
        Located {
            count: block_start.wrapping_add(1).wrapping_add(p),
            start: base.wrapping_add(block.first).wrapping_add(start),
            following: following.map(|f| base.wrapping_add(f)),
            first: (!reaches_back).then_some(block_start.wrapping_add(q)),
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
