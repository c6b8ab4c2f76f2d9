//! Captures process image maps and encodes them as CIF.
//!
//! [`capture`] reads the images mapped into a live Linux process (paths from
//! `/proc/<pid>/maps`, build IDs and ends of text from the ELF files); [`ImageMap`] is the
//! owned, serde-friendly form of a map, whose JSON matches the reference model's, and
//! converts to and from CIF bytes through the `no_std` codec in [`symblob::cif`].

mod capture;
mod json;

pub use crate::elf::{inspect_elf, ElfImage};
pub use capture::{capture, parse_maps, platform_string, Mapping};
pub use json::{DecodedMap, ImageMap, MapImage};
pub use symblob::cif::EncodeMode;
