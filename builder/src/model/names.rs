//! Name rules shared by every input: validation, mapping symbols and demangling.

use std::fmt;

use symblob::ksym::raw::MAX_PAYLOAD;

/// Name normalisation applied while reading an input. It decides what `lookup_name`
/// matches, so it is part of a blob's contract (see the [`ksym`](crate::ksym) module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Demangle {
    /// Names are stored exactly as given.
    #[default]
    None,
    /// Rust legacy (`_ZN…`) and v0 (`_R…`) names that `rustc-demangle` accepts are stored
    /// in its alternate form `{:#}` (no hash, `.llvm.<n>` dropped); others as given.
    Rust,
    /// Rust and C++ names as [`crate::demangle`] writes them (the policy every builder
    /// shares: Rust as above, C++ as binutils' `nm -C`); others as given.
    RustAndCpp,
}

impl Demangle {
    /// Applies this normalisation to a (valid UTF-8) name.
    pub(crate) fn apply(self, name: &str) -> Option<String> {
        match self {
            Demangle::None => None,
            Demangle::Rust => crate::demangle::rust(name),
            Demangle::RustAndCpp => crate::demangle::demangle(name, None),
        }
    }
}

/// Which names are ELF mapping symbols (AArch64 / ARM / RISC-V markers of code and data
/// regions, not functions). The two policies differ on purpose: each matches the tool
/// whose output a build is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MappingSymbols {
    /// binutils `nm` users' rule (ksym builds): exactly `$x`, `$a`, `$t`, `$d`, alone or
    /// followed by `.` and anything.
    Exact,
    /// LLVM's symbolizer (DWARF builds, compared with `llvm-symbolizer`): any name that
    /// starts with `$`.
    Llvm,
}

impl MappingSymbols {
    /// Whether `name` is a mapping symbol under this policy.
    pub(crate) fn matches(self, name: &[u8]) -> bool {
        match self {
            MappingSymbols::Exact => matches!(
                name,
                [b'$', b'x' | b'a' | b't' | b'd'] | [b'$', b'x' | b'a' | b't' | b'd', b'.', ..]
            ),
            MappingSymbols::Llvm => name.starts_with(b"$"),
        }
    }
}

/// Whether `name` is a mapping symbol by the [`MappingSymbols::Exact`] rule.
pub(crate) fn is_mapping_symbol(name: &[u8]) -> bool {
    MappingSymbols::Exact.matches(name)
}

/// Why a symbol name cannot be stored (the name rules of the ksym-bin format, D14, which
/// every symbol source applies).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameError {
    /// The name is empty.
    Missing,
    /// The name is not UTF-8; `offset` is the first byte of the bad sequence.
    NotUtf8 {
        /// Byte offset in the name.
        offset: usize,
    },
    /// The name contains a NUL or CR byte.
    ForbiddenByte {
        /// The byte (0 or `\r`).
        byte: u8,
        /// Byte offset in the name.
        offset: usize,
    },
    /// The name is longer than a record can hold.
    TooLong {
        /// The name's length in bytes.
        len: usize,
        /// The format's limit.
        limit: usize,
    },
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NameError::Missing => f.write_str("missing symbol name"),
            NameError::NotUtf8 { offset } => write!(
                f,
                "symbol name is not valid UTF-8 (bad byte at name offset {offset})"
            ),
            NameError::ForbiddenByte { byte, offset } => {
                let what = if byte == 0 { "NUL" } else { "CR" };
                write!(
                    f,
                    "symbol name contains a {what} byte at name offset {offset}"
                )
            }
            NameError::TooLong { len, limit } => write!(
                f,
                "symbol name is {len} bytes long, more than the format's limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// Checks the byte rules of a name (D14) and returns it as a `&str`.
pub(crate) fn check_name_bytes(name: &[u8]) -> Result<&str, NameError> {
    if name.is_empty() {
        return Err(NameError::Missing);
    }
    let text = std::str::from_utf8(name).map_err(|e| NameError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    if let Some(offset) = name.iter().position(|&b| b == 0 || b == b'\r') {
        let byte = name[offset];
        return Err(NameError::ForbiddenByte { byte, offset });
    }
    Ok(text)
}

/// Checks the length limit of a stored name.
pub(crate) fn check_name_length(name: &str) -> Result<(), NameError> {
    if name.len() > MAX_PAYLOAD {
        return Err(NameError::TooLong {
            len: name.len(),
            limit: MAX_PAYLOAD,
        });
    }
    Ok(())
}

/// Validates a name read from an input and applies the demangling mode.
pub(crate) fn finish_name(name: &[u8], demangle: Demangle) -> Result<String, NameError> {
    let text = check_name_bytes(name)?;
    let stored = demangle.apply(text).unwrap_or_else(|| text.to_owned());
    // A demangler could in principle produce an empty or odd name; the stored name is
    // what the rules apply to.
    check_name_bytes(stored.as_bytes())?;
    check_name_length(&stored)?;
    Ok(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_symbols_by_exact_rule() {
        for m in ["$x", "$x.12", "$d", "$a.0", "$t"] {
            assert!(is_mapping_symbol(m.as_bytes()), "{m}");
        }
        for n in ["$xyz", "a$x", "foo$x.1", "$", "$e", "x"] {
            assert!(!is_mapping_symbol(n.as_bytes()), "{n}");
        }
        for m in ["$x", "$xyz", "$", "$e"] {
            assert!(MappingSymbols::Llvm.matches(m.as_bytes()), "{m}");
        }
        assert!(!MappingSymbols::Llvm.matches(b"a$x"));
    }

    #[test]
    fn demangles_only_rust_names() {
        let legacy = "_ZN4core3fmt5write17h0123456789abcdefE";
        assert_eq!(
            Demangle::Rust.apply(legacy).as_deref(),
            Some("core::fmt::write")
        );
        assert_eq!(
            Demangle::Rust
                .apply("_ZN4core3fmt5write17h0123456789abcdefE.llvm.1234")
                .as_deref(),
            Some("core::fmt::write")
        );
        assert_eq!(Demangle::None.apply(legacy), None);
        assert_eq!(
            Demangle::Rust.apply("_ZNSt6vectorIiSaIiEE9push_backEOi"),
            None
        );
        assert_eq!(Demangle::Rust.apply("do_fork"), None);
        assert_eq!(
            Demangle::RustAndCpp.apply("_Z3addii").as_deref(),
            Some("add(int, int)")
        );
        assert_eq!(Demangle::RustAndCpp.apply("do_fork"), None);
    }

    #[test]
    fn name_rules() {
        assert!(check_name_bytes(b"").is_err());
        assert!(check_name_bytes(b"a\0b").is_err());
        assert!(check_name_bytes(b"a\rb").is_err());
        assert!(check_name_bytes(b"\xff").is_err());
        assert_eq!(check_name_bytes("grüße".as_bytes()), Ok("grüße"));
        assert!(check_name_length(&"a".repeat(65_535)).is_ok());
        assert!(check_name_length(&"a".repeat(65_536)).is_err());
    }
}
