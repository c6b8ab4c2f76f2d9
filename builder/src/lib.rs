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
//!
//! # Example
//!
//! ```
//! use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
//! use symblob_build::ksym::{build, parse_nm, BuildOptions, InputOptions};
//!
//! // `nm -n` output (or a System.map), kept to T/t symbols by default.
//! let nm = b"0000000000001000 T _start\n0000000000001100 T do_fork\n0000000000001200 t helper\n";
//! let symbols = parse_nm(nm, "example.nm", &InputOptions::default())?;
//! let built = build(&symbols.symbols, &BuildOptions::default())?;
//!
//! let blob = KsymBlob::parse(&built.bytes)?;
//! let ksyms = Ksyms::new(blob, TextRanges::single(0x1000, 0x1300)?);
//! assert_eq!(ksyms.lookup_address(0x1104).unwrap().to_string(), "do_fork+0x4/0x100");
//! assert_eq!(blob.lookup_name("helper"), Some(0x1200));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;

pub mod cif;
pub mod demangle;
pub mod embed;
pub mod input;
pub mod ksym;
pub mod lidia;
pub mod output;
mod plt;

pub use error::{Error, Location, Result};
