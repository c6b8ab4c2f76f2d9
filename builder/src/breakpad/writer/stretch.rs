//! A stretch of consecutive `FUNC` and `PUBLIC` records, numbered and then formatted on
//! its own, so that stretches run in parallel.
//!
//! Files and inline origins are numbered in order of first use over the whole file, and
//! their `FILE` and `INLINE_ORIGIN` records come before every function. So the writer
//! makes two passes: [`first_uses`] lists what each stretch uses, in its order of first
//! use, and [`Numbers::of`] numbers them (a name's first use in the file is its first use
//! in the first stretch that uses it, so the file's order is the stretches' orders one
//! after another); then [`format`] writes each stretch with those numbers. Nothing but
//! the names is kept between the passes, so the text can be written a few stretches at a
//! time.

use super::fields::{push_dec, push_hex};
use super::{run_len, Entry};
use crate::fast_hash::{fast_map, FastMap};
use crate::model::{innermost, Group, Row, Span};

/// One stretch's entries: relative address and record.
pub(super) type Entries<'e, 'g, 'a> = [(u64, &'e Entry<'g, 'a>)];

/// Names numbered in order of first use.
///
/// The model shares one allocation among the spans of one file or one name, so a name is
/// looked up by where it is first (two words to hash), and by its bytes only the first
/// time an allocation is met.
pub(super) struct Numbering<'s> {
    ids: FastMap<&'s [u8], usize>,
    /// (address, length) of each allocation met → its number.
    by_place: FastMap<(usize, usize), usize>,
    /// The names, by number.
    pub(super) names: Vec<&'s [u8]>,
}

impl Default for Numbering<'_> {
    fn default() -> Self {
        Numbering {
            ids: fast_map(),
            by_place: fast_map(),
            names: Vec::new(),
        }
    }
}

impl<'s> Numbering<'s> {
    fn id(&mut self, name: &'s [u8]) -> usize {
        let place = (name.as_ptr() as usize, name.len());
        if let Some(&id) = self.by_place.get(&place) {
            return id;
        }
        let id = *self.ids.entry(name).or_insert_with(|| {
            self.names.push(name);
            self.names.len() - 1
        });
        self.by_place.insert(place, id);
        id
    }

    /// Numbers the names of `later` that are new here after these, and learns where
    /// `later` met each name.
    fn merge(&mut self, later: Numbering<'s>) {
        let ids: Vec<usize> = later.names.iter().map(|name| self.id(name)).collect();
        for (place, id) in later.by_place {
            self.by_place.insert(place, ids[id]);
        }
    }

    /// The number of a name the first pass met (0 for any other, which the writer never
    /// asks for).
    fn of(&self, name: &[u8]) -> usize {
        let place = (name.as_ptr() as usize, name.len());
        match self.by_place.get(&place) {
            Some(&id) => id,
            None => self.ids.get(name).copied().unwrap_or_default(),
        }
    }
}

/// The files and inline origins of the whole file, numbered.
#[derive(Default)]
pub(super) struct Numbers<'s> {
    /// Files, by number.
    pub(super) files: Numbering<'s>,
    /// Inline origins, by number.
    pub(super) origins: Numbering<'s>,
}

impl<'s> Numbers<'s> {
    /// Numbers the names of `stretches` (each as [`first_uses`] gave it), taken in order.
    pub(super) fn of(stretches: Vec<Numbers<'s>>) -> Self {
        let mut all = Numbers::default();
        for stretch in stretches {
            all.files.merge(stretch.files);
            all.origins.merge(stretch.origins);
        }
        all
    }
}

/// Record counts of a formatted stretch.
#[derive(Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) functions: usize,
    pub(super) publics: usize,
    pub(super) lines: usize,
    pub(super) inlines: usize,
}

/// The files and origins `entries` use, in their order of first use: the order in which
/// [`format`] writes them.
pub(super) fn first_uses<'s>(entries: &Entries<'_, 's, '_>) -> Numbers<'s> {
    let mut numbers = Numbers::default();
    for (_, entry) in entries {
        let Entry::Func { pieces, .. } = entry else {
            continue;
        };
        for span in inlined(pieces) {
            numbers.origins.id(&span.name);
            numbers.files.id(call_file(span));
        }
        for group in pieces.iter() {
            for (_, _, k) in innermost(&group.spans) {
                numbers.files.id(file(&group.spans[k]));
            }
        }
    }
    numbers
}

/// The text of `entries`, functions' addresses relative to `base`, with the files and
/// origins of `numbers`; and its record counts.
pub(super) fn format(
    entries: &Entries<'_, '_, '_>,
    base: u64,
    numbers: &Numbers<'_>,
) -> (String, Counts) {
    let mut out = String::new();
    let mut counts = Counts::default();
    let mut scratch = InlineScratch::default();
    let m = |multiple: bool| if multiple { "m " } else { "" };
    for &(rva, entry) in entries {
        match entry {
            Entry::Func { pieces, multiple } => {
                let name = String::from_utf8_lossy(&pieces[0].spans[0].name);
                let len = run_len(pieces);
                out.push_str("FUNC ");
                out.push_str(m(*multiple));
                push_hex(&mut out, rva);
                out.push(' ');
                push_hex(&mut out, len);
                out.push_str(" 0 ");
                out.push_str(&name);
                out.push('\n');
                counts.functions += 1;
                counts.inlines += write_inlines(&mut out, pieces, base, numbers, &mut scratch);
                let end = rva.saturating_add(len);
                counts.lines += write_lines(&mut out, pieces, base, end, numbers);
            }
            Entry::Public { name, multiple } => {
                let name = if name.is_empty() {
                    "<name omitted>"
                } else {
                    name
                };
                out.push_str("PUBLIC ");
                out.push_str(m(*multiple));
                push_hex(&mut out, rva);
                out.push_str(" 0 ");
                out.push_str(name);
                out.push('\n');
                counts.publics += 1;
            }
        }
    }
    (out, counts)
}

/// The inlined calls of a function's pieces.
fn inlined<'g, 'a>(pieces: &'g [Group<'a>]) -> impl Iterator<Item = &'g Span<'a>> {
    pieces.iter().flat_map(|g| &g.spans).filter(|s| s.depth > 0)
}

/// A span's file (no file: the file of empty name, which answers no file).
fn file<'s>(span: &'s Span<'_>) -> &'s [u8] {
    span.file.as_deref().unwrap_or(b"")
}

/// An inlined call's call file.
fn call_file<'s>(span: &'s Span<'_>) -> &'s [u8] {
    span.call_file.as_deref().unwrap_or(b"")
}

/// An inlined call's site as dump_syms keys it: (origin number, depth, call line, call
/// file number).
type Site = (usize, u32, u32, usize);

/// The lists [`write_inlines`] sorts, kept from one function to the next so that a
/// function does not allocate its own.
#[derive(Default)]
struct InlineScratch {
    /// (site, start, end) of every inlined span.
    spans: Vec<(Site, u64, u64)>,
    /// Each site's ranges, sorted and adjacent ones merged, one site after the other.
    merged: Vec<(u64, u64)>,
    /// Each site and where its ranges lie in `merged`.
    records: Vec<(Site, usize, usize)>,
}

/// The `INLINE` records of one function: one per site, with the address ranges of its
/// spans sorted and adjacent ones merged, in order of first address, then depth (sites
/// that tie in the order of their keys); returns how many.
fn write_inlines(
    out: &mut String,
    pieces: &[Group<'_>],
    base: u64,
    numbers: &Numbers<'_>,
    scratch: &mut InlineScratch,
) -> usize {
    let InlineScratch {
        spans,
        merged,
        records,
    } = scratch;
    spans.clear();
    merged.clear();
    records.clear();
    for span in inlined(pieces) {
        let origin = numbers.origins.of(&span.name);
        let file = numbers.files.of(call_file(span));
        spans.push((
            (origin, span.depth - 1, span.call_line, file),
            span.start.wrapping_sub(base),
            span.end.wrapping_sub(base),
        ));
    }
    // By site, then by range: the sites come out in the order of their keys.
    spans.sort_unstable();
    for &(site, start, end) in spans.iter() {
        match records.last_mut() {
            Some((last, _, to)) if *last == site => match merged.last_mut() {
                Some(range) if range.1 == start => range.1 = end,
                _ => {
                    merged.push((start, end));
                    *to += 1;
                }
            },
            _ => {
                records.push((site, merged.len(), merged.len() + 1));
                merged.push((start, end));
            }
        }
    }
    records.sort_by_key(|&((_, depth, ..), from, _)| (merged[from].0, depth));
    for &((origin, depth, line, file), from, to) in records.iter() {
        out.push_str("INLINE ");
        push_dec(out, depth);
        out.push(' ');
        push_dec(out, line);
        out.push(' ');
        push_dec(out, file);
        out.push(' ');
        push_dec(out, origin);
        for &(start, end) in &merged[from..to] {
            out.push(' ');
            push_hex(out, start);
            out.push(' ');
            push_hex(out, end - start);
        }
        out.push('\n');
    }
    records.len()
}

/// The line records of one function ending at `end` (relative): at each address the row
/// in force of the innermost span there, a record at every row and wherever the
/// innermost span changes; returns how many.
fn write_lines(
    out: &mut String,
    pieces: &[Group<'_>],
    base: u64,
    end: u64,
    numbers: &Numbers<'_>,
) -> usize {
    // (address, line, file) of each record, relative addresses.
    let mut records: Vec<(u64, u32, usize)> = Vec::new();
    for group in pieces {
        for (from, to, k) in innermost(&group.spans) {
            let span = &group.spans[k];
            let file = numbers.files.of(file(span));
            let first = span.rows.partition_point(|r| r.addr <= from);
            // Where the innermost span has no row in force, a line 0 record of its file
            // (else the record before would reach over these addresses).
            let lineless = Row {
                addr: from,
                line: 0,
            };
            let in_force = first.checked_sub(1).map_or(&lineless, |i| &span.rows[i]);
            let starting = span.rows[first..].iter().take_while(|r| r.addr < to);
            // Every row is a record (the DWARF source merges repeated lines already; a
            // `.sym` file read back keeps its records as rows).
            for row in std::iter::once(in_force).chain(starting) {
                records.push((row.addr.max(from).wrapping_sub(base), row.line, file));
            }
        }
    }
    for (i, &(addr, line, file)) in records.iter().enumerate() {
        let next = records.get(i + 1).map_or(end, |r| r.0);
        let len = next.saturating_sub(addr);
        push_hex(out, addr);
        out.push(' ');
        push_hex(out, len);
        out.push(' ');
        push_dec(out, line);
        out.push(' ');
        push_dec(out, file);
        out.push('\n');
    }
    records.len()
}
