//! `symblob convert`: one source, the model, one writer.
//!
//! The input's format is recognised from its bytes; a symblob format or a GSYM file is
//! read back into the [model](crate::model) ([`crate::readback`]) and written by the target's writer,
//! which reads only the model. An ELF file is built from as the format's own `build`
//! command does (ksym from its symbol table, Lidia from DWARF with files and lines,
//! symbfile by symblib's rules). What the source holds and the target cannot is
//! reported; a source with nothing the target can hold is refused.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use symblob::ksym::LayoutKind;
use symblob::Detected;

use crate::breakpad::Module;
use crate::dwarf::{DebugFiles, DwarfOptions};
use crate::extract::{self, ExtractOptions};
use crate::gsym::GsymOptions;
use crate::input::FilesRead;
use crate::ksym::{BuildOptions, FormatVersion, InputOptions};
use crate::model::{Contents, Model};
use crate::pipeline::lidia::ElfOptions;
use crate::symbfile::SymbfileWriter;
use crate::{readback, Error, ErrorKind, Location, Result};

/// A format `symblob convert` reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An ELF file (read only).
    Elf,
    /// ksym-bin.
    Ksym,
    /// Lidia.
    Lidia,
    /// symbfile (range records, and return pads when the source has them).
    Symbfile,
    /// GSYM v1 (LLVM's `llvm-gsymutil` files and symblob's).
    Gsym,
    /// A Breakpad `.sym` text file.
    Breakpad,
}

impl Format {
    /// The format of `bytes`, as the reader recognises it ([`symblob::detect`]): from its
    /// magic numbers; ksym-bin, which has none, when it parses as one in full. `None` for
    /// anything else.
    pub fn detect(bytes: &[u8]) -> Option<Format> {
        // Text the reader's detection does not know: it starts with its MODULE record.
        if readback::breakpad::looks_like_breakpad(bytes) {
            return Some(Format::Breakpad);
        }
        match symblob::detect(bytes) {
            Detected::Elf => Some(Format::Elf),
            Detected::Blob(symblob::Format::Lidia) => Some(Format::Lidia),
            Detected::Blob(symblob::Format::Symbfile) => Some(Format::Symbfile),
            Detected::Blob(symblob::Format::Gsym) => Some(Format::Gsym),
            // A v2 blob has a magic number: read as one, its errors say what is wrong.
            _ if symblob::ksym::Version::detect(bytes) == symblob::ksym::Version::V2 => {
                Some(Format::Ksym)
            }
            // Detection checks the layout only; a ksym blob to convert must parse whole.
            Detected::Blob(symblob::Format::Ksym)
                if symblob::ksym::KsymBlob::parse(bytes).is_ok() =>
            {
                Some(Format::Ksym)
            }
            _ => None,
        }
    }

    /// The kinds of facts a file of this format can hold.
    pub fn can_hold(self) -> Contents {
        let functions = Contents {
            functions: true,
            inline: true,
            files: true,
            lines: true,
            ..Contents::default()
        };
        match self {
            Format::Elf => Contents {
                symbols: true,
                ..functions
            },
            Format::Ksym => Contents {
                functions: true,
                symbols: true,
                ..Contents::default()
            },
            // Functions, inlined calls, files and lines; no symbol types or aliases.
            Format::Lidia | Format::Gsym => functions,
            // Public symbols (type `T` only) and unwind rules beside the functions.
            Format::Breakpad => Contents {
                symbols: true,
                unwind: true,
                ..functions
            },
            Format::Symbfile => Contents {
                return_pads: true,
                ..functions
            },
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Elf => "ELF",
            Format::Ksym => "ksym-bin",
            Format::Lidia => "Lidia",
            Format::Symbfile => "symbfile",
            Format::Gsym => "GSYM",
            Format::Breakpad => "Breakpad",
        })
    }
}

/// A format `symblob convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// ksym-bin.
    Ksym,
    /// Lidia.
    Lidia,
    /// symbfile.
    Symbfile,
    /// GSYM v1.
    Gsym,
    /// Breakpad `.sym` text.
    Breakpad,
}

impl Target {
    /// The same format as a [`Format`].
    pub fn format(self) -> Format {
        match self {
            Target::Ksym => Format::Ksym,
            Target::Lidia => Format::Lidia,
            Target::Symbfile => Format::Symbfile,
            Target::Gsym => Format::Gsym,
            Target::Breakpad => Format::Breakpad,
        }
    }
}

/// Options of a conversion.
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    /// The ksym-bin layout to write; by default the input blob's own, or the sized layout.
    pub ksym_layout: Option<LayoutKind>,
    /// The ksym-bin format to write (default v1; the layout applies to v1 only).
    pub ksym_format_version: FormatVersion,
    /// For an ELF input: the files beside it to read the DWARF from, when named (debug
    /// file, split DWARF package, supplementary file); found as each build finds them
    /// otherwise.
    pub debug_files: DebugFiles,
}

/// What a conversion produced.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The output file's bytes.
    pub bytes: Vec<u8>,
    /// The input's format.
    pub from: Format,
    /// What the input held (for an ELF input: what the file built from it holds).
    pub held: Contents,
    /// What the input held that the output cannot (empty when nothing was lost).
    pub lost: Vec<String>,
    /// Functions (depth-0 spans) written, or symbols for ksym-bin.
    pub functions: usize,
    /// Inlined calls written.
    pub inlined: usize,
    /// Return pads written.
    pub return_pads: usize,
    /// For an ELF input, the files the build read (the ELF, and the debug, split DWARF
    /// and supplementary files it found): an output must not be one of them
    /// ([`crate::output::refuse_files_read`]). Empty for other inputs.
    pub files_read: FilesRead,
}

/// Converts the file `bytes` (read from `path`, which names it in errors and is read
/// again for an ELF input's separate debug files) into `to`.
///
/// # Errors
///
/// An input in no format `convert` reads, a malformed input (with its offset), an input
/// that holds nothing `to` can hold, and the target writer's limits.
pub fn convert(
    path: &Path,
    bytes: &[u8],
    to: Target,
    options: &ConvertOptions,
) -> Result<Converted> {
    let input = path.display().to_string();
    let Some(from) = Format::detect(bytes) else {
        return Err(Error::new(
            ErrorKind::Unsupported,
            input,
            Location::Whole,
            "not a ksym-bin, Lidia, symbfile, GSYM, Breakpad or ELF file",
        ));
    };
    let mut ksym_layout = options.ksym_layout;
    // A GSYM input's UUID (the executable's build ID) goes to a GSYM output, and to a
    // Breakpad output's identity; a Breakpad input's identity and `m` marks go to a
    // Breakpad output.
    let mut gsym = GsymOptions::default();
    let mut breakpad = None;
    let model = match from {
        Format::Elf => return from_elf(path, bytes, to, options),
        Format::Ksym => {
            let source = readback::ksym::read(bytes, &input)?;
            ksym_layout = ksym_layout.or(Some(source.layout));
            source.model
        }
        Format::Lidia => readback::lidia::read(bytes, &input)?,
        Format::Symbfile => readback::symbfile::read(bytes, &input)?,
        Format::Gsym => {
            let model = readback::gsym::read(bytes, &input)?;
            let header = symblob::gsym::GsymFile::parse(bytes).map(|f| f.header());
            gsym.uuid = header.map_or_else(|_| Vec::new(), |h| h.uuid.to_vec());
            model
        }
        Format::Breakpad => {
            // Only a Breakpad file holds the rows of unwind rules: for any other target
            // they are checked, not kept.
            let options = readback::breakpad::ReadOptions {
                unwind_rows: to == Target::Breakpad,
            };
            let source = readback::breakpad::read_with(bytes, &input, options)?;
            // The code identifier (the build ID) is what a GSYM file's UUID holds.
            gsym.uuid = source
                .module
                .code_id
                .as_deref()
                .and_then(hex_bytes)
                .unwrap_or_default();
            breakpad = Some((source.module, source.multiple));
            source.model
        }
    };
    let breakpad = breakpad.unwrap_or_else(|| {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let module = Module::of_build_id(&name.unwrap_or_default(), &gsym.uuid);
        (module, BTreeSet::new())
    });
    let held = model.contents();
    let mut lost: Vec<String> = held
        .lost_in(&to.format().can_hold())
        .into_iter()
        .map(String::from)
        .collect();
    if to == Target::Ksym && held.functions && model.symbols.is_empty() {
        lost.push(
            "function ends (a ksym-bin symbol ends where the next starts, the last after one byte)"
                .into(),
        );
    }
    if to == Target::Ksym && model.symbols.is_empty() {
        // Counted only here: a pass over every function.
        let unnamed = model.function_spans().filter(|s| s.name.is_empty()).count();
        if unnamed > 0 {
            lost.push(format!("{unnamed} functions without a name"));
        }
    }
    let nothing = match to {
        Target::Ksym | Target::Lidia => !held.functions && !held.symbols,
        Target::Symbfile => model.is_empty(),
        Target::Gsym => !held.functions,
        Target::Breakpad => !held.functions && !held.symbols && !held.unwind,
    };
    if nothing {
        return Err(Error::new(
            ErrorKind::Missing,
            input,
            Location::Whole,
            format!(
                "holds nothing a {} file can hold (it holds {held})",
                to.format()
            ),
        ));
    }
    // The writers number what they refuse as the model's entries: name the input.
    let side = Side {
        ksym_layout,
        ksym_format_version: options.ksym_format_version,
        gsym,
        breakpad,
    };
    let bytes = write(&model, to, &side).map_err(|e| e.with_input(&input))?;
    let functions = match to {
        Target::Ksym => crate::ksym::model::symbols_of(&model).len(),
        Target::Lidia | Target::Symbfile | Target::Gsym | Target::Breakpad => model.functions.len(),
    };
    let inlined = match to {
        Target::Ksym => 0,
        Target::Lidia | Target::Symbfile | Target::Gsym | Target::Breakpad => {
            model.functions.iter().map(|g| g.spans.len() - 1).sum()
        }
    };
    let return_pads = match to {
        Target::Symbfile => model.return_pads.len(),
        Target::Ksym | Target::Lidia | Target::Gsym | Target::Breakpad => 0,
    };
    model.drop_in_parallel();
    Ok(Converted {
        bytes,
        from,
        held,
        lost,
        functions,
        inlined,
        return_pads,
        files_read: FilesRead::default(),
    })
}

/// The bytes of an even number of hexadecimal digits; `None` for anything else.
fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(pair, 16).ok()
        })
        .collect()
}

/// What the writers need beside the model: facts of the input no model field holds.
struct Side {
    /// The ksym-bin layout to write (the input blob's, or the one asked for).
    ksym_layout: Option<LayoutKind>,
    /// The ksym-bin format to write.
    ksym_format_version: FormatVersion,
    /// The GSYM header's UUID.
    gsym: GsymOptions,
    /// The Breakpad module identity and the addresses marked `m`.
    breakpad: (Module, BTreeSet<u64>),
}

/// Writes `model` as `to`.
fn write(model: &Model<'_>, to: Target, side: &Side) -> Result<Vec<u8>> {
    match to {
        Target::Ksym => {
            let options = BuildOptions {
                layout: side.ksym_layout.unwrap_or(LayoutKind::Sized),
                format_version: side.ksym_format_version,
                ..BuildOptions::default()
            };
            Ok(crate::ksym::build(&crate::ksym::model::symbols_of(model), &options)?.bytes)
        }
        Target::Lidia => Ok(crate::lidia::model::write_model(model)),
        Target::Symbfile => crate::symbfile::model::write_model(model),
        Target::Gsym => Ok(crate::gsym::write_model(model, &side.gsym)?.bytes),
        Target::Breakpad => {
            let (module, multiple) = &side.breakpad;
            let (text, _) = crate::breakpad::write_model(model, module, multiple)?;
            Ok(text.into_string().into_bytes())
        }
    }
}

/// Builds `to` from an ELF file as its own build command does by default.
fn from_elf(path: &Path, bytes: &[u8], to: Target, options: &ConvertOptions) -> Result<Converted> {
    let input = path.display().to_string();
    // What the GSYM or Breakpad writer wrote, from its counts (reading a large file back
    // would cost as much as writing it).
    let mut gsym_held = None;
    let (bytes, functions, inlined, files_read) = match to {
        Target::Ksym => {
            let build = BuildOptions {
                layout: options.ksym_layout.unwrap_or(LayoutKind::Sized),
                format_version: options.ksym_format_version,
                ..BuildOptions::default()
            };
            let built = crate::pipeline::ksym::build_from_elf(
                bytes,
                &input,
                &InputOptions::default(),
                &build,
            )?;
            let n = built.blob.stats.symbols as usize;
            (built.blob.bytes, n, 0, FilesRead::of_elf(path))
        }
        Target::Lidia => {
            let elf = ElfOptions::dwarf_with_files_and_lines(DwarfOptions {
                debug_files: options.debug_files.clone(),
                ..DwarfOptions::default()
            });
            let (writer, report) = crate::pipeline::lidia::collect_with_report(path, bytes, &elf)?;
            let lidia = writer.finish();
            let file = symblob::lidia::LidiaFile::parse(&lidia)?;
            let top = file.ranges().filter(|r| r.depth == 0).count();
            let all = file.len();
            (lidia, top, all - top, report.files_read)
        }
        Target::Symbfile => {
            let extract_options = ExtractOptions {
                debug_files: options.debug_files.clone(),
                ..ExtractOptions::default()
            };
            let extraction = extract::ranges(path, &extract_options)?;
            let mut writer = SymbfileWriter::new();
            for record in &extraction.records {
                writer.add_range(record)?;
            }
            let top = extraction.records.iter().filter(|r| r.depth == 0).count();
            let n = extraction.records.len();
            let files_read = extraction.stats.files_read;
            (writer.finish()?, top, n - top, files_read)
        }
        Target::Gsym => {
            let (written, files_read) = gsym_from_elf(path, bytes, &options.debug_files)?;
            gsym_held = Some(Contents {
                functions: written.functions > 0,
                inline: written.with_inlines > 0,
                files: written.with_lines > 0 || written.with_inlines > 0,
                lines: written.with_lines > 0,
                ..Contents::default()
            });
            (written.bytes, written.functions, 0, files_read)
        }
        Target::Breakpad => {
            let (built, text) = crate::pipeline::breakpad::from_elf(
                path,
                bytes,
                &options.debug_files,
                &crate::Progress::default(),
            )?;
            let w = &built.written;
            gsym_held = Some(Contents {
                functions: w.functions > 0,
                inline: w.inlines > 0,
                files: w.lines > 0 || w.inlines > 0,
                lines: w.lines > 0,
                symbols: w.publics > 0,
                unwind: w.cfi > 0,
                ..Contents::default()
            });
            let (functions, inlines) = (w.functions, w.inlines);
            (
                text.into_string().into_bytes(),
                functions,
                inlines,
                built.files_read,
            )
        }
    };
    let held = match gsym_held {
        Some(held) => held,
        None => written_contents(&bytes, to, &input)?,
    };
    Ok(Converted {
        bytes,
        from: Format::Elf,
        held,
        lost: Vec::new(),
        functions,
        inlined,
        return_pads: 0,
        files_read,
    })
}

/// What a file symblob just wrote holds, read back.
fn written_contents(bytes: &[u8], format: Target, input: &str) -> Result<Contents> {
    Ok(match format {
        Target::Ksym => readback::ksym::read(bytes, input)?.model.contents(),
        Target::Lidia => readback::lidia::read(bytes, input)?.contents(),
        Target::Symbfile => readback::symbfile::read(bytes, input)?.contents(),
        // `from_elf` takes the GSYM and Breakpad writers' counts instead.
        Target::Gsym => Format::Gsym.can_hold(),
        Target::Breakpad => Format::Breakpad.can_hold(),
    })
}

/// GSYM from the ELF file `bytes` (read from `path`, whose separate debug files are
/// `debug_files` or found as the Lidia DWARF build finds them): the DWARF functions with their lines and inlined
/// calls, and the symbol table's functions for code DWARF does not describe, by
/// `llvm-gsymutil --convert`'s rules (DWARF names, no PLT entries, no rows for
/// symbol-table functions); the header's UUID is the ELF's build ID.
pub fn gsym_from_elf(
    path: &Path,
    bytes: &[u8],
    debug_files: &DebugFiles,
) -> Result<(crate::gsym::Written, FilesRead)> {
    use object::Object;
    let uuid = object::File::parse(bytes)
        .ok()
        .and_then(|f| f.build_id().ok().flatten())
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let options = GsymOptions { uuid };
    let contents = crate::dwarf::GroupContents {
        symtab: true,
        gsym_rules: true,
        lines: true,
        files: true,
        touching_apart: false,
    };
    let mut written = None;
    let stats = crate::dwarf::build_groups(
        path,
        bytes,
        &DwarfOptions {
            debug_files: debug_files.clone(),
            ..DwarfOptions::default()
        },
        contents,
        &crate::Progress::default(),
        |functions, _| {
            let model = Model {
                functions: crate::gopclntab::with_go_lines(bytes, functions),
                ..Model::default()
            };
            written = Some(crate::gsym::write_model(&model, &options));
            // Freed on one thread, ripgrep's model took a tenth of its build's time.
            model.drop_in_parallel();
        },
    )?;
    let written = written.unwrap_or_else(|| Ok(crate::gsym::Written::default()))?;
    Ok((written, stats.files_read))
}
