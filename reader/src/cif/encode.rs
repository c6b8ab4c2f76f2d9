//! The encoder: image maps into caller buffers, canonical or Swift-compatible bytes.

use super::header::{Header, WordSize};
use super::image::{derived_name, is_separator, EncodeMode, EncodeOptions, Image};
use super::prefix_table::{PrefixEntry, PrefixTable};
use super::sink::Sink;
use super::vlq::{vlq7_bytes, MAX_VLQ7_LEN};
use super::{MAX_BUILD_ID_LEN, MAX_IMAGES, MAX_PLATFORM_LEN};
use crate::{Error, ErrorKind, Format};

/// Capacity of the dynamic prefix table used by [`encode`] and [`encoded_len`].
pub const DEFAULT_PREFIX_CAPACITY: usize = 512;

/// The longest `str` chunk an encoder writes.
const MAX_STR_CHUNK: usize = 63;
/// The longest framework name the `framewk` opcode can carry.
const MAX_FRAMEWORK_NAME: usize = 64;

/// A reusable encoder owning a dynamic prefix table of `N` entries (no heap).
///
/// With `N` at least the number of distinct dynamic prefixes of a map the output equals
/// an unbounded encoder's (and, in [`EncodeMode::Swift`], Swift's bytes); a smaller `N`
/// gives longer but equally decodable output. Each entry takes 16 bytes.
#[derive(Clone, Debug)]
pub struct Encoder<const N: usize> {
    slots: [PrefixEntry; N],
}

impl<const N: usize> Default for Encoder<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Encoder<N> {
    /// An encoder with an empty table.
    pub const fn new() -> Self {
        Encoder {
            slots: [PrefixEntry::EMPTY; N],
        }
    }

    /// Encodes into `out`; see [`encode`].
    pub fn encode(
        &mut self,
        header: &Header<'_>,
        images: &[Image<'_>],
        out: &mut [u8],
        options: EncodeOptions,
    ) -> Result<usize, Error> {
        encode_with_table(header, images, out, options, &mut self.slots)
    }

    /// The length [`Encoder::encode`] would produce; see [`encoded_len`].
    pub fn encoded_len(
        &mut self,
        header: &Header<'_>,
        images: &[Image<'_>],
        options: EncodeOptions,
    ) -> Result<usize, Error> {
        encode_with_table(header, images, &mut [], options, &mut self.slots).or_else(|e| {
            match e.kind {
                ErrorKind::BufferTooSmall { needed } => {
                    Ok(usize::try_from(needed).unwrap_or(usize::MAX))
                }
                _ => Err(e),
            }
        })
    }
}

/// Encodes `images` into `out` and returns the number of bytes written, using a
/// [`DEFAULT_PREFIX_CAPACITY`]-entry prefix table on the stack (8 KiB).
///
/// Errors: a platform over 255 bytes, more than 2^20 images, a build ID over 1024
/// bytes, an address that does not fit the word size, or an end of text not above its
/// base (`offset` = where that image's record starts in the output); and
/// [`ErrorKind::BufferTooSmall`] with the full length needed when `out` is too short
/// (`offset` = how many bytes were written).
pub fn encode(
    header: &Header<'_>,
    images: &[Image<'_>],
    out: &mut [u8],
    options: EncodeOptions,
) -> Result<usize, Error> {
    Encoder::<DEFAULT_PREFIX_CAPACITY>::new().encode(header, images, out, options)
}

/// The number of bytes [`encode`] would write (a dry run that writes nothing).
pub fn encoded_len(
    header: &Header<'_>,
    images: &[Image<'_>],
    options: EncodeOptions,
) -> Result<usize, Error> {
    Encoder::<DEFAULT_PREFIX_CAPACITY>::new().encoded_len(header, images, options)
}

/// Like [`encode`], with the dynamic prefix table stored in `table` (its length is the
/// capacity), e.g. a heap slice sized to the map for an unbounded table.
pub fn encode_with_table(
    header: &Header<'_>,
    images: &[Image<'_>],
    out: &mut [u8],
    options: EncodeOptions,
    table: &mut [PrefixEntry],
) -> Result<usize, Error> {
    let mut sink = Sink::new(out);
    let mut prefixes = PrefixTable::new(table);
    write_stream(header, images, options, &mut sink, &mut prefixes)?;
    if sink.fits() {
        Ok(sink.len())
    } else {
        Err(Error::new(
            Format::Cif,
            "output",
            u64::try_from(sink.written()).unwrap_or(u64::MAX),
            ErrorKind::BufferTooSmall {
                needed: u64::try_from(sink.len()).unwrap_or(u64::MAX),
            },
        ))
    }
}

/// Checks that the encoder can write `image` for `header`: address range, end of text
/// above base, build-ID length. The error's `offset` is 0; callers holding an image list
/// can use this to find the index of a bad image.
pub fn check_image(header: &Header<'_>, image: &Image<'_>) -> Result<(), Error> {
    image_fields(header.word_size, image, 0, EncodeMode::Canonical, 0).map(|_| ())
}

fn error(section: &'static str, offset: usize, kind: ErrorKind) -> Error {
    Error::new(
        Format::Cif,
        section,
        u64::try_from(offset).unwrap_or(u64::MAX),
        kind,
    )
}

fn write_stream(
    header: &Header<'_>,
    images: &[Image<'_>],
    options: EncodeOptions,
    sink: &mut Sink<'_>,
    prefixes: &mut PrefixTable<'_>,
) -> Result<(), Error> {
    let platform = header.platform.as_bytes();
    let platform_len = u8::try_from(platform.len()).map_err(|_| {
        error(
            "platform",
            1,
            ErrorKind::OutOfRange {
                value: u64::try_from(platform.len()).unwrap_or(u64::MAX),
                limit: MAX_PLATFORM_LEN as u64,
            },
        )
    })?;
    let count = u64::try_from(images.len()).unwrap_or(u64::MAX);
    if count > u64::from(MAX_IMAGES) {
        return Err(error(
            "image count",
            platform.len().saturating_add(2),
            ErrorKind::OutOfRange {
                value: count,
                limit: u64::from(MAX_IMAGES),
            },
        ));
    }
    sink.put(header.word_size.code());
    sink.put(platform_len);
    sink.put_slice(platform);
    put_vlq7(sink, count, options.mode);
    let mut prev_base = 0u64;
    for (index, image) in images.iter().enumerate() {
        let fields = image_fields(header.word_size, image, prev_base, options.mode, sink.len())?;
        prev_base = fields.next_prev;
        sink.put(fields.header);
        sink.put_slice(fields.base.bytes());
        sink.put_slice(fields.offset.bytes());
        match image.build_id {
            Some(id) if !id.is_empty() => {
                put_vlq7(
                    sink,
                    u64::try_from(id.len()).unwrap_or(u64::MAX),
                    options.mode,
                );
                sink.put_slice(id);
            }
            // Swift traps on a present but empty ID; both count as absent here.
            _ => sink.put(0),
        }
        write_path(images, index, sink, prefixes);
    }
    Ok(())
}

fn put_vlq7(sink: &mut Sink<'_>, value: u64, mode: EncodeMode) {
    let mut buf = [0u8; MAX_VLQ7_LEN];
    let len = vlq7_bytes(value, mode, &mut buf);
    sink.put_slice(buf.get(..len).unwrap_or(&[]));
}

/// A signed big-endian field in its shortest two's-complement width.
struct Field {
    bytes: [u8; 8],
    width: usize,
}

impl Field {
    fn new(value: i64) -> Self {
        let magnitude = if value < 0 { !value } else { value };
        let magnitude_bits = u64::BITS.saturating_sub(magnitude.leading_zeros());
        // One more bit for the sign, rounded up to whole bytes (1..=8).
        let width = usize::try_from(magnitude_bits.saturating_add(1).div_ceil(8)).unwrap_or(8);
        Field {
            bytes: value.to_be_bytes(),
            width: width.clamp(1, 8),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.bytes
            .get(8usize.saturating_sub(self.width)..)
            .unwrap_or(&[])
    }

    /// The width minus one, as the three header bits.
    fn code(&self) -> u8 {
        u8::try_from(self.width.saturating_sub(1)).unwrap_or(7) & 7
    }
}

struct ImageFields {
    header: u8,
    base: Field,
    offset: Field,
    next_prev: u64,
}

/// Validates an image and computes its header byte, base field and end-of-text field.
fn image_fields(
    word: WordSize,
    image: &Image<'_>,
    prev_base: u64,
    mode: EncodeMode,
    record_at: usize,
) -> Result<ImageFields, Error> {
    let mask = word.mask();
    if image.base & !mask != 0 || image.end_of_text & !mask != 0 {
        let value = if image.base & !mask != 0 {
            image.base
        } else {
            image.end_of_text
        };
        return Err(error(
            "image address",
            record_at,
            ErrorKind::OutOfRange { value, limit: mask },
        ));
    }
    if image.end_of_text <= image.base {
        return Err(error(
            "image end of text",
            record_at,
            ErrorKind::Malformed("end of text is not above base"),
        ));
    }
    if let Some(id) = image.build_id {
        if id.len() > MAX_BUILD_ID_LEN {
            return Err(error(
                "image build ID",
                record_at,
                ErrorKind::OutOfRange {
                    value: u64::try_from(id.len()).unwrap_or(u64::MAX),
                    limit: MAX_BUILD_ID_LEN as u64,
                },
            ));
        }
    }
    let (absolute, delta, offset, next_prev) = match mode {
        EncodeMode::Canonical => (
            word.to_signed(image.base),
            word.to_signed(image.base.wrapping_sub(prev_base)),
            word.to_signed(image.end_of_text.wrapping_sub(image.base)),
            image.base,
        ),
        EncodeMode::Swift => {
            // Swift sign-extends both addresses to 64 bits and subtracts there.
            let base = word.to_signed(image.base);
            let end = word.to_signed(image.end_of_text);
            let prev = i64::from_ne_bytes(prev_base.to_ne_bytes());
            (
                base,
                base.wrapping_sub(prev),
                end.wrapping_sub(base),
                u64::from_ne_bytes(base.to_ne_bytes()),
            )
        }
    };
    let absolute = Field::new(absolute);
    let delta = Field::new(delta);
    let offset = Field::new(offset);
    // Ties go to absolute, so the first image (previous base 0) is always absolute.
    let (relative, base) = if absolute.width <= delta.width {
        (0u8, absolute)
    } else {
        (0x80u8, delta)
    };
    Ok(ImageFields {
        header: relative | base.code().wrapping_shl(3) | offset.code(),
        base,
        offset,
        next_prev,
    })
}

/// Writes the `expand` opcode for `code`, with the correct (ceil) e = 1 byte count.
fn put_expand(sink: &mut Sink<'_>, code: u64) {
    if let Ok(small @ 0..=63) = u8::try_from(code) {
        sink.put(0x80 | small);
        return;
    }
    let value = code.saturating_sub(64);
    let bits = u64::BITS.saturating_sub(value.leading_zeros());
    let nbytes = usize::try_from(bits.div_ceil(8)).unwrap_or(8).clamp(1, 8);
    sink.put(0xc0 | u8::try_from(nbytes.saturating_sub(1)).unwrap_or(7));
    let be = value.to_be_bytes();
    sink.put_slice(be.get(8usize.saturating_sub(nbytes)..).unwrap_or(&[]));
}

/// The version byte if `rest` is exactly `/<name>.framework/Versions/<v>/<name>`.
fn framework_version(rest: &[u8], name: &[u8]) -> Option<u8> {
    let after_slash = rest.strip_prefix(b"/")?;
    let after_name = after_slash.strip_prefix(name)?;
    let after_versions = after_name.strip_prefix(b".framework/Versions/")?;
    let (&version, tail) = after_versions.split_first()?;
    let tail_name = tail.strip_prefix(b"/")?;
    (tail_name == name).then_some(version)
}

/// Writes image `index`'s path as Swift's encoder does (§6.5), defining its prefixes.
fn write_path(
    images: &[Image<'_>],
    index: usize,
    sink: &mut Sink<'_>,
    prefixes: &mut PrefixTable<'_>,
) {
    let Some(image) = images.get(index) else {
        sink.put(0);
        return;
    };
    let path = image.path.unwrap_or(&[]);
    let name = image.name.unwrap_or_else(|| derived_name(path));
    let mut consumed = 0usize;
    loop {
        let rest = path.get(consumed..).unwrap_or(&[]);
        if rest.is_empty() {
            sink.put(0);
            return;
        }
        if let Some(m) = prefixes.longest_match(images, rest) {
            put_expand(sink, m.code);
            consumed = consumed.saturating_add(m.len);
            continue;
        }
        if (1..=MAX_FRAMEWORK_NAME).contains(&name.len()) {
            if let Some(version) = framework_version(rest, name) {
                let len_code = u8::try_from(name.len().saturating_sub(1)).unwrap_or(0);
                sink.put(0x40 | len_code);
                sink.put(version);
                sink.put_slice(name);
                return;
            }
        }
        for (pos, &b) in rest.iter().enumerate().skip(1) {
            if is_separator(b) {
                prefixes.define(images, index, consumed, pos);
            }
        }
        for chunk in rest.chunks(MAX_STR_CHUNK) {
            sink.put(u8::try_from(chunk.len()).unwrap_or(0));
            sink.put_slice(chunk);
        }
        sink.put(0);
        return;
    }
}
