//! The options of every command that reads DWARF: where its files are beside the ELF.

use std::path::{Path, PathBuf};

use clap::Args;
use symblob_build::dwarf::DebugFiles;

/// `--debug-file`, `--debug-file-mismatch-ok`, `--dwp`, `--sup` (flattened into `lidia
/// build`, `symbfile build`, `push` and `publish`).
#[derive(Args, Clone, Debug)]
pub struct DwarfArgs {
    /// The file holding the DWARF, instead of the ELF itself or the debug file found
    /// through its build ID or .gnu_debuglink.
    #[arg(long, value_name = "PATH")]
    debug_file: Option<PathBuf>,
    /// Read a debug file whose build ID (or .gnu_debuglink CRC) is not the binary's, and a
    /// `--sup` file whose build ID (or `.debug_sup` checksum) is not the one the debug
    /// information links to.
    #[arg(long)]
    debug_file_mismatch_ok: bool,
    /// A split DWARF package (`.dwp`) holding the split units (default: `<ELF>.dwp` when
    /// it exists, else each unit's `.dwo` file).
    #[arg(long, value_name = "PATH")]
    dwp: Option<PathBuf>,
    /// The supplementary debug file (`dwz -m`) the DWARF refers to (default: the file
    /// `.gnu_debugaltlink` or `.debug_sup` names).
    #[arg(long, value_name = "PATH")]
    sup: Option<PathBuf>,
}

impl DwarfArgs {
    /// The ids of the options, for a command whose other options they need
    /// (`lidia build` takes them only with `--dwarf`).
    pub const IDS: [&'static str; 4] = ["debug_file", "debug_file_mismatch_ok", "dwp", "sup"];

    /// The library's options.
    pub fn debug_files(&self) -> DebugFiles {
        DebugFiles {
            debug_file: self.debug_file.clone(),
            debug_file_mismatch_ok: self.debug_file_mismatch_ok,
            dwp: self.dwp.clone(),
            sup: self.sup.clone(),
        }
    }

    /// The debug file named with `--debug-file`.
    pub fn debug_file(&self) -> Option<&Path> {
        self.debug_file.as_deref()
    }
}
