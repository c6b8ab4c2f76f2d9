//! The text form of a CIF stream: base64 without allocation, as crash logs carry it.
//!
//! Swift stores an image map in JSON as one base64 string with the standard alphabet and
//! no `=` padding. Writing follows that; reading accepts the standard and the URL-safe
//! alphabet, with or without padding, and skips ASCII whitespace (wrapped lines).

use crate::{Error, ErrorKind, Format};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Length of the unpadded base64 text for `len` bytes.
pub const fn base64_encoded_len(len: usize) -> usize {
    let full = (len / 3).saturating_mul(4);
    match len % 3 {
        0 => full,
        1 => full.saturating_add(2),
        _ => full.saturating_add(3),
    }
}

/// The most bytes `text_len` characters of base64 can decode to.
pub const fn base64_decoded_len_max(text_len: usize) -> usize {
    // Each group of four characters gives three bytes; a tail of 2 or 3 gives 1 or 2.
    (text_len / 4)
        .saturating_mul(3)
        .saturating_add((text_len % 4).saturating_sub(1))
}

fn error(offset: usize, kind: ErrorKind) -> Error {
    Error::new(
        Format::Cif,
        "base64 text",
        u64::try_from(offset).unwrap_or(u64::MAX),
        kind,
    )
}

/// Writes `bytes` as unpadded standard base64 into `out`; returns the text length.
///
/// Fails with [`ErrorKind::BufferTooSmall`] if `out` is shorter than
/// [`base64_encoded_len`]`(bytes.len())`.
pub fn base64_encode(bytes: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    let needed = base64_encoded_len(bytes.len());
    let Some(out) = out.get_mut(..needed) else {
        return Err(error(
            0,
            ErrorKind::BufferTooSmall {
                needed: u64::try_from(needed).unwrap_or(u64::MAX),
            },
        ));
    };
    let mut slots = out.iter_mut();
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let group = b(0).wrapping_shl(16) | b(1).wrapping_shl(8) | b(2);
        // n input bytes give n + 1 characters.
        let chars = chunk.len().saturating_add(1);
        for i in 0..chars {
            let shift = 18u32.saturating_sub(u32::try_from(i).unwrap_or(0).saturating_mul(6));
            let index = usize::try_from(group.wrapping_shr(shift) & 0x3f).unwrap_or(0);
            if let (Some(slot), Some(&c)) = (slots.next(), ALPHABET.get(index)) {
                *slot = c;
            }
        }
    }
    Ok(needed)
}

fn sextet(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c.wrapping_sub(b'A'),
        b'a'..=b'z' => c.wrapping_sub(b'a').wrapping_add(26),
        b'0'..=b'9' => c.wrapping_sub(b'0').wrapping_add(52),
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// Whether `c` can start base64 text (a raw CIF stream starts with 0x00..=0x02, which
/// cannot).
pub fn is_base64_char(c: u8) -> bool {
    sextet(c).is_some()
}

/// Decodes base64 `text` into `out`; returns the number of bytes written.
///
/// Accepts both alphabets; `=` ends the data (only `=` and whitespace may follow);
/// whitespace is skipped. Fails on any other character, on a lone trailing character
/// (six bits cannot make a byte), or if `out` is too small.
pub fn base64_decode(text: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    let mut acc: u32 = 0;
    let mut bits: u32 = 0;
    let mut written = 0usize;
    let mut padding = false;
    let mut last_data = 0usize;
    for (at, &c) in text.iter().enumerate() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            padding = true;
            continue;
        }
        let Some(v) = sextet(c).filter(|_| !padding) else {
            return Err(error(at, ErrorKind::Malformed("not a base64 character")));
        };
        last_data = at;
        acc = acc.wrapping_shl(6) | v;
        bits = bits.saturating_add(6);
        if bits >= 8 {
            bits = bits.saturating_sub(8);
            let byte = u8::try_from(acc.wrapping_shr(bits) & 0xff).unwrap_or(0);
            match out.get_mut(written) {
                Some(slot) => *slot = byte,
                None => {
                    return Err(error(
                        at,
                        ErrorKind::BufferTooSmall {
                            needed: u64::try_from(base64_decoded_len_max(text.len()))
                                .unwrap_or(u64::MAX),
                        },
                    ))
                }
            }
            written = written.saturating_add(1);
            acc &= 0xff;
        }
    }
    if bits >= 6 {
        return Err(error(
            last_data,
            ErrorKind::Malformed("base64 text ends with a lone character"),
        ));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors_without_padding() {
        let cases: [(&[u8], &str); 7] = [
            (b"", ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
        ];
        for (raw, text) in cases {
            let mut buf = [0u8; 16];
            let n = base64_encode(raw, &mut buf).unwrap();
            assert_eq!(&buf[..n], text.as_bytes());
            assert_eq!(n, base64_encoded_len(raw.len()));
            let mut back = [0u8; 16];
            let m = base64_decode(text.as_bytes(), &mut back).unwrap();
            assert_eq!(&back[..m], raw);
        }
    }

    #[test]
    fn padding_url_alphabet_and_errors() {
        let mut out = [0u8; 8];
        assert_eq!(base64_decode(b"Zm8=", &mut out), Ok(2));
        assert_eq!(base64_decode(b"-_8", &mut out), Ok(2));
        assert_eq!(&out[..2], &[0xfb, 0xff]);
        assert!(base64_decode(b"Zm8=x", &mut out).is_err());
        assert!(base64_decode(b"Z", &mut out).is_err());
        assert!(base64_decode(b"Zm*v", &mut out).is_err());
        assert!(base64_decode(b"Zm9vYmFy", &mut out[..5]).is_err());
    }
}
