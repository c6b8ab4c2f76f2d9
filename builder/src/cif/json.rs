//! Owned image maps: JSON in the reference model's shape, and CIF conversion.

#[cfg(feature = "json")]
use serde::{Deserialize, Serialize};
use symblob::cif::{
    check_image, encode_with_table, DecodeOptions, Decoder, EncodeMode, EncodeOptions, Header,
    Image, PrefixEntry, PrefixRef, WordSize,
};

pub use crate::model::{ImageMap, MapImage};
use crate::{Error, ErrorKind, Location, Result};

/// A decoded stream in the reference model's `decode` JSON shape.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(Serialize))]
pub struct DecodedMap {
    /// Format version (0).
    pub version: u8,
    /// Word size in bits.
    pub word_size: u32,
    /// Platform text; `null` for the older layout.
    pub platform: Option<String>,
    /// The images in stream order; a path that could not be rebuilt is `null`.
    pub images: Vec<MapImage>,
    /// Bytes after the last image.
    pub trailing_bytes: usize,
}

impl DecodedMap {
    /// The image map, with an empty platform for the older layout.
    pub fn into_image_map(self) -> ImageMap {
        ImageMap {
            platform: self.platform.unwrap_or_default(),
            word_size: self.word_size,
            images: self.images,
        }
    }
}

impl ImageMap {
    /// Parses the JSON `symblob cif decode --json` prints, or a bare list of images
    /// (platform empty, 64-bit). `input` names the source in error messages.
    #[cfg(feature = "json")]
    pub fn from_json(text: &str, input: &str) -> Result<ImageMap> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Doc {
            Map(ImageMap),
            List(Vec<MapImage>),
        }
        // Parse once to a value for precise syntax errors, then into the types.
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::malformed(input, Location::Line(e.line() as u64), "").with_source(e)
        })?;
        let doc = match &value {
            serde_json::Value::Array(_) => {
                serde_json::from_value::<Vec<MapImage>>(value).map(Doc::List)
            }
            _ => serde_json::from_value::<ImageMap>(value).map(Doc::Map),
        }
        .map_err(|e| Error::malformed(input, Location::Whole, "").with_source(e))?;
        Ok(match doc {
            Doc::Map(m) => m,
            Doc::List(images) => ImageMap {
                platform: String::new(),
                word_size: 64,
                images,
            },
        })
    }

    /// Pretty JSON of the map.
    #[cfg(feature = "json")]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    fn header(&self) -> Result<Header<'_>> {
        let word_size = WordSize::from_bits(self.word_size).ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                "image map",
                Location::Whole,
                format!("word size must be 16, 32 or 64, not {}", self.word_size),
            )
        })?;
        Ok(Header::new(word_size, &self.platform))
    }

    /// Encodes the map as CIF bytes. The prefix table is unbounded, so in
    /// [`EncodeMode::Swift`] the bytes equal Swift's encoder's.
    ///
    /// An image the format cannot hold (end of text not above base, an address beyond the
    /// word size, a build ID over 1024 bytes) is an [`ErrorKind::Malformed`] error naming
    /// its index; a word size other than 16, 32 or 64 is [`ErrorKind::Unsupported`].
    pub fn encode(&self, mode: EncodeMode) -> Result<Vec<u8>> {
        let header = self.header()?;
        let images: Vec<Image<'_>> = self
            .images
            .iter()
            .map(|i| Image {
                path: i.path.as_deref().map(str::as_bytes),
                name: i.name.as_deref().map(str::as_bytes),
                build_id: i.build_id.as_deref(),
                base: i.base,
                end_of_text: i.end_of_text,
            })
            .collect();
        for (index, image) in images.iter().enumerate() {
            check_image(&header, image).map_err(|e| {
                Error::new(
                    e.kind.into(),
                    "image map",
                    Location::Index(index as u64),
                    e.kind.to_string(),
                )
                .with_section(e.section)
            })?;
        }
        // Every dynamic prefix ends before a separator of some path: this many slots
        // never run out.
        let slots: usize = images.iter().map(|i| i.path.map_or(0, <[u8]>::len)).sum();
        let mut table = vec![PrefixEntry::EMPTY; slots];
        let options = EncodeOptions::new(mode);
        let len = match encode_with_table(&header, &images, &mut [], options, &mut table) {
            Ok(n) => n,
            Err(e) => match e.kind {
                symblob::ErrorKind::BufferTooSmall { needed } => {
                    usize::try_from(needed).map_err(|_| Error::from(e))?
                }
                _ => {
                    return Err(Error::new(
                        e.kind.into(),
                        "image map",
                        Location::Whole,
                        format!("{}: {}", e.section, e.kind),
                    )
                    .with_section(e.section))
                }
            },
        };
        let mut out = vec![0u8; len];
        let written = encode_with_table(&header, &images, &mut out, options, &mut table)?;
        out.truncate(written);
        Ok(out)
    }

    /// Decodes CIF bytes. Paths that cannot be rebuilt come back as `None` with the
    /// reason in [`MapImage::path_error`]; a malformed stream is an error of
    /// the reader's ([`Error::reader_error`]), placed at its offset.
    pub fn decode(bytes: &[u8], legacy_no_platform: bool) -> Result<DecodedMap> {
        let mut refs = vec![PrefixRef::EMPTY; bytes.len()];
        let options = DecodeOptions { legacy_no_platform };
        let mut decoder = Decoder::new(bytes, options, &mut refs)?;
        // Paths longer than this are reported as failures rather than allocated.
        let mut buf = vec![0u8; 1 << 20];
        let mut images = Vec::with_capacity(decoder.image_count() as usize);
        while let Some(img) = decoder.next_image(&mut buf)? {
            let (path, path_error) = match img.path {
                Ok(p) => (p.map(str::to_owned), None),
                Err(e) => (None, Some(e.to_string())),
            };
            images.push(MapImage {
                base: img.base,
                end_of_text: img.end_of_text,
                build_id: img.build_id.map(<[u8]>::to_vec),
                name: img.name().map(str::to_owned),
                path,
                path_error,
            });
        }
        Ok(DecodedMap {
            version: decoder.version(),
            word_size: decoder.word_size().bits(),
            platform: decoder.platform().map(str::to_owned),
            trailing_bytes: decoder.trailing_bytes().unwrap_or(0),
            images,
        })
    }
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;

    #[test]
    fn json_accepts_lists_strings_and_null_platform() {
        let list =
            r#"[{"path": "/a/b", "build_id": "0aFF", "base": "0x1000", "end_of_text": 8192}]"#;
        let map = ImageMap::from_json(list, "t").unwrap();
        assert_eq!((map.word_size, map.platform.as_str()), (64, ""));
        assert_eq!(map.images[0].build_id.as_deref(), Some(&[0x0a, 0xff][..]));
        assert_eq!(
            (map.images[0].base, map.images[0].end_of_text),
            (0x1000, 0x2000)
        );
        let obj = r#"{"platform": null, "word_size": 32, "images": []}"#;
        assert_eq!(ImageMap::from_json(obj, "t").unwrap().word_size, 32);
        let bad = "{\n\"images\": [\n}";
        let e = ImageMap::from_json(bad, "in.json").unwrap_err().to_string();
        assert!(e.starts_with("in.json:3:"), "{e}");
        let odd = r#"[{"path": null, "build_id": "abc", "base": 0, "end_of_text": 1}]"#;
        assert!(ImageMap::from_json(odd, "t").is_err());
    }

    #[test]
    fn bad_images_are_reported_by_index() {
        let text = r#"[{"base": 16, "end_of_text": 32}, {"base": 64, "end_of_text": 64}]"#;
        let e = ImageMap::from_json(text, "t")
            .unwrap()
            .encode(EncodeMode::Canonical);
        let msg = e.unwrap_err().to_string();
        assert!(
            msg.contains("at entry 1") && msg.contains("end of text"),
            "{msg}"
        );
    }
}
