//! Types and the two links between the orders (spec 4.3): `a2n` (group and type of each
//! symbol in address order) and `n2a` (address-order index of each rank).

use super::pack::{bits, pack};

/// The encoded types and links.
pub(crate) struct Links {
    /// The distinct type bytes, ascending (the `types` segment).
    pub types: Vec<u8>,
    /// Width of a type index.
    pub type_bits: u8,
    /// Width of a group number.
    pub group_bits: u8,
    /// Width of an address-order index.
    pub index_bits: u8,
    /// The `a2n` segment.
    pub a2n: Vec<u8>,
    /// The `n2a` segment.
    pub n2a: Vec<u8>,
}

/// Encodes `kinds` (the type of each symbol in address order) and `n2a` (the
/// address-order index of each rank) with groups of `2^group_shift` ranks.
pub(crate) fn encode(kinds: &[u8], n2a: &[u32], group_shift: u8) -> Links {
    let n = kinds.len();
    let mut types: Vec<u8> = kinds.to_vec();
    types.sort_unstable();
    types.dedup();
    let mut type_index = [0u8; 256];
    for (i, &t) in types.iter().enumerate() {
        type_index[usize::from(t)] = i as u8;
    }
    // Largest values: the last type index, the last rank's group, the last index.
    let type_bits = bits(types.len().saturating_sub(1) as u64);
    let last = n.saturating_sub(1) as u64;
    let group_bits = bits(last >> group_shift);
    let index_bits = bits(last);

    let mut rank = vec![0u64; n];
    for (k, &i) in n2a.iter().enumerate() {
        rank[i as usize] = k as u64;
    }
    let a2n = pack(
        kinds.iter().zip(&rank).map(|(&t, &k)| {
            (k >> group_shift) << type_bits | u64::from(type_index[usize::from(t)])
        }),
        group_bits + type_bits,
    );
    let n2a = pack(n2a.iter().map(|&i| u64::from(i)), index_bits);
    Links {
        types,
        type_bits,
        group_bits,
        index_bits,
        a2n,
        n2a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_types_and_indices() {
        // Address order: t T t T; name order: 3 1 0 2.
        let l = encode(b"tTtT", &[3, 1, 0, 2], 1);
        assert_eq!(l.types, b"Tt");
        assert_eq!((l.type_bits, l.group_bits, l.index_bits), (1, 1, 2));
        // ranks: index 0 → 2, 1 → 1, 2 → 3, 3 → 0; groups 1, 0, 1, 0; types 1, 0, 1, 0.
        // a2n 2-bit values 0b11, 0b00, 0b11, 0b00.
        assert_eq!(l.a2n, vec![0b0011_0011]);
        // n2a 2-bit values 3, 1, 0, 2.
        assert_eq!(l.n2a, vec![0b10_00_01_11]);
    }

    #[test]
    fn one_symbol_needs_no_bits() {
        let l = encode(b"T", &[0], 6);
        assert_eq!((l.type_bits, l.group_bits, l.index_bits), (0, 0, 0));
        assert!(l.a2n.is_empty() && l.n2a.is_empty());
    }
}
