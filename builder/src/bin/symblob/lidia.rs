//! `symblob lidia …` subcommands.

use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, Subcommand};
use symblob::lidia::{LidiaFile, Str};
use symblob_build::dwarf::DwarfOptions;
use symblob_build::lidia::{self, Flags};
use symblob_build::output::build_outputs;
use symblob_build::pipeline::lidia::{BuildReport, ElfOptions, SymbolSources};
use symblob_build::{Error, Location};

use crate::answer_pool;
use crate::common::{display_name, output_name, print, read_input, Failure, Outcome, Result};
use crate::dwarf_args::DwarfArgs;
use crate::frames::{self, Frame};
use crate::lookups::{FileLookup, LookupFlags, LookupFormat};
use crate::progress::{Bar, Progress};
use crate::sniff::{self, Want};
use crate::sources;

/// `symblob lidia` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Build a Lidia file from an ELF file, byte-identical to Pyroscope's `CreateLidia`
    /// (or from its DWARF with --dwarf). Prints a one-line summary to stderr.
    Build(BuildArgs),
    /// Print the frames covering each address (arguments, or standard input one per line,
    /// answered as they arrive): `0x<addr> TAB <count>` then `TAB function TAB file TAB
    /// line` per frame, innermost first. A line that is not an address is reported on
    /// stderr and answered `?? TAB 0`; the exit status is then 1.
    Lookup(FileLookup<LidiaFormat>),
    /// Print the header, every range with its strings, every string and line entry.
    Dump {
        /// The Lidia file.
        file: PathBuf,
    },
    /// Check the structure and the four CRC32C checksums; exit 1 naming the failed section.
    Verify {
        /// The Lidia file.
        file: PathBuf,
    },
    /// Print sizes, counts, field sizes and bytes per range.
    Info {
        /// The Lidia file.
        file: PathBuf,
    },
}

/// Arguments of `symblob lidia build`.
#[derive(Args)]
// The options naming DWARF files have no effect without --dwarf.
#[command(group(ArgGroup::new("dwarf_files").args(DwarfArgs::IDS).multiple(true).requires("dwarf")))]
pub struct BuildArgs {
    /// The ELF file to read.
    elf: PathBuf,
    /// The Lidia file to write: a file (replaced atomically), a FIFO or device (written
    /// directly), or `-` for standard output.
    #[arg(short, long)]
    output: PathBuf,
    /// Do not read .symtab/.dynsym functions (Go's WithSymtab(false)).
    #[arg(long)]
    no_symtab: bool,
    /// Do not read Go .gopclntab functions (Go's WithParseGoPclntab(false)).
    #[arg(long)]
    no_gopclntab: bool,
    /// Build from DWARF: inline frames, files and lines.
    #[arg(long)]
    dwarf: bool,
    /// Store source files and call files (DWARF builds).
    #[arg(long, requires = "dwarf")]
    files: bool,
    /// Store line tables (DWARF builds).
    #[arg(long, requires = "dwarf")]
    lines: bool,
    /// Demangle Rust and C++ names (DWARF builds).
    #[arg(long, requires = "dwarf")]
    demangle: bool,
    #[command(flatten)]
    debug_files: DwarfArgs,
    /// Write a file even when no function is found (otherwise an error).
    #[arg(long)]
    allow_empty: bool,
    /// No summary and no progress on stderr (warnings are still printed).
    #[arg(short, long)]
    quiet: bool,
}

/// The format `lookup` reads.
pub struct LidiaFormat;

impl LookupFormat for LidiaFormat {
    const FILE_HELP: &'static str = "The Lidia file";
}

/// Runs one `symblob lidia` subcommand.
pub fn run(command: Command) -> Result<Outcome> {
    match command {
        Command::Build(args) => build(args).map(|()| Outcome::Success),
        Command::Lookup(lookup) => lookup.run(load, |file, blob, flags, addresses| {
            answer_all(&parse(file, blob)?, flags, addresses)
        }),
        Command::Dump { file } => {
            let blob = load(&file)?;
            let lidia = parse(&file, &blob)?;
            print(&lidia::dump(&lidia, &blob)).map(|()| Outcome::Success)
        }
        Command::Verify { file } => {
            let blob = load(&file)?;
            let lidia = parse(&file, &blob)?;
            lidia.verify_checksums().map_err(|e| blob_error(&file, e))?;
            lidia.validate().map_err(|e| blob_error(&file, e))?;
            print(&format!(
                "{}: ok ({} ranges; checksums and references valid)\n",
                file.display(),
                lidia.len()
            ))
            .map(|()| Outcome::Success)
        }
        Command::Info { file } => {
            let blob = load(&file)?;
            let lidia = parse(&file, &blob)?;
            print(&lidia::info(&lidia, &blob)).map(|()| Outcome::Success)
        }
    }
}

fn build(args: BuildArgs) -> Result<()> {
    let debug_files = args.debug_files.debug_files();
    let mut inputs = vec![args.elf.as_path()];
    inputs.extend(debug_files.paths());
    // DWARF builds report their compilation units through the library's callback.
    let bar = Bar::on_terminal(args.quiet || !args.dwarf);
    let options = ElfOptions {
        symbols: SymbolSources {
            symtab: !args.no_symtab,
            gopclntab: !args.no_gopclntab,
        },
        dwarf: args.dwarf.then(|| DwarfOptions {
            demangle: args.demangle,
            debug_files: debug_files.clone(),
        }),
        lidia: Flags {
            files: args.files,
            lines: args.lines,
        },
        progress: bar.progress(),
    };
    let input_name = args.elf.display().to_string();
    let (layout, report, progress) = build_outputs(&inputs, &[&args.output], |outputs| {
        // DWARF builds draw their own bar of compilation units.
        let progress = Progress::start(
            args.quiet,
            !args.dwarf,
            format!("lidia: reading {input_name}"),
        );
        let input = symblob_build::input::open(&args.elf)?;
        let collected =
            symblob_build::pipeline::lidia::collect_with_report(&args.elf, &input, &options);
        bar.finish();
        let (writer, report) = collected?;
        // The build may have found files by itself (`<ELF>.dwp`, `.dwo` files, a debug or
        // supplementary file): refused here, nothing is written.
        outputs.refuse_files_read(&report.files_read)?;
        if writer.is_empty() && !args.allow_empty {
            return Err(Failure::Message(format!(
                "{input_name}: {}; pass --allow-empty to write an empty Lidia file",
                found_nothing(&options, &report)
            )));
        }
        let layout = writer.layout();
        outputs.write(0, |w| writer.write_to(w))?;
        Ok((layout, report, progress))
    })?;
    let sources = sources::describe(&report.sources, &report.files_read, &report.warnings);
    let per_range = if layout.ranges == 0 {
        0.0
    } else {
        layout.file_size as f64 / layout.ranges as f64
    };
    let warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
    progress.finish(
        &warnings,
        &format!(
            "lidia: read {input_name} ({sources}), wrote {}: {} ranges, {} bytes \
             ({per_range:.1} B/range), {} string bytes, {} line entries",
            output_name(&args.output),
            layout.ranges,
            layout.file_size,
            layout.strings_size,
            layout.line_entries,
        ),
    );
    Ok(())
}

/// Why a build found no function: what it read, in words.
fn found_nothing(options: &ElfOptions, report: &BuildReport) -> String {
    let SymbolSources { symtab, gopclntab } = options.symbols;
    let read = match (options.dwarf.is_some(), symtab, gopclntab) {
        // A DWARF build adds the functions of the symbol tables where DWARF has none.
        (true, ..) if sources::no_dwarf(&report.warnings) => {
            return "no DWARF, and no functions found in its symbol tables".into();
        }
        (true, ..) => {
            let dwarf = sources::label("dwarf", &report.files_read);
            return format!("no functions found in its {dwarf} or symbol tables");
        }
        (false, true, true) => "symbols and .gopclntab",
        (false, true, false) => "symbols",
        (false, false, true) => ".gopclntab",
        (false, false, false) => "nothing (--no-symtab --no-gopclntab)",
    };
    format!("no functions found in its {read}")
}

/// Reads a Lidia file after checking what it is.
fn load(path: &Path) -> Result<Vec<u8>> {
    let bytes = read_input(path)?;
    sniff::expect(&bytes, &display_name(path), Want::Lidia)?;
    Ok(bytes)
}

/// Parses a Lidia file, naming it in errors.
pub fn parse<'a>(path: &Path, blob: &'a [u8]) -> Result<LidiaFile<'a>> {
    Ok(LidiaFile::parse(blob).map_err(|e| blob_error(path, e))?)
}

/// A reader error, prefixed with the file it came from.
fn blob_error(path: &Path, e: symblob::Error) -> Error {
    // The reader's text places the problem itself.
    Error::new(e.kind.into(), display_name(path), Location::Whole, "")
        .with_section(e.section)
        .with_source(e)
}

/// Answers `addresses` (or standard input) from `lidia`: the frames in the golden
/// `lookups.tsv` format (plus real line numbers), or as JSON lines. Each batch is looked
/// up together ([`LidiaFile::lookup_each`] overlaps the searches' memory waits), on
/// every core ([`answer_pool`]).
pub fn answer_all<'a>(
    lidia: &LidiaFile<'a>,
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let text = |s: Str<'a>| String::from_utf8_lossy(s.as_bytes());
    answer_pool::run(
        addresses,
        flags,
        &frames::NO_FRAMES,
        // Reused from one batch to the next: the addresses in the file, and the frames.
        <(Vec<u64>, Vec<Frame<'a>>)>::default,
        |(at, found), addrs, out| {
            // A return address 0 has no file address and no frames: 0 stands in for it.
            at.clear();
            at.extend(addrs.iter().map(|&a| flags.file_address(a).unwrap_or(0)));
            let mut written = Ok(());
            lidia.lookup_each(at, |i, frames| {
                found.clear();
                if flags.file_address(addrs[i]).is_some() {
                    found.extend(frames.map(|f| Frame {
                        function: text(f.function),
                        file: text(f.file),
                        line: f.line,
                        depth: f.depth,
                        call_file: text(f.call_file),
                        call_line: f.call_line,
                    }));
                }
                if written.is_ok() {
                    written = frames::write(out, flags.json, addrs[i], found, None);
                }
            });
            written
        },
    )
}
