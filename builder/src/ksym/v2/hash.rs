//! The name hash index (spec 4.5): per bucket of name hashes, the ranks of the names that
//! fall in it, each with an 8-bit fingerprint of its hash.

use symblob::ksym::v2::name_hash;

use super::pack::{bits, pack};

/// Whether a v2 build writes the name hash index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NameHash {
    /// Where the restart keys do not narrow name lookups: when at least a quarter of the
    /// restarts share their key (the first 8 bytes of their name) with the previous
    /// restart, as mangled and demangled Rust names do (`_ZN4core3ptr…`). The kernel's
    /// names do not (15 % of its restarts), and keep the smaller blob. The default.
    #[default]
    Auto,
    /// Always (about 3.5 bytes more per symbol).
    Always,
    /// Never: name lookups search the restart keys.
    Never,
}

/// The index as written: its bucket bits `b` (0: none), `hash_starts` and `hash_entries`.
#[derive(Default)]
pub(crate) struct HashIndex {
    pub bits: u8,
    pub starts: Vec<u8>,
    pub entries: Vec<u8>,
}

/// Whether `choice` asks for the index, given the restart keys (8 bytes each).
pub(crate) fn wanted(choice: NameHash, restart_keys: &[u8]) -> bool {
    match choice {
        NameHash::Always => true,
        NameHash::Never => false,
        NameHash::Auto => {
            let keys: Vec<&[u8]> = restart_keys.chunks(8).collect();
            let shared = keys.windows(2).filter(|w| w[0] == w[1]).count();
            keys.len() > 1 && shared * 4 >= keys.len() - 1
        }
    }
}

/// The bucket bits for `n` names: about 4 to 8 names per bucket, at least 2 buckets.
pub(crate) fn bucket_bits(n: usize) -> u8 {
    bits(n as u64).saturating_sub(3).max(1)
}

/// The index of `by_rank` (the names in name order); `index_bits` is the width of a rank.
pub(crate) fn build(by_rank: &[&[u8]], index_bits: u8) -> HashIndex {
    let b = bucket_bits(by_rank.len());
    let n = by_rank.len() as u64;
    // (bucket, rank, fingerprint), sorted by bucket then rank.
    let mut slots: Vec<(u64, u64, u64)> = by_rank
        .iter()
        .enumerate()
        .map(|(rank, name)| {
            let h = name_hash(name);
            (h >> (64 - b), rank as u64, (h >> (56 - b)) & 0xFF)
        })
        .collect();
    slots.sort_unstable();
    let buckets = 1usize << b;
    let mut starts = Vec::with_capacity(buckets + 1);
    let mut at = 0usize;
    for bucket in 0..=buckets as u64 {
        while at < slots.len() && slots[at].0 < bucket {
            at += 1;
        }
        starts.push(at as u64);
    }
    let start_bits = bits(n);
    HashIndex {
        bits: b,
        starts: pack(starts, start_bits),
        entries: pack(
            slots.iter().map(|&(_, rank, fp)| rank << 8 | fp),
            index_bits + 8,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_wants_the_index_where_a_quarter_of_the_keys_repeat() {
        let keys = |ks: &[&[u8; 8]]| {
            ks.iter()
                .flat_map(|k| k.iter().copied())
                .collect::<Vec<u8>>()
        };
        let crowded = keys(&[
            b"_ZN4core",
            b"_ZN4core",
            b"_ZN4core",
            b"_ZN5allo",
            b"abcdefgh",
        ]);
        assert!(wanted(NameHash::Auto, &crowded));
        let spread = keys(&[
            b"aaaaaaaa",
            b"bbbbbbbb",
            b"cccccccc",
            b"cccccccc",
            b"dddddddd",
            b"eeeeeeee",
        ]);
        assert!(!wanted(NameHash::Auto, &spread));
        assert!(wanted(NameHash::Always, &spread));
        assert!(!wanted(NameHash::Never, &crowded));
        assert!(!wanted(NameHash::Auto, b"_ZN4core"));
    }

    #[test]
    fn buckets_hold_their_ranks_in_order() {
        let names: Vec<&[u8]> = vec![b"a", b"b", b"b", b"c", b"d", b"e", b"f", b"g", b"h"];
        let index = build(&names, 4);
        assert_eq!(index.bits, 1);
        assert_eq!(index.entries.len(), (names.len() * 12).div_ceil(8));
        let entry = |e: u64| super::super::tests::packed_at(&index.entries, e, 12);
        let start = |k: u64| super::super::tests::packed_at(&index.starts, k, 4);
        for bucket in 0..2 {
            let ranks: Vec<u64> = (start(bucket)..start(bucket + 1))
                .map(|e| entry(e) >> 8)
                .collect();
            assert!(ranks.is_sorted(), "bucket {bucket}: {ranks:?}");
            // Each rank in the bucket of its name's hash, with its fingerprint.
            for e in start(bucket)..start(bucket + 1) {
                let h = name_hash(names[(entry(e) >> 8) as usize]);
                assert_eq!((h >> 63, (h >> 55) & 0xFF), (bucket, entry(e) & 0xFF));
            }
        }
        assert_eq!(start(2), names.len() as u64);
    }
}
