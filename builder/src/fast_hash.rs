//! A fast hasher for the builder's maps keyed by integers (DIE offsets, string addresses)
//! and by the input's strings.
//!
//! std's default SipHash resists hash flooding, which these maps do not need: their keys
//! are offsets into the input, and the worst a hostile file can do is slow its own build
//! (every map is bounded by the input size). One multiply per word (the Fx hash that rustc
//! uses) is several times cheaper, and name resolution does millions of lookups.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` hashed with [`FxHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// An empty [`FastMap`].
pub(crate) fn fast_map<K, V>() -> FastMap<K, V> {
    HashMap::with_hasher(BuildHasherDefault::default())
}

/// rustc's Fx hash: rotate, xor the word in, multiply.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }

    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }

    fn finish(&self) -> u64 {
        // hashbrown takes the bucket from the low bits and a tag from the top 7: fold the
        // well-mixed high half down so that both depend on every input bit.
        self.hash ^ (self.hash >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_round_trips_dense_and_sparse_keys() {
        let mut m = fast_map();
        for k in (0..10_000usize).chain((0..1000).map(|i| i << 20)) {
            m.insert(k, k.wrapping_mul(3));
        }
        assert_eq!(m.len(), 10_999);
        assert_eq!(m.get(&4242), Some(&12_726));
        assert_eq!(m.get(&(7 << 20)), Some(&((7 << 20) * 3)));
        assert_eq!(m.get(&10_001), None);
    }
}
