//! `symblob convert`: any file symblob reads into any format it writes.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use symblob_build::convert::{self, ConvertOptions, Converted, Target};
use symblob_build::output::{refuse_files_read, refuse_same_file, write_atomic};

use crate::common::{self, display_name, Outcome, Result};
use crate::dwarf_args::DwarfArgs;
use crate::ksym::{FormatVersionArg, LayoutArg};

/// The formats `--to` names.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ToArg {
    /// ksym-bin (function names only; v1 in the input blob's layout or `--layout`, or v2
    /// with `--ksym-format-version 2`).
    Ksym,
    /// Lidia with files and lines.
    Lidia,
    /// symbfile: range records, and return pads when the input has them.
    Symbfile,
    /// GSYM v1 (LLVM's `llvm-gsymutil` format), with inline trees and line tables.
    Gsym,
    /// Breakpad `.sym` text (crash reporting), with unwind rules when the input has them.
    Breakpad,
}

/// `symblob convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The input: a ksym-bin blob, a Lidia file, a symbfile, a GSYM file, a Breakpad
    /// `.sym` file, or an ELF file (built from as the target's `build` command does by
    /// default); its bytes decide.
    input: PathBuf,
    /// The output file (written atomically; `-` for standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    to: ToArg,
    /// ksym-bin framing (default: the input blob's, or `sized`).
    #[arg(long, value_enum)]
    layout: Option<LayoutArg>,
    /// ksym-bin format to write: 1 (default) or 2 (read by symblob only; --layout does not
    /// apply).
    #[arg(long, value_enum, value_name = "1|2", default_value = "1")]
    ksym_format_version: FormatVersionArg,
    /// Print nothing on success.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    debug_files: DwarfArgs,
}

/// Runs `symblob convert`.
pub fn run(args: ConvertArgs) -> Result<Outcome> {
    let debug_files = args.debug_files.debug_files();
    let mut inputs = vec![args.input.as_path()];
    inputs.extend(debug_files.paths());
    refuse_same_file(&args.output, &inputs)?;
    let bytes = common::map_input(&args.input)?;
    let to = match args.to {
        ToArg::Ksym => Target::Ksym,
        ToArg::Lidia => Target::Lidia,
        ToArg::Symbfile => Target::Symbfile,
        ToArg::Gsym => Target::Gsym,
        ToArg::Breakpad => Target::Breakpad,
    };
    let options = ConvertOptions {
        ksym_layout: args.layout.map(Into::into),
        ksym_format_version: args.ksym_format_version.into(),
        debug_files,
    };
    let name = display_name(&args.input);
    let converted = convert::convert(std::path::Path::new(&name), &bytes, to, &options)?;
    // An ELF build may have found files by itself (a debug file, `<ELF>.dwp`, a
    // supplementary file): never written over.
    refuse_files_read(&args.output, &converted.files_read)?;
    write_atomic(&args.output, &converted.bytes)?;
    if !args.quiet {
        note!("{}", summary(&name, to, &converted));
    }
    Ok(Outcome::Success)
}

/// One line: what was read, what was written, and what the target could not hold.
fn summary(input: &str, to: Target, c: &Converted) -> String {
    let mut line = format!(
        "{input}: {} ({}) to {}: {} {}, {} inlined calls, {} return pads, {} bytes",
        c.from,
        c.held,
        to.format(),
        c.functions,
        if matches!(to, Target::Ksym) {
            "symbols"
        } else {
            "functions"
        },
        c.inlined,
        c.return_pads,
        c.bytes.len()
    );
    if !c.lost.is_empty() {
        line.push_str(&format!(
            "; not kept (a {} file cannot hold them): {}",
            to.format(),
            c.lost.join(", ")
        ));
    }
    line
}
