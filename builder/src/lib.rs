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
//! | module | owns |
//! |---|---|
//! | [`elf`] | ELF files: the section view Go's `debug/elf` has, symbols by nm's, LLVM's and Go's rules, the one rule for code ranges, debug-file discovery (build ID, `.gnu_debuglink`), build ID and load facts of an image, and (feature `size`) the `readelf`/`llvm-nm` listing SuperSize archives are made from |
//! | [`dwarf`] | the DWARF session: loads the DWARF sections, walks units in parallel and yields function groups; [`dwarf::DwarfOptions`] and the [`dwarf::DebugFiles`] every DWARF reader holds |
//! | [`gopclntab`] | Go functions from `.gopclntab` |
//! | [`text`] | `nm -n` / System.map / `/proc/kallsyms` text and format detection |
//! | [`model`] | the contract between sources and writers: [`model::Symbol`] lists and the one rule that keeps a symbol, function groups (spans with depth, names, call file and line, line rows) with their invariants |
//! | [`ksym`] | the ksym-bin writer: ordering, tokens, encoding, layout |
//! | [`lidia`] | the Lidia writer, its DWARF emit ([`lidia::dwarf`]) and its Pyroscope path |
//! | [`cif`] | process image maps: capture, JSON, CIF encoding |
//! | `size` | (feature `size`) SuperSize archives: archiving from the `elf` listing and DWARF compile units, the `.size`/`.sizediff` writer and loader, diffs, reports |
//! | [`embed`] | placing a built blob into a reserved section of a linked ELF |
//! | [`input`], [`output`] | reading inputs (mapped) and writing outputs atomically; [`output::build_outputs`], the sequence every build's outputs go through |
//!
//! A new writer is a new module that takes what it needs from [`model`] (and, for
//! DWARF, runs a [`dwarf`] session), without reaching into another writer; a new input
//! is a new source module that fills the model. `docs/builder.md` walks through both.
//!
//! # Features
//!
//! * `cli` (default): the `symblob` command line and its dependencies (clap, indicatif,
//!   JSON). A `build.rs` depends on this crate with `default-features = false` and gets
//!   the library alone.
//! * `json` (enabled by `cli`): [`cif::ImageMap::from_json`] and
//!   [`cif::ImageMap::to_json`].
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
mod progress;
mod warning;

pub mod cif;
pub mod convert;
pub mod demangle;
pub mod dwarf;
pub mod elf;
pub mod embed;
pub mod gopclntab;
pub mod input;
pub mod ksym;
pub mod lidia;
pub mod model;
pub mod output;
pub mod readback;
#[cfg(feature = "size")]
pub mod size;
pub mod symbfile;
pub mod text;

pub use error::{BoxedSource, Error, ErrorKind, LimitExceeded, Location, Refusal, Result};
pub use progress::Progress;
pub use warning::{Warning, WarningKind};
