//! ksym-bin blobs from an ELF file: its text symbols ([`crate::elf::read_elf`]) given to
//! the ksym writer ([`crate::ksym::build`]), with the text ranges a reader needs.
//!
//! This is what a `build.rs` that embeds the symbol table of a kernel or firmware image
//! calls (feature `ksym` alone).

use std::ops::Range;

use crate::elf::read_elf;
use crate::ksym::{build, BuildOptions, Built, InputOptions, SymbolList};
use crate::Result;

/// A blob built from an ELF file, with what the reader needs to use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfBuild {
    /// The blob.
    pub blob: Built,
    /// The ELF's text ranges (see
    /// [`ElfSymbols::text_ranges`](crate::elf::ElfSymbols::text_ranges)).
    pub text_ranges: Vec<Range<u64>>,
    /// The symbols read and what was skipped.
    pub symbols: SymbolList,
}

/// Reads an ELF file's text symbols ([`read_elf`]) and builds a blob from them; `input`
/// names the file in error messages.
pub fn build_from_elf(
    data: &[u8],
    input: &str,
    input_options: &InputOptions,
    options: &BuildOptions,
) -> Result<ElfBuild> {
    let elf = read_elf(data, input, input_options)?;
    let blob = build(&elf.symbols.symbols, options)?;
    Ok(ElfBuild {
        blob,
        text_ranges: elf.text_ranges,
        symbols: elf.symbols,
    })
}
