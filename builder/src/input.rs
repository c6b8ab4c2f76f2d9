//! Input files: memory-mapped where possible, so that a build reads only the pages it
//! needs (a 590 MB kernel image costs a few MB of memory), and read otherwise.

use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::{Error, Result};

/// The bytes of an input file: mapped, or read when mapping is not possible.
pub enum InputBytes {
    /// A read-only memory map of the file.
    Mapped(Mmap),
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

/// Maps `path` read-only: the builder's one way of mapping a file.
pub fn map_file(path: &Path) -> Result<Mmap> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: the mapping is read-only and private to this process, and its bytes are
    // treated as untrusted input whatever they contain. A file truncated or rewritten by
    // another process while it is mapped is the one case memmap2 cannot protect against;
    // every tool that maps its inputs (linkers, objcopy, llvm-symbolizer) shares it.
    unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))
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
