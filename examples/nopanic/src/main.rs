//! Link-time proof that the `symblob` reader cannot panic, and the no_std link check.
//!
//! This `#![no_std]`, `#![no_main]` program without libc or allocator reads bytes from
//! standard input and feeds them to every public entry point of the reader: ksym-bin
//! (parse, validate, lookups by address, return address and name, both iterations, name
//! formatting and copying, dump), Lidia (parse, checksums, validation, lookups, ranges,
//! line tables), CIF (decoder, encoder, base64, VLQ), symbfile (framing, validation,
//! records, string tables, lookups), GSYM (parse, validation, functions, file table,
//! strings, lookups with their frames) and format detection. The input is opaque to the
//! compiler, so no path can be folded away.
//!
//! The panic handler calls `symblob_reader_panicked`, which is defined nowhere. Built in
//! release mode with fat LTO and one codegen unit, any panic that the optimiser cannot
//! prove unreachable keeps a call to the handler and the link fails with an undefined
//! reference. A successful link is the proof.
//!
//! Run it with a blob on standard input: it prints the ksym dump (the same text as
//! `symblob ksym dump`) and a line of results per format.
#![no_std]
#![no_main]

#[path = "../../freestanding/src/fixed_buf.rs"]
mod fixed_buf;
#[path = "../../freestanding/src/rt.rs"]
mod rt;

mod cif;
mod detect;
mod digest;
mod gsym;
mod ksym;
mod ksym_v2;
mod lidia;
mod symbfile;

use core::fmt::Write;
use core::ptr::addr_of_mut;

#[cfg(not(feature = "find-panics"))]
extern "C" {
    /// Defined nowhere: a reachable panic makes the link fail.
    fn symblob_reader_panicked() -> !;
}

#[cfg(not(feature = "find-panics"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: never called when the link succeeds; there is no such function.
    unsafe { symblob_reader_panicked() }
}

/// With `--features find-panics` the program links whatever panics remain, so that
/// `objdump -d` can show which functions still call into `core::panicking`.
#[cfg(feature = "find-panics")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    rt::write_all(2, b"panic\n");
    rt::exit(101)
}

/// The value of `result`, or `None` after a line `format: error` on `out` (the input is
/// not a file of that format).
fn parsed<T, E: core::fmt::Display>(
    result: Result<T, E>,
    format: &str,
    out: &mut rt::Console,
) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(e) => {
            let _ = writeln!(out, "{format}: {e}");
            None
        }
    }
}

/// Largest input read from standard input.
const INPUT_CAPACITY: usize = 16 << 20;

static mut INPUT: [u8; INPUT_CAPACITY] = [0; INPUT_CAPACITY];

/// Called by `_start` with the initial stack pointer.
#[no_mangle]
extern "C" fn rust_main(_initial_sp: *const usize) -> ! {
    // SAFETY: single-threaded; this is the only reference to the buffer.
    let buf = unsafe { &mut *addr_of_mut!(INPUT) };
    let len = rt::read_to_end(0, buf);
    let input: &[u8] = buf.get(..len).unwrap_or(&[]);
    let mut out = rt::Console::stdout();
    let _ = writeln!(out, "input: {len} bytes");
    #[cfg(feature = "panic-control")]
    #[allow(clippy::indexing_slicing)]
    {
        // Panics on empty input: with this the link must fail.
        let _ = writeln!(out, "middle byte: {}", input[len / 2]);
    }
    detect::check(input, &mut out);
    ksym::check(input, &mut out);
    ksym_v2::check(input, &mut out);
    lidia::check(input, &mut out);
    cif::check(input, &mut out);
    symbfile::check(input, &mut out);
    gsym::check(input, &mut out);
    out.flush();
    rt::exit(0)
}
