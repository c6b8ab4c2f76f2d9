//! Owned image maps: JSON in the reference model's shape, and CIF conversion.

#[cfg(feature = "json")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use symblob::cif::{
    check_image, encode_with_table, DecodeOptions, Decoder, EncodeMode, EncodeOptions, Header,
    Image, PrefixEntry, PrefixRef, WordSize,
};

use crate::{Error, ErrorKind, Location, Result};

/// A process's loaded images, as `symblob cif` reads and writes them in JSON:
/// `{"platform", "word_size", "images": [{"path", "name", "build_id", "base",
/// "end_of_text"}]}` with the build ID in hex (or `null`) and addresses as integers
/// (`"0x…"` strings are accepted on input).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(Serialize, Deserialize))]
pub struct ImageMap {
    /// Platform text, e.g. `Linux (Debian GNU/Linux 12 (bookworm))`.
    #[cfg_attr(feature = "json", serde(default, deserialize_with = "null_as_empty"))]
    pub platform: String,
    /// Word size of the process in bits: 16, 32 or 64.
    #[cfg_attr(feature = "json", serde(default = "default_word_size"))]
    pub word_size: u32,
    /// The images, in the order they are encoded (captures sort them by base).
    pub images: Vec<MapImage>,
}

/// One image of an [`ImageMap`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(Serialize, Deserialize))]
pub struct MapImage {
    /// Base (lowest) address.
    #[cfg_attr(feature = "json", serde(deserialize_with = "address"))]
    pub base: u64,
    /// End of the image's text; above `base`.
    #[cfg_attr(feature = "json", serde(deserialize_with = "address"))]
    pub end_of_text: u64,
    /// Build ID bytes, written as hex; `null` for none.
    #[cfg_attr(feature = "json", serde(default, with = "hex_bytes"))]
    pub build_id: Option<Vec<u8>>,
    /// Path of the image file; `null` for none.
    #[cfg_attr(feature = "json", serde(default))]
    pub path: Option<String>,
    /// Name (the last path component); only used to decide on the short framework form.
    #[cfg_attr(feature = "json", serde(default))]
    pub name: Option<String>,
    /// Why a decoded path could not be rebuilt (not part of the JSON).
    #[cfg_attr(feature = "json", serde(skip))]
    pub path_error: Option<String>,
}

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

#[cfg(feature = "json")]
fn default_word_size() -> u32 {
    64
}

#[cfg(feature = "json")]
fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// An address: a JSON integer, or a string in decimal or with a `0x` prefix.
#[cfg(feature = "json")]
fn address<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Addr {
        Int(u64),
        Text(String),
    }
    match Addr::deserialize(d)? {
        Addr::Int(v) => Ok(v),
        Addr::Text(t) => {
            let t = t.trim();
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse(),
            };
            parsed.map_err(|_| serde::de::Error::custom(format!("not an address: {t:?}")))
        }
    }
}

#[cfg(feature = "json")]
mod hex_bytes {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(bytes) => s.serialize_str(&crate::elf::hex(bytes)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let Some(text) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        from_hex(&text)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("build ID is not hex: {text:?}")))
    }
}

#[cfg(feature = "json")]
fn from_hex(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
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
