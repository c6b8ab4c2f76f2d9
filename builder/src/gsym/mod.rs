//! The GSYM v1 writer (`docs/formats/gsym.md`): LLVM's symbolization format, from the
//! [model](crate::model).
//!
//! Every named function piece becomes a `FunctionInfo` with a line table (when its spans
//! have rows) and an inline tree (when it has inlined calls), as `llvm-gsymutil
//! --convert` writes them; pieces with the same range or nested zero-sized ones are
//! reduced by LLVM's `GsymCreator::finalize` rules ([`writer`]). The file is written
//! little-endian, deterministic for a given model.

mod inline;
mod line_table;
pub mod writer;

pub use writer::{write_model, GsymOptions, Written};
