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
}

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
        }
    }
}
