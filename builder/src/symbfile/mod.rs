//! symbfile: the OpenTelemetry eBPF profiler's symbol files, written and converted.
//!
//! * [`record`]: the records a producer (DWARF, Go, ELF extraction, return-pad disassembly,
//!   a conversion) hands to the writer, and their owned form decoded from a file.
//! * [`writer`]: the byte-level writer (symblib's encoding, deterministic string tables).
//! * [`parts`]: self-contained part files for upload.
//! * [`fileid`]: the FileID of an executable (SHA-256 of head, tail and size).
//! * [`model`]: symbfiles from the model (what `symblob convert` writes).
//! * [`index`]: lookups without a sweep: the file indexed once, each address answered
//!   in O(log n) (a symbolization service's or the command line's many lookups).
//! * [`upload`]: the REST upload (`push`) and the static download layout (`publish`)
//!   (feature `upload`).
//!
//! The records come from the model ([`crate::model::RangeRecord`]); the sources that make
//! them from an executable are [`crate::extract`] (DWARF by symblib's algorithm, Go
//! pclntab, ELF symbols, merged by coverage) and [`crate::retpads`] (return pads from the
//! range records and the machine code); both files of an executable made in one pass are
//! [`crate::pipeline::symbfile`].
//!
//! # Example
//!
//! ```
//! use symblob_build::symbfile::{decode, LineRow, RangeRecord, Record, SymbfileWriter};
//!
//! let main = RangeRecord {
//!     va: 0x1000,
//!     length: 0x40,
//!     func: "main".into(),
//!     file: Some("main.c".into()),
//!     lines: vec![LineRow { offset: 0, line: 10 }, LineRow { offset: 0x20, line: 12 }],
//!     ..RangeRecord::default()
//! };
//! let mut writer = SymbfileWriter::new();
//! writer.add(&Record::Range(main.clone()))?;
//! let bytes = writer.finish()?;
//! assert_eq!(decode(&bytes)?, vec![Record::Range(main)]);
//! # Ok::<(), symblob_build::Error>(())
//! ```

pub mod fileid;
pub mod index;
#[cfg(feature = "json")]
pub mod json;
pub mod model;
pub mod parts;
pub mod record;
pub mod text;
#[cfg(feature = "upload")]
pub mod upload;
mod window;
pub mod writer;

pub use fileid::FileId;
pub use record::{decode, LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord};
pub use writer::{SymbfileWriter, WriterOptions};
