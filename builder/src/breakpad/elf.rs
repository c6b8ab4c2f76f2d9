//! A Breakpad symbol file from an ELF file, by Mozilla's `dump_syms --inlines` rules: the
//! DWARF source's functions (split DWARF, dwz and separate debug files included; Go's
//! `.gopclntab` for a Go program without DWARF), the symbol table's functions as public
//! symbols, a marker at each executable section, and the unwind rules of `.eh_frame` and
//! `.debug_frame`.

use std::path::Path;
use std::sync::Arc;

use object::{Object, ObjectSection, SectionFlags};
use rayon::prelude::*;

use super::writer::{write_entries, Entries, SymSink, SymText, Written};
use super::{cfi, symbols, Module};
use crate::dwarf::{DebugFiles, DwarfOptions, GroupContents};
use crate::fast_hash::{fast_map, FastMap};
use crate::input::FilesRead;
use crate::model::{Bytes, Group, Model, Span, Symbol};
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
            |functions, files_read| {
                let mut functions = crate::gopclntab::with_go_lines(bytes, functions);
                name_functions(&mut functions, &names);
                normalise_paths(&mut functions);
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
                    sink.files_read(files_read)?;
                    write_entries(&entries, &model, &module, sink)
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

/// Gives the model's spans dump_syms's names. A function is named by the symbol-table
/// function at its start (symbolic looks the symbol table up first, as DWARF names can be
/// less complete: GCC gives no linkage name to functions of local types), else by its
/// DWARF name; the pieces the DWARF source cut from one function (touching, with the same
/// DWARF name) keep the first piece's name. Inlined calls keep their DWARF names. Every
/// name takes dump_syms's form ([`crate::demangle::breakpad_name`]).
fn name_functions<'a>(functions: &mut [Group<'a>], symbols: &[Symbol]) {
    let mut by_address: Vec<(u64, &str)> = symbols
        .iter()
        .map(|s| (s.address, s.name.as_str()))
        .collect();
    // Stable: of several symbols at one address, the first in table order names it.
    by_address.sort_by_key(|&(address, _)| address);
    let symbol_at = |address: u64| {
        let i = by_address.partition_point(|&(a, _)| a < address);
        by_address
            .get(i)
            .filter(|(a, _)| *a == address)
            .map(|(_, n)| *n)
    };
    // Names repeat (inlined calls above all, and the pieces of one function): each
    // distinct DWARF name that is not a symbol's is converted once, in parallel. The
    // first pass lists, per span in order, the number of its distinct name (`None`: a
    // name the function gets otherwise).
    let mut distinct: FastMap<&[u8], usize> = fast_map();
    let mut sources: Vec<&[u8]> = Vec::new();
    let mut wanted: Vec<Option<usize>> = Vec::new();
    let mut number = |name| -> usize {
        *distinct.entry(name).or_insert_with(|| {
            sources.push(name);
            sources.len() - 1
        })
    };
    let mut previous: Option<&Span<'a>> = None;
    for group in functions.iter() {
        let Some((head, inlined)) = group.spans.split_first() else {
            continue;
        };
        let continues = previous.is_some_and(|p| p.end == head.start && *p.name == *head.name);
        let converted = !continues && symbol_at(head.start).is_none();
        wanted.push(converted.then(|| number(&head.name)));
        previous = Some(head);
        for span in inlined {
            wanted.push(Some(number(&span.name)));
        }
    }
    let forms: Vec<Arc<[u8]>> = sources
        .par_iter()
        .map(|name| breakpad_form(name).into())
        .collect();
    let mut wanted = wanted.into_iter();
    let mut convert = || wanted.next().flatten().and_then(|n| forms.get(n).cloned());
    // (end, DWARF name, name given) of the previous function piece.
    let mut previous: Option<(u64, Bytes<'a>, Arc<[u8]>)> = None;
    for group in functions.iter_mut() {
        let Some((head, inlined)) = group.spans.split_first_mut() else {
            continue;
        };
        let form = convert();
        let given: Arc<[u8]> = match &previous {
            Some((end, name, given)) if *end == head.start && **name == *head.name => given.clone(),
            _ => match (symbol_at(head.start), form) {
                (Some(symbol), _) => symbol.as_bytes().into(),
                (None, Some(form)) => form,
                (None, None) => breakpad_form(&head.name).into(),
            },
        };
        let dwarf_name = std::mem::replace(&mut head.name, Bytes::Shared(given.clone()));
        previous = Some((head.end, dwarf_name, given));
        for span in inlined {
            if let Some(form) = convert() {
                span.name = Bytes::Shared(form);
            }
        }
    }
}

/// Gives every file path dump_syms's lexical form: `.` components and repeated `/`
/// dropped, `..` removing the component before it. (dump_syms first tries the path on the
/// machine it runs on and resolves symbolic links when the file exists there; symblob's
/// output does not depend on the machine, so it stops at the lexical form.)
fn normalise_paths(functions: &mut [Group<'_>]) {
    let mut done: FastMap<Arc<[u8]>, Arc<[u8]>> = fast_map();
    let mut normalise = |path: &mut Option<Arc<[u8]>>| {
        if let Some(p) = path {
            let normal = done
                .entry(p.clone())
                .or_insert_with(|| lexical_path(p).into())
                .clone();
            *p = normal;
        }
    };
    for span in functions.iter_mut().flat_map(|g| &mut g.spans) {
        normalise(&mut span.file);
        normalise(&mut span.call_file);
    }
}

/// The lexical normal form of a Unix path (see [`normalise_paths`]).
fn lexical_path(path: &[u8]) -> Vec<u8> {
    let absolute = path.first() == Some(&b'/');
    let mut parts: Vec<&[u8]> = Vec::new();
    for part in path.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let mut out = Vec::with_capacity(path.len());
    if absolute {
        out.push(b'/');
    }
    out.extend_from_slice(&parts.join(&b'/'));
    out
}

/// The Breakpad form of a name read as bytes.
fn breakpad_form(name: &[u8]) -> Vec<u8> {
    crate::demangle::breakpad_name(&String::from_utf8_lossy(name)).into_bytes()
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

#[cfg(test)]
mod tests {
    use super::lexical_path;

    /// Cargo's `normalize_path`, which dump_syms uses, on the same inputs.
    #[test]
    fn paths_lose_dot_components() {
        let cases: [(&str, &str); 5] = [
            (
                "/rustc/x/library/std/src/../../backtrace/src/lib.rs",
                "/rustc/x/library/backtrace/src/lib.rs",
            ),
            ("/a/./b//c.h", "/a/b/c.h"),
            ("rel/../x.c", "x.c"),
            ("/../x.c", "/x.c"),
            ("/usr/include/stdio.h", "/usr/include/stdio.h"),
        ];
        for (path, want) in cases {
            assert_eq!(lexical_path(path.as_bytes()), want.as_bytes(), "{path}");
        }
    }
}
