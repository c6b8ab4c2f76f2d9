//! Variable-length integers, the one implementation every format shares: LEB128 (unsigned
//! and signed, as DWARF, GSYM and protobuf-style symbfile records store them) and CIF's
//! `vlq7`.
//!
//! The two families differ in group order: LEB128 puts the least significant seven bits
//! first, `vlq7` the most significant. Both set bit 7 on every byte but the last, and both
//! stop at ten bytes, the most a 64-bit value needs.
//!
//! One decoder, [`decode_uleb128`], reads the groups of every LEB128 value; the
//! cursor-based readers below add what a format asks of the tenth byte. The reader only
//! decodes LEB128; the writers that encode it live in the builder (`symblob-build`),
//! which decodes with this module too.

use crate::cursor::Cursor;
use crate::ErrorKind;

/// The longest varint (LEB128 or `vlq7`) a reader accepts, in bytes.
pub const MAX_LEN: usize = 10;

/// Why a LEB128 value could not be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VarintError {
    /// The input ends inside the value (or before it).
    Truncated,
    /// The tenth byte still has its continuation bit set.
    TooLong,
}

/// Reads the unsigned LEB128 value at the start of `bytes`: its value and its length in
/// bytes, or `None` if `bytes` end inside it or it runs longer than ten bytes.
///
/// Set bits beyond the 64th (in the tenth byte) are dropped, as protobuf's decoders do.
///
/// ```
/// use symblob::varint::decode_uleb128;
///
/// assert_eq!(decode_uleb128(&[0xe5, 0x8e, 0x26, 0xff]), Some((624_485, 3)));
/// assert_eq!(decode_uleb128(&[0x80, 0x80]), None);
/// ```
#[inline(always)]
pub fn decode_uleb128(bytes: &[u8]) -> Option<(u64, usize)> {
    uleb128_prefix(bytes).ok()
}

/// [`decode_uleb128`], saying why it failed.
#[inline(always)]
pub(crate) fn uleb128_prefix(bytes: &[u8]) -> Result<(u64, usize), VarintError> {
    // One- and two-byte values are by far the most common (tags, small lengths, deltas,
    // line numbers): keep those paths inline at every call site and the loop out of line.
    match *bytes {
        [b0, ..] if b0 < 0x80 => Ok((u64::from(b0), 1)),
        [b0, b1, ..] if b1 < 0x80 => Ok((u64::from(b0 & 0x7f) | u64::from(b1).wrapping_shl(7), 2)),
        _ => uleb128_long(bytes),
    }
}

#[inline(never)]
fn uleb128_long(bytes: &[u8]) -> Result<(u64, usize), VarintError> {
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

/// Reads an unsigned LEB128 value for `section`, strictly (as DWARF and LLVM read it).
///
/// Fails if the data ends inside it, if it runs longer than ten bytes, or if set bits
/// fall outside 64 bits.
#[inline]
pub(crate) fn read_uleb128(
    cursor: &mut Cursor<'_>,
    section: &'static str,
) -> Result<u64, crate::Error> {
    // One byte is the common case (opcodes' operands, small deltas): no checks beyond it.
    if let Some(b) = single_byte(cursor) {
        return Ok(u64::from(b));
    }
    // The tenth byte holds bit 63 only.
    read_leb128(cursor, section, |group| group <= 1).map(|(value, _)| value)
}

/// Reads a signed LEB128 value for `section` (sign-extended from its last group).
///
/// Fails like [`read_uleb128`]; a tenth byte must only repeat the sign.
#[inline]
pub(crate) fn read_sleb128(
    cursor: &mut Cursor<'_>,
    section: &'static str,
) -> Result<i64, crate::Error> {
    if let Some(b) = single_byte(cursor) {
        // Seven bits, sign-extended from bit 6.
        return Ok(i64::from(b).wrapping_sub(if b & 0x40 != 0 { 0x80 } else { 0 }));
    }
    // The tenth byte holds bit 63 only; its other bits must be copies of the sign.
    let (mut value, len) = read_leb128(cursor, section, |group| group == 0 || group == 0x7f)?;
    let shift = u32::try_from(len).unwrap_or(u32::MAX).saturating_mul(7);
    let last_group_negative = shift < 64 && value.wrapping_shr(shift.saturating_sub(1)) & 1 != 0;
    if last_group_negative {
        value |= u64::MAX.wrapping_shl(shift);
    }
    Ok(i64::from_ne_bytes(value.to_ne_bytes()))
}

/// The byte at the cursor, taken, if it is a whole LEB128 value (below 0x80).
#[inline(always)]
fn single_byte(cursor: &mut Cursor<'_>) -> Option<u8> {
    let b = *cursor.data().get(cursor.pos())?;
    if b >= 0x80 {
        return None;
    }
    cursor.take_opt(1);
    Some(b)
}

/// One LEB128 value by [`uleb128_prefix`] at the cursor: `(bits, bytes read)`.
/// `tenth_fits` says whether the tenth byte's group fits the 64-bit result.
#[inline]
fn read_leb128(
    cursor: &mut Cursor<'_>,
    section: &'static str,
    tenth_fits: fn(u64) -> bool,
) -> Result<(u64, usize), crate::Error> {
    let start = cursor.offset();
    let rest = cursor.data().get(cursor.pos()..).unwrap_or_default();
    let result = uleb128_prefix(rest);
    let ten_bytes = matches!(result, Ok((_, MAX_LEN)) | Err(VarintError::TooLong));
    let tenth = rest.get(MAX_LEN.saturating_sub(1)).copied();
    let kind = match result {
        _ if ten_bytes && tenth.is_some_and(|b| !tenth_fits(u64::from(b & 0x7f))) => {
            ErrorKind::Overflow
        }
        Ok((value, len)) => {
            cursor.take(len, section)?;
            return Ok((value, len));
        }
        Err(VarintError::TooLong) => ErrorKind::Malformed("LEB128 longer than 10 bytes"),
        Err(VarintError::Truncated) => {
            cursor.skip_to_end();
            return Err(cursor.truncated(section, 1));
        }
    };
    // Past the ten bytes read, as a byte-by-byte reader would be.
    cursor.take_opt(MAX_LEN);
    Err(cursor.error_at(section, start, kind))
}

/// Reads a `vlq7` (most significant group first) for `section`, rejecting values above
/// `limit`; the check runs after every byte, so over-long garbage is rejected early.
pub(crate) fn read_vlq7(
    cursor: &mut Cursor<'_>,
    limit: u64,
    section: &'static str,
) -> Result<u64, crate::Error> {
    let start = cursor.offset();
    let mut value: u64 = 0;
    for _ in 0..MAX_LEN {
        let b = cursor.byte(section)?;
        // Seven more bits must not push set bits out of the top.
        let overflows = value.leading_zeros() < 7;
        value = value.wrapping_shl(7) | u64::from(b & 0x7f);
        if overflows || value > limit {
            return Err(cursor.error_at(section, start, ErrorKind::OutOfRange { value, limit }));
        }
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(cursor.error_at(
        section,
        start,
        ErrorKind::Malformed("vlq7 longer than 10 bytes"),
    ))
}

/// Fills `buf` from the front with the `vlq7` encoding of `value`; returns the length.
///
/// With `redundant_top_group` set, a value whose bit length is a multiple of seven gets
/// one leading `0x80` group more than it needs (Swift's encoder does this).
pub(crate) fn vlq7_bytes(value: u64, redundant_top_group: bool, buf: &mut [u8; MAX_LEN]) -> usize {
    let bits = u64::BITS.wrapping_sub(value.leading_zeros());
    let first_shift = if redundant_top_group {
        // Swift starts at 7 * (bits / 7), one group too high when bits % 7 == 0.
        (bits / 7).saturating_mul(7)
    } else {
        // Shortest: the highest group that holds a set bit (group 0 for zero).
        (bits.saturating_sub(1) / 7).saturating_mul(7)
    };
    let mut shift = first_shift;
    let mut len = 0usize;
    for slot in buf.iter_mut() {
        let group = u8::try_from(value.wrapping_shr(shift) & 0x7f).unwrap_or(0);
        len = len.saturating_add(1);
        if shift == 0 {
            *slot = group;
            break;
        }
        *slot = group | 0x80;
        shift = shift.saturating_sub(7);
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    fn uleb(bytes: &[u8]) -> Result<(u64, usize), crate::Error> {
        let mut c = Cursor::new(bytes, Format::Cif);
        read_uleb128(&mut c, "t").map(|v| (v, c.pos()))
    }

    fn sleb(bytes: &[u8]) -> Result<(i64, usize), crate::Error> {
        let mut c = Cursor::new(bytes, Format::Cif);
        read_sleb128(&mut c, "t").map(|v| (v, c.pos()))
    }

    // Values from the DWARF 5 standard, section 7.6, figures 22 and 23.
    #[test]
    fn leb128_matches_the_dwarf_examples() {
        assert_eq!(uleb(&[2]), Ok((2, 1)));
        assert_eq!(uleb(&[127]), Ok((127, 1)));
        assert_eq!(uleb(&[0x80, 1]), Ok((128, 2)));
        assert_eq!(uleb(&[0x81, 1]), Ok((129, 2)));
        assert_eq!(uleb(&[0x82, 1]), Ok((130, 2)));
        assert_eq!(uleb(&[0xb9, 0x64]), Ok((12857, 2)));
        assert_eq!(sleb(&[2]), Ok((2, 1)));
        assert_eq!(sleb(&[0x7e]), Ok((-2, 1)));
        assert_eq!(sleb(&[0xff, 0]), Ok((127, 2)));
        assert_eq!(sleb(&[0x81, 0x7f]), Ok((-127, 2)));
        assert_eq!(sleb(&[0x80, 1]), Ok((128, 2)));
        assert_eq!(sleb(&[0x80, 0x7f]), Ok((-128, 2)));
    }

    #[test]
    fn leb128_limits() {
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(uleb(&max), Ok((u64::MAX, 10)));
        let too_big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(uleb(&too_big).map_err(|e| e.kind), Err(ErrorKind::Overflow));
        let min = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f];
        assert_eq!(sleb(&min), Ok((i64::MIN, 10)));
        assert!(uleb(&[0x80; 11]).is_err());
        assert!(sleb(&[0x80; 11]).is_err());
        assert!(matches!(
            uleb(&[0x80]).map_err(|e| e.kind),
            Err(ErrorKind::Truncated { .. })
        ));
    }

    // Examples from the protobuf encoding guide; bits beyond 64 are dropped as protobuf does.
    #[test]
    fn decode_uleb128_reads_protobuf_varints() {
        assert_eq!(uleb128_prefix(&[0x00]), Ok((0, 1)));
        assert_eq!(uleb128_prefix(&[0x96, 0x01]), Ok((150, 2)));
        assert_eq!(uleb128_prefix(&[0xc0, 0x0c, 0xff]), Ok((0x640, 2)));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(uleb128_prefix(&max), Ok((u64::MAX, 10)));
        let wide = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(uleb128_prefix(&wide), Ok((u64::MAX, 10)));
        assert_eq!(uleb128_prefix(&[0x80; 10]), Err(VarintError::TooLong));
        assert_eq!(uleb128_prefix(&[0x80, 0x80]), Err(VarintError::Truncated));
        assert_eq!(uleb128_prefix(&[]), Err(VarintError::Truncated));
        assert_eq!(decode_uleb128(&[0x80, 0x80]), None);
    }

    #[test]
    fn zigzag_matches_protobuf() {
        for (raw, v) in [(0, 0), (1, -1), (2, 1), (3, -2), (840, 420), (55, -28)] {
            assert_eq!(zigzag(raw), v);
        }
        assert_eq!(zigzag(u64::MAX), i64::MIN);
    }

    #[test]
    fn strict_readers_stop_where_a_byte_by_byte_reader_would() {
        let too_big = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x82, 0x01,
        ];
        let mut c = Cursor::new(&too_big, Format::Cif);
        let err = read_uleb128(&mut c, "t").unwrap_err();
        assert_eq!(
            (err.kind, err.offset, c.pos()),
            (ErrorKind::Overflow, 0, 10)
        );
        let mut c = Cursor::new(&[7, 0x80], Format::Cif);
        assert_eq!(read_uleb128(&mut c, "t"), Ok(7));
        let err = read_uleb128(&mut c, "t").unwrap_err();
        assert_eq!(err.offset, 2);
        assert_eq!(
            err.kind,
            ErrorKind::Truncated {
                needed: 1,
                available: 0
            }
        );
    }

    #[test]
    fn vlq7_round_trips_in_both_forms() {
        for value in [0, 1, 63, 64, 127, 128, 8191, 8192, 16383, 16384, u64::MAX] {
            for redundant in [false, true] {
                let mut buf = [0u8; MAX_LEN];
                let len = vlq7_bytes(value, redundant, &mut buf);
                let mut c = Cursor::new(&buf[..len], Format::Cif);
                assert_eq!(read_vlq7(&mut c, u64::MAX, "t"), Ok(value));
                assert_eq!(c.pos(), len);
            }
        }
        let mut buf = [0u8; MAX_LEN];
        let len = vlq7_bytes(127, true, &mut buf);
        assert_eq!(&buf[..len], &[0x80, 0x7f]);
        let len = vlq7_bytes(127, false, &mut buf);
        assert_eq!(&buf[..len], &[0x7f]);
    }
}
