//! `nm -n` / System.map text input.

use super::line::{lines, split_line, LineKind};
use crate::model::{accept, InputOptions, SymbolList};
use crate::{Error, Location, Result};

/// Reads `nm -n` output or a System.map: one `<hex address> <type> <name>` per line, the
/// name being the rest of the line. See the [`ksym`](crate::ksym) module docs for the exact rules.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{detect_format, InputFormat};

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
