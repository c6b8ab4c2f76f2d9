//! Range records from an executable, as symblib's multi-extractor makes them (spec §5):
//! DWARF first (symblib's walk), then Go `.gopclntab`, `.symtab` and
//! `.dynsym`, merged through a coverage map (spec §5.6).
//!
//! A source, and the documented variant of [`crate::dwarf`]'s walk that symblib's record
//! rules need: it opens its files through the same session (debug file found and
//! checked, split units, dwz supplementary file) and loads the sections the same way, but
//! walks each unit's DIEs by symblib's rules and yields the model's flat
//! [`RangeRecord`]s rather than function groups: one record per range of a function or
//! inlined call, cut where the source file changes, with symblib's names
//! ([`crate::demangle::symblib`]).
//!
//! The one deliberate difference from symblib: a function split into several depth-0
//! records at a change of source file has each piece followed by its own inline records,
//! so none is dropped by the merge (symblib keeps only those of the last piece).
//!
//! Go functions follow symblib: they end where their line table ends (alignment padding
//! before the next function is left out) and carry the first file of their file table.
//! Where symblib reads nothing we still give records: tables older than Go 1.16 give
//! `[entry, next entry)` without a file, big-endian tables are read like little-endian
//! ones, and a function whose name or file table is broken is skipped or has no file,
//! where symblib abandons the whole Go source.
//!
//! Entry points: [`ranges`] (records collected), [`ranges_each`] (records streamed, memory
//! bounded by a batch of units; [`ranges_each_checked`] shows the caller the files read
//! first), [`ranges_from_bytes`] (an image in memory).

mod dwarf;
mod functree;
mod lines;
mod merge;
mod unit_out;
mod walk;

use std::path::Path;

use object::{Object, ObjectSymbol, SymbolKind};

pub use self::dwarf::DwarfStats;
pub use self::merge::SourceStats;
use self::merge::{CoverageMap, SourceMerge};
pub use crate::demangle::symblib::demangle;
use crate::dwarf::load::SectionStore;
use crate::dwarf::session::{self, SplitUnits};
use crate::dwarf::DebugFiles;
use crate::dwarf::Slice;
use crate::elf::file::ElfFile;
use crate::gopclntab::{self, LineSpan};
use crate::input::FilesRead;
pub use crate::model::{LineRow, PadEntry, RangeRecord, ReturnPadRecord};
use crate::{Error, ErrorKind, Location, Result, Warning};

/// What to extract.
#[derive(Clone, Debug, Default)]
pub struct ExtractOptions {
    /// Only DWARF: no Go pclntab, `.symtab` or `.dynsym` records.
    pub dwarf_only: bool,
    /// The files beside the ELF to read the DWARF from, when named.
    pub debug_files: DebugFiles,
}

/// What each source contributed.
#[derive(Clone, Debug, Default)]
pub struct ExtractStats {
    /// Units of the DWARF pass.
    pub dwarf: DwarfStats,
    /// Per source, in priority order: `dwarf`, `go`, `symtab`, `dynsym` (sources that did
    /// not run are absent).
    pub sources: Vec<(&'static str, SourceStats)>,
    /// What was missing or wrong but did not stop the extraction (a debug file that does
    /// not match under `debug_file_mismatch_ok`, no DWARF, a missing split unit or
    /// supplementary file, a unit list that ends in bytes that do not parse), in the order
    /// found.
    pub warnings: Vec<Warning>,
    /// Every file read: the ELF, then the files its DWARF was found in (debug file,
    /// supplementary file, split DWARF package or `.dwo` files), each once; empty for an
    /// image in memory ([`ranges_from_bytes`]).
    pub files_read: FilesRead,
}

/// The records and what each source contributed.
#[derive(Clone, Debug, Default)]
pub struct Extraction {
    /// Range records in output order: each depth-0 record followed by its inline records.
    pub records: Vec<RangeRecord>,
    /// Counts.
    pub stats: ExtractStats,
}

/// Extracts the range records of the ELF file at `path` (its DWARF may live in a separate
/// debug file, found as the Lidia DWARF build finds it).
pub fn ranges(path: &Path, options: &ExtractOptions) -> Result<Extraction> {
    let mut records = Vec::new();
    let stats = ranges_each(path, options, &mut |r| records.push(r.clone()))?;
    Ok(Extraction { records, stats })
}

/// As [`ranges`], handing each record to `sink` in output order as soon as it is final
/// instead of collecting them: memory stays bounded by a batch of units, whatever the
/// size of the executable. The record lent to `sink` is refilled for the next one (no
/// allocation per record); clone it to keep it.
pub fn ranges_each(
    path: &Path,
    options: &ExtractOptions,
    sink: &mut dyn FnMut(&RangeRecord),
) -> Result<ExtractStats> {
    ranges_each_checked(path, options, &mut |_| Ok(()), sink)
}

/// As [`ranges_each`], first handing `check` the files the extraction reads (the list
/// [`ExtractStats::files_read`] returns), once they are all opened and before the first
/// record: a caller that writes files as records arrive refuses there to replace one of
/// them ([`crate::output::refuse_files_read`]). An error of `check` ends the extraction.
pub fn ranges_each_checked(
    path: &Path,
    options: &ExtractOptions,
    check: &mut dyn FnMut(&FilesRead) -> Result<()>,
    sink: &mut dyn FnMut(&RangeRecord),
) -> Result<ExtractStats> {
    let bytes = crate::input::open(path)?;
    session::open(path, &bytes, &options.debug_files, |s| {
        check(&s.files_read)?;
        let dwarf = DwarfInput {
            dwarf: &s.dwarf,
            headers: &s.headers,
            sup_headers: &s.sup_headers,
            split_units: &s.split_units,
        };
        let mut stats =
            extract(&bytes, s.obj, &dwarf, options, sink).map_err(|e| e.with_input(path))?;
        stats.warnings = s.warnings;
        stats.files_read = s.files_read;
        Ok(stats)
    })
}

/// Extracts the range records of an ELF image in memory (its own DWARF only); `name`
/// names it in errors.
pub fn ranges_from_bytes(elf: &[u8], name: &str, options: &ExtractOptions) -> Result<Extraction> {
    let obj = parse(elf, name)?;
    let store = SectionStore::load(&obj, Path::new(name))?;
    let dwarf = store.dwarf();
    let mut cut = Vec::new();
    let headers = session::unit_headers(&dwarf, &mut cut);
    let input = DwarfInput {
        dwarf: &dwarf,
        headers: &headers,
        sup_headers: &[],
        split_units: &SplitUnits::new(),
    };
    let mut records = Vec::new();
    let mut stats = extract(elf, &obj, &input, options, &mut |r| records.push(r.clone()))
        .map_err(|e| e.with_input(name))?;
    // A cut unit list is a warning, as when the extraction reads a file.
    stats.warnings.extend(cut.into_iter().map(|kind| Warning {
        input: name.into(),
        kind,
    }));
    Ok(Extraction { records, stats })
}

fn parse<'a>(bytes: &'a [u8], name: &str) -> Result<object::File<'a>> {
    let obj = object::File::parse(bytes)
        .map_err(|e| Error::malformed(name, Location::Whole, "not an ELF file").with_source(e))?;
    if obj.format() != object::BinaryFormat::Elf {
        return Err(Error::new(
            ErrorKind::Unsupported,
            name,
            Location::Whole,
            "not an ELF file",
        ));
    }
    Ok(obj)
}

/// The DWARF the extraction walks.
struct DwarfInput<'i, 'a> {
    dwarf: &'i gimli::Dwarf<Slice<'a>>,
    headers: &'i [gimli::UnitHeader<Slice<'a>>],
    sup_headers: &'i [gimli::UnitHeader<Slice<'a>>],
    split_units: &'i SplitUnits<'a>,
}

/// The records of every source, merged; an error is about the ELF as a whole, unnamed.
fn extract(
    bytes: &[u8],
    obj: &object::File<'_>,
    input: &DwarfInput<'_, '_>,
    options: &ExtractOptions,
    sink: &mut dyn FnMut(&RangeRecord),
) -> Result<ExtractStats> {
    let mut map = CoverageMap::new(obj)?;
    let mut stats = ExtractStats::default();
    let mut merge = SourceMerge::default();
    stats.dwarf = dwarf::dwarf_records(input, &mut |r| {
        if merge.accept(&mut map, r) {
            sink(r);
        }
    });
    stats.sources.push(("dwarf", merge.stats));
    if options.dwarf_only {
        return Ok(stats);
    }
    let others = [
        ("go", go_records(bytes)),
        ("symtab", symbol_records(obj.symbols())),
        ("dynsym", symbol_records(obj.dynamic_symbols())),
    ];
    for (source, records) in others {
        let mut merge = SourceMerge::default();
        for r in records {
            if merge.accept(&mut map, &r) {
                sink(&r);
            }
        }
        stats.sources.push((source, merge.stats));
    }
    Ok(stats)
}

/// Depth-0 records of the Go functions as symblib makes them: `[entry, end of the line
/// table)` with the first file of the file table, functions with an empty line table or a
/// bad line number skipped. Tables older than Go 1.16, which symblib does not read, give
/// `[entry, next entry)` without a file (see the module documentation).
fn go_records(bytes: &[u8]) -> Vec<RangeRecord> {
    let mut out = Vec::new();
    let Ok(elf) = ElfFile::parse(bytes) else {
        return out;
    };
    if elf.section_by_name(b".gopclntab").is_none() {
        return out;
    }
    // A table that cannot be read gives no records, as a failed source does in symblib.
    let _ = gopclntab::for_each_function(&elf, |f| {
        let Ok(func) = std::str::from_utf8(f.name) else {
            return;
        };
        let (end, file) = match f.line_span() {
            LineSpan::Range { end, file } => (end, file),
            LineSpan::Skipped => return,
            LineSpan::Unknown => (f.end, None),
        };
        if end <= f.entry {
            return;
        }
        let mut record = symbol_record(f.entry, end - f.entry, func.to_string());
        record.file = file.map(str::to_string);
        out.push(record);
    });
    out
}

/// Depth-0 records of the text symbols with an address and a size and a UTF-8 name.
fn symbol_records<'d: 'f, 'f>(
    symbols: impl Iterator<Item = object::Symbol<'d, 'f>>,
) -> Vec<RangeRecord> {
    symbols
        .filter(|s| s.kind() == SymbolKind::Text && s.address() != 0 && s.size() != 0)
        .filter_map(|s| {
            Some(symbol_record(
                s.address(),
                s.size(),
                demangle(s.name().ok()?),
            ))
        })
        .collect()
}

fn symbol_record(va: u64, length: u64, func: String) -> RangeRecord {
    RangeRecord {
        va,
        length,
        func,
        file: None,
        call_file: None,
        call_line: None,
        depth: 0,
        lines: Vec::new(),
    }
}
