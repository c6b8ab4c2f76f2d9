//! `nm -n` / System.map text input.

use super::line::{lines, split_line, LineKind};
use crate::model::{accept, InputOptions, SymbolList};
use crate::{Error, Location, Result};

/// Reads `nm -n` output or a System.map: one `<hex address> <type> <name>` per line, the
/// name being the rest of the line. See the [`ksym`](crate::ksym) module docs for the exact rules.
///
/// # Errors
///
/// [`ErrorKind::Malformed`](crate::ErrorKind::Malformed) with the line number for a line that is not a symbol, a bad address,
/// a missing, non-UTF-8 or over-long name.
pub fn parse_nm(text: &[u8], input: &str, options: &InputOptions) -> Result<SymbolList> {
    let mut list = SymbolList::default();
    for (number, line) in lines(text) {
        let at = Location::Line(number);
        match split_line(line).map_err(|e| Error::malformed(input, at, "").with_source(e))? {
            LineKind::Blank | LineKind::Undefined => list.skipped_undefined += 1,
            LineKind::Symbol {
                address,
                kind,
                rest,
            } => accept(
                &mut list,
                options,
                options.types.keeps_from_text(kind),
                address,
                kind,
                rest,
            )
            .map_err(|e| Error::malformed(input, at, "").with_source(e))?,
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

    /// The line number, the kind of problem and its details are fields of the error, not
    /// only words in its message.
    #[test]
    fn errors_are_typed_with_their_line() {
        use std::error::Error as _;

        use crate::model::NameError;
        use crate::text::LineError;

        let options = InputOptions::default();
        let typed = |text: &[u8]| {
            let e = parse_nm(text, "in.map", &options).unwrap_err();
            let source = e.source().expect("a typed source");
            let line = source.downcast_ref::<LineError>().cloned();
            let name = source.downcast_ref::<NameError>().cloned();
            (
                e.input().map(|p| p.display().to_string()),
                e.location(),
                line,
                name,
                e.to_string(),
            )
        };
        let (input, at, line, _, text) = typed(b"1000 T a\nzz T b\n");
        assert_eq!((input.as_deref(), at), (Some("in.map"), Location::Line(2)));
        assert_eq!(
            line,
            Some(LineError::BadAddress {
                column: "zz".into()
            })
        );
        assert_eq!(text, "in.map:2: bad address \"zz\"");
        let (_, at, _, name, text) = typed(b"1000 T a\n2000 T b\n3000 T c\0d\n");
        assert_eq!(at, Location::Line(3));
        assert_eq!(name, Some(NameError::ForbiddenByte { byte: 0, offset: 1 }));
        assert_eq!(
            text,
            "in.map:3: symbol name contains a NUL byte at name offset 1"
        );
        let (_, _, line, _, _) = typed(b"1000 \x01 a\n");
        assert_eq!(line, Some(LineError::BadType { byte: 1 }));
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
