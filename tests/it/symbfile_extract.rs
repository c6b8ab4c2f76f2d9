//! symbfile extraction: range records and return pads compared with what symblib (the
//! reference implementation) wrote for the same ELF files, with llvm-symbolizer, and with
//! the call sites objdump lists; record names against Lidia's.

mod go;
mod go_releases;
mod golden;
mod names;
mod oracles;
mod retpads;
