//! Batched lookups: the VA-table searches of several addresses run in lockstep.
//!
//! One search is a chain of dependent loads: each level waits for the previous one, and
//! on a table larger than the nearest cache most of the lookup's time is that wait.
//! Searches for different addresses do not depend on each other, so running [`LANES`] of
//! them level by level issues [`LANES`] independent loads per level, which the processor
//! overlaps. The search's step sizes do not depend on the data, so all lanes share them
//! and each level is branchless per lane. The walk to the covering ranges then runs per
//! address, as in [`LidiaFile::lookup`]; the answers are identical on any file.

use super::tables::VaTable;
use super::{Frames, LidiaFile, Str};
use crate::partition::{in_lanes, partition_points};
use crate::LANES;

impl<'a> LidiaFile<'a> {
    /// Looks up every address of `addrs` and calls `each(i, frames)` with the frames of
    /// `addrs[i]`, in order: the same frames as [`lookup`](Self::lookup) gives, found
    /// faster by searching [`LANES`] addresses at a time.
    pub fn lookup_each(&self, addrs: &[u64], mut each: impl FnMut(usize, Frames<'a>)) {
        self.search_each(addrs, |i, addr, start| {
            each(i, self.frames_from(start, addr))
        });
    }

    /// Calls `each(i, function)` with the innermost function covering `addrs[i]`, in
    /// order: the same answer as [`lookup_function`](Self::lookup_function), with the
    /// searches of [`LANES`] addresses at a time overlapped.
    pub fn lookup_function_each(
        &self,
        addrs: &[u64],
        mut each: impl FnMut(usize, Option<Str<'a>>),
    ) {
        self.search_each(addrs, |i, addr, start| {
            each(i, start.and_then(|s| self.function_from(s, addr)));
        });
    }

    /// Calls `found(i, addrs[i], last range at or below addrs[i])` for every address.
    #[inline]
    fn search_each(&self, addrs: &[u64], mut found: impl FnMut(usize, u64, Option<usize>)) {
        let search = |keys: &[u64; LANES]| {
            let counts = match self.vas {
                VaTable::Narrow(v) => partition_points(v, keys, |x, &k| u64::from(x.get()) <= k),
                VaTable::Wide(v) => partition_points(v, keys, |x, &k| x.get() <= k),
            };
            // Read each lane's first range entry before any walk starts, so that those
            // misses overlap too; the walks then find the entries in cache.
            let touched = counts.iter().fold(0u64, |acc, &count| {
                let entry = count.checked_sub(1).and_then(|i| self.ranges.func(i));
                acc.wrapping_add(entry.unwrap_or(0))
            });
            core::hint::black_box(touched);
            counts
        };
        in_lanes(
            addrs,
            |addr| addr,
            search,
            |i, addr, count| {
                found(i, addr, count.checked_sub(1));
            },
        );
    }
}
