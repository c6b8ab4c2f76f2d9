//! Stack high-water marks of the reader's entry points, measured by painting.
//!
//! Each operation runs on a separate, painted stack: the stack pointer is switched to the
//! top of a static buffer filled with a pattern, the operation runs, and the deepest word
//! that no longer holds the pattern gives the stack it used. The figure includes the few
//! words of the trampoline and the closure call around the operation.

use core::arch::asm;
use core::fmt::Write;
use core::hint::black_box;
use core::ptr::addr_of_mut;

use crate::fixed_buf::FixedBuf;
use crate::rt::Console;
use crate::table::Table;

const PAINT: u64 = 0x5a5a_5a5a_5a5a_5a5a;
const STACK_WORDS: usize = 8 * 1024;

#[repr(C, align(16))]
struct Stack([u64; STACK_WORDS]);

static mut STACK: Stack = Stack([0; STACK_WORDS]);

/// Runs `job` on the painted stack and returns the bytes of stack it used.
fn measure(job: &mut dyn FnMut()) -> usize {
    // SAFETY: the program is single-threaded and `measure` is not re-entered, so this is
    // the only reference to the buffer.
    let stack = unsafe { &mut (*addr_of_mut!(STACK)).0 };
    stack.fill(PAINT);
    let top = stack.as_mut_ptr_range().end;
    let mut job = job;
    // SAFETY: `top` is the 16-byte aligned end of a buffer nobody else uses; the old stack
    // pointer is kept in the callee-saved r12 and restored after the call; the trampoline
    // follows the C ABI, whose clobbers are declared.
    unsafe {
        asm!(
            "mov r12, rsp",
            "mov rsp, {top}",
            "call {trampoline}",
            "mov rsp, r12",
            top = in(reg) top,
            trampoline = sym trampoline,
            in("rdi") &mut job as *mut &mut dyn FnMut(),
            out("r12") _,
            clobber_abi("C"),
        );
    }
    let untouched = stack.iter().take_while(|w| **w == PAINT).count();
    (STACK_WORDS - untouched) * 8
}

extern "C" fn trampoline(job: *mut &mut dyn FnMut()) {
    // SAFETY: `measure` passes a pointer to a live `&mut dyn FnMut()`.
    unsafe { (*job)() }
}

/// Measures parse, validate, every address and return-address lookup, every name lookup,
/// `Display` of a symbol and the whole dump, and prints the high-water marks. Each figure
/// is that of the blob's version (the dispatch in `Table` adds at most a frame).
pub fn report(table: &Table<'_>, out: &mut Console) {
    let bytes = crate::embedded_blob();
    let mut name_buf = [0u8; 512];
    let mut line = [0u8; 160];
    let addresses = || (0..table.len()).filter_map(|index| table.address(index));

    // The trampoline and an empty job: subtract from the figures below for the reader's
    // own share.
    let baseline = measure(&mut || {
        black_box(());
    });
    let parse = measure(&mut || {
        black_box(Table::parse(black_box(bytes), table.ranges()).is_ok());
    });
    let validate = measure(&mut || {
        black_box(table.validate().is_ok());
    });
    let lookup_address = measure(&mut || {
        for address in addresses() {
            for delta in [0, 1] {
                black_box(table.lookup_address(black_box(address.wrapping_add(delta))));
            }
        }
    });
    let lookup_return_address = measure(&mut || {
        for address in addresses() {
            black_box(table.lookup_return_address(black_box(address.wrapping_add(1))));
        }
    });
    let lookup_name = measure(&mut || {
        for index in 0..table.len() {
            if let Some(len) = table.copy_name(index, &mut name_buf) {
                if let Some(name) = name_buf.get(..len) {
                    black_box(table.lookup_name(black_box(name)));
                }
            }
        }
    });
    let display = measure(&mut || {
        for address in addresses() {
            if let Some(symbol) = table.lookup_address(address) {
                let mut w = FixedBuf::new(&mut line);
                let _ = write!(w, "{symbol}");
                black_box(w.bytes());
            }
        }
    });
    let mut dumped = 0;
    let dump = measure(&mut || {
        let mut w = FixedBuf::new(&mut []);
        let _ = table.dump(&mut w);
        dumped = w.wanted();
    });

    let _ = writeln!(out, "stack high-water marks (bytes):");
    for (what, bytes) in [
        ("baseline (empty job)", baseline),
        ("parse", parse),
        ("validate", validate),
        ("lookup_address", lookup_address),
        ("lookup_return_address", lookup_return_address),
        ("lookup_name", lookup_name),
        ("Display of a symbol", display),
        ("dump", dump),
    ] {
        let _ = writeln!(out, "  {what}: {bytes}");
    }
    let _ = writeln!(out, "dump: {dumped} bytes");
}
