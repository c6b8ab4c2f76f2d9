//! Finding and loading the DWARF sections: in the ELF itself, in a separate debug file
//! named with `--debug-file`, found through the build ID
//! (`/usr/lib/debug/.build-id/xx/yyyy.debug`) or through `.gnu_debuglink`; compressed
//! sections (`SHF_COMPRESSED` zlib and zstd, GNU `.zdebug_*`) are decompressed here.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use object::{CompressionFormat, Object, ObjectSection, SectionKind};

use crate::input::map_file;
use crate::{Error, Location, Result};

/// The root under which distributions install separate debug files.
const DEBUG_ROOT: &str = "/usr/lib/debug";

/// The most a compressed section may expand: deflate cannot exceed 1032:1, and DWARF
/// compresses far less (zstd too). A header claiming more is corrupt, and is refused
/// before the claimed size is allocated.
const MAX_EXPANSION: u64 = 1032;

/// A memory-mapped separate debug file.
pub(crate) struct DebugFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its bytes.
    pub map: Mmap,
}

/// True when `obj` holds DWARF of its own (a `.debug_info` with contents).
pub(crate) fn has_dwarf(obj: &object::File<'_>) -> bool {
    obj.section_by_name(".debug_info").is_some_and(|s| {
        s.kind() != SectionKind::UninitializedData && s.size() > 0 && s.file_range().is_some()
    })
}

/// Locates the file that holds the DWARF of `path`: `explicit` if given, else nothing when
/// the ELF has DWARF itself, else the build-ID file, else the `.gnu_debuglink` target
/// (whose CRC32 must match). `Ok(None)` when the ELF has no DWARF and none is found.
pub(crate) fn find_debug_file(
    path: &Path,
    obj: &object::File<'_>,
    explicit: Option<&Path>,
) -> Result<Option<DebugFile>> {
    if let Some(p) = explicit {
        return Ok(Some(DebugFile {
            path: p.to_path_buf(),
            map: map_file(p)?,
        }));
    }
    if has_dwarf(obj) {
        return Ok(None);
    }
    if let Ok(Some(id)) = obj.build_id() {
        if let Some(p) = build_id_path(Path::new(DEBUG_ROOT), id) {
            if p.is_file() {
                return Ok(Some(DebugFile {
                    map: map_file(&p)?,
                    path: p,
                }));
            }
        }
    }
    if let Ok(Some((name, crc))) = obj.gnu_debuglink() {
        for candidate in debuglink_candidates(path, name) {
            if !candidate.is_file() {
                continue;
            }
            let map = map_file(&candidate)?;
            if crc32_ieee(&map) == crc {
                return Ok(Some(DebugFile {
                    path: candidate,
                    map,
                }));
            }
        }
    }
    Ok(None)
}

/// Whether a separate debug file belongs to its binary.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DebugMatch {
    /// The build IDs are equal, or the file's CRC is the one `.gnu_debuglink` names.
    Matches,
    /// The binary has neither a build ID nor a `.gnu_debuglink` to compare with.
    Unverifiable,
    /// It belongs to another binary: why, in words.
    Mismatch(String),
}

/// Checks that `debug` (parsed as `debug_obj`) is the debug file of `obj`: the build IDs
/// must be equal when both have one (GDB's rule; cheap), else the CRC-32 of the whole
/// file must be the one `obj`'s `.gnu_debuglink` records.
pub(crate) fn match_debug_file(
    obj: &object::File<'_>,
    debug: &DebugFile,
    debug_obj: &object::File<'_>,
) -> DebugMatch {
    let hex = |id: &[u8]| id.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let ours = obj.build_id().ok().flatten();
    let theirs = debug_obj.build_id().ok().flatten();
    if let (Some(a), Some(b)) = (ours, theirs) {
        return if a == b {
            DebugMatch::Matches
        } else {
            DebugMatch::Mismatch(format!(
                "its build ID is {}, the binary's is {}",
                hex(b),
                hex(a)
            ))
        };
    }
    if let Ok(Some((_, crc))) = obj.gnu_debuglink() {
        let got = crc32_ieee(&debug.map);
        return if got == crc {
            DebugMatch::Matches
        } else {
            DebugMatch::Mismatch(format!(
                "its CRC-32 is {got:08x}, the binary's .gnu_debuglink expects {crc:08x}"
            ))
        };
    }
    match ours {
        Some(a) => DebugMatch::Mismatch(format!("it has no build ID, the binary's is {}", hex(a))),
        None => DebugMatch::Unverifiable,
    }
}

/// `root/.build-id/xx/yyyy.debug` for a build ID (lower-case hex, first byte as directory).
pub(crate) fn build_id_path(root: &Path, id: &[u8]) -> Option<PathBuf> {
    let (first, rest) = id.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let tail: String = rest.iter().map(|b| format!("{b:02x}")).collect();
    Some(
        root.join(".build-id")
            .join(format!("{first:02x}"))
            .join(format!("{tail}.debug")),
    )
}

/// The places GDB looks for a `.gnu_debuglink` target, in its order: next to the ELF, in
/// its `.debug/` subdirectory, and under the global debug root.
pub(crate) fn debuglink_candidates(path: &Path, name: &[u8]) -> Vec<PathBuf> {
    let name = Path::new(std::str::from_utf8(name).unwrap_or_default());
    if name.as_os_str().is_empty() {
        return Vec::new();
    }
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let abs_dir = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
    let mut out = vec![dir.join(name), dir.join(".debug").join(name)];
    let rel = abs_dir.strip_prefix("/").unwrap_or(&abs_dir);
    out.push(Path::new(DEBUG_ROOT).join(rel).join(name));
    out
}

/// The CRC-32 (IEEE, reflected, as zlib computes it) that `.gnu_debuglink` stores.
pub(crate) fn crc32_ieee(data: &[u8]) -> u32 {
    const fn table() -> [u32; 256] {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    }
    static TABLE: [u32; 256] = table();
    let mut crc = !0u32;
    for &b in data {
        crc = TABLE[usize::from((crc as u8) ^ b)] ^ (crc >> 8);
    }
    !crc
}

/// The DWARF sections of one file, decompressed where needed, indexed by [`gimli::SectionId`].
pub(crate) struct SectionStore<'a> {
    sections: Vec<(gimli::SectionId, Cow<'a, [u8]>)>,
    /// Byte order of the file.
    pub endian: gimli::RunTimeEndian,
}

/// The sections gimli reads for units, names, ranges and line programs.
const WANTED: [gimli::SectionId; 12] = [
    gimli::SectionId::DebugAbbrev,
    gimli::SectionId::DebugAddr,
    gimli::SectionId::DebugInfo,
    gimli::SectionId::DebugLine,
    gimli::SectionId::DebugLineStr,
    gimli::SectionId::DebugLoc,
    gimli::SectionId::DebugLocLists,
    gimli::SectionId::DebugRanges,
    gimli::SectionId::DebugRngLists,
    gimli::SectionId::DebugStr,
    gimli::SectionId::DebugStrOffsets,
    gimli::SectionId::DebugTypes,
];

impl<'a> SectionStore<'a> {
    /// Reads (and decompresses) the DWARF sections of `obj`; `name` is used in errors.
    pub(crate) fn load(obj: &object::File<'a>, name: &Path) -> Result<Self> {
        let endian = if obj.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let mut sections = Vec::new();
        for id in WANTED {
            let Some(section) = obj.section_by_name(id.name()) else {
                continue;
            };
            if section.kind() == SectionKind::UninitializedData {
                continue;
            }
            let at = section
                .file_range()
                .map_or(Location::Whole, |(o, _)| Location::Offset(o));
            if let Ok(c) = section.compressed_data() {
                let limit = (c.data.len() as u64).saturating_mul(MAX_EXPANSION);
                if c.format != CompressionFormat::None && c.uncompressed_size > limit {
                    return Err(Error::input(
                        name.display().to_string(),
                        at,
                        format!(
                            "compressed section {} claims {} bytes from {} compressed bytes, \
                             more than {MAX_EXPANSION} times as many",
                            id.name(),
                            c.uncompressed_size,
                            c.data.len()
                        ),
                    ));
                }
            }
            let data = section.uncompressed_data().map_err(|e| {
                Error::input(
                    name.display().to_string(),
                    at,
                    format!("cannot read or decompress section {}: {e}", id.name()),
                )
            })?;
            sections.push((id, data));
        }
        Ok(SectionStore { sections, endian })
    }

    /// The bytes of section `id` (empty when absent).
    pub(crate) fn get(&self, id: gimli::SectionId) -> &[u8] {
        self.sections
            .iter()
            .find(|(s, _)| *s == id)
            .map_or(&[][..], |(_, d)| d)
    }

    /// A gimli view of the sections.
    pub(crate) fn dwarf(&self) -> gimli::Dwarf<super::Slice<'_>> {
        let endian = self.endian;
        gimli::Dwarf::load(|id| -> std::result::Result<_, ()> {
            Ok(gimli::EndianSlice::new(self.get(id), endian))
        })
        .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32_ieee(b""), 0);
    }

    #[test]
    fn build_id_layout() {
        let p = build_id_path(Path::new("/d"), &[0xab, 0x01, 0xff]).unwrap();
        assert_eq!(p, Path::new("/d/.build-id/ab/01ff.debug"));
        assert!(build_id_path(Path::new("/d"), &[0xab]).is_none());
    }
}
