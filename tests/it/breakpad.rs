//! Breakpad symbol files: symblob's `.sym` writer against Mozilla's `dump_syms`, record by
//! record, a real crash walked by `minidump-stackwalk` with both, and the reader against
//! rust-minidump's `breakpad-symbols`.

mod cfi;
// The minidump is written with ptrace, through minidump-writer's Linux API.
#[cfg(target_os = "linux")]
mod crash_walk;
pub(crate) mod reader;
mod records;
mod writer;
