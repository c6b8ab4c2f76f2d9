//! One `FUNC` record with its line and `INLINE` records, into groups of the model that
//! answer every address as rust-minidump's `breakpad-symbols` answers it.

use super::super::rows::{self, Answer};
use crate::model::{Bytes, Group, SharedBytes, Span, ThinVec};

/// A line record: from `start` to `end`, line `line` of file `file` (a dense number of
/// the reader's file table, from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct LineRecord {
    pub start: u64,
    pub end: u64,
    pub file: u32,
    pub line: u32,
}

/// One address range of an `INLINE` record.
#[derive(Clone, Copy, Debug)]
pub(super) struct InlineRange<'a> {
    /// The record's depth (0: called from the function itself).
    pub depth: u32,
    pub start: u64,
    pub end: u64,
    /// Dense file number of the call site, 0 for none.
    pub call_file: u32,
    pub call_line: u32,
    /// The inlined function's name (its `INLINE_ORIGIN`).
    pub name: &'a [u8],
    /// Which record of the function it is a range of, from 1.
    pub instance: u32,
    /// The record's line in the input, for errors.
    pub line: u64,
}

/// The records of the `FUNC` being read; its vectors are reused from one function to the
/// next so that a file of millions of functions does not allocate for each.
#[derive(Debug, Default)]
pub(super) struct Function<'a> {
    pub start: u64,
    pub end: u64,
    pub name: &'a [u8],
    pub lines: Vec<LineRecord>,
    pub inlines: Vec<InlineRange<'a>>,
    /// `INLINE` records read so far.
    pub records: u32,
    /// Which `FUNC` record of the file it is, from 1: the depth-0
    /// [`Span::instance`] of its pieces, so that a writer keeps touching `FUNC` records of
    /// one name apart and joins the pieces of one.
    pub number: u32,
    /// Buffers reused from one function to the next.
    spans: Vec<Span<'a>>,
    sorted: Vec<InlineRange<'a>>,
    per_depth: Vec<usize>,
    answers: Vec<Answer>,
    above: Vec<(u64, u64)>,
    reached: Vec<(u64, u64)>,
    scratch: rows::Scratch<'a>,
}

/// Two ranges of one depth that start at one address and differ in what they answer:
/// which one `breakpad-symbols`' binary search finds is undefined.
#[derive(Debug)]
pub(super) struct Ambiguous {
    /// The line of the later record.
    pub line: u64,
    pub depth: u32,
    pub address: u64,
}

impl<'a> Function<'a> {
    /// Starts reading the function `[start, end)` named `name`.
    pub(super) fn begin(&mut self, start: u64, end: u64, name: &'a [u8]) {
        self.number = self.number.saturating_add(1);
        self.start = start;
        self.end = end;
        self.name = name;
        self.lines.clear();
        self.inlines.clear();
        self.records = 0;
    }

    /// The groups of the function (see [`super::read`]), appended to `out`; returns how
    /// many. `path` gives the file of a dense number.
    pub(super) fn groups(
        &mut self,
        path: &dyn Fn(u32) -> Option<SharedBytes>,
        out: &mut Vec<Group<'a>>,
    ) -> Result<usize, Ambiguous> {
        let mut spans = std::mem::take(&mut self.spans);
        spans.clear();
        spans.push(Span {
            instance: self.number,
            ..Span::function(self.start, self.end, Bytes::Borrowed(self.name))
        });
        self.inline_spans(path, &mut spans)?;
        self.answers();
        let made = rows::groups(
            &mut spans,
            &self.answers,
            true,
            &mut |file| path(file),
            &mut self.scratch,
            out,
        );
        self.spans = spans;
        Ok(made)
    }

    /// The line answers: line records of size 0 are dropped, the others sorted by range;
    /// a record that overlaps one kept before it is dropped (as `breakpad-symbols` builds
    /// its range map); where no record covers an address, no line (file 0). Into
    /// `self.answers`.
    fn answers(&mut self) {
        self.lines.retain(|l| l.start < l.end);
        if !self.lines.is_sorted() {
            self.lines.sort_unstable();
        }
        let out = &mut self.answers;
        out.clear();
        let mut covered_to: Option<u64> = None;
        for l in &self.lines {
            if covered_to.is_some_and(|end| l.start < end) {
                continue;
            }
            if let Some(end) = covered_to.filter(|&end| end < l.start) {
                out.push(Answer {
                    addr: end,
                    file: 0,
                    line: 0,
                });
            }
            out.push(Answer {
                addr: l.start,
                file: l.file,
                line: l.line,
            });
            covered_to = Some(l.end);
        }
        if let Some(end) = covered_to {
            out.push(Answer {
                addr: end,
                file: 0,
                line: 0,
            });
        }
    }

    /// The inlined spans: `breakpad-symbols` looks up depth 0, then 1, … and stops at the
    /// first depth where no range answers; at each depth the range that answers is the
    /// one with the greatest start at or before the address, if it covers it. So a range
    /// reaches from its start to its end or the next range's start of its depth,
    /// whichever comes first, and only where the depth above is reached (the function's
    /// own range for depth 0); each reached piece inside one span of the depth above
    /// becomes a span one deeper than that (model depth = record depth + 1).
    fn inline_spans(
        &mut self,
        path: &dyn Fn(u32) -> Option<SharedBytes>,
        out: &mut Vec<Span<'a>>,
    ) -> Result<(), Ambiguous> {
        self.inlines.retain(|r| r.start < r.end);
        sort_inlines(&mut self.inlines, &mut self.sorted, &mut self.per_depth);
        let (above, reached) = (&mut self.above, &mut self.reached);
        above.clear();
        if self.start < self.end {
            above.push((self.start, self.end));
        }
        let mut i = 0;
        for depth in 0u32.. {
            let level_len = self.inlines[i..]
                .iter()
                .take_while(|r| r.depth == depth)
                .count();
            if level_len == 0 || above.is_empty() {
                break;
            }
            let level = &self.inlines[i..i + level_len];
            i += level_len;
            reached.clear();
            let mut j = 0;
            for (k, r) in level.iter().enumerate() {
                let next = level[k + 1..].iter().find(|n| n.start > r.start);
                // Ranges that start at one address: the last in sort order answers after
                // the start, any of them at the start; they must answer alike.
                if let Some(same) = level.get(k + 1).filter(|n| n.start == r.start) {
                    if (same.call_file, same.call_line, same.name)
                        != (r.call_file, r.call_line, r.name)
                    {
                        return Err(Ambiguous {
                            line: same.line.max(r.line),
                            depth,
                            address: r.start,
                        });
                    }
                    continue;
                }
                let end = next.map_or(r.end, |n| n.start.min(r.end));
                // The pieces of [r.start, end) inside the spans of the depth above.
                while above.get(j).is_some_and(|&(_, e)| e <= r.start) {
                    j += 1;
                }
                let mut m = j;
                while let Some(&(s, e)) = above.get(m) {
                    if s >= end {
                        break;
                    }
                    let (from, to) = (s.max(r.start), e.min(end));
                    if from < to {
                        reached.push((from, to));
                        out.push(Span {
                            start: from,
                            end: to,
                            depth: depth + 1,
                            name: Bytes::Borrowed(r.name),
                            file: None,
                            call_file: path(r.call_file),
                            call_line: r.call_line,
                            instance: r.instance,
                            rows: ThinVec::new(),
                        });
                    }
                    m += 1;
                }
            }
            std::mem::swap(above, reached);
        }
        Ok(())
    }
}

/// The order of `breakpad-symbols`' sort of `INLINE` ranges: by (depth, start, size, call
/// site, origin).
fn order(a: &InlineRange<'_>, b: &InlineRange<'_>) -> std::cmp::Ordering {
    (a.depth, a.start, a.end, a.call_file, a.call_line)
        .cmp(&(b.depth, b.start, b.end, b.call_file, b.call_line))
        .then_with(|| a.name.cmp(b.name))
}

/// Sorts `inlines` in the order of `breakpad-symbols`' sort, by (depth, start, size, call
/// site, origin), with input order last. dump_syms writes a function's `INLINE` records
/// in tree order, where each depth's ranges come in address order: so they are placed by
/// depth first (a counting sort, which keeps input order), and a depth is sorted only
/// when it is out of order. `sorted` and `per_depth` are scratch.
fn sort_inlines<'a>(
    inlines: &mut Vec<InlineRange<'a>>,
    sorted: &mut Vec<InlineRange<'a>>,
    per_depth: &mut Vec<usize>,
) {
    let depths = inlines
        .iter()
        .map(|r| r.depth as usize + 1)
        .max()
        .unwrap_or(0);
    // Depths far beyond the records' count (a file's odd numbers): the plain sort.
    if depths > inlines.len() {
        inlines.sort_by(order);
        return;
    }
    per_depth.clear();
    per_depth.resize(depths + 1, 0);
    for r in inlines.iter() {
        per_depth[r.depth as usize + 1] += 1;
    }
    for d in 0..depths {
        per_depth[d + 1] += per_depth[d];
    }
    // `per_depth[d]` is where depth d starts; each range is placed at its depth's next slot.
    sorted.clear();
    sorted.extend_from_slice(inlines);
    for r in inlines.iter() {
        let at = &mut per_depth[r.depth as usize];
        sorted[*at] = *r;
        *at += 1;
    }
    // Now `per_depth[d]` is where depth d ends.
    let mut from = 0;
    for &to in &per_depth[..depths] {
        let level = &mut sorted[from..to];
        if !level.is_sorted_by(|a, b| order(a, b).is_le()) {
            level.sort_by(order);
        }
        from = to;
    }
    std::mem::swap(inlines, sorted);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn range(
        depth: u32,
        start: u64,
        size: u64,
        origin: usize,
        instance: u32,
    ) -> InlineRange<'static> {
        const NAMES: [&[u8]; 3] = [b"a", b"b", b"c"];
        InlineRange {
            depth,
            start,
            end: start + size,
            call_file: (start % 2) as u32,
            call_line: (size % 3) as u32,
            name: NAMES[origin % NAMES.len()],
            instance,
            line: u64::from(instance),
        }
    }

    proptest! {
        /// The depth-first placement sorts exactly as the plain stable sort does, ties
        /// (equal keys of different records) in input order included; depths far
        /// beyond the count take the plain sort.
        #[test]
        fn sort_inlines_is_the_stable_sort(
            records in proptest::collection::vec(
                (prop_oneof![0u32..4, Just(u32::MAX)], 0u64..8, 1u64..4, 0usize..3),
                0..40,
            ),
        ) {
            let mut inlines: Vec<InlineRange<'_>> = records
                .iter()
                .zip(1..)
                .map(|(&(d, s, n, o), i)| range(d, s, n, o, i))
                .collect();
            let mut expected = inlines.clone();
            expected.sort_by(order);
            sort_inlines(&mut inlines, &mut Vec::new(), &mut Vec::new());
            let key = |r: &InlineRange<'static>| (r.depth, r.start, r.end, r.name, r.instance);
            prop_assert_eq!(
                inlines.iter().map(key).collect::<Vec<_>>(),
                expected.iter().map(key).collect::<Vec<_>>()
            );
        }
    }
}
