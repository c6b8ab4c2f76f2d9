//! A file encoded straight from the ranges producers push on the rayon pool, for ranges
//! whose layout is known before they are pushed: each range's fields go into the VA and
//! range tables of the output, its line entries into the line table, without the
//! writer's records and line entries in between (for the kernel's `.sym` file, 54 MB
//! written and read again).
//!
//! The bytes are those of [`LidiaWriter::append_parallel`] then [`LidiaWriter::finish`].
//! This needs the ranges in (VA, depth) order (the writer would sort them) and the field
//! sizes before any range is pushed: the producer measures the ranges' largest values
//! first; string offsets and line indices cannot decide a field size while the strings
//! and line tables stay below 2³² bytes and entries.

use rayon::prelude::*;
use symblob::lidia::raw::{HEADER_SIZE, RANGE_FIELDS};
use zerocopy::IntoBytes;

use super::sections::{put_le, section_crcs};
use super::{
    header, Flags, InternedRange, Layout, LidiaWriter, LineEntry, Maxima, RangeSlots, Record,
};

/// How a file will be encoded directly: see [`LidiaWriter::direct`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Direct {
    layout: Layout,
}

impl LidiaWriter {
    /// The direct encoding of this writer's strings followed by `ranges` ranges with
    /// `line_entries` line entries, whose largest values (length, depth and line count;
    /// VA; line offsets and numbers, as the writer's flags store them) are `max`. `None`
    /// when the file cannot be encoded this way: the writer holds ranges already, the
    /// ranges are not in (VA, depth) order (`sorted`), or the strings or line tables are
    /// too large (see the module docs).
    pub(crate) fn direct(
        &self,
        ranges: usize,
        line_entries: usize,
        max: Maxima,
        sorted: bool,
    ) -> Option<Direct> {
        let line_entries = if self.flags.lines { line_entries } else { 0 };
        let small = |n: usize| u32::try_from(n).is_ok_and(|n| n < u32::MAX);
        let fits = small(self.strings.bytes().len()) && small(line_entries);
        if !self.records.is_empty() || !sorted || !fits {
            return None;
        }
        let layout = self.layout_of(ranges as u64, line_entries as u64, max);
        Some(Direct { layout })
    }

    /// The file of this writer's strings and of the ranges pushed by `fill`, encoded as
    /// `direct` says: part `i` of `parts` is `(input, ranges, line entries)` and
    /// `fill(input, slots)` pushes exactly that many, as for
    /// [`append_parallel`](Self::append_parallel).
    ///
    /// # Panics
    ///
    /// If a part pushes more or fewer ranges or line entries than it announced, or
    /// values larger than `direct` was measured with (a bug of the producer).
    pub(crate) fn finish_direct<T, F>(
        self,
        direct: Direct,
        parts: Vec<(T, usize, usize)>,
        fill: F,
    ) -> Vec<u8>
    where
        T: Send,
        F: Fn(T, &mut DirectSlots<'_>) + Sync,
    {
        let layout = direct.layout;
        let flags = self.flags;
        let va_size = layout.va_size as usize;
        let record_size = RANGE_FIELDS * layout.field_size as usize;
        let entry_size = 2 * layout.line_field_size as usize;
        let ranges = layout.ranges as usize;
        let sizes = [
            ranges * va_size,
            ranges * record_size,
            self.strings.bytes().len(),
            layout.line_entries as usize * entry_size,
        ];
        let mut out = vec![0; usize::try_from(layout.file_size).unwrap_or(0)];
        let (head, body) = out.split_at_mut(HEADER_SIZE);
        let (mut vas, rest) = body.split_at_mut(sizes[0]);
        let (mut records, rest) = rest.split_at_mut(sizes[1]);
        let (strings, mut lines) = rest.split_at_mut(sizes[2]);
        let mut jobs = Vec::with_capacity(parts.len());
        let mut line_base = 0;
        for (input, n, m) in parts {
            let m = if flags.lines { m } else { 0 };
            let (va, rest) = std::mem::take(&mut vas).split_at_mut(n * va_size);
            vas = rest;
            let (record, rest) = std::mem::take(&mut records).split_at_mut(n * record_size);
            records = rest;
            let (line, rest) = std::mem::take(&mut lines).split_at_mut(m * entry_size);
            lines = rest;
            let slots = DirectSlots {
                flags,
                layout,
                va,
                records: record,
                lines: line,
                line_base,
                next_record: 0,
                next_line: 0,
            };
            jobs.push((input, slots));
            line_base += m as u64;
        }
        rayon::join(
            || strings.copy_from_slice(self.strings.bytes()),
            || {
                jobs.into_par_iter().for_each(|(input, mut slots)| {
                    fill(input, &mut slots);
                    assert!(
                        slots.next_record * va_size == slots.va.len()
                            && slots.next_line * entry_size == slots.lines.len(),
                        "a part filled fewer ranges or line entries than it announced"
                    );
                });
            },
        );
        let crcs = section_crcs(body, sizes);
        head.copy_from_slice(header(&layout, crcs).as_bytes());
        out
    }
}

/// The slots of one part of [`LidiaWriter::finish_direct`]: its ranges' entries in the
/// VA and range tables and its line entries, encoded.
pub(crate) struct DirectSlots<'o> {
    flags: Flags,
    layout: Layout,
    va: &'o mut [u8],
    records: &'o mut [u8],
    lines: &'o mut [u8],
    /// Index in the whole line table of this part's first entry.
    line_base: u64,
    next_record: usize,
    next_line: usize,
}

impl RangeSlots for DirectSlots<'_> {
    fn flags(&self) -> Flags {
        self.flags
    }

    fn push(&mut self, range: InternedRange, lines: impl ExactSizeIterator<Item = LineEntry>) {
        let layout = self.layout;
        let line_index = self.line_base + self.next_line as u64;
        let count = lines.len();
        if self.flags.lines {
            let size = layout.line_field_size as usize;
            let at = self.next_line * 2 * size;
            let entries = self.lines[at..at + count * 2 * size].chunks_exact_mut(2 * size);
            let mut widest = 0;
            for (out, l) in entries.zip(lines) {
                widest |= l.offset | l.line;
                let (offset, line) = out.split_at_mut(size);
                put_le(offset, l.offset);
                put_le(line, l.line);
            }
            assert_fits(widest, size);
            self.next_line += count;
        }
        let record = Record::of(range, self.flags, line_index, count as u64);
        let size = layout.va_size as usize;
        let at = self.next_record * size;
        assert_fits(record.va, size);
        put_le(&mut self.va[at..at + size], record.va);
        assert_fits(record.widest_field(), layout.field_size as usize);
        let at = self.next_record * RANGE_FIELDS;
        match layout.field_size {
            4 => put_record::<4>(self.records, at, record.fields()),
            _ => put_record::<8>(self.records, at, record.fields()),
        }
        self.next_record += 1;
    }
}

/// Stores `fields` as the `at`-th record of fields of `N` bytes, little-endian, in one
/// copy.
#[inline(always)]
fn put_record<const N: usize>(out: &mut [u8], at: usize, fields: [u64; RANGE_FIELDS]) {
    let mut record = [[0u8; N]; RANGE_FIELDS];
    for (field, v) in record.iter_mut().zip(fields) {
        field.copy_from_slice(&v.to_le_bytes()[..N]);
    }
    out[at * N..(at + RANGE_FIELDS) * N].copy_from_slice(record.as_flattened());
}

/// That `widest` (the largest of values, or their OR) fits in fields of `size` bytes, as the layout was
/// measured to make them.
#[inline(always)]
fn assert_fits(widest: u64, size: usize) {
    assert!(
        size >= 8 || widest >> (8 * size) == 0,
        "a value larger than the layout was measured with"
    );
}
