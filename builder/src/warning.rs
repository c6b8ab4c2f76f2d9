//! Problems that do not stop a build, returned to the caller as values.

use std::fmt;
use std::path::PathBuf;

/// A non-fatal problem: the build went on with less information. Its [`Display`]
/// (`"<file>: <what>"`) is what the `symblob` command line prints after `warning: `.
///
/// [`Display`]: fmt::Display
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The file the problem was found in.
    pub input: PathBuf,
    /// What happened.
    pub kind: WarningKind,
}

/// What a [`Warning`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WarningKind {
    /// The list of DWARF units ends in bytes that do not parse; the units before them
    /// were read.
    UnitListCut {
        /// gimli's description of the problem.
        reason: String,
    },
    /// One DWARF unit could not be read; its code is described by the symbol table only.
    UnitSkipped {
        /// Offset of the unit in `.debug_info`.
        offset: u64,
        /// gimli's description of the problem.
        reason: String,
    },
    /// A separate debug file was read although nothing tells whether it belongs to the
    /// binary: the binary has neither a build ID nor a `.gnu_debuglink`. The warning's
    /// input is the debug file.
    DebugFileUnverifiable {
        /// The binary the debug file was given for.
        binary: PathBuf,
    },
    /// A separate debug file that belongs to another binary was read because the caller
    /// allowed it (`--debug-file-mismatch-ok`). The warning's input is the debug file.
    DebugFileMismatchRead {
        /// The binary the debug file was given for.
        binary: PathBuf,
        /// How the two differ (build IDs or CRC-32).
        reason: String,
    },
    /// The separate debug file has no DWARF; functions come from the other sources only.
    /// The warning's input is the debug file.
    NoDwarfInDebugFile {
        /// The binary the debug file belongs to.
        binary: PathBuf,
    },
    /// The binary has no DWARF and no separate debug file was found; functions come from
    /// the other sources only.
    NoDwarf,
    /// A split DWARF skeleton unit whose split unit (its `.dwo` file, or its entry in the
    /// `.dwp` package) was not found: the unit's functions and inline frames are missing,
    /// its code is described by the symbol table only.
    SplitUnitMissing {
        /// Offset of the skeleton unit in `.debug_info`.
        offset: u64,
        /// The unit's `DW_AT_dwo_name`.
        dwo_name: PathBuf,
        /// Every file looked in, in order.
        looked_for: Vec<PathBuf>,
    },
    /// The supplementary file (`dwz -m`) the debug information links to was not found:
    /// names kept only there are missing.
    SupplementaryMissing {
        /// Every file looked in, in order.
        looked_for: Vec<PathBuf>,
    },
    /// A supplementary file whose build ID is not the one the link names was read
    /// because the caller named it and allowed mismatches (`--sup` with
    /// `--debug-file-mismatch-ok`): names kept there may be wrong.
    SupplementaryMismatchRead {
        /// The supplementary file.
        sup: PathBuf,
        /// How the build IDs differ.
        reason: String,
    },
}

/// What a build without DWARF still has (the Lidia DWARF build reads the symbol tables;
/// symbfile extraction also reads Go's `.gopclntab`).
const WITHOUT_DWARF: &str = "functions come from the symbol tables (and, for symbfile, Go's \
                             .gopclntab) only, without inline frames";

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.input.display())?;
        match &self.kind {
            WarningKind::UnitListCut { reason } => {
                write!(f, "cannot read more units of .debug_info: {reason}")
            }
            WarningKind::UnitSkipped { offset, reason } => write!(
                f,
                "unit at .debug_info offset {offset:#x}: {reason}; its code is described by \
                 the symbol table only"
            ),
            WarningKind::DebugFileUnverifiable { binary } => write!(
                f,
                "cannot check that it is the debug file of {}: the binary has no build ID \
                 and no .gnu_debuglink",
                binary.display()
            ),
            WarningKind::DebugFileMismatchRead { binary, reason } => write!(
                f,
                "read although it is not the debug file of {}: {reason}",
                binary.display()
            ),
            WarningKind::NoDwarfInDebugFile { binary } => write!(
                f,
                "no DWARF (.debug_info) in the debug file of {}; {WITHOUT_DWARF}",
                binary.display()
            ),
            WarningKind::NoDwarf => write!(
                f,
                "no DWARF (.debug_info) and no separate debug file found (by build ID or \
                 .gnu_debuglink); {WITHOUT_DWARF}"
            ),
            WarningKind::SplitUnitMissing {
                offset,
                dwo_name,
                looked_for,
            } => {
                write!(
                    f,
                    "split unit {} of the skeleton at .debug_info offset {offset:#x} not \
                     found (looked for",
                    dwo_name.display()
                )?;
                write_paths(f, looked_for)?;
                write!(f, "); its code is described by the symbol table only")
            }
            WarningKind::SupplementaryMissing { looked_for } => {
                write!(f, "supplementary debug file not found (looked for")?;
                write_paths(f, looked_for)?;
                write!(f, "); names kept only there are missing")
            }
            WarningKind::SupplementaryMismatchRead { sup, reason } => write!(
                f,
                "read {} although it is not its supplementary file: {reason}; names kept \
                 there may be wrong",
                sup.display()
            ),
        }
    }
}

/// ` a, b, c`: the paths looked in.
fn write_paths(f: &mut fmt::Formatter<'_>, paths: &[PathBuf]) -> fmt::Result {
    for (i, p) in paths.iter().enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        write!(f, "{sep}{}", p.display())?;
    }
    Ok(())
}
