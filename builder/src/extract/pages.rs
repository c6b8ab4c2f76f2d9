//! Giving back the mapped pages of DWARF the extraction has finished reading.
//!
//! Pages of a mapped file count in a process's resident memory once read. The DWARF pass
//! reads `.debug_info` front to back, unit batch by unit batch, so the pages of the
//! batches already done can be dropped from the mapping: the file's page cache keeps them,
//! and a later reference into an earlier unit (rare) faults them in again, unchanged.

use memmap2::{Mmap, UncheckedAdvice};

/// Drops from `map` the pages that hold `part` of it; nothing when `part` does not lie
/// in `map` (a section decompressed into memory, or read from another file).
pub(crate) fn release(map: &Mmap, part: &[u8]) {
    let base = map.as_ptr() as usize;
    let start = part.as_ptr() as usize;
    let Some(offset) = start.checked_sub(base) else {
        return;
    };
    if part.is_empty() || offset.saturating_add(part.len()) > map.len() {
        return;
    }
    // SAFETY: `MADV_DONTNEED` on this read-only shared file mapping only drops the pages
    // from the process's page tables; the next access reads the same bytes from the file
    // again, so every slice borrowed from `map` keeps its contents. (The one danger of
    // the advice, the loss of written private pages, cannot arise: nothing writes
    // through a read-only map.) A failure only leaves the pages mapped.
    let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, offset, part.len()) };
}
