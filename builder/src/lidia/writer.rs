//! The Lidia v1 range writer: ranges in, bytes out, identical to Pyroscope's Go writer for
//! the same ranges and flags (spec sections 3–10, 12.5 and 13).
//!
//! Each range is stored as one fixed-size record as soon as it is added (its strings
//! interned, its line entries appended to one shared array), so millions of ranges cost no
//! per-range allocation. [`LidiaWriter::finish`] / [`LidiaWriter::write_to`] stable-sort the
//! records by (VA, depth), pick the field sizes, compute the four CRC32Cs in a first pass
//! and stream the sections in a second, so no second copy of the output is ever built.

use std::io::{self, Write};

use symblob::lidia::raw::{
    Header, StringsHeader, TableHeader, HEADER_SIZE, MAGIC, RANGE_FIELDS, VERSION,
};
use zerocopy::little_endian::{U32, U64};
use zerocopy::IntoBytes;

use super::strings::StringTable;
use sections::Sections;

mod direct;
mod sections;

pub(crate) use direct::Direct;

/// Which optional data the writer stores (Go's `WithFiles()` and `WithLines()`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags {
    /// Store each range's file and call-file strings (otherwise both offsets are 0).
    pub files: bool,
    /// Store each range's line entries (otherwise every line reference is 0/0).
    pub lines: bool,
}

impl Flags {
    /// Files and lines both stored (`--files --lines`).
    pub const FILES_AND_LINES: Flags = Flags {
        files: true,
        lines: true,
    };
}

/// One line-table entry: from `offset` bytes past its range's VA on, the source line is
/// `line` (spec section 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineEntry {
    /// Byte offset from the VA of the range that owns the entry.
    pub offset: u64,
    /// Source line number.
    pub line: u64,
}

/// One address range as a producer hands it to [`LidiaWriter::add`].
#[derive(Clone, Copy, Debug)]
pub struct RangeSpec<'a> {
    /// Start address (an ELF virtual address).
    pub va: u64,
    /// Length in bytes: the range is `[va, va + length)`.
    pub length: u64,
    /// Inline depth: 0 for a top-level function, `d` for a call inlined into depth `d − 1`.
    pub depth: u64,
    /// Function name, stored as given (no demangling, any bytes).
    pub function: &'a [u8],
    /// Source file of the function (stored only with [`Flags::files`]).
    pub file: &'a [u8],
    /// File of the call site that was inlined (stored only with [`Flags::files`]).
    pub call_file: &'a [u8],
    /// Line of the call site; stored whatever the flags, like Go does.
    pub call_line: u64,
    /// Line entries in ascending offset order (stored only with [`Flags::lines`]).
    pub lines: &'a [LineEntry],
}

/// Field sizes and section sizes of the file a writer will produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Number of ranges.
    pub ranges: u64,
    /// VA table entry size: 4 or 8.
    pub va_size: u64,
    /// Range table field size: 4 or 8.
    pub field_size: u64,
    /// Line table field size: 2 or 4.
    pub line_field_size: u64,
    /// Byte length of the strings table.
    pub strings_size: u64,
    /// Number of line-table entries.
    pub line_entries: u64,
    /// Total file size in bytes.
    pub file_size: u64,
}

/// One range as stored: its values with strings already turned into offsets.
#[derive(Clone, Copy, Debug, Default)]
struct Record {
    va: u64,
    length: u64,
    depth: u64,
    func: u64,
    file: u64,
    line_index: u64,
    line_count: u64,
    call_file: u64,
    call_line: u64,
}

impl Record {
    /// What the writer stores for `range` under `flags`, its line entries being
    /// `line_count` from `line_index` on: without [`Flags::files`] no file offsets,
    /// without [`Flags::lines`] no line entries.
    fn of(range: InternedRange, flags: Flags, line_index: u64, line_count: u64) -> Record {
        let (file, call_file) = if flags.files {
            (range.file, range.call_file)
        } else {
            (0, 0)
        };
        let (line_index, line_count) = if flags.lines {
            (line_index, line_count)
        } else {
            (0, 0)
        };
        Record {
            va: range.va,
            length: range.length,
            depth: range.depth,
            func: range.func,
            file,
            line_index,
            line_count,
            call_file,
            call_line: range.call_line,
        }
    }

    /// The range-table fields, in file order.
    fn fields(&self) -> [u64; RANGE_FIELDS] {
        [
            self.length,
            self.depth,
            self.func,
            self.file,
            self.line_index,
            self.line_count,
            // Not size-checked by Go: truncated to the field size like it does.
            self.call_file,
            self.call_line,
        ]
    }

    /// The largest of the fields that decide the range table's field size: like the Go
    /// writer, the call file and call line are not considered (spec section 8).
    fn widest_field(&self) -> u64 {
        self.length
            .max(self.depth)
            .max(self.func)
            .max(self.file)
            .max(self.line_index)
            .max(self.line_count)
    }
}

/// Collects ranges and writes them as a Lidia v1 file.
pub struct LidiaWriter {
    flags: Flags,
    records: Vec<Record>,
    strings: StringTable,
    lines: Vec<LineEntry>,
    /// Largest VA seen, for the VA entry size.
    max_va: u64,
    /// Largest of the size-checked range fields seen (call file and line are not checked).
    max_field: u64,
    /// Largest line offset or line number seen.
    max_line_value: u64,
    /// The (VA, depth) of the last range added, and whether every range so far came in
    /// (VA, depth) order, so that [`Self::sort`] need not even check them.
    order: Order,
}

/// Whether ranges came in (VA, depth) order: the keys of the first and last, and
/// whether each one's key was at least the one's before.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Order {
    first: Option<(u64, u64)>,
    last: Option<(u64, u64)>,
    pub sorted: bool,
}

impl Default for Order {
    fn default() -> Self {
        Order {
            first: None,
            last: None,
            sorted: true,
        }
    }
}

impl Order {
    /// After a range of key `key`.
    pub(crate) fn push(&mut self, key: (u64, u64)) {
        self.first.get_or_insert(key);
        self.sorted &= self.last.is_none_or(|last| last <= key);
        self.last = Some(key);
    }

    /// After the ranges of `self`, those of `next`.
    pub(crate) fn then(self, next: Order) -> Order {
        let meet = match (self.last, next.first) {
            (Some(last), Some(first)) => last <= first,
            _ => true,
        };
        Order {
            first: self.first.or(next.first),
            last: next.last.or(self.last),
            sorted: self.sorted && next.sorted && meet,
        }
    }
}

impl LidiaWriter {
    /// An empty writer storing the optional data that `flags` selects.
    pub fn new(flags: Flags) -> Self {
        LidiaWriter {
            flags,
            records: Vec::new(),
            strings: StringTable::new(),
            lines: Vec::new(),
            max_va: 0,
            max_field: 0,
            max_line_value: 0,
            order: Order::default(),
        }
    }

    /// Adds one range. Its strings are interned now, in the order function, file, call
    /// file, so string offsets follow insertion order exactly as in Go's range collector.
    pub fn add(&mut self, range: &RangeSpec<'_>) {
        let func = self.strings.add(range.function);
        let (file, call_file) = if self.flags.files {
            let file = self.strings.add(range.file);
            (file, self.strings.add(range.call_file))
        } else {
            (0, 0)
        };
        self.add_interned(InternedRange::of(range, func, file, call_file), range.lines);
    }

    /// Adds one range whose strings are interned already, in [`Self::add`]'s order
    /// (function, file, call file).
    fn add_interned(&mut self, range: InternedRange, lines: &[LineEntry]) {
        let line_index = self.lines.len() as u64;
        if self.flags.lines {
            self.lines.extend_from_slice(lines);
            for l in lines {
                self.max_line_value = self.max_line_value.max(l.offset).max(l.line);
            }
        }
        let record = Record::of(range, self.flags, line_index, lines.len() as u64);
        self.max_va = self.max_va.max(record.va);
        self.max_field = self.max_field.max(record.widest_field());
        self.order.push((record.va, record.depth));
        self.records.push(record);
    }

    /// The optional data this writer stores.
    pub(crate) fn flags(&self) -> Flags {
        self.flags
    }

    /// The strings-table offset of `s`, whose [`strings::hash`](super::strings::hash) is
    /// `hash`, storing it first if it is new: [`Self::add`]'s interning, one string at a
    /// time, for producers that prepare ranges on other threads.
    pub(crate) fn intern_hashed(&mut self, s: &[u8], hash: u64) -> u64 {
        self.strings.add_hashed(s, hash)
    }

    /// Makes room for `more` strings of `bytes` table bytes (length prefixes included)
    /// to be interned (see [`Self::intern_hashed`]).
    pub(crate) fn reserve_strings(&mut self, more: usize, bytes: usize) {
        self.strings.reserve(more, bytes);
    }

    /// Appends ranges produced on the rayon pool: part `i` of `parts` is `(input, ranges,
    /// line entries)` and `fill(input, slots)` pushes exactly that many ranges and line
    /// entries into its slots, with strings already interned (see [`Self::intern_hashed`]).
    /// The ranges land in part order, exactly as if each part's ranges had been added
    /// one by one; the records and line entries are written in place, so no part is
    /// copied and the tables never grow by reallocation.
    ///
    /// # Panics
    ///
    /// If a part pushes more or fewer ranges or line entries than it announced (a bug of
    /// the producer).
    pub(crate) fn append_parallel<T, F>(&mut self, parts: Vec<(T, usize, usize)>, fill: F)
    where
        T: Send,
        F: Fn(T, &mut PartSlots<'_>) + Sync,
    {
        use rayon::prelude::*;

        let lines_on = self.flags.lines;
        let ranges: usize = parts.iter().map(|p| p.1).sum();
        let entries: usize = if lines_on {
            parts.iter().map(|p| p.2).sum()
        } else {
            0
        };
        let first_record = self.records.len();
        let first_line = self.lines.len();
        // Zeroed in parallel: first touches of fresh pages are a real cost at this size.
        self.records.reserve_exact(ranges);
        self.records
            .par_extend(rayon::iter::repeat_n(Record::default(), ranges));
        self.lines.reserve_exact(entries);
        self.lines.par_extend(rayon::iter::repeat_n(
            LineEntry { offset: 0, line: 0 },
            entries,
        ));
        let mut jobs = Vec::with_capacity(parts.len());
        let mut records = &mut self.records[first_record..];
        let mut lines = &mut self.lines[first_line..];
        let mut line_base = first_line as u64;
        for (input, n, m) in parts {
            let m = if lines_on { m } else { 0 };
            let (r, rest) = std::mem::take(&mut records).split_at_mut(n);
            records = rest;
            let (l, rest) = std::mem::take(&mut lines).split_at_mut(m);
            lines = rest;
            jobs.push((input, r, l, line_base));
            line_base += m as u64;
        }
        let flags = self.flags;
        let parts: Vec<(Maxima, Order)> = jobs
            .into_par_iter()
            .map(|(input, records, lines, line_base)| {
                let mut slots = PartSlots {
                    flags,
                    records,
                    lines,
                    line_base,
                    next_record: 0,
                    next_line: 0,
                    max: Maxima::default(),
                    order: Order::default(),
                };
                fill(input, &mut slots);
                assert!(
                    slots.next_record == slots.records.len()
                        && slots.next_line == slots.lines.len(),
                    "a part filled fewer ranges or line entries than it announced"
                );
                (slots.max, slots.order)
            })
            .collect();
        let mut maxima = Maxima::default();
        for (max, order) in parts {
            maxima = Maxima::merge(maxima, max);
            self.order = self.order.then(order);
        }
        self.max_va = self.max_va.max(maxima.va);
        self.max_field = self.max_field.max(maxima.field);
        self.max_line_value = self.max_line_value.max(maxima.line_value);
    }

    /// Number of ranges added so far.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no range was added.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The field sizes and section sizes the output will have (spec section 8).
    pub fn layout(&self) -> Layout {
        let max = Maxima {
            va: self.max_va,
            field: self.max_field,
            line_value: self.max_line_value,
        };
        self.layout_of(self.records.len() as u64, self.lines.len() as u64, max)
    }

    /// The layout of a file of this writer's strings and `ranges` ranges with
    /// `line_entries` line entries, whose largest values are `max`.
    fn layout_of(&self, ranges: u64, line_entries: u64, max: Maxima) -> Layout {
        let va_size = if max.va > u64::from(u32::MAX) { 8 } else { 4 };
        let field_size = if max.field > u64::from(u32::MAX) {
            8
        } else {
            4
        };
        let line_field_size = if max.line_value > 0xFFFF { 4 } else { 2 };
        let strings_size = self.strings.bytes().len() as u64;
        let file_size = HEADER_SIZE as u64
            + ranges * va_size
            + ranges * RANGE_FIELDS as u64 * field_size
            + strings_size
            + line_entries * 2 * line_field_size;
        Layout {
            ranges,
            va_size,
            field_size,
            line_field_size,
            strings_size,
            line_entries,
            file_size,
        }
    }

    /// Sorts the ranges and returns the whole file, encoded in place once (its sections
    /// on the rayon pool, then each section's CRC over the whole section).
    pub fn finish(mut self) -> Vec<u8> {
        let layout = self.sort();
        let mut out = vec![0; usize::try_from(layout.file_size).unwrap_or(0)];
        let (head, body) = out.split_at_mut(HEADER_SIZE);
        let crcs = self.sections(&layout).encode_into(body);
        head.copy_from_slice(header(&layout, crcs).as_bytes());
        out
    }

    /// Sorts the ranges and streams the file into `w`, section by section, without
    /// building the whole file in memory (pieces of the sections are encoded and
    /// checksummed on the rayon pool).
    pub fn write_to<W: Write + ?Sized>(mut self, w: &mut W) -> io::Result<()> {
        let layout = self.sort();
        let sections = self.sections(&layout);
        let crcs = sections.crcs();
        w.write_all(header(&layout, crcs).as_bytes())?;
        sections.write_to(w)?;
        Ok(())
    }

    /// Sorts the ranges by (VA, depth), stably: ranges with equal (VA, depth) keep their
    /// insertion order (spec 10). Returns the layout.
    fn sort(&mut self) -> Layout {
        // Ranges added in order (every model source's) are neither checked nor moved.
        if !self.order.sorted {
            self.records.sort_by_key(|r| (r.va, r.depth));
        }
        self.layout()
    }

    /// The sections of the sorted ranges.
    fn sections<'w>(&'w self, layout: &'w Layout) -> Sections<'w> {
        Sections {
            layout,
            records: &self.records,
            strings: self.strings.bytes(),
            lines: &self.lines,
        }
    }
}

/// The largest values that decide the field sizes (see [`LidiaWriter`]'s fields).
#[derive(Clone, Copy, Default)]
pub(crate) struct Maxima {
    pub va: u64,
    pub field: u64,
    pub line_value: u64,
}

impl Maxima {
    pub(crate) fn merge(a: Maxima, b: Maxima) -> Maxima {
        Maxima {
            va: a.va.max(b.va),
            field: a.field.max(b.field),
            line_value: a.line_value.max(b.line_value),
        }
    }
}

/// A range for [`PartSlots::push`]: [`RangeSpec`]'s values with its strings already
/// turned into strings-table offsets (see [`LidiaWriter::intern_hashed`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct InternedRange {
    /// Start address.
    pub va: u64,
    /// Length in bytes.
    pub length: u64,
    /// Inline depth.
    pub depth: u64,
    /// Offset of the function name.
    pub func: u64,
    /// Offset of the file (ignored without [`Flags::files`]).
    pub file: u64,
    /// Offset of the call file (ignored without [`Flags::files`]).
    pub call_file: u64,
    /// Line of the call site.
    pub call_line: u64,
}

impl InternedRange {
    /// `range`'s values with the offsets of its strings.
    pub(crate) fn of(range: &RangeSpec<'_>, func: u64, file: u64, call_file: u64) -> Self {
        InternedRange {
            va: range.va,
            length: range.length,
            depth: range.depth,
            func,
            file,
            call_file,
            call_line: range.call_line,
        }
    }
}

/// The slots of one part of [`LidiaWriter::append_parallel`]: ranges pushed here land at
/// the part's place in the writer.
pub(crate) struct PartSlots<'w> {
    flags: Flags,
    records: &'w mut [Record],
    lines: &'w mut [LineEntry],
    /// Index in the whole line table of this part's first entry.
    line_base: u64,
    next_record: usize,
    next_line: usize,
    max: Maxima,
    order: Order,
}

/// Where a producer pushes the ranges of one part: the writer's records
/// ([`PartSlots`]) or the encoded file ([`Direct`]'s slots).
pub(crate) trait RangeSlots {
    /// The optional data the writer stores: without [`Flags::files`] the file offsets are
    /// ignored, without [`Flags::lines`] the line entries are.
    fn flags(&self) -> Flags;

    /// Pushes one range whose strings are already interned. Stores what
    /// [`LidiaWriter::add`] stores for the same range.
    fn push(&mut self, range: InternedRange, lines: impl ExactSizeIterator<Item = LineEntry>);
}

impl RangeSlots for PartSlots<'_> {
    fn flags(&self) -> Flags {
        self.flags
    }

    fn push(&mut self, range: InternedRange, lines: impl ExactSizeIterator<Item = LineEntry>) {
        let line_index = self.line_base + self.next_line as u64;
        let count = lines.len();
        if self.flags.lines {
            let end = self.next_line + count;
            for (slot, l) in self.lines[self.next_line..end].iter_mut().zip(lines) {
                self.max.line_value = self.max.line_value.max(l.offset).max(l.line);
                *slot = l;
            }
            self.next_line = end;
        }
        let record = Record::of(range, self.flags, line_index, count as u64);
        self.max.va = self.max.va.max(record.va);
        self.max.field = self.max.field.max(record.widest_field());
        self.order.push((record.va, record.depth));
        self.records[self.next_record] = record;
        self.next_record += 1;
    }
}

/// The 128-byte header for `layout`, with the sections packed as Go packs them.
fn header(layout: &Layout, crcs: [u32; 4]) -> Header {
    let n = layout.ranges;
    let va_offset = HEADER_SIZE as u64;
    let range_offset = va_offset + n * layout.va_size;
    let strings_offset = range_offset + n * RANGE_FIELDS as u64 * layout.field_size;
    let lines_offset = strings_offset + layout.strings_size;
    let table = |entry_size: u64, count: u64, offset: u64, crc: u32| TableHeader {
        entry_size: U64::new(entry_size),
        count: U64::new(count),
        offset: U64::new(offset),
        crc: U32::new(crc),
        reserved: U32::new(0),
    };
    Header {
        magic: MAGIC,
        version: U32::new(VERSION),
        va: table(layout.va_size, n, va_offset, crcs[0]),
        ranges: table(layout.field_size, n, range_offset, crcs[1]),
        strings: StringsHeader {
            size: U64::new(layout.strings_size),
            offset: U64::new(strings_offset),
            crc: U32::new(crcs[2]),
            reserved: U32::new(0),
        },
        lines: table(
            layout.line_field_size,
            layout.line_entries,
            lines_offset,
            crcs[3],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(va: u64, depth: u64, name: &[u8]) -> RangeSpec<'_> {
        RangeSpec {
            va,
            length: 0x10,
            depth,
            function: name,
            file: b"",
            call_file: b"",
            call_line: 0,
            lines: &[],
        }
    }

    /// Ranges added out of (VA, depth) order, one by one or as parts, are sorted as
    /// Go's writer sorts them (stably); the same ranges added in order are not moved.
    #[test]
    fn ranges_out_of_order_are_sorted() {
        let names: Vec<Vec<u8>> = (0..6).map(|i| format!("f{i}").into_bytes()).collect();
        let keys = [
            (0x30, 0),
            (0x10, 1),
            (0x10, 0),
            (0x20, 0),
            (0x10, 1),
            (0x40, 2),
        ];
        let mut sorted: Vec<usize> = (0..keys.len()).collect();
        sorted.sort_by_key(|&i| keys[i]);
        let mut shuffled = LidiaWriter::new(Flags::default());
        let mut in_order = LidiaWriter::new(Flags::default());
        // Strings are interned first, in one order, so that both files share offsets.
        for name in &names {
            shuffled.strings.add(name);
            in_order.strings.add(name);
        }
        for (i, &(va, depth)) in keys.iter().enumerate() {
            shuffled.add(&range(va, depth, &names[i]));
        }
        for &i in &sorted {
            let (va, depth) = keys[i];
            in_order.add(&range(va, depth, &names[i]));
        }
        assert!(!shuffled.order.sorted && in_order.order.sorted);
        assert!(shuffled.finish() == in_order.finish());
    }

    /// Parts in order whose boundaries are not are out of order as a whole.
    #[test]
    fn order_of_parts_meets_at_their_boundaries() {
        let part = |keys: &[(u64, u64)]| {
            let mut order = Order::default();
            keys.iter().for_each(|&k| order.push(k));
            order
        };
        let (a, b) = (part(&[(1, 0), (5, 0)]), part(&[(4, 1), (9, 0)]));
        assert!(a.sorted && b.sorted && !a.then(b).sorted);
        assert!(a.then(part(&[])).then(part(&[(5, 0)])).sorted);
        assert!(part(&[]).then(a).sorted);
    }
}
