//! C++ (Itanium ABI) demangling as binutils does it.
//!
//! With `libiberty.a` at build time (see `build.rs`), names go through libiberty's
//! `cplus_demangle_v3`: the very code behind `nm -C`, `c++filt`, `objdump -C`,
//! `addr2line -C` and perf, so the output is theirs byte for byte. The flags are those of
//! `nm -C` (`DMGL_PARAMS | DMGL_ANSI`); `c++filt` adds `DMGL_VERBOSE`, which only changes
//! names using the `Ss`-style standard abbreviations.
//!
//! Without it the `cpp_demangle` crate is used. It differs from binutils on about 14 % of
//! the exported C++ names of `libLLVM-14.so.1` (template parameter packs lose their `&&`
//! and `const&`, literal template arguments are written `(unsigned int)4` rather than
//! `4u`, empty packs leave `, >`), which is why libiberty is preferred.

/// Whether C++ names come out exactly as binutils writes them (libiberty was linked).
pub const GNU_COMPATIBLE: bool = cfg!(symblob_libiberty);

/// The binutils demangling of a `_Z…` name, or `None` if it is not a valid mangled name.
#[cfg(symblob_libiberty)]
pub(super) fn demangle(name: &str) -> Option<String> {
    use std::ffi::{c_char, c_int, c_void, CStr, CString};

    /// `demangle.h`: include the parameter list, and `const`/`volatile`.
    const DMGL_PARAMS: c_int = 1 << 0;
    const DMGL_ANSI: c_int = 1 << 1;
    /// Itanium ABI only: never the Rust or Ada rules libiberty would also try.
    const DMGL_GNU_V3: c_int = 1 << 14;

    extern "C" {
        /// Returns a `malloc`ed string, or NULL when `mangled` is not a valid name.
        /// Reentrant: all its state lives on the stack or in the returned buffer.
        fn cplus_demangle_v3(mangled: *const c_char, options: c_int) -> *mut c_char;
        fn free(ptr: *mut c_void);
    }

    let mangled = CString::new(name).ok()?;
    // SAFETY: `mangled` is a NUL-terminated string that outlives the call; the result is
    // either NULL or a NUL-terminated `malloc`ed buffer that we own, read once and free
    // exactly once.
    unsafe {
        let out = cplus_demangle_v3(mangled.as_ptr(), DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
        if out.is_null() {
            return None;
        }
        let text = CStr::from_ptr(out).to_str().ok().map(str::to_owned);
        free(out.cast());
        text
    }
}

/// The `cpp_demangle` crate's demangling of a `_Z…` name (see the module docs for how it
/// differs from binutils).
#[cfg(not(symblob_libiberty))]
pub(super) fn demangle(name: &str) -> Option<String> {
    let symbol = cpp_demangle::Symbol::new(name.as_bytes()).ok()?;
    symbol.demangle().ok()
}
