//! The line splitter shared by the nm-style text inputs (nm, System.map, kallsyms).

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

/// Splits one nm-style line; the error says what is wrong with it.
pub(crate) fn split_line(line: &[u8]) -> std::result::Result<LineKind<'_>, String> {
    if line.iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(LineKind::Blank);
    }
    if line[0] == b' ' || line[0] == b'\t' {
        // nm prints undefined symbols as `<spaces> U name`. Anything else starting with
        // blanks is not a symbol line.
        let trimmed = line.trim_ascii_start();
        return match trimmed {
            [b'U' | b'w' | b'v', b' ', ..] => Ok(LineKind::Undefined),
            _ => Err(format!("not a symbol line: {}", preview(line))),
        };
    }
    let space = line
        .iter()
        .position(|&b| b == b' ')
        .ok_or_else(|| format!("not a symbol line: {}", preview(line)))?;
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
        [b' ', _, ..] => Err(format!(
            "the type must be one character followed by a space: {}",
            preview(line)
        )),
        _ => Err(format!("missing symbol type: {}", preview(line))),
    }
}

/// Parses the address column: 1 to 16 hexadecimal digits, no prefix.
fn parse_hex_address(digits: &[u8]) -> std::result::Result<u64, String> {
    let ok = !digits.is_empty() && digits.len() <= 16 && digits.iter().all(u8::is_ascii_hexdigit);
    let text = std::str::from_utf8(digits).ok().filter(|_| ok);
    text.and_then(|t| u64::from_str_radix(t, 16).ok())
        .ok_or_else(|| format!("bad address {:?}", String::from_utf8_lossy(digits)))
}

/// Checks that a type column is a printable ASCII character.
fn check_kind(kind: u8) -> std::result::Result<u8, String> {
    if kind.is_ascii_graphic() {
        Ok(kind)
    } else {
        Err(format!("bad symbol type byte {kind:#04x}"))
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
