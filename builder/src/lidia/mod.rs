//! Builds Lidia v1 files from the model and from caller-supplied ranges.
//!
//! [`LidiaWriter`] takes ranges through [`RangeSpec`] (or the model's function groups,
//! [`LidiaWriter::add_groups`]) and writes the exact bytes Pyroscope's Go writer produces
//! for the same ranges and [`Flags`]. What Pyroscope's `CreateLidia` does with an ELF file
//! (symbols and Go `.gopclntab`), byte for byte, and the DWARF build are
//! [`crate::pipeline::lidia`].

mod dump;
mod groups;
pub mod model;
mod strings;
mod writer;

pub use dump::{dump, go_quote, info};
pub use writer::{Flags, Layout, LidiaWriter, LineEntry, RangeSpec};
