//! Breakpad `.sym` files as a source (`docs/formats/breakpad.md`, "Reading"): functions
//! with their line and `INLINE` records, public symbols and `STACK CFI` unwind rules,
//! read line by line into the model so that every address answers as rust-minidump's
//! `breakpad-symbols` answers it; names are borrowed from the file.

mod chunks;
mod fields;
mod function;
mod publics;
mod record;
mod tables;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use crate::model::Model;
use crate::model::Module;
use crate::Result;

/// What a `.sym` file holds, read into the model.
#[derive(Clone, Debug, Default)]
pub struct BreakpadSource<'a> {
    /// The `MODULE` record and `INFO CODE_ID`; `base` is 0 (record addresses are
    /// relative to the module's load address).
    pub module: Module,
    /// Functions (`FUNC` and `PUBLIC`), public symbols and unwind rules.
    pub model: Model<'a>,
    /// The addresses of `FUNC m` and `PUBLIC m` records (several symbols folded into
    /// one).
    pub multiple: BTreeSet<u64>,
    /// Records read past, counted by type: unknown record types, `STACK WIN`, `INFO`
    /// other than `CODE_ID`, and the `FUNC` records that answer nothing (`FUNC (size
    /// 0)`, `FUNC (overlapping)`, as `breakpad-symbols` drops them).
    pub skipped: BTreeMap<String, u64>,
}

/// Whether `bytes` looks like a Breakpad symbol file: it starts with a `MODULE` record.
pub fn looks_like_breakpad(bytes: &[u8]) -> bool {
    bytes.starts_with(b"MODULE ")
}

/// Reads the `.sym` file `bytes` (named `input` in errors) into the model.
///
/// * **`FUNC`**: a function `[address, address + size)` named by the record, whose pieces
///   share a depth-0 [`Span::instance`](crate::model::Span::instance) (the record's number
///   in the file, from 1), so that touching records of one name stay apart; a `FUNC` of
///   size 0 and one that overlaps a `FUNC` before it in address order answer nothing in
///   `breakpad-symbols` and are skipped (counted in [`BreakpadSource::skipped`]).
/// * **Line records** after a `FUNC` give the rows of the innermost span at their
///   addresses, which takes their file; a span is cut where the file of its rows changes
///   (the model has one file per span). Of overlapping line records the first in address
///   order counts; addresses without one have line 0 (no line).
/// * **`INLINE`** records give spans one deeper than their depth, named by their
///   `INLINE_ORIGIN`, with their call file and line, over the addresses where
///   `breakpad-symbols`' lookup reaches them; the ranges of one record share a
///   [`Span::instance`](crate::model::Span::instance), numbered from 1 in each function.
/// * **`PUBLIC`**: a symbol of type `T`, and a function from its address to the next
///   public's address or the next `FUNC`'s start (the last public: an empty one).
/// * **`STACK CFI INIT`** and the `STACK CFI` records after it: one
///   [`CfiRecord`](crate::model::CfiRecord), the rules kept verbatim.
///
/// # Errors
///
/// A [malformed](crate::ErrorKind::Malformed) error naming the line: a record cut short,
/// a bad number, a line record, `INLINE` or `STACK CFI` row that follows no `FUNC` or
/// `STACK CFI INIT`, a `FILE` or `INLINE_ORIGIN` number used before it is defined (or
/// defined twice differently), a range past 2⁶⁴, a `MODULE` record that is missing or
/// not first, a last line without its line ending (a cut file), and `INLINE` ranges that
/// make the lookup's answer undefined.
///
/// A large file is read on the rayon pool, in chunks (see `chunks`), with the same
/// result and the same errors as in one piece.
pub fn read<'a>(bytes: &'a [u8], input: &str) -> Result<BreakpadSource<'a>> {
    read_with(bytes, input, ReadOptions::default())
}

/// What [`read_with`] keeps of what it reads.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// Whether the `STACK CFI` rows after each `STACK CFI INIT` record are kept in its
    /// [`CfiRecord::rows`](crate::model::CfiRecord::rows) (the default). Without them
    /// they are still read and checked, with the same errors, but the records keep their
    /// `INIT` rules only: for a conversion to a format that holds no unwind rules, which
    /// so saves a third of a kernel file's records.
    pub unwind_rows: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { unwind_rows: true }
    }
}

/// [`read`], keeping what `options` says.
///
/// # Errors
///
/// Those of [`read`], whatever the options.
pub fn read_with<'a>(
    bytes: &'a [u8],
    input: &str,
    options: ReadOptions,
) -> Result<BreakpadSource<'a>> {
    chunks::read(bytes, input, options)
        .unwrap_or_else(|| record::Reader::new(input, options).read(bytes))
}
