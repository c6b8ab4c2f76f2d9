//! The ranges of a file that nest (every two either disjoint or one inside the other, as
//! the ranges of functions and their inlined calls are): which of them cover an address,
//! in one search and a walk up a parent chain.
//!
//! The ranges are sorted by start, longer first among equal starts, file order among
//! identical ones, and each keeps its parent: the innermost range before it that holds
//! it. For an address, the last range starting at or before it is found (a bucket of
//! starts by the address's high bits, then a search within it); if that range does not
//! cover the address, the innermost range that does is one of its ancestors (a covering
//! range starts before it and reaches past it, so holds its start, so holds it): the
//! first one up its chain that covers the address. That range and its ancestors are
//! exactly the covering ranges.
//!
//! Lookups are bound by memory latency (the ranges of a large program and its file do
//! not fit the caches), so each step is one read: a node holds its range and its parent
//! in 16 bytes, and the bucket table sends the search to a few nodes. Cost: O(log of a
//! bucket + depth) reads; memory 16 bytes a range and at most 4 more for the buckets.
//!
//! Ranges that break the nesting (overlapping without one holding the other), or that
//! do not fit a node (a range of 4 GiB or more, a record past the file's first 4 GiB, a
//! start 4 GiB or more above the lowest), are left to the caller ([`Forest::new`]
//! returns them).

use super::tree::Span;

/// A range, its record and its parent in 16 bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Node {
    /// Start, above the forest's base.
    start: u32,
    /// `last − start`.
    extent: u32,
    /// Offset of the record's message in the file.
    offset: u32,
    /// Index of the innermost range holding this one, or [`ROOT`].
    parent: u32,
}

impl Node {
    /// A node to fill arrays with.
    const EMPTY: Node = Node {
        start: 0,
        extent: 0,
        offset: 0,
        parent: ROOT,
    };

    /// Last address covered, above the base.
    fn last(&self) -> u64 {
        u64::from(self.start) + u64::from(self.extent)
    }

    /// The range, its addresses put back above `base`.
    fn span(&self, base: u64) -> Span {
        Span {
            start: base + u64::from(self.start),
            last: base + self.last(),
            offset: u64::from(self.offset),
        }
    }
}

/// Addresses [`Forest::covering_each`] walks side by side.
pub const LANES: usize = 8;

/// No parent: a range no other range holds.
const ROOT: u32 = u32::MAX;

/// Nesting ranges with their parents.
#[derive(Clone, Debug, Default)]
pub struct Forest {
    /// The lowest start; nodes hold theirs above it.
    base: u64,
    /// Sorted by start, then longer first, then file order.
    nodes: Vec<Node>,
    /// Bucket `k` holds the nodes whose start above the base, shifted right by `shift`,
    /// is `k`: `nodes[buckets[k]..buckets[k + 1]]`. At most one bucket per node.
    buckets: Vec<u32>,
    shift: u32,
}

impl Forest {
    /// The forest of those of `spans` (in file order) that nest and fit a node, and the
    /// others, in file order, for a structure that takes any range.
    pub fn new(spans: Vec<Span>) -> (Self, Vec<Span>) {
        let fits =
            |s: &Span| u32::try_from(s.last - s.start).is_ok() && u32::try_from(s.offset).is_ok();
        let base = spans.iter().filter(|s| fits(s)).map(|s| s.start).min();
        let base = base.unwrap_or(0);
        let mut others = Vec::new();
        let mut unsorted = Vec::with_capacity(spans.len());
        for s in spans {
            let above = s.start.checked_sub(base).map(u32::try_from);
            match above {
                Some(Ok(start)) if fits(&s) => unsorted.push(Node {
                    start,
                    extent: (s.last - s.start) as u32,
                    offset: s.offset as u32,
                    parent: ROOT,
                }),
                _ => others.push(s),
            }
        }
        let (mut nodes, mut buckets, shift) = sorted(unsorted);
        // One walk with the chain of open ranges: a range's parent is the innermost one
        // still open at its start; a range overlapping it without fitting in it breaks
        // the nesting and leaves the forest, so the ranges kept nest. Fewer than 2^32
        // ranges (each has a record of at least two bytes in the file's first 4 GiB).
        let mut chain: Vec<(u64, u32)> = Vec::new();
        let mut kept = 0;
        for i in 0..nodes.len() {
            let mut node = nodes[i];
            let (start, last) = (u64::from(node.start), node.last());
            while chain.last().is_some_and(|&(open, _)| open < start) {
                chain.pop();
            }
            if chain.last().is_some_and(|&(open, _)| last > open) {
                others.push(node.span(base));
                continue;
            }
            node.parent = chain.last().map_or(ROOT, |&(_, up)| up);
            chain.push((last, kept as u32));
            nodes[kept] = node;
            kept += 1;
        }
        if kept < nodes.len() {
            nodes.truncate(kept);
            nodes.shrink_to_fit();
            buckets = bucket_table(&nodes, shift);
            others.sort_by_key(|s| s.offset);
        }
        let forest = Forest {
            base,
            nodes,
            buckets,
            shift,
        };
        (forest, others)
    }

    /// Number of ranges.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes of memory the forest holds.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.buckets.capacity() * std::mem::size_of::<u32>()
    }

    /// Calls `hit` with every range covering `addr`, innermost first; stops at the first
    /// error `hit` returns.
    pub fn covering<X>(
        &self,
        addr: u64,
        mut hit: impl FnMut(&Span) -> Result<(), X>,
    ) -> Result<(), X> {
        let Some(above) = addr.checked_sub(self.base) else {
            return Ok(());
        };
        let mut next = self.last_starting_at_or_before(above);
        // Up to the innermost covering range, then every range above it.
        while let Some(node) = next.and_then(|i| self.nodes.get(i)) {
            if above <= node.last() {
                hit(&node.span(self.base))?;
            }
            next = (node.parent != ROOT).then_some(node.parent as usize);
        }
        Ok(())
    }

    /// [`Forest::covering`] for several addresses at once (`hit` gets the address's
    /// position in `addrs`), their walks interleaved a step at a time so that the memory
    /// system fetches the nodes of different addresses side by side. Each address's ranges
    /// come innermost first, as from [`Forest::covering`].
    pub fn covering_each<X>(
        &self,
        addrs: &[u64; LANES],
        mut hit: impl FnMut(usize, &Span) -> Result<(), X>,
    ) -> Result<(), X> {
        let mut above = [0u64; LANES];
        let mut next = [None; LANES];
        for lane in 0..LANES {
            if let Some(a) = addrs[lane].checked_sub(self.base) {
                above[lane] = a;
                next[lane] = self.last_starting_at_or_before(a);
            }
        }
        let mut walking = true;
        while walking {
            walking = false;
            for lane in 0..LANES {
                if let Some(node) = next[lane].and_then(|i| self.nodes.get(i)) {
                    walking = true;
                    if above[lane] <= node.last() {
                        hit(lane, &node.span(self.base))?;
                    }
                    next[lane] = (node.parent != ROOT).then_some(node.parent as usize);
                }
            }
        }
        Ok(())
    }

    /// Index of the last node that starts at or before `above` the base.
    fn last_starting_at_or_before(&self, above: u64) -> Option<usize> {
        let k = usize::try_from(above >> self.shift).unwrap_or(usize::MAX);
        let (first, end) = match (self.buckets.get(k), self.buckets.get(k.wrapping_add(1))) {
            (Some(&first), Some(&end)) => (first as usize, end as usize),
            // Past the last bucket: every node starts before.
            _ => return self.nodes.len().checked_sub(1),
        };
        let within = self.nodes.get(first..end)?;
        (first + within.partition_point(|n| u64::from(n.start) <= above)).checked_sub(1)
    }
}

/// `nodes` (in file order) in the order of the forest: by start, longer first among
/// equal starts, file order among identical ranges; with the bucket table of that order
/// and its shift (the fewest low bits of the start dropped so that there are no more
/// buckets than nodes).
///
/// A counting sort by bucket (stable, two passes), then each bucket (one or two nodes on
/// average) sorted on its own: O(n). A comparison sort takes several times longer on a
/// large file, whose functions come in compile-unit order, in a thousand interleaved
/// runs.
fn sorted(nodes: Vec<Node>) -> (Vec<Node>, Vec<u32>, u32) {
    let top = nodes.iter().map(|n| n.start).max().unwrap_or(0);
    let mut shift = 0;
    while (top >> shift) as usize >= nodes.len().max(1) {
        shift += 1;
    }
    let buckets = bucket_table(&nodes, shift);
    // Each bucket's cursor starts at its first place.
    let mut next = buckets.clone();
    let mut out = vec![Node::EMPTY; nodes.len()];
    for n in nodes {
        let at = &mut next[(n.start >> shift) as usize];
        out[*at as usize] = n;
        *at += 1;
    }
    drop(next);
    for w in buckets.windows(2) {
        if w[1] - w[0] > 1 {
            out[w[0] as usize..w[1] as usize]
                .sort_by_key(|n| (n.start, std::cmp::Reverse(n.extent)));
        }
    }
    (out, buckets, shift)
}

/// The bucket table of `nodes` for `shift`: bucket `k` holds places
/// `table[k]..table[k + 1]` of the sorted nodes. `nodes` may be in any order (it counts
/// them). Fewer than 2^32 nodes: each has a record of at least two bytes in the file's
/// first 4 GiB.
fn bucket_table(nodes: &[Node], shift: u32) -> Vec<u32> {
    let top = nodes.iter().map(|n| n.start).max().unwrap_or(0);
    let mut table = vec![0u32; (top >> shift) as usize + 2];
    for n in nodes {
        table[(n.start >> shift) as usize + 1] += 1;
    }
    for k in 1..table.len() {
        table[k] += table[k - 1];
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn covering(forest: &Forest, addr: u64) -> Vec<u64> {
        let mut v = Vec::new();
        forest
            .covering(addr, |s| {
                v.push(s.offset);
                Ok::<(), ()>(())
            })
            .unwrap();
        v
    }

    fn below(rng: &mut u64, n: u64) -> u64 {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng % n
    }

    /// Nested ranges: children carved out of their parent's extent, recursively, shaped
    /// by the bits of `rng` (xorshift).
    fn nested(rng: &mut u64, start: u64, len: u64, depth: u32, out: &mut Vec<Span>) {
        out.push(Span {
            start,
            last: start + len - 1,
            offset: out.len() as u64,
        });
        if depth == 0 {
            return;
        }
        let end = start + len;
        let mut at = start;
        while at < end {
            at += below(rng, 4);
            if at >= end {
                break;
            }
            let child = 1 + below(rng, end - at);
            if below(rng, 10) < 7 {
                nested(rng, at, child, depth - 1, out);
            }
            at += child;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Every address, against a filter over all spans: the forest's covering ranges
        /// plus the ranges it returned equal the covering ranges, innermost first.
        #[test]
        fn forest_with_its_others_finds_exactly_the_covering_spans(
            raw in prop::collection::vec((0u64..300, 0u64..80), 0..140),
            seed in any::<u64>(),
            mixed in any::<bool>(),
        ) {
            let mut spans = Vec::new();
            if mixed {
                nested(&mut (seed | 1), 10, 500, 6, &mut spans);
            }
            let base = spans.len() as u64;
            spans.extend(raw.iter().enumerate().map(|(i, &(start, len))| Span {
                start, last: start + len, offset: base + i as u64,
            }));
            spans.push(Span { start: 5, last: u64::MAX, offset: 9999 });
            let (forest, others) = Forest::new(spans.clone());
            prop_assert_eq!(forest.len() + others.len(), spans.len());
            prop_assert!(others.windows(2).all(|w| w[0].offset < w[1].offset));
            for addr in 0..=700 {
                let mut got = covering(&forest, addr);
                // Innermost first: each range lies within the one after it.
                let at = |o: u64| spans[o as usize];
                for w in got.windows(2) {
                    prop_assert!(at(w[1]).start <= at(w[0]).start && at(w[0]).last <= at(w[1]).last);
                }
                got.extend(others.iter().filter(|s| s.start <= addr && addr <= s.last).map(|s| s.offset));
                got.sort_unstable();
                let mut want: Vec<u64> = spans.iter()
                    .filter(|s| s.start <= addr && addr <= s.last).map(|s| s.offset).collect();
                want.sort_unstable();
                prop_assert_eq!(got, want, "at {}", addr);
            }
        }
    }

    #[test]
    fn forest_keeps_nested_ranges_and_leaves_the_rest() {
        let span = |start, last, offset| Span {
            start,
            last,
            offset,
        };
        let spans = vec![
            span(0, 99, 0),
            span(10, 19, 1),
            span(10, 19, 2),
            span(15, 30, 3),             // overlaps 1 and 2 without nesting
            span(0, u64::MAX, 4),        // too long for 32 bits
            span(u64::MAX, u64::MAX, 5), // 4 GiB or more above the lowest start
            span(1 << 32, (1 << 32) + 5, 6),
            span(5, 6, 1 << 32), // a record past the first 4 GiB
        ];
        let (forest, others) = Forest::new(spans);
        assert_eq!(forest.len(), 3);
        let left: Vec<u64> = others.iter().map(|s| s.offset).collect();
        assert_eq!(left, [3, 4, 5, 6, 1 << 32]);
        assert_eq!(covering(&forest, 12), [2, 1, 0]);
        assert_eq!(covering(&forest, 25), [0]);
        assert_eq!(covering(&forest, 100), Vec::<u64>::new());
        assert_eq!(covering(&forest, 1 << 32), Vec::<u64>::new());
        assert_eq!(covering(&forest, u64::MAX), Vec::<u64>::new());
        assert_eq!(covering(&Forest::default(), 7), Vec::<u64>::new());
        // A range left out that starts below every range kept.
        let (forest, others) = Forest::new(vec![span(10, 20, 0), span(0, u64::MAX, 1)]);
        assert_eq!((forest.len(), others.len()), (1, 1));
        assert_eq!(covering(&forest, 15), [0]);
    }
}
