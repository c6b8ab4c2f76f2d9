//! Builds Lidia v1 files from ELF symbols, Go pclntab, DWARF and caller-supplied ranges.
//!
//! [`LidiaWriter`] takes ranges through [`RangeSpec`] and writes the exact bytes
//! Pyroscope's Go writer produces for the same ranges and [`Flags`].

pub mod dwarf;
mod strings;
mod writer;

pub use writer::{Flags, Layout, LidiaWriter, LineEntry, RangeSpec};
