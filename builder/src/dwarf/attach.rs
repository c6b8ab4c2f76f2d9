//! Attaching line rows to spans, and giving each span the file of its rows.
//!
//! Rules:
//! * each line row (an address interval) is attached to the **innermost** span covering
//!   it (spec 7.2); addresses of a span that no row describes get line 0, like
//!   `llvm-symbolizer` reports them;
//! * consecutive rows of a span with the same file and line are merged;
//! * a span whose rows come from more than one file is split where the file changes, so
//!   that its `file` string is the file of every row it owns (the innermost frame's file
//!   is the row's file, as in `llvm-symbolizer`). Such a split point is an address where
//!   the span is innermost, so no deeper span crosses it and nesting is preserved.

use super::lines::{LineRow, UnitLines};
use crate::model::{innermost_into, sort_spans, Group, Row, SharedBytes, Span, ThinVec};

/// What the walk over a group's segments knows about one of its original spans.
#[derive(Clone, Copy)]
struct SpanState {
    /// Index (in the group's span list) of the piece now receiving the span's rows: the
    /// span itself until a file change splits it.
    piece: usize,
    /// File of the rows attached so far to the current piece.
    file: Option<u64>,
    /// (file, line) of the last row seen for the span, to merge repeats.
    last: Option<(Option<u64>, u32)>,
    /// Rows the span still receives (counted before they are attached, so that each
    /// piece's row list is allocated once, at its size).
    left: usize,
}

impl SpanState {
    /// Whether a row of (`file`, `line`) is new for the span (not a repeat of its last
    /// row), noting it as the last.
    fn is_new(&mut self, file: Option<u64>, line: u32) -> bool {
        let new = self.last != Some((file, line));
        self.last = Some((file, line));
        new
    }
}

/// Attaches line rows to groups' spans; holds the scratch one group needs, so that a
/// unit's groups reuse it.
#[derive(Default)]
pub(crate) struct Attacher {
    segments: Vec<(u64, u64, usize)>,
    stack: Vec<usize>,
    state: Vec<SpanState>,
}

impl Attacher {
    /// Attaches the unit's rows to the spans of `group` and splits spans (and the group,
    /// for the depth-0 span) where the file of their rows changes (only when
    /// `split_files`: without files in the output a span needs no single file). Appends
    /// the resulting groups, in address order, to `out`.
    pub(crate) fn attach<'a>(
        &mut self,
        group: Group<'a>,
        lines: &UnitLines,
        split_files: bool,
        out: &mut Vec<Group<'a>>,
    ) {
        let mut spans = group.spans;
        let original = spans.len();
        innermost_into(&spans, &mut self.segments, &mut self.stack);
        let segments = &self.segments;
        let first = spans.first().map_or(0, |s| s.start);
        let state = &mut self.state;
        state.clear();
        state.extend((0..original).map(|piece| SpanState {
            piece,
            file: None,
            last: None,
            left: 0,
        }));
        // Count each span's rows first: pushed one by one, the row lists grew by
        // reallocation, the largest share of the DWARF walk's allocations.
        each_row(segments, &lines.rows, first, |k, _, file, line| {
            let st = &mut state[k];
            if st.is_new(file, line) {
                st.left += 1;
            }
        });
        for (span, st) in spans.iter_mut().zip(state.iter_mut()) {
            span.rows.reserve_exact(st.left);
            st.last = None;
        }
        // One row (`file` `None` where no row describes the address) for span `k`: merged
        // into the previous one when file and line repeat, else given to the span's current
        // piece, which is split first when the file changes.
        each_row(segments, &lines.rows, first, |k, addr, file, line| {
            let st = &mut state[k];
            if !st.is_new(file, line) {
                return;
            }
            st.left -= 1;
            let Some(file) = file else {
                spans[st.piece].rows.push(Row { addr, line: 0 });
                return;
            };
            match st.file {
                None => {
                    let span = &mut spans[st.piece];
                    span.file = lines.file(file).or(span.file.take());
                    st.file = Some(file);
                }
                Some(c) if split_files && c != file && addr > spans[st.piece].start => {
                    // The piece keeps only the rows it has; the rest go to the tail.
                    spans[st.piece].rows.shrink_to_fit();
                    let mut tail = split_at(&mut spans[st.piece], addr);
                    tail.file = lines.file(file);
                    tail.rows.reserve_exact(st.left + 1);
                    spans.push(tail);
                    st.piece = spans.len() - 1;
                    st.file = Some(file);
                }
                Some(_) => {}
            }
            spans[st.piece].rows.push(Row { addr, line });
        });
        if spans.len() == original {
            // No file change split a span: the group keeps its shape and order.
            out.push(Group { spans });
            return;
        }
        sort_spans(&mut spans);
        regroup(spans, out);
    }
}

/// Calls `row(k, addr, file, line)` for every row the segments `(start, end, span k)` of a
/// group (which starts at `first`) receive from `rows`, in address order: the part of
/// each line row inside a segment, and `file` `None` for the addresses no row describes.
fn each_row(
    segments: &[(u64, u64, usize)],
    rows: &[LineRow],
    first: u64,
    mut row: impl FnMut(usize, u64, Option<u64>, u32),
) {
    let mut j = rows.partition_point(|r| r.end <= first);
    for &(s, e, k) in segments {
        while rows.get(j).is_some_and(|r| r.end <= s) {
            j += 1;
        }
        let mut pos = s;
        let mut i = j;
        while let Some(r) = rows.get(i) {
            if r.start >= e {
                break;
            }
            if r.start > pos {
                row(k, pos, None, 0);
            }
            row(k, r.start.max(s), Some(r.file), r.line);
            pos = r.end;
            i += 1;
        }
        if pos < e {
            row(k, pos, None, 0);
        }
    }
}

/// Cuts `span` at `at` (rows attached so far all lie before `at`).
fn split_at<'a>(span: &mut Span<'a>, at: u64) -> Span<'a> {
    let tail = Span {
        start: at,
        end: span.end,
        depth: span.depth,
        name: span.name.clone(),
        file: None,
        call_file: span.call_file.clone(),
        call_line: span.call_line,
        instance: span.instance,
        rows: ThinVec::new(),
    };
    span.end = at;
    tail
}

/// Splits spans sorted by (start, depth) into groups, one per depth-0 span, appended to
/// `groups`; spans before the first depth-0 span belong to none and are dropped. Each
/// group's list is cut off the end at its size: pushed span by span, the lists grew by
/// doubling, and their spare room was the largest part of a Breakpad build's peak memory.
fn regroup<'a>(mut spans: Vec<Span<'a>>, groups: &mut Vec<Group<'a>>) {
    let first = groups.len();
    while let Some(start) = spans.iter().rposition(|s| s.depth == 0) {
        groups.push(Group {
            spans: spans.split_off(start),
        });
    }
    groups[first..].reverse();
}

/// The shared file path used by tests and callers that need one without a unit.
#[allow(dead_code)]
pub(crate) fn path(p: &str) -> SharedBytes {
    SharedBytes::from(p.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::innermost;

    fn span(start: u64, end: u64, depth: u32) -> Span<'static> {
        Span::for_test(start, end, depth)
    }

    #[test]
    fn innermost_segments() {
        let spans = vec![
            span(0, 100, 0),
            span(10, 50, 1),
            span(20, 30, 2),
            span(60, 70, 1),
        ];
        assert_eq!(
            innermost(&spans),
            vec![
                (0, 10, 0),
                (10, 20, 1),
                (20, 30, 2),
                (30, 50, 1),
                (50, 60, 0),
                (60, 70, 3),
                (70, 100, 0)
            ]
        );
    }

    #[test]
    fn rows_go_to_the_innermost_span_and_files_split() {
        let lines = UnitLines {
            files: vec![None, Some(path("a.c")), Some(path("b.h"))],
            rows: vec![
                LineRow {
                    start: 0,
                    end: 10,
                    file: 1,
                    line: 5,
                },
                LineRow {
                    start: 10,
                    end: 20,
                    file: 2,
                    line: 7,
                },
                LineRow {
                    start: 20,
                    end: 40,
                    file: 1,
                    line: 6,
                },
                LineRow {
                    start: 40,
                    end: 60,
                    file: 2,
                    line: 9,
                },
                LineRow {
                    start: 60,
                    end: 100,
                    file: 1,
                    line: 6,
                },
            ],
        };
        let g = Group {
            spans: vec![span(0, 100, 0), span(10, 20, 1)],
        };
        let mut groups = Vec::new();
        Attacher::default().attach(g, &lines, true, &mut groups);
        // The depth-0 span owns rows from a.c, then b.h at 40 (not inside the inline
        // span), then a.c again: three pieces, three groups.
        let bounds: Vec<_> = groups.iter().map(|g| (g.start(), g.end())).collect();
        assert_eq!(bounds, vec![(0, 40), (40, 60), (60, 100)]);
        let first = &groups[0];
        assert_eq!(first.spans[0].file.as_deref(), Some(&b"a.c"[..]));
        assert_eq!(
            first.spans[0].rows,
            vec![Row { addr: 0, line: 5 }, Row { addr: 20, line: 6 }]
        );
        assert_eq!(first.spans[1].file.as_deref(), Some(&b"b.h"[..]));
        assert_eq!(first.spans[1].rows, vec![Row { addr: 10, line: 7 }]);
        assert_eq!(groups[1].spans[0].file.as_deref(), Some(&b"b.h"[..]));
        assert_eq!(groups[2].spans[0].rows, vec![Row { addr: 60, line: 6 }]);
    }
}
