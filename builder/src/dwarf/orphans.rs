//! Line rows that no DWARF function covers. Assembly units (and code whose subprogram DIE
//! the compiler left out) have line rows but no `DW_TAG_subprogram`; `llvm-symbolizer`
//! still reports their file and line, under the symbol table's name. The fallback ranges
//! of [`super::symtab_fill`] get these rows, so they answer the same.

use std::collections::HashMap;
use std::sync::Arc;

use super::inlines::{normalize, subtract};
use super::lines::{LineRow, UnitLines};
use crate::model::Group;

/// One row, its file resolved (rows from different units meet here).
#[derive(Clone, Debug)]
pub(crate) struct OrphanRow {
    start: u64,
    end: u64,
    file: Option<Arc<[u8]>>,
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
    let mut files: Vec<Option<Arc<[u8]>>> = vec![None];
    let mut index: HashMap<Arc<[u8]>, u64> = HashMap::new();
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
