//! The smallest runtime a freestanding x86_64 Linux program needs: an entry point, the two
//! system calls it uses, the memory functions the compiler emits calls to, and a console.
//!
//! There is no libc: `_start` is entered straight from the kernel with the stack pointer at
//! `argc`, and output goes through the `write` system call.

use core::arch::{asm, naked_asm};
use core::fmt;

/// The process entry point. Clears the frame pointer so that a frame-pointer walk ends
/// here, aligns the stack as the System V ABI requires at a call, and calls `rust_main`,
/// which never returns.
#[unsafe(naked)]
#[no_mangle]
pub unsafe extern "C" fn _start() -> ! {
    naked_asm!(
        "xor ebp, ebp",
        "mov rdi, rsp",
        "and rsp, -16",
        "call {main}",
        "ud2",
        main = sym crate::rust_main,
    )
}

const SYS_READ: usize = 0;
const SYS_WRITE: usize = 1;
const SYS_EXIT_GROUP: usize = 231;

/// A system call with three arguments; returns the raw result (`-errno` on failure).
///
/// # Safety
///
/// The call `nr` with these arguments must only touch memory the caller lets it: a
/// pointer argument must be valid for the length the call is given.
unsafe fn syscall3(nr: usize, a: usize, b: usize, c: usize) -> isize {
    let ret: isize;
    // SAFETY: the caller vouches for what the kernel reads and writes; the kernel
    // clobbers only rcx and r11, and the call does not use our stack.
    unsafe {
        asm!(
            "syscall",
            inlateout("rax") nr as isize => ret,
            in("rdi") a,
            in("rsi") b,
            in("rdx") c,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret
}

/// `write(fd, buf, len)`; returns the raw result (bytes written, or `-errno`).
fn sys_write(fd: usize, bytes: &[u8]) -> isize {
    // SAFETY: `write` only reads `bytes.len()` bytes from `bytes`.
    unsafe { syscall3(SYS_WRITE, fd, bytes.as_ptr() as usize, bytes.len()) }
}

/// `read(fd, buf, len)`; returns the raw result (bytes read, or `-errno`).
fn sys_read(fd: usize, buf: &mut [u8]) -> isize {
    // SAFETY: `read` writes at most `buf.len()` bytes into `buf`.
    unsafe { syscall3(SYS_READ, fd, buf.as_mut_ptr() as usize, buf.len()) }
}

/// Reads from `fd` until end of file, an error, or `buf` is full; returns the bytes read.
#[allow(dead_code)] // used by the no-panic check, which shares this module
pub fn read_to_end(fd: usize, buf: &mut [u8]) -> usize {
    let mut len = 0;
    while let Some(rest) = buf.get_mut(len..) {
        if rest.is_empty() {
            break;
        }
        let n = sys_read(fd, rest);
        if n <= 0 {
            break;
        }
        len += n as usize;
    }
    len
}

/// Ends the process with `code`.
pub fn exit(code: i32) -> ! {
    // SAFETY: `exit_group` does not return and touches no memory of ours.
    unsafe {
        asm!(
            "syscall",
            in("rax") SYS_EXIT_GROUP,
            in("rdi") code as isize,
            options(noreturn, nostack),
        );
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes; gives up on an error.
pub fn write_all(fd: usize, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        let n = sys_write(fd, bytes);
        if n <= 0 {
            return;
        }
        bytes = bytes.get(n as usize..).unwrap_or(&[]);
    }
}

/// A `fmt::Write` to a file descriptor through a small line buffer: no allocation, and a
/// line is written by one system call.
pub struct Console {
    fd: usize,
    buf: [u8; 256],
    len: usize,
}

impl Console {
    /// Standard output.
    pub const fn stdout() -> Self {
        Console {
            fd: 1,
            buf: [0; 256],
            len: 0,
        }
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) {
        write_all(self.fd, self.buf.get(..self.len).unwrap_or(&[]));
        self.len = 0;
    }
}

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if self.len == self.buf.len() {
                self.flush();
            }
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
            if b == b'\n' {
                self.flush();
            }
        }
        Ok(())
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        self.flush();
    }
}

// The compiler lowers copies, fills and comparisons to calls of these functions, which
// libc would otherwise provide. `rep movsb` / `rep stosb` are fast on every x86_64 CPU
// since Ivy Bridge and cannot be turned back into a call to themselves.

/// # Safety
/// The C `memcpy` contract: valid, non-overlapping regions of `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dest => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags),
        );
    }
    dest
}

/// # Safety
/// The C `memmove` contract: valid regions of `n` bytes, which may overlap.
#[no_mangle]
pub unsafe extern "C" fn memmove(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    if (dest as usize).wrapping_sub(src as usize) >= n {
        // The destination does not start inside the source: a forward copy is safe.
        // SAFETY: the caller's contract.
        return unsafe { memcpy(dest, src, n) };
    }
    // Copy backwards, from the last byte.
    // SAFETY: the caller's contract; the direction flag is restored before returning.
    unsafe {
        asm!(
            "std",
            "rep movsb",
            "cld",
            inout("rcx") n => _,
            inout("rdi") dest.wrapping_add(n).wrapping_sub(1) => _,
            inout("rsi") src.wrapping_add(n).wrapping_sub(1) => _,
            options(nostack),
        );
    }
    dest
}

/// # Safety
/// The C `memset` contract: a valid region of `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memset(dest: *mut u8, value: i32, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "rep stosb",
            inout("rcx") n => _,
            inout("rdi") dest => _,
            in("al") value as u8,
            options(nostack, preserves_flags),
        );
    }
    dest
}

/// # Safety
/// The C `memcmp` contract: valid regions of `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i < n {
        // SAFETY: `i < n`, inside both regions.
        let (x, y) = unsafe { (a.add(i).read(), b.add(i).read()) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

/// # Safety
/// The C `bcmp` contract: valid regions of `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { memcmp(a, b, n) }
}
