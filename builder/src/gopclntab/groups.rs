//! Go functions with their lines as model groups, for builds that read no DWARF (a Go
//! program built with `-ldflags=-w`, or stripped of its debug sections): each function
//! of `.gopclntab` becomes depth-0 spans, one per run of code in one file, with a line
//! row wherever the line changes. Go's table has no inline tree here: inlined code keeps
//! the position Go records for it (the callee's file and line) under the caller's name.

use std::collections::HashMap;

use super::{for_each_function, Position};
use crate::elf::file::ElfFile;
use crate::model::{Bytes, Group, Row, SharedBytes, Span, ThinVec};

/// The groups of the Go functions of the ELF file `bytes`, in address order; none when
/// it has no readable `.gopclntab`. A function whose line table cannot be read keeps its
/// extent and name, without rows.
pub(crate) fn groups(bytes: &[u8]) -> Vec<Group<'static>> {
    let Ok(elf) = ElfFile::parse(bytes) else {
        return Vec::new();
    };
    // The table may be a decompressed copy that does not outlive the walk: the names and
    // files are shared copies.
    let mut files: HashMap<Vec<u8>, SharedBytes> = HashMap::new();
    let mut out: Vec<Group<'static>> = Vec::new();
    let _ = for_each_function(&elf, |f| {
        let name: SharedBytes = SharedBytes::from(f.name);
        let positions = f.positions().unwrap_or_default();
        if positions.is_empty() {
            if f.entry < f.end {
                out.push(Group {
                    spans: vec![Span::function(f.entry, f.end, Bytes::Shared(name.clone()))],
                });
            }
            return;
        }
        for run in positions.chunk_by(|a: &Position<'_>, b| a.file == b.file && a.end == b.start) {
            let (Some(first), Some(last)) = (run.first(), run.last()) else {
                continue;
            };
            let file = first.file.map(|f| {
                let shared = files.entry(f.as_bytes().to_vec());
                shared
                    .or_insert_with(|| SharedBytes::from(f.as_bytes()))
                    .clone()
            });
            let mut rows: ThinVec<Row> = ThinVec::new();
            for p in run {
                if rows.last().is_none_or(|r| r.line != p.line) {
                    rows.push(Row {
                        addr: p.start,
                        line: p.line,
                    });
                }
            }
            out.push(Group {
                spans: vec![Span {
                    file,
                    rows,
                    ..Span::function(first.start, last.end, Bytes::Shared(name.clone()))
                }],
            });
        }
    });
    out.sort_by_key(Group::start);
    out
}

/// A Go program without DWARF (built with `-ldflags=-w`, or stripped of its debug
/// sections) still has its functions' lines in `.gopclntab`: when the DWARF build found
/// no line and no inlined call, the Go table's functions replace the symbol table's
/// where both describe the code (the symbol table keeps what the Go table lacks).
pub(crate) fn with_go_lines<'g>(bytes: &'g [u8], functions: Vec<Group<'g>>) -> Vec<Group<'g>> {
    let spans = || functions.iter().flat_map(|g| &g.spans);
    if spans().any(|s| !s.rows.is_empty() || s.depth > 0) {
        return functions;
    }
    let mut out = groups(bytes);
    if out.is_empty() {
        return functions;
    }
    let covered: Vec<(u64, u64)> = out.iter().map(|g| (g.start(), g.end())).collect();
    let inside = |addr: u64| {
        let i = covered.partition_point(|&(start, _)| start <= addr);
        i.checked_sub(1).is_some_and(|i| addr < covered[i].1)
    };
    out.extend(functions.into_iter().filter(|g| !inside(g.start())));
    out.sort_by_key(Group::start);
    out
}
