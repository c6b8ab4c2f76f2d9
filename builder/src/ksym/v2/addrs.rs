//! The addresses in blocks (spec 4.2): per block its first address relative to `base` and
//! the in-block offsets packed in the fewest bits that block needs.

use super::pack::{bits, BitWriter};
use crate::{Error, Result};

/// Width of a block record's `width` field (spec 4.2).
const WIDTH_FIELD_BITS: u8 = 7;

/// The encoded addresses.
pub(crate) struct Addresses {
    /// The lowest address (0 when there are none).
    pub base: u64,
    /// Width of a block's `first`.
    pub first_bits: u8,
    /// Width of a block's `pos`.
    pub pos_bits: u8,
    /// The `addr_blocks` segment.
    pub blocks: Vec<u8>,
    /// The `addr_data` segment (D bytes).
    pub data: Vec<u8>,
}

/// Encodes `addresses` (non-decreasing) in blocks of `block` symbols.
pub(crate) fn encode(addresses: &[u64], block: usize) -> Result<Addresses> {
    let base = addresses.first().copied().unwrap_or(0);
    let mut data = BitWriter::new();
    // (first, pos, width) per block.
    let mut records = Vec::with_capacity(addresses.len().div_ceil(block));
    for chunk in addresses.chunks(block) {
        let first = chunk[0];
        let width = bits(chunk[chunk.len() - 1] - first);
        let pos = data.bit_len();
        for &a in &chunk[1..] {
            data.push(a - first, width);
        }
        records.push((first - base, pos, width));
    }
    // Both are non-decreasing over the blocks, so the last record holds the largest.
    let (first_bits, pos_bits) = records
        .last()
        .map_or((0, 0), |&(first, pos, _)| (bits(first), bits(pos)));
    let mut blocks = BitWriter::new();
    for &(first, pos, width) in &records {
        blocks.push(first, first_bits);
        blocks.push(pos, pos_bits);
        blocks.push(u64::from(width), WIDTH_FIELD_BITS);
    }
    let data = data.finish();
    if data.len() as u64 >= 1 << 32 {
        return Err(Error::limit(
            "address data bytes",
            data.len() as u64,
            u64::from(u32::MAX),
        ));
    }
    Ok(Addresses {
        base,
        first_bits,
        pos_bits,
        blocks: blocks.finish(),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_hold_relative_firsts_and_packed_offsets() {
        let addrs = [0x1000, 0x1010, 0x1030, 0x2000, 0x2000];
        let a = encode(&addrs, 2).unwrap();
        assert_eq!(a.base, 0x1000);
        // Firsts 0, 0x30, 0x1000: 13 bits. Widths 5 (0x10), 12 (0xfd0), 0 (one symbol).
        assert_eq!(a.first_bits, 13);
        // Positions 0, 5, 17: 5 bits.
        assert_eq!(a.pos_bits, 5);
        assert_eq!(a.data.len(), 3); // 17 bits
        assert_eq!(a.blocks.len(), (3 * (13 + 5 + 7) as usize).div_ceil(8));
        let mut buf = [0u8; 16];
        buf[..a.blocks.len()].copy_from_slice(&a.blocks);
        let word = u128::from_le_bytes(buf);
        let rec = |k: u32| (word >> (25 * k)) & ((1 << 25) - 1);
        let field = |r: u128| (r & 0x1fff, (r >> 13) & 0x1f, r >> 18);
        assert_eq!(field(rec(0)), (0, 0, 5));
        assert_eq!(field(rec(1)), (0x30, 5, 12));
        assert_eq!(field(rec(2)), (0x1000, 17, 0));
        let data = u32::from_le_bytes([a.data[0], a.data[1], a.data[2], 0]);
        assert_eq!(data & 0x1f, 0x10);
        assert_eq!((data >> 5) & 0xfff, 0xfd0);
    }

    #[test]
    fn no_addresses() {
        let a = encode(&[], 32).unwrap();
        assert_eq!((a.base, a.first_bits, a.pos_bits), (0, 0, 0));
        assert!(a.blocks.is_empty() && a.data.is_empty());
    }
}
