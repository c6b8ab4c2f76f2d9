//! Breakpad symbol files: symblob's `.sym` writer against Mozilla's `dump_syms`, record by
//! record.

mod cfi;
mod records;
mod writer;
