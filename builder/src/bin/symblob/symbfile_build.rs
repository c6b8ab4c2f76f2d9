//! `symblob symbfile build`, and the extraction `push` and `publish` share: range records
//! streamed from the executable into the writer, return pads made from them function by
//! function, each file streamed to its output or cut into parts as it grows.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use symblob_build::input::FilesRead;
use symblob_build::output::{refuse_files_read, refuse_same_file, same_output, Output, Staged};
use symblob_build::symbfile::extract::{self, ExtractOptions, ExtractStats};
use symblob_build::symbfile::parts::PartSplitter;
use symblob_build::symbfile::retpads::PadMaker;
use symblob_build::symbfile::{RangeRecord, Record, SymbfileWriter, WriterOptions};
use symblob_build::Error;

use crate::common::{output_name, parse_size, Failure, Result};
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
    /// The file holding the DWARF, instead of the ELF itself or the debug file found
    /// through its build ID or .gnu_debuglink.
    #[arg(long, value_name = "PATH")]
    pub debug_file: Option<PathBuf>,
    /// Read a debug file whose build ID (or .gnu_debuglink CRC) is not the binary's, and a
    /// `--sup` file whose build ID (or `.debug_sup` checksum) is not the one the debug
    /// information links to.
    #[arg(long)]
    pub debug_file_mismatch_ok: bool,
    /// A split DWARF package (`.dwp`) holding the split units (default: `<ELF>.dwp` when
    /// it exists, else each unit's `.dwo` file).
    #[arg(long, value_name = "PATH")]
    pub dwp: Option<PathBuf>,
    /// The supplementary debug file (`dwz -m`) the DWARF refers to (default: the file
    /// `.gnu_debugaltlink` or `.debug_sup` names).
    #[arg(long, value_name = "PATH")]
    pub sup: Option<PathBuf>,
}

impl ExtractArgs {
    fn options(&self) -> ExtractOptions {
        ExtractOptions {
            dwarf_only: self.dwarf_only,
            debug_file: self.debug_file.clone(),
            debug_file_mismatch_ok: self.debug_file_mismatch_ok,
            dwp: self.dwp.clone(),
            sup: self.sup.clone(),
        }
    }

    /// The files read beside the ELF, which no output may replace.
    pub fn inputs(&self) -> impl Iterator<Item = &Path> {
        [&self.debug_file, &self.dwp, &self.sup]
            .into_iter()
            .filter_map(|p| p.as_deref())
    }
}

/// Where the records of one symbfile go.
enum Destination<'w> {
    /// One file, streamed out as each string-table window is written.
    Stream(StreamFile<'w>),
    /// Self-contained parts.
    Parts(PartFiles),
}

/// One symbfile written to `out` as it is made.
struct StreamFile<'w> {
    writer: SymbfileWriter,
    out: &'w mut dyn Write,
    /// The output's path, as given.
    path: &'w Path,
    /// The output's name in errors.
    name: String,
    /// Bytes written so far.
    bytes: u64,
}

/// Parts, each written to a temporary file for `<base>.<k>` when complete and all put in
/// place by [`commit`](PartFiles::commit), or kept in memory (no base).
struct PartFiles {
    splitter: Option<PartSplitter>,
    base: Option<PathBuf>,
    /// The files named on the command line, which no part may replace.
    inputs: Vec<PathBuf>,
    /// The files the extraction read, which no part may replace either.
    read: FilesRead,
    kept: Vec<Vec<u8>>,
    /// The part files written, with their sizes, not yet in place (dropping them removes
    /// them).
    staged: Vec<(Staged, u64)>,
}

/// What one destination received and wrote.
struct Written {
    records: u64,
    bytes: u64,
    parts: usize,
}

impl<'w> Destination<'w> {
    fn stream(out: &'w mut dyn Write, path: &'w Path) -> Self {
        Destination::Stream(StreamFile {
            writer: SymbfileWriter::new(),
            out,
            path,
            name: output_name(path),
            bytes: 0,
        })
    }

    fn parts(max_part_size: Option<u64>, base: Option<PathBuf>, inputs: &[&Path]) -> Self {
        Destination::Parts(PartFiles {
            splitter: Some(PartSplitter::new(max_part_size, WriterOptions::default())),
            base,
            inputs: inputs.iter().map(|p| p.to_path_buf()).collect(),
            read: FilesRead::default(),
            kept: Vec::new(),
            staged: Vec::new(),
        })
    }

    /// Puts the part files in place, once every destination of the build is complete: a
    /// build that fails on the way leaves no part of it and every earlier file as it was.
    fn commit(self) -> Result<(), Error> {
        match self {
            Destination::Parts(parts) => parts
                .staged
                .into_iter()
                .try_for_each(|(staged, _)| staged.commit()),
            Destination::Stream(_) => Ok(()),
        }
    }

    /// Refuses to go on when the output is one of the files the extraction reads, which
    /// it has just opened: before any byte of a streamed file is written; for parts,
    /// before each part is written.
    fn refuse_files_read(&mut self, read: &FilesRead) -> Result<(), Error> {
        match self {
            Destination::Stream(stream) => refuse_files_read(stream.path, read),
            Destination::Parts(parts) => {
                parts.read = read.clone();
                Ok(())
            }
        }
    }

    fn push(&mut self, record: Record) -> Result<(), Error> {
        match self {
            Destination::Stream(stream) => stream.push(record),
            Destination::Parts(parts) => parts.push(record),
        }
    }

    /// As [`push`](Self::push) for a range record lent by the extraction.
    fn push_range(&mut self, range: &RangeRecord) -> Result<(), Error> {
        match self {
            Destination::Stream(stream) => stream.push_range(range),
            Destination::Parts(parts) => parts.push(Record::Range(range.clone())),
        }
    }

    /// Writes what is left; `records` is the number of records given.
    fn finish(&mut self, records: u64) -> Result<Written, Error> {
        match self {
            Destination::Stream(stream) => stream.finish(records),
            Destination::Parts(parts) => parts.finish(records),
        }
    }

    /// The parts kept in memory.
    fn into_kept(self) -> Vec<Vec<u8>> {
        match self {
            Destination::Parts(parts) => parts.kept,
            Destination::Stream(_) => Vec::new(),
        }
    }
}

impl StreamFile<'_> {
    fn push(&mut self, record: Record) -> Result<(), Error> {
        self.writer.push(record)?;
        self.write_completed()
    }

    fn push_range(&mut self, range: &RangeRecord) -> Result<(), Error> {
        self.writer.add_range(range)?;
        self.write_completed()
    }

    /// Writes out what the writer completed.
    fn write_completed(&mut self) -> Result<(), Error> {
        let chunk = self.writer.take_written();
        self.write(&chunk)
    }

    /// Writes what is left; `records` is the number of records given.
    fn finish(&mut self, records: u64) -> Result<Written, Error> {
        let rest = std::mem::take(&mut self.writer).finish()?;
        self.write(&rest)?;
        Ok(Written {
            records,
            bytes: self.bytes,
            parts: 1,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.bytes += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.name, e))
    }
}

impl PartFiles {
    fn push(&mut self, record: Record) -> Result<(), Error> {
        // A finished splitter takes no more records.
        if let Some(splitter) = &mut self.splitter {
            if let Some(part) = splitter.push(record)? {
                self.part(part)?;
            }
        }
        Ok(())
    }

    /// Writes or keeps the last parts; `records` is the number of records given.
    fn finish(&mut self, records: u64) -> Result<Written, Error> {
        if let Some(splitter) = self.splitter.take() {
            for part in splitter.finish()? {
                self.part(part)?;
            }
        }
        let kept = self.kept.iter().map(|p| p.len() as u64);
        Ok(Written {
            records,
            bytes: kept.chain(self.staged.iter().map(|&(_, size)| size)).sum(),
            parts: self.kept.len() + self.staged.len(),
        })
    }

    /// Writes or keeps one complete part.
    fn part(&mut self, part: Vec<u8>) -> Result<(), Error> {
        match &self.base {
            Some(base) => {
                let mut name = base.clone().into_os_string();
                name.push(format!(".{}", self.staged.len()));
                let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
                refuse_same_file(Path::new(&name), &inputs)?;
                refuse_files_read(Path::new(&name), &self.read)?;
                let staged = Output::create(Path::new(&name))?.stage(|w| w.write_all(&part))?;
                self.staged.push((staged, part.len() as u64));
            }
            None => self.kept.push(part),
        }
        Ok(())
    }
}

/// The counts of one extraction.
struct Extracted {
    stats: ExtractStats,
    ranges: Written,
    pads: Option<Written>,
}

/// Extracts the ranges of `elf` into `ranges` and, when given, its return pads into
/// `pads`. Fails on an empty range file unless `allow_empty`.
fn extract_into(
    elf: &Path,
    options: &ExtractOptions,
    ranges: &mut Destination<'_>,
    pads: Option<&mut Destination<'_>>,
    allow_empty: bool,
) -> Result<Extracted> {
    let image = match pads {
        Some(_) => Some(symblob_build::input::open(elf)?),
        None => None,
    };
    let name = elf.display().to_string();
    let mut maker = image
        .as_deref()
        .map(|bytes| PadMaker::new(bytes, &name))
        .transpose()?;
    let mut failure: Option<Error> = None;
    let (mut range_count, mut pad_count) = (0u64, 0u64);
    let mut pad_sink = |p, failure: &mut Option<Error>, pads: &mut Option<&mut Destination>| {
        if let Some(d) = pads.as_deref_mut() {
            pad_count += 1;
            if let Err(e) = d.push(Record::ReturnPad(p)) {
                failure.get_or_insert(e);
            }
        }
    };
    // Both the check of the files read and the records reach the destinations.
    let (ranges, pads) = (RefCell::new(ranges), RefCell::new(pads));
    let mut check = |read: &FilesRead| {
        ranges.borrow_mut().refuse_files_read(read)?;
        match pads.borrow_mut().as_deref_mut() {
            Some(pads) => pads.refuse_files_read(read),
            None => Ok(()),
        }
    };
    let stats = extract::ranges_each_checked(elf, options, &mut check, &mut |r| {
        if failure.is_some() {
            return;
        }
        if let Some(m) = maker.as_mut() {
            m.push(r.clone(), &mut |p| {
                pad_sink(p, &mut failure, &mut pads.borrow_mut())
            });
        }
        range_count += 1;
        if let Err(e) = ranges.borrow_mut().push_range(r) {
            failure.get_or_insert(e);
        }
    })?;
    let (ranges, mut pads) = (ranges.into_inner(), pads.into_inner());
    if let Some(m) = maker {
        m.finish(&mut |p| pad_sink(p, &mut failure, &mut pads));
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    if range_count == 0 && !allow_empty {
        return Err(Failure::Message(format!(
            "{name}: no functions found (DWARF, .gopclntab, .symtab, .dynsym); \
             pass --allow-empty to write an empty symbfile"
        )));
    }
    Ok(Extracted {
        stats,
        ranges: ranges.finish(range_count)?,
        pads: pads.map(|d| d.finish(pad_count)).transpose()?,
    })
}

/// The part files of one symbfile, in order.
pub type Parts = Vec<Vec<u8>>;

/// The two symbfiles of an executable, in memory, and the files read to make them.
pub struct ExtractedParts {
    /// The parts of the range file.
    pub ranges: Parts,
    /// The parts of the return-pad file.
    pub pads: Parts,
    /// Every file read (the ELF and the files its DWARF was found in).
    pub files_read: FilesRead,
}

/// Extracts the range file and the return-pad file of `elf` in memory, each cut into
/// parts of at most `max_part_size` bytes (one part without a limit).
pub fn extract_parts(
    elf: &Path,
    extract: &ExtractArgs,
    max_part_size: Option<u64>,
) -> Result<ExtractedParts> {
    let mut ranges = Destination::parts(max_part_size, None, &[]);
    let mut pads = Destination::parts(max_part_size, None, &[]);
    let extracted = extract_into(elf, &extract.options(), &mut ranges, Some(&mut pads), false)?;
    for warning in &extracted.stats.warnings {
        note!("warning: {warning}");
    }
    Ok(ExtractedParts {
        ranges: ranges.into_kept(),
        pads: pads.into_kept(),
        files_read: extracted.stats.files_read,
    })
}

/// `symblob symbfile build`.
pub fn build(args: BuildArgs) -> Result<()> {
    let mut inputs = vec![args.elf.as_path()];
    inputs.extend(args.extract.inputs());
    refuse_same_file(&args.output, &inputs)?;
    if let Some(pads) = &args.return_pads {
        refuse_same_file(pads, &inputs)?;
        if same_output(pads, &args.output) {
            return Err(Failure::Message(format!(
                "the range file and the return-pad file are both {}",
                output_name(pads)
            )));
        }
    }
    let options = args.extract.options();
    let input_name = args.elf.display().to_string();
    let progress = Progress::start(args.quiet, true, format!("symbfile: reading {input_name}"));
    let extracted = match args.max_part_size {
        Some(n) => {
            if args.output == Path::new("-") || args.return_pads.as_deref() == Some(Path::new("-"))
            {
                return Err(Failure::Message(
                    "--max-part-size writes files <output>.0, <output>.1, …: `-` cannot be one"
                        .into(),
                ));
            }
            let mut ranges = Destination::parts(Some(n), Some(args.output.clone()), &inputs);
            let mut pads = args
                .return_pads
                .clone()
                .map(|p| Destination::parts(Some(n), Some(p), &inputs));
            let extracted = extract_into(
                &args.elf,
                &options,
                &mut ranges,
                pads.as_mut(),
                args.allow_empty,
            )?;
            ranges.commit()?;
            pads.map(Destination::commit).transpose()?;
            extracted
        }
        None => stream_both(&args, &options)?,
    };
    let mut summary = format!(
        "symbfile: read {input_name} ({}), wrote {}: {} ranges, {} bytes{}",
        read_from(&extracted.stats),
        output_name(&args.output),
        extracted.ranges.records,
        extracted.ranges.bytes,
        parts_note(&extracted.ranges),
    );
    if let (Some(path), Some(pads)) = (&args.return_pads, &extracted.pads) {
        summary.push_str(&format!(
            "; {}: {} return pads, {} bytes{}",
            output_name(path),
            pads.records,
            pads.bytes,
            parts_note(pads),
        ));
    }
    let warnings: Vec<String> = extracted
        .stats
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    progress.finish(&warnings, &summary);
    Ok(())
}

/// Both files streamed to their outputs, each replaced only when all went well.
fn stream_both(args: &BuildArgs, options: &ExtractOptions) -> Result<Extracted> {
    let ranges_out = Output::create(&args.output)?;
    let pads_out = args
        .return_pads
        .as_deref()
        .map(Output::create)
        .transpose()?;
    write_through(ranges_out, |r| {
        let mut ranges = Destination::stream(r, &args.output);
        match (pads_out, &args.return_pads) {
            (Some(pads_out), Some(pads_path)) => write_through(pads_out, |p| {
                let mut pads = Destination::stream(p, pads_path);
                let pads = Some(&mut pads);
                extract_into(&args.elf, options, &mut ranges, pads, args.allow_empty)
            }),
            _ => extract_into(&args.elf, options, &mut ranges, None, args.allow_empty),
        }
    })
}

/// Runs `work` on the writer of `output`; the output is completed (a regular file renamed
/// into place) only when `work` succeeds, and `work`'s own error is the one reported.
fn write_through<T>(output: Output, work: impl FnOnce(&mut dyn Write) -> Result<T>) -> Result<T> {
    let mut result = None;
    let written = output.write_with(|w| {
        let r = work(w);
        let failed = r.is_err();
        result = Some(r);
        if failed {
            Err(io::Error::other("abandoned after an error"))
        } else {
            Ok(())
        }
    });
    match (result, written) {
        (Some(Err(e)), _) => Err(e),
        (_, Err(e)) => Err(e.into()),
        (Some(Ok(value)), Ok(())) => Ok(value),
        (None, Ok(())) => Err(Failure::Message("the output was never written".into())),
    }
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
