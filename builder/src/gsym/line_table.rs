//! A function's GSYM line table (`docs/formats/gsym.md` §7.1): the innermost source
//! position at every address of the function, from the rows of its spans, encoded with
//! LLVM's choice of special-opcode window.

use std::collections::BTreeMap;

use symblob::gsym::raw::opcode;

use crate::model::{innermost, Group, Span};

/// One row: from `addr` on, the position is `file` (a file-table index) and `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    pub addr: u64,
    pub file: u32,
    pub line: u32,
}

/// The largest `MaxDelta − MinDelta` LLVM's writer allows, so that a special opcode spans
/// at most 15 line deltas.
const MAX_LINE_RANGE: i64 = 14;

/// The rows of a function made of `pieces` (its groups, in address order): at every
/// address where the innermost span covering it or that span's row in force changes, the
/// span's file (through `file_index`; the empty path for none) and line (0 before the
/// span's first row). A function without a row in a known file gets no table.
pub(crate) fn rows<'m>(
    pieces: &'m [Group<'_>],
    file_index: &mut dyn FnMut(&'m [u8]) -> u32,
) -> Vec<Row> {
    let has_lines = |s: &Span<'_>| s.file.is_some() && !s.rows.is_empty();
    if !pieces.iter().flat_map(|g| &g.spans).any(has_lines) {
        return Vec::new();
    }
    let mut out: Vec<Row> = Vec::new();
    let mut push = |addr: u64, file: u32, line: u32| {
        if out.last().is_none_or(|p| (p.file, p.line) != (file, line)) {
            out.push(Row { addr, file, line });
        }
    };
    for group in pieces {
        for (start, end, k) in innermost(&group.spans) {
            let span = &group.spans[k];
            let file = file_index(span.file.as_deref().unwrap_or_default());
            // The row in force where the segment starts (line 0 before the span's first
            // row: the other formats answer so there, and a GSYM lookup before a table's
            // first row would fail whole), then the span's rows inside the segment.
            let first = span.rows.partition_point(|r| r.addr <= start);
            let line = first.checked_sub(1).map_or(0, |i| span.rows[i].line);
            push(start, file, line);
            for r in span.rows[first..].iter().take_while(|r| r.addr < end) {
                push(r.addr, file, r.line);
            }
        }
    }
    out
}

/// The line table of rows starting at the function's address `base`, as LLVM 14's
/// `LineTable::encode` writes it: the special-opcode window is the run of at most 15
/// consecutive line deltas that covers the most rows.
pub(crate) fn encode(rows: &[Row], base: u64, out: &mut Vec<u8>) {
    let (min_delta, max_delta) = window(rows);
    let first_line = rows.first().map_or(0, |r| r.line);
    leb128::write::signed(out, min_delta).ok();
    leb128::write::signed(out, max_delta).ok();
    leb128::write::unsigned(out, u64::from(first_line)).ok();
    let (mut addr, mut file, mut line) = (base, 1u32, first_line);
    for row in rows {
        let line_delta = i64::from(row.line) - i64::from(line);
        if row.file != file {
            out.push(opcode::SET_FILE);
            leb128::write::unsigned(out, u64::from(row.file)).ok();
            file = row.file;
        }
        let addr_delta = row.addr.wrapping_sub(addr);
        match special(min_delta, max_delta, line_delta, addr_delta) {
            Some(op) => out.push(op),
            None => {
                if line_delta != 0 {
                    out.push(opcode::ADVANCE_LINE);
                    leb128::write::signed(out, line_delta).ok();
                }
                out.push(opcode::ADVANCE_PC);
                leb128::write::unsigned(out, addr_delta).ok();
            }
        }
        addr = row.addr;
        line = row.line;
    }
    out.push(opcode::END_SEQUENCE);
}

/// LLVM's `encodeSpecial`: the special opcode for a line and address step, if one fits.
fn special(min_delta: i64, max_delta: i64, line_delta: i64, addr_delta: u64) -> Option<u8> {
    if line_delta < min_delta || line_delta > max_delta {
        return None;
    }
    let range = max_delta - min_delta + 1;
    let adjusted = i64::try_from(addr_delta)
        .ok()?
        .checked_mul(range)?
        .checked_add(line_delta - min_delta)?;
    u8::try_from(adjusted.checked_add(i64::from(opcode::FIRST_SPECIAL))?).ok()
}

/// The (MinDelta, MaxDelta) LLVM 14 picks for `rows`.
fn window(rows: &[Row]) -> (i64, i64) {
    if rows.len() < 2 {
        return (0, 0);
    }
    let mut counts: BTreeMap<i64, u32> = BTreeMap::new();
    for pair in rows.windows(2) {
        *counts
            .entry(i64::from(pair[1].line) - i64::from(pair[0].line))
            .or_default() += 1;
    }
    let deltas: Vec<(i64, u32)> = counts.into_iter().collect();
    let (mut min, mut max) = (deltas[0].0, deltas[deltas.len() - 1].0);
    if max - min > MAX_LINE_RANGE {
        // The run of deltas within MAX_LINE_RANGE of its first that holds the most rows;
        // the first such run on ties.
        let (mut best, mut best_count) = ((min, min), 0);
        for (i, &(first, _)) in deltas.iter().enumerate() {
            let run = deltas[i..]
                .iter()
                .take_while(|(d, _)| d - first <= MAX_LINE_RANGE);
            let (count, last) = run.fold((0, first), |(c, _), &(d, n)| (c + n, d));
            if count > best_count {
                best = (first, last);
                best_count = count;
            }
        }
        (min, max) = best;
    }
    if min == max && min > 0 && min < MAX_LINE_RANGE {
        min = 0;
    }
    (min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_opcodes_follow_llvm_arithmetic() {
        // LineRange 3 (deltas -1..=1): delta +1 and 2 bytes → 4 + (1 + 1) + 2 × 3 = 12.
        assert_eq!(special(-1, 1, 1, 2), Some(12));
        assert_eq!(special(-1, 1, 2, 0), None);
        assert_eq!(special(0, 0, 0, 252), None);
        assert_eq!(special(0, 0, 0, 251), Some(255));
    }

    #[test]
    fn the_window_covers_the_most_frequent_deltas() {
        let rows: Vec<Row> = [10, 11, 12, 13, 100, 101, 102, 103, 104]
            .iter()
            .enumerate()
            .map(|(i, &line)| Row {
                addr: i as u64 * 4,
                file: 1,
                line,
            })
            .collect();
        // Deltas: 1 ×7 and 87 ×1: the window is [1, 1], then widened down to 0.
        assert_eq!(window(&rows), (0, 1));
    }
}
