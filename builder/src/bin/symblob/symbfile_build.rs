//! `symblob symbfile build`, and the extraction `push` and `publish` share: the arguments,
//! the library's one-pass build of both symbfiles, and the summary.

use std::path::{Path, PathBuf};

use clap::Args;
use symblob_build::extract::{ExtractOptions, ExtractStats};
use symblob_build::output::same_output;
use symblob_build::pipeline::symbfile::{self as build, ExtractedParts, Targets, Written};

use crate::common::{output_name, parse_size, Failure, Result};
use crate::dwarf_args::DwarfArgs;
use crate::progress::Progress;
use crate::sources;

/// Arguments of `symblob symbfile build`.
#[derive(Args)]
pub struct BuildArgs {
    /// The ELF file to read.
    elf: PathBuf,
    /// The range symbfile to write: a file (replaced atomically), a FIFO or device
    /// (written directly), or `-` for standard output.
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the return-pad symbfile to OUT.
    #[arg(long, value_name = "OUT")]
    return_pads: Option<PathBuf>,
    /// Cut each file into self-contained parts of at most N bytes (decimal or 0x hex),
    /// written as `<output>.0`, `<output>.1`, … (range files are cut only before a
    /// top-level function).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    max_part_size: Option<u64>,
    #[command(flatten)]
    extract: ExtractArgs,
    /// Write a file even when no range is found (otherwise an error).
    #[arg(long)]
    allow_empty: bool,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
}

/// What to extract from the executable (shared by build, push and publish).
#[derive(Args, Clone, Debug)]
pub struct ExtractArgs {
    /// Ranges from DWARF only: no Go .gopclntab, .symtab or .dynsym functions.
    #[arg(long)]
    pub dwarf_only: bool,
    #[command(flatten)]
    pub dwarf: DwarfArgs,
}

impl ExtractArgs {
    /// The library's options.
    pub fn options(&self) -> ExtractOptions {
        ExtractOptions {
            dwarf_only: self.dwarf_only,
            debug_files: self.dwarf.debug_files(),
        }
    }
}

/// Refuses an executable without any range (unless `allow_empty`).
fn accept_ranges(elf: &Path, allow_empty: bool) -> impl FnOnce(u64) -> Result<()> + '_ {
    move |count| {
        if count == 0 && !allow_empty {
            return Err(Failure::Message(format!(
                "{}: no functions found (DWARF, .gopclntab, .symtab, .dynsym); \
                 pass --allow-empty to write an empty symbfile",
                elf.display()
            )));
        }
        Ok(())
    }
}

/// Extracts the range file and the return-pad file of `elf` in memory, each cut into
/// parts of at most `max_part_size` bytes (one part without a limit); prints the
/// warnings.
pub fn extract_parts(
    elf: &Path,
    extract: &ExtractArgs,
    max_part_size: Option<u64>,
) -> Result<ExtractedParts> {
    let extracted = build::extract_parts(
        elf,
        &extract.options(),
        max_part_size,
        accept_ranges(elf, false),
    )?;
    for warning in &extracted.warnings {
        note!("warning: {warning}");
    }
    Ok(extracted)
}

/// `symblob symbfile build`.
pub fn build(args: BuildArgs) -> Result<()> {
    if let Some(pads) = &args.return_pads {
        if same_output(pads, &args.output) {
            return Err(Failure::Message(format!(
                "the range file and the return-pad file are both {}",
                output_name(pads)
            )));
        }
    }
    let parts_to_stdout =
        args.output == Path::new("-") || args.return_pads.as_deref() == Some(Path::new("-"));
    if args.max_part_size.is_some() && parts_to_stdout {
        return Err(Failure::Message(
            "--max-part-size writes files <output>.0, <output>.1, …: `-` cannot be one".into(),
        ));
    }
    let input_name = args.elf.display().to_string();
    let progress = Progress::start(args.quiet, true, format!("symbfile: reading {input_name}"));
    let targets = Targets {
        ranges: &args.output,
        return_pads: args.return_pads.as_deref(),
        max_part_size: args.max_part_size,
    };
    let built = build::write_files(
        &args.elf,
        &args.extract.options(),
        &targets,
        accept_ranges(&args.elf, args.allow_empty),
    )?;
    let mut summary = format!(
        "symbfile: read {input_name} ({}), wrote {}: {} ranges, {} bytes{}",
        read_from(&built.stats),
        output_name(&args.output),
        built.ranges.records,
        built.ranges.bytes,
        parts_note(&built.ranges),
    );
    if let (Some(path), Some(pads)) = (&args.return_pads, &built.return_pads) {
        summary.push_str(&format!(
            "; {}: {} return pads, {} bytes{}",
            output_name(path),
            pads.records,
            pads.bytes,
            parts_note(pads),
        ));
    }
    let warnings: Vec<String> = built
        .stats
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    progress.finish(&warnings, &summary);
    Ok(())
}

fn parts_note(w: &Written) -> String {
    if w.parts > 1 {
        format!(" in {} parts", w.parts)
    } else {
        String::new()
    }
}

/// The sources that gave records, with their counts: `DWARF of prog.debug: 120, .symtab: 3`.
fn read_from(stats: &ExtractStats) -> String {
    let counts: Vec<(&str, usize)> = stats
        .sources
        .iter()
        .map(|(name, s)| (*name, s.accepted))
        .collect();
    sources::describe(&counts, &stats.files_read, &stats.warnings)
}
