//! [`Str`]: a borrowed string of the strings table.

use core::fmt;
use core::ops::Deref;

/// A string of the strings table (a function name or a source path), borrowed from the blob.
///
/// Lidia does not require UTF-8 (names come straight from ELF string tables), so a `Str`
/// is a byte slice. [`Display`](fmt::Display) shows it as UTF-8, replacing invalid
/// sequences with U+FFFD; `Debug` shows it quoted the same way. It compares equal to a
/// `&str` with the same bytes.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Str<'a>(pub &'a [u8]);

impl<'a> Str<'a> {
    /// The empty string, which string offset 0 stands for.
    pub const EMPTY: Str<'static> = Str(&[]);

    /// The raw bytes, borrowed from the blob.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The bytes as `&str` if they are valid UTF-8.
    pub fn to_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.0).ok()
    }
}

impl Deref for Str<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.0
    }
}

impl AsRef<[u8]> for Str<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0
    }
}

impl PartialEq<str> for Str<'_> {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<[u8]> for Str<'_> {
    fn eq(&self, other: &[u8]) -> bool {
        self.0 == other
    }
}

impl PartialEq<&[u8]> for Str<'_> {
    fn eq(&self, other: &&[u8]) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::text::write_lossy(f, &[self.0])
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::text::write_quoted(f, &[self.0])
    }
}
