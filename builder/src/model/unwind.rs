//! Unwind rules: how to find the caller's registers at each address of a function, as
//! Breakpad's `STACK CFI INIT` and `STACK CFI` records state them (the one format symblob
//! reads or writes that holds them).
//!
//! The rules stay in Breakpad's postfix text (`.cfa: $rsp 8 + .ra: .cfa -8 + ^`): it is
//! the form every consumer of these rules reads (rust-minidump, Breakpad's processor,
//! LLDB), it names registers per architecture, and a rule read from a `.sym` file is
//! written back unchanged.
//!
//! The text is borrowed where the source has it in memory (a `.sym` file's lines: a
//! kernel's file has 330,000 of them) and owned where the source makes it (the rules
//! translated from `.eh_frame`).

use std::borrow::Cow;

/// The unwind rules of one address range (a `STACK CFI INIT` record with the `STACK CFI`
/// records that follow it).
///
/// Invariant: `rows` are in ascending address order, each inside
/// `[start, start + size)`; addresses are link-time addresses like the rest of the model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CfiRecord<'a> {
    /// First address the rules cover.
    pub start: u64,
    /// Bytes covered.
    pub size: u64,
    /// The rules in force at `start`: `.cfa: …`, `.ra: …` and saved registers, each
    /// `name: postfix expression`, separated by one space.
    ///
    /// Empty when dump_syms writes no `INIT` line for the range (none of its first
    /// rules can be expressed, for example a CFA that is a DWARF expression): the rows
    /// are then written alone (see `crate::cfi`).
    pub init: Cow<'a, str>,
    /// Changes of the rules later in the range.
    pub rows: Vec<CfiRow<'a>>,
}

/// From `address` on, the rules named in `rules` change (the others stay in force).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CfiRow<'a> {
    /// Link-time address where the change takes effect.
    pub address: u64,
    /// The changed rules, in the form of [`CfiRecord::init`].
    pub rules: Cow<'a, str>,
}
