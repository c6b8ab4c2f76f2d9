//! The fields of one `.sym` line: space-separated tokens, hexadecimal and decimal numbers,
//! and the rest of the line (a name, which may hold spaces), read as rust-minidump's
//! parser reads them (one or more spaces between fields).

/// The unread part of one line (without its line ending).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    /// The fields of `line`.
    pub(super) fn new(line: &'a [u8]) -> Self {
        Fields { rest: line }
    }

    /// The next space-separated token, `None` at the end of the line.
    pub(super) fn token(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| b != b' ')?;
        let rest = &self.rest[start..];
        let end = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }

    /// The next token as a hexadecimal number ([`hex`]), read in one pass over its
    /// bytes; `None` (and the fields left in an unspecified state) when there is no
    /// token or it is not one: the caller reads the token again to say why.
    #[inline]
    pub(super) fn hex(&mut self) -> Option<u64> {
        self.number(hex_prefix)
    }

    /// The next token as a decimal number below 2³² ([`decimal`]), read in one pass;
    /// `None` as for [`Self::hex`].
    #[inline]
    pub(super) fn decimal(&mut self) -> Option<u32> {
        self.number(decimal_prefix)
    }

    /// The next token as the number `prefix` reads.
    #[inline]
    fn number<T>(&mut self, prefix: Prefix<T>) -> Option<T> {
        let start = self.rest.iter().position(|&b| b != b' ')?;
        let (value, rest) = whole_field(&self.rest[start..], prefix)?;
        self.rest = rest;
        Some(value)
    }

    /// The next token if it is `word` (consumed), else nothing is consumed.
    pub(super) fn word(&mut self, word: &[u8]) -> bool {
        let mut ahead = *self;
        if ahead.token() == Some(word) {
            *self = ahead;
            true
        } else {
            false
        }
    }

    /// The rest of the line after the spaces that separate it from the previous field: a
    /// name, possibly empty, possibly with spaces. `None` when no space separates it (the
    /// line ends right after the previous field: it is cut).
    pub(super) fn name(&mut self) -> Option<&'a [u8]> {
        if self.rest.first() != Some(&b' ') {
            return None;
        }
        let start = self.rest.iter().position(|&b| b != b' ');
        let name = start.map_or(&[][..], |s| &self.rest[s..]);
        self.rest = &[];
        Some(name)
    }

    /// What is left of the line, unread.
    pub(super) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Whether nothing but spaces is left.
    pub(super) fn is_done(&self) -> bool {
        self.rest.iter().all(|&b| b == b' ')
    }
}

/// `token` as a hexadecimal number of 1 to 16 digits (no prefix, either case).
pub(super) fn hex(token: &[u8]) -> Option<u64> {
    hex_prefix(token).and_then(|(value, rest)| rest.is_empty().then_some(value))
}

/// `token` as a decimal number that fits in 32 bits: the definition that
/// [`Fields::decimal`] reads in one pass, kept for its tests.
#[cfg(test)]
fn decimal(token: &[u8]) -> Option<u32> {
    if token.is_empty() || token.len() > 10 {
        return None;
    }
    let mut value = 0u64;
    for &b in token {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u64::from(b - b'0');
    }
    u32::try_from(value).ok()
}

/// Each byte's value as a hexadecimal digit, or `NOT_HEX`.
const HEX_DIGITS: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => NOT_HEX,
        };
        b += 1;
    }
    table
};
const NOT_HEX: u8 = 0xff;

/// The hexadecimal number of 1 to 16 digits that `bytes` starts with, and the bytes after
/// its digits.
fn hex_prefix(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let digits = bytes
        .iter()
        .position(|&b| HEX_DIGITS[usize::from(b)] == NOT_HEX)
        .unwrap_or(bytes.len());
    if digits == 0 || digits > 16 {
        return None;
    }
    let (number, rest) = bytes.split_at(digits);
    let value = number.iter().fold(0u64, |v, &b| {
        (v << 4) | u64::from(HEX_DIGITS[usize::from(b)])
    });
    Some((value, rest))
}

/// The decimal number below 2³² of 1 to 10 digits that `bytes` starts with, and the bytes
/// after its digits.
fn decimal_prefix(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let digits = bytes
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(bytes.len());
    if digits == 0 || digits > 10 {
        return None;
    }
    let (number, rest) = bytes.split_at(digits);
    let value = number
        .iter()
        .fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
    Some((u32::try_from(value).ok()?, rest))
}

/// Reads a number from the start of some bytes: its value and the bytes after its digits.
type Prefix<T> = fn(&[u8]) -> Option<(T, &[u8])>;

/// The number `prefix` reads from the start of `bytes` when it fills its field (up to a
/// space or the end of the line), and the bytes after it.
#[inline]
fn whole_field<T>(bytes: &[u8], prefix: Prefix<T>) -> Option<(T, &[u8])> {
    let (value, rest) = prefix(bytes)?;
    matches!(rest.first(), None | Some(b' ')).then_some((value, rest))
}

/// Fields written as dump_syms writes them, each after exactly one space: the quick
/// reading of the records most of a file holds. Anything else (more spaces, a bad
/// number) makes it give up, and the record is read field by field ([`Fields`]), which
/// takes every spelling it takes with the same values and explains what is wrong.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plain<'a> {
    rest: &'a [u8],
}

impl<'a> Plain<'a> {
    /// The fields of `bytes`, each to come after one space.
    pub(super) fn after_space(bytes: &'a [u8]) -> Self {
        Plain { rest: bytes }
    }

    /// A hexadecimal field.
    #[inline]
    pub(super) fn hex(&mut self) -> Option<u64> {
        self.number(hex_prefix)
    }

    /// A decimal field below 2³².
    #[inline]
    pub(super) fn decimal(&mut self) -> Option<u32> {
        self.number(decimal_prefix)
    }

    /// Whether the line is read to its end.
    pub(super) fn is_done(&self) -> bool {
        self.rest.is_empty()
    }

    /// The field after one space, as the number `prefix` reads.
    #[inline]
    fn number<T>(&mut self, prefix: Prefix<T>) -> Option<T> {
        let (value, rest) = whole_field(self.rest.strip_prefix(b" ")?, prefix)?;
        self.rest = rest;
        Some(value)
    }
}

/// A line record `address size line file` as dump_syms writes it ([`Plain`]).
pub(super) fn plain_line_record(line: &[u8]) -> Option<(u64, u64, u32, u32)> {
    let (address, rest) = whole_field(line, hex_prefix)?;
    let mut f = Plain::after_space(rest);
    let size = f.hex()?;
    let line = f.decimal()?;
    let file = f.decimal()?;
    f.is_done().then_some((address, size, line, file))
}

/// Whether `token` is made of hexadecimal digits only (the start of a line record).
pub(super) fn is_hex(token: &[u8]) -> bool {
    !token.is_empty() && token.iter().all(u8::is_ascii_hexdigit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_names_and_numbers() {
        let mut f = Fields::new(b"FUNC m  1a0 10 0  a name  with spaces");
        assert_eq!(f.token(), Some(&b"FUNC"[..]));
        assert!(f.word(b"m"));
        assert!(!f.word(b"m"));
        assert_eq!(f.token().and_then(hex), Some(0x1a0));
        assert_eq!(f.token().and_then(hex), Some(0x10));
        assert_eq!(f.token().and_then(hex), Some(0));
        assert_eq!(f.name(), Some(&b"a name  with spaces"[..]));
        assert!(f.is_done());
        assert_eq!(Fields::new(b"x").name(), None);
        let mut f = Fields::new(b"0 ");
        f.token();
        assert_eq!(f.name(), Some(&b""[..]));
        assert_eq!(hex(b"ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(hex(b"10000000000000000"), None);
        assert_eq!(hex(b"0x10"), None);
        assert_eq!(decimal(b"4294967295"), Some(u32::MAX));
        assert_eq!(decimal(b"4294967296"), None);
        assert_eq!(decimal(b"-1"), None);
    }

    /// The one-pass readers take exactly what the token readers take.
    #[test]
    fn one_pass_numbers_match_tokens() {
        let tokens = [
            "0",
            "1a0",
            "ffffffffffffffff",
            "10000000000000000",
            "0x10",
            "4294967295",
            "4294967296",
            "12345678901",
            "-1",
            "7\t",
            "",
            "Ab",
        ];
        for t in tokens {
            for line in [format!("  {t} rest"), t.to_string(), format!(" {t}")] {
                let mut a = Fields::new(line.as_bytes());
                let mut b = a;
                let got = a.hex();
                assert_eq!(got, b.token().and_then(hex), "{line:?}");
                if got.is_some() {
                    assert_eq!(a.rest, b.rest, "{line:?}");
                }
                let mut a = Fields::new(line.as_bytes());
                let mut b = a;
                assert_eq!(a.decimal(), b.token().and_then(decimal), "{line:?}");
            }
        }
    }
}
