//! Compact ImageMap Format: the Swift runtime's list of loaded images.
//!
//! A CIF stream records, for every image mapped into a process, its path, build ID, base
//! address and end of text, in a few bytes each: addresses are stored relative to the
//! previous image when that is shorter, and paths share prefixes through a table of
//! fixed (`/usr/lib`, `/System/Library/Frameworks`, …) and dynamic codes. Swift's
//! backtracer writes it at crash time and stores it, base64-encoded, in crash logs.
//!
//! Everything here runs without a heap, so a crash handler can use it:
//!
//! * [`encode`] / [`encoded_len`] write a stream into a caller buffer, in canonical form or
//!   byte-identical to Swift's encoder ([`EncodeMode::Swift`]); [`Encoder`] fixes the
//!   prefix-table capacity as a const generic and [`encode_with_table`] takes any slice.
//! * [`Decoder`] reads a stream image by image, rebuilding each path into a caller
//!   buffer and keeping dynamic prefixes as references into the stream
//!   ([`PrefixRef`] slots supplied by the caller).
//! * [`base64_encode`] / [`base64_decode`] convert to and from the text form.
//!
//! Stream layout (all multi-byte fields big-endian):
//!
//! ```text
//! cif      := info:u8 platform count:vlq7 image*count
//! platform := len:u8 utf8[len]
//! image    := hdr:u8 base[1..8] eot_offset[1..8] id_len:vlq7 id[id_len] path-opcodes
//! ```
//!
//! # Example
//!
//! ```
//! use symblob::cif::{self, DecodeOptions, Decoder, EncodeOptions, Header, Image, PrefixRef, WordSize};
//!
//! let header = Header::new(WordSize::Bits64, "Linux (Debian GNU/Linux 12 (bookworm))");
//! let images = [
//!     Image::new("/usr/lib/x86_64-linux-gnu/libm.so.6", 0x7f3a_1c00_0000, 0x7f3a_1c07_f000)
//!         .with_build_id(&[0x22; 20]),
//!     Image::new("/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a_1c20_0000, 0x7f3a_1c39_5000),
//! ];
//! let mut bytes = [0u8; 256];
//! let len = cif::encode(&header, &images, &mut bytes, EncodeOptions::default())?;
//! assert_eq!(cif::encoded_len(&header, &images, EncodeOptions::default())?, len);
//!
//! let mut prefixes = [PrefixRef::EMPTY; 64];
//! let mut decoder = Decoder::new(&bytes[..len], DecodeOptions::default(), &mut prefixes)?;
//! assert_eq!(decoder.platform(), Some(header.platform));
//! let mut path = [0u8; 256];
//! let first = decoder.next_image(&mut path)?.expect("two images");
//! assert_eq!(first.path?, Some("/usr/lib/x86_64-linux-gnu/libm.so.6"));
//! assert_eq!((first.base, first.end_of_text), (0x7f3a_1c00_0000, 0x7f3a_1c07_f000));
//! let second = decoder.next_image(&mut path)?.expect("two images");
//! assert_eq!(second.name(), Some("libc.so.6"));
//! assert!(decoder.next_image(&mut path)?.is_none());
//!
//! // The text form crash logs carry.
//! let mut text = [0u8; 512];
//! let n = cif::base64_encode(&bytes[..len], &mut text)?;
//! let mut back = [0u8; 256];
//! assert_eq!(cif::base64_decode(&text[..n], &mut back)?, len);
//! # Ok::<(), symblob::Error>(())
//! ```

mod base64;
mod decode;
mod encode;
mod header;
mod image;
mod path;
mod prefix_table;
mod sink;
mod vlq;

pub use base64::{
    base64_decode, base64_decoded_len_max, base64_encode, base64_encoded_len, is_base64_char,
};
pub use decode::{DecodeOptions, DecodedImage, Decoder};
pub use encode::{
    check_image, encode, encode_with_table, encoded_len, Encoder, DEFAULT_PREFIX_CAPACITY,
};
pub use header::{Header, WordSize, VERSION};
pub use image::{EncodeMode, EncodeOptions, Image};
pub use path::PrefixRef;
pub use prefix_table::PrefixEntry;
pub use vlq::{decode_vlq7, encode_vlq7, MAX_VLQ7_LEN};

/// The fixed prefix table: codes 0..=11 (12..=31 are reserved; dynamic codes start at 32).
pub const FIXED_PREFIXES: [&[u8]; 12] = [
    b"/lib",
    b"/usr/lib",
    b"/usr/local/lib",
    b"/opt/lib",
    b"/System/Library/Frameworks",
    b"/System/Library/PrivateFrameworks",
    b"/System/iOSSupport",
    b"/Library/Frameworks",
    b"/System/Applications",
    b"/Applications",
    b"C:\\Windows\\System32",
    b"C:\\Program Files",
];

/// Most images a stream may declare (2^20).
pub const MAX_IMAGES: u32 = 1 << 20;
/// Longest build ID, in bytes.
pub const MAX_BUILD_ID_LEN: usize = 1024;
/// Longest platform string, in bytes.
pub const MAX_PLATFORM_LEN: usize = 255;
/// Deepest nesting of dynamic prefixes the decoder follows.
pub const MAX_EXPANSION_DEPTH: usize = 16;
