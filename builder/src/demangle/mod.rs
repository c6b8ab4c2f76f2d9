//! One demangling policy for every builder: how a mangled symbol name becomes the name
//! people read.
//!
//! * The language decides when it is known (DWARF's `DW_AT_language`): a Rust unit's names
//!   go to `rustc-demangle` first, a C++ unit's to the C++ demangler first.
//! * Otherwise the mangling prefix decides: `_R` is Rust v0; `_ZN…17h<16 hex digits>E`
//!   (optionally followed by `.suffix`) is legacy Rust, whatever escapes (`$LT$`, `..`) its
//!   path holds; any other `_Z` name is C++ (Itanium ABI).
//! * Rust names are written in `rustc-demangle`'s alternate form `{:#}`: no `::h<hash>`, no
//!   crate disambiguators, `.llvm.<n>` dropped (other suffixes such as `.cold` kept), as
//!   `rustfilt` and perf print them.
//! * C++ names are written exactly as binutils (`nm -C`, `c++filt`, `objdump -C`,
//!   `addr2line -C`) writes them: parameters, `const`, clone suffixes as
//!   `[clone .cold]` ([`GNU_COMPATIBLE`] says whether libiberty, their demangler, was
//!   linked).
//!
//! A name no demangler accepts is kept as it is.
//!
//! Formats whose compatibility promise fixes another spelling have theirs here too, each
//! on top of the same demanglers:
//!
//! * Breakpad symbol files, as Mozilla's `dump_syms` writes them ([`breakpad_name`]):
//!   compiler suffixes dropped, C++ without the return type.
//! * symbfile records, as symblib names them ([`symblib`]): clone suffixes cut, Rust
//!   without the hash, C++ without template arguments.
//! * SuperSize archives, as its `demangle.py` with `llvm-cxxfilt` writes them
//!   ([`supersize`]): C++ in LLVM's spelling, suffixes as ` (.cold)`.
//!
//! Symbol lists choose between no demangling, Rust only and this policy
//! ([`crate::model::Demangle`]), since that choice decides what a name lookup matches.

mod breakpad;
mod cpp;
#[cfg(feature = "size")]
pub mod supersize;
#[cfg(feature = "symbfile")]
pub mod symblib;

pub use breakpad::{breakpad_name, without_compiler_suffixes};

pub use cpp::GNU_COMPATIBLE;

/// The source language of a name, as far as demangling cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// Rust: legacy (`_ZN…E`) and v0 (`_R…`) manglings.
    Rust,
    /// C++ and Objective-C++: Itanium ABI mangling.
    Cpp,
    /// Any other language (C, Go, assembly…): the mangling prefix decides.
    Other,
}

impl Language {
    /// The language of a DWARF unit's `DW_AT_language`.
    #[cfg(feature = "dwarf")]
    pub fn from_dwarf(lang: gimli::DwLang) -> Language {
        match lang {
            gimli::DW_LANG_Rust => Language::Rust,
            gimli::DW_LANG_C_plus_plus
            | gimli::DW_LANG_C_plus_plus_03
            | gimli::DW_LANG_C_plus_plus_11
            | gimli::DW_LANG_C_plus_plus_14
            | gimli::DW_LANG_ObjC_plus_plus => Language::Cpp,
            _ => Language::Other,
        }
    }
}

/// The readable form of `name`, or `None` when it is not a mangled name that a demangler
/// accepts (it is then used as it is). `language` is the language of the code the name
/// belongs to, if known.
pub fn demangle(name: &str, language: Option<Language>) -> Option<String> {
    match language {
        Some(Language::Rust) => rust(name).or_else(|| itanium(name)),
        Some(Language::Cpp) => itanium(name).or_else(|| v0_rust(name)),
        Some(Language::Other) | None => {
            if name.starts_with("_R") || is_legacy_rust(name) {
                rust(name)
            } else {
                itanium(name)
            }
        }
    }
}

/// [`demangle`] for a name given as bytes (names read from ELF and DWARF are bytes).
pub fn demangle_bytes(name: &[u8], language: Option<Language>) -> Option<String> {
    demangle(std::str::from_utf8(name).ok()?, language)
}

/// A Rust name (legacy or v0) in `rustc-demangle`'s alternate form.
pub(crate) fn rust(name: &str) -> Option<String> {
    if !(name.starts_with("_ZN") || name.starts_with("_R")) {
        return None;
    }
    let demangled = rustc_demangle::try_demangle(name).ok()?;
    Some(format!("{demangled:#}"))
}

/// A v0 Rust name (`_R…`), which never is a C++ name.
fn v0_rust(name: &str) -> Option<String> {
    name.starts_with("_R").then(|| rust(name)).flatten()
}

/// A C++ (Itanium ABI) name as binutils writes it.
fn itanium(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    cpp::demangle(name)
}

/// `_ZN…17h<16 hex digits>E`, optionally followed by a `.suffix` (`.llvm.<n>`, `.cold`…):
/// the shape of every legacy Rust symbol. The path before the hash may contain `.`
/// (`core..fmt..Debug` is how `::` inside a generic argument is escaped), so the suffix
/// is found from the hash, not from the first `.`.
pub fn is_legacy_rust(name: &str) -> bool {
    const HASH: usize = "17h0123456789abcdefE".len();
    if !name.starts_with("_ZN") {
        return false;
    }
    let bytes = name.as_bytes();
    // The hash is the last path element: the first `E` that ends a `17h<hex>` element and
    // is followed by the end of the name or by a `.suffix`.
    name.match_indices("17h").any(|(at, _)| {
        let Some(element) = bytes.get(at..at + HASH) else {
            return false;
        };
        let hex = &element[3..HASH - 1];
        element[HASH - 1] == b'E'
            && hex.iter().all(u8::is_ascii_hexdigit)
            && matches!(bytes.get(at + HASH), None | Some(b'.'))
    })
}

#[cfg(test)]
mod tests;
