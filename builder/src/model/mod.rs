//! The model: what sources produce and writers consume.
//!
//! Sources (`elf`, `dwarf`, `gopclntab`, `text`, `cfi`, `extract`, `retpads`, `capture`,
//! and `readback` for the formats symblob writes) fill these types and know nothing of
//! any output format; writers (`ksym`, `lidia`, `gsym`, `breakpad`, `symbfile`, `size`,
//! `cif`) read them and know nothing of where they came from. The builds that join the
//! two are in [`crate::pipeline`].
//!
//! * [`Group`] / [`Span`] / [`Row`]: one function piece with its inline spans (depth,
//!   name, source file, call file and line) and the line rows each owns; the invariant is
//!   in [`Group`]'s documentation.
//! * [`Symbol`] / [`SymbolList`]: named addresses with an nm type character, kept by the
//!   one symbol rule ([`TypeFilter`], mapping symbols dropped, names checked and
//!   normalised by [`Demangle`]).
//! * [`Model`]: one input's whole content (functions, symbols, text ranges, return pads)
//!   and [`Contents`], the kinds of facts it holds, which `symblob convert` compares with
//!   what its target can hold.
//! * [`RangeRecord`] / [`ReturnPadRecord`]: symblib's flat records (a function's range at
//!   one inline depth with its rows; a return address's inline trace).
//! * `ImageListing`: an image's sections and symbols as readelf and llvm-nm list them;
//!   [`SourceMapper`] / [`DeclPaths`]: the source paths DWARF gives its addresses.
//! * [`Module`]: an image's identity as crash reporting names it (debug ID, code ID, name).
//! * [`CfiRecord`] / [`CfiRow`]: unwind rules of address ranges (Breakpad `STACK CFI`).
//! * `ImageMap` / `MapImage` (feature `cif`): a process's loaded images, as CIF holds them.

mod contents;
mod function;
#[cfg(feature = "cif")]
mod image_map;
mod listing;
mod module;
mod names;
mod records;
mod source_paths;
mod symbols;
mod unwind;

pub use contents::{
    functions_of_symbols, leave_models_to_exit, Contents, Model, PadFrame, ReturnPad,
};
pub use function::{function_runs, sort_spans, Bytes, Group, Row, SharedBytes, Span};
pub(crate) use function::{innermost, innermost_into};
#[cfg(feature = "cif")]
pub use image_map::{ImageMap, MapImage};
pub(crate) use listing::{ImageListing, NmSymbol, SectionHeader};
pub use module::Module;
pub(crate) use module::{debug_id, upper_hex};
pub(crate) use names::{check_name_bytes, check_name_length, MappingSymbols};
pub use names::{Demangle, NameError};
pub(crate) use records::SCRATCH_SLOTS;
pub use records::{LineRow, PadEntry, RangeRecord, ReturnPadRecord};
pub use source_paths::{DeclPaths, SourceMapper};
pub(crate) use symbols::accept;
pub use symbols::{InputOptions, Symbol, SymbolList, TypeFilter};
pub use thin_vec::ThinVec;
pub use unwind::{CfiRecord, CfiRow};
