//! Spans and line answers into groups, for the sources whose formats give one line table
//! per function (with a file per row) beside an inline tree (GSYM, Breakpad `.sym`): the
//! model has one file per span, so each span takes the rows of the addresses where it is
//! the innermost span and is cut where their file changes.

use crate::model::{innermost_into, sort_spans, Group, Row, SharedBytes, Span, ThinVec};

/// What a lookup answers from `addr` on: a file number of the source (one that `path`
/// of [`groups`] maps to no file where the lookup fails or names no file) and a line
/// (0: none).
#[derive(Clone, Copy, Debug)]
pub(super) struct Answer {
    /// First address the answer holds for.
    pub addr: u64,
    /// The source's file number.
    pub file: u32,
    /// The line, 0 for none.
    pub line: u32,
}

impl Answer {
    /// No file, no line (a placeholder).
    const NONE: Answer = Answer {
        addr: 0,
        file: 0,
        line: 0,
    };
}

/// The buffers [`groups`] needs for one function, kept by a caller that reads many so
/// that each function does not allocate them again (a kernel's `.sym` file has 45,000).
#[derive(Debug, Default)]
pub(super) struct Scratch<'a> {
    /// The innermost segments `(start, end, span index)`.
    segments: Vec<(u64, u64, usize)>,
    stack: Vec<usize>,
    /// Per segment: whether the answer in force at its start is an entry, and the
    /// answers that start inside it.
    reach: Vec<(bool, usize, usize)>,
    /// Where each span's entries start in `entries` (one more than spans: the end).
    first: Vec<usize>,
    entries: Vec<Answer>,
    /// The depth-0 pieces, in address order.
    tops: Vec<Span<'a>>,
    /// The deeper pieces, each with the index in `tops` of the piece that holds it.
    inlined: Vec<(usize, Span<'a>)>,
    /// Per depth-0 piece: how many deeper pieces it holds.
    held: Vec<usize>,
}

/// The groups of one function whose spans are `spans` (`spans[0]` its depth-0 span, the
/// others nested in it as [`Group`]'s invariant wants, in any order) and whose line
/// answers are `answers` (sorted by address): every answer in force where a span is the
/// innermost one becomes a row of it, which takes the answer's file; a span is cut where
/// the file of its rows changes (the depth-0 span into several functions of one name, as
/// the DWARF source cuts them), at an address where it is the innermost span, so the cut
/// never crosses a deeper span. Where no answer is in force, the innermost span has line
/// 0 in the file around it.
///
/// With `exact` (Breakpad, whose every line record becomes a row so that a file written
/// from the model has the same records), an answer that repeats the line before it is a
/// row of its own, and where no answer is in force the span has no row.
///
/// The groups are appended to `out` in address order; returns how many there are.
/// `spans` is left empty (its buffer is the caller's to reuse for the next function).
pub(super) fn groups<'a>(
    spans: &mut Vec<Span<'a>>,
    answers: &[Answer],
    exact: bool,
    path: &mut dyn FnMut(u32) -> Option<SharedBytes>,
    scratch: &mut Scratch<'a>,
    out: &mut Vec<Group<'a>>,
) -> usize {
    sort_spans(spans);
    let Scratch {
        segments,
        stack,
        reach,
        first,
        entries,
        tops,
        inlined,
        held,
    } = scratch;
    // The answers in force in each innermost segment, placed by span (each span's in
    // address order, as its segments are): counted first, so that one vector holds
    // the function's entries without a sort.
    innermost_into(spans, segments, stack);
    reach.clear();
    first.clear();
    first.resize(spans.len() + 1, 0);
    // The segments come in address order: the first answer after each segment's start
    // is found by walking on from the previous one (a search per segment cost more).
    let mut i = 0;
    for &(from, to, k) in segments.iter() {
        while answers.get(i).is_some_and(|a| a.addr <= from) {
            i += 1;
        }
        let in_force = !(exact && i == 0);
        let n = answers[i..].iter().take_while(|a| a.addr < to).count();
        reach.push((in_force, i, i + n));
        first[k + 1] += usize::from(in_force) + n;
    }
    for k in 0..spans.len() {
        first[k + 1] += first[k];
    }
    entries.clear();
    entries.resize(first[spans.len()], Answer::NONE);
    // `first[k]` moves along span k's entries as they are placed, and ends at its end.
    for (&(from, _, k), &(in_force, i, end)) in segments.iter().zip(reach.iter()) {
        let at = &mut first[k];
        if in_force {
            let before = i.checked_sub(1).map(|i| answers[i]);
            entries[*at] = Answer {
                addr: from,
                file: before.map_or(0, |a| a.file),
                line: before.map_or(0, |a| a.line),
            };
            *at += 1;
        }
        entries[*at..*at + (end - i)].copy_from_slice(&answers[i..end]);
        *at += end - i;
    }

    // Each span cut where the file of its entries changes. The depth-0 span is the first
    // (it starts first and is the shallowest), so all its pieces are in `tops` before
    // any deeper piece is cut: every deeper piece lies inside one of them (cuts fall
    // where no deeper span is), the last that starts at or before it.
    tops.clear();
    inlined.clear();
    let mut from = 0;
    for (span, &to) in spans.drain(..).zip(first.iter()) {
        cut(span, &entries[from..to], exact, path, &mut |piece| {
            if piece.depth == 0 {
                tops.push(piece);
            } else if let Some(at) = tops
                .partition_point(|top| top.start <= piece.start)
                .checked_sub(1)
            {
                inlined.push((at, piece));
            }
        });
        from = to;
    }
    // Each group's vector is made once, at its size.
    held.clear();
    held.resize(tops.len(), 0);
    for &(at, _) in inlined.iter() {
        held[at] += 1;
    }
    let before = out.len();
    out.extend(tops.drain(..).zip(held.iter()).map(|(top, &n)| {
        let mut spans = Vec::with_capacity(1 + n);
        spans.push(top);
        Group { spans }
    }));
    let made = &mut out[before..];
    for (group, piece) in inlined.drain(..) {
        if let Some(group) = made.get_mut(group) {
            group.spans.push(piece);
        }
    }
    for group in made.iter_mut() {
        sort_spans(&mut group.spans);
    }
    made.len()
}

/// `span` with its rows from `entries`, cut into pieces at every entry whose file (one
/// that names a file) differs from the piece's; entries that name no file (line 0, where
/// the lookup fails) stay in the piece around them. A repeated line is a row only when
/// `exact`.
fn cut<'a>(
    span: Span<'a>,
    entries: &[Answer],
    exact: bool,
    path: &mut dyn FnMut(u32) -> Option<SharedBytes>,
    out: &mut dyn FnMut(Span<'a>),
) {
    let end = span.end;
    let mut piece = Span {
        rows: ThinVec::with_capacity(entries.len()),
        ..span
    };
    // The file number of the entry before: an entry of the same number changes nothing
    // (its path is the piece's file already, or none), so its path is not looked up.
    let mut last_file = None;
    for entry in entries {
        if last_file != Some(entry.file) {
            last_file = Some(entry.file);
            if let Some(path) = path(entry.file) {
                match &piece.file {
                    None => piece.file = Some(path),
                    Some(current) if **current == *path => {}
                    Some(_) if entry.addr > piece.start => {
                        let tail = Span {
                            start: entry.addr,
                            end: piece.end,
                            depth: piece.depth,
                            name: piece.name.clone(),
                            file: Some(path),
                            call_file: piece.call_file.clone(),
                            call_line: piece.call_line,
                            instance: piece.instance,
                            rows: ThinVec::new(),
                        };
                        let mut head = std::mem::replace(&mut piece, tail);
                        head.end = entry.addr;
                        out(head);
                    }
                    Some(_) => piece.file = Some(path),
                }
            }
        }
        if exact || piece.rows.last().is_none_or(|r| r.line != entry.line) {
            piece.rows.push(Row {
                addr: entry.addr,
                line: entry.line,
            });
        }
    }
    piece.end = end;
    out(piece);
}
