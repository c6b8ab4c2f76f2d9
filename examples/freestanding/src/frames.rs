//! A nested call chain whose innermost function walks the frame-pointer chain and prints
//! the symbolized backtrace, and the name → address checks against function pointers.
//!
//! With `-C force-frame-pointers=yes` every function of this program starts with
//! `push rbp; mov rbp, rsp`, so `[rbp]` holds the caller's frame pointer and `[rbp + 8]`
//! the return address into the caller. `_start` clears `rbp`, which ends the chain.

use core::arch::asm;
use core::fmt::Write;
use core::hint::black_box;

use crate::rt::Console;
use crate::table::{Symbol, Table};

/// Most frames printed; a corrupt chain cannot make the walk run away.
const MAX_FRAMES: usize = 32;

/// The first of three nested calls that end in the backtrace.
#[inline(never)]
pub fn level_one(table: &Table<'_>, out: &mut Console) {
    level_two(table, out);
    // Work after the call keeps it from being a tail call, so this frame stays on the
    // stack.
    black_box(1);
}

#[inline(never)]
fn level_two(table: &Table<'_>, out: &mut Console) {
    level_three(table, out);
    black_box(2);
}

#[inline(never)]
fn level_three(table: &Table<'_>, out: &mut Console) {
    let pc: u64;
    let mut fp: u64;
    // SAFETY: reads two registers, touches no memory.
    unsafe {
        asm!("lea {pc}, [rip]", "mov {fp}, rbp", pc = out(reg) pc, fp = out(reg) fp,
             options(nomem, nostack, preserves_flags));
    }
    // The program counter is an address inside this function: plain address lookup.
    let _ = write!(out, "pc: ");
    print_frame(out, pc, table.lookup_address(pc));
    let _ = writeln!(out, "Call Trace:");
    for _ in 0..MAX_FRAMES {
        // A frame pointer is 16-byte aligned at a call boundary; anything else, or zero,
        // ends the walk.
        if fp == 0 || fp & 0xf != 0 {
            break;
        }
        // SAFETY: `fp` is a frame pointer saved by a function of this program (each one
        // stores the previous `rbp` and sits below its caller's frame), so both words are
        // on the live stack.
        let (next, ra) = unsafe { ((fp as *const u64).read(), (fp as *const u64).add(1).read()) };
        if ra == 0 {
            break;
        }
        // Return addresses are resolved as `ra − 1`, so that a call in the last
        // instruction of a function is named after the caller.
        print_frame(out, ra, table.lookup_return_address(ra));
        // The stack grows down: callers' frames are at higher addresses.
        if next <= fp {
            break;
        }
        fp = next;
    }
    black_box(3);
}

/// Prints ` [<address>] name+0xoff/0xsize`, or the bare address when no symbol covers it.
fn print_frame(out: &mut Console, address: u64, symbol: Option<Symbol<'_>>) {
    let _ = match symbol {
        Some(symbol) => writeln!(out, " [<{address:016x}>] {symbol}"),
        None => writeln!(out, " [<{address:016x}>] {address:#x}"),
    };
}

/// Resolves the names of a few functions with `lookup_name` and compares the answers with
/// the functions' own addresses; prints `OK` or `MISMATCH` for each and returns the number
/// of mismatches.
pub fn check_names(table: &Table<'_>, out: &mut Console) -> usize {
    let expected: [(&str, usize); 6] = [
        (
            "freestanding::frames::level_one",
            level_one as *const () as usize,
        ),
        (
            "freestanding::frames::level_two",
            level_two as *const () as usize,
        ),
        (
            "freestanding::frames::level_three",
            level_three as *const () as usize,
        ),
        ("freestanding::run", crate::run as *const () as usize),
        ("rust_main", crate::rust_main as *const () as usize),
        ("_start", crate::rt::_start as *const () as usize),
    ];
    let mut mismatches = 0;
    for (name, address) in expected {
        let found = table.lookup_name(name.as_bytes());
        let ok = found == Some(address as u64);
        let _ = match found {
            Some(found) => writeln!(
                out,
                "lookup_name {name} = {found:#x}, function at {address:#x}: {}",
                if ok { "OK" } else { "MISMATCH" }
            ),
            None => writeln!(
                out,
                "lookup_name {name} = none, function at {address:#x}: MISMATCH"
            ),
        };
        if !ok {
            mismatches += 1;
        }
    }
    mismatches
}
