//! The stream header: info byte (version and word size) and platform string.

use crate::{Error, ErrorKind, Format};

/// The only format version there is; the info byte's upper six bits must be zero.
pub const VERSION: u8 = 0;

/// Word size of the process whose images a stream describes (info byte bits 1..0).
///
/// Base addresses and ends of text are reduced modulo 2^bits on decode, and must fit in
/// `bits` on encode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WordSize {
    /// 16-bit addresses (size code `00`).
    Bits16,
    /// 32-bit addresses (size code `01`).
    Bits32,
    /// 64-bit addresses (size code `10`); x86-64 and arm64 streams start with `0x02`.
    Bits64,
}

impl WordSize {
    /// The word size in bits: 16, 32 or 64.
    pub const fn bits(self) -> u32 {
        match self {
            WordSize::Bits16 => 16,
            WordSize::Bits32 => 32,
            WordSize::Bits64 => 64,
        }
    }

    /// The word size for `bits` (16, 32 or 64), or `None`.
    pub const fn from_bits(bits: u32) -> Option<Self> {
        match bits {
            16 => Some(WordSize::Bits16),
            32 => Some(WordSize::Bits32),
            64 => Some(WordSize::Bits64),
            _ => None,
        }
    }

    /// The mask that reduces an address to this word size.
    pub const fn mask(self) -> u64 {
        match self {
            WordSize::Bits16 => 0xffff,
            WordSize::Bits32 => 0xffff_ffff,
            WordSize::Bits64 => u64::MAX,
        }
    }

    /// The two size bits of the info byte.
    pub(crate) const fn code(self) -> u8 {
        match self {
            WordSize::Bits16 => 0,
            WordSize::Bits32 => 1,
            WordSize::Bits64 => 2,
        }
    }

    /// Reads `value` modulo 2^bits as a two's-complement number of this width.
    pub(crate) fn to_signed(self, value: u64) -> i64 {
        let shift = 64u32.wrapping_sub(self.bits());
        // Shift the word's sign bit into bit 63, then shift back arithmetically.
        i64::from_ne_bytes(value.wrapping_shl(shift).to_ne_bytes()).wrapping_shr(shift)
    }
}

/// What a stream says about the process as a whole: its word size and platform.
///
/// The encoder takes one; [`Decoder::header`](super::Decoder::header) returns the one a
/// stream carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Header<'a> {
    /// Word size of the captured process.
    pub word_size: WordSize,
    /// Free-form platform text, at most 255 bytes of UTF-8, e.g. `Linux (Debian GNU/Linux
    /// 12 (bookworm))`. Empty for streams in the older layout without a platform field.
    pub platform: &'a str,
}

impl<'a> Header<'a> {
    /// A header for `word_size` and `platform`.
    pub const fn new(word_size: WordSize, platform: &'a str) -> Self {
        Header {
            word_size,
            platform,
        }
    }
}

/// Splits the info byte into version and word size.
pub(crate) fn parse_info(info: u8) -> Result<WordSize, Error> {
    let version = info.wrapping_shr(2);
    if version != VERSION {
        return Err(Error::new(
            Format::Cif,
            "info byte",
            0,
            ErrorKind::UnsupportedVersion(u64::from(version)),
        ));
    }
    match info & 3 {
        0 => Ok(WordSize::Bits16),
        1 => Ok(WordSize::Bits32),
        2 => Ok(WordSize::Bits64),
        reserved => Err(Error::new(
            Format::Cif,
            "info byte",
            0,
            ErrorKind::BadFieldSize(u64::from(reserved)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_extension_follows_the_word_size() {
        assert_eq!(WordSize::Bits16.to_signed(0x8000), -0x8000);
        assert_eq!(WordSize::Bits16.to_signed(0x1_7fff), 0x7fff);
        assert_eq!(WordSize::Bits32.to_signed(0xf700_0000), -0x0900_0000);
        assert_eq!(WordSize::Bits64.to_signed(u64::MAX), -1);
    }

    #[test]
    fn info_byte() {
        assert_eq!(parse_info(2), Ok(WordSize::Bits64));
        assert!(parse_info(3).is_err());
        assert!(parse_info(6).is_err());
    }
}
