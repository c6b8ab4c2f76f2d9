//! The files beside an ELF that a DWARF read may be told about: one set of options, held by
//! every reader of DWARF (the Lidia DWARF build's [`super::DwarfOptions`], symbfile's
//! [`crate::extract::ExtractOptions`]) and handed as it is to the session that
//! opens them.

use std::path::{Path, PathBuf};

/// Where a DWARF read finds its files beside the ELF, when the caller names them, and how
/// strictly a separate file must belong to the ELF. [`Default`] names none: the DWARF is
/// looked for in the ELF, then through its build ID and `.gnu_debuglink`; split units in
/// `<ELF>.dwp` or each unit's `.dwo` file; the supplementary file where
/// `.gnu_debugaltlink` or `.debug_sup` says; a file that does not belong is an error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugFiles {
    /// The file that holds the DWARF, instead of the ELF itself or the debug file found
    /// through its build ID or `.gnu_debuglink`.
    pub debug_file: Option<PathBuf>,
    /// Read a separate debug file even when it does not belong to the ELF (its build ID
    /// or `.gnu_debuglink` CRC differs), and a supplementary file named by [`Self::sup`]
    /// whose build ID or `.debug_sup` checksum is not the one the link names: a warning
    /// instead of an error.
    pub debug_file_mismatch_ok: bool,
    /// A split DWARF package (`.dwp`) holding the split units of the ELF's skeleton units
    /// (else `<ELF>.dwp` when it exists, else each unit's `.dwo` file).
    pub dwp: Option<PathBuf>,
    /// The supplementary debug file (`dwz -m`) the DWARF refers to (else the file
    /// `.gnu_debugaltlink` or `.debug_sup` names).
    pub sup: Option<PathBuf>,
}

impl DebugFiles {
    /// The files named, in the order debug file, package, supplementary file: inputs of
    /// the read, which no output may replace.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        [&self.debug_file, &self.dwp, &self.sup]
            .into_iter()
            .filter_map(|p| p.as_deref())
    }
}
