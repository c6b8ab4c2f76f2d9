//! Builds Lidia v1 files from ELF symbols, Go pclntab, DWARF and caller-supplied ranges.

pub mod dwarf;
