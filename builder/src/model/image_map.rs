//! A process's loaded images: where each is mapped, where its text ends, its build ID and
//! path. The CIF capture fills it from `/proc`, the JSON form and CIF decoding read it;
//! the CIF writer encodes it.

#[cfg(feature = "json")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
            Some(bytes) => s.serialize_str(&crate::hex::hex(bytes)),
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
