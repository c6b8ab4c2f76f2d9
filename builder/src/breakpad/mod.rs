//! Breakpad symbol files (`docs/formats/breakpad.md`): the text `.sym` format of crash
//! reporting, with functions, line records, inlined calls, public symbols and unwind rules
//! (`STACK CFI`), written as Mozilla's `dump_syms` writes them.
//!
//! * [`writer`]: the `.sym` text from the [model](crate::model), with the module's
//!   identity ([`Module`]) and its unwind rows (`STACK CFI`).
//! * `names`: dump_syms's names of functions and forms of paths, on the model.
//!
//! The unwind rows come from the source [`crate::cfi`]; an ELF file's `.sym` by
//! dump_syms's rules is [`crate::pipeline::breakpad::from_elf`]; reading `.sym` files
//! back into the model is [`crate::readback::breakpad`].

pub(crate) mod names;
pub mod writer;

pub use crate::model::Module;
pub use writer::{write_model, SymSink, SymText, Written};
