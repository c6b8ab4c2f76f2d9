//! A branchless four-way partition-point search for the address tables.
//!
//! A bisection waits for one load per level before it knows where to look next; core's
//! `partition_point` is branchless (its only data-dependent choice is a conditional move),
//! but its chain of dependent loads is still log2 N long, and the lower levels miss the
//! cache on large tables. A textbook bisection with branches, like Go's `sort.Search`,
//! also mispredicts at about every other level. Here each step loads three pivots that do
//! not depend on each other, so the processor fetches them in parallel, and keeps the
//! quarter their comparisons select: half as many dependent steps, still without a
//! data-dependent branch. The batched lookups run [`LANES`] such searches in lockstep
//! ([`partition_points`], [`in_lanes`]), so that the misses of different addresses overlap.

/// Addresses the batched lookups search together: enough independent loads to keep a
/// core's miss handling busy, few enough that the lane state stays in registers and on a
/// short stack.
pub const LANES: usize = 8;

/// The number of leading entries of `table` for which `pred` holds, assuming it holds on a
/// prefix (a sorted table): the same answer as `<[T]>::partition_point`. On any other
/// table the answer is still in `0..=table.len()`, after O(log N) steps.
#[inline(always)]
pub(crate) fn partition_point<T>(table: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let [count] = partition_points(table, &[()], |v, ()| pred(v));
    count
}

/// [`partition_point`] for several keys at once, in lockstep: the step sizes do not
/// depend on the data, so every level issues one independent set of pivot loads per key
/// and the searches' memory waits overlap. Each answer equals what [`partition_point`]
/// gives for that key alone, on any table.
#[inline(always)]
pub(crate) fn partition_points<T, K, const N: usize>(
    table: &[T],
    keys: &[K; N],
    pred: impl Fn(&T, &K) -> bool,
) -> [usize; N] {
    partition_points_by(table.len(), keys, |i, key| {
        table.get(i).is_some_and(|v| pred(v, key))
    })
}

/// [`partition_points`] over `len` entries reached through `holds(i, key)` (whether entry
/// `i` passes for `key`), for tables that are not slices, such as bit-packed arrays.
#[inline(always)]
pub(crate) fn partition_points_by<K, const N: usize>(
    len: usize,
    keys: &[K; N],
    holds: impl Fn(usize, &K) -> bool,
) -> [usize; N] {
    partition_points_ways::<4, K, N>(len, keys, holds)
}

/// [`partition_points_by`] with `W − 1` pivots a step instead of three (`W ≥ 2`): fewer
/// dependent steps for more comparisons each, which pays on small tables already in the
/// cache, where a step's cost is its chain of arithmetic rather than its loads.
#[inline(always)]
pub(crate) fn partition_points_ways<const W: usize, K, const N: usize>(
    len: usize,
    keys: &[K; N],
    holds: impl Fn(usize, &K) -> bool,
) -> [usize; N] {
    const { assert!(W >= 2, "a step needs at least one pivot") };
    let holds = |i: usize, key: &K| usize::from(holds(i, key));
    // Invariant (on a sorted table): each key's answer lies in [base, base + size].
    let mut bases = [0usize; N];
    let mut size = len;
    while size >= W {
        // W ≥ 2 (checked when compiled), so the step is at least 1.
        let step = size.checked_div(W).unwrap_or(1);
        for (base, key) in bases.iter_mut().zip(keys) {
            let passed = (1..W).fold(0usize, |passed, i| {
                passed.wrapping_add(holds(base.wrapping_add(i.wrapping_mul(step)), key))
            });
            // The pivots that pass form a prefix: keep the stretch after the last of them
            // (the last stretch also takes the remainder of the division).
            *base = base.wrapping_add(passed.wrapping_mul(step));
        }
        size = size.wrapping_sub(step.wrapping_mul(W.wrapping_sub(1)));
    }
    // Fewer than W entries are left: the answer is `base` plus how many of them pass.
    for (base, key) in bases.iter_mut().zip(keys) {
        let start = *base;
        *base = (0..size).fold(start, |count, i| {
            count.wrapping_add(holds(start.wrapping_add(i), key))
        });
    }
    bases
}

/// Runs a batch of lookups [`LANES`] at a time: `search` gets the keys of up to [`LANES`]
/// addresses (`key(addr)`; unused lanes hold `key(0)`) and answers one position per lane,
/// then `each(i, addrs[i], position)` is called for the chunk's addresses in order.
#[inline(always)]
pub(crate) fn in_lanes(
    addrs: &[u64],
    key: impl Fn(u64) -> u64,
    mut search: impl FnMut(&[u64; LANES]) -> [usize; LANES],
    mut each: impl FnMut(usize, u64, usize),
) {
    let mut first = 0usize;
    for chunk in addrs.chunks(LANES) {
        let mut keys = [key(0); LANES];
        for (k, &addr) in keys.iter_mut().zip(chunk) {
            *k = key(addr);
        }
        let positions = search(&keys);
        for (lane, (&addr, position)) in chunk.iter().zip(positions).enumerate() {
            each(first.wrapping_add(lane), addr, position);
        }
        first = first.wrapping_add(chunk.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 70 values below 50 in no order (xorshift from `seed`).
    fn scrambled(mut seed: u32) -> [u32; 70] {
        let mut values = [0u32; 70];
        for v in &mut values {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            *v = seed % 50;
        }
        values
    }

    /// Tables of every length up to 70 whose values come in runs of three equal ones with
    /// gaps between runs, probed below, at and between every value: the answer must be
    /// core's partition point.
    #[test]
    fn agrees_with_core_on_sorted_tables() {
        let mut values = [0u32; 70];
        for (i, v) in (0u32..).zip(&mut values) {
            *v = 2 * (i / 3) + 1;
        }
        for len in 0..values.len() {
            let table = &values[..len];
            for key in 0..=(2 * len as u32 + 2) {
                let expected = table.partition_point(|&v| v <= key);
                assert_eq!(
                    partition_point(table, |&v| v <= key),
                    expected,
                    "len {len} key {key}"
                );
            }
        }
    }

    /// Lockstep searches give each key the answer of its own search, on unsorted tables
    /// too.
    #[test]
    fn lockstep_answers_equal_single_answers() {
        let mut values = scrambled(0x2545_f491);
        let keys: [u32; 8] = [0, 3, 11, 24, 25, 37, 49, 60];
        for sorted in [false, true] {
            if sorted {
                values.sort_unstable();
            }
            for len in 0..values.len() {
                let table = &values[..len];
                let together = partition_points(table, &keys, |v, k| v <= k);
                for (key, got) in keys.iter().zip(together) {
                    assert_eq!(
                        got,
                        partition_point(table, |v| v <= key),
                        "len {len} key {key}"
                    );
                }
            }
        }
    }

    /// Every width of step gives core's answer on sorted tables and stays in bounds on
    /// unsorted ones.
    #[test]
    fn every_width_agrees_with_core() {
        fn check<const W: usize>(values: &[u32], sorted: bool) {
            for len in 0..values.len() {
                let table = &values[..len];
                for key in 0..=60u32 {
                    let [got] =
                        partition_points_ways::<W, _, 1>(len, &[key], |i, k| table[i] <= *k);
                    if sorted {
                        assert_eq!(got, table.partition_point(|&v| v <= key), "W {W} len {len}");
                    } else {
                        assert!(got <= len, "W {W} len {len}");
                    }
                }
            }
        }
        let mut values = scrambled(0x1234_5678);
        for sorted in [false, true] {
            if sorted {
                values.sort_unstable();
            }
            check::<2>(&values, sorted);
            check::<3>(&values, sorted);
            check::<4>(&values, sorted);
            check::<8>(&values, sorted);
            check::<16>(&values, sorted);
        }
    }

    /// On an unsorted table the answer is still a position in the table.
    #[test]
    fn stays_in_bounds_on_unsorted_tables() {
        let values = scrambled(0x9e37_79b9);
        for len in 0..values.len() {
            for key in 0..60 {
                assert!(partition_point(&values[..len], |&v| v <= key) <= len);
            }
        }
    }
}
