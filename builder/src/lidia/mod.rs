//! Builds Lidia v1 files from ELF symbols, Go pclntab, DWARF and caller-supplied ranges.
//!
//! [`LidiaWriter`] takes ranges through [`RangeSpec`] and writes the exact bytes
//! Pyroscope's Go writer produces for the same ranges and [`Flags`].
//! [`build_from_elf`] and [`write_from_elf`] do what Pyroscope's `CreateLidia` does with an
//! ELF file (symbols and Go `.gopclntab`), byte for byte, or build from DWARF.

mod dump;
pub mod dwarf;
mod elf;
pub mod model;
mod strings;
mod writer;

pub use dump::{dump, go_quote, info};
pub use elf::{
    build_from_elf, collect_from_elf, collect_with_report, write_from_elf, BuildReport, ElfOptions,
    Stats, SymbolSources,
};
pub use writer::{Flags, Layout, LidiaWriter, LineEntry, RangeSpec};
