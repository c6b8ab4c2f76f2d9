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

use std::sync::Arc;

use super::group::{sort_spans, Group, Row, Span};
use super::lines::UnitLines;

/// The innermost span of each address of a group, as maximal segments
/// `(start, end, span index)` in address order.
pub(crate) fn innermost(spans: &[Span<'_>]) -> Vec<(u64, u64, usize)> {
    let mut out = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
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
            emit(&mut out, &mut pos, end, top);
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            emit(&mut out, &mut pos, s.start, top);
        }
        pos = pos.max(s.start);
        stack.push(i);
    }
    while let Some(top) = stack.pop() {
        emit(&mut out, &mut pos, spans[top].end, top);
    }
    out
}

/// One row as attached to a span before files are resolved.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry {
    addr: u64,
    /// `None` where no row describes the address.
    file: Option<u64>,
    line: u32,
}

/// Attaches the unit's rows to the spans of `group` and splits spans (and the group, for
/// the depth-0 span) where the file of their rows changes (only when `split_files`: without
/// files in the output a span needs no single file). Returns the resulting groups in
/// address order.
pub(crate) fn attach_rows<'a>(
    group: Group<'a>,
    lines: &UnitLines,
    split_files: bool,
) -> Vec<Group<'a>> {
    let spans = group.spans;
    let segments = innermost(&spans);
    let mut entries: Vec<Vec<Entry>> = vec![Vec::new(); spans.len()];
    let rows = &lines.rows;
    let mut j = rows.partition_point(|r| r.end <= spans.first().map_or(0, |s| s.start));
    for &(s, e, k) in &segments {
        while rows.get(j).is_some_and(|r| r.end <= s) {
            j += 1;
        }
        let list = &mut entries[k];
        let mut push = |entry: Entry| {
            if list
                .last()
                .map_or(true, |l| l.file != entry.file || l.line != entry.line)
            {
                list.push(entry);
            }
        };
        let mut pos = s;
        let mut i = j;
        while let Some(r) = rows.get(i) {
            if r.start >= e {
                break;
            }
            if r.start > pos {
                push(Entry {
                    addr: pos,
                    file: None,
                    line: 0,
                });
            }
            push(Entry {
                addr: r.start.max(s),
                file: Some(r.file),
                line: r.line,
            });
            pos = r.end;
            i += 1;
        }
        if pos < e {
            push(Entry {
                addr: pos,
                file: None,
                line: 0,
            });
        }
    }

    let mut out: Vec<Span<'a>> = Vec::with_capacity(spans.len());
    for (mut span, list) in spans.into_iter().zip(entries) {
        let mut current: Option<u64> = None;
        let mut pieces: Vec<Span<'a>> = Vec::new();
        for entry in list {
            let Some(file) = entry.file else {
                span.rows.push(Row {
                    addr: entry.addr,
                    line: 0,
                });
                continue;
            };
            match current {
                None => {
                    span.file = lines.file(file).or(span.file.take());
                    current = Some(file);
                }
                Some(c) if split_files && c != file && entry.addr > span.start => {
                    let mut tail = split_at(&mut span, entry.addr);
                    tail.file = lines.file(file);
                    pieces.push(std::mem::replace(&mut span, tail));
                    current = Some(file);
                }
                Some(_) => {}
            }
            span.rows.push(Row {
                addr: entry.addr,
                line: entry.line,
            });
        }
        pieces.push(span);
        out.extend(pieces);
    }
    sort_spans(&mut out);
    regroup(out)
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
        rows: Vec::new(),
    };
    span.end = at;
    tail
}

/// Splits spans sorted by (start, depth) into groups, one per depth-0 span.
fn regroup(spans: Vec<Span<'_>>) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for s in spans {
        match groups.last_mut() {
            Some(g) if s.depth > 0 => g.spans.push(s),
            _ if s.depth > 0 => {}
            _ => groups.push(Group { spans: vec![s] }),
        }
    }
    groups
}

/// The shared file path used by tests and callers that need one without a unit.
#[allow(dead_code)]
pub(crate) fn path(p: &str) -> Arc<[u8]> {
    Arc::from(p.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::group::Bytes;
    use super::super::lines::LineRow;
    use super::*;

    fn span(start: u64, end: u64, depth: u32) -> Span<'static> {
        Span {
            start,
            end,
            depth,
            name: Bytes::Borrowed(b"f"),
            file: None,
            call_file: None,
            call_line: 0,
            rows: Vec::new(),
        }
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
        let groups = attach_rows(g, &lines, true);
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
