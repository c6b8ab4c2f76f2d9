//! Unsigned LEB128 (protobuf varint) decoding, self-contained so that it can later be
//! shared with the other readers.

/// Longest varint accepted: ten bytes hold 64 bits (spec §1).
pub(crate) const MAX_LEN: usize = 10;

/// Why a varint could not be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VarintError {
    /// The input ends inside the varint (or before it).
    Truncated,
    /// The tenth byte still has its continuation bit set.
    TooLong,
}

/// Reads the varint at the start of `bytes`: its value and its byte length.
///
/// Bits beyond the 64th (in the tenth byte) are dropped, as protobuf's decoders do.
#[inline(always)]
pub(crate) fn read(bytes: &[u8]) -> Result<(u64, usize), VarintError> {
    // One- and two-byte values are by far the most common (tags, small lengths, deltas,
    // line numbers): keep those paths inline at every call site and the loop out of line.
    match *bytes {
        [b0, ..] if b0 < 0x80 => Ok((u64::from(b0), 1)),
        [b0, b1, ..] if b1 < 0x80 => Ok((u64::from(b0 & 0x7f) | u64::from(b1).wrapping_shl(7), 2)),
        _ => read_long(bytes),
    }
}

#[inline(never)]
fn read_long(bytes: &[u8]) -> Result<(u64, usize), VarintError> {
    let mut value = 0u64;
    let mut shift = 0u32;
    for (i, &b) in bytes.iter().take(MAX_LEN).enumerate() {
        value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b < 0x80 {
            return Ok((value, i.saturating_add(1)));
        }
        shift = shift.saturating_add(7);
    }
    if bytes.len() >= MAX_LEN {
        Err(VarintError::TooLong)
    } else {
        Err(VarintError::Truncated)
    }
}

/// Decodes a zigzag-coded signed value (protobuf `sint64`).
#[inline]
pub(crate) fn zigzag(n: u64) -> i64 {
    // The shifted value fits i64 (its top bit is clear); the cast only reinterprets.
    #[allow(clippy::cast_possible_wrap)]
    let half = (n >> 1) as i64;
    #[allow(clippy::cast_possible_wrap)]
    let sign = (n & 1) as i64;
    half ^ sign.wrapping_neg()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_protobuf_examples() {
        assert_eq!(read(&[0x00]), Ok((0, 1)));
        assert_eq!(read(&[0x96, 0x01]), Ok((150, 2)));
        assert_eq!(read(&[0xc0, 0x0c, 0xff]), Ok((0x640, 2)));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(read(&max), Ok((u64::MAX, 10)));
        assert_eq!(read(&[0x80; 10]), Err(VarintError::TooLong));
        assert_eq!(read(&[0x80, 0x80]), Err(VarintError::Truncated));
        assert_eq!(read(&[]), Err(VarintError::Truncated));
    }

    #[test]
    fn zigzag_matches_protobuf() {
        for (raw, v) in [(0, 0), (1, -1), (2, 1), (3, -2), (840, 420), (55, -28)] {
            assert_eq!(zigzag(raw), v);
        }
        assert_eq!(zigzag(u64::MAX), i64::MIN);
    }
}
