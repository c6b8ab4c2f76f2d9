//! Symbol lists as text: `nm -n` output, System.map and `/proc/kallsyms`, and the
//! detection of which one (or an ELF file) an input is.
//!
//! Each reader yields a [`SymbolList`] of the [model](crate::model); the rules for
//! each format are in the [`ksym`](crate::ksym) module docs.

mod kallsyms;
mod line;
mod nm;

pub use kallsyms::parse_kallsyms;
pub use line::LineError;
pub use nm::parse_nm;

use crate::model::{InputOptions, SymbolList};
use crate::Result;

/// The kinds of input a ksym-bin blob can be built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// `nm -n` (or `nm -n -C`) output, or a System.map.
    Nm,
    /// `/proc/kallsyms` text (module column allowed).
    Kallsyms,
    /// An ELF file, read directly.
    Elf,
}

/// Guesses the format of `bytes`: the ELF magic gives [`InputFormat::Elf`]; a TAB
/// followed by `[` somewhere (a `/proc/kallsyms` module column) gives
/// [`InputFormat::Kallsyms`]; anything else is [`InputFormat::Nm`].
pub fn detect_format(bytes: &[u8]) -> InputFormat {
    if bytes.starts_with(b"\x7fELF") {
        InputFormat::Elf
    } else if bytes.windows(2).any(|w| w == b"\t[") {
        InputFormat::Kallsyms
    } else {
        InputFormat::Nm
    }
}

/// Reads `bytes` in `format`; `input` names the input in error messages (a path or
/// `<stdin>`). For ELF input this keeps the symbols only; [`read_elf`](crate::elf::read_elf)
/// also returns the text ranges.
pub fn parse_input(
    bytes: &[u8],
    format: InputFormat,
    input: &str,
    options: &InputOptions,
) -> Result<SymbolList> {
    match format {
        InputFormat::Nm => parse_nm(bytes, input, options),
        InputFormat::Kallsyms => kallsyms::parse_kallsyms(bytes, input, options),
        InputFormat::Elf => Ok(crate::elf::read_elf(bytes, input, options)?.symbols),
    }
}
