//! Zero-copy, allocation-free, panic-free readers of symbol blobs.
//!
//! `symblob` is the half of the symblob project that runs where symbolization is hardest:
//! inside a kernel, a bootloader, a crash handler or a profiler. It is `#![no_std]`
//! without `alloc`, contains no `unsafe` code, and never panics, whatever bytes it is
//! given: every entry point returns a [`Result`] or an [`Option`], and every failure is an
//! [`Error`] that names the format, the section and the offset.
//!
//! | module | format |
//! |---|---|
//! | [`ksym`] | ksym-bin v1: a compressed, kallsyms-style table of text symbols |
//! | [`lidia`] | Lidia v1: Grafana Pyroscope's address-to-symbol archive, with inline frames |
//! | [`cif`] | Compact ImageMap Format: the Swift runtime's list of loaded images |
//! | [`symbfile`] | OpenTelemetry eBPF profiler symbol files: ranges and return pads |
//! | [`gsym`] | LLVM GSYM v1: address to function, inline frames, file and line |
//!
//! [`detect`] tells which of these formats a byte slice holds, or what it is instead (an
//! ELF file, gzip data, `nm` text), before a parser is chosen. [`varint`] is the LEB128
//! decoder every format shares. Each format's on-disk layout is defined once, in its `raw`
//! module, which symblob's builder imports to write it.
//!
//! Blobs may sit at any alignment and are read the same way on little- and big-endian
//! hosts: every field is read through zerocopy's alignment-1 little-endian types.
//!
//! # Example
//!
//! ```
//! use symblob::ksym::KsymBlob;
//!
//! // A placeholder section that was never filled is a valid, empty blob: the caller says
//! // "no symbols embedded" instead of failing.
//! let section = [0u8; 4096];
//! let blob = KsymBlob::parse(&section)?;
//! assert!(blob.is_empty());
//! assert_eq!(blob.used_size(), 32);
//!
//! // Bad bytes give an error naming the format, the section and the offset; never a panic.
//! let err = KsymBlob::parse(&[0xff; 40]).unwrap_err();
//! assert_eq!(err.format, symblob::Format::Ksym);
//! println!("{err}");
//! # Ok::<(), symblob::Error>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::cast_possible_truncation
    )
)]

mod cursor;
mod detect;
mod error;
mod partition;
mod slice;
mod text;
pub mod varint;

pub mod cif;
pub mod gsym;
pub mod ksym;
pub mod lidia;
pub mod symbfile;

pub use detect::{detect, Detected};
pub use error::{Error, ErrorKind, Format};
pub use partition::LANES;
