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
//! A GNU link names the file's build ID, a `.debug_sup` link a checksum that the
//! supplementary file's own `.debug_sup` repeats (dwz writes the same 20 bytes in both): a
//! file found with another build ID or checksum is not the one (the search goes on), and
//! `--sup` naming one is an error (a warning when the caller accepts mismatched debug
//! files), since its DIEs would give wrong names.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::input::Mapping;
use object::{Object, ObjectSection};

use crate::hex::hex;

use super::load::SectionStore;
use crate::elf::build_id_path;
use crate::input::map_file;
use crate::{Error, ErrorKind, Location, Result, WarningKind};

/// Where distributions install the supplementary files of their debug packages.
const DWZ_ROOT: &str = "/usr/lib/debug/.dwz";
/// Where distributions install debug files by build ID.
const DEBUG_ROOT: &str = "/usr/lib/debug";

/// A mapped supplementary file.
pub(crate) struct SupFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its bytes.
    pub map: Mapping,
}

impl SupFile {
    /// Its DWARF sections.
    pub(crate) fn sections(&self) -> Result<SectionStore<'_>> {
        let obj = object::File::parse(&*self.map).map_err(|e| {
            Error::malformed(
                self.path.display().to_string(),
                Location::Whole,
                "not an ELF file",
            )
            .with_source(e)
        })?;
        SectionStore::load(&obj, &self.path)
    }
}

/// The link a debug file holds: the supplementary file's name and what identifies it.
#[derive(Debug, PartialEq, Eq)]
struct Link<'a> {
    name: &'a [u8],
    id: Option<SupId<'a>>,
}

/// What a link says the supplementary file carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SupId<'a> {
    /// Its build ID (`.gnu_debugaltlink`).
    BuildId(&'a [u8]),
    /// The checksum of its own `.debug_sup` (DWARF 5 `.debug_sup`).
    Checksum(&'a [u8]),
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
    let wanted_id = link.as_ref().and_then(|l| l.id);
    if let Some(p) = explicit {
        let file = SupFile {
            map: map_file(p)?,
            path: p.to_path_buf(),
        };
        if let Some(reason) = id_mismatch(&file, wanted_id) {
            if !mismatch_ok {
                return Err(Error::new(
                    ErrorKind::Mismatch,
                    p,
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
    let build_id = match link.id {
        Some(SupId::BuildId(id)) => Some(id),
        _ => None,
    };
    if let Some(p) = build_id.and_then(|id| build_id_path(Path::new(DEBUG_ROOT), id)) {
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

/// How `file` differs from what the link names (`None` when it matches, or when the
/// link names nothing to check).
fn id_mismatch(file: &SupFile, wanted: Option<SupId<'_>>) -> Option<String> {
    let wanted = wanted?;
    let obj = object::File::parse(&*file.map).ok();
    match wanted {
        SupId::BuildId(wanted) => match obj.and_then(|o| o.build_id().ok().flatten()) {
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
        },
        SupId::Checksum(wanted) => {
            let own = obj
                .as_ref()
                .and_then(|o| section(o, ".debug_sup"))
                .and_then(parse_debug_sup)
                .filter(|sup| sup.is_supplementary);
            match own {
                Some(sup) if sup.checksum == wanted => None,
                Some(sup) => Some(format!(
                    "its .debug_sup checksum is {}, the link names {}",
                    hex(sup.checksum),
                    hex(wanted)
                )),
                None => Some(format!(
                    "it has no .debug_sup of a supplementary file, the link names checksum {}",
                    hex(wanted)
                )),
            }
        }
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
        return Some(Link {
            name,
            id: id.map(SupId::BuildId),
        });
    }
    // Only a file that is not itself the supplementary one links.
    let sup = parse_debug_sup(section(obj, ".debug_sup")?).filter(|s| !s.is_supplementary)?;
    let name = Some(sup.file_name).filter(|n| !n.is_empty())?;
    Some(Link {
        name,
        id: Some(sup.checksum)
            .filter(|c| !c.is_empty())
            .map(SupId::Checksum),
    })
}

/// A DWARF 5 `.debug_sup` section.
struct DebugSup<'a> {
    is_supplementary: bool,
    file_name: &'a [u8],
    checksum: &'a [u8],
}

/// Reads `.debug_sup`: version (2 bytes), is_supplementary (1 byte), file name (NUL
/// terminated), checksum length (ULEB128), checksum.
fn parse_debug_sup(data: &[u8]) -> Option<DebugSup<'_>> {
    let (&is_sup, rest) = data.get(2..)?.split_first()?;
    let end = rest.iter().position(|&b| b == 0)?;
    let (file_name, rest) = rest.split_at(end);
    let mut reader = gimli::EndianSlice::new(rest.get(1..)?, gimli::LittleEndian);
    let len = gimli::Reader::read_uleb128(&mut reader).ok()?;
    let checksum = reader.slice().get(..usize::try_from(len).ok()?)?;
    Some(DebugSup {
        is_supplementary: is_sup != 0,
        file_name,
        checksum,
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

    /// The two `.debug_sup` sections `dwz --dwarf-5 -m common.debug` wrote (readelf -x):
    /// the program's names the file and the checksum the file's own repeats.
    #[test]
    fn debug_sup_sections_as_dwz_writes_them() {
        let checksum = [
            0xc8, 0x8c, 0xa3, 0xfe, 0xce, 0x40, 0x37, 0x22, 0x16, 0x16, 0x20, 0xff, 0xa0, 0xd6,
            0x09, 0xd3, 0x5b, 0x6c, 0x49, 0xd7,
        ];
        let mut program = vec![0x05, 0x00, 0x00];
        program.extend_from_slice(b"common.debug\0");
        program.push(0x14);
        program.extend_from_slice(&checksum);
        let mut own = vec![0x05, 0x00, 0x01, 0x00, 0x14];
        own.extend_from_slice(&checksum);

        let link = parse_debug_sup(&program).expect("the program's section");
        assert!(!link.is_supplementary);
        assert_eq!(link.file_name, b"common.debug");
        assert_eq!(link.checksum, checksum);
        let file = parse_debug_sup(&own).expect("the supplementary file's section");
        assert!(file.is_supplementary);
        assert_eq!(file.file_name, b"");
        assert_eq!(file.checksum, checksum);
        // Cut anywhere, the section is unreadable rather than read short.
        for cut in 0..program.len() {
            assert!(parse_debug_sup(&program[..cut]).is_none(), "cut at {cut}");
        }
    }
}
