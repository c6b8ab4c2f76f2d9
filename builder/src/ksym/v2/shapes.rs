//! The shapes table (spec 4.4, 7): the (lcp, count) pairs a name entry's header byte can
//! name, so that the two numbers of most entries cost one byte.

use std::collections::HashMap;

/// The header byte of an entry whose pair is not in the table: ULEB128 lcp and count
/// follow it.
pub(crate) const ESCAPE: u8 = 0xFF;

/// Most entries in the table: every byte but [`ESCAPE`].
pub(crate) const MAX_SHAPES: usize = 255;

/// The chosen pairs and the index of each.
pub(crate) struct Shapes {
    /// The table in stored order: by descending use, ties by (lcp, count).
    pub pairs: Vec<(u8, u8)>,
    index: HashMap<(u8, u8), u8>,
}

impl Shapes {
    /// The 255 most frequent pairs of `entries` (lcp, code count) with both below 256;
    /// ties go to the smaller pair, so the table depends on the entries only.
    pub(crate) fn choose(entries: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut counts: HashMap<(u8, u8), u64> = HashMap::new();
        for (lcp, count) in entries {
            if let (Ok(l), Ok(c)) = (u8::try_from(lcp), u8::try_from(count)) {
                *counts.entry((l, c)).or_default() += 1;
            }
        }
        let mut ranked: Vec<((u8, u8), u64)> = counts.into_iter().collect();
        ranked.sort_by(|(pa, ca), (pb, cb)| cb.cmp(ca).then(pa.cmp(pb)));
        ranked.truncate(MAX_SHAPES);
        let pairs: Vec<(u8, u8)> = ranked.into_iter().map(|(p, _)| p).collect();
        let index = pairs
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, i as u8))
            .collect();
        Shapes { pairs, index }
    }

    /// The header byte for (lcp, count): its index, or `None` when it must be escaped.
    pub(crate) fn index(&self, lcp: u64, count: u64) -> Option<u8> {
        let key = (u8::try_from(lcp).ok()?, u8::try_from(count).ok()?);
        self.index.get(&key).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_frequent_first_ties_by_value_large_escaped() {
        let entries = [(3, 1), (1, 2), (1, 2), (0, 9), (300, 1), (2, 256)];
        let s = Shapes::choose(entries);
        assert_eq!(s.pairs, vec![(1, 2), (0, 9), (3, 1)]);
        assert_eq!(s.index(1, 2), Some(0));
        assert_eq!(s.index(3, 1), Some(2));
        assert_eq!(s.index(300, 1), None);
        assert_eq!(s.index(4, 4), None);
    }

    #[test]
    fn at_most_255_pairs() {
        let entries = (0..300u64).map(|i| (i % 256, i / 256));
        let s = Shapes::choose(entries);
        assert_eq!(s.pairs.len(), MAX_SHAPES);
        // All occur once: the smallest 255 pairs win.
        assert_eq!(s.pairs[0], (0, 0));
        assert_eq!(s.index(255, 0), None);
    }
}
