//! Supplementary object files: the DIEs and strings `dwz -m` moves out of several debug
//! files into one shared file, named by `.gnu_debugaltlink` (GNU: the file name, then
//! its build ID) or by DWARF 5 `.debug_sup` (version, flag, file name, checksum).
//! References into it (`DW_FORM_GNU_ref_alt`, `DW_FORM_ref_sup4/8`,
//! `DW_FORM_GNU_strp_alt`, `DW_FORM_strp_sup`) are followed through
//! [`gimli::Dwarf::sup`].
//!
//! The file is `--sup` when given, else the link's path: as it is when absolute, else
//! relative to the debug file's directory; then its file name under
//! `/usr/lib/debug/.dwz/`; then the build ID under `/usr/lib/debug/.build-id/`.
//!
//! A GNU link names the file's build ID: a file found with another build ID is not the
//! one (the search goes on), and `--sup` naming one is an error (a warning when the
//! caller accepts mismatched debug files), since its DIEs would give wrong names.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use object::{Object, ObjectSection};

use crate::elf::hex;

use super::load::SectionStore;
use crate::elf::build_id_path;
use crate::input::map_file;
use crate::{Error, Location, Result, WarningKind};

/// Where distributions install the supplementary files of their debug packages.
const DWZ_ROOT: &str = "/usr/lib/debug/.dwz";
/// Where distributions install debug files by build ID.
const DEBUG_ROOT: &str = "/usr/lib/debug";

/// A mapped supplementary file.
pub(crate) struct SupFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its bytes.
    pub map: Mmap,
}

impl SupFile {
    /// Its DWARF sections.
    pub(crate) fn sections(&self) -> Result<SectionStore<'_>> {
        let obj = object::File::parse(&*self.map).map_err(|e| {
            Error::input_caused(
                self.path.display().to_string(),
                Location::Whole,
                "not an ELF file",
                e,
            )
        })?;
        SectionStore::load(&obj, &self.path)
    }
}

/// The link a debug file holds: the supplementary file's name and, for GNU links, its
/// build ID.
#[derive(Debug, PartialEq, Eq)]
struct Link<'a> {
    name: &'a [u8],
    build_id: Option<&'a [u8]>,
}

/// The supplementary file the debug file `obj` (at `path`) links to, or `explicit`.
/// `Ok(None)` when there is no link or the file is found nowhere (the names it held
/// then stay unresolved: a [`WarningKind::SupplementaryMissing`] lists where it was
/// looked for). `explicit` with another build ID than the link names is an error, or a
/// [`WarningKind::SupplementaryMismatchRead`] when `mismatch_ok`.
pub(crate) fn find(
    obj: &object::File<'_>,
    path: &Path,
    explicit: Option<&Path>,
    mismatch_ok: bool,
    warnings: &mut Vec<WarningKind>,
) -> Result<Option<SupFile>> {
    let link = link(obj);
    let wanted_id = link.as_ref().and_then(|l| l.build_id);
    if let Some(p) = explicit {
        let file = SupFile {
            map: map_file(p)?,
            path: p.to_path_buf(),
        };
        if let Some(reason) = id_mismatch(&file, wanted_id) {
            if !mismatch_ok {
                return Err(Error::input(
                    p.display().to_string(),
                    Location::Whole,
                    format!(
                        "not the supplementary file of {}: {reason} (--debug-file-mismatch-ok \
                         reads it anyway)",
                        path.display()
                    ),
                ));
            }
            warnings.push(WarningKind::SupplementaryMismatchRead {
                sup: p.to_path_buf(),
                reason,
            });
        }
        return Ok(Some(file));
    }
    let Some(link) = link else {
        return Ok(None);
    };
    let name = Path::new(OsStr::from_bytes(link.name));
    let mut candidates = Vec::new();
    if name.is_absolute() {
        candidates.push(name.to_path_buf());
    } else {
        candidates.push(path.parent().unwrap_or(Path::new("")).join(name));
    }
    if let Some(under_dwz) = dwz_relative(link.name) {
        candidates.push(Path::new(DWZ_ROOT).join(under_dwz));
    }
    if let Some(p) = link
        .build_id
        .and_then(|id| build_id_path(Path::new(DEBUG_ROOT), id))
    {
        candidates.push(p);
    }
    let mut looked_for = Vec::new();
    for c in candidates {
        if c.is_file() {
            let file = SupFile {
                map: map_file(&c)?,
                path: c.clone(),
            };
            if id_mismatch(&file, wanted_id).is_none() {
                return Ok(Some(file));
            }
        }
        looked_for.push(c);
    }
    warnings.push(WarningKind::SupplementaryMissing { looked_for });
    Ok(None)
}

/// How `file`'s build ID differs from `wanted` (`None` when it matches, or when the
/// link names no build ID: nothing to check).
fn id_mismatch(file: &SupFile, wanted: Option<&[u8]>) -> Option<String> {
    let wanted = wanted?;
    let id = object::File::parse(&*file.map)
        .ok()
        .and_then(|o| o.build_id().ok().flatten());
    match id {
        Some(id) if id == wanted => None,
        Some(id) => Some(format!(
            "its build ID is {}, the link names {}",
            hex(id),
            hex(wanted)
        )),
        None => Some(format!(
            "it has no build ID, the link names {}",
            hex(wanted)
        )),
    }
}

/// Where the linked file lies under `/usr/lib/debug/.dwz/`: what follows the link's
/// last `.dwz/` (Debian: `.dwz/<triplet>/<package>.debug`), else its file name.
fn dwz_relative(name: &[u8]) -> Option<&Path> {
    let marker = b".dwz/";
    let tail = name
        .windows(marker.len())
        .rposition(|w| w == marker)
        .and_then(|i| name.get(i + marker.len()..))
        .unwrap_or(name);
    let path = Path::new(OsStr::from_bytes(tail));
    if tail.first() == Some(&b'/')
        || path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        return path.file_name().map(Path::new);
    }
    Some(path)
}

/// The link of `obj`: `.gnu_debugaltlink`, else `.debug_sup`.
fn link<'a>(obj: &object::File<'a>) -> Option<Link<'a>> {
    if let Some(data) = section(obj, ".gnu_debugaltlink") {
        let end = data.iter().position(|&b| b == 0)?;
        let (name, rest) = data.split_at(end);
        let id = rest.get(1..).filter(|id| !id.is_empty());
        return Some(Link { name, build_id: id });
    }
    // `.debug_sup`: version (2 bytes), is_supplementary (1 byte), file name (NUL
    // terminated), checksum. Only a file that is not itself the supplementary one links.
    let data = section(obj, ".debug_sup")?;
    let (&is_sup, rest) = data.get(2..)?.split_first()?;
    if is_sup != 0 {
        return None;
    }
    let end = rest.iter().position(|&b| b == 0)?;
    let name = rest.get(..end).filter(|n| !n.is_empty())?;
    Some(Link {
        name,
        build_id: None,
    })
}

/// The contents of section `name` of `obj`, when stored in the file.
fn section<'a>(obj: &object::File<'a>, name: &str) -> Option<&'a [u8]> {
    obj.section_by_name(name)?.data().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dwz_links_keep_their_place_under_the_dwz_directory() {
        let rel = |n: &[u8]| dwz_relative(n).map(Path::to_path_buf);
        assert_eq!(
            rel(b"/usr/lib/debug/.dwz/x86_64-linux-gnu/libc6.debug"),
            Some(PathBuf::from("x86_64-linux-gnu/libc6.debug"))
        );
        assert_eq!(
            rel(b"../../.dwz/x86_64-linux-gnu/libc6.debug"),
            Some(PathBuf::from("x86_64-linux-gnu/libc6.debug"))
        );
        assert_eq!(rel(b"common.debug"), Some(PathBuf::from("common.debug")));
        assert_eq!(
            rel(b"../x/common.debug"),
            Some(PathBuf::from("common.debug"))
        );
    }

    #[test]
    fn candidates_are_tried_in_order_and_reported() {
        // An ELF without a link has no supplementary file and looks nowhere.
        let data =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/lidia/elf/inl"))
                .expect("test program");
        let obj = object::File::parse(&*data).expect("ELF");
        let mut warnings = Vec::new();
        assert!(find(&obj, Path::new("x"), None, false, &mut warnings)
            .expect("no error")
            .is_none());
        assert!(warnings.is_empty());
    }
}
