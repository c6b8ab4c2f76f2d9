//! Address lookup: the Go reader's frame selection plus files and lines.

use core::iter::FusedIterator;

use super::tables::covering_from;
use super::{LidiaFile, Str};

/// One frame of a lookup result: a function covering the address, with the position of
/// the address (innermost frame) or of the call into the next inner frame (outer frames).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frame<'a> {
    /// The function name.
    pub function: Str<'a>,
    /// The source file of the position: for the innermost frame its own file; for an
    /// outer frame the call file of the frame nested in it, or its own file when that is
    /// not recorded. Empty when unknown.
    pub file: Str<'a>,
    /// The source line of the position: for the innermost frame from its line table; for
    /// an outer frame the call line of the frame nested in it. 0 when unknown.
    pub line: u64,
    /// Inline depth of the range (0 = top-level function).
    pub depth: u64,
    /// Index of the range in the file's tables.
    pub range_index: usize,
    /// The range's own call file (where it was inlined into its parent); empty if none.
    pub call_file: Str<'a>,
    /// The range's own call line; 0 if none.
    pub call_line: u64,
}

/// Iterator over the frames covering an address, innermost first; see
/// [`LidiaFile::lookup`]. Holds O(1) state and never allocates.
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    file: LidiaFile<'a>,
    addr: u64,
    /// The next range index to examine; `None` once the walk has ended.
    next: Option<usize>,
    /// Call file offset and call line of the frame returned last (`None` before the
    /// first frame): they give the next, outer frame its position.
    inner_call: Option<(u64, u64)>,
}

impl<'a> Iterator for Frames<'a> {
    type Item = Frame<'a>;

    fn next(&mut self) -> Option<Frame<'a>> {
        let file = &self.file;
        let addr = self.addr;
        let Some(found) = covering_from(&file.vas, &file.ranges, self.next?, addr) else {
            self.next = None;
            return None;
        };
        let (index, va) = (found.index, found.va);
        self.next = if found.outermost {
            None
        } else {
            index.checked_sub(1)
        };
        let Some(entry) = file.ranges.get(index) else {
            self.next = None;
            return None;
        };
        let (position_file, line) = match self.inner_call {
            None => (
                file.string_or_empty(entry.file),
                file.line_table(entry.line_index, entry.line_count)
                    .line_for(va, addr),
            ),
            Some((call_file, call_line)) => {
                let from = if call_file != 0 {
                    call_file
                } else {
                    entry.file
                };
                (file.string_or_empty(from), call_line)
            }
        };
        self.inner_call = Some((entry.call_file, entry.call_line));
        Some(Frame {
            function: file.string_or_empty(entry.func),
            file: position_file,
            line,
            depth: entry.depth,
            range_index: index,
            call_file: file.string_or_empty(entry.call_file),
            call_line: entry.call_line,
        })
    }
}

impl FusedIterator for Frames<'_> {}

impl<'a> LidiaFile<'a> {
    /// The frames covering `addr`, innermost first.
    ///
    /// Selection is exactly the Go reader's: take the last range whose VA is at or below
    /// `addr` (by binary search; the VA table is sorted in every file the Go writer
    /// produces, and an unsorted one keeps the lookup bounded), then walk
    /// backwards; a range covers `addr` when `va <= addr < va + length` (64-bit wrapping
    /// add, so zero-length ranges never match); the walk stops after the first depth-0
    /// range, whether it covers or not. Each frame also gets a file and line: the
    /// innermost from its own file and line table, each outer one from the call file and
    /// call line of the frame inside it.
    ///
    /// The iterator is lazy: each step costs one range read.
    #[inline]
    pub fn lookup(&self, addr: u64) -> Frames<'a> {
        self.frames_from(self.vas.last_at_or_below(addr), addr)
    }

    /// The frames covering `addr`, with the backward walk starting at range `start` (the
    /// last range whose VA is at or below `addr`).
    #[inline]
    pub(crate) fn frames_from(&self, start: Option<usize>, addr: u64) -> Frames<'a> {
        Frames {
            file: *self,
            addr,
            next: start,
            inner_call: None,
        }
    }

    /// The function name of the innermost frame covering `addr` (the first frame of
    /// [`lookup`](Self::lookup)), without computing files or lines.
    #[inline]
    pub fn lookup_function(&self, addr: u64) -> Option<Str<'a>> {
        self.function_from(self.vas.last_at_or_below(addr)?, addr)
    }

    /// [`lookup_function`](Self::lookup_function) with the walk starting at range `start`.
    #[inline]
    pub(crate) fn function_from(&self, start: usize, addr: u64) -> Option<Str<'a>> {
        let found = covering_from(&self.vas, &self.ranges, start, addr)?;
        Some(self.string_or_empty(self.ranges.func(found.index)?))
    }
}
