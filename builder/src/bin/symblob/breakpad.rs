//! `symblob breakpad …` subcommands: Breakpad symbol files (`.sym`) from ELF/DWARF, with
//! unwind rules, as Mozilla's `dump_syms --inlines` writes them.

use std::path::PathBuf;

use clap::Subcommand;
use symblob_build::breakpad::Module;
use symblob_build::output::{build_outputs, refuse_same_file};
use symblob_build::pipeline::breakpad::from_elf_into;
use symblob_build::{Error, ErrorKind, Location, Progress};

use crate::common::{display_name, map_input, output_name, Outcome, Result};
use crate::dwarf_args::DwarfArgs;

/// `symblob breakpad` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Write the Breakpad symbol file of an ELF file: functions, line records and inlined
    /// calls from its DWARF (separate debug files found by build ID or `.gnu_debuglink`,
    /// split DWARF, `dwz` supplementary files), public symbols from its symbol table, and
    /// `STACK CFI` unwind rules from `.eh_frame` and `.debug_frame`.
    Build {
        /// The ELF file.
        elf: PathBuf,
        /// The `.sym` file to write (written atomically; `-` for standard output).
        #[arg(
            short,
            long,
            required_unless_present = "store",
            conflicts_with = "store"
        )]
        output: Option<PathBuf>,
        /// Write into this symbol store instead, as `DIR/<name>/<module id>/<name>.sym`
        /// (the layout minidump-stackwalk and crash servers read); folders are created.
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
        /// Print nothing on success.
        #[arg(long)]
        quiet: bool,
        #[command(flatten)]
        debug_files: DwarfArgs,
    },
}

/// Runs one `symblob breakpad` subcommand.
pub fn run(command: Command) -> Result<Outcome> {
    match command {
        Command::Build {
            elf,
            output,
            store,
            quiet,
            debug_files,
        } => {
            let debug_files = debug_files.debug_files();
            let mut inputs = vec![elf.as_path()];
            inputs.extend(debug_files.paths());
            if let Some(output) = &output {
                refuse_same_file(output, &inputs)?;
            }
            let bytes = map_input(&elf)?;
            let started = std::time::Instant::now();
            let output = match (output, store) {
                (Some(output), _) => output,
                (None, Some(store)) => {
                    let path = store.join(Module::of_elf(&bytes, &elf)?.store_path());
                    if let Some(folder) = path.parent() {
                        std::fs::create_dir_all(folder).map_err(|e| {
                            Error::new(
                                ErrorKind::Io,
                                folder.display().to_string(),
                                Location::Whole,
                                "cannot create the store folder",
                            )
                            .with_source(e)
                        })?;
                    }
                    path
                }
                (None, None) => unreachable!("clap requires --output or --store"),
            };
            // The build may find files by itself (a debug file, `<ELF>.dwp`, a
            // supplementary file): the text is written only once they are known, and
            // never over one of them.
            let built = build_outputs(&inputs, &[output.as_path()], |outputs| {
                from_elf_into(&elf, &bytes, &debug_files, &Progress::default(), outputs)
            })?;
            let written = &built.written;
            if !quiet {
                note!(
                    "breakpad: read {}, wrote {}: module {} {}, {} functions, {} public \
                     symbols, {} line records, {} inlined calls, {} unwind ranges, {} bytes, \
                     {:.2} s",
                    display_name(&elf),
                    output_name(&output),
                    built.module.name,
                    built.module.id,
                    written.functions,
                    written.publics,
                    written.lines,
                    written.inlines,
                    written.cfi,
                    written.bytes,
                    started.elapsed().as_secs_f64()
                );
            }
            Ok(Outcome::Success)
        }
    }
}
