//! The symbfiles of an executable, made and written in one pass: range records streamed
//! from the extraction into the writer, return pads made from them function by function,
//! each file streamed to its output or cut into self-contained parts as it grows
//! ([`parts`](crate::symbfile::parts)), or kept in memory for an upload.
//!
//! Files are written by [`crate::output::build_outputs`]: an output that is an input is
//! refused before anything is read, one that is a file the extraction found by itself
//! before anything is written, and nothing is put in place unless every file of the build
//! is complete.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::extract::{self, ExtractOptions, ExtractStats};
use crate::input::FilesRead;
use crate::model::{RangeRecord, ReturnPadRecord};
use crate::output::{build_outputs, refuse_same_file, Outputs};
use crate::retpads::PadMaker;
use crate::symbfile::parts::PartSplitter;
use crate::symbfile::{Record, SymbfileWriter, WriterOptions};
use crate::{Error, Result, Warning};

/// Where the symbfiles of [`write_files`] go.
#[derive(Clone, Copy, Debug)]
pub struct Targets<'p> {
    /// The range file: a file (replaced atomically), a FIFO or device (written directly),
    /// or `-` for standard output.
    pub ranges: &'p Path,
    /// The return-pad file, when wanted; as [`Self::ranges`].
    pub return_pads: Option<&'p Path>,
    /// Cut each file into self-contained parts of at most this many bytes, written as
    /// `<path>.0`, `<path>.1`, … (a range file is cut only before a top-level function);
    /// `None` streams each file whole to its path.
    pub max_part_size: Option<u64>,
}

/// What one symbfile received and how it was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Records written.
    pub records: u64,
    /// Bytes written, all parts together.
    pub bytes: u64,
    /// Files written: 1, or the number of parts.
    pub parts: usize,
}

/// What [`write_files`] read and wrote.
#[derive(Clone, Debug)]
pub struct Built {
    /// What each source contributed, the warnings and the files read.
    pub stats: ExtractStats,
    /// The range file.
    pub ranges: Written,
    /// The return-pad file, when one was asked for.
    pub return_pads: Option<Written>,
}

/// The part files of one symbfile, in order.
pub type Parts = Vec<Vec<u8>>;

/// The two symbfiles of an executable in memory, from [`extract_parts`].
#[derive(Clone, Debug)]
pub struct ExtractedParts {
    /// The parts of the range file.
    pub ranges: Parts,
    /// The parts of the return-pad file.
    pub pads: Parts,
    /// What was missing or wrong but did not stop the extraction.
    pub warnings: Vec<Warning>,
    /// Every file read (the ELF and the files its DWARF was found in).
    pub files_read: FilesRead,
}

/// Extracts the range records of the ELF at `elf` (and its return pads when
/// `targets.return_pads` is given) and writes them to `targets`. Once every record is
/// made, `accept` is given the number of range records and may refuse the files (an empty
/// range file, say): then nothing is put in place, as for any other error.
///
/// # Errors
///
/// An output is an input or a file the extraction read, the extraction failed, an output
/// cannot be written, or `accept` refused.
pub fn write_files<E: From<Error>>(
    elf: &Path,
    options: &ExtractOptions,
    targets: &Targets<'_>,
    accept: impl FnOnce(u64) -> Result<(), E>,
) -> Result<Built, E> {
    let mut inputs = vec![elf];
    inputs.extend(options.debug_files.paths());
    let mut named = vec![targets.ranges];
    named.extend(targets.return_pads);
    match targets.max_part_size {
        None => build_outputs(&inputs, &named, |outputs| {
            let ranges = Destination::stream(0, targets.ranges);
            let pads = targets.return_pads.map(|p| Destination::stream(1, p));
            extract_with(elf, options, &mut Sinks::new(outputs, ranges, pads), accept)
        }),
        Some(limit) => {
            // The paths named are not written, their parts are; an input named as one is
            // still a mistake.
            for path in &named {
                refuse_same_file(path, &inputs)?;
            }
            build_outputs(&inputs, &[], |outputs| {
                let ranges = Destination::parts(Some(limit), Some(targets.ranges));
                let pads = targets
                    .return_pads
                    .map(|p| Destination::parts(Some(limit), Some(p)));
                extract_with(elf, options, &mut Sinks::new(outputs, ranges, pads), accept)
            })
        }
    }
}

/// Extracts the range file and the return-pad file of the ELF at `elf` in memory, each
/// cut into parts of at most `max_part_size` bytes (one part without a limit), for an
/// upload. `accept` is given the number of range records, as in [`write_files`].
///
/// # Errors
///
/// The extraction failed or `accept` refused.
pub fn extract_parts<E: From<Error>>(
    elf: &Path,
    options: &ExtractOptions,
    max_part_size: Option<u64>,
    accept: impl FnOnce(u64) -> Result<(), E>,
) -> Result<ExtractedParts, E> {
    build_outputs(&[], &[], |outputs| {
        let ranges = Destination::parts(max_part_size, None);
        let pads = Destination::parts(max_part_size, None);
        let mut sinks = Sinks::new(outputs, ranges, Some(pads));
        let built = extract_with(elf, options, &mut sinks, accept)?;
        let Sinks { ranges, pads, .. } = sinks;
        Ok(ExtractedParts {
            ranges: ranges.into_kept(),
            pads: pads.map(Destination::into_kept).unwrap_or_default(),
            warnings: built.stats.warnings,
            files_read: built.stats.files_read,
        })
    })
}

/// One range file in memory, from [`extract_ranges`].
#[derive(Clone, Debug)]
pub struct ExtractedRanges {
    /// The range symbfile, whole.
    pub bytes: Vec<u8>,
    /// Range records in it.
    pub records: u64,
    /// What each source contributed, the warnings and the files read.
    pub stats: ExtractStats,
}

/// Extracts the range file of the ELF at `elf` in memory, whole, as [`write_files`] writes
/// it, without return pads: for a separate debug file, whose code sections hold no bytes
/// to make pads from. An ELF without any range gives a file without records.
///
/// # Errors
///
/// The extraction failed.
pub fn extract_ranges(elf: &Path, options: &ExtractOptions) -> Result<ExtractedRanges> {
    build_outputs(&[], &[], |outputs| {
        let ranges = Destination::parts(None, None);
        let mut sinks = Sinks::new(outputs, ranges, None);
        let built = extract_with(elf, options, &mut sinks, |_| Ok::<(), Error>(()))?;
        // Without a size limit the splitter closes one part, at the end.
        let bytes = sinks.ranges.into_kept().into_iter().flatten().collect();
        Ok(ExtractedRanges {
            bytes,
            records: built.ranges.records,
            stats: built.stats,
        })
    })
}

/// Runs the extraction into `sinks`, then lets `accept` see the count of range records,
/// then writes what is left of each file.
fn extract_with<E: From<Error>>(
    elf: &Path,
    options: &ExtractOptions,
    sinks: &mut Sinks<'_>,
    accept: impl FnOnce(u64) -> Result<(), E>,
) -> Result<Built, E> {
    // Return pads need the machine code; the extraction maps the ELF for itself.
    let image = match sinks.pads {
        Some(_) => Some(crate::input::open(elf)?),
        None => None,
    };
    let name = elf.display().to_string();
    let mut maker = image
        .as_deref()
        .map(|bytes| PadMaker::new(bytes, &name))
        .transpose()?;
    // Both the check of the files read and the records reach the sinks.
    let shared = RefCell::new(&mut *sinks);
    let mut check = |read: &FilesRead| shared.borrow_mut().refuse_files_read(read);
    let stats = extract::ranges_each_checked(elf, options, &mut check, &mut |r| {
        let mut sinks = shared.borrow_mut();
        if sinks.failure.is_some() {
            return;
        }
        if let Some(m) = maker.as_mut() {
            m.push(r.clone(), &mut |p| sinks.pad(p));
        }
        sinks.range(r);
    })?;
    if let Some(m) = maker {
        m.finish(&mut |p| sinks.pad(p));
    }
    if let Some(e) = sinks.failure.take() {
        return Err(e.into());
    }
    accept(sinks.range_count)?;
    let ranges = sinks.ranges.finish(sinks.range_count, sinks.outputs)?;
    let return_pads = match &mut sinks.pads {
        Some(pads) => Some(pads.finish(sinks.pad_count, sinks.outputs)?),
        None => None,
    };
    Ok(Built {
        stats,
        ranges,
        return_pads,
    })
}

/// The destinations of one extraction and the outputs they write.
struct Sinks<'o> {
    outputs: &'o mut Outputs,
    ranges: Destination,
    pads: Option<Destination>,
    range_count: u64,
    pad_count: u64,
    /// The first error a record met: the extraction cannot be stopped from its sink, so
    /// the records after it are ignored and the error reported at the end.
    failure: Option<Error>,
}

impl<'o> Sinks<'o> {
    fn new(outputs: &'o mut Outputs, ranges: Destination, pads: Option<Destination>) -> Self {
        Sinks {
            outputs,
            ranges,
            pads,
            range_count: 0,
            pad_count: 0,
            failure: None,
        }
    }

    /// Refuses to go on when an output is one of the files the extraction reads, which
    /// it has just opened: before any byte of a streamed file is written; for parts,
    /// before each part is written.
    fn refuse_files_read(&mut self, read: &FilesRead) -> Result<()> {
        self.outputs.refuse_files_read(read)
    }

    fn range(&mut self, range: &RangeRecord) {
        self.range_count += 1;
        if let Err(e) = self.ranges.push_range(range, self.outputs) {
            self.failure.get_or_insert(e);
        }
    }

    fn pad(&mut self, pad: ReturnPadRecord) {
        if let Some(d) = &mut self.pads {
            self.pad_count += 1;
            if let Err(e) = d.push(Record::ReturnPad(pad), self.outputs) {
                self.failure.get_or_insert(e);
            }
        }
    }
}

/// Where the records of one symbfile go.
enum Destination {
    /// One file, streamed out as each string-table window is written.
    Stream(StreamFile),
    /// Self-contained parts.
    Parts(PartFiles),
}

/// One symbfile written to an output as it is made.
struct StreamFile {
    writer: SymbfileWriter,
    /// The output's index among the build's outputs.
    index: usize,
    /// The output's name in errors (`<stdout>` for `-`).
    name: PathBuf,
    /// Bytes written so far.
    bytes: u64,
}

/// Parts, each written to `<base>.<k>` when complete (put in place with the build's other
/// outputs), or kept in memory (no base).
struct PartFiles {
    /// Taken when the stream ends.
    splitter: Option<PartSplitter>,
    base: Option<PathBuf>,
    kept: Parts,
    /// The sizes of the part files written.
    written: Vec<u64>,
}

impl Destination {
    fn stream(index: usize, path: &Path) -> Self {
        let name = if path == Path::new("-") {
            PathBuf::from("<stdout>")
        } else {
            path.to_path_buf()
        };
        Destination::Stream(StreamFile {
            writer: SymbfileWriter::new(),
            index,
            name,
            bytes: 0,
        })
    }

    fn parts(max_part_size: Option<u64>, base: Option<&Path>) -> Self {
        Destination::Parts(PartFiles {
            splitter: Some(PartSplitter::new(max_part_size, WriterOptions::default())),
            base: base.map(Path::to_path_buf),
            kept: Vec::new(),
            written: Vec::new(),
        })
    }

    fn push(&mut self, record: Record, outputs: &mut Outputs) -> Result<()> {
        match self {
            Destination::Stream(stream) => {
                stream.writer.push(record)?;
                stream.write_completed(outputs)
            }
            Destination::Parts(parts) => parts.push(record, outputs),
        }
    }

    /// As [`push`](Self::push) for a range record lent by the extraction.
    fn push_range(&mut self, range: &RangeRecord, outputs: &mut Outputs) -> Result<()> {
        match self {
            Destination::Stream(stream) => {
                stream.writer.add_range(range)?;
                stream.write_completed(outputs)
            }
            Destination::Parts(parts) => parts.push(Record::Range(range.clone()), outputs),
        }
    }

    /// Writes what is left; `records` is the number of records given.
    fn finish(&mut self, records: u64, outputs: &mut Outputs) -> Result<Written> {
        match self {
            Destination::Stream(stream) => stream.finish(records, outputs),
            Destination::Parts(parts) => parts.finish(records, outputs),
        }
    }

    /// The parts kept in memory.
    fn into_kept(self) -> Parts {
        match self {
            Destination::Parts(parts) => parts.kept,
            Destination::Stream(_) => Vec::new(),
        }
    }
}

impl StreamFile {
    /// Writes out what the writer completed.
    fn write_completed(&mut self, outputs: &mut Outputs) -> Result<()> {
        let chunk = self.writer.take_written();
        self.write(&chunk, outputs)
    }

    /// Writes what is left; `records` is the number of records given.
    fn finish(&mut self, records: u64, outputs: &mut Outputs) -> Result<Written> {
        let rest = std::mem::take(&mut self.writer).finish()?;
        self.write(&rest, outputs)?;
        Ok(Written {
            records,
            bytes: self.bytes,
            parts: 1,
        })
    }

    fn write(&mut self, bytes: &[u8], outputs: &mut Outputs) -> Result<()> {
        self.bytes += bytes.len() as u64;
        outputs
            .writer(self.index)?
            .write_all(bytes)
            .map_err(|e| Error::io(&self.name, e))
    }
}

impl PartFiles {
    fn push(&mut self, record: Record, outputs: &mut Outputs) -> Result<()> {
        // A finished splitter takes no more records.
        if let Some(splitter) = &mut self.splitter {
            if let Some(part) = splitter.push(record)? {
                self.part(part, outputs)?;
            }
        }
        Ok(())
    }

    /// Writes or keeps the last parts; `records` is the number of records given.
    fn finish(&mut self, records: u64, outputs: &mut Outputs) -> Result<Written> {
        if let Some(splitter) = self.splitter.take() {
            for part in splitter.finish()? {
                self.part(part, outputs)?;
            }
        }
        let kept = self.kept.iter().map(|p| p.len() as u64);
        Ok(Written {
            records,
            bytes: kept.chain(self.written.iter().copied()).sum(),
            parts: self.kept.len() + self.written.len(),
        })
    }

    /// Writes or keeps one complete part.
    fn part(&mut self, part: Vec<u8>, outputs: &mut Outputs) -> Result<()> {
        match &self.base {
            Some(base) => {
                let mut name = base.clone().into_os_string();
                name.push(format!(".{}", self.written.len()));
                let index = outputs.add(Path::new(&name))?;
                outputs.write(index, |w| w.write_all(&part))?;
                outputs.close(index)?;
                self.written.push(part.len() as u64);
            }
            None => self.kept.push(part),
        }
        Ok(())
    }
}
