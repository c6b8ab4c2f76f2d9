//! A stretch of consecutive `FUNC` and `PUBLIC` records, prepared and then formatted on
//! its own, so that stretches run in parallel.
//!
//! Files and inline origins are numbered in order of first use over the whole file, which
//! a stretch cannot know while it is prepared: it numbers them in its own order of first
//! use. Once every stretch is prepared, [`Numbers::of`] gives each stretch's numbers their
//! numbers in the file: a name's first use in the file is its first use in the first
//! stretch that uses it, so the file's order is the stretches' orders one after another.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;

use super::{run_len, Entry};
use crate::fast_hash::FastMap;
use crate::model::{innermost, Group, Row};

/// Names numbered in order of first use.
#[derive(Default)]
pub(super) struct Numbering<'s> {
    ids: FastMap<&'s [u8], u32>,
    pub(super) names: Vec<&'s [u8]>,
}

impl<'s> Numbering<'s> {
    fn id(&mut self, name: &'s [u8]) -> u32 {
        *self.ids.entry(name).or_insert_with(|| {
            self.names.push(name);
            (self.names.len() - 1) as u32
        })
    }
}

/// One `FUNC` or `PUBLIC` record and, for a function, where its `INLINE` and line records
/// are in the stretch.
enum Item<'s> {
    Func {
        rva: u64,
        len: u64,
        multiple: bool,
        name: &'s [u8],
        inlines: Range<usize>,
        lines: Range<usize>,
    },
    Public {
        rva: u64,
        name: &'s str,
        multiple: bool,
    },
}

/// A line record: relative address, line, stretch file number (its size is the distance
/// to the next record, or to the function's end).
struct Line {
    addr: u64,
    line: u32,
    file: u32,
}

/// An `INLINE` record with stretch numbers: an inlined call's site as dump_syms keys it,
/// and where its merged address ranges are in the stretch.
struct Inline {
    origin: u32,
    depth: u32,
    line: u32,
    file: u32,
    ranges: Range<usize>,
}

/// A prepared stretch.
#[derive(Default)]
pub(super) struct Stretch<'s> {
    items: Vec<Item<'s>>,
    lines: Vec<Line>,
    inlines: Vec<Inline>,
    ranges: Vec<(u64, u64)>,
    /// The files the stretch uses, in its order of first use.
    pub(super) files: Numbering<'s>,
    /// The inline origins the stretch uses, in its order of first use.
    pub(super) origins: Numbering<'s>,
}

/// Record counts of a formatted stretch.
#[derive(Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) functions: usize,
    pub(super) publics: usize,
    pub(super) lines: usize,
    pub(super) inlines: usize,
}

/// The numbers in the file of each stretch's files and origins.
pub(super) struct Numbers<'s> {
    /// Every file, numbered in the file's order.
    pub(super) files: Vec<&'s [u8]>,
    /// Every origin, numbered in the file's order.
    pub(super) origins: Vec<&'s [u8]>,
    /// Per stretch: its file numbers' numbers in the file.
    file_maps: Vec<Vec<u32>>,
    /// Per stretch: its origin numbers' numbers in the file.
    origin_maps: Vec<Vec<u32>>,
}

impl<'s> Numbers<'s> {
    /// Numbers the files and origins of `stretches`, taken in order.
    pub(super) fn of(stretches: &[Stretch<'s>]) -> Self {
        let mut files = Numbering::default();
        let mut origins = Numbering::default();
        let mut file_maps = Vec::with_capacity(stretches.len());
        let mut origin_maps = Vec::with_capacity(stretches.len());
        for stretch in stretches {
            file_maps.push(stretch.files.names.iter().map(|n| files.id(n)).collect());
            origin_maps.push(
                stretch
                    .origins
                    .names
                    .iter()
                    .map(|n| origins.id(n))
                    .collect(),
            );
        }
        Numbers {
            files: files.names,
            origins: origins.names,
            file_maps,
            origin_maps,
        }
    }
}

impl<'s> Stretch<'s> {
    /// Prepares the records of `entries` (consecutive, by relative address), whose
    /// functions' addresses are relative to `base`.
    pub(super) fn prepare(entries: &[(u64, &Entry<'s, '_>)], base: u64) -> Self {
        let mut stretch = Stretch::default();
        for &(rva, entry) in entries {
            let item = match entry {
                Entry::Func { pieces, multiple } => {
                    let len = run_len(pieces);
                    let inlines = stretch.add_inlines(pieces, base);
                    let lines = stretch.add_lines(pieces, base);
                    Item::Func {
                        rva,
                        len,
                        multiple: *multiple,
                        name: &pieces[0].spans[0].name,
                        inlines,
                        lines,
                    }
                }
                Entry::Public { name, multiple } => Item::Public {
                    rva,
                    name,
                    multiple: *multiple,
                },
            };
            stretch.items.push(item);
        }
        stretch
    }

    /// Adds one function's `INLINE` records: one per (origin, depth, call line, call
    /// file), with the address ranges of its spans sorted and adjacent ones merged.
    fn add_inlines(&mut self, pieces: &'s [Group<'_>], base: u64) -> Range<usize> {
        type Site = (u32, u32, u32, u32);
        let mut sites: BTreeMap<Site, Vec<(u64, u64)>> = BTreeMap::new();
        for span in pieces.iter().flat_map(|g| &g.spans).filter(|s| s.depth > 0) {
            // Origin before call file: the order of first use the numbering keeps.
            let origin = self.origins.id(&span.name);
            let call_file = self.files.id(span.call_file.as_deref().unwrap_or(b""));
            sites
                .entry((origin, span.depth - 1, span.call_line, call_file))
                .or_default()
                .push((span.start.wrapping_sub(base), span.end.wrapping_sub(base)));
        }
        let first = self.inlines.len();
        for ((origin, depth, line, file), mut ranges) in sites {
            ranges.sort_unstable();
            let from = self.ranges.len();
            for (start, end) in ranges {
                match self.ranges[from..].last_mut() {
                    Some(last) if last.1 == start => last.1 = end,
                    _ => self.ranges.push((start, end)),
                }
            }
            self.inlines.push(Inline {
                origin,
                depth,
                line,
                file,
                ranges: from..self.ranges.len(),
            });
        }
        first..self.inlines.len()
    }

    /// Adds one function's line records: at each address the row in force of the
    /// innermost span there, a record at every row and wherever the innermost span
    /// changes.
    fn add_lines(&mut self, pieces: &'s [Group<'_>], base: u64) -> Range<usize> {
        let first = self.lines.len();
        for group in pieces {
            for (from, to, k) in innermost(&group.spans) {
                let span = &group.spans[k];
                let file = self.files.id(span.file.as_deref().unwrap_or(b""));
                let at = span.rows.partition_point(|r| r.addr <= from);
                // Where the innermost span has no row in force, a line 0 record of its
                // file (else the record before would reach over these addresses; a span
                // without a file gets the file of empty name, which answers no file).
                let lineless = Row {
                    addr: from,
                    line: 0,
                };
                let in_force = at.checked_sub(1).map_or(&lineless, |i| &span.rows[i]);
                let starting = span.rows[at..].iter().take_while(|r| r.addr < to);
                // Every row is a record (the DWARF source merges repeated lines already;
                // a `.sym` file read back keeps its records as rows).
                for row in std::iter::once(in_force).chain(starting) {
                    self.lines.push(Line {
                        addr: row.addr.max(from).wrapping_sub(base),
                        line: row.line,
                        file,
                    });
                }
            }
        }
        first..self.lines.len()
    }

    /// The text of stretch number `n` of `numbers`, and its record counts.
    pub(super) fn format(&self, n: usize, numbers: &Numbers<'_>) -> (String, Counts) {
        let files = &numbers.file_maps[n];
        let origins = &numbers.origin_maps[n];
        let mut out = String::with_capacity(self.lines.len() * 16 + self.items.len() * 64);
        let mut counts = Counts::default();
        let mut sites: Vec<(u64, u32, u32, u32, u32, Range<usize>)> = Vec::new();
        let m = |multiple: bool| if multiple { "m " } else { "" };
        // `write!` to a `String` cannot fail.
        for item in &self.items {
            match item {
                Item::Func {
                    rva,
                    len,
                    multiple,
                    name,
                    inlines,
                    lines,
                } => {
                    let _ = writeln!(
                        out,
                        "FUNC {}{rva:x} {len:x} 0 {}",
                        m(*multiple),
                        String::from_utf8_lossy(name)
                    );
                    counts.functions += 1;
                    // In order of first address, then depth; sites that tie keep the
                    // order of their keys with the file's numbers.
                    sites.clear();
                    sites.extend(self.inlines[inlines.clone()].iter().map(|s| {
                        let start = self.ranges.get(s.ranges.start).map_or(0, |r| r.0);
                        let origin = origins[s.origin as usize];
                        let file = files[s.file as usize];
                        (start, s.depth, origin, s.line, file, s.ranges.clone())
                    }));
                    sites.sort_unstable_by_key(|s| (s.0, s.1, s.2, s.3, s.4));
                    for (_, depth, origin, line, file, ranges) in &sites {
                        let _ = write!(out, "INLINE {depth} {line} {file} {origin}");
                        for (start, end) in &self.ranges[ranges.clone()] {
                            let _ = write!(out, " {start:x} {:x}", end - start);
                        }
                        out.push('\n');
                    }
                    counts.inlines += sites.len();
                    let end = rva.saturating_add(*len);
                    let records = &self.lines[lines.clone()];
                    for (i, record) in records.iter().enumerate() {
                        let next = records.get(i + 1).map_or(end, |r| r.addr);
                        let size = next.saturating_sub(record.addr);
                        let _ = writeln!(
                            out,
                            "{:x} {size:x} {} {}",
                            record.addr, record.line, files[record.file as usize]
                        );
                    }
                    counts.lines += records.len();
                }
                Item::Public {
                    rva,
                    name,
                    multiple,
                } => {
                    let name = if name.is_empty() {
                        "<name omitted>"
                    } else {
                        name
                    };
                    let _ = writeln!(out, "PUBLIC {}{rva:x} 0 {name}", m(*multiple));
                    counts.publics += 1;
                }
            }
        }
        (out, counts)
    }
}
