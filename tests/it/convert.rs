//! `symblob convert` (`symblob_build::convert`): every pair of ksym-bin, Lidia, symbfile
//! and GSYM, from sources built from the C, C++, Rust and Go test programs, and from the
//! GSYM files `llvm-gsymutil-14 --convert` writes of them.
//!
//! The independent expectation is the input itself: at about 600 addresses spread over
//! every function `nm` lists, the frames the output answers equal the input's, for the
//! facts both formats hold (names only when ksym-bin is one of them; names, inline
//! chains, files and lines between Lidia, symbfile and GSYM); for LLVM's GSYM files, the
//! answers of `llvm-gsymutil-14 --address` on the original. Where the input was built from
//! DWARF, the Lidia and symbfile outputs also equal `llvm-symbolizer-14`'s frames (with the
//! Lidia DWARF tests' named disagreements). Round trips A → B → A give A's bytes back
//! wherever B holds every fact of A.

pub(crate) mod frames;
mod llvm_gsym;
mod pairs;
mod round_trips;

use std::path::{Path, PathBuf};

use symblob_build::convert::{convert, ConvertOptions, Target};

use crate::common::testdata;
use crate::lidia_dwarf::fixtures::fixtures;

/// The formats convert reads and writes.
pub const TARGETS: [Target; 5] = [
    Target::Ksym,
    Target::Lidia,
    Target::Symbfile,
    Target::Gsym,
    Target::Breakpad,
];

/// A test program: its name and ELF file. The committed ones always; the compiled ones
/// when their toolchain is installed (otherwise reported as a missing oracle).
pub fn programs() -> Vec<(&'static str, PathBuf)> {
    let mut out = vec![
        ("inl", testdata("lidia/elf/inl")),
        ("gohello", testdata("lidia/elf/gohello")),
    ];
    for name in ["c-dwarf5", "cpp-gxx", "rust", "go"] {
        if let Some(bin) = fixtures().get(name) {
            out.push((name, bin.to_path_buf()));
        }
    }
    out
}

/// `bytes` (named `name`) converted to `to`.
pub fn converted(name: &str, bytes: &[u8], to: Target) -> Vec<u8> {
    convert(Path::new(name), bytes, to, &ConvertOptions::default())
        .unwrap_or_else(|e| panic!("{name} to {to:?}: {e}"))
        .bytes
}

/// The program at `bin` built into `to` (convert's ELF source).
pub fn built(bin: &Path, to: Target) -> Vec<u8> {
    let bytes = std::fs::read(bin).expect("read program");
    convert(bin, &bytes, to, &ConvertOptions::default())
        .unwrap_or_else(|e| panic!("{} to {to:?}: {e}", bin.display()))
        .bytes
}
