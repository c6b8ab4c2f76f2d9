//! Lidia files from an ELF file: Pyroscope's `CreateLidia`, byte for byte (spec 12), and
//! the DWARF builder behind [`ElfOptions::dwarf`].

use std::path::{Path, PathBuf};

use super::dwarf;
use super::writer::{Flags, Layout, LidiaWriter, RangeSpec};
use crate::dwarf::DwarfOptions;
use crate::elf::file::ElfFile;
use crate::elf::symbols_go as symbols;
use crate::gopclntab::{self, PclntabError};
use crate::{output, Error, Location, Progress, Result, Warning};

/// What to read from the ELF file and what to store. [`Default`] is Go's default:
/// symbols and `.gopclntab` on, everything else off.
///
/// The fields fall into three groups, each handed to the part that uses it: the symbol
/// sources of the Pyroscope-compatible path ([`ElfOptions::symbol_sources`]), the DWARF
/// session's options ([`ElfOptions::dwarf_options`]) and the writer's flags
/// ([`ElfOptions::flags`]).
#[derive(Clone, Debug)]
pub struct ElfOptions {
    /// Read `.symtab` (or `.dynsym`) functions; Go's `WithSymtab(false)` turns it off.
    pub symtab: bool,
    /// Read Go `.gopclntab` functions; Go's `WithParseGoPclntab(false)` turns it off.
    /// With it, an ELF without a `.text` section is an error, as in Go.
    pub gopclntab: bool,
    /// Store file and call-file strings (Go's `WithFiles()`).
    pub files: bool,
    /// Store line tables (Go's `WithLines()`).
    pub lines: bool,
    /// Build from DWARF (inline frames, files, lines) instead of symbols only.
    pub dwarf: bool,
    /// Demangle names (DWARF builds only; symbol names are always stored as they are).
    pub demangle: bool,
    /// A separate debug file to read DWARF from.
    pub debug_file: Option<PathBuf>,
    /// Read a separate debug file even when it does not belong to the binary (its build
    /// ID or `.gnu_debuglink` CRC differs), and a supplementary file named by `sup` whose
    /// build ID is not the one the link names: a warning instead of an error.
    pub debug_file_mismatch_ok: bool,
    /// A split DWARF package (`.dwp`) for the binary's skeleton units (else
    /// `<binary>.dwp` when it exists, else each unit's `.dwo` file).
    pub dwp: Option<PathBuf>,
    /// The supplementary debug file (`dwz -m`) the DWARF refers to (else the file its
    /// `.gnu_debugaltlink` or `.debug_sup` names).
    pub sup: Option<PathBuf>,
    /// Told how far a DWARF build is; the library draws nothing.
    pub progress: Progress,
}

impl Default for ElfOptions {
    fn default() -> Self {
        ElfOptions {
            symtab: true,
            gopclntab: true,
            files: false,
            lines: false,
            dwarf: false,
            demangle: false,
            debug_file: None,
            debug_file_mismatch_ok: false,
            dwp: None,
            sup: None,
            progress: Progress::default(),
        }
    }
}

/// Which symbol sources the Pyroscope-compatible (symbol-only) path reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolSources {
    /// `.symtab` (or `.dynsym`) functions, by Go's `debug/elf` rules.
    pub symtab: bool,
    /// Go `.gopclntab` functions.
    pub gopclntab: bool,
}

impl ElfOptions {
    /// The symbol sources of a symbol-only build.
    pub fn symbol_sources(&self) -> SymbolSources {
        SymbolSources {
            symtab: self.symtab,
            gopclntab: self.gopclntab,
        }
    }

    /// The options of the DWARF session a DWARF build runs: symbol options (`symtab`),
    /// DWARF options (`demangle`, `debug_file`, `debug_file_mismatch_ok`) and what the
    /// writer stores (`files`, `lines`), which decides whether rows are read.
    pub fn dwarf_options(&self) -> DwarfOptions {
        DwarfOptions {
            demangle: self.demangle,
            debug_file: self.debug_file.clone(),
            debug_file_mismatch_ok: self.debug_file_mismatch_ok,
            dwp: self.dwp.clone(),
            sup: self.sup.clone(),
            symtab: self.symtab,
            lines: self.lines,
            files: self.files,
            progress: self.progress.clone(),
        }
    }

    /// The writer flags these options select.
    pub fn flags(&self) -> Flags {
        Flags {
            files: self.files,
            lines: self.lines,
        }
    }
}

/// What [`write_from_elf`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Sizes and counts of the file written.
    pub layout: Layout,
    /// Non-fatal problems of a DWARF build (see [`dwarf::DwarfStats::warnings`]); empty
    /// for symbol builds.
    pub warnings: Vec<Warning>,
}

/// Builds the Lidia file of the ELF at `path` in memory.
pub fn build_from_elf(path: &Path, options: &ElfOptions) -> Result<Vec<u8>> {
    let input = crate::input::open(path)?;
    Ok(collect_from_elf(path, &input, options)?.finish())
}

/// Builds the Lidia file of the ELF at `path` and writes it to `out` as
/// [`output::Output`] does (atomically for a regular file: on any error `out` is left as it
/// was). An `out` that is the same file as an input is refused before anything is read.
pub fn write_from_elf(path: &Path, out: &Path, options: &ElfOptions) -> Result<Stats> {
    let mut inputs = vec![path];
    inputs.extend(options.debug_file.as_deref());
    inputs.extend(options.dwp.as_deref());
    inputs.extend(options.sup.as_deref());
    output::refuse_same_file(out, &inputs)?;
    let input = crate::input::open(path)?;
    let (writer, warnings) = collect_with_warnings(path, &input, options)?;
    let layout = writer.layout();
    output::write_atomic_with(out, |w| writer.write_to(w))?;
    Ok(Stats { layout, warnings })
}

/// Adds the ranges of the ELF `data` (read from `path`) to a new writer, in Go's order:
/// symbols in table order, then `.gopclntab` functions in functab order. The warnings of
/// a DWARF build are not returned here: [`write_from_elf`] and [`dwarf::collect`] return
/// them.
pub fn collect_from_elf(path: &Path, data: &[u8], options: &ElfOptions) -> Result<LidiaWriter> {
    collect_with_warnings(path, data, options).map(|(writer, _)| writer)
}

/// [`collect_from_elf`], with the warnings of a DWARF build.
pub fn collect_with_warnings(
    path: &Path,
    data: &[u8],
    options: &ElfOptions,
) -> Result<(LidiaWriter, Vec<Warning>)> {
    let mut writer = LidiaWriter::new(options.flags());
    let name = path.display().to_string();
    let elf = ElfFile::parse(data).map_err(|p| p.at(&name, Location::Whole))?;
    if options.dwarf {
        let warnings = dwarf::collect(path, data, options, &mut writer)?.warnings;
        return Ok((writer, warnings));
    }
    let sources = options.symbol_sources();
    if sources.symtab {
        let table = symbols::read(&elf).map_err(|m| Error::input(&name, Location::Whole, m))?;
        for sym in table.iter().flat_map(|t| t.functions()) {
            writer.add(&RangeSpec {
                va: sym.value,
                // Go's Range.Length is a uint32.
                length: sym.size & 0xFFFF_FFFF,
                ..symbol_range(sym.name)
            });
        }
    }
    if sources.gopclntab {
        gopclntab::for_each_function(&elf, |f| {
            writer.add(&RangeSpec {
                va: f.entry,
                length: f.end.wrapping_sub(f.entry) & 0xFFFF_FFFF,
                ..symbol_range(f.name)
            });
        })
        .map_err(|e| match e {
            PclntabError::NoText => Error::input(
                &name,
                Location::Whole,
                "no .text section, which reading .gopclntab requires (as in Pyroscope); \
                 build without .gopclntab to skip it",
            ),
            PclntabError::Other(p) => p.at(&name, Location::Whole),
        })?;
    }
    Ok((writer, Vec::new()))
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
