//! Spans and line answers into groups, for the sources whose formats give one line table
//! per function (with a file per row) beside an inline tree (GSYM, Breakpad `.sym`): the
//! model has one file per span, so each span takes the rows of the addresses where it is
//! the innermost span and is cut where their file changes.

use std::sync::Arc;

use crate::model::{innermost, sort_spans, Group, Row, Span};

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
pub(super) fn groups<'a>(
    mut spans: Vec<Span<'a>>,
    answers: &[Answer],
    exact: bool,
    path: &mut dyn FnMut(u32) -> Option<Arc<[u8]>>,
) -> Vec<Group<'a>> {
    sort_spans(&mut spans);
    // The answers in force in each innermost segment, as (span index, entry) pairs, then
    // grouped by span (a stable sort keeps each span's entries in address order): one
    // vector for the function instead of one per span.
    let mut entries: Vec<(usize, Answer)> = Vec::with_capacity(answers.len() + spans.len());
    for (from, to, k) in innermost(&spans) {
        let i = answers.partition_point(|a| a.addr <= from);
        let in_force = i.checked_sub(1).map(|i| answers[i]);
        if !(exact && in_force.is_none()) {
            entries.push((
                k,
                Answer {
                    addr: from,
                    file: in_force.map_or(0, |a| a.file),
                    line: in_force.map_or(0, |a| a.line),
                },
            ));
        }
        entries.extend(
            answers[i..]
                .iter()
                .take_while(|a| a.addr < to)
                .map(|&a| (k, a)),
        );
    }
    entries.sort_by_key(|&(k, _)| k);

    // Each span cut where the file of its entries changes.
    let mut out: Vec<Group<'a>> = Vec::new();
    let mut inlined: Vec<Span<'a>> = Vec::new();
    let mut rest = &entries[..];
    for (k, span) in spans.into_iter().enumerate() {
        let n = rest.iter().take_while(|&&(j, _)| j == k).count();
        let (mine, later) = rest.split_at(n);
        rest = later;
        cut(span, mine, exact, path, &mut |piece| {
            if piece.depth == 0 {
                out.push(Group { spans: vec![piece] });
            } else {
                inlined.push(piece);
            }
        });
    }
    // Every inlined piece lies inside one depth-0 piece (cuts fall where no deeper span
    // is): the last that starts at or before it.
    for piece in inlined {
        let at = out.partition_point(|g| g.start() <= piece.start);
        if let Some(group) = at.checked_sub(1).and_then(|i| out.get_mut(i)) {
            group.spans.push(piece);
        }
    }
    for group in &mut out {
        sort_spans(&mut group.spans);
    }
    out
}

/// `span` with its rows from `entries`, cut into pieces at every entry whose file (one
/// that names a file) differs from the piece's; entries that name no file (line 0, where
/// the lookup fails) stay in the piece around them. A repeated line is a row only when
/// `exact`.
fn cut<'a>(
    span: Span<'a>,
    entries: &[(usize, Answer)],
    exact: bool,
    path: &mut dyn FnMut(u32) -> Option<Arc<[u8]>>,
    out: &mut dyn FnMut(Span<'a>),
) {
    let end = span.end;
    let mut piece = Span {
        rows: Vec::with_capacity(entries.len()),
        ..span
    };
    // The file number of the entry before: an entry of the same number changes nothing
    // (its path is the piece's file already, or none), so its path is not looked up.
    let mut last_file = None;
    for (_, entry) in entries {
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
                            rows: Vec::new(),
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
