//! Breakpad symbol files (`docs/formats/breakpad.md`): the text `.sym` format of crash
//! reporting, with functions, line records, inlined calls, public symbols and unwind rules
//! (`STACK CFI`), written as Mozilla's `dump_syms` writes them.
//!
//! * [`cfi`]: unwind rules from `.eh_frame` and `.debug_frame` (gimli parses the CIEs and
//!   FDEs; the translation into Breakpad's postfix rules is ours).
//! * [`module`]: the `MODULE` and `INFO CODE_ID` identity of an ELF file.
//! * [`writer`]: the `.sym` text from the [model](crate::model).
//! * [`elf`]: an ELF file's `.sym` by dump_syms's rules (DWARF functions, symbol-table
//!   publics, section markers, unwind rules).
//!
//! Reading `.sym` files back into the model is [`crate::readback::breakpad`].

pub mod cfi;
pub mod elf;
pub mod module;
mod symbols;
pub mod writer;

pub use elf::{from_elf, from_elf_into, Built};
pub use module::Module;
pub use writer::{write_model, SymSink, SymText, Written};
