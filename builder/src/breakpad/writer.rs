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
//! Names are written as the model holds them; [`crate::breakpad::elf`] gives them
//! dump_syms's form. Addresses are written relative to [`Module::base`]. The text is
//! deterministic for a given model.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{cfi, Module};
use crate::fast_hash::FastMap;
use crate::model::{function_runs, innermost, Group, Model, Row, Symbol};

/// What [`write_model`] wrote, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The `.sym` text.
    pub text: String,
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

/// Numbers given to files and origin names in order of first use.
#[derive(Default)]
struct Numbering<'s> {
    ids: FastMap<&'s [u8], usize>,
    names: Vec<&'s [u8]>,
}

impl<'s> Numbering<'s> {
    fn id(&mut self, name: &'s [u8]) -> usize {
        *self.ids.entry(name).or_insert_with(|| {
            self.names.push(name);
            self.names.len() - 1
        })
    }
}

/// The `.sym` text of `model` for `module`, with `multiple` as in
/// [`Entries::of_model`].
pub fn write_model(model: &Model<'_>, module: &Module, multiple: &BTreeSet<u64>) -> Written {
    let entries = Entries::of_model(model, module.base, multiple);
    write_entries(&entries, model, module)
}

/// The `.sym` text of `entries` (made from `model`) for `module`.
pub fn write_entries(entries: &Entries<'_, '_>, model: &Model<'_>, module: &Module) -> Written {
    let mut files = Numbering::default();
    let mut origins = Numbering::default();
    let mut written = Written::default();
    let mut body = String::new();
    for (&rva, entry) in &entries.by_address {
        let m = |multiple: bool| if multiple { "m " } else { "" };
        match entry {
            Entry::Func { pieces, multiple } => {
                let name = pieces[0].spans[0].name.as_ref();
                let len = run_len(pieces);
                let _ = writeln!(
                    body,
                    "FUNC {}{rva:x} {len:x} 0 {}",
                    m(*multiple),
                    String::from_utf8_lossy(name)
                );
                written.functions += 1;
                let end = rva.saturating_add(len);
                written.inlines +=
                    write_inlines(&mut body, pieces, entries.base, &mut files, &mut origins);
                written.lines += write_lines(&mut body, pieces, entries.base, end, &mut files);
            }
            Entry::Public { name, multiple } => {
                let name = if name.is_empty() {
                    "<name omitted>"
                } else {
                    name
                };
                let _ = writeln!(body, "PUBLIC {}{rva:x} 0 {name}", m(*multiple));
                written.publics += 1;
            }
        }
    }
    let mut text = String::with_capacity(body.len() + 4096);
    let _ = writeln!(
        text,
        "MODULE {} {} {} {}",
        module.os, module.arch, module.id, module.name
    );
    if let Some(code_id) = &module.code_id {
        let _ = writeln!(text, "INFO CODE_ID {code_id}");
    }
    for (n, file) in files.names.iter().enumerate() {
        let _ = writeln!(text, "FILE {n} {}", String::from_utf8_lossy(file));
    }
    for (n, origin) in origins.names.iter().enumerate() {
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
    text.push_str(&body);
    cfi::write(&mut text, &model.unwind, module.base);
    written.cfi = model.unwind.len();
    written.text = text;
    written
}

/// An inlined call's site as dump_syms keys it: (origin number, depth, call line, call
/// file number).
type Site = (usize, u32, u32, usize);

/// The `INLINE` records of one function; returns how many.
fn write_inlines<'s>(
    out: &mut String,
    pieces: &'s [Group<'_>],
    base: u64,
    files: &mut Numbering<'s>,
    origins: &mut Numbering<'s>,
) -> usize {
    let mut sites: BTreeMap<Site, Vec<(u64, u64)>> = BTreeMap::new();
    for span in pieces.iter().flat_map(|g| &g.spans).filter(|s| s.depth > 0) {
        let origin = origins.id(&span.name);
        let call_file = files.id(span.call_file.as_deref().unwrap_or(b""));
        let key = (origin, span.depth - 1, span.call_line, call_file);
        sites
            .entry(key)
            .or_default()
            .push((span.start.wrapping_sub(base), span.end.wrapping_sub(base)));
    }
    let mut records: Vec<_> = sites
        .into_iter()
        .map(|(key, mut ranges)| {
            ranges.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
            for (start, end) in ranges {
                match merged.last_mut() {
                    Some(last) if last.1 == start => last.1 = end,
                    _ => merged.push((start, end)),
                }
            }
            (key, merged)
        })
        .collect();
    records.sort_by_key(|((_, depth, ..), ranges)| (ranges[0].0, *depth));
    for ((origin, depth, line, file), ranges) in &records {
        let _ = write!(out, "INLINE {depth} {line} {file} {origin}");
        for (start, end) in ranges {
            let _ = write!(out, " {start:x} {:x}", end - start);
        }
        out.push('\n');
    }
    records.len()
}

/// The line records of one function ending at `end` (relative); returns how many.
fn write_lines<'s>(
    out: &mut String,
    pieces: &'s [Group<'_>],
    base: u64,
    end: u64,
    files: &mut Numbering<'s>,
) -> usize {
    // (address, line, file) of each record, relative addresses.
    let mut records: Vec<(u64, u32, usize)> = Vec::new();
    for group in pieces {
        for (from, to, k) in innermost(&group.spans) {
            let span = &group.spans[k];
            let file = span.file.as_deref().unwrap_or(b"");
            let first = span.rows.partition_point(|r| r.addr <= from);
            let in_force = first.checked_sub(1).map(|i| &span.rows[i]);
            // Where the innermost span has no row in force, a line 0 record of its file
            // (else the record before would reach over these addresses; a span without a
            // file gets the file of empty name, which answers no file).
            let lineless = Row {
                addr: from,
                line: 0,
            };
            let in_force = in_force.or(Some(&lineless));
            let starting = span.rows[first..].iter().take_while(|r| r.addr < to);
            // Every row is a record (the DWARF source merges repeated lines already; a
            // `.sym` file read back keeps its records as rows).
            for row in in_force.into_iter().chain(starting) {
                records.push((
                    row.addr.max(from).wrapping_sub(base),
                    row.line,
                    files.id(file),
                ));
            }
        }
    }
    for (i, &(addr, line, file)) in records.iter().enumerate() {
        let next = records.get(i + 1).map_or(end, |r| r.0);
        let len = next.saturating_sub(addr);
        let _ = writeln!(out, "{addr:x} {len:x} {line} {file}");
    }
    records.len()
}
