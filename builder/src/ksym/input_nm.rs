//! `nm -n` / System.map text input, the shared line splitter, and format detection.

use super::names::{finish_name, is_mapping_symbol};
use super::{input_elf, input_kallsyms, InputOptions, Symbol, SymbolList};
use crate::{Error, Location, Result};

/// The kinds of input a ksym-bin blob can be built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// `nm -n` (or `nm -n -C`) output, or a System.map.
    Nm,
    /// `/proc/kallsyms` text (module column allowed).
    Kallsyms,
    /// An ELF file, read directly.
    Elf,
}

/// Guesses the format of `bytes`: the ELF magic gives [`InputFormat::Elf`]; a TAB
/// followed by `[` somewhere (a `/proc/kallsyms` module column) gives
/// [`InputFormat::Kallsyms`]; anything else is [`InputFormat::Nm`].
pub fn detect_format(bytes: &[u8]) -> InputFormat {
    if bytes.starts_with(b"\x7fELF") {
        InputFormat::Elf
    } else if bytes.windows(2).any(|w| w == b"\t[") {
        InputFormat::Kallsyms
    } else {
        InputFormat::Nm
    }
}

/// Reads `bytes` in `format`; `input` names the input in error messages (a path or
/// `<stdin>`). For ELF input this keeps the symbols only; [`read_elf`](super::read_elf)
/// also returns the text ranges.
pub fn parse_input(
    bytes: &[u8],
    format: InputFormat,
    input: &str,
    options: &InputOptions,
) -> Result<SymbolList> {
    match format {
        InputFormat::Nm => parse_nm(bytes, input, options),
        InputFormat::Kallsyms => input_kallsyms::parse_kallsyms(bytes, input, options),
        InputFormat::Elf => Ok(input_elf::read_elf(bytes, input, options)?.symbols),
    }
}

/// Reads `nm -n` output or a System.map: one `<hex address> <type> <name>` per line, the
/// name being the rest of the line. See the [module docs](super) for the exact rules.
///
/// # Errors
///
/// [`Error::Input`] with the line number for a line that is not a symbol, a bad address,
/// a missing, non-UTF-8 or over-long name.
pub fn parse_nm(text: &[u8], input: &str, options: &InputOptions) -> Result<SymbolList> {
    let mut list = SymbolList::default();
    for (number, line) in lines(text) {
        let at = Location::Line(number);
        match split_line(line).map_err(|m| Error::input(input, at, m))? {
            LineKind::Blank | LineKind::Undefined => list.skipped_undefined += 1,
            LineKind::Symbol {
                address,
                kind,
                rest,
            } => accept(&mut list, options, address, kind, rest)
                .map_err(|m| Error::input(input, at, m))?,
        }
    }
    Ok(list)
}

/// Applies the type filter, the mapping-symbol rule and the name rules to one symbol and
/// appends it to `list` if it is kept.
pub(crate) fn accept(
    list: &mut SymbolList,
    options: &InputOptions,
    address: u64,
    kind: u8,
    name: &[u8],
) -> std::result::Result<(), String> {
    if !options.types.keeps(kind) {
        list.skipped_type += 1;
        return Ok(());
    }
    if is_mapping_symbol(name) {
        list.skipped_mapping += 1;
        return Ok(());
    }
    let name = finish_name(name, options.demangle)?;
    list.symbols.push(Symbol {
        address,
        kind,
        name,
    });
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines() {
        assert_eq!(
            split_line(b"ffffffff81000000 T _stext"),
            Ok(LineKind::Symbol {
                address: 0xffffffff81000000,
                kind: b'T',
                rest: b"_stext"
            })
        );
        assert_eq!(
            split_line(b"1000 t  two  spaces "),
            Ok(LineKind::Symbol {
                address: 0x1000,
                kind: b't',
                rest: b" two  spaces "
            })
        );
        assert_eq!(
            split_line(b"                 U memcpy"),
            Ok(LineKind::Undefined)
        );
        assert_eq!(split_line(b"   "), Ok(LineKind::Blank));
        assert!(split_line(b"zz T foo").is_err());
        assert!(split_line(b"10000000000000000 T foo").is_err());
        assert!(split_line(b"1000 TT foo").is_err());
        assert!(split_line(b"1000").is_err());
        assert!(split_line(b"hello world").is_err());
    }

    #[test]
    fn numbers_lines() {
        let v: Vec<_> = lines(b"a\r\nb\n\nc").collect();
        assert_eq!(
            v,
            vec![
                (1, &b"a"[..]),
                (2, &b"b"[..]),
                (3, &b""[..]),
                (4, &b"c"[..])
            ]
        );
        assert_eq!(lines(b"").count(), 0);
    }

    #[test]
    fn detects_formats() {
        assert_eq!(detect_format(b"\x7fELF\x02"), InputFormat::Elf);
        assert_eq!(
            detect_format(b"ffff t foo\t[ext4]\n"),
            InputFormat::Kallsyms
        );
        assert_eq!(detect_format(b"ffff t foo\n"), InputFormat::Nm);
    }
}
