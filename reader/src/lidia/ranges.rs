//! Ranges by index and in table order, and the O(N) check of their references.

use core::iter::FusedIterator;

use super::{error, section, to_u64, LidiaFile, LineTable, Str};
use crate::{Error, ErrorKind};

/// One range of the file, with its strings and line table resolved.
///
/// A string reference that does not lie inside the strings table reads as empty, a line
/// reference outside the line table as an empty table ([`LidiaFile::validate`] reports
/// both).
#[derive(Clone, Copy, Debug)]
pub struct Range<'a> {
    /// Position in the VA and range tables.
    pub index: usize,
    /// Start address.
    pub va: u64,
    /// Byte length; the range is `[va, va + length)`.
    pub length: u64,
    /// Inline depth; 0 = a top-level function.
    pub depth: u64,
    /// Function name.
    pub function: Str<'a>,
    /// Source file of the function (empty if none).
    pub file: Str<'a>,
    /// File of the call site this range was inlined at (empty if none).
    pub call_file: Str<'a>,
    /// Line of the call site (0 if none).
    pub call_line: u64,
    /// The range's line table; offsets are relative to `va`.
    pub lines: LineTable<'a>,
}

impl<'a> LidiaFile<'a> {
    /// Range `index` in table order (sorted by VA, then depth), or `None` past the end.
    pub fn range(&self, index: usize) -> Option<Range<'a>> {
        let va = self.vas.get(index)?;
        let e = self.ranges.get(index)?;
        Some(Range {
            index,
            va,
            length: e.length,
            depth: e.depth,
            function: self.string_or_empty(e.func),
            file: self.string_or_empty(e.file),
            call_file: self.string_or_empty(e.call_file),
            call_line: e.call_line,
            lines: self.line_table(e.line_index, e.line_count),
        })
    }

    /// All ranges in table order.
    pub fn ranges(&self) -> Ranges<'a> {
        Ranges {
            file: *self,
            front: 0,
            back: self.len(),
        }
    }

    /// Checks every reference of every range entry, in O(N): each non-zero string offset
    /// (function, file, call file) must have its length prefix and bytes inside the
    /// strings table, and each line reference `[index, index + count)` must lie inside the
    /// line table.
    ///
    /// It also checks that the VA table is sorted (ascending, ties allowed), which makes
    /// every lookup select exactly what the Go reader selects; on an unsorted table
    /// lookups stay bounded but may select differently. The Go writer always sorts.
    ///
    /// After it succeeds, no accessor substitutes an empty string or line table. The
    /// error names the range table and the offset of the first bad field, or the VA table
    /// and the offset of the first entry out of order ([`ErrorKind::Unsorted`]).
    pub fn validate(&self) -> Result<(), Error> {
        let vs = u64::from(self.va_size());
        let va_base = self.header.va.offset.get();
        let mut previous = 0;
        for index in 0..self.len() {
            let va = self.vas.get(index).unwrap_or(u64::MAX);
            if va < previous {
                let at = va_base.saturating_add(to_u64(index).saturating_mul(vs));
                return Err(error(section::VA, at, ErrorKind::Unsorted));
            }
            previous = va;
        }
        let base = self.header.ranges.offset.get();
        let fs = u64::from(self.field_size());
        let entry_size = fs.saturating_mul(8);
        let strings_size = to_u64(self.strings.len());
        let lines = to_u64(self.lines.len());
        for index in 0..self.len() {
            let Some(e) = self.ranges.get(index) else {
                break;
            };
            // Inside the range table, which parse checked, so no overflow.
            let at = base.saturating_add(to_u64(index).saturating_mul(entry_size));
            let field = |n: u64| at.saturating_add(n.saturating_mul(fs));
            for (n, offset) in [(2, e.func), (3, e.file), (6, e.call_file)] {
                if self.string(offset).is_none() {
                    return Err(error(
                        section::RANGES,
                        field(n),
                        ErrorKind::OutOfRange {
                            value: offset,
                            limit: strings_size,
                        },
                    ));
                }
            }
            match e.line_index.checked_add(e.line_count) {
                Some(end) if end <= lines => {}
                Some(end) => {
                    return Err(error(
                        section::RANGES,
                        field(5),
                        ErrorKind::OutOfRange {
                            value: end,
                            limit: lines,
                        },
                    ))
                }
                None => return Err(error(section::RANGES, field(4), ErrorKind::Overflow)),
            }
        }
        Ok(())
    }
}

/// Iterator over the ranges of a file in table order; see [`LidiaFile::ranges`].
#[derive(Clone, Debug)]
pub struct Ranges<'a> {
    file: LidiaFile<'a>,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Ranges<'a> {
    type Item = Range<'a>;

    fn next(&mut self) -> Option<Range<'a>> {
        if self.front >= self.back {
            return None;
        }
        let range = self.file.range(self.front)?;
        self.front = self.front.wrapping_add(1);
        Some(range)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back.saturating_sub(self.front);
        (left, Some(left))
    }
}

impl DoubleEndedIterator for Ranges<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back = self.back.wrapping_sub(1);
        self.file.range(self.back)
    }
}

impl ExactSizeIterator for Ranges<'_> {}
impl FusedIterator for Ranges<'_> {}
