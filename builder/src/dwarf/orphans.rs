//! Line rows that no DWARF function covers. Assembly units (and code whose subprogram DIE
//! the compiler left out) have line rows but no `DW_TAG_subprogram`; `llvm-symbolizer`
//! still reports their file and line, under the symbol table's name. The fallback ranges
//! of [`super::symtab_fill`] get these rows, so they answer the same. Where no symbol
//! covers such rows either (a local function of a stripped library whose subprogram DIE
//! is missing), `llvm-symbolizer` reports the file and line with no function name:
//! [`nameless_groups`] gives these addresses a depth-0 range with an empty name.

use std::collections::HashMap;

use super::attach::Attacher;
use super::inlines::{normalize, subtract};
use super::lines::{LineRow, UnitLines};
use crate::model::{Bytes, Group, SharedBytes, Span, ThinVec};

/// One row, its file resolved (rows from different units meet here).
#[derive(Clone, Debug)]
pub(crate) struct OrphanRow {
    start: u64,
    end: u64,
    file: Option<SharedBytes>,
    line: u32,
}

/// The parts of `lines.rows` outside every group of the unit.
pub(crate) fn uncovered_rows(lines: &UnitLines, groups: &[Group<'_>]) -> Vec<OrphanRow> {
    if lines.rows.is_empty() {
        return Vec::new();
    }
    let covered = normalize(groups.iter().map(|g| (g.start(), g.end())).collect());
    let mut out = Vec::new();
    for r in &lines.rows {
        for (start, end) in subtract(&[(r.start, r.end)], &covered) {
            out.push(OrphanRow {
                start,
                end,
                file: lines.file(r.file),
                line: r.line,
            });
        }
    }
    out
}

/// All units' orphan rows as one table (sorted, overlaps dropped, equal paths sharing
/// one file index so that a file change is a change of path).
pub(crate) fn as_unit_lines(mut rows: Vec<OrphanRow>) -> UnitLines {
    rows.sort_by_key(|r| (r.start, r.end));
    let mut files: Vec<Option<SharedBytes>> = vec![None];
    let mut index: HashMap<SharedBytes, u64> = HashMap::new();
    let mut out = Vec::with_capacity(rows.len());
    let mut end = 0u64;
    for r in rows {
        if r.start < end {
            continue;
        }
        end = r.end;
        let file = match r.file {
            None => 0,
            Some(f) => *index.entry(f.clone()).or_insert_with(|| {
                files.push(Some(f));
                (files.len() - 1) as u64
            }),
        };
        out.push(LineRow {
            start: r.start,
            end: r.end,
            file,
            line: r.line,
        });
    }
    UnitLines { files, rows: out }
}

/// Depth-0 groups with an empty name for the parts of `rows` inside executable sections
/// (`exec`, sorted) that no range of `covered` (start, end) covers, with their rows (and,
/// when `files`, their files) attached.
pub(crate) fn nameless_groups<'a>(
    rows: &UnitLines,
    covered: Vec<(u64, u64)>,
    exec: &[(u64, u64)],
    files: bool,
) -> Vec<Group<'a>> {
    let spans = normalize(rows.rows.iter().map(|r| (r.start, r.end)).collect());
    let covered = normalize(covered);
    let mut out = Vec::new();
    let mut attacher = Attacher::default();
    for (start, end) in subtract(&spans, &covered) {
        for &(sec_start, sec_end) in exec {
            let (s, e) = (start.max(sec_start), end.min(sec_end));
            if s >= e {
                continue;
            }
            let group = Group {
                spans: vec![Span {
                    start: s,
                    end: e,
                    depth: 0,
                    name: Bytes::default(),
                    file: None,
                    call_file: None,
                    call_line: 0,
                    instance: 0,
                    rows: ThinVec::new(),
                }],
            };
            attacher.attach(group, rows, files, &mut out);
        }
    }
    out
}
