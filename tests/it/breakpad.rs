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

/// The module's load address as dump_syms takes it: the first `PT_LOAD`'s `p_vaddr` (0
/// for position-independent code). Breakpad addresses are relative to it.
pub(crate) fn load_address(elf_bytes: &[u8]) -> u64 {
    use object::{Object, ObjectSegment};
    let file = object::File::parse(elf_bytes).expect("an ELF file");
    // object lists the PT_LOAD segments in program-header order.
    file.segments().next().map_or(0, |s| s.address())
}
