//! Input files: memory-mapped where possible, so that a build reads only the pages it
//! needs (a 590 MB kernel image costs a few MB of memory), and read otherwise.

use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use memmap2::{Mmap, UncheckedAdvice};

use crate::{Error, Result};

/// The bytes of an input file: mapped, or read when mapping is not possible.
pub enum InputBytes {
    /// A read-only memory map of the file.
    Mapped(Mapping),
    /// The file's contents, read into memory (pipes, special files, standard input).
    Read(Vec<u8>),
}

impl Deref for InputBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m) => m,
            InputBytes::Read(v) => v,
        }
    }
}

/// A file mapped read-only by [`map_file`]: its bytes, whose pages a build may give back
/// once it has read them.
#[derive(Debug)]
pub struct Mapping(Arc<Mmap>);

impl Deref for Mapping {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// Every mapping [`map_file`] made that may still be alive, so that [`release_pages`]
/// can tell whether bytes lie in one.
static MAPPINGS: Mutex<Vec<Weak<Mmap>>> = Mutex::new(Vec::new());

/// Maps `path` read-only: the builder's one way of mapping a file.
pub fn map_file(path: &Path) -> Result<Mapping> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: the mapping is read-only and private to this process, and its bytes are
    // treated as untrusted input whatever they contain. A file truncated or rewritten by
    // another process while it is mapped is the one case memmap2 cannot protect against;
    // every tool that maps its inputs (linkers, objcopy, llvm-symbolizer) shares it.
    let map = Arc::new(unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?);
    let mut live = MAPPINGS.lock().unwrap_or_else(PoisonError::into_inner);
    live.retain(|m| m.strong_count() > 0);
    live.push(Arc::downgrade(&map));
    Ok(Mapping(map))
}

/// Gives back the pages that hold `part`, when `part` lies in a file [`map_file`] mapped:
/// the process stops counting them as resident, the file's page cache keeps them, and a
/// later read faults them in again, unchanged. Nothing for other bytes (read into memory,
/// decompressed). Pages of a mapped file count in a process's resident memory once read:
/// a build that reads a large section front to back gives back what it has finished.
pub(crate) fn release_pages(part: &[u8]) {
    if part.is_empty() {
        return;
    }
    let start = part.as_ptr() as usize;
    let live = MAPPINGS.lock().unwrap_or_else(PoisonError::into_inner);
    for map in live.iter().filter_map(Weak::upgrade) {
        let Some(offset) = start.checked_sub(map.as_ptr() as usize) else {
            continue;
        };
        if offset.saturating_add(part.len()) > map.len() {
            continue;
        }
        // SAFETY: `MADV_DONTNEED` on this read-only file mapping (kept alive here by the
        // upgraded reference) only drops the pages from the process's page tables; the
        // next access reads the same bytes from the file again, so every slice borrowed
        // from it keeps its contents. (The one danger of the advice, the loss of written
        // private pages, cannot arise: nothing writes through a read-only map.) A failure
        // only leaves the pages mapped.
        let _ =
            unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, offset, part.len()) };
        return;
    }
}

/// Maps `path`, or reads it when it cannot be mapped (a pipe, a special file).
pub fn open(path: &Path) -> Result<InputBytes> {
    match map_file(path) {
        Ok(map) => Ok(InputBytes::Mapped(map)),
        Err(_) => std::fs::read(path)
            .map(InputBytes::Read)
            .map_err(|e| Error::io(path, e)),
    }
}

/// A file a build read, and what it was to the build. A DWARF build finds some of its
/// inputs by itself (a debug file by build ID or `.gnu_debuglink`, `<ELF>.dwp`, the
/// `.dwo` files its skeleton units name, the supplementary file `dwz` links to): the
/// builders return every file they read, so that no output replaces one of them (see
/// [`crate::output::refuse_files_read`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRead {
    /// The path it was opened by: as given, or as the search for it built it.
    pub path: PathBuf,
    /// What the file is.
    pub role: FileRole,
}

/// What a file read by a build is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileRole {
    /// The ELF file the build was given.
    Elf,
    /// The separate debug file holding the ELF's DWARF.
    DebugFile,
    /// The supplementary debug file (`dwz -m`) the DWARF refers to.
    Supplementary,
    /// The split DWARF package (`.dwp`) holding the split units.
    DwarfPackage,
    /// A split DWARF object (`.dwo`) holding a split unit.
    SplitObject,
}

impl std::fmt::Display for FileRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileRole::Elf => "the ELF file",
            FileRole::DebugFile => "the separate debug file",
            FileRole::Supplementary => "the supplementary debug file (dwz)",
            FileRole::DwarfPackage => "the split DWARF package",
            FileRole::SplitObject => "a split DWARF object (.dwo)",
        })
    }
}

/// The files of one build, each once, in the order they were opened: the ELF first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilesRead {
    files: Vec<FileRead>,
}

impl FilesRead {
    /// A list holding the ELF file `elf`.
    pub fn of_elf(elf: &Path) -> Self {
        FilesRead {
            files: vec![FileRead {
                path: elf.to_path_buf(),
                role: FileRole::Elf,
            }],
        }
    }

    /// Adds `path` as `role` unless it is already listed under the same path.
    pub fn push(&mut self, path: &Path, role: FileRole) {
        if !self.files.iter().any(|f| f.path == path) {
            self.files.push(FileRead {
                path: path.to_path_buf(),
                role,
            });
        }
    }

    /// Adds files known to be distinct from each other (the `.dwo` files of a build,
    /// which may be thousands), checked against those listed so far only.
    pub(crate) fn extend_distinct<'p>(
        &mut self,
        paths: impl IntoIterator<Item = &'p Path>,
        role: FileRole,
    ) {
        let listed = self.files.len();
        for path in paths {
            if !self.files.iter().take(listed).any(|f| f.path == path) {
                self.files.push(FileRead {
                    path: path.to_path_buf(),
                    role,
                });
            }
        }
    }

    /// The files, the ELF first.
    pub fn as_slice(&self) -> &[FileRead] {
        &self.files
    }

    /// The ELF file the others were read for, when listed.
    pub fn elf(&self) -> Option<&Path> {
        self.first(FileRole::Elf)
    }

    /// The separate debug file the DWARF was read from (given, or found by build ID or
    /// `.gnu_debuglink`), when there was one.
    pub fn debug_file(&self) -> Option<&Path> {
        self.first(FileRole::DebugFile)
    }

    fn first(&self, role: FileRole) -> Option<&Path> {
        self.files
            .iter()
            .find(|f| f.role == role)
            .map(|f| f.path.as_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages given back read the same bytes again; bytes that are not in a mapping (here
    /// a vector, whose pages the advice would zero) are left alone.
    #[test]
    fn released_pages_read_the_same_bytes_and_other_memory_is_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pages.bin");
        let contents: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8 + 1).collect();
        std::fs::write(&path, &contents).unwrap();
        let map = map_file(&path).unwrap();
        assert_eq!(&*map, &contents[..]);
        release_pages(&map[4096..900_000]);
        release_pages(&map[..]);
        assert_eq!(&*map, &contents[..]);
        let copy = contents.clone();
        release_pages(&copy);
        assert_eq!(copy, contents);
        // A mapping dropped is forgotten; its successor is released as well.
        drop(map);
        let again = map_file(&path).unwrap();
        release_pages(&again[10..20]);
        assert_eq!(&*again, &contents[..]);
    }
}
