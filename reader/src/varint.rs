//! Variable-length integers, read through the shared [`Cursor`]: LEB128 (unsigned and
//! signed, as DWARF and protobuf-style records store them) and CIF's `vlq7`.
//!
//! The two families differ in group order: LEB128 puts the least significant seven bits
//! first, `vlq7` the most significant. Both set bit 7 on every byte but the last, and both
//! stop at ten bytes, the most a 64-bit value needs.

use crate::cursor::Cursor;
use crate::ErrorKind;

/// The longest varint (LEB128 or `vlq7`) a reader accepts, in bytes.
pub(crate) const MAX_VARINT_LEN: usize = 10;

/// Reads an unsigned LEB128 value for `section`.
///
/// Fails if the data ends inside it, if it runs longer than ten bytes, or if set bits
/// fall outside 64 bits.
// Not every format reads LEB128 yet; the tests cover it.
#[allow(dead_code)]
pub(crate) fn read_uleb128(
    cursor: &mut Cursor<'_>,
    section: &'static str,
) -> Result<u64, crate::Error> {
    // The tenth byte holds bit 63 only.
    read_leb128(cursor, section, |group| group <= 1).map(|(value, _)| value)
}

/// Reads a signed LEB128 value for `section` (sign-extended from its last group).
///
/// Fails like [`read_uleb128`]; a tenth byte must only repeat the sign.
#[allow(dead_code)]
pub(crate) fn read_sleb128(
    cursor: &mut Cursor<'_>,
    section: &'static str,
) -> Result<i64, crate::Error> {
    // The tenth byte holds bit 63 only; its other bits must be copies of the sign.
    let (mut value, shift) = read_leb128(cursor, section, |group| group == 0 || group == 0x7f)?;
    let last_group_negative = shift < 64 && value.wrapping_shr(shift.saturating_sub(1)) & 1 != 0;
    if last_group_negative {
        value |= u64::MAX.wrapping_shl(shift);
    }
    Ok(i64::from_ne_bytes(value.to_ne_bytes()))
}

/// The groups of one LEB128 value, least significant first: `(bits, bits read)`.
/// `tenth_fits` says whether the tenth byte's group fits the 64-bit result.
fn read_leb128(
    cursor: &mut Cursor<'_>,
    section: &'static str,
    tenth_fits: fn(u64) -> bool,
) -> Result<(u64, u32), crate::Error> {
    let start = cursor.offset();
    let mut value: u64 = 0;
    let mut shift: u32 = 0;
    for _ in 0..MAX_VARINT_LEN {
        let b = cursor.byte(section)?;
        let group = u64::from(b & 0x7f);
        if shift == 63 && !tenth_fits(group) {
            return Err(cursor.error_at(section, start, ErrorKind::Overflow));
        }
        value |= group.wrapping_shl(shift);
        shift = shift.saturating_add(7);
        if b & 0x80 == 0 {
            return Ok((value, shift));
        }
    }
    Err(cursor.error_at(
        section,
        start,
        ErrorKind::Malformed("LEB128 longer than 10 bytes"),
    ))
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
    for _ in 0..MAX_VARINT_LEN {
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
pub(crate) fn vlq7_bytes(
    value: u64,
    redundant_top_group: bool,
    buf: &mut [u8; MAX_VARINT_LEN],
) -> usize {
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

    #[test]
    fn vlq7_round_trips_in_both_forms() {
        for value in [0, 1, 63, 64, 127, 128, 8191, 8192, 16383, 16384, u64::MAX] {
            for redundant in [false, true] {
                let mut buf = [0u8; MAX_VARINT_LEN];
                let len = vlq7_bytes(value, redundant, &mut buf);
                let mut c = Cursor::new(&buf[..len], Format::Cif);
                assert_eq!(read_vlq7(&mut c, u64::MAX, "t"), Ok(value));
                assert_eq!(c.pos(), len);
            }
        }
        let mut buf = [0u8; MAX_VARINT_LEN];
        let len = vlq7_bytes(127, true, &mut buf);
        assert_eq!(&buf[..len], &[0x80, 0x7f]);
        let len = vlq7_bytes(127, false, &mut buf);
        assert_eq!(&buf[..len], &[0x7f]);
    }
}
