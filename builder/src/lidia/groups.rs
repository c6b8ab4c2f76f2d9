//! The model's function groups as Lidia ranges: every span of every group becomes one
//! range, groups in address order and spans in (start, depth) order, so the file answers
//! lookups like `llvm-symbolizer --inlining --functions=linkage`, and Pyroscope's Go
//! reader still selects the right frames.
//!
//! The groups are handed to the [`LidiaWriter`] on every core, with exactly the bytes of
//! adding their spans one by one in that order.
//!
//! The order-dependent part of adding a range is interning its strings: offsets follow
//! first insertion (spec 13.1). It is split in three steps:
//! 1. per part of the groups, in parallel: each string is hashed once and given a
//!    part-local id in first-occurrence order ([`ChunkStrings`]); ranges and line rows
//!    are counted;
//! 2. serially, part by part: each part's distinct strings are interned with their hashes,
//!    which gives every string the offset one in-order pass would give it;
//! 3. per part, in parallel: the records and line entries are written straight into their
//!    final slots ([`LidiaWriter::append_parallel`]), and, when the writer owns them
//!    ([`LidiaWriter::add_groups`]), the part's groups are freed on the same worker.
//!
//! [`LidiaWriter::finish_with_groups`] goes further when the spans come in (address,
//! depth) order: step 1 also measures the values that decide the field sizes, so the
//! layout is known after step 2, and step 3 encodes each range straight into the file
//! (`LidiaWriter::finish_direct`).

use rayon::prelude::*;

use crate::lidia::strings::ChunkStrings;
use crate::lidia::writer::{Direct, InternedRange, Maxima, Order, RangeSlots};
use crate::lidia::{Flags, LidiaWriter, LineEntry};
use crate::model::{Group, Span};

/// Groups per part: small enough for several parts per core (the parts differ in size),
/// large enough that the strings shared by neighbouring functions (file paths, names of
/// inlined callees) meet in one part and are merged once.
const MIN_PART: usize = 2048;

impl LidiaWriter {
    /// Adds every span of the model's `groups` as one range each, in order (groups in
    /// address order, spans in (start, depth) order), on the rayon pool, and frees the
    /// groups. The bytes are those of adding the ranges one by one.
    pub fn add_groups(&mut self, mut groups: Vec<Group<'_>>) {
        let part_len = part_len(groups.len());
        emit_in_parts(Groups::Owned(&mut groups), self, part_len);
    }

    /// [`add_groups`](Self::add_groups) of borrowed groups (the caller frees them).
    pub fn add_borrowed_groups(&mut self, groups: &[Group<'_>]) {
        emit_in_parts(Groups::Borrowed(groups), self, part_len(groups.len()));
    }

    /// [`add_borrowed_groups`](Self::add_borrowed_groups) then [`finish`](Self::finish),
    /// with the same bytes: when the writer holds no range yet and the spans come in
    /// (address, depth) order, as every model source gives them, the ranges are encoded
    /// straight into the file.
    pub fn finish_with_groups(self, groups: &[Group<'_>]) -> Vec<u8> {
        finish_in_parts(groups, self, part_len(groups.len()))
    }
}

/// Groups per part for `n` groups: several parts per core.
fn part_len(n: usize) -> usize {
    let parts = rayon::current_num_threads().saturating_mul(4).max(1);
    n.div_ceil(parts).max(MIN_PART)
}

/// The groups a writer is given: borrowed, or its own to free as it goes.
enum Groups<'a, 'g> {
    Borrowed(&'a [Group<'g>]),
    Owned(&'a mut [Group<'g>]),
}

/// [`LidiaWriter::add_groups`] with parts of `part_len` groups.
fn emit_in_parts(mut groups: Groups<'_, '_>, writer: &mut LidiaWriter, part_len: usize) {
    let part_len = part_len.max(1);
    let all: &[Group<'_>] = match &groups {
        Groups::Borrowed(g) => g,
        Groups::Owned(g) => g,
    };
    let interned = scan_and_intern(all, writer, part_len, false);
    // Step 3.
    let parts: Vec<Groups<'_, '_>> = match &mut groups {
        Groups::Borrowed(g) => g.chunks(part_len).map(Groups::Borrowed).collect(),
        Groups::Owned(g) => g.chunks_mut(part_len).map(Groups::Owned).collect(),
    };
    let jobs: Vec<_> = parts
        .into_iter()
        .zip(interned)
        .map(|(part, i)| ((part, i.ids, i.offsets), i.ranges, i.rows))
        .collect();
    writer.append_parallel(jobs, |(part, ids, offsets), slots| match part {
        Groups::Borrowed(part) => fill(part, &ids, &offsets, slots),
        Groups::Owned(part) => {
            fill(part, &ids, &offsets, slots);
            // Freed here, on the worker, rather than on the calling thread later.
            for g in part.iter_mut() {
                g.spans = Vec::new();
            }
        }
    });
}

/// [`LidiaWriter::finish_with_groups`] with parts of `part_len` groups.
fn finish_in_parts(groups: &[Group<'_>], mut writer: LidiaWriter, part_len: usize) -> Vec<u8> {
    let part_len = part_len.max(1);
    let interned = scan_and_intern(groups, &mut writer, part_len, true);
    let Some(direct) = direct(&writer, &interned) else {
        emit_in_parts(Groups::Borrowed(groups), &mut writer, part_len);
        return writer.finish();
    };
    // Step 3, into the file.
    let jobs: Vec<_> = groups
        .chunks(part_len)
        .zip(interned)
        .map(|(part, i)| ((part, i.ids, i.offsets), i.ranges, i.rows))
        .collect();
    writer.finish_direct(direct, jobs, |(part, ids, offsets), slots| {
        fill(part, &ids, &offsets, slots);
    })
}

/// How the parts of `interned` (measured) can be encoded straight into the file.
fn direct(writer: &LidiaWriter, interned: &[Interned]) -> Option<Direct> {
    let mut max = Maxima::default();
    let mut order = Order::default();
    for part in interned {
        max = Maxima::merge(max, part.max);
        order = order.then(part.order);
    }
    let ranges = interned.iter().map(|i| i.ranges).sum();
    let rows = interned.iter().map(|i| i.rows).sum();
    writer.direct(ranges, rows, max, order.sorted)
}

/// Steps 1 and 2 for `all` in parts of `part_len` groups: per part, its strings' ids and
/// offsets, its counts and, when `measure`, its largest values and order.
fn scan_and_intern(
    all: &[Group<'_>],
    writer: &mut LidiaWriter,
    part_len: usize,
    measure: bool,
) -> Vec<Interned> {
    let flags = writer.flags();
    // Step 1.
    let scanned: Vec<Scan<'_>> = all
        .par_chunks(part_len)
        .map(|part| Scan::of(part, flags, measure))
        .collect();
    // Step 2.
    let distinct = scanned.iter().flat_map(|scan| scan.strings.strings());
    let bytes = distinct.clone().map(|(s, _)| 4 + s.len()).sum();
    writer.reserve_strings(distinct.count(), bytes);
    let mut interned = Vec::with_capacity(scanned.len());
    for scan in scanned {
        let offsets: Vec<u64> = scan
            .strings
            .strings()
            .iter()
            .map(|&(s, h)| writer.intern_hashed(s, h))
            .collect();
        interned.push(Interned {
            ids: scan.ids,
            offsets,
            ranges: scan.ranges,
            rows: scan.rows,
            max: scan.max,
            order: scan.order,
        });
    }
    interned
}

/// What steps 1 and 2 give step 3 for one part.
struct Interned {
    /// See [`Scan::ids`].
    ids: Vec<u32>,
    /// The strings-table offset of each of the part's distinct strings, by id.
    offsets: Vec<u64>,
    ranges: usize,
    rows: usize,
    max: Maxima,
    order: Order,
}

/// What step 1 learns about one part.
struct Scan<'s> {
    /// The part's distinct strings.
    strings: ChunkStrings<'s>,
    /// For every span in order, the ids of its function name, then (with files) of its
    /// file and call file.
    ids: Vec<u32>,
    /// Spans in the part.
    ranges: usize,
    /// Line rows in the part.
    rows: usize,
    /// When measured: the largest values of the part's ranges that decide the field sizes
    /// (but string offsets and line indices, which step 2 and the parts before decide),
    /// and their order.
    max: Maxima,
    order: Order,
}

impl<'s> Scan<'s> {
    fn of(part: &'s [Group<'_>], flags: Flags, measure: bool) -> Self {
        let files = flags.files;
        let mut strings = ChunkStrings::new();
        let spans: usize = part.iter().map(|g| g.spans.len()).sum();
        let mut ids = Vec::with_capacity(if files { spans * 3 } else { spans });
        let mut rows = 0;
        let mut max = Maxima::default();
        let mut order = Order::default();
        for s in part.iter().flat_map(|g| &g.spans) {
            ids.push(strings.id(&s.name));
            if files {
                ids.push(strings.id(file_of(s)));
                ids.push(strings.id(call_file_of(s)));
            }
            rows += s.rows.len();
            if measure {
                measure_span(s, flags, &mut max, &mut order);
            }
        }
        Scan {
            strings,
            ids,
            ranges: spans,
            rows,
            max,
            order,
        }
    }
}

/// Takes the values of `s`'s range into `max` (as the writer does, but for string
/// offsets and the line index) and its key into `order`.
fn measure_span(s: &Span<'_>, flags: Flags, max: &mut Maxima, order: &mut Order) {
    let length = s.end.wrapping_sub(s.start);
    let depth = u64::from(s.depth);
    let mut field = length.max(depth);
    if flags.lines {
        field = field.max(s.rows.len() as u64);
        for r in &s.rows {
            let offset = r.addr.wrapping_sub(s.start);
            max.line_value = max.line_value.max(offset).max(u64::from(r.line));
        }
    }
    max.va = max.va.max(s.start);
    max.field = max.field.max(field);
    order.push((s.start, depth));
}

fn file_of<'s>(s: &'s Span<'_>) -> &'s [u8] {
    s.file.as_deref().unwrap_or_default()
}

fn call_file_of<'s>(s: &'s Span<'_>) -> &'s [u8] {
    s.call_file.as_deref().unwrap_or_default()
}

/// Step 3 for one part: pushes its spans with the offsets step 2 gave their strings.
fn fill(part: &[Group<'_>], ids: &[u32], offsets: &[u64], slots: &mut impl RangeSlots) {
    let files = slots.flags().files;
    let mut next = ids.iter().map(|&id| offsets[id as usize]);
    let mut take = move || next.next().unwrap_or(0);
    for g in part {
        for s in &g.spans {
            let func = take();
            let (file, call_file) = if files {
                let file = take();
                (file, take())
            } else {
                (0, 0)
            };
            let range = InternedRange {
                va: s.start,
                length: s.end.wrapping_sub(s.start),
                depth: u64::from(s.depth),
                func,
                file,
                call_file,
                call_line: u64::from(s.call_line),
            };
            let lines = s.rows.iter().map(|r| LineEntry {
                offset: r.addr.wrapping_sub(s.start),
                line: u64::from(r.line),
            });
            slots.push(range, lines);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lidia::Flags;
    use crate::model::{Bytes, Row, SharedBytes};

    /// Groups whose names, files and call files repeat across and within parts (so that
    /// first occurrences fall in different parts), with inline spans and line rows.
    fn groups() -> Vec<Group<'static>> {
        let files: Vec<SharedBytes> = (0..7)
            .map(|i| SharedBytes::from(format!("src/f{i}.rs")))
            .collect();
        (0..500u64)
            .map(|g| {
                let start = 0x1000 + g * 0x100;
                let mut spans = vec![Span {
                    start,
                    end: start + 0x80,
                    depth: 0,
                    name: Bytes::Shared(format!("fn{}", (g * 37) % 101).into()),
                    file: Some(files[(g % 7) as usize].clone()),
                    call_file: None,
                    call_line: 0,
                    instance: 0,
                    rows: (0..(g % 5))
                        .map(|r| Row {
                            addr: start + r * 8,
                            line: (g * 3 + r) as u32,
                        })
                        .collect(),
                }];
                if g % 3 == 0 {
                    spans.push(Span {
                        start: start + 0x10,
                        end: start + 0x20,
                        depth: 1,
                        name: Bytes::Borrowed(b"inlined"),
                        file: Some(files[((g + 3) % 7) as usize].clone()),
                        call_file: Some(files[(g % 7) as usize].clone()),
                        call_line: 70_000 + g as u32,
                        instance: 0,
                        rows: thin_vec::thin_vec![Row {
                            addr: start + 0x10,
                            line: 9,
                        }],
                    });
                }
                Group { spans }
            })
            .collect()
    }

    #[test]
    fn parts_write_the_bytes_of_one_in_order_pass() {
        for files in [false, true] {
            for lines in [false, true] {
                let flags = Flags { files, lines };
                let mut serial = LidiaWriter::new(flags);
                // A range added before, so parts append after existing records and lines.
                let first = RangeSpecOwned::sample();
                serial.add(&first.spec());
                crate::lidia::model::for_each_range(&groups(), &mut |r| serial.add(r));
                let expected = serial.finish();
                for part_len in [1, 7, 64, 499, 500, 10_000] {
                    let mut parallel = LidiaWriter::new(flags);
                    parallel.add(&first.spec());
                    let mut borrowed = LidiaWriter::new(flags);
                    borrowed.add(&first.spec());
                    let mut owned = groups();
                    emit_in_parts(Groups::Owned(&mut owned), &mut parallel, part_len);
                    emit_in_parts(Groups::Borrowed(&groups()), &mut borrowed, part_len);
                    assert!(
                        owned.iter().all(|g| g.spans.is_empty()),
                        "owned groups freed"
                    );
                    assert!(
                        parallel.finish() == expected && borrowed.finish() == expected,
                        "files {files}, lines {lines}, parts of {part_len}"
                    );
                }
            }
        }
    }

    /// `groups()` changed so that each field size of the layout is tried: the VAs above
    /// 2³², a length above 2³², a line number above 2¹⁶, a line offset above 2¹⁶.
    fn widened(which: usize) -> Vec<Group<'static>> {
        let mut all = groups();
        let last = all.len() - 1;
        match which {
            0 => {
                for s in all.iter_mut().flat_map(|g| &mut g.spans) {
                    s.start += 0x1_0000_0000;
                    s.end += 0x1_0000_0000;
                    for r in s.rows.iter_mut() {
                        r.addr += 0x1_0000_0000;
                    }
                }
            }
            1 => all[last].spans[0].end = 0x2_0000_0000,
            2 => all[3].spans[0].rows[0].line = 0x1_0000,
            _ => {
                let span = &mut all[last].spans[0];
                span.end = span.start + 0x2_0000;
                span.rows.push(Row {
                    addr: span.start + 0x1_0000,
                    line: 1,
                });
            }
        }
        all
    }

    #[test]
    fn ranges_encoded_straight_into_the_file_are_the_writers_bytes() {
        let mut reversed = groups();
        reversed.reverse();
        let sets: Vec<Vec<Group<'static>>> = vec![
            groups(),
            widened(0),
            widened(1),
            widened(2),
            widened(3),
            // Out of order: sorted by the writer instead.
            reversed,
            Vec::new(),
        ];
        for files in [false, true] {
            for lines in [false, true] {
                let flags = Flags { files, lines };
                for (k, set) in sets.iter().enumerate() {
                    let mut serial = LidiaWriter::new(flags);
                    crate::lidia::model::for_each_range(set, &mut |r| serial.add(r));
                    let expected = serial.finish();
                    // Every set in order is encoded straight into the file.
                    let mut writer = LidiaWriter::new(flags);
                    let interned = scan_and_intern(set, &mut writer, 7, true);
                    let in_order = k != 5;
                    assert_eq!(direct(&writer, &interned).is_some(), in_order, "set {k}");
                    for part_len in [1, 7, 499, 10_000] {
                        let bytes = finish_in_parts(set, LidiaWriter::new(flags), part_len);
                        assert!(
                            bytes == expected,
                            "set {k}, files {files}, lines {lines}, parts of {part_len}"
                        );
                    }
                }
                // A writer that holds a range already appends and sorts as before.
                let first = RangeSpecOwned::sample();
                let mut serial = LidiaWriter::new(flags);
                serial.add(&first.spec());
                crate::lidia::model::for_each_range(&groups(), &mut |r| serial.add(r));
                let mut started = LidiaWriter::new(flags);
                started.add(&first.spec());
                assert!(started.finish_with_groups(&groups()) == serial.finish());
            }
        }
    }

    struct RangeSpecOwned {
        lines: Vec<LineEntry>,
    }

    impl RangeSpecOwned {
        fn sample() -> Self {
            RangeSpecOwned {
                lines: vec![LineEntry { offset: 0, line: 3 }],
            }
        }

        fn spec(&self) -> crate::lidia::RangeSpec<'_> {
            crate::lidia::RangeSpec {
                va: 0x10,
                length: 4,
                depth: 0,
                function: b"fn5",
                file: b"src/f2.rs",
                call_file: b"",
                call_line: 0,
                lines: &self.lines,
            }
        }
    }
}
