//! Builds symbol blobs for the [`symblob`] reader.
//!
//! `symblob-build` is the host half of symblob: it reads ELF symbol tables, DWARF, Go
//! pclntab and `nm` / `/proc/kallsyms` text, and writes ksym-bin, Lidia, symbfile, GSYM
//! and CIF files that the `no_std` reader turns back into names, inline frames and source
//! lines; every format it reads back converts into every other ([`convert`]). It is
//! a library first, usable from a `build.rs` or a post-link step, with the `symblob`
//! command line on top.
//!
//! Output is deterministic: the same input and options give the same bytes on every run
//! and machine. Files are written to a temporary file and renamed ([`output`]), so a
//! failed build never leaves a partial file behind. The library prints nothing: problems
//! that do not stop a build come back as warnings, and long builds report progress
//! through a [`Progress`] callback in their options.
//!
//! Every error is an [`Error`]: its [`ErrorKind`] to match on (malformed, unsupported,
//! missing, a limit, a mismatched debug file, an output that is an input, …), the input
//! it is about, the place in it ([`Location`]: line, offset or entry, and the ELF or
//! DWARF section) and the underlying error as its `source()`.
//!
//! # Flow: sources → model → writers
//!
//! ```text
//!  ELF symbols ─┐  sources               model                    writers
//!  DWARF       ─┤  elf/ dwarf/       ─►  model/: symbols,      ─►  ksym/   ksym-bin
//!  Go pclntab  ─┼─ gopclntab/ text/      function groups with      lidia/  Lidia
//!  nm/kallsyms ─┘                        inline depth, files,      cif/    CIF (image maps)
//!                                        call sites, line rows
//! ```
//!
//! Sources read one kind of input each and know no output format; writers read the
//! model (Lidia also has its Pyroscope-compatible path straight from ELF symbols and
//! `.gopclntab`, whose bytes are fixed by Go's choices). What each module owns:
//!
//! | module | feature | owns |
//! |---|---|---|
//! | [`elf`] | always | ELF files: the section view Go's `debug/elf` has, symbols by nm's, LLVM's and Go's rules, the one rule for code ranges, debug-file discovery (build ID, `.gnu_debuglink`), build ID and load facts of an image, and (with `size`) the `readelf`/`llvm-nm` listing SuperSize archives are made from |
//! | [`dwarf`] | `dwarf` | the DWARF session: loads the DWARF sections, walks units in parallel and yields function groups; [`dwarf::DwarfOptions`] and the [`dwarf::DebugFiles`] every DWARF reader holds |
//! | [`gopclntab`] | `gopclntab` | Go functions from `.gopclntab` |
//! | [`text`] | `text` | `nm -n` / System.map / `/proc/kallsyms` text and format detection |
//! | [`cfi`] | `breakpad` | unwind rows from `.eh_frame` and `.debug_frame` |
//! | [`extract`] | `symbfile` | range records by symblib's rules from DWARF, Go and ELF symbols, merged by coverage |
//! | [`retpads`] | `symbfile` | return pads from range records and the machine code |
//! | [`capture`] | `cif` | a live process's image map from `/proc` |
//! | [`model`] | always | the contract between sources and writers: [`model::Symbol`] lists and the one rule that keeps a symbol, function groups (spans with depth, names, call file and line, line rows) with their invariants, symblib's flat records, unwind rows, an image's identity, listing, source paths and process map |
//! | [`demangle`] | always | the one demangling policy of every source |
//! | [`ksym`] | `ksym` | the ksym-bin writer: ordering, tokens, encoding, layout |
//! | [`embed`] | `ksym` | placing a built blob into a reserved section of a linked ELF |
//! | [`lidia`] | `lidia` | the Lidia writer: ranges, the model's function groups, Pyroscope's byte-identical layout |
//! | [`symbfile`] | `symbfile` | the symbfile writer, decoding, index, parts and FileID; upload with `upload` |
//! | [`gsym`] | `gsym` | the GSYM v1 writer (LLVM's symbolization format), from the model |
//! | [`breakpad`] | `breakpad` | the Breakpad `.sym` writer from the model, with unwind rules (`STACK CFI`) and the module identity |
//! | [`cif`] | `cif` | CIF encoding and decoding of process image maps, JSON (with `json`) |
//! | [`size`] | `size` | SuperSize archives: archiving from the model's listing and source paths, the `.size`/`.sizediff` writer and loader, diffs, reports |
//! | [`readback`] | `ksym`, `lidia`, `symbfile`, `gsym` | sources that read symblob's own formats (and GSYM files LLVM writes) back into the model, one per format, each behind that format's feature |
//! | [`pipeline`] | per format | builds from an input file: the sources, the model, one writer and the output sequence (`ksym`, `lidia`, `breakpad`, `symbfile`, `size`) |
//! | [`convert`] | `convert` | `symblob convert`: one source, the model, one writer |
//! | [`serve`] | `serve` | `symblob serve`: the symbolization service of symbfile's upload API (uploads joined and published with a Lidia index, symbolize one executable or a batch, the download layout, stale parts swept, debuginfod fallback) on a directory or S3 |
//! | [`input`], [`output`] | always | reading inputs (mapped) and writing outputs atomically; [`output::build_outputs`], the sequence every build's outputs go through |
//!
//! A new writer is a new module that takes what it needs from [`model`] and names no
//! source and no other writer; its build from an input file (a [`dwarf`] session, say) is
//! a [`pipeline`] module; a new input is a new source module that fills the model. A unit
//! test keeps that rule; `docs/builder.md` walks through both.
//!
//! # Features
//!
//! A source or a writer compiles only when its feature is on, so a `build.rs` pays only
//! for what it uses; ELF symbols, the model, demangling, input and output are always
//! there. The default, `cli`, turns every feature on.
//!
//! | feature | what | enables | dependencies it adds |
//! |---|---|---|---|
//! | `text` | [`text`]: `nm -n`, System.map, `/proc/kallsyms` | | |
//! | `gopclntab` | [`gopclntab`]: Go functions from `.gopclntab` | | |
//! | `dwarf` | [`dwarf`]: the DWARF session | | gimli, rayon |
//! | `ksym` | [`ksym`] and [`embed`]: ksym-bin from text or ELF symbols ([`pipeline::ksym`]); [`readback::ksym`] | `text` | |
//! | `lidia` | [`lidia`]: Lidia from ELF symbols, Go pclntab or DWARF ([`pipeline::lidia`]); [`readback::lidia`] | `dwarf`, `gopclntab` | crc32c |
//! | `symbfile` | [`symbfile`], with [`extract`] (records from DWARF, Go and ELF symbols) and [`retpads`] (return pads decoded from x86-64 and AArch64 code), [`pipeline::symbfile`]; FileIDs; [`readback::symbfile`] | `dwarf`, `gopclntab` | sha2, base64, iced-x86 |
//! | `gsym` | [`gsym`]: GSYM v1 from the model; [`readback::gsym`] | | leb128, rayon |
//! | `breakpad` | [`breakpad`]: Breakpad `.sym` files from ELF/DWARF ([`pipeline::breakpad`]), with unwind rules ([`cfi`]); [`readback::breakpad`] | `dwarf`, `gopclntab` | rayon, memchr, itoa |
//! | `cif` | [`cif`]: process image maps ([`capture`]) and CIF | | |
//! | `size` | [`size`]: SuperSize `.size` / `.sizediff` archives ([`pipeline::size`]) | `dwarf`, `json` | flate2, csv |
//! | `convert` | [`convert`]: between ksym-bin, Lidia, symbfile and GSYM, from Breakpad `.sym` and ELF | `ksym`, `lidia`, `symbfile`, `gsym`, `breakpad` | |
//! | `json` | JSON forms: [`cif::ImageMap::from_json`] and [`to_json`](cif::ImageMap::to_json) (with `cif`), [`symbfile::json`] (with `symbfile`) | | serde, serde_json |
//! | `upload` | [`symbfile::upload`]: push to a symbolization service, publish a download tree | `symbfile`, `json` | ureq, zstd |
//! | `serve` | [`serve`]: the symbolization service | `upload`, `lidia` | tokio, axum, object_store, subtle, uuid, lru, futures, bytes, http-body-util, itoa |
//! | `cli` (default) | the `symblob` command line | all of the above | clap, indicatif |
//!
//! A `build.rs` that writes the ksym-bin blob of an ELF file
//! ([`pipeline::ksym::build_from_elf`], or [`embed::embed_ksyms`] for a post-link step)
//! needs `ksym` alone, which compiles none of gimli, rayon, iced-x86, sha2 or serde:
//!
//! ```toml
//! [build-dependencies]
//! symblob-build = { version = "0.1", default-features = false, features = ["ksym"] }
//! ```
//!
//! The `ksym_from_elf` example is such a `build.rs`, written as a program.
//!
//! # Example
//!
//! ```
//! use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
//! use symblob_build::ksym::{build, BuildOptions, InputOptions};
//! use symblob_build::text::parse_nm;
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

// The sources and writers share crate-internal pieces (the ELF section view, debug-file
// discovery, the function-group model, error helpers), and a build with only some of the
// features leaves some of them unused. Those warnings mean something only when every
// feature is on (as `cli` turns them all on, and CI's clippy runs).
#![cfg_attr(
    not(all(
        feature = "ksym",
        feature = "lidia",
        feature = "cif",
        feature = "gsym",
        feature = "size",
        feature = "convert",
        feature = "upload"
    )),
    allow(dead_code, unused_imports)
)]

mod error;
#[cfg(any(feature = "dwarf", feature = "gsym", feature = "symbfile"))]
mod fast_hash;
mod hex;
mod progress;
mod warning;

#[cfg(feature = "breakpad")]
pub mod breakpad;
#[cfg(feature = "cif")]
pub mod capture;
#[cfg(feature = "breakpad")]
pub mod cfi;
#[cfg(feature = "cif")]
pub mod cif;
#[cfg(feature = "convert")]
pub mod convert;
pub mod demangle;
#[cfg(feature = "dwarf")]
pub mod dwarf;
pub mod elf;
#[cfg(feature = "ksym")]
pub mod embed;
#[cfg(feature = "symbfile")]
pub mod extract;
#[cfg(feature = "gopclntab")]
pub mod gopclntab;
#[cfg(feature = "gsym")]
pub mod gsym;
pub mod input;
#[cfg(feature = "ksym")]
pub mod ksym;
#[cfg(feature = "lidia")]
pub mod lidia;
pub mod model;
pub mod output;
pub mod pipeline;
pub mod readback;
#[cfg(feature = "symbfile")]
pub mod retpads;
#[cfg(feature = "serve")]
pub mod serve;
#[cfg(feature = "size")]
pub mod size;
#[cfg(feature = "symbfile")]
pub mod symbfile;
#[cfg(feature = "text")]
pub mod text;

pub use error::{BoxedSource, Error, ErrorKind, LimitExceeded, Location, Refusal, Result};
pub use progress::Progress;
pub use warning::{Warning, WarningKind};
