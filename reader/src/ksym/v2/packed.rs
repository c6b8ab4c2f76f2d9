//! Bit-packed arrays (spec section 2): element `k` of width `w` is bits `k·w … k·w + w − 1`,
//! least significant bit first.

/// Reads `width` bits (at most 64) starting at bit `bit` of `bytes`; bits past the end of
/// `bytes` read as zero, so a truncated array answers in bounds instead of panicking.
///
/// Fields of up to 56 bits sit in the 8 bytes from their first byte: one load, shift and
/// mask, no branch but the bounds check, inlined into the searches. Wider fields and the
/// last bytes of an array take [`bits_at_general`], out of line: inlined in every probe
/// of a search, its 16-byte windows made the address lookup twice as large.
#[inline(always)]
pub(crate) fn bits_at(bytes: &[u8], bit: u64, width: u32) -> u64 {
    if width <= 56 {
        if let Ok(byte) = usize::try_from(bit >> 3) {
            if let Some(window) = bytes.get(byte..byte.wrapping_add(8)) {
                let window = <[u8; 8]>::try_from(window).map_or(0, u64::from_le_bytes);
                // Width 0 masks everything off.
                let mask = 1u64.wrapping_shl(width).wrapping_sub(1);
                return (window >> (bit & 7)) & mask;
            }
        }
    }
    bits_at_general(bytes, bit, width)
}

// The u128 window is cut to the low 64 bits on purpose: the field is at most 64 bits.
#[allow(clippy::cast_possible_truncation)]
/// [`bits_at`] for any width and position.
#[cold]
#[inline(never)]
fn bits_at_general(bytes: &[u8], bit: u64, width: u32) -> u64 {
    if width == 0 {
        return 0;
    }
    let Ok(byte) = usize::try_from(bit >> 3) else {
        return 0;
    };
    let shift = u32::try_from(bit & 7).unwrap_or(0);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        1u64.wrapping_shl(width).wrapping_sub(1)
    };
    // Up to 56 bits fit in one unaligned 8-byte window after the shift; wider fields take
    // a 16-byte window. Both are one load on the fast path.
    if width.wrapping_add(shift) <= 64 {
        let window = match bytes.get(byte..byte.wrapping_add(8)) {
            Some(w) => <[u8; 8]>::try_from(w).map_or(0, u64::from_le_bytes),
            None => tail::<8>(bytes, byte).map_or(0, u64::from_le_bytes),
        };
        (window >> shift) & mask
    } else {
        let window = match bytes.get(byte..byte.wrapping_add(16)) {
            Some(w) => <[u8; 16]>::try_from(w).map_or(0, u128::from_le_bytes),
            None => tail::<16>(bytes, byte).map_or(0, u128::from_le_bytes),
        };
        ((window >> shift) as u64) & mask
    }
}

/// The bytes from `at` to the end of `bytes`, zero-filled to `N` (the last elements of an
/// array sit less than a window from its end).
#[inline(never)]
fn tail<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    let rest = bytes.get(at..)?;
    let mut window = [0u8; N];
    for (w, b) in window.iter_mut().zip(rest) {
        *w = *b;
    }
    Some(window)
}

/// A packed array of fixed-width elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Packed<'a> {
    /// The array's bytes.
    pub bytes: &'a [u8],
    /// Bits per element (0–64).
    pub width: u32,
}

impl Packed<'_> {
    /// Element `k` (0 past the end of the bytes).
    #[inline(always)]
    pub fn get(&self, k: usize) -> u64 {
        bits_at(
            self.bytes,
            (k as u64).wrapping_mul(u64::from(self.width)),
            self.width,
        )
    }
}

/// Bytes of a packed array of `count` elements of `width` bits: `ceil(count·width / 8)`.
pub(crate) fn packed_len(count: u64, width: u32) -> Option<u64> {
    count
        .checked_mul(u64::from(width))
        .and_then(|bits| bits.checked_add(7))
        .map(|bits| bits >> 3)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::{vec, vec::Vec};

    /// Packs `values` of `width` bits the way the spec says, bit by bit.
    fn pack(values: &[u64], width: u32) -> Vec<u8> {
        let mut out = vec![0u8; packed_len(values.len() as u64, width).unwrap() as usize];
        for (k, v) in values.iter().enumerate() {
            for b in 0..width {
                if v >> b & 1 == 1 {
                    let bit = k * width as usize + b as usize;
                    out[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        out
    }

    #[test]
    fn every_width_reads_back_what_was_packed() {
        for width in 0..=64u32 {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let values: Vec<u64> = (0..37u64)
                .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) & mask)
                .collect();
            let bytes = pack(&values, width);
            let array = Packed {
                bytes: &bytes,
                width,
            };
            for (k, v) in values.iter().enumerate() {
                assert_eq!(array.get(k), *v, "width {width}, element {k}");
            }
            assert_eq!(array.get(values.len() + 3), 0);
        }
    }
}
