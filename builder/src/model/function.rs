//! The intermediate form of one top-level function piece: its depth-0 span and the inline
//! spans nested in it, each with its own line rows, and the cuts the later passes apply
//! (splitting at an address, clipping to an interval).
//!
//! Invariant of a [`Group`]: `spans[0]` is the depth-0 span and contains every other span;
//! the spans form a laminar family (two spans are disjoint or one contains the other, and
//! a contained span is deeper); they are sorted by (start, depth). That is exactly the
//! shape in which the Lidia lookup walk (spec 11.2) meets the innermost covering span
//! first and stops at the depth-0 one.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use thin_vec::ThinVec;
use triomphe::ThinArc;

/// A byte string built by the builder (a path, a demangled name) and shared between the
/// spans that use it.
///
/// A thin pointer (8 bytes, where `Arc<[u8]>` takes 16): every span holds a name and two
/// paths, and the spans are most of a build's memory. The count, the length and the
/// bytes share one allocation, so reading them costs no more than an `Arc<[u8]>`.
#[derive(Clone)]
pub struct SharedBytes(ThinArc<(), u8>);

impl Deref for SharedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0.slice
    }
}

impl fmt::Debug for SharedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

// Compared, ordered and hashed by the bytes, as `Arc<[u8]>` was.
impl PartialEq for SharedBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for SharedBytes {}

impl Hash for SharedBytes {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl PartialOrd for SharedBytes {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SharedBytes {
    fn cmp(&self, other: &Self) -> Ordering {
        (**self).cmp(&**other)
    }
}

impl From<&[u8]> for SharedBytes {
    fn from(bytes: &[u8]) -> Self {
        SharedBytes(ThinArc::from_header_and_slice((), bytes))
    }
}

impl From<Vec<u8>> for SharedBytes {
    fn from(bytes: Vec<u8>) -> Self {
        bytes.as_slice().into()
    }
}

impl From<&str> for SharedBytes {
    fn from(text: &str) -> Self {
        text.as_bytes().into()
    }
}

impl From<String> for SharedBytes {
    fn from(text: String) -> Self {
        text.as_bytes().into()
    }
}

/// A byte string either borrowed from the input (a DWARF or ELF string table) or shared
/// (built here: a path, a demangled name). 16 bytes: the borrowed slice's non-null
/// pointer leaves room for the thin shared one.
#[derive(Clone, Debug)]
pub enum Bytes<'a> {
    /// Borrowed from the input.
    Borrowed(&'a [u8]),
    /// Built by the builder, shared between the spans that use it.
    Shared(SharedBytes),
}

impl Deref for Bytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Shared(b) => b,
        }
    }
}

impl Default for Bytes<'_> {
    fn default() -> Self {
        Bytes::Borrowed(&[])
    }
}

/// A line row attached to a span: from `addr` (absolute) on, the source line is `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Absolute address where the row starts.
    pub addr: u64,
    /// Source line (0 = no line).
    pub line: u32,
}

/// One address range of a function or of one inlined call, with the line rows it owns.
#[derive(Clone, Debug)]
pub struct Span<'a> {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Inline depth, 0 for the function itself.
    pub depth: u32,
    /// Function name.
    pub name: Bytes<'a>,
    /// The source file of the rows attached to this span (for the innermost frame).
    pub file: Option<SharedBytes>,
    /// File of the call site (inline spans only).
    pub call_file: Option<SharedBytes>,
    /// Line of the call site (inline spans only).
    pub call_line: u32,
    /// Which inlined call of its function this span is a piece of, when the source
    /// knows (the DWARF source numbers the inlined calls of each function from 1): the
    /// pieces of one call, cut apart by deeper calls, by clipping or where their rows
    /// change file, share it and can be joined again. At depth 0, which function range
    /// the piece belongs to, when the source says (the DWARF source for Breakpad, whose
    /// records keep touching functions of one name apart). 0 when unknown.
    pub instance: u32,
    /// Line rows in ascending address order, absolute addresses.
    pub rows: ThinVec<Row>,
}

// A build holds every span of the input at once (ripgrep: 370,000): they are most of its
// memory, so their size is kept in check here (it was 112 bytes with `Arc<[u8]>` names
// and paths and a `Vec` of rows).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Span<'static>>() == 72);

impl<'a> Span<'a> {
    /// A function's span `[start, end)` named `name`, without file, call site or rows
    /// (a symbol-table function; set the other fields with struct update syntax).
    pub fn function(start: u64, end: u64, name: Bytes<'a>) -> Self {
        Span {
            start,
            end,
            depth: 0,
            name,
            file: None,
            call_file: None,
            call_line: 0,
            instance: 0,
            rows: ThinVec::new(),
        }
    }

    /// Splits off and returns the part `[at, end)`; `self` keeps `[start, at)`. The second
    /// part starts with the row in force at `at`, so every address keeps its line.
    fn split_off(&mut self, at: u64) -> Self {
        let keep = self.rows.partition_point(|r| r.addr < at);
        let mut tail_rows = self.rows.split_off(keep);
        if tail_rows.first().is_none_or(|r| r.addr != at) {
            if let Some(prev) = self.rows.last() {
                tail_rows.insert(
                    0,
                    Row {
                        addr: at,
                        line: prev.line,
                    },
                );
            }
        }
        let tail = Span {
            start: at,
            end: self.end,
            depth: self.depth,
            name: self.name.clone(),
            file: self.file.clone(),
            call_file: self.call_file.clone(),
            call_line: self.call_line,
            instance: self.instance,
            rows: tail_rows,
        };
        self.end = at;
        tail
    }
}

/// One function piece: its depth-0 span with the inline spans nested in it.
///
/// Invariant: `spans[0]` is the depth-0 span and contains every other span; the spans form
/// a laminar family (two spans are disjoint or one contains the other, and a contained
/// span is deeper); they are sorted by (start, depth) ([`sort_spans`]). A lookup that walks
/// the spans covering an address from the last to the first meets the innermost inlined
/// call first and the function itself last.
#[derive(Clone, Debug)]
pub struct Group<'a> {
    /// `spans[0]` is the depth-0 span; see the module invariant.
    pub spans: Vec<Span<'a>>,
}

impl<'a> Group<'a> {
    /// First address of the group.
    pub fn start(&self) -> u64 {
        self.spans.first().map_or(0, |s| s.start)
    }

    /// One past the last address of the group.
    pub fn end(&self) -> u64 {
        self.spans.first().map_or(0, |s| s.end)
    }

    /// Splits the group at `at` (strictly inside it): every span that crosses `at` is cut
    /// in two. Returns the part `[at, end)`; `self` keeps `[start, at)`.
    pub fn split_off(&mut self, at: u64) -> Group<'a> {
        let mut head = Vec::with_capacity(self.spans.len());
        let mut tail = Vec::new();
        for mut span in self.spans.drain(..) {
            if span.end <= at {
                head.push(span);
            } else if span.start >= at {
                tail.push(span);
            } else {
                let t = span.split_off(at);
                head.push(span);
                tail.push(t);
            }
        }
        sort_spans(&mut tail);
        self.spans = head;
        Group { spans: tail }
    }

    /// Keeps only `[from, to)` of the group; `None` when nothing is left.
    pub fn clip(mut self, from: u64, to: u64) -> Option<Group<'a>> {
        let (start, end) = (self.start(), self.end());
        let from = from.max(start);
        let to = to.min(end);
        if from >= to {
            return None;
        }
        if from > start {
            self = self.split_off(from);
        }
        if to < end {
            self.split_off(to);
        }
        Some(self)
    }
}

/// The model's groups joined into whole functions: runs of groups where each starts
/// where the previous ends and has its name (and its depth-0 [`Span::instance`], when
/// both have one). The DWARF source cuts a function where the
/// file of its rows changes (a Lidia range has one file), while formats whose line tables
/// carry a file per row (GSYM, Breakpad) write one record per function, and count its
/// inlined calls from its start (two functions of one name that touch are taken for one).
pub fn function_runs<'g, 'a>(groups: &'g [Group<'a>]) -> Vec<&'g [Group<'a>]> {
    let name = |g: &'g Group<'a>| g.spans.first().map(|s| &*s.name);
    let instance = |g: &'g Group<'a>| g.spans.first().map_or(0, |s| s.instance);
    let same_function = |a: u32, b: u32| a == 0 || b == 0 || a == b;
    let mut out: Vec<&'g [Group<'a>]> = Vec::new();
    let mut from = 0;
    for i in 1..=groups.len() {
        let continues = groups.get(i).is_some_and(|g| {
            let prev = &groups[i - 1];
            prev.end() == g.start()
                && prev.start() < prev.end()
                && name(prev) == name(g)
                && same_function(instance(prev), instance(g))
        });
        if !continues {
            out.push(&groups[from..i]);
            from = i;
        }
    }
    out
}

/// Sorts spans by (start, depth): the order of a laminar family's pre-order walk.
pub fn sort_spans(spans: &mut [Span<'_>]) {
    // Most groups come in order: checked first, they are neither moved nor given the
    // stable sort's buffer.
    if !spans.is_sorted_by_key(|s| (s.start, s.depth)) {
        spans.sort_by_key(|s| (s.start, s.depth));
    }
}

/// The innermost span of each address of a group, as maximal segments
/// `(start, end, span index)` in address order.
pub(crate) fn innermost(spans: &[Span<'_>]) -> Vec<(u64, u64, usize)> {
    let mut out = Vec::new();
    innermost_into(spans, &mut out, &mut Vec::new());
    out
}

/// [`innermost`] into `out` (cleared first), with `stack` as scratch: a caller doing this
/// for every group reuses both.
pub(crate) fn innermost_into(
    spans: &[Span<'_>],
    out: &mut Vec<(u64, u64, usize)>,
    stack: &mut Vec<usize>,
) {
    out.clear();
    stack.clear();
    let mut pos = spans.first().map_or(0, |s| s.start);
    let emit = |out: &mut Vec<(u64, u64, usize)>, pos: &mut u64, to: u64, k: usize| {
        if *pos < to {
            out.push((*pos, to, k));
            *pos = to;
        }
    };
    for (i, s) in spans.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let end = spans[top].end;
            if end > s.start {
                break;
            }
            emit(out, &mut pos, end, top);
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            emit(out, &mut pos, s.start, top);
        }
        pos = pos.max(s.start);
        stack.push(i);
    }
    while let Some(top) = stack.pop() {
        emit(out, &mut pos, spans[top].end, top);
    }
}

#[cfg(test)]
impl Span<'static> {
    /// A span named `f` with no file, call site or rows, for unit tests.
    pub(crate) fn for_test(start: u64, end: u64, depth: u32) -> Self {
        Span {
            start,
            end,
            depth,
            name: Bytes::Borrowed(b"f"),
            file: None,
            call_file: None,
            call_line: 0,
            instance: 0,
            rows: ThinVec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u64, end: u64, depth: u32, rows: &[(u64, u32)]) -> Span<'static> {
        Span {
            rows: rows
                .iter()
                .map(|&(addr, line)| Row { addr, line })
                .collect(),
            ..Span::for_test(start, end, depth)
        }
    }

    #[test]
    fn split_carries_the_line_in_force() {
        let mut g = Group {
            spans: vec![
                span(0, 100, 0, &[(0, 1), (40, 2), (60, 3)]),
                span(10, 30, 1, &[(10, 7)]),
                span(50, 90, 1, &[(50, 8), (70, 9)]),
            ],
        };
        let t = g.split_off(55);
        assert_eq!((g.start(), g.end()), (0, 55));
        assert_eq!(g.spans.len(), 3);
        assert_eq!(g.spans[2].end, 55);
        assert_eq!((t.start(), t.end()), (55, 100));
        assert_eq!(t.spans.len(), 2);
        assert_eq!(
            t.spans[0].rows,
            vec![Row { addr: 55, line: 2 }, Row { addr: 60, line: 3 }]
        );
        assert_eq!(
            t.spans[1].rows,
            vec![Row { addr: 55, line: 8 }, Row { addr: 70, line: 9 }]
        );
    }

    /// Touching pieces of one name are one function unless their depth-0 instances say
    /// they come from two function ranges (two instantiations of a Rust generic whose
    /// symbol names demangle alike, as in ripgrep, are two `FUNC` records for dump_syms).
    #[test]
    fn function_runs_keep_touching_functions_apart_by_instance() {
        let piece = |start, end, instance| Group {
            spans: vec![Span {
                instance,
                ..span(start, end, 0, &[])
            }],
        };
        let lengths = |groups: &[Group<'_>]| -> Vec<usize> {
            function_runs(groups).iter().map(|r| r.len()).collect()
        };
        assert_eq!(lengths(&[piece(0, 8, 0), piece(8, 16, 0)]), [2]);
        assert_eq!(lengths(&[piece(0, 8, 5), piece(8, 16, 5)]), [2]);
        assert_eq!(lengths(&[piece(0, 8, 5), piece(8, 16, 6)]), [1, 1]);
        assert_eq!(lengths(&[piece(0, 8, 5), piece(9, 16, 5)]), [1, 1]);
    }

    #[test]
    fn clip_keeps_the_middle() {
        let g = Group {
            spans: vec![span(0, 100, 0, &[(0, 1)]), span(10, 30, 1, &[])],
        };
        let c = g.clone().clip(20, 50).unwrap();
        assert_eq!((c.start(), c.end()), (20, 50));
        assert_eq!(c.spans[1].start, 20);
        assert_eq!(c.spans[1].end, 30);
        assert!(g.clip(100, 200).is_none());
    }
}
