//! A Breakpad symbol file from an ELF file, by Mozilla's `dump_syms --inlines` rules: the
//! DWARF source's functions (split DWARF, dwz and separate debug files included; Go's
//! `.gopclntab` for a Go program without DWARF), the symbol table's functions as public
//! symbols, a marker at each executable section, and the unwind rules of `.eh_frame` and
//! `.debug_frame`.

mod symbols;

use std::path::Path;

use object::{Object, ObjectSection, SectionFlags};

use crate::breakpad::names::{name_functions, normalise_paths};
use crate::breakpad::writer::{write_entries, Entries, SymSink, SymText, Written};
use crate::cfi;
use crate::dwarf::{DebugFiles, DwarfOptions, GroupContents};
use crate::input::FilesRead;
use crate::model::{Model, Module};
use crate::{Progress, Result};

/// What [`from_elf_into`] built.
#[derive(Clone, Debug)]
pub struct Built {
    /// The module's identity (its `MODULE` line, and the store path of the file).
    pub module: Module,
    /// The `.sym` text's size and record counts.
    pub written: Written,
    /// Every file the build read (the ELF, and the debug, split DWARF and supplementary
    /// files it found): an output must not be one of them.
    pub files_read: FilesRead,
}

/// [`from_elf_into`] in memory: what was built, and the text.
///
/// # Errors
///
/// As [`from_elf_into`].
pub fn from_elf(
    path: &Path,
    bytes: &[u8],
    debug_files: &DebugFiles,
    progress: &Progress,
) -> Result<(Built, SymText)> {
    let mut text = SymText::default();
    let built = from_elf_into(path, bytes, debug_files, progress, &mut text)?;
    Ok((built, text))
}

/// The Breakpad symbol file of the ELF file `bytes`, read from `path`, whose separate
/// debug files are `debug_files` or found as the other DWARF builds find them, written to
/// `sink` as it is made (after [`SymSink::files_read`] has seen every file the build
/// read).
///
/// Names take dump_syms's form ([`crate::demangle::breakpad_name`]). The functions are the
/// DWARF's (each range of a function its own `FUNC`, as dump_syms writes them); the
/// public symbols are the symbol table's functions (`.symtab`, else `.dynsym`); each
/// executable section without a record at its address gets a `<NAME ELF section in
/// MODULE>` public symbol, as dump_syms adds them.
///
/// # Errors
///
/// A malformed ELF file or DWARF, a separate debug file that does not belong to the ELF,
/// and malformed unwind tables, each naming the file and the place; and what `sink`
/// returned.
pub fn from_elf_into(
    path: &Path,
    bytes: &[u8],
    debug_files: &DebugFiles,
    progress: &Progress,
    sink: &mut dyn SymSink,
) -> Result<Built> {
    let input = path.display().to_string();
    let obj = object::File::parse(bytes).map_err(|e| {
        crate::Error::new(
            crate::ErrorKind::Malformed,
            &input,
            crate::Location::Whole,
            format!("not a readable ELF file: {e}"),
        )
    })?;
    let module = Module::of_object(&obj, path);
    let table = symbols::function_symbols(&obj, module.base);
    let names = symbols::as_function_names(&table);
    let publics = symbols::as_public_names(&table);
    // The build's peak is at the end of the walk: nothing it does not need waits there.
    drop(table);
    let markers = section_markers(&obj, &module.name);
    let contents = GroupContents {
        symtab: false,
        gsym_rules: false,
        lines: true,
        files: true,
        touching_apart: true,
    };
    let options = DwarfOptions {
        debug_files: debug_files.clone(),
        demangle: false,
    };
    // The unwind rules do not depend on the DWARF: they are read beside the walk.
    std::thread::scope(|scope| {
        let unwind = scope.spawn(|| cfi::from_elf(bytes, &input));
        let mut written = None;
        let stats = crate::dwarf::build_groups(
            path,
            bytes,
            &options,
            contents,
            progress,
            |functions, walked| {
                let mut functions = crate::gopclntab::with_go_lines(bytes, functions);
                name_functions(&mut functions, &names);
                drop(names);
                normalise_paths(&mut functions);
                // Every name is now the model's own: the 8 MB of ripgrep's `.debug_str`
                // the naming read are not needed again.
                walked.release_sections();
                let unwind = match unwind.join() {
                    Ok(unwind) => unwind,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                written = Some(unwind.and_then(|unwind| {
                    let model = Model {
                        functions,
                        unwind,
                        ..Model::default()
                    };
                    let mut entries = Entries::of_model(&model, module.base, &Default::default());
                    entries.add_publics(&publics);
                    for (rva, name) in &markers {
                        entries.add_marker(*rva, name);
                    }
                    sink.files_read(walked.files_read)?;
                    let written = write_entries(&entries, &model, &module, sink);
                    drop(entries);
                    model.drop_in_parallel();
                    written
                }));
            },
        )?;
        Ok(Built {
            module,
            written: written.transpose()?.unwrap_or_default(),
            files_read: stats.files_read,
        })
    })
}

/// `(address, "<NAME ELF section in MODULE>")` for every executable section. dump_syms
/// places them at the section's address itself (its low 32 bits), not relative to the
/// module's base.
fn section_markers(obj: &object::File<'_>, module: &str) -> Vec<(u64, String)> {
    let module = if module.is_empty() { "unknown" } else { module };
    obj.sections()
        .filter(|s| {
            matches!(s.flags(), SectionFlags::Elf { sh_flags, .. }
                if sh_flags.contains(object::elf::SHF_EXECINSTR))
        })
        .map(|s| {
            let name = s.name().unwrap_or("unknown");
            // dump_syms keeps 32 bits of an address (a kernel's sections at
            // 0xffffffff81000000 are written at 81000000).
            (
                s.address() & 0xffff_ffff,
                format!("<{name} ELF section in {module}>"),
            )
        })
        .collect()
}
