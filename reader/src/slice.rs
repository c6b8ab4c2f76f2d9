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

/// The length of the NUL-terminated string at the start of `bytes` (all of `bytes` when
/// there is no NUL). Eight bytes a step (the zero-byte test of "Bit Twiddling Hacks"):
/// names are read on every lookup, and a byte loop costs several times as much; the
/// reader links no `memchr` because its no-panic proof covers every function it calls.
#[inline]
pub(crate) fn nul_terminated_len(bytes: &[u8]) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut skipped = 0usize;
    for word in &mut words {
        // Always eight bytes; a failed conversion would only send the scan to the byte loop.
        let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        if v.wrapping_sub(LOW) & !v & HIGH != 0 {
            break;
        }
        skipped = skipped.saturating_add(8);
    }
    let rest = bytes.get(skipped..).unwrap_or_default();
    skipped.saturating_add(rest.iter().position(|&b| b == 0).unwrap_or(rest.len()))
}

#[cfg(test)]
mod tests {
    use super::nul_terminated_len;

    #[test]
    fn nul_terminated_len_finds_the_first_nul_at_every_position() {
        for len in 0..40 {
            for nul in 0..=len {
                let mut buffer = [0u8; 40];
                let bytes = &mut buffer[..len];
                // High bytes and 0x01 next to each other stress the zero-byte test.
                for (i, b) in bytes.iter_mut().enumerate() {
                    *b = if i % 3 == 0 { 0x01 } else { 0xff };
                }
                if nul < len {
                    bytes[nul] = 0;
                    bytes.iter_mut().skip(nul + 1).for_each(|b| *b = 0);
                }
                let want = bytes.iter().position(|&b| b == 0).unwrap_or(len);
                assert_eq!(nul_terminated_len(bytes), want, "{bytes:?}");
            }
        }
    }
}
