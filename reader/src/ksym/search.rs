//! A K-ary partition-point search that overlaps memory accesses.
//!
//! A binary search over a table that does not fit in the nearest caches waits for one
//! memory access per level, and for names that is a chain of three (seqs → offsets →
//! record). This search probes K − 1 evenly spaced positions per round: their loads do not
//! depend on each other, so the processor fetches them in parallel, and a round narrows the
//! interval K-fold. All probes of a round are fetched before any is compared, which is what
//! lets the loads overlap. The layout of the blob is unchanged.
//!
//! Stack use is one array of K − 1 fetched values; there is no recursion.

/// Probes per round plus one: each round narrows the interval by this factor.
pub(crate) const FANOUT: usize = 4;

/// The first index in `range` at which `pred(fetch(i))` is false, assuming `pred` holds on
/// a prefix of the range (on other inputs: some index in `range.start..=range.end`, never a
/// panic).
///
/// `fetch` should only load (it is called for several indices before `pred` looks at any
/// of them); `pred` does the comparison.
#[inline]
pub(crate) fn partition_point<T: Copy + Default>(
    range: core::ops::Range<usize>,
    fetch: impl Fn(usize) -> T,
    pred: impl Fn(&T) -> bool,
) -> usize {
    // Invariant: the answer lies in [lo, hi].
    let mut lo = range.start;
    let mut hi = range.end;
    let mut probes = [T::default(); FANOUT];
    while let Some(round) = Round::new(lo, hi) {
        for (j, slot) in (1..FANOUT).zip(probes.iter_mut()) {
            *slot = fetch(round.probe(j));
        }
        let below = probes
            .iter()
            .take(FANOUT.saturating_sub(1))
            .take_while(|v| pred(v))
            .count();
        (lo, hi) = round.narrow(lo, hi, below);
    }
    // At most FANOUT candidates left: fetch them all, then scan.
    let size = hi.saturating_sub(lo);
    for (i, slot) in (lo..hi).zip(probes.iter_mut()) {
        *slot = fetch(i);
    }
    let below = probes.iter().take(size).take_while(|v| pred(v)).count();
    lo.saturating_add(below)
}

/// One round of the K-ary search over `[lo, hi]`: its probes, and the interval that
/// follows from how many of them satisfied the predicate. Shared by the search and by
/// [`name_probe_ranks`], so that the two cannot disagree.
#[derive(Clone, Copy)]
struct Round {
    base: usize,
    step: usize,
}

impl Round {
    /// The round over `[lo, hi]`, or `None` when at most `FANOUT` candidates are left
    /// (they are then fetched and scanned in one go).
    #[inline]
    fn new(lo: usize, hi: usize) -> Option<Round> {
        let size = hi.saturating_sub(lo);
        (size > FANOUT).then_some(Round {
            base: lo,
            step: size / FANOUT,
        })
    }

    /// Probe `j` (1-based, below `FANOUT`): `lo + j·step`, below `hi` because
    /// `step·(FANOUT − 1) < size`.
    #[inline]
    fn probe(self, j: usize) -> usize {
        self.base.saturating_add(j.saturating_mul(self.step))
    }

    /// The interval after the round, given that the predicate held on the first `below`
    /// probes and failed on the next one.
    #[inline]
    fn narrow(self, mut lo: usize, mut hi: usize, below: usize) -> (usize, usize) {
        if below > 0 {
            lo = self.probe(below).saturating_add(1);
        }
        if below < FANOUT.saturating_sub(1) {
            hi = self.probe(below.saturating_add(1));
        }
        (lo, hi)
    }
}

/// The deepest round [`name_probe_ranks`] follows. Its first 12 rounds hold 4^12 − 1
/// (16.8 million) ranks, more names than storing whole could be worth; the bound keeps
/// the walk's stack a fixed array.
pub const MAX_PROBE_ROUNDS: usize = 12;

/// Calls `visit(rank, round)` for every name-order rank that
/// [`KsymBlob::lookup_name`](super::KsymBlob::lookup_name) may compare in one of its first
/// `rounds` search rounds (round 1 first; `rounds` is capped at [`MAX_PROBE_ROUNDS`]),
/// over a table of `len` names. A rank is visited once, at the earliest round it can be
/// compared in.
///
/// Every lookup compares a name from each of these rounds, whatever the query, so they
/// are the names most worth storing without a token: a builder that keeps them whole
/// speeds up every name lookup for a few bytes. The blob stays an ordinary ksym-bin blob.
pub fn name_probe_ranks(len: usize, rounds: usize, mut visit: impl FnMut(usize, usize)) {
    // Depth-first over the search tree with an explicit stack: each entry is an interval
    // and the round that searches it. A round pushes at most FANOUT intervals.
    let rounds = rounds.min(MAX_PROBE_ROUNDS);
    let mut stack = [(0usize, 0usize, 0usize); MAX_PROBE_ROUNDS * FANOUT];
    let mut depth = 0usize;
    if let Some(slot) = stack.get_mut(depth) {
        *slot = (0, len, 1);
        depth = 1;
    }
    while let Some(&(lo, hi, round)) = depth.checked_sub(1).and_then(|d| stack.get(d)) {
        depth = depth.saturating_sub(1);
        if round > rounds {
            continue;
        }
        let Some(step) = Round::new(lo, hi) else {
            continue;
        };
        for j in 1..FANOUT {
            visit(step.probe(j), round);
        }
        for below in 0..FANOUT {
            let (next_lo, next_hi) = step.narrow(lo, hi, below);
            if let Some(slot) = stack.get_mut(depth) {
                *slot = (next_lo, next_hi, round.saturating_add(1));
                depth = depth.saturating_add(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_slice_partition_point() {
        let mut values = [0u32; 300];
        for (i, v) in values.iter_mut().enumerate() {
            *v = (i as u32 * 7) / 3;
        }
        for len in 0..values.len() {
            let table = &values[..len];
            for q in 0..=(table.last().copied().unwrap_or(0) + 2) {
                let got = partition_point(0..len, |i| table[i], |&v| v <= q);
                assert_eq!(got, table.partition_point(|&v| v <= q), "len {len} q {q}");
                let got = partition_point(0..len, |i| table[i], |&v| v < q);
                assert_eq!(got, table.partition_point(|&v| v < q), "len {len} q {q}");
            }
        }
    }

    /// The ranks `name_probe_ranks` lists are exactly those the search fetches, round by
    /// round, over all queries.
    #[test]
    fn probe_ranks_are_what_the_search_fetches() {
        extern crate std;
        use core::cell::RefCell;
        use std::collections::BTreeSet;
        use std::vec::Vec;
        for len in [0usize, 1, 4, 5, 6, 17, 64, 100, 255, 256, 257, 1000, 4097] {
            let rounds = 4;
            let (mut listed, mut with_round) = (BTreeSet::new(), BTreeSet::new());
            name_probe_ranks(len, rounds, |rank, round| {
                assert!(listed.insert(rank), "len {len}: rank {rank} listed twice");
                assert!(rank < len && (1..=rounds).contains(&round));
                with_round.insert((rank, round));
            });
            // Fetches of the rounds, per query. A query's fetches are 3 per round and then
            // at most 4; only the rounds that count proves are taken.
            let mut fetched = BTreeSet::new();
            let mut fewest_rounds = usize::MAX;
            for q in 0..=len {
                let log = RefCell::new(Vec::new());
                partition_point(
                    0..len,
                    |i| {
                        log.borrow_mut().push(i);
                        i
                    },
                    |&i| i < q,
                );
                let log = log.into_inner();
                let proven = log.len().saturating_sub(4).div_ceil(FANOUT - 1);
                fewest_rounds = fewest_rounds.min(proven);
                for (n, &rank) in log.iter().take(proven * (FANOUT - 1)).enumerate() {
                    let round = n / (FANOUT - 1) + 1;
                    if round <= rounds {
                        assert!(
                            with_round.contains(&(rank, round)),
                            "len {len} q {q}: fetched {rank} in round {round}, not listed"
                        );
                        fetched.insert((rank, round));
                    }
                }
            }
            let upto = fewest_rounds.min(rounds);
            let expected: BTreeSet<_> =
                with_round.iter().filter(|e| e.1 <= upto).copied().collect();
            let got: BTreeSet<_> = fetched.iter().filter(|e| e.1 <= upto).copied().collect();
            assert_eq!(got, expected, "len {len}");
            if len >= 4097 {
                assert_eq!(upto, rounds, "len {len}: the check must cover every round");
                assert_eq!(listed.len(), 4usize.pow(rounds as u32) - 1);
            }
        }
    }

    #[test]
    fn unsorted_input_stays_in_bounds() {
        let table = [5u32, 1, 9, 0, 3, 8, 2, 7, 6, 4, 11, 10, 13, 12];
        for q in 0..15 {
            assert!(partition_point(0..table.len(), |i| table[i], |&v| v < q) <= table.len());
        }
    }
}
