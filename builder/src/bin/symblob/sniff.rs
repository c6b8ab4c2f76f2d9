//! What a file given as a blob really is, from its first bytes, so that a wrong file is
//! named for what it is ("an ELF file, not a ksym blob") instead of failing deep inside a
//! parser with a meaningless size.

use std::path::Path;

use crate::common::{Failure, Result};

/// Folders of files the kernel makes up, where no one can write a file beside an input.
const SYSTEM_FOLDERS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// The kinds of files users give by mistake, and the blobs `symblob` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No bytes at all.
    Empty,
    /// An ELF file (`\x7fELF`).
    Elf,
    /// A Lidia file (`.dia`).
    Lidia,
    /// A symbfile (`symbfile`).
    Symbfile,
    /// A GSYM file (magic `0x4753594D` in either byte order).
    Gsym,
    /// gzip data (SuperSize `.size` files among others).
    Gzip,
    /// `nm`, System.map or /proc/kallsyms text: `<hex> <type> <name>`.
    SymbolText,
    /// None of the above: possibly a ksym blob, which has no magic number.
    Unknown,
}

/// The format a command expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// A ksym-bin blob.
    Ksym,
    /// A Lidia file.
    Lidia,
    /// A CIF stream (raw or base64).
    Cif,
    /// A symbfile.
    Symbfile,
    /// Any blob `symblob lookup` reads.
    Lookup,
}

impl Want {
    fn name(self) -> &'static str {
        match self {
            Want::Ksym => "a ksym blob",
            Want::Lidia => "a Lidia file",
            Want::Cif => "a CIF stream",
            Want::Symbfile => "a symbfile",
            Want::Lookup => "a ksym blob, a Lidia file, a symbfile or a GSYM file",
        }
    }
}

/// Looks at the first bytes of `bytes`.
pub fn sniff(bytes: &[u8]) -> Kind {
    if bytes.is_empty() {
        Kind::Empty
    } else if bytes.starts_with(b"\x7fELF") {
        Kind::Elf
    } else if bytes.starts_with(b".dia") {
        Kind::Lidia
    } else if bytes.starts_with(b"symbfile") {
        Kind::Symbfile
    } else if bytes.starts_with(b"MYSG") || bytes.starts_with(b"GSYM") {
        Kind::Gsym
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        Kind::Gzip
    } else if is_symbol_text(bytes) {
        Kind::SymbolText
    } else {
        Kind::Unknown
    }
}

/// Whether the first line reads `<hex digits> <one letter> <name>` (nm, System.map and
/// kallsyms all start that way).
fn is_symbol_text(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let Ok(line) = std::str::from_utf8(first) else {
        return false;
    };
    let mut fields = line.split_ascii_whitespace();
    let (Some(addr), Some(kind), Some(_)) = (fields.next(), fields.next(), fields.next()) else {
        return false;
    };
    addr.bytes().all(|b| b.is_ascii_hexdigit())
        && kind.len() == 1
        && kind.bytes().all(|b| b.is_ascii_alphabetic() || b == b'?')
}

/// Fails with an actionable message when `bytes` (the file `name`) is clearly not what
/// `want` needs; passes files of the wanted kind and files that may be it (ksym blobs and
/// CIF streams have no magic number, so their parsers decide).
pub fn expect(bytes: &[u8], name: &str, want: Want) -> Result<()> {
    match (sniff(bytes), want) {
        (Kind::Lidia, Want::Lidia | Want::Lookup)
        | (Kind::Symbfile, Want::Symbfile | Want::Lookup)
        | (Kind::Gsym, Want::Lookup) => Ok(()),
        (Kind::Unknown, want) if want != Want::Symbfile => Ok(()),
        // CIF streams may be base64 text, which can look like anything textual.
        (Kind::SymbolText, Want::Cif) => Ok(()),
        (kind, want) => Err(mismatch(kind, name, want)),
    }
}

/// The message for a file `name` of kind `kind` given where `want` is needed.
pub fn mismatch(kind: Kind, name: &str, want: Want) -> Failure {
    let is = match kind {
        Kind::Empty => "empty",
        Kind::Elf => "an ELF file",
        Kind::Lidia => "a Lidia file",
        Kind::Symbfile => "a symbfile",
        Kind::Gsym => "a GSYM file",
        Kind::Gzip => "gzip-compressed data",
        Kind::SymbolText => "nm or kallsyms text",
        Kind::Unknown => "not recognised",
    };
    let build = |format: &str| build_command(format, name);
    let advice = match (kind, want) {
        (Kind::Elf, Want::Ksym) | (Kind::SymbolText, _) => {
            format!(": build one with {}", build("ksym"))
        }
        (Kind::Elf, Want::Lidia) => format!(": build one with {}", build("lidia")),
        (Kind::Elf, Want::Symbfile) => format!(": build one with {}", build("symbfile")),
        (Kind::Elf, Want::Lookup) => {
            format!(": build one with {} or {}", build("lidia"), build("ksym"))
        }
        (Kind::Lidia, _) => format!(": read it with `symblob lidia` or `symblob lookup {name}`"),
        (Kind::Symbfile, _) => {
            format!(": read it with `symblob symbfile` or `symblob lookup {name}`")
        }
        (Kind::Gsym, _) => format!(": read it with `symblob gsym` or `symblob lookup {name}`"),
        _ => String::new(),
    };
    Failure::Message(format!("`{name}` is {is}, not {}{advice}", want.name()))
}

/// The command that builds a `format` file from the input named `name` (as messages name
/// it: `<stdin>` for standard input), writing it beside the input, or in the current
/// folder under the input's file name when the input is standard input or lives in
/// /proc, /sys or /dev (`/proc/kallsyms` → `kallsyms.ksym`).
fn build_command(format: &str, name: &str) -> String {
    let path = Path::new(name);
    let (input, output) = if name == "<stdin>" {
        ("-".to_string(), format!("symbols.{format}"))
    } else if SYSTEM_FOLDERS.iter().any(|d| path.starts_with(d)) {
        let file = path.file_name().map(|f| f.to_string_lossy());
        let file = file.unwrap_or_else(|| "symbols".into());
        (name.to_string(), format!("{file}.{format}"))
    } else {
        (name.to_string(), format!("{name}.{format}"))
    };
    format!("`symblob {format} build {input} -o {output}`")
}
