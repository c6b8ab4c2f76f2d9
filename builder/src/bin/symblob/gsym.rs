//! `symblob gsym …` subcommands: building LLVM GSYM v1 files from ELF/DWARF, lookups in,
//! a dump of and a full check of them (and of those `llvm-gsymutil --convert` writes).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use symblob::gsym::{Frame as GsymFrame, GsymFile, LookupIndex, Str};
use symblob_build::convert::gsym_from_elf;
use symblob_build::output::{refuse_files_read, refuse_same_file, write_atomic};
use symblob_build::{Error, Location};

use crate::common::{display_name, map_input, print, read_input, Outcome, Result};
use crate::dwarf_args::DwarfArgs;
use crate::frames::{self, Frame};
use crate::lookups::{self, FileLookup, LookupFlags, LookupFormat};

/// `symblob gsym` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Write a GSYM file from an ELF file's DWARF (separate debug files found by build ID
    /// or `.gnu_debuglink`, split DWARF, `dwz` supplementary files), Go table and symbol
    /// table, by `llvm-gsymutil --convert`'s rules; the same as `symblob convert ELF -o
    /// OUT --to gsym`.
    Build {
        /// The ELF file.
        elf: PathBuf,
        /// The GSYM file to write (written atomically; `-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Print nothing on success.
        #[arg(long)]
        quiet: bool,
        #[command(flatten)]
        debug_files: DwarfArgs,
    },
    /// Print the frames covering each address (arguments, or standard input one per line),
    /// as `llvm-gsymutil --address` finds them: `0x<addr> TAB <count>` then `TAB function
    /// TAB file TAB line` per frame, innermost first. A line that is not an address is
    /// reported on stderr and answered `?? TAB 0`; the exit status is then 1.
    Lookup(FileLookup<GsymFormat>),
    /// Print the header, the file table and every function with its line rows.
    Dump {
        /// The GSYM file.
        file: PathBuf,
    },
    /// Decode every function, line table and inline tree; exit 1 naming the first damage.
    Verify {
        /// The GSYM file.
        file: PathBuf,
    },
}

/// The format `lookup` reads.
pub struct GsymFormat;

impl LookupFormat for GsymFormat {
    const FILE_HELP: &'static str = "The GSYM file";
}

/// Runs one `symblob gsym` subcommand.
pub fn run(command: Command) -> Result<Outcome> {
    match command {
        Command::Build {
            elf,
            output,
            quiet,
            debug_files,
        } => {
            let debug_files = debug_files.debug_files();
            let mut inputs = vec![elf.as_path()];
            inputs.extend(debug_files.paths());
            refuse_same_file(&output, &inputs)?;
            let bytes = map_input(&elf)?;
            let started = std::time::Instant::now();
            let (written, files_read) = gsym_from_elf(&elf, &bytes, &debug_files)?;
            // The build may have found files by itself (a debug file, `<ELF>.dwp`, a
            // supplementary file): never written over.
            refuse_files_read(&output, &files_read)?;
            write_atomic(&output, &written.bytes)?;
            if !quiet {
                note!(
                    "gsym: read {}, wrote {}: {} functions ({} with line tables, {} with \
                     inline trees; {} without a name left out, {} merged by LLVM's rules), \
                     {} bytes, {:.2} s",
                    display_name(&elf),
                    crate::common::output_name(&output),
                    written.functions,
                    written.with_lines,
                    written.with_inlines,
                    written.unnamed,
                    written.merged,
                    written.bytes.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            Ok(Outcome::Success)
        }
        Command::Lookup(lookup) => lookup.run(
            |path| Ok(read_input(path)?),
            |path, bytes, flags, addresses| answer_all(&parse(path, bytes)?, flags, addresses),
        ),
        Command::Dump { file } => {
            let bytes = read_input(&file)?;
            let gsym = parse(&file, &bytes)?;
            print(&dump(&gsym).map_err(|e| blob_error(&file, e))?).map(|()| Outcome::Success)
        }
        Command::Verify { file } => {
            let bytes = read_input(&file)?;
            let gsym = parse(&file, &bytes)?;
            gsym.validate().map_err(|e| blob_error(&file, e))?;
            print(&format!(
                "{}: ok ({} functions, {} files; every record decodes)\n",
                file.display(),
                gsym.len(),
                gsym.file_count()
            ))
            .map(|()| Outcome::Success)
        }
    }
}

/// Parses a GSYM file, naming it in errors.
pub fn parse<'a>(path: &Path, bytes: &'a [u8]) -> Result<GsymFile<'a>> {
    Ok(GsymFile::parse(bytes).map_err(|e| blob_error(path, e))?)
}

/// A reader error, prefixed with the file it came from.
fn blob_error(path: &Path, e: symblob::Error) -> Error {
    // The reader's text places the problem itself.
    Error::new(e.kind.into(), display_name(path), Location::Whole, "")
        .with_section(e.section)
        .with_source(e)
}

fn text(s: Str<'_>) -> Cow<'_, str> {
    String::from_utf8_lossy(s.as_bytes())
}

/// A frame's source path as `llvm-gsymutil` prints it (empty when it has none).
fn path(frame: &GsymFrame<'_>) -> String {
    let (dir, base) = (text(frame.dir), text(frame.base));
    match (dir.as_ref(), base.as_ref()) {
        ("", base) => base.to_owned(),
        (dir, base) if dir.contains('\\') && !dir.contains('/') => format!("{dir}\\{base}"),
        (dir, base) => format!("{dir}/{base}"),
    }
}

/// Addresses given as arguments from which a lookup index pays for its build (a pass
/// over the file: 7 ms for zstd, 50 ms for ripgrep, 160 ms for the kernel); addresses
/// read from standard input always get one.
const INDEX_FROM: usize = 64;

/// Answers `addresses` (or standard input) from `gsym` in the format `lidia lookup`
/// prints, through a [`LookupIndex`] when there are many. A damaged record is reported
/// on stderr and answered with no frames.
pub fn answer_all(
    gsym: &GsymFile<'_>,
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let mut words = Vec::new();
    let index = if addresses.is_empty() || addresses.len() >= INDEX_FROM {
        words.resize(LookupIndex::words_needed(gsym), 0);
        // Built to the size asked for, it cannot fail; without it lookups still answer.
        LookupIndex::build(*gsym, &mut words).ok()
    } else {
        None
    };
    let lookup = |at| match &index {
        Some(index) => index.lookup(at),
        None => gsym.lookup(at),
    };
    lookups::run(addresses, flags, &frames::NO_FRAMES, |addr, out| {
        let found = match flags.file_address(addr).map(lookup) {
            Some(Ok(found)) => found,
            Some(Err(e)) => {
                note!("symblob: {addr:#x}: {e}");
                None
            }
            None => None,
        };
        let raw: Vec<GsymFrame<'_>> = found.iter().flat_map(|f| f.frames()).collect();
        let depth = raw.len().saturating_sub(1);
        let answer: Vec<Frame<'_>> = raw
            .iter()
            .enumerate()
            .map(|(i, f)| {
                // An inlined frame's call site is the position of the frame after it.
                let caller = raw.get(i + 1).filter(|_| f.inlined);
                Frame {
                    function: text(f.name),
                    file: path(f).into(),
                    line: u64::from(f.line),
                    depth: (depth - i) as u64,
                    call_file: caller.map(path).unwrap_or_default().into(),
                    call_line: caller.map_or(0, |c| u64::from(c.line)),
                }
            })
            .collect();
        frames::write(out, flags.json, addr, &answer, None)
    })
}

/// The header, the file table, and every function with its line rows.
fn dump(gsym: &GsymFile<'_>) -> std::result::Result<String, symblob::Error> {
    let h = gsym.header();
    let mut out = format!(
        "version {}, {:?}-endian, base {:#x}, {} functions, {}-byte address offsets\n\
         string table {:#x}+{:#x}, uuid {}\nfiles:\n",
        h.version,
        gsym.endian(),
        h.base_address,
        h.num_addresses,
        h.addr_off_size,
        h.strtab_offset,
        h.strtab_size,
        h.uuid
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
    );
    for index in 0..gsym.file_count() as u32 {
        let entry = gsym.file(index).unwrap_or_default();
        let _ = writeln!(out, "  [{index}] {} {}", text(entry.dir), text(entry.base));
    }
    out.push_str("functions:\n");
    for function in gsym.functions() {
        let f = function?;
        let end = f.address.wrapping_add(u64::from(f.size));
        let _ = writeln!(out, "  [{:#x}, {end:#x}) {}", f.address, text(f.name));
        for row in gsym.line_rows(&f)?.into_iter().flatten() {
            let row = row?;
            let _ = writeln!(
                out,
                "    {:#x} file {} line {}",
                row.address, row.file, row.line
            );
        }
    }
    Ok(out)
}
