//! `vlq7`: the variable-length count used for the image count and the build-ID length.
//!
//! Groups of seven bits, most significant group first, bit 7 set on every byte but the
//! last. Swift's encoder writes a redundant leading `0x80` group when the value's bit
//! length is a multiple of seven (64..=127, 8192..=16383, …); decoders accept any number
//! of leading zero groups within the ten-byte limit. The bytes are read and written by
//! the crate's shared varint module; this is CIF's public face of it.

use super::image::EncodeMode;
use crate::cursor::Cursor;
use crate::varint::{read_vlq7, vlq7_bytes as write_vlq7, MAX_LEN};
use crate::{Error, ErrorKind, Format};

/// The longest `vlq7` a decoder accepts, in bytes.
pub const MAX_VLQ7_LEN: usize = MAX_LEN;

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
    let mut cursor = Cursor::new(bytes, Format::Cif);
    let value = read_vlq7(&mut cursor, limit, "vlq7")?;
    Ok((value, cursor.pos()))
}

/// Fills `buf` from the front with the encoding of `value` in `mode`; returns the length.
pub(crate) fn vlq7_bytes(value: u64, mode: EncodeMode, buf: &mut [u8; MAX_VLQ7_LEN]) -> usize {
    write_vlq7(value, mode == EncodeMode::Swift, buf)
}
