//! Opening the DWARF of an ELF for one read: every file it needs found, checked, mapped
//! and attached, for any writer (the Lidia groups of this module, symbfile's range walk).
//!
//! [`open`] finds the DWARF (the ELF, `--debug-file`, build ID, `.gnu_debuglink`),
//! checks that a separate debug file belongs to the ELF, attaches the supplementary file
//! `dwz` shares between debug files, and finds the split unit of every skeleton unit (a
//! `.dwo` file or a `.dwp` package), listing every file it opens
//! ([`Session::files_read`]). Every file lives only as long as the call, so the
//! caller works inside a closure; what it builds may borrow from the sections.

use std::path::Path;

pub(crate) use super::split::{split_unit, SplitUnits};
use super::{load, split, sup, DebugFiles, Slice};
use crate::elf::{check_debug_file, find_debug_file, missing_dwarf};
use crate::input::{FileRole, FilesRead};
use crate::{Error, ErrorKind, Location, Result, Warning, WarningKind};

/// The files of one DWARF read, opened.
pub(crate) struct Session<'s> {
    /// The ELF as given.
    pub obj: &'s object::File<'s>,
    /// The file that holds the DWARF: the ELF or its separate debug file.
    pub dwarf_obj: &'s object::File<'s>,
    /// Where that file is.
    pub dwarf_path: &'s Path,
    /// Whether the DWARF comes from a separate debug file.
    pub separate: bool,
    /// Its DWARF, with the supplementary file's attached ([`gimli::Dwarf::sup`]).
    pub dwarf: gimli::Dwarf<Slice<'s>>,
    /// The headers of every unit in `.debug_info`, up to the first that does not parse.
    pub headers: Vec<gimli::UnitHeader<Slice<'s>>>,
    /// The same for the supplementary file (empty without one): references into it are
    /// looked up among these units.
    pub sup_headers: Vec<gimli::UnitHeader<Slice<'s>>>,
    /// The split unit's sections of every skeleton unit, by skeleton offset.
    pub split_units: SplitUnits<'s>,
    /// What was missing or wrong but did not stop the read, in the order found.
    pub warnings: Vec<Warning>,
    /// Every file opened for the read, the ELF first.
    pub files_read: FilesRead,
}

/// Opens the DWARF of the ELF `data` (read from `path`) and calls `work` with it.
///
/// # Errors
///
/// The ELF or a file it needs cannot be read or parsed, or a separate debug file does
/// not belong to it (unless `files.debug_file_mismatch_ok`).
pub(crate) fn open<R>(
    path: &Path,
    data: &[u8],
    files: &DebugFiles,
    work: impl for<'s> FnOnce(Session<'s>) -> Result<R>,
) -> Result<R> {
    let name = path.display().to_string();
    let obj = object::File::parse(data)
        .map_err(|e| Error::malformed(&name, Location::Whole, "not an ELF file").with_source(e))?;
    if obj.format() != object::BinaryFormat::Elf {
        return Err(Error::new(
            ErrorKind::Unsupported,
            &name,
            Location::Whole,
            "not an ELF file",
        ));
    }
    let debug = find_debug_file(path, &obj, files.debug_file.as_deref())?;
    let debug_obj = match &debug {
        Some(d) => Some(object::File::parse(&*d.map).map_err(|e| {
            Error::malformed(
                d.path.display().to_string(),
                Location::Whole,
                "not an ELF file",
            )
            .with_source(e)
        })?),
        None => None,
    };
    let mut warnings = Vec::new();
    if let (Some(d), Some(d_obj)) = (&debug, &debug_obj) {
        let mismatch_ok = files.debug_file_mismatch_ok;
        warnings.extend(check_debug_file(path, &obj, d, d_obj, mismatch_ok)?);
    }
    let dwarf_obj = debug_obj.as_ref().unwrap_or(&obj);
    let dwarf_path = debug.as_ref().map_or(path, |d| d.path.as_path());
    warnings.extend(missing_dwarf(path, debug.as_ref(), dwarf_obj));
    let warn = |warnings: &mut Vec<Warning>, kind| {
        warnings.push(Warning {
            input: dwarf_path.to_path_buf(),
            kind,
        });
    };

    let mut kinds = Vec::new();
    let sup_file = sup::find(
        dwarf_obj,
        dwarf_path,
        files.sup.as_deref(),
        files.debug_file_mismatch_ok,
        &mut kinds,
    )?;
    for kind in kinds.drain(..) {
        warn(&mut warnings, kind);
    }
    let sup_store = sup_file.as_ref().map(sup::SupFile::sections).transpose()?;
    let store = load::SectionStore::load(dwarf_obj, dwarf_path)?;
    let mut dwarf = store.dwarf();
    if let Some(s) = &sup_store {
        dwarf.set_sup(s.dwarf());
    }
    // Units of one crate or one object often share an abbreviation table (ripgrep: 914
    // units, 184 tables): parse each shared table once instead of once per unit.
    dwarf.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);

    let headers = unit_headers(&dwarf, &mut kinds);
    let mut sup_kinds = Vec::new();
    let sup_headers = dwarf
        .sup()
        .map(|sup| unit_headers(sup, &mut sup_kinds))
        .unwrap_or_default();
    let split_files = split::find(&dwarf, &headers, path, files.dwp.as_deref(), &mut kinds)?;
    let split_sections = split_files.sections()?;
    let split_units = split_sections.units(&dwarf, &mut kinds)?;
    for kind in kinds {
        warn(&mut warnings, kind);
    }
    if let Some(sup) = &sup_file {
        warnings.extend(sup_kinds.into_iter().map(|kind| Warning {
            input: sup.path.clone(),
            kind,
        }));
    }
    let mut files_read = FilesRead::of_elf(path);
    if let Some(d) = &debug {
        files_read.push(&d.path, FileRole::DebugFile);
    }
    if let Some(s) = &sup_file {
        files_read.push(&s.path, FileRole::Supplementary);
    }
    split_files.record(&mut files_read);
    work(Session {
        obj: &obj,
        dwarf_obj,
        dwarf_path,
        separate: debug.is_some(),
        dwarf,
        headers,
        sup_headers,
        split_units,
        warnings,
        files_read,
    })
}

/// The mapped DWARF sections of `file` (the ELF, or its debug file) that the unit walk
/// reads: every `.debug_*` section but `.debug_frame`, which the Breakpad build's
/// unwind rules read beside the walk. Their pages can be given back ([`release`])
/// during and after the walk, the string sections included: the names the groups
/// borrow from them stay valid, and are faulted back in when read.
pub(crate) fn walked_sections<'f>(file: &object::File<'f>) -> Vec<&'f [u8]> {
    use object::{Object, ObjectSection};
    file.sections()
        .filter(|section| {
            section
                .name()
                .is_ok_and(|name| name.starts_with(".debug_") && name != ".debug_frame")
        })
        .filter_map(|section| section.data().ok())
        .collect()
}

/// Gives back the mapped pages of `sections` ([`crate::input::release_pages`]): a later
/// read of a released byte (a name kept in `.debug_info`, a range list two units share)
/// only faults it back in. (ripgrep's line programs, range lists and abbreviations kept
/// 16 MB resident through the GSYM writer.)
pub(crate) fn release(sections: &[&[u8]]) {
    for bytes in sections {
        crate::input::release_pages(bytes);
    }
}

/// The headers of every unit of `dwarf` (up to the first that does not parse, reported
/// in `warnings`).
pub(crate) fn unit_headers<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    warnings: &mut Vec<WarningKind>,
) -> Vec<gimli::UnitHeader<Slice<'a>>> {
    let mut headers = Vec::new();
    let mut iter = dwarf.units();
    loop {
        match iter.next() {
            Ok(Some(h)) => headers.push(h),
            Ok(None) => break,
            Err(e) => {
                warnings.push(WarningKind::UnitListCut {
                    reason: e.to_string(),
                });
                break;
            }
        }
    }
    headers
}
