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
    loop {
        let size = hi.saturating_sub(lo);
        if size <= FANOUT {
            break;
        }
        let step = size / FANOUT;
        // Probe lo + j·step for j = 1..FANOUT; all below hi because step·(FANOUT−1) < size.
        let base = lo;
        let at = |j: usize| base.saturating_add(j.saturating_mul(step));
        for (j, slot) in (1..FANOUT).zip(probes.iter_mut()) {
            *slot = fetch(at(j));
        }
        let below = probes
            .iter()
            .take(FANOUT.saturating_sub(1))
            .take_while(|v| pred(v))
            .count();
        // pred holds at probe `below` (1-based) and fails at probe `below + 1`.
        if below > 0 {
            lo = at(below).saturating_add(1);
        }
        if below < FANOUT.saturating_sub(1) {
            hi = at(below.saturating_add(1));
        }
    }
    // At most FANOUT candidates left: fetch them all, then scan.
    let size = hi.saturating_sub(lo);
    for (i, slot) in (lo..hi).zip(probes.iter_mut()) {
        *slot = fetch(i);
    }
    let below = probes.iter().take(size).take_while(|v| pred(v)).count();
    lo.saturating_add(below)
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

    #[test]
    fn unsorted_input_stays_in_bounds() {
        let table = [5u32, 1, 9, 0, 3, 8, 2, 7, 6, 4, 11, 10, 13, 12];
        for q in 0..15 {
            assert!(partition_point(0..table.len(), |i| table[i], |&v| v < q) <= table.len());
        }
    }
}
