//! The decoder: a stream header, then images one at a time into caller buffers.

use super::header::{parse_info, Header, WordSize, VERSION};
use super::image::derived_name;
use super::path::{decode_path, PrefixRef, PrefixRefs};
use super::{MAX_BUILD_ID_LEN, MAX_IMAGES};
use crate::cursor::Cursor;
use crate::varint::read_vlq7;
use crate::{Error, ErrorKind, Format};

/// Decoder options.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DecodeOptions {
    /// Read the older layout, which has no platform field. Both layouts carry version 0,
    /// so this is never guessed.
    pub legacy_no_platform: bool,
}

/// One decoded image. Its path lives in the caller's buffer, everything else in the
/// stream.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DecodedImage<'a, 'p> {
    /// Stream offset of the image record.
    pub offset: u64,
    /// Base address, reduced to the word size.
    pub base: u64,
    /// End of text, reduced to the word size; always above `base`.
    pub end_of_text: u64,
    /// Build ID, `None` when the stream has none.
    pub build_id: Option<&'a [u8]>,
    /// The path (`Ok(None)` when absent or empty), or why it could not be rebuilt:
    /// an undefined or reserved prefix code, invalid UTF-8, the end of the data inside
    /// the path, a path buffer or prefix table too small, or nesting too deep.
    pub path: Result<Option<&'p str>, Error>,
}

impl<'a, 'p> DecodedImage<'a, 'p> {
    /// The image name as Swift derives it: the text after the last `/` or `\` of the path.
    pub fn name(&self) -> Option<&'p str> {
        let path = self.path.ok()??;
        let name = derived_name(path.as_bytes());
        // The cut is just after an ASCII separator, so it is a char boundary.
        path.get(path.len().saturating_sub(name.len())..)
    }
}

/// Reads a CIF stream without allocating: the header at construction, then one image
/// per [`Decoder::next_image`] call.
///
/// Fatal errors (a bad header, truncation outside a path, a broken limit) are returned
/// once; the decoder then yields no more images. Path-level problems are reported in
/// [`DecodedImage::path`] and decoding continues at the next image.
pub struct Decoder<'a, 't> {
    cursor: Cursor<'a>,
    word_size: WordSize,
    platform: Option<&'a str>,
    count: u32,
    decoded: u32,
    prev_base: u64,
    refs: PrefixRefs<'t>,
    failed: bool,
}

impl core::fmt::Debug for Decoder<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Decoder")
            .field("word_size", &self.word_size)
            .field("platform", &self.platform)
            .field("count", &self.count)
            .field("decoded", &self.decoded)
            .field("offset", &self.cursor.pos())
            .finish()
    }
}

impl<'a, 't> Decoder<'a, 't> {
    /// Parses the info byte, platform and image count of `data`.
    ///
    /// `prefixes` stores the stream's dynamic prefix codes (32, 33, …) as references;
    /// `[PrefixRef::EMPTY; N]` with `N` = `data.len()` can never run out. With fewer
    /// slots, paths that use codes beyond the slice fail with "prefix table full".
    ///
    /// Fails on an unknown version, the reserved word size, a truncated or non-UTF-8
    /// platform, an image count over 2^20, or a count the remaining bytes cannot hold
    /// (each image needs at least five bytes, the last one four).
    pub fn new(
        data: &'a [u8],
        options: DecodeOptions,
        prefixes: &'t mut [PrefixRef],
    ) -> Result<Self, Error> {
        let mut cursor = Cursor::new(data, Format::Cif);
        let word_size = parse_info(cursor.byte("info byte")?)?;
        let platform = if options.legacy_no_platform {
            None
        } else {
            let len = cursor.byte("platform length")?;
            let at = cursor.offset();
            let bytes = cursor.take(usize::from(len), "platform")?;
            let text = core::str::from_utf8(bytes)
                .map_err(|_| Error::new(Format::Cif, "platform", at, ErrorKind::InvalidUtf8))?;
            Some(text)
        };
        let count_at = cursor.offset();
        let count = read_vlq7(&mut cursor, u64::from(MAX_IMAGES), "image count")?;
        // At most 2^20 + 1 after the check above, so these cannot overflow.
        let needed = count.saturating_mul(5).saturating_sub(1);
        let available = u64::try_from(cursor.remaining()).unwrap_or(u64::MAX);
        if count > 0 && needed > available {
            return Err(Error::new(
                Format::Cif,
                "image count",
                count_at,
                ErrorKind::Truncated { needed, available },
            ));
        }
        Ok(Decoder {
            cursor,
            word_size,
            platform,
            count: u32::try_from(count).unwrap_or(0),
            decoded: 0,
            prev_base: 0,
            refs: PrefixRefs::new(prefixes),
            failed: false,
        })
    }

    /// The format version (always 0).
    pub const fn version(&self) -> u8 {
        VERSION
    }

    /// Word size of the captured process.
    pub const fn word_size(&self) -> WordSize {
        self.word_size
    }

    /// The platform string; `None` for the older layout.
    pub const fn platform(&self) -> Option<&'a str> {
        self.platform
    }

    /// Word size and platform (empty for the older layout), as the encoder takes them.
    pub fn header(&self) -> Header<'a> {
        Header::new(self.word_size, self.platform.unwrap_or(""))
    }

    /// The number of images the stream declares.
    pub const fn image_count(&self) -> u32 {
        self.count
    }

    /// Stream offset of the next unread byte.
    pub const fn offset(&self) -> usize {
        self.cursor.pos()
    }

    /// Bytes after the last image, once every image has been decoded (Swift ignores
    /// them; so does this decoder, but it reports how many there were).
    pub fn trailing_bytes(&self) -> Option<usize> {
        (!self.failed && self.decoded == self.count).then(|| self.cursor.remaining())
    }

    /// Decodes the next image, rebuilding its path into `path_buf`; `Ok(None)` after the
    /// last image (or after a fatal error).
    pub fn next_image<'p>(
        &mut self,
        path_buf: &'p mut [u8],
    ) -> Result<Option<DecodedImage<'a, 'p>>, Error> {
        if self.failed || self.decoded >= self.count {
            return Ok(None);
        }
        match self.read_image(path_buf) {
            Ok(image) => {
                self.decoded = self.decoded.saturating_add(1);
                Ok(Some(image))
            }
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    fn read_image<'p>(&mut self, path_buf: &'p mut [u8]) -> Result<DecodedImage<'a, 'p>, Error> {
        let offset = self.cursor.offset();
        let header = self.cursor.byte("image header")?;
        let base_len = usize::from(header.wrapping_shr(3) & 7).saturating_add(1);
        let eot_len = usize::from(header & 7).saturating_add(1);
        let field = self.cursor.signed(base_len, "base address")?;
        // Bit 7: relative to the previous image's base. Bit 6 is ignored, as Swift does.
        let base = if header & 0x80 != 0 {
            self.prev_base.wrapping_add(field)
        } else {
            field
        };
        self.prev_base = base;
        let eot_at = self.cursor.offset();
        let eot = base.wrapping_add(self.cursor.signed(eot_len, "end-of-text offset")?);
        let mask = self.word_size.mask();
        let (base, end_of_text) = (base & mask, eot & mask);
        if end_of_text <= base {
            return Err(Error::new(
                Format::Cif,
                "end-of-text offset",
                eot_at,
                ErrorKind::Malformed("end of text is not above base"),
            ));
        }
        let id_len = read_vlq7(&mut self.cursor, MAX_BUILD_ID_LEN as u64, "build ID length")?;
        let id_len = usize::try_from(id_len).unwrap_or(usize::MAX);
        let build_id = self.cursor.take(id_len, "build ID")?;
        let build_id = (!build_id.is_empty()).then_some(build_id);
        let path = decode_path(&mut self.cursor, &mut self.refs, path_buf);
        Ok(DecodedImage {
            offset,
            base,
            end_of_text,
            build_id,
            path,
        })
    }
}
