//! Batched lookups through a [`LookupIndex`]: a batch of addresses answered in address
//! order.
//!
//! The addresses of a profile or of a store of crash reports come in no useful order, and
//! one lookup after another jumps across the file: on a file larger than the caches each
//! lookup waits in turn for the address table, the FunctionInfo record, the index's words
//! and the strings. [`LookupIndex::lookup_each`] sorts the addresses first, in memory the
//! caller provides, so that lookups of nearby addresses read bytes the previous lookup
//! brought in, and the lookups of one function find its chunks once.

use super::lookup::{LineStop, Located};
use super::{Lookup, LookupIndex};
use crate::Error;

/// The most addresses sorted together: their positions take the low 24 bits of a sort
/// key, the address (relative to the file's base) the 40 bits above.
const MAX_PIECE: usize = 1 << 24;

impl<'a> LookupIndex<'a, '_> {
    /// Looks up every address of `addrs`, calling `each(i, answer)` exactly once for every
    /// position `i`, with the answer [`lookup`](Self::lookup) gives for `addrs[i]` (the
    /// same function, row, frames and errors; the lookup lent, not copied).
    ///
    /// The calls come in address order, not in the order of `addrs`: the addresses are
    /// sorted in `order`, which the caller provides as scratch, in pieces of
    /// `order.len()` addresses (at most 2²⁴). A larger `order` gives more lookups near
    /// each other; with fewer than two words the addresses are looked up in the order
    /// given. Addresses more than 2⁴⁰ bytes above the file's base address are sorted
    /// among themselves by position only (their answers do not change).
    ///
    /// Cost: the sort, O(n log n) on the words, then the lookups, where an address in
    /// the function of the address before it skips reading the function's record.
    pub fn lookup_each(
        &self,
        addrs: &[u64],
        order: &mut [u64],
        mut each: impl FnMut(usize, Result<Option<&Lookup<'a>>, Error>),
    ) {
        let mut batch = Batch {
            index: self,
            lookup: Lookup::empty(self.file()),
            last: None,
            line: None,
        };
        let piece = order.len().clamp(1, MAX_PIECE);
        let base = self.file().header.base_address;
        for (n, chunk) in addrs.chunks(piece).enumerate() {
            let first = n.wrapping_mul(piece);
            let keys = order.get_mut(..chunk.len()).filter(|keys| keys.len() >= 2);
            let Some(keys) = keys else {
                for (i, &addr) in chunk.iter().enumerate() {
                    batch.one(first.wrapping_add(i), addr, &mut each);
                }
                continue;
            };
            // Positions below `keys.len()` fit in `bits` bits.
            let bits = usize::BITS.wrapping_sub(keys.len().wrapping_sub(1).leading_zeros());
            let highest = u64::MAX >> bits;
            let position_mask = !(highest << bits);
            for (key, (i, &addr)) in keys.iter_mut().zip(chunk.iter().enumerate()) {
                let relative = addr.saturating_sub(base).min(highest);
                *key = relative << bits | i as u64;
            }
            keys.sort_unstable();
            for &key in keys.iter() {
                let i = usize::try_from(key & position_mask).unwrap_or(usize::MAX);
                // The address is in the key unless it was cut to 0 or `highest`; reading
                // it from `chunk` instead would be a cache miss per address.
                let addr = match key >> bits {
                    r if r == 0 || r == highest => chunk.get(i).copied(),
                    r => Some(base.wrapping_add(r)),
                };
                if let Some(addr) = addr {
                    batch.one(first.wrapping_add(i), addr, &mut each);
                }
            }
        }
    }
}

/// The state a batch keeps from one lookup to the next.
struct Batch<'i, 'a, 'b> {
    index: &'i LookupIndex<'a, 'b>,
    /// The answer, filled in place for each address.
    lookup: Lookup<'a>,
    /// The function of the last lookup, with its chunks.
    last: Option<Located<'a>>,
    /// Where the last lookup left its function's line program, and the function.
    line: Option<(usize, LineStop)>,
}

impl<'a> Batch<'_, 'a, '_> {
    /// Looks up `addr` (position `i`) as [`LookupIndex::lookup`] does, and calls `each`.
    fn one(
        &mut self,
        i: usize,
        addr: u64,
        each: &mut impl FnMut(usize, Result<Option<&Lookup<'a>>, Error>),
    ) {
        match self.answer(addr) {
            Ok(true) => each(i, Ok(Some(&self.lookup))),
            Ok(false) => each(i, Ok(None)),
            Err(e) => each(i, Err(e)),
        }
    }

    /// Fills `self.lookup` for `addr`: `Ok(false)` when no function covers it.
    fn answer(&mut self, addr: u64) -> Result<bool, Error> {
        let (index, file) = (self.index, self.index.file());
        // The same steps and checks as `GsymFile::lookup`, in the same order; a function
        // found again is not read again.
        // On a sorted table the function is searched from the last one: the same
        // function, or one a few entries on.
        let found = match self.last.filter(|_| index.sorted) {
            Some(last) => file.select_after(last.function.index, addr),
            None => file.select(addr),
        };
        let Some(position) = found else {
            return Ok(false);
        };
        let located = match self.last {
            Some(last) if last.function.index == position => last,
            _ => {
                let function = file.function(position)?;
                if !function.covers(addr) {
                    return Ok(false);
                }
                let located = file.locate(function)?;
                self.last = Some(located);
                located
            }
        };
        if !located.function.covers(addr) {
            return Ok(false);
        }
        // The program resumes after the last lookup's row when that row starts below
        // `addr` and lies past the checkpoint (in a table the index holds: in order).
        let line = self.line;
        let resume = |function: &super::Function<'a>, chunk: u64| {
            let checkpoint = index.checkpoint_below(function, chunk, addr);
            let previous = line
                .filter(|(f, stop)| {
                    *f == function.index
                        && stop.chunk == chunk
                        && stop.row.address < addr
                        && index.holds_line_table(function, chunk)
                })
                .map(|(_, stop)| (stop.at, stop.row));
            match (checkpoint, previous) {
                (Some(c), Some(p)) => Some(if p.0 > c.0 { p } else { c }),
                (c, p) => c.or(p),
            }
        };
        let stop = file.answer(
            &located,
            addr,
            &mut self.lookup,
            resume,
            |function, chunk| index.subtrees(function, chunk),
        )?;
        self.line = stop.map(|stop| (located.function.index, stop));
        Ok(true)
    }
}
