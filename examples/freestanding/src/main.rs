//! A freestanding x86_64 Linux program (no std, no libc, no allocator) that carries its own
//! ksym-bin symbol table in a linker section and prints a symbolized backtrace of itself.
//!
//! The build is two-pass, as in a kernel: the program is linked with an all-zero
//! placeholder section `.ksyms`; a post-link step builds the blob of the program's text
//! symbols and writes it into that section (`objcopy --update-section`, or
//! `symblob_build::embed`). Filling the section moves nothing, so the stored addresses stay
//! those of the running code.
//!
//! The blob may be of either ksym-bin version (v1 or v2): the program tells them apart by
//! the blob's first bytes (`symblob::ksym::Version::detect`) and reads it with that
//! version's reader (`src/table.rs`).
//!
//! Exit status: 0 when every name check passed, 1 on a mismatch, 2 when the section was
//! never filled ("no symbols embedded"), 3 when the section holds a malformed blob.
#![no_std]
#![no_main]

mod fixed_buf;
mod frames;
mod rt;
mod stack;
mod table;

use core::fmt::Write;

use symblob::ksym::TextRanges;

use table::Table;

/// Size of the placeholder section; the post-link step fails if the blob is larger.
const KSYMS_SIZE: usize = 64 * 1024;

/// The placeholder, 8-byte aligned so that readers which need alignment can use it too.
#[repr(C, align(8))]
struct Placeholder([u8; KSYMS_SIZE]);

/// The symbol table of this program, filled in after linking. An immutable static with a
/// section name that does not start with `.bss` is emitted as PROGBITS, so the file holds
/// bytes that `objcopy --update-section` can replace.
#[used]
#[link_section = ".ksyms"]
static KSYMS: Placeholder = Placeholder([0; KSYMS_SIZE]);

extern "C" {
    /// Start of the loaded image, defined by the linker.
    static __executable_start: u8;
    /// End of the program text, defined by the linker.
    static etext: u8;
}

/// The embedded blob. `black_box` hides the static's all-zero initialiser from the
/// optimiser, which could otherwise fold every read of it to zero.
fn embedded_blob() -> &'static [u8] {
    core::hint::black_box(&KSYMS.0[..])
}

/// The text range `[__executable_start, etext)`: everything up to the end of the code.
fn text_range() -> (u64, u64) {
    // Only the addresses of the linker symbols are taken, never their contents.
    (
        core::ptr::addr_of!(__executable_start) as u64,
        core::ptr::addr_of!(etext) as u64,
    )
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    rt::write_all(2, b"panic\n");
    rt::exit(101)
}

/// Called by `_start` with the initial stack pointer.
#[no_mangle]
extern "C" fn rust_main(_initial_sp: *const usize) -> ! {
    let code = run(&mut rt::Console::stdout());
    rt::exit(code)
}

fn run(out: &mut rt::Console) -> i32 {
    let bytes = embedded_blob();
    let (text_start, text_end) = text_range();
    let ranges = match TextRanges::single(text_start, text_end) {
        Ok(ranges) => ranges,
        Err(e) => {
            let _ = writeln!(out, "bad text range: {e}");
            return 3;
        }
    };
    let table = match Table::parse(bytes, ranges) {
        Ok(table) => table,
        Err(e) => {
            let _ = writeln!(out, "bad symbol blob: {e}");
            return 3;
        }
    };
    if table.is_empty() {
        // An all-zero section parses as a valid (v1) blob with no symbols: the post-link
        // step did not run.
        let _ = writeln!(out, "no symbols embedded");
        return 2;
    }
    let _ = writeln!(
        out,
        "symbols: {}, blob: {} of {} bytes, text: {:#x}..{:#x}, format: ksym-bin v{}",
        table.len(),
        table.used_size(),
        bytes.len(),
        text_start,
        text_end,
        table.version()
    );

    frames::level_one(&table, out);
    let mismatches = frames::check_names(&table, out);
    stack::report(&table, out);
    if mismatches == 0 {
        0
    } else {
        1
    }
}
