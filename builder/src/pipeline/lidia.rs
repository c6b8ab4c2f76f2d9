//! Lidia files from an ELF file: Pyroscope's `CreateLidia`, byte for byte (spec 12), and
//! the DWARF build behind [`ElfOptions::dwarf`] (the DWARF source's function groups given
//! to the writer, [`LidiaWriter::add_groups`]).

use std::path::Path;

use crate::dwarf::{build_groups, DwarfOptions, DwarfStats, GroupContents};
use crate::elf::file::ElfFile;
use crate::elf::symbols_go as symbols;
use crate::gopclntab::{self, PclntabError};
use crate::input::FilesRead;
use crate::lidia::{Flags, Layout, LidiaWriter, RangeSpec};
use crate::{output, Error, ErrorKind, Location, Progress, Result, Warning};

/// What to read from the ELF file and what to store, in three groups, each handed only
/// to the part that uses it: the symbol sources, the DWARF session's options (a DWARF
/// build when present) and the Lidia writer's flags. [`Default`] is Go's default:
/// symbols and `.gopclntab` on, no DWARF, no files or lines.
#[derive(Clone, Debug, Default)]
pub struct ElfOptions {
    /// Which symbol tables are read.
    pub symbols: SymbolSources,
    /// Build from DWARF (inline frames, files, lines) with these options instead of from
    /// the symbols alone; `None` is Pyroscope's symbol-only build.
    pub dwarf: Option<DwarfOptions>,
    /// What the Lidia file stores.
    pub lidia: Flags,
    /// Told how far a DWARF build is; the library draws nothing.
    pub progress: Progress,
}

/// Which symbol sources a build reads. [`Default`] reads both, as Go does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolSources {
    /// `.symtab` (or `.dynsym`) functions: by Go's `debug/elf` rules in a symbol-only
    /// build (Go's `WithSymtab(false)` turns it off); in a DWARF build, the names of
    /// depth-0 ranges and ranges for code DWARF does not describe, by LLVM's rules.
    pub symtab: bool,
    /// Go `.gopclntab` functions (symbol-only builds; Go's `WithParseGoPclntab(false)`
    /// turns it off). With it, an ELF without a `.text` section is an error, as in Go.
    pub gopclntab: bool,
}

impl Default for SymbolSources {
    fn default() -> Self {
        SymbolSources {
            symtab: true,
            gopclntab: true,
        }
    }
}

impl ElfOptions {
    /// Options of a DWARF build with `dwarf`, the other fields at their defaults.
    pub fn with_dwarf(dwarf: DwarfOptions) -> Self {
        ElfOptions {
            dwarf: Some(dwarf),
            ..ElfOptions::default()
        }
    }

    /// Options of a DWARF build with `dwarf` that stores files and lines (`lidia build
    /// --dwarf --files --lines`), the symbol sources at their defaults.
    pub fn dwarf_with_files_and_lines(dwarf: DwarfOptions) -> Self {
        ElfOptions {
            lidia: Flags::FILES_AND_LINES,
            ..ElfOptions::with_dwarf(dwarf)
        }
    }

    /// What a DWARF build's groups must hold for the writer: symbol-table names and
    /// ranges, and the rows the stored lines or files need.
    pub(crate) fn group_contents(&self) -> GroupContents {
        GroupContents {
            symtab: self.symbols.symtab,
            gsym_rules: false,
            lines: self.lidia.lines,
            files: self.lidia.files,
            touching_apart: false,
        }
    }
}

/// What [`write_from_elf`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Sizes and counts of the file written.
    pub layout: Layout,
    /// The warnings of the build and the files it read.
    pub report: BuildReport,
}

/// What a build read beside the ranges it found: [`collect_with_report`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Non-fatal problems of a DWARF build (see [`DwarfStats::warnings`]); empty
    /// for symbol builds.
    pub warnings: Vec<Warning>,
    /// Every file read: the ELF alone for a symbol build; for a DWARF build also the
    /// files it found by itself (see [`DwarfStats::files_read`]), which no output
    /// may replace.
    pub files_read: FilesRead,
    /// The ranges each source gave, in the order read: for a DWARF build `dwarf` (the
    /// DWARF's functions and inline frames) then `symbols` (symbol-table functions where
    /// DWARF has none, and ranges for line rows no function covers); for a symbol build
    /// `symbols` (`.symtab`/`.dynsym`) and `gopclntab`, each when enabled.
    pub sources: Vec<(&'static str, usize)>,
}

/// Builds the Lidia file of the ELF at `path` in memory.
pub fn build_from_elf(path: &Path, options: &ElfOptions) -> Result<Vec<u8>> {
    let input = crate::input::open(path)?;
    Ok(collect_from_elf(path, &input, options)?.finish())
}

/// Builds the Lidia file of the ELF at `path` and writes it to `out` as
/// [`output::build_outputs`] does (atomically for a regular file: on any error `out` is left as it
/// was). An `out` that is the same file as an input is refused before anything is read;
/// one that is a file the DWARF build found by itself (a debug file, a split DWARF file,
/// a supplementary file) before anything is written.
pub fn write_from_elf(path: &Path, out: &Path, options: &ElfOptions) -> Result<Stats> {
    let mut inputs = vec![path];
    if let Some(dwarf) = &options.dwarf {
        inputs.extend(dwarf.debug_files.paths());
    }
    output::build_outputs(&inputs, &[out], |outputs| {
        let input = crate::input::open(path)?;
        let (writer, report) = collect_with_report(path, &input, options)?;
        outputs.refuse_files_read(&report.files_read)?;
        let layout = writer.layout();
        outputs.write(0, |w| writer.write_to(w))?;
        Ok(Stats { layout, report })
    })
}

/// Adds the ranges of the ELF `data` (read from `path`) to a new writer, in Go's order:
/// symbols in table order, then `.gopclntab` functions in functab order. The warnings of
/// a DWARF build are not returned here: [`write_from_elf`], [`collect_with_report`] and
/// [`collect_dwarf`] return them.
pub fn collect_from_elf(path: &Path, data: &[u8], options: &ElfOptions) -> Result<LidiaWriter> {
    collect_with_report(path, data, options).map(|(writer, _)| writer)
}

/// [`collect_from_elf`], with the warnings of a DWARF build and the files read.
pub fn collect_with_report(
    path: &Path,
    data: &[u8],
    options: &ElfOptions,
) -> Result<(LidiaWriter, BuildReport)> {
    let mut writer = LidiaWriter::new(options.lidia);
    let name = path.display().to_string();
    let elf = ElfFile::parse(data).map_err(|e| e.with_input(&name))?;
    if options.dwarf.is_some() {
        let stats = collect_dwarf(path, data, options, &mut writer)?;
        let report = BuildReport {
            warnings: stats.warnings,
            files_read: stats.files_read,
            sources: vec![
                ("dwarf", stats.dwarf_ranges),
                ("symbols", stats.fallback_ranges),
            ],
        };
        return Ok((writer, report));
    }
    let enabled = options.symbols;
    let mut sources = Vec::new();
    if enabled.symtab {
        let table = symbols::read(&elf)
            .map_err(|e| Error::malformed(&name, Location::Whole, "").with_source(e))?;
        for sym in table.iter().flat_map(|t| t.functions()) {
            writer.add(&RangeSpec {
                va: sym.value,
                // Go's Range.Length is a uint32.
                length: sym.size & 0xFFFF_FFFF,
                ..symbol_range(sym.name)
            });
        }
        sources.push(("symbols", writer.len()));
    }
    if enabled.gopclntab {
        let before = writer.len();
        gopclntab::for_each_function(&elf, |f| {
            writer.add(&RangeSpec {
                va: f.entry,
                length: f.end.wrapping_sub(f.entry) & 0xFFFF_FFFF,
                ..symbol_range(f.name)
            });
        })
        .map_err(|e| match e {
            PclntabError::NoText => Error::new(
                ErrorKind::Missing,
                &name,
                Location::Whole,
                "no .text section, which reading .gopclntab requires (as in Pyroscope); \
                 build without .gopclntab to skip it",
            ),
            PclntabError::Other(e) => e.with_input(&name),
        })?;
        sources.push(("gopclntab", writer.len() - before));
    }
    let report = BuildReport {
        warnings: Vec::new(),
        files_read: FilesRead::of_elf(path),
        sources,
    };
    Ok((writer, report))
}

/// Adds the ranges of the ELF `data` (read from `path`) to `writer`: DWARF functions and
/// inlined calls with files and lines, and symbol-table ranges for code DWARF lacks, in
/// a deterministic order. `options.dwarf` (the default [`DwarfOptions`] when `None`),
/// `symbols.symtab`, the writer's flags (which decide whether rows are read) and
/// `progress` apply; see [`crate::dwarf`]. Returns what was found, with the warnings of
/// units that could not be read.
pub fn collect_dwarf(
    path: &Path,
    data: &[u8],
    options: &ElfOptions,
    writer: &mut LidiaWriter,
) -> Result<DwarfStats> {
    let default = DwarfOptions::default();
    let dwarf = options.dwarf.as_ref().unwrap_or(&default);
    build_groups(
        path,
        data,
        dwarf,
        options.group_contents(),
        &options.progress,
        |groups, _| writer.add_groups(groups),
    )
}

/// A depth-0 range with no file, call site or lines: what every symbol becomes.
fn symbol_range(function: &[u8]) -> RangeSpec<'_> {
    RangeSpec {
        va: 0,
        length: 0,
        depth: 0,
        function,
        file: b"",
        call_file: b"",
        call_line: 0,
        lines: &[],
    }
}
