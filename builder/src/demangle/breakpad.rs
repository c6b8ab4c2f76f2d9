//! Names as Breakpad symbol files carry them: the form Mozilla's `dump_syms` gives a name
//! (through `symbolic-demangle`), so that a `.sym` file symblob writes names functions as
//! the one crash servers already hold.
//!
//! 1. Compiler suffixes are dropped from the end, repeatedly: `.cold`, `.constprop`,
//!    `.llvm`, `.localalias`, `.lto_priv`, `.isra`, `.part`, `.str`, each optionally
//!    followed by `.<digits>`, and ` [clone …]` (dump_syms's `fix_symbol_name`), so the
//!    pieces GCC splits off a function carry the function's own name.
//! 2. A name `rustc-demangle` accepts (legacy `_ZN…E` or v0 `_R…`) is Rust, written in its
//!    alternate form (no hash).
//! 3. Any other `_Z…` name is C++, demangled by `cpp_demangle` with parameters and without
//!    the return type (the options dump_syms passes, and symbolic's recursion limits); a
//!    result longer than 4096 bytes, or a name it rejects, stays mangled.
//! 4. Anything else is kept as it is.

/// Longest demangled name symbolic keeps (its bound against substitution blow-ups).
const MAX_DEMANGLED: usize = 4096;

/// The Breakpad form of `name` (see the module docs).
pub fn breakpad_name(name: &str) -> String {
    let name = without_compiler_suffixes(name);
    if let Ok(rust) = rustc_demangle::try_demangle(name) {
        return format!("{rust:#}");
    }
    if name.starts_with("_Z") {
        if let Some(cpp) = cpp_without_return_type(name) {
            return cpp;
        }
    }
    name.to_owned()
}

/// `name` demangled by `cpp_demangle` with symbolic's options, if it fits the bound.
fn cpp_without_return_type(name: &str) -> Option<String> {
    use cpp_demangle::{DemangleOptions, ParseOptions, Symbol};
    let parse = ParseOptions::default().recursion_limit(160);
    let symbol = Symbol::new_with_options(name.as_bytes(), &parse).ok()?;
    let options = DemangleOptions::new().no_return_type().recursion_limit(192);
    let text = symbol.demangle_with_options(&options).ok()?;
    (text.len() <= MAX_DEMANGLED).then_some(text)
}

/// The suffixes compilers append to the names of function copies, dropped from the end.
const SUFFIX_WORDS: [&str; 8] = [
    "cold",
    "constprop",
    "llvm",
    "localalias",
    "lto_priv",
    "isra",
    "part",
    "str",
];

/// `name` without its trailing compiler suffixes (step 1 of the module docs).
pub fn without_compiler_suffixes(mut name: &str) -> &str {
    while let Some(shorter) = strip_suffix_word(name).or_else(|| strip_clone(name)) {
        name = shorter;
    }
    name
}

/// `name` without one trailing `.word` or `.word.<digits>`.
fn strip_suffix_word(name: &str) -> Option<&str> {
    let without_digits = name
        .rsplit_once('.')
        .filter(|(_, digits)| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .map(|(head, _)| head);
    [without_digits, Some(name)]
        .into_iter()
        .flatten()
        .find_map(|head| {
            let (rest, word) = head.rsplit_once('.')?;
            SUFFIX_WORDS.contains(&word).then_some(rest)
        })
}

/// `name` without one trailing ` [clone …] ` (each space optional).
fn strip_clone(name: &str) -> Option<&str> {
    let body = name.strip_suffix(' ').unwrap_or(name);
    let body = body.strip_suffix(']')?;
    let open = body.rfind("[clone")?;
    if body[open..].contains(']') {
        return None;
    }
    let head = &body[..open];
    Some(head.strip_suffix(' ').unwrap_or(head))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// dump_syms's own test cases for `fix_symbol_name` (common.rs).
    #[test]
    fn compiler_suffixes_go() {
        for name in [
            "hello.llvm.1234567890",
            "hello.str.158.llvm.1786438672924483777",
            "hello [clone .constprop.0] [clone .isra.0] [clone .cold]",
            "hello.localalias",
            "hello.constprop.0.isra.0",
        ] {
            assert_eq!(without_compiler_suffixes(name), "hello", "{name}");
        }
        assert_eq!(
            without_compiler_suffixes("hello [clone foo][bar]"),
            "hello [clone foo][bar]"
        );
        assert_eq!(without_compiler_suffixes("v.12"), "v.12");
        assert_eq!(without_compiler_suffixes("cold"), "cold");
    }

    /// Demangled forms as `c++filt` writes them, with the return type removed by hand.
    #[test]
    fn names_demangle_without_return_type() {
        assert_eq!(breakpad_name("_ZN3foo3barEv"), "foo::bar()");
        // c++filt: `void f<int>(int)`.
        assert_eq!(breakpad_name("_Z1fIiEvT_"), "f<int>(int)");
        assert_eq!(breakpad_name("_Z4condv.cold"), "cond()");
        assert_eq!(
            breakpad_name("_ZN4core6option13expect_failed17h0123456789abcdefE"),
            "core::option::expect_failed"
        );
        assert_eq!(breakpad_name("main"), "main");
        assert_eq!(breakpad_name("_Znot_valid"), "_Znot_valid");
    }
}
