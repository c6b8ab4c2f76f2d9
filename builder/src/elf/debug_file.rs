//! Finding the file that holds an ELF's DWARF: the ELF itself, a separate debug file
//! named by the caller, found through the build ID
//! (`/usr/lib/debug/.build-id/xx/yyyy.debug`) or through `.gnu_debuglink`.

use std::path::{Path, PathBuf};

use crate::input::Mapping;
use object::{Object, ObjectSection, SectionKind};

use crate::hex::hex;
use crate::input::map_file;
use crate::{Error, ErrorKind, Location, Result, Warning, WarningKind};

/// The root under which distributions install separate debug files.
const DEBUG_ROOT: &str = "/usr/lib/debug";

/// A memory-mapped separate debug file.
pub(crate) struct DebugFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its bytes.
    pub map: Mapping,
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
enum DebugMatch {
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
fn match_debug_file(
    obj: &object::File<'_>,
    debug: &DebugFile,
    debug_obj: &object::File<'_>,
) -> DebugMatch {
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

/// Checks that the separate debug file `debug` (parsed as `debug_obj`) belongs to
/// `binary` (parsed as `obj`): `Err` naming both files when it does not, unless
/// `mismatch_ok`, which reads it with a warning; a warning too when nothing tells.
pub(crate) fn check_debug_file(
    binary: &Path,
    obj: &object::File<'_>,
    debug: &DebugFile,
    debug_obj: &object::File<'_>,
    mismatch_ok: bool,
) -> Result<Option<Warning>> {
    let kind = match match_debug_file(obj, debug, debug_obj) {
        DebugMatch::Matches => return Ok(None),
        DebugMatch::Unverifiable => WarningKind::DebugFileUnverifiable {
            binary: binary.to_path_buf(),
        },
        DebugMatch::Mismatch(reason) if mismatch_ok => WarningKind::DebugFileMismatchRead {
            binary: binary.to_path_buf(),
            reason,
        },
        DebugMatch::Mismatch(why) => {
            return Err(Error::new(
                ErrorKind::Mismatch,
                &debug.path,
                Location::Whole,
                format!(
                    "not the debug file of {}: {why} (--debug-file-mismatch-ok reads it \
                     anyway)",
                    binary.display()
                ),
            ))
        }
    };
    Ok(Some(Warning {
        input: debug.path.clone(),
        kind,
    }))
}

/// The warning for a build whose DWARF file (`dwarf_obj`: the separate `debug` file, else
/// `binary` itself) has no DWARF: its functions come from the other sources only.
pub(crate) fn missing_dwarf(
    binary: &Path,
    debug: Option<&DebugFile>,
    dwarf_obj: &object::File<'_>,
) -> Option<Warning> {
    if has_dwarf(dwarf_obj) {
        return None;
    }
    Some(match debug {
        Some(d) => Warning {
            input: d.path.clone(),
            kind: WarningKind::NoDwarfInDebugFile {
                binary: binary.to_path_buf(),
            },
        },
        None => Warning {
            input: binary.to_path_buf(),
            kind: WarningKind::NoDwarf,
        },
    })
}

/// `root/.build-id/xx/yyyy.debug` for a build ID (lower-case hex, first byte as directory).
pub(crate) fn build_id_path(root: &Path, id: &[u8]) -> Option<PathBuf> {
    let (first, rest) = id.split_first()?;
    if rest.is_empty() {
        return None;
    }
    Some(
        root.join(".build-id")
            .join(format!("{first:02x}"))
            .join(format!("{}.debug", hex(rest))),
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
/// `crc32fast` uses the CPU's carry-less multiply where it has one: a debug file can be
/// hundreds of megabytes.
pub(crate) fn crc32_ieee(data: &[u8]) -> u32 {
    crc32fast::hash(data)
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
