//! Builds symbol blobs for the [`symblob`] reader.
//!
//! `symblob-build` is the host half of symblob: it reads ELF symbol tables, DWARF, Go
//! pclntab and `nm` / `/proc/kallsyms` text, and writes ksym-bin, Lidia and CIF blobs
//! that the `no_std` reader turns back into names, inline frames and source lines. It is
//! a library first, usable from a `build.rs` or a post-link step, with the `symblob`
//! command line on top.
//!
//! Output is deterministic: the same input and options give the same bytes on every run
//! and machine. Files are written to a temporary file and renamed ([`output`]), so a
//! failed build never leaves a partial file behind.

mod error;

pub mod cif;
pub mod embed;
pub mod input;
pub mod ksym;
pub mod lidia;
pub mod output;

pub use error::{Error, Location, Result};
