//! What a file given as a blob really is, so that a wrong file is named for what it is
//! ("an ELF file, not a ksym blob") instead of failing deep inside a parser with a
//! meaningless size. The bytes are recognised by the reader ([`symblob::detect`]); this
//! module only words the messages.

use std::path::Path;

use symblob::{Detected, Format};

use symblob_build::readback::breakpad::looks_like_breakpad;

use crate::common::{Failure, Result};

/// Folders of files the kernel makes up, where no one can write a file beside an input.
const SYSTEM_FOLDERS: [&str; 3] = ["/proc", "/sys", "/dev"];

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
            Want::Lookup => "a ksym blob, a Lidia file, a symbfile, a GSYM file or a Breakpad file",
        }
    }
}

/// Fails with an actionable message when `bytes` (the file `name`) is clearly not what
/// `want` needs; passes files of the wanted kind and files that may be it (ksym blobs and
/// CIF streams have no magic number, so their parsers decide).
pub fn expect(bytes: &[u8], name: &str, want: Want) -> Result<()> {
    if looks_like_breakpad(bytes) {
        return match want {
            Want::Lookup => Ok(()),
            _ => Err(Failure::Message(format!(
                "`{name}` is a Breakpad symbol file, not {}: read it with `symblob lookup \
                 {name}` or convert it with `symblob convert {name} --to …`",
                want.name()
            ))),
        };
    }
    match (detect(bytes), want) {
        (Detected::Blob(Format::Ksym), Want::Ksym | Want::Lookup)
        | (Detected::Blob(Format::Lidia), Want::Lidia | Want::Lookup)
        | (Detected::Blob(Format::Symbfile), Want::Symbfile | Want::Lookup)
        | (Detected::Blob(Format::Gsym), Want::Lookup)
        | (Detected::Blob(Format::Cif), Want::Cif) => Ok(()),
        (Detected::Unknown, want) if want != Want::Symbfile => Ok(()),
        // CIF streams may be base64 text, which can look like anything textual.
        (Detected::SymbolText, Want::Cif) => Ok(()),
        (found, want) => Err(mismatch(found, name, want)),
    }
}

/// What `bytes` are, as [`symblob::detect`] says, and a ksym-bin v2 blob (which starts
/// with its magic number) as a ksym blob.
pub fn detect(bytes: &[u8]) -> Detected {
    if symblob::ksym::Version::detect(bytes) == symblob::ksym::Version::V2 {
        Detected::Blob(Format::Ksym)
    } else {
        symblob::detect(bytes)
    }
}

/// The message for a file `name` found to be `found` given where `want` is needed.
pub fn mismatch(found: Detected, name: &str, want: Want) -> Failure {
    let is = match found {
        Detected::Empty => "empty",
        Detected::Elf => "an ELF file",
        Detected::Blob(Format::Ksym) => "a ksym blob",
        Detected::Blob(Format::Lidia) => "a Lidia file",
        Detected::Blob(Format::Symbfile) => "a symbfile",
        Detected::Blob(Format::Gsym) => "a GSYM file",
        Detected::Blob(Format::Cif) => "a CIF stream",
        Detected::Gzip => "gzip-compressed data",
        Detected::SymbolText => "nm or kallsyms text",
        _ => "not recognised",
    };
    let build = |format: &str| build_command(format, name);
    let read_with =
        |command: &str| format!(": read it with `symblob {command}` or `symblob lookup {name}`");
    let advice = match (found, want) {
        (Detected::Elf, Want::Ksym) | (Detected::SymbolText, _) => {
            format!(": build one with {}", build("ksym"))
        }
        (Detected::Elf, Want::Lidia) => format!(": build one with {}", build("lidia")),
        (Detected::Elf, Want::Symbfile) => format!(": build one with {}", build("symbfile")),
        (Detected::Elf, Want::Lookup) => {
            format!(": build one with {} or {}", build("lidia"), build("ksym"))
        }
        (Detected::Blob(Format::Ksym), _) => read_with("ksym"),
        (Detected::Blob(Format::Lidia), _) => read_with("lidia"),
        (Detected::Blob(Format::Symbfile), _) => read_with("symbfile"),
        (Detected::Blob(Format::Gsym), _) => read_with("gsym"),
        (Detected::Blob(Format::Cif), _) => ": read it with `symblob cif decode`".to_string(),
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
