//! Bit-packed arrays and ULEB128 (spec section 2 and 4.4): the two ways v2 writes numbers
//! other than the fixed header fields.

/// `bits(x)`: the number of bits needed for `x`, 0 for 0 (spec section 2).
pub(crate) fn bits(x: u64) -> u8 {
    (u64::BITS - x.leading_zeros()) as u8
}

/// Writes values of any width from 0 to 64 bits one after another, least significant bit
/// first, into bytes: bit `b` of the stream is bit `b mod 8` of byte `b div 8`.
#[derive(Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    /// Bits written so far; the bytes hold exactly `ceil(len / 8)` of them.
    len: u64,
}

impl BitWriter {
    /// An empty stream.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Appends the low `width` bits of `value`; `value` must fit in them (the caller
    /// chose `width` as the smallest that holds every value, so a wider value is a bug).
    pub(crate) fn push(&mut self, value: u64, width: u8) {
        debug_assert!(width <= 64);
        debug_assert!(
            width == 64 || value >> width == 0,
            "{value} in {width} bits"
        );
        let mut value = value;
        let mut left = u32::from(width);
        while left > 0 {
            let used = (self.len % 8) as u32;
            if used == 0 {
                self.bytes.push(0);
            }
            let take = left.min(8 - used);
            let part = (value & ((1u64 << take) - 1)) as u8;
            *self.bytes.last_mut().expect("a byte was pushed") |= part << used;
            // `take` ≤ 8, so the shift is in range even for a 64-bit value.
            value >>= take;
            left -= take;
            self.len += u64::from(take);
        }
    }

    /// The bytes: `ceil(bits / 8)` of them, the unused high bits of the last one zero.
    pub(crate) fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// A packed array (spec section 2) of `values`, each in `width` bits.
pub(crate) fn pack(values: impl IntoIterator<Item = u64>, width: u8) -> Vec<u8> {
    let mut w = BitWriter::new();
    for v in values {
        w.push(v, width);
    }
    w.finish()
}

/// Appends `value` as ULEB128: seven bits per byte, low group first, the high bit of a
/// byte set when another follows.
pub(crate) fn push_uleb128(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_of_values() {
        assert_eq!(bits(0), 0);
        assert_eq!(bits(1), 1);
        assert_eq!(bits(2), 2);
        assert_eq!(bits(255), 8);
        assert_eq!(bits(256), 9);
        assert_eq!(bits(u64::MAX), 64);
    }

    #[test]
    fn packs_lsb_first_with_exact_length() {
        // 3-bit values 1, 2, 7: bits 001 010 111 → 0b11_010_001, then 0b0000000_1.
        assert_eq!(pack([1, 2, 7], 3), vec![0b1101_0001, 0b0000_0001]);
        assert_eq!(pack([0, 0], 0), Vec::<u8>::new());
        assert_eq!(pack([u64::MAX, 1], 64).len(), 16);
        let bytes = pack([0x1_2345_6789, 3], 33);
        assert_eq!(bytes.len(), 9);
        // Reading element k: the little-endian integer at byte k·w/8, shifted.
        let mut buf = [0u8; 16];
        buf[..9].copy_from_slice(&bytes);
        let word = u128::from_le_bytes(buf);
        assert_eq!(word & ((1 << 33) - 1), 0x1_2345_6789);
        assert_eq!((word >> 33) & ((1 << 33) - 1), 3);
    }

    #[test]
    fn uleb128() {
        let mut out = Vec::new();
        push_uleb128(&mut out, 0);
        push_uleb128(&mut out, 127);
        push_uleb128(&mut out, 128);
        push_uleb128(&mut out, 300);
        assert_eq!(out, vec![0, 0x7f, 0x80, 0x01, 0xac, 0x02]);
    }
}
