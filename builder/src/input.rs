//! Input files: memory-mapped where possible, so that a build reads only the pages it
//! needs (a 590 MB kernel image costs a few MB of memory), and read otherwise.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

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
