//! What a byte slice holds, told from its first bytes: the formats this crate reads and
//! the inputs people give in their place (an ELF file, gzip data, `nm` text).
//!
//! A program that embeds the reader and is handed "a symbol file" calls [`detect`] once
//! and then the parser of the format found, or tells its user what the bytes really are
//! instead of failing deep inside a parser with a meaningless offset.

use crate::cif::{DecodeOptions, Decoder};
use crate::ksym::KsymBlob;
use crate::{gsym, lidia, symbfile, Format};

/// What [`detect`] found.
///
/// More kinds may join; match with a wildcard arm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Detected {
    /// No bytes at all.
    Empty,
    /// A file of one of this crate's formats (see [`detect`] for how each is
    /// recognised); its parser decides whether it is whole.
    Blob(Format),
    /// An ELF file (`\x7fELF`): an executable, library or object, from which symblob's
    /// builder makes blobs.
    Elf,
    /// gzip-compressed data (`1f 8b`), such as a SuperSize `.size` file.
    Gzip,
    /// `nm`, System.map or `/proc/kallsyms` text: lines of `<hex> <type> <name>`.
    SymbolText,
    /// None of the above.
    Unknown,
}

/// Tells what `bytes` hold.
///
/// The rules, in the order they are tried:
///
/// 1. No bytes: [`Detected::Empty`].
/// 2. A magic number: ELF (`\x7fELF`), Lidia (`.dia`), symbfile (`symbfile`), GSYM (its
///    magic in either byte order: `MYSG` or `GSYM`), ksym-bin v2 (`KSYMBIN2`), gzip
///    (`1f 8b`). The magic alone
///    decides; the format's parser then checks the rest and reports what is wrong with a
///    file that only starts right.
/// 3. ksym-bin, which has no magic number: the segment layout of either ksym layout fits
///    the bytes (what [`KsymBlob::parse_trusted`] checks, in O(1)). A zero-filled section,
///    the placeholder of a blob that was never filled, is an empty ksym blob.
/// 4. A CIF stream in binary form, which has no magic number either: a version-0 info
///    byte, a platform string of printable UTF-8 (at least one byte: every encoder writes
///    one) and an image count the remaining bytes can hold. Streams of the older layout
///    without a platform field and the base64 text form are not recognised.
/// 5. Symbol text: the first line reads `<hex digits> <one letter or ?> <name>`, as `nm`,
///    System.map and `/proc/kallsyms` lines do.
/// 6. Anything else: [`Detected::Unknown`].
///
/// Detection reads at most the first line of the input (rule 5) and otherwise a fixed
/// number of bytes; it allocates nothing and never panics.
///
///
/// ```
/// use symblob::{detect, Detected, Format};
///
/// assert_eq!(detect(b"symbfile\x00\x01"), Detected::Blob(Format::Symbfile));
/// assert_eq!(detect(b"\x7fELF\x02\x01\x01"), Detected::Elf);
/// assert_eq!(detect(b"ffffffff81000000 T _stext\n"), Detected::SymbolText);
/// // A ksym-bin placeholder section that was never filled.
/// assert_eq!(detect(&[0u8; 4096]), Detected::Blob(Format::Ksym));
/// assert_eq!(detect(b""), Detected::Empty);
/// ```
pub fn detect(bytes: &[u8]) -> Detected {
    if bytes.is_empty() {
        Detected::Empty
    } else if let Some(found) = by_magic(bytes) {
        found
    } else if KsymBlob::parse_trusted(bytes).is_ok() {
        Detected::Blob(Format::Ksym)
    } else if is_cif_stream(bytes) {
        Detected::Blob(Format::Cif)
    } else if is_symbol_text(bytes) {
        Detected::SymbolText
    } else {
        Detected::Unknown
    }
}

/// ELF's magic number.
const ELF_MAGIC: [u8; 4] = *b"\x7fELF";
/// gzip's magic number (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The kind of a file that starts with a magic number.
fn by_magic(bytes: &[u8]) -> Option<Detected> {
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if starts(&ELF_MAGIC) {
        Some(Detected::Elf)
    } else if starts(&lidia::raw::MAGIC) {
        Some(Detected::Blob(Format::Lidia))
    } else if starts(symbfile::raw::MAGIC) {
        Some(Detected::Blob(Format::Symbfile))
    } else if starts(&gsym::raw::MAGIC_LE) || starts(&gsym::raw::MAGIC_BE) {
        Some(Detected::Blob(Format::Gsym))
    } else if starts(&crate::ksym::v2::MAGIC) {
        Some(Detected::Blob(Format::Ksym))
    } else if starts(&GZIP_MAGIC) {
        Some(Detected::Gzip)
    } else {
        None
    }
}

/// Whether `bytes` start with a CIF header (rule 4): the decoder accepts the info byte,
/// the platform and the image count, and the platform is printable text.
fn is_cif_stream(bytes: &[u8]) -> bool {
    // The header is read before any prefix code, so no slot is needed.
    let Ok(decoder) = Decoder::new(bytes, DecodeOptions::default(), &mut []) else {
        return false;
    };
    decoder
        .platform()
        .is_some_and(|p| !p.is_empty() && !p.chars().any(char::is_control))
}

/// Whether the first line reads `<hex digits> <one letter or ?> <name>` (rule 5).
fn is_symbol_text(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let Ok(line) = core::str::from_utf8(first) else {
        return false;
    };
    let mut fields = line.split_ascii_whitespace();
    let (Some(addr), Some(kind), Some(_)) = (fields.next(), fields.next(), fields.next()) else {
        return false;
    };
    addr.bytes().all(|b| b.is_ascii_hexdigit())
        && kind.len() == 1
        && kind.bytes().all(|b| b.is_ascii_alphabetic() || b == b'?')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_decide_alone() {
        assert_eq!(detect(b"\x7fELF"), Detected::Elf);
        assert_eq!(detect(b".dia\0\0"), Detected::Blob(Format::Lidia));
        assert_eq!(detect(b"symbfile"), Detected::Blob(Format::Symbfile));
        assert_eq!(detect(b"MYSG\x01\x00"), Detected::Blob(Format::Gsym));
        assert_eq!(detect(b"GSYM\x00\x01"), Detected::Blob(Format::Gsym));
        assert_eq!(detect(&[0x1f, 0x8b, 8, 0]), Detected::Gzip);
        // One byte short of a magic number is not it.
        assert_eq!(detect(b"symbfil"), Detected::Unknown);
        assert_eq!(detect(b"\x7fEL"), Detected::Unknown);
    }

    #[test]
    fn ksym_blobs_are_recognised_by_their_layout() {
        // The spec's empty blob in the sized layout: its first word is its size.
        let mut sized = [0u8; 40];
        sized[0] = 40;
        assert_eq!(detect(&sized), Detected::Blob(Format::Ksym));
        assert_eq!(detect(&[0u8; 32]), Detected::Blob(Format::Ksym));
        assert_eq!(detect(b"KSYMBIN2"), Detected::Blob(Format::Ksym));
        // A count of symbols the bytes cannot hold.
        let mut huge = [0u8; 64];
        huge[7] = 0x10;
        assert_eq!(detect(&huge), Detected::Unknown);
        assert_eq!(detect(&[0u8; 31]), Detected::Unknown);
    }

    #[test]
    fn cif_headers_need_printable_platform_text() {
        // info 0x02 (version 0, 64-bit), platform "Linux", no images.
        assert_eq!(detect(b"\x02\x05Linux\x00"), Detected::Blob(Format::Cif));
        // An empty platform, a control character, a count the bytes cannot hold.
        assert_eq!(detect(b"\x02\x00\x00"), Detected::Unknown);
        assert_eq!(detect(b"\x02\x02L\x01\x00"), Detected::Unknown);
        assert_eq!(detect(b"\x02\x05Linux\x05"), Detected::Unknown);
        // Version 1.
        assert_eq!(detect(b"\x06\x05Linux\x00"), Detected::Unknown);
    }

    #[test]
    fn symbol_text_is_hex_letter_name() {
        assert_eq!(detect(b"0000000000001000 T main\n"), Detected::SymbolText);
        assert_eq!(detect(b"ffffffff81000000 t x [mod]"), Detected::SymbolText);
        assert_eq!(detect(b"1000 ? weird\n"), Detected::SymbolText);
        assert_eq!(detect(b"1000 TT main\n"), Detected::Unknown);
        assert_eq!(detect(b"10g0 T main\n"), Detected::Unknown);
        assert_eq!(detect(b"1000 T\n"), Detected::Unknown);
        assert_eq!(detect(b"\xff\xfe 1000 T main"), Detected::Unknown);
    }
}
