//! Running the per-unit work on the rayon pool largest unit first.
//!
//! Unit sizes are very uneven (a Rust crate's units range from a few hundred bytes to
//! megabytes, and the largest often comes last in `.debug_info`). Splitting the unit list
//! into halves, as a plain parallel iterator does, can leave one core walking the largest
//! unit alone at the end. Handing out units one at a time, largest first (list
//! scheduling), keeps every core busy until the small units run out. Results still come
//! back in unit order, so the output does not depend on the schedule.

use std::cmp::Reverse;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

/// `f` of every item, computed on the rayon pool in descending `size` order, returned in
/// item order.
pub(crate) fn map_largest_first<T, R, S, F>(items: &[T], size: S, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    S: Fn(&T) -> u64,
    F: Fn(&T) -> R + Sync,
{
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Stable: equal sizes keep item order.
    order.sort_by_key(|&i| Reverse(size(&items[i])));
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, items.len().max(1));
    let done: Vec<Vec<(usize, R)>> = (0..workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            let mut out = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                out.push((i, f(&items[i])));
            }
            out
        })
        .collect();
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, r) in done.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item is taken by exactly one worker"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_item_order() {
        let items: Vec<u64> = (0..1000).map(|i| (i * 7919) % 613).collect();
        let got = map_largest_first(&items, |&x| x, |&x| x * 3 + 1);
        let expected: Vec<u64> = items.iter().map(|&x| x * 3 + 1).collect();
        assert_eq!(got, expected);
        assert!(map_largest_first(&[] as &[u64], |&x| x, |&x| x).is_empty());
    }
}
