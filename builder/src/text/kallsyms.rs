//! `/proc/kallsyms` text input.

use super::line::{lines, preview, split_line, LineKind};
use crate::model::{accept, InputOptions, SymbolList};
use crate::{Error, ErrorKind, Location, Result};

/// Reads `/proc/kallsyms` text: `<hex address> <type> <name>[\t[module]]` per line.
///
/// A name ends at a TAB. Module symbols (`\t[module]`) cannot be represented in v1; they
/// are skipped and counted in [`SymbolList::skipped_module`].
///
/// # Errors
///
/// [`ErrorKind::Malformed`] with the line number for a malformed line, a name that breaks
/// the name rules, or text after a TAB that is not a `[module]` column;
/// [`ErrorKind::Missing`] for the whole input when every address is zero (a restricted
/// view: read the file as root, or lower `kernel.kptr_restrict`).
pub fn parse_kallsyms(text: &[u8], input: &str, options: &InputOptions) -> Result<SymbolList> {
    let mut list = SymbolList::default();
    let mut symbol_lines = 0u64;
    let mut nonzero_addresses = 0u64;
    for (number, line) in lines(text) {
        let at = Location::Line(number);
        let (address, kind, rest) =
            match split_line(line).map_err(|e| Error::malformed(input, at, "").with_source(e))? {
                LineKind::Blank | LineKind::Undefined => {
                    list.skipped_undefined += 1;
                    continue;
                }
                LineKind::Symbol {
                    address,
                    kind,
                    rest,
                } => (address, kind, rest),
            };
        symbol_lines += 1;
        if address != 0 {
            nonzero_addresses += 1;
        }
        let (name, module) = match rest.iter().position(|&b| b == b'\t') {
            Some(tab) => (&rest[..tab], Some(&rest[tab + 1..])),
            None => (rest, None),
        };
        if let Some(column) = module {
            if !(column.len() > 2 && column.starts_with(b"[") && column.ends_with(b"]")) {
                return Err(Error::malformed(
                    input,
                    at,
                    format!(
                        "text after the name is not a [module] column: {}",
                        preview(column)
                    ),
                ));
            }
            list.skipped_module += 1;
            continue;
        }
        accept(
            &mut list,
            options,
            options.types.keeps_from_text(kind),
            address,
            kind,
            name,
        )
        .map_err(|e| Error::malformed(input, at, "").with_source(e))?;
    }
    if symbol_lines > 0 && nonzero_addresses == 0 {
        return Err(Error::new(
            ErrorKind::Missing,
            input,
            Location::Whole,
            "every address is zero: this is a restricted /proc/kallsyms view \
             (read it as root or with kernel.kptr_restrict=0)",
        ));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_modules_and_refuses_zeros() {
        let text = b"ffffffff81000000 T _stext\nffffffffc0350000 t ext4_iget\t[ext4]\n";
        let list = parse_kallsyms(text, "k", &InputOptions::default()).unwrap();
        assert_eq!(list.symbols.len(), 1);
        assert_eq!(list.symbols[0].name, "_stext");
        assert_eq!(list.skipped_module, 1);

        let zeros = b"0000000000000000 T _stext\n0000000000000000 t foo\n";
        let err = parse_kallsyms(zeros, "k", &InputOptions::default()).unwrap_err();
        assert!(err.to_string().contains("restricted"), "{err}");

        let junk = b"ffffffff81000000 T _stext\tjunk\n";
        let err = parse_kallsyms(junk, "k", &InputOptions::default()).unwrap_err();
        assert!(err.to_string().starts_with("k:1: "), "{err}");
    }
}
