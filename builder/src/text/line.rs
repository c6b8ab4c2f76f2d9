//! The line splitter shared by the nm-style text inputs (nm, System.map, kallsyms).

use std::fmt;

/// The lines of `text` with their 1-based numbers, without the LF and without a CR
/// before it. There is no length limit.
pub(crate) fn lines(text: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let mut number = 0u64;
    body.split(|&b| b == b'\n')
        .filter(move |_| !text.is_empty())
        .map(move |line| {
            number += 1;
            (number, line.strip_suffix(b"\r").unwrap_or(line))
        })
}

/// What one line of nm-style text holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineKind<'a> {
    /// Empty or only whitespace.
    Blank,
    /// A symbol without an address (`U`, `w`, `v`: undefined), which nm prints with a blank
    /// address column.
    Undefined,
    /// `<address> <type> <rest>`; `rest` is everything after the single space that
    /// follows the type (empty if the line ends after the type).
    Symbol {
        /// The address.
        address: u64,
        /// The type character.
        kind: u8,
        /// The rest of the line.
        rest: &'a [u8],
    },
}

/// Why a line of nm-style text is not a symbol line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineError {
    /// Neither `<address> <type> <name>` nor nm's blank-address undefined symbol.
    NotSymbolLine {
        /// The start of the line, quoted.
        preview: String,
    },
    /// The type column is more than one character, or not followed by a space.
    LongType {
        /// The start of the line, quoted.
        preview: String,
    },
    /// The line ends after the address.
    MissingType {
        /// The start of the line, quoted.
        preview: String,
    },
    /// The address column is not 1 to 16 hexadecimal digits.
    BadAddress {
        /// The column as read.
        column: String,
    },
    /// The type column is not a printable ASCII character.
    BadType {
        /// The byte.
        byte: u8,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotSymbolLine { preview } => write!(f, "not a symbol line: {preview}"),
            LineError::LongType { preview } => write!(
                f,
                "the type must be one character followed by a space: {preview}"
            ),
            LineError::MissingType { preview } => write!(f, "missing symbol type: {preview}"),
            LineError::BadAddress { column } => write!(f, "bad address {column:?}"),
            LineError::BadType { byte } => write!(f, "bad symbol type byte {byte:#04x}"),
        }
    }
}

impl std::error::Error for LineError {}

/// Splits one nm-style line.
pub(crate) fn split_line(line: &[u8]) -> Result<LineKind<'_>, LineError> {
    let not_symbol = || LineError::NotSymbolLine {
        preview: preview(line),
    };
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(LineKind::Blank);
    }
    if line[0] == b' ' || line[0] == b'\t' {
        // nm prints undefined symbols as `<spaces> U name`. Anything else starting with
        // blanks is not a symbol line.
        let trimmed = line.trim_ascii_start();
        return match trimmed {
            [b'U' | b'w' | b'v', b' ', ..] => Ok(LineKind::Undefined),
            _ => Err(not_symbol()),
        };
    }
    let space = line
        .iter()
        .position(|&b| b == b' ')
        .ok_or_else(not_symbol)?;
    let (digits, after) = line.split_at(space);
    let address = parse_hex_address(digits)?;
    match after {
        [b' ', kind] => check_kind(*kind).map(|kind| LineKind::Symbol {
            address,
            kind,
            rest: &[],
        }),
        [b' ', kind, b' ', rest @ ..] => check_kind(*kind).map(|kind| LineKind::Symbol {
            address,
            kind,
            rest,
        }),
        [b' ', _, ..] => Err(LineError::LongType {
            preview: preview(line),
        }),
        _ => Err(LineError::MissingType {
            preview: preview(line),
        }),
    }
}

/// Parses the address column: 1 to 16 hexadecimal digits, no prefix.
fn parse_hex_address(digits: &[u8]) -> Result<u64, LineError> {
    let ok = !digits.is_empty() && digits.len() <= 16 && digits.iter().all(u8::is_ascii_hexdigit);
    let text = std::str::from_utf8(digits).ok().filter(|_| ok);
    text.and_then(|t| u64::from_str_radix(t, 16).ok())
        .ok_or_else(|| LineError::BadAddress {
            column: String::from_utf8_lossy(digits).into_owned(),
        })
}

/// Checks that a type column is a printable ASCII character.
fn check_kind(kind: u8) -> Result<u8, LineError> {
    if kind.is_ascii_graphic() {
        Ok(kind)
    } else {
        Err(LineError::BadType { byte: kind })
    }
}

/// The start of a line, for error messages (lines can be megabytes long).
pub(crate) fn preview(line: &[u8]) -> String {
    const MAX: usize = 60;
    let cut = &line[..line.len().min(MAX)];
    let mut text = format!("{:?}", String::from_utf8_lossy(cut));
    if line.len() > MAX {
        text.push('…');
    }
    text
}
