//! The command's allocator: the system's, with large blocks backed by transparent huge
//! pages where the kernel leaves them to the program (`madvise` mode, Debian's default).
//!
//! Why: a conversion touches a few hundred megabytes once (the model, the writer's
//! tables, the output); with 4 KiB pages, the kernel's page faults were a sixth of the
//! kernel `.sym` → Lidia conversion's CPU time. One huge page replaces 512 of those
//! faults. glibc can do the same (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`), but only when
//! the environment says so before the process starts. No allocator crate offers this
//! without replacing glibc's allocator, which was measured to cost memory here.
//!
//! Only blocks of [`LARGE`] bytes or more are advised, and only while [`enable`] is in
//! force: a block that size is filled, so its huge pages cost no memory that its small
//! pages would not; the long-running service does not turn it on.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// Blocks from this size on are advised.
const LARGE: usize = 2 << 20;
/// The size of a small page, to which an advised range is aligned.
const PAGE: usize = 4096;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Large blocks allocated from now on ask for huge pages.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// [`System`], advising large blocks (see the module docs).
pub struct HugePages;

// SAFETY: every call is passed to `System` unchanged; `madvise` only changes how the
// kernel backs whole pages inside a block the caller now owns, never its contents.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let block = unsafe { System.alloc(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let block = unsafe { System.realloc(block, layout, new_size) };
        advise(block, new_size);
        block
    }
}

/// Asks for huge pages behind the whole pages of the `len` bytes at `block`, when
/// enabled and large enough. A failure (no THP in this kernel) changes nothing.
fn advise(block: *mut u8, len: usize) {
    if block.is_null() || len < LARGE || !ENABLED.load(Ordering::Relaxed) {
        return;
    }
    let start = (block as usize).next_multiple_of(PAGE);
    let end = (block as usize + len) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies inside the block just allocated; MADV_HUGEPAGE does
        // not change its contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}
