//! How a build's summary says where its functions came from: each source that gave
//! ranges with their number, the DWARF named after the separate debug file it was read
//! from (given, or found by build ID or `.gnu_debuglink`), and `no DWARF` when a build
//! that looks for DWARF found none.

use symblob_build::input::FilesRead;
use symblob_build::{Warning, WarningKind};

/// The sources that gave ranges, as the summary names them (`DWARF of prog.debug: 12,
/// symbol tables: 3`), from the library's counts per source (`dwarf`, `symbols`, `go` or
/// `gopclntab`, `symtab`, `dynsym`); `no source gave ranges` when none did.
pub fn describe(counts: &[(&str, usize)], read: &FilesRead, warnings: &[Warning]) -> String {
    let looked_for_dwarf = counts.iter().any(|&(source, _)| source == "dwarf");
    let missing = (looked_for_dwarf && no_dwarf(warnings)).then(|| "no DWARF".to_string());
    let given = counts
        .iter()
        .filter(|&&(_, n)| n > 0)
        .map(|&(source, n)| format!("{}: {n}", label(source, read)));
    let parts: Vec<String> = missing.into_iter().chain(given).collect();
    if parts.is_empty() {
        "no source gave ranges".into()
    } else {
        parts.join(", ")
    }
}

/// How the summary names a source.
pub fn label(source: &str, read: &FilesRead) -> String {
    match source {
        "dwarf" => match read.debug_file() {
            Some(file) => format!("DWARF of {}", file.display()),
            None => "DWARF".into(),
        },
        "symbols" => "symbol tables".into(),
        "go" | "gopclntab" => "Go .gopclntab".into(),
        "symtab" => ".symtab".into(),
        "dynsym" => ".dynsym".into(),
        other => other.into(),
    }
}

/// Whether the build found no DWARF: none in the ELF and no separate debug file, or a
/// debug file without any (each reported by a warning).
pub fn no_dwarf(warnings: &[Warning]) -> bool {
    warnings.iter().any(|w| {
        matches!(
            w.kind,
            WarningKind::NoDwarf | WarningKind::NoDwarfInDebugFile { .. }
        )
    })
}
