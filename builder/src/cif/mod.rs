//! Captures process image maps and encodes them as CIF.
//!
//! [`ImageMap`] (the model's map of a process's images, which
//! [`crate::capture::capture`] reads from a live Linux process) has a JSON form matching
//! the reference model's, and converts to and from CIF bytes through the `no_std` codec in
//! [`symblob::cif`].

mod json;

pub use json::{DecodedMap, ImageMap, MapImage};
pub use symblob::cif::EncodeMode;
