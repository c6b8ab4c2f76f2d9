//! The Breakpad `.sym` writer: the [model](crate::model) as `MODULE`, `INFO CODE_ID`,
//! `FILE`, `INLINE_ORIGIN`, `FUNC` (with its `INLINE` and line records), `PUBLIC` and
//! `STACK CFI` records, laid out as Mozilla's `dump_syms --inlines` lays them out.
//!
//! What becomes which record:
//!
//! * **`FUNC`**: every function of the model (its pieces joined by [`function_runs`]),
//!   unless it is a public symbol's: a single span without rows where a symbol of the
//!   same name starts (as [`crate::readback::breakpad`] reads a `PUBLIC` record, and the
//!   ksym source gives its symbols' functions). Of several
//!   functions at one address the first is written, marked `m`; a function at the
//!   module's base address (address 0 in the file) is not written, as dump_syms skips it.
//! * **Line records**: at each address, the row in force of the innermost span there,
//!   with that span's file; a record starts at every row and wherever the innermost span
//!   changes (dump_syms emits the lines of each inline level apart), and reaches to the
//!   next record or the function's end.
//! * **`INLINE`**: one record per (origin name, depth, call line, call file) in a
//!   function, with the address ranges of its spans, sorted and adjacent ones merged
//!   (dump_syms keys inlined calls by that site); records in the order of their first
//!   address, then depth.
//! * **`PUBLIC`**: each symbol that no function contains (the last entry before it
//!   decides, as dump_syms's `is_inside_symbol`) and that is not at a function's address;
//!   several at one address give the first, marked `m`. Parameter sizes are 0 (ELF has
//!   none).
//! * **`FILE`** and **`INLINE_ORIGIN`** numbers are given in order of first use in the
//!   output; an empty origin name is written `<name omitted>`.
//!
//! Names are written as the model holds them; [`crate::pipeline::breakpad`] gives them
//! dump_syms's form. Addresses are written relative to [`Module::base`]. The text is
//! deterministic for a given model.

mod cfi;
mod fields;
mod stretch;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use rayon::prelude::*;

pub use self::cfi::write as write_cfi;
use self::stretch::{Counts, Numbers};
pub use self::text::{SymSink, SymText};
use super::Module;
use crate::model::{function_runs, CfiRecord, Group, Model, Symbol};
use crate::Result;

/// What the writer wrote, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Bytes of text.
    pub bytes: usize,
    /// `FUNC` records.
    pub functions: usize,
    /// `PUBLIC` records.
    pub publics: usize,
    /// Line records.
    pub lines: usize,
    /// `INLINE` records.
    pub inlines: usize,
    /// `STACK CFI INIT` records.
    pub cfi: usize,
}

/// One address's record: a function (its pieces) or a public symbol.
enum Entry<'g, 'a> {
    Func {
        pieces: &'g [Group<'a>],
        multiple: bool,
    },
    Public {
        name: &'g str,
        multiple: bool,
    },
}

/// The `FUNC` and `PUBLIC` records of a model, by address relative to the module's base.
pub struct Entries<'g, 'a> {
    by_address: BTreeMap<u64, Entry<'g, 'a>>,
    base: u64,
}

impl<'g, 'a> Entries<'g, 'a> {
    /// The records of `model`'s functions and symbols (see the module docs); `multiple`
    /// names further addresses whose record is marked `m` (a `.sym` file read back).
    pub fn of_model(model: &'g Model<'a>, base: u64, multiple: &BTreeSet<u64>) -> Self {
        let mut entries = Entries {
            by_address: BTreeMap::new(),
            base,
        };
        let public_at: BTreeSet<(u64, &str)> = model
            .symbols
            .iter()
            .map(|s| (s.address, s.name.as_str()))
            .collect();
        for pieces in function_runs(&model.functions) {
            let Some(first) = pieces.first().and_then(|g| g.spans.first()) else {
                continue;
            };
            let name = std::str::from_utf8(&first.name).unwrap_or("");
            let bare = pieces
                .iter()
                .all(|g| g.spans.len() == 1 && g.spans[0].rows.is_empty());
            if bare && public_at.contains(&(first.start, name)) {
                continue;
            }
            entries.add_function(pieces);
        }
        entries.add_publics(&model.symbols);
        for rva in multiple {
            match entries.by_address.get_mut(rva) {
                Some(Entry::Func { multiple, .. } | Entry::Public { multiple, .. }) => {
                    *multiple = true
                }
                None => {}
            }
        }
        entries
    }

    /// Adds a `FUNC` record for `pieces` (one function), or marks the one at its address
    /// `m`.
    fn add_function(&mut self, pieces: &'g [Group<'a>]) {
        let rva = pieces
            .first()
            .map_or(0, Group::start)
            .wrapping_sub(self.base);
        if rva == 0 {
            return;
        }
        match self.by_address.get_mut(&rva) {
            Some(Entry::Func { multiple, .. }) => *multiple = true,
            Some(Entry::Public { .. }) => {}
            None => {
                self.by_address.insert(
                    rva,
                    Entry::Func {
                        pieces,
                        multiple: false,
                    },
                );
            }
        }
    }

    /// Adds a `PUBLIC` record for each of `symbols` (in their order) that no function
    /// contains, marking the record at an address `m` when a second symbol has it.
    pub fn add_publics(&mut self, symbols: &'g [Symbol]) {
        for symbol in symbols {
            let rva = symbol.address.wrapping_sub(self.base);
            if self.is_inside_function(rva) {
                continue;
            }
            match self.by_address.get_mut(&rva) {
                Some(Entry::Public { multiple, .. }) => *multiple = true,
                Some(Entry::Func { .. }) => {}
                None => {
                    self.by_address.insert(
                        rva,
                        Entry::Public {
                            name: &symbol.name,
                            multiple: false,
                        },
                    );
                }
            }
        }
    }

    /// Adds a `PUBLIC` record at `rva` unless a record is there already (dump_syms's
    /// `<.text ELF section in NAME>` markers, which skip the checks symbols go through).
    pub fn add_marker(&mut self, rva: u64, name: &'g str) {
        self.by_address.entry(rva).or_insert(Entry::Public {
            name,
            multiple: false,
        });
    }

    /// Whether the last record before `rva` is a function that reaches past it.
    fn is_inside_function(&self, rva: u64) -> bool {
        let Some((&start, Entry::Func { pieces, .. })) = self.by_address.range(..rva).next_back()
        else {
            return false;
        };
        rva < start.saturating_add(run_len(pieces))
    }
}

/// Bytes covered by a run of pieces.
fn run_len(pieces: &[Group<'_>]) -> u64 {
    let start = pieces.first().map_or(0, Group::start);
    pieces.last().map_or(0, Group::end).saturating_sub(start)
}

/// The `.sym` text of `model` for `module`, with `multiple` as in
/// [`Entries::of_model`], in memory.
///
/// # Errors
///
/// None in practice: memory takes every part.
pub fn write_model(
    model: &Model<'_>,
    module: &Module,
    multiple: &BTreeSet<u64>,
) -> Result<(SymText, Written)> {
    let entries = Entries::of_model(model, module.base, multiple);
    let mut text = SymText::default();
    let written = write_entries(&entries, model, module, &mut text)?;
    Ok((text, written))
}

/// Stretches per thread: enough that threads finish together when functions differ in
/// size.
const STRETCHES_PER_THREAD: usize = 32;

/// Stretches per thread in one window of the text: a window is formatted while the one
/// before is handed to the sink, and its stretches are shared out among the threads.
const WINDOW_STRETCHES_PER_THREAD: usize = 4;

/// Writes the `.sym` text of `entries` (made from `model`) for `module` to `sink`.
///
/// The records are taken in stretches, twice, each pass in parallel: first the files and
/// inline origins each stretch uses, which the `FILE` and `INLINE_ORIGIN` records at the
/// start number; then the text, a window of stretches at a time, each window handed to
/// `sink` while the next is formatted, so that little of the text is held at once. The
/// text is the same as one pass in address order would write.
///
/// # Errors
///
/// What `sink` returned.
pub fn write_entries(
    entries: &Entries<'_, '_>,
    model: &Model<'_>,
    module: &Module,
    sink: &mut dyn SymSink,
) -> Result<Written> {
    let all: Vec<(u64, &Entry<'_, '_>)> = entries.by_address.iter().map(|(&a, e)| (a, e)).collect();
    let threads = rayon::current_num_threads().max(1);
    let stretches = threads.saturating_mul(STRETCHES_PER_THREAD);
    let per_stretch = all.len().div_ceil(stretches).max(1);
    let numbers = Numbers::of(
        all.par_chunks(per_stretch)
            .map(stretch::first_uses)
            .collect(),
    );
    let mut written = Written {
        cfi: model.unwind.len(),
        ..Written::default()
    };
    let mut send = |text: String, written: &mut Written| {
        written.bytes += text.len();
        sink.part(text)
    };
    send(header(module, &numbers), &mut written)?;
    let window = per_stretch.saturating_mul(threads.saturating_mul(WINDOW_STRETCHES_PER_THREAD));
    let format = |window: &[(u64, &Entry<'_, '_>)]| -> Vec<(String, Counts)> {
        window
            .par_chunks(per_stretch)
            .map(|stretch| stretch::format(stretch, entries.base, &numbers))
            .collect()
    };
    let per_part = model.unwind.len().div_ceil(stretches).max(1);
    let format_cfi = |window: &[CfiRecord<'_>]| -> Vec<(String, Counts)> {
        window
            .par_chunks(per_part)
            .map(|records| {
                let mut text = String::new();
                cfi::write(&mut text, records, module.base);
                (text, Counts::default())
            })
            .collect()
    };
    let windows = all.chunks(window).map(Window::Records).chain(
        model
            .unwind
            .chunks(per_part.saturating_mul(threads))
            .map(Window::Unwind),
    );
    let mut pending: Vec<(String, Counts)> = Vec::new();
    for window in windows {
        let mut formatted = Vec::new();
        let sent = rayon::in_place_scope(|scope| {
            scope.spawn(|_| {
                formatted = match window {
                    Window::Records(w) => format(w),
                    Window::Unwind(w) => format_cfi(w),
                }
            });
            send_all(std::mem::take(&mut pending), &mut written, &mut send)
        });
        sent?;
        pending = formatted;
    }
    send_all(pending, &mut written, &mut send)?;
    Ok(written)
}

/// A window of the text: function and public records, or unwind records.
enum Window<'w, 'e, 'g, 'a> {
    Records(&'w [(u64, &'e Entry<'g, 'a>)]),
    Unwind(&'w [CfiRecord<'a>]),
}

/// Hands a formatted window's parts to the sink in order, counting their records.
fn send_all(
    parts: Vec<(String, Counts)>,
    written: &mut Written,
    send: &mut impl FnMut(String, &mut Written) -> Result<()>,
) -> Result<()> {
    for (text, counts) in parts {
        written.functions += counts.functions;
        written.publics += counts.publics;
        written.lines += counts.lines;
        written.inlines += counts.inlines;
        send(text, written)?;
    }
    Ok(())
}

/// The `MODULE`, `INFO CODE_ID`, `FILE` and `INLINE_ORIGIN` records.
fn header(module: &Module, numbers: &Numbers<'_>) -> String {
    let mut text = String::new();
    // `write!` to a `String` cannot fail.
    let _ = writeln!(
        text,
        "MODULE {} {} {} {}",
        module.os, module.arch, module.id, module.name
    );
    if let Some(code_id) = &module.code_id {
        let _ = writeln!(text, "INFO CODE_ID {code_id}");
    }
    for (n, file) in numbers.files.names.iter().enumerate() {
        let _ = writeln!(text, "FILE {n} {}", String::from_utf8_lossy(file));
    }
    for (n, origin) in numbers.origins.names.iter().enumerate() {
        let name: String = String::from_utf8_lossy(origin)
            .chars()
            .filter(|c| !c.is_ascii_control())
            .collect();
        let name = if name.trim().is_empty() {
            "<name omitted>".to_owned()
        } else {
            name
        };
        let _ = writeln!(text, "INLINE_ORIGIN {n} {name}");
    }
    text
}
