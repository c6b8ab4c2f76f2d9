//! `vlq7`: the variable-length count used for the image count and the build-ID length.
//!
//! Groups of seven bits, most significant group first, bit 7 set on every byte but the
//! last. Swift's encoder writes a redundant leading `0x80` group when the value's bit
//! length is a multiple of seven (64..=127, 8192..=16383, …); decoders accept any number
//! of leading zero groups within the ten-byte limit.

use super::cursor::Cursor;
use super::encode::EncodeMode;
use crate::{Error, ErrorKind, Format};

/// The longest `vlq7` a decoder accepts, in bytes.
pub const MAX_VLQ7_LEN: usize = 10;

/// Writes `value` as a `vlq7` into `out` and returns how many bytes it took (1..=10).
///
/// [`EncodeMode::Canonical`] writes the shortest form; [`EncodeMode::Swift`] writes the
/// form Swift's encoder writes (`80 7f` for 127). Fails only if `out` is too short.
pub fn encode_vlq7(value: u64, mode: EncodeMode, out: &mut [u8]) -> Result<usize, Error> {
    let mut tmp = [0u8; MAX_VLQ7_LEN];
    let len = vlq7_bytes(value, mode, &mut tmp);
    // Both sides are cut to `len`, so the copy has no length check that could fail.
    match (out.get_mut(..len), tmp.get(..len)) {
        (Some(dst), Some(src)) => {
            dst.copy_from_slice(src);
            Ok(len)
        }
        _ => Err(Error::new(
            Format::Cif,
            "vlq7",
            0,
            ErrorKind::BufferTooSmall {
                needed: u64::try_from(len).unwrap_or(u64::MAX),
            },
        )),
    }
}

/// Reads a `vlq7` from the start of `bytes`: `(value, bytes used)`.
///
/// Fails if the value exceeds `limit` (checked after every byte, so over-long garbage is
/// rejected early), if it runs longer than ten bytes, or if `bytes` ends inside it.
pub fn decode_vlq7(bytes: &[u8], limit: u64) -> Result<(u64, usize), Error> {
    let mut cursor = Cursor::new(bytes);
    let value = read_vlq7(&mut cursor, limit, "vlq7")?;
    Ok((value, cursor.pos()))
}

/// Fills `buf` from the front with the encoding of `value`; returns the length.
pub(crate) fn vlq7_bytes(value: u64, mode: EncodeMode, buf: &mut [u8; MAX_VLQ7_LEN]) -> usize {
    let bits = u64::BITS.wrapping_sub(value.leading_zeros());
    let first_shift = match mode {
        // Shortest: the highest group that holds a set bit (group 0 for zero).
        EncodeMode::Canonical => (bits.saturating_sub(1) / 7).saturating_mul(7),
        // Swift starts at 7 * (bits / 7), one group too high when bits % 7 == 0.
        EncodeMode::Swift => (bits / 7).saturating_mul(7),
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

/// Reads a `vlq7` for `section`, rejecting values above `limit`.
pub(crate) fn read_vlq7(
    cursor: &mut Cursor<'_>,
    limit: u64,
    section: &'static str,
) -> Result<u64, Error> {
    let start = cursor.offset();
    let mut value: u64 = 0;
    for _ in 0..MAX_VLQ7_LEN {
        let b = cursor.byte(section)?;
        // Seven more bits must not push set bits out of the top.
        let overflows = value.leading_zeros() < 7;
        value = value.wrapping_shl(7) | u64::from(b & 0x7f);
        if overflows || value > limit {
            return Err(Error::new(
                Format::Cif,
                section,
                start,
                ErrorKind::OutOfRange { value, limit },
            ));
        }
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Error::new(
        Format::Cif,
        section,
        start,
        ErrorKind::Malformed("vlq7 longer than 10 bytes"),
    ))
}
