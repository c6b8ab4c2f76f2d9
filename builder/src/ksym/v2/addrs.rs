//! The addresses in blocks (spec 4.2): per block its first address relative to `base`
//! (4- or 8-byte words, searched directly), the byte position of its data, and the data:
//! a width byte and the in-block offsets packed in the fewest bits that block needs.

use super::pack::{bits, BitWriter};
use crate::{Error, Result};

/// The encoded addresses.
pub(crate) struct Addresses {
    /// The lowest address (0 when there are none).
    pub base: u64,
    /// Bytes of a block's `first`: 4, or 8 when a first offset needs more than 32 bits.
    pub first_bytes: u8,
    /// The `addr_blocks` segment: every block's `first`, then every block's `pos` (u32).
    pub blocks: Vec<u8>,
    /// The `addr_data` segment (D bytes).
    pub data: Vec<u8>,
}

/// Encodes `addresses` (non-decreasing) in blocks of `block` symbols.
pub(crate) fn encode(addresses: &[u64], block: usize) -> Result<Addresses> {
    let base = addresses.first().copied().unwrap_or(0);
    let mut data = Vec::new();
    let mut firsts = Vec::with_capacity(addresses.len().div_ceil(block));
    let mut positions = Vec::with_capacity(firsts.capacity());
    for chunk in addresses.chunks(block) {
        let first = chunk[0];
        let width = bits(chunk[chunk.len() - 1] - first);
        positions.push(data.len() as u64);
        data.push(width);
        let mut offsets = BitWriter::new();
        for &a in &chunk[1..] {
            offsets.push(a - first, width);
        }
        data.extend_from_slice(&offsets.finish());
        firsts.push(first - base);
    }
    if data.len() as u64 >= 1 << 32 {
        return Err(Error::limit(
            "address data bytes",
            data.len() as u64,
            u64::from(u32::MAX),
        ));
    }
    // Firsts are non-decreasing: the last is the largest.
    let first_bytes = if firsts.last().is_some_and(|&f| f > u64::from(u32::MAX)) {
        8
    } else {
        4
    };
    let mut blocks = Vec::with_capacity(firsts.len() * (usize::from(first_bytes) + 4));
    for &first in &firsts {
        blocks.extend_from_slice(&first.to_le_bytes()[..usize::from(first_bytes)]);
    }
    for &pos in &positions {
        blocks.extend_from_slice(&(pos as u32).to_le_bytes());
    }
    Ok(Addresses {
        base,
        first_bytes,
        blocks,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_hold_relative_firsts_positions_and_packed_offsets() {
        let addrs = [0x1000, 0x1010, 0x1030, 0x2000, 0x2000];
        let a = encode(&addrs, 2).unwrap();
        assert_eq!((a.base, a.first_bytes), (0x1000, 4));
        // Firsts 0, 0x30, 0x1000; positions 0, 2, 5.
        let words: Vec<u32> = a
            .blocks
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(words, [0, 0x30, 0x1000, 0, 2, 5]);
        // Block 0: width 5, offset 0x10 (1 byte); block 1: width 12, 0xfd0 (2 bytes);
        // block 2: width 0, no offsets.
        assert_eq!(a.data, [5, 0x10, 12, 0xd0, 0x0f, 0]);
    }

    #[test]
    fn no_addresses() {
        let a = encode(&[], 32).unwrap();
        assert_eq!((a.base, a.first_bytes), (0, 4));
        assert!(a.blocks.is_empty() && a.data.is_empty());
    }

    #[test]
    fn far_blocks_take_eight_byte_firsts() {
        let a = encode(&[0, 1 << 40], 1).unwrap();
        assert_eq!(a.first_bytes, 8);
        assert_eq!(a.blocks.len(), 2 * 8 + 2 * 4);
    }
}
