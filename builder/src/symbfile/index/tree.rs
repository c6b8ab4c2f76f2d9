//! A static interval tree over a sorted array: which of a file's range records cover an
//! address, in O(log n + answers), for any set of ranges (nested, overlapping, identical,
//! as long as the whole address space). The index keeps here the ranges its
//! [`Forest`](super::forest::Forest) cannot take.
//!
//! This is the implicit augmented tree of Heng Li's cgranges: the entries are sorted by
//! start and the array itself is the tree. Entry `i` sits at level `k` = the number of
//! trailing one bits of `i` (even indices are leaves); its children are `i ± 2^(k−1)`.
//! Each inner node keeps the largest end of its subtree, so a search skips every subtree
//! that ends before the address. Leaves need no such field (their own end is their
//! subtree's), so the tree costs its entries plus 8 bytes per inner node.
//!
//! Ends are inclusive (`last`), so that a range reaching the top of the address space
//! (`va + length` past 2^64) is kept whole, as the sweep reads it.

/// One range: `[start, last]` and the offset of its record in the file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// First address covered.
    pub start: u64,
    /// Last address covered (inclusive).
    pub last: u64,
    /// Offset of the record's message in the file.
    pub offset: u64,
}

/// The entries, sorted by start, and the subtree maxima of the inner nodes.
#[derive(Clone, Debug)]
pub struct IntervalTree {
    spans: Vec<Span>,
    /// `max_last[i / 2]`: the largest `last` in the subtree of inner node `i` (odd `i`).
    max_last: Vec<u64>,
    /// Level of the root, `floor(log2(n))`.
    root_level: u32,
}

/// A subtree still to search: its root `node` at `level`, and whether its left half is
/// done.
#[derive(Copy, Clone, Default)]
struct Pending {
    level: u32,
    node: usize,
    left_done: bool,
}

/// At most two pending subtrees per level and 64 levels: the search never allocates.
const STACK: usize = 2 * 64 + 2;

/// Below this level a subtree (at most 15 spans, contiguous) is scanned rather than
/// descended, as cgranges does (levels 5 and 7 measured no better, BENCHMARKS.md).
const SCAN_LEVEL: u32 = 3;

impl IntervalTree {
    /// The tree of `spans` (in file order; sorted here by start, file order kept among
    /// equal starts).
    pub fn new(mut spans: Vec<Span>) -> Self {
        // Records come mostly in address order (functions in order, inline children after
        // their parent): the stable sort finds those runs and merges them.
        spans.sort_by_key(|s| s.start);
        spans.shrink_to_fit();
        let n = spans.len();
        let mut tree = IntervalTree {
            max_last: vec![0; n / 2],
            spans,
            root_level: 0,
        };
        if n == 0 {
            return tree;
        }
        // cgranges' bottom-up pass. `last_max` is the maximum of the rightmost subtree
        // built so far at the level below, which stands in for a right child past the
        // end of the array (the tree is complete only when n = 2^k − 1).
        let mut last_node = (n - 1) & !1;
        let mut last_max = tree.spans[last_node].last;
        let mut level = 1u32;
        while level < usize::BITS && (1usize << level) <= n {
            let half = 1usize << (level - 1);
            let mut node = (half << 1) - 1;
            while node < n {
                let left = tree.max_of(node - half);
                let right = if node + half < n {
                    tree.max_of(node + half)
                } else {
                    last_max
                };
                tree.max_last[node / 2] = tree.spans[node].last.max(left).max(right);
                node += half << 2;
            }
            // Up to the parent of the rightmost subtree root.
            last_node = if (last_node >> level) & 1 == 1 {
                last_node - half
            } else {
                last_node + half
            };
            if last_node < n {
                last_max = last_max.max(tree.max_of(last_node));
            }
            level += 1;
        }
        tree.root_level = level - 1;
        tree
    }

    /// The largest `last` in the subtree of `node`.
    fn max_of(&self, node: usize) -> u64 {
        if node.is_multiple_of(2) {
            self.spans[node].last
        } else {
            self.max_last[node / 2]
        }
    }

    /// Number of spans.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Bytes of memory the tree holds.
    pub fn heap_bytes(&self) -> usize {
        self.spans.capacity() * std::mem::size_of::<Span>()
            + self.max_last.capacity() * std::mem::size_of::<u64>()
    }

    /// Calls `hit` with every span covering `addr` (in start order); stops at the first
    /// error `hit` returns.
    pub fn covering<X>(
        &self,
        addr: u64,
        mut hit: impl FnMut(&Span) -> Result<(), X>,
    ) -> Result<(), X> {
        let n = self.spans.len();
        if n == 0 {
            return Ok(());
        }
        let mut stack = [Pending::default(); STACK];
        stack[0] = Pending {
            level: self.root_level,
            node: (1usize << self.root_level) - 1,
            left_done: false,
        };
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let z = stack[top];
            if z.level <= SCAN_LEVEL {
                // The whole subtree, in start order, up to the first span after `addr`.
                let first = z.node >> z.level << z.level;
                let end = (first + (1usize << (z.level + 1)) - 1).min(n);
                for entry in self.spans.get(first..end).unwrap_or(&[]) {
                    let span = *entry;
                    if span.start > addr {
                        break;
                    }
                    if addr <= span.last {
                        hit(&span)?;
                    }
                }
            } else if !z.left_done {
                stack[top] = Pending {
                    left_done: true,
                    ..z
                };
                top += 1;
                let left = z.node - (1usize << (z.level - 1));
                // Every left child exists (left < node); it is searched only if some
                // span under it reaches `addr`. A node past the end still has a left
                // subtree inside the array.
                if left >= n || self.max_of(left) >= addr {
                    stack[top] = Pending {
                        level: z.level - 1,
                        node: left,
                        left_done: false,
                    };
                    top += 1;
                }
            } else if z.node < n && self.spans[z.node].start <= addr {
                // Spans right of the node start at or after it: only if it starts at or
                // before `addr` can they cover it.
                let span = self.spans[z.node];
                if addr <= span.last {
                    hit(&span)?;
                }
                stack[top] = Pending {
                    level: z.level - 1,
                    node: z.node + (1usize << (z.level - 1)),
                    left_done: false,
                };
                top += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(spans: &[Span], addr: u64) -> Vec<u64> {
        let mut v: Vec<u64> = spans
            .iter()
            .filter(|s| s.start <= addr && addr <= s.last)
            .map(|s| s.offset)
            .collect();
        v.sort_unstable();
        v
    }

    fn found(tree: &IntervalTree, addr: u64) -> Vec<u64> {
        let mut v = Vec::new();
        tree.covering(addr, |s| {
            v.push(s.offset);
            Ok::<(), ()>(())
        })
        .unwrap();
        v.sort_unstable();
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Every address at and around every boundary, against a filter over all spans,
        /// for sets of every size (the tree is complete only at n = 2^k − 1).
        #[test]
        fn tree_finds_exactly_the_covering_spans(
            raw in prop::collection::vec((0u64..300, 0u64..80), 0..140),
            long in prop::option::of((0u64..300, 0u64..400)),
        ) {
            let mut spans: Vec<Span> = raw
                .iter()
                .enumerate()
                .map(|(i, &(start, len))| Span { start, last: start + len, offset: i as u64 })
                .collect();
            if let Some((start, len)) = long {
                spans.push(Span { start, last: start + len, offset: 1000 });
            }
            let tree = IntervalTree::new(spans.clone());
            for addr in 0..=700 {
                prop_assert_eq!(found(&tree, addr), brute(&spans, addr), "at {}", addr);
            }
        }
    }

    #[test]
    fn tree_keeps_ranges_that_reach_the_top_of_the_address_space() {
        let spans = vec![
            Span {
                start: u64::MAX - 4,
                last: u64::MAX,
                offset: 1,
            },
            Span {
                start: 0,
                last: u64::MAX,
                offset: 2,
            },
            Span {
                start: u64::MAX,
                last: u64::MAX,
                offset: 3,
            },
        ];
        let tree = IntervalTree::new(spans.clone());
        for addr in [0, 1, u64::MAX - 5, u64::MAX - 4, u64::MAX - 1, u64::MAX] {
            assert_eq!(found(&tree, addr), brute(&spans, addr), "at {addr:#x}");
        }
        assert_eq!(found(&IntervalTree::new(Vec::new()), 5), Vec::<u64>::new());
    }
}
