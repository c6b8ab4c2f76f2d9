//! Bounds-checked views of a blob's sections, shared by the format readers.

use crate::error::{Error, ErrorKind, Format};

/// A `usize` as `u64` (lossless on every host Rust supports; saturates otherwise).
pub(crate) fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// `bytes[offset .. offset + size]` with overflow-safe arithmetic; otherwise a
/// `Truncated` (or `Overflow`) error of `format`'s section `name` at `offset`.
pub(crate) fn checked_slice<'a>(
    bytes: &'a [u8],
    format: Format,
    name: &'static str,
    offset: u64,
    size: u64,
) -> Result<&'a [u8], Error> {
    let overflow = || Error::new(format, name, offset, ErrorKind::Overflow);
    let end = offset.checked_add(size).ok_or_else(overflow)?;
    let len = to_u64(bytes.len());
    if end > len {
        let available = len.saturating_sub(offset);
        let kind = ErrorKind::Truncated {
            needed: size,
            available,
        };
        return Err(Error::new(format, name, offset, kind));
    }
    let start = usize::try_from(offset).map_err(|_| overflow())?;
    let end = usize::try_from(end).map_err(|_| overflow())?;
    bytes.get(start..end).ok_or_else(overflow)
}
