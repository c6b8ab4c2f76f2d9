//! Typed, alignment-1 views of the VA, range and line tables.
//!
//! Each table comes in two widths chosen by the header. The views are zerocopy slices of
//! little-endian types (alignment 1), so they work at any offset of any buffer, and every
//! access is a bounds-checked `get`.

use zerocopy::little_endian::{U16, U32, U64};

use super::raw::RANGE_FIELDS;
use crate::partition::partition_point;

/// A stored little-endian field of either width, widened to u64. Lets the hot loops be
/// written once and compiled once per width, with the width chosen outside the loop.
trait Field: Copy {
    fn widen(self) -> u64;
}

impl Field for U16 {
    #[inline(always)]
    fn widen(self) -> u64 {
        u64::from(self.get())
    }
}

impl Field for U32 {
    #[inline(always)]
    fn widen(self) -> u64 {
        u64::from(self.get())
    }
}

impl Field for U64 {
    #[inline(always)]
    fn widen(self) -> u64 {
        self.get()
    }
}

/// A range found by [`covering_from`]: its index and VA, and whether it is at depth 0
/// (where the Go reader's walk ends).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Covering {
    pub(crate) index: usize,
    pub(crate) va: u64,
    pub(crate) outermost: bool,
}

/// The Go reader's backward walk: from range `start` down, the first range with
/// `va <= addr < va + length` (wrapping add), or `None` once the walk passes a depth-0
/// range that does not cover `addr` or runs out of ranges.
///
/// Only the VA, length and depth of the ranges passed over are read. The width of each
/// table is matched once here, so the loop itself is a tight scan down two arrays (an
/// inlined function is often followed by dozens of sibling ranges that do not cover the
/// address).
#[inline]
pub(crate) fn covering_from(
    vas: &VaTable<'_>,
    ranges: &RangeTable<'_>,
    start: usize,
    addr: u64,
) -> Option<Covering> {
    match (vas, ranges) {
        (VaTable::Narrow(v), RangeTable::Narrow(r)) => walk_down(v, r, start, addr),
        (VaTable::Narrow(v), RangeTable::Wide(r)) => walk_down(v, r, start, addr),
        (VaTable::Wide(v), RangeTable::Narrow(r)) => walk_down(v, r, start, addr),
        (VaTable::Wide(v), RangeTable::Wide(r)) => walk_down(v, r, start, addr),
    }
}

#[inline(always)]
fn walk_down<V: Field, R: Field>(
    vas: &[V],
    ranges: &[[R; RANGE_FIELDS]],
    start: usize,
    addr: u64,
) -> Option<Covering> {
    let end = start.checked_add(1)?;
    let (vas, ranges) = (vas.get(..end)?, ranges.get(..end)?);
    for (index, (va, entry)) in vas.iter().zip(ranges).enumerate().rev() {
        let va = va.widen();
        let [length, depth, ..] = *entry;
        let outermost = depth.widen() == 0;
        if va <= addr && addr < va.wrapping_add(length.widen()) {
            return Some(Covering {
                index,
                va,
                outermost,
            });
        }
        if outermost {
            return None;
        }
    }
    None
}

/// The VA table: one start address per range.
#[derive(Clone, Copy, Debug)]
pub(crate) enum VaTable<'a> {
    /// `vs = 4`.
    Narrow(&'a [U32]),
    /// `vs = 8`.
    Wide(&'a [U64]),
}

impl VaTable<'_> {
    /// The VA of range `index`.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<u64> {
        match self {
            VaTable::Narrow(v) => v.get(index).map(|x| u64::from(x.get())),
            VaTable::Wide(v) => v.get(index).map(|x| x.get()),
        }
    }

    /// The index of the last entry whose VA is at or below `addr` (Go's
    /// `sort.Search(n, func(i) bool { return va[i] > addr }) - 1`), or `None` when there
    /// is none.
    ///
    /// On a sorted table (every file the Go writer produces) this is exactly Go's answer.
    /// On an unsorted one the answer may differ from Go's, but it is always a valid index
    /// and the search takes O(log N) steps.
    #[inline]
    pub(crate) fn last_at_or_below(&self, addr: u64) -> Option<usize> {
        let count = match self {
            VaTable::Narrow(v) => partition_point(v, |x| u64::from(x.get()) <= addr),
            VaTable::Wide(v) => partition_point(v, |x| x.get() <= addr),
        };
        count.checked_sub(1)
    }
}

/// The eight fields of one range-table entry (section 5 of the format), widened to u64.
///
/// String fields are offsets into the strings table (read them with
/// [`LidiaFile::string`](super::LidiaFile::string)); `line_index`/`line_count` select a
/// slice of the global line table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RangeEntry {
    /// Byte length; the range is `[va, va + length)`.
    pub length: u64,
    /// Inline depth; 0 = a top-level function.
    pub depth: u64,
    /// String offset of the function name.
    pub func: u64,
    /// String offset of the source file (0 = none).
    pub file: u64,
    /// Index of the range's first line-table entry.
    pub line_index: u64,
    /// Number of line-table entries of the range.
    pub line_count: u64,
    /// String offset of the call site's file (0 = none).
    pub call_file: u64,
    /// Line of the call site (0 = none).
    pub call_line: u64,
}

impl RangeEntry {
    fn from_fields(f: [u64; RANGE_FIELDS]) -> Self {
        let [length, depth, func, file, line_index, line_count, call_file, call_line] = f;
        RangeEntry {
            length,
            depth,
            func,
            file,
            line_index,
            line_count,
            call_file,
            call_line,
        }
    }
}

/// The range table: eight fields per range.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RangeTable<'a> {
    /// `fs = 4`.
    Narrow(&'a [[U32; RANGE_FIELDS]]),
    /// `fs = 8`.
    Wide(&'a [[U64; RANGE_FIELDS]]),
}

impl RangeTable<'_> {
    /// Entry `index`, widened.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<RangeEntry> {
        match self {
            RangeTable::Narrow(t) => t
                .get(index)
                .map(|e| RangeEntry::from_fields(e.map(|x| u64::from(x.get())))),
            RangeTable::Wide(t) => t
                .get(index)
                .map(|e| RangeEntry::from_fields(e.map(|x| x.get()))),
        }
    }

    /// The function-name string offset of entry `index`.
    #[inline]
    pub(crate) fn func(&self, index: usize) -> Option<u64> {
        match self {
            RangeTable::Narrow(t) => t.get(index).map(|[_, _, f, ..]| u64::from(f.get())),
            RangeTable::Wide(t) => t.get(index).map(|[_, _, f, ..]| f.get()),
        }
    }
}

/// One line-table entry: addresses from `range VA + offset` on belong to `line`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LineEntry {
    /// Offset from the VA of the range that owns the entry.
    pub offset: u64,
    /// Source line number.
    pub line: u64,
}

/// The line table of one range (a slice of the file's global line table).
///
/// Entries are returned as stored; producers write them in ascending offset order.
#[derive(Clone, Copy, Debug)]
pub struct LineTable<'a>(pub(crate) LineSlice<'a>);

/// The global line table, or a slice of it, in one of its two widths.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LineSlice<'a> {
    /// `ls = 2`.
    Narrow(&'a [[U16; 2]]),
    /// `ls = 4`.
    Wide(&'a [[U32; 2]]),
}

impl<'a> LineSlice<'a> {
    /// Entries `[index, index + count)`, or `None` when that is not inside the table.
    pub(crate) fn slice(&self, index: u64, count: u64) -> Option<LineTable<'a>> {
        let start = usize::try_from(index).ok()?;
        let end = start.checked_add(usize::try_from(count).ok()?)?;
        Some(LineTable(match self {
            LineSlice::Narrow(t) => LineSlice::Narrow(t.get(start..end)?),
            LineSlice::Wide(t) => LineSlice::Wide(t.get(start..end)?),
        }))
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            LineSlice::Narrow(t) => t.len(),
            LineSlice::Wide(t) => t.len(),
        }
    }
}

impl<'a> LineTable<'a> {
    /// A line table with no entries.
    pub const EMPTY: LineTable<'static> = LineTable(LineSlice::Narrow(&[]));

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the range has no line entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<LineEntry> {
        match self.0 {
            LineSlice::Narrow(t) => t.get(index).map(|[o, l]| LineEntry {
                offset: u64::from(o.get()),
                line: u64::from(l.get()),
            }),
            LineSlice::Wide(t) => t.get(index).map(|[o, l]| LineEntry {
                offset: u64::from(o.get()),
                line: u64::from(l.get()),
            }),
        }
    }

    /// The entries in stored order.
    pub fn iter(&self) -> LineEntries<'a> {
        LineEntries {
            table: *self,
            next: 0,
        }
    }

    /// The line of address `addr` in a range starting at `range_va`: walking the entries
    /// in order from `prev = 0`, stop at the first entry with `addr < range_va + offset`
    /// (64-bit, wrapping) and answer `prev`, else take its line as `prev`. That is, the
    /// line of the last entry starting at or before `addr`, or 0 if there is none.
    pub fn line_for(&self, range_va: u64, addr: u64) -> u64 {
        match self.0 {
            LineSlice::Narrow(t) => line_for(t, range_va, addr),
            LineSlice::Wide(t) => line_for(t, range_va, addr),
        }
    }
}

/// [`LineTable::line_for`] over entries of one width.
#[inline(always)]
fn line_for<F: Field>(entries: &[[F; 2]], range_va: u64, addr: u64) -> u64 {
    let mut prev = 0;
    for [offset, line] in entries {
        if addr < range_va.wrapping_add(offset.widen()) {
            break;
        }
        prev = line.widen();
    }
    prev
}

impl<'a> IntoIterator for LineTable<'a> {
    type Item = LineEntry;
    type IntoIter = LineEntries<'a>;

    fn into_iter(self) -> LineEntries<'a> {
        self.iter()
    }
}

/// Iterator over the entries of a [`LineTable`], in stored order.
#[derive(Clone, Debug)]
pub struct LineEntries<'a> {
    table: LineTable<'a>,
    next: usize,
}

impl Iterator for LineEntries<'_> {
    type Item = LineEntry;

    #[inline]
    fn next(&mut self) -> Option<LineEntry> {
        let entry = self.table.get(self.next)?;
        self.next = self.next.wrapping_add(1);
        Some(entry)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.table.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for LineEntries<'_> {}
impl core::iter::FusedIterator for LineEntries<'_> {}
