//! A unit's line program as address intervals with a file and a line, and its file table
//! as full paths the way `llvm-symbolizer` prints them (comp_dir + include directory +
//! file name, joined without normalisation).

use std::sync::Arc;

use super::UnitRef;

/// One line row turned into the interval of addresses it describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineRow {
    /// First address.
    pub start: u64,
    /// One past the last address (the next row's address).
    pub end: u64,
    /// File index into [`UnitLines::files`].
    pub file: u64,
    /// Line (0 = compiler-generated code without a line).
    pub line: u32,
}

/// The line information of one unit.
#[derive(Debug, Default)]
pub(crate) struct UnitLines {
    /// Full path of each file index (`None` for an index the header does not define).
    pub files: Vec<Option<Arc<[u8]>>>,
    /// Rows sorted by address, non-overlapping.
    pub rows: Vec<LineRow>,
}

impl UnitLines {
    /// The path of file `index`.
    pub fn file(&self, index: u64) -> Option<Arc<[u8]>> {
        self.files.get(usize::try_from(index).ok()?)?.clone()
    }
}

/// Reads the line program of `u` (empty when the unit has none).
pub(crate) fn read_lines(u: &UnitRef<'_, '_>) -> gimli::Result<UnitLines> {
    let Some(program) = u.unit.line_program.clone() else {
        return Ok(UnitLines::default());
    };
    let comp_dir: &[u8] = u.unit.comp_dir.map_or(&[], |d| d.slice());
    let header = program.header();
    let count = header.file_names().len() as u64;
    // DWARF 5 numbers files from 0, earlier versions from 1.
    let last = if header.version() >= 5 {
        count.saturating_sub(1)
    } else {
        count
    };
    let mut files = Vec::new();
    for index in 0..=last {
        let path = header
            .file(index)
            .and_then(|f| {
                let name = u.dwarf.attr_string(u.unit, f.path_name()).ok()?.slice();
                let dir = f
                    .directory(header)
                    .and_then(|d| u.dwarf.attr_string(u.unit, d).ok())
                    .map_or(&[][..], |d| d.slice());
                Some(full_path(comp_dir, dir, name))
            })
            .map(Arc::from);
        files.push(path);
    }

    // Every row costs at least one opcode byte, and typical programs spend two to four
    // per row: reserving half the program's length avoids regrowing (and copying) the
    // rows of large units, and untouched capacity costs no memory.
    let mut rows = Vec::with_capacity(header.raw_program_buf().len() / 2);
    let mut seq: Vec<(u64, u64, u32)> = Vec::new();
    let mut program_rows = program.rows();
    while let Some((_, row)) = program_rows.next_row()? {
        if row.end_sequence() {
            flush_sequence(&seq, row.address(), &mut rows);
            seq.clear();
        } else {
            let line = row
                .line()
                .map_or(0, |l| u32::try_from(l.get()).unwrap_or(u32::MAX));
            seq.push((row.address(), row.file_index(), line));
        }
    }
    rows.sort_by_key(|r: &LineRow| (r.start, r.end));
    // Overlapping sequences (code discarded by the linker, relocated to 0): keep the first.
    let mut end = 0u64;
    rows.retain(|r| {
        let keep = r.start >= end;
        if keep {
            end = r.end;
        }
        keep
    });
    Ok(UnitLines { files, rows })
}

/// Turns the rows of one sequence into intervals. Of several rows at one address the last
/// one counts (as in LLVM's lookup); rows whose address goes backwards are dropped.
fn flush_sequence(seq: &[(u64, u64, u32)], end: u64, out: &mut Vec<LineRow>) {
    for (i, &(start, file, line)) in seq.iter().enumerate() {
        let next = seq.get(i + 1).map_or(end, |n| n.0);
        if start < next {
            out.push(LineRow {
                start,
                end: next,
                file,
                line,
            });
        }
    }
}

/// `comp_dir/dir/name`, where an absolute `name` stands alone and an absolute `dir` drops
/// `comp_dir` — LLVM's `getFileNameByIndex` with `AbsoluteFilePath`.
pub(crate) fn full_path(comp_dir: &[u8], dir: &[u8], name: &[u8]) -> Vec<u8> {
    if name.first() == Some(&b'/') {
        return name.to_vec();
    }
    let mut out = Vec::new();
    if dir.first() != Some(&b'/') {
        append(&mut out, comp_dir);
    }
    append(&mut out, dir);
    append(&mut out, name);
    out
}

/// Appends a path component with exactly one `/` between it and what is there.
fn append(path: &mut Vec<u8>, component: &[u8]) {
    if component.is_empty() {
        return;
    }
    if path.is_empty() {
        path.extend_from_slice(component);
        return;
    }
    let mut c = component;
    while let Some(rest) = c.strip_prefix(b"/") {
        c = rest;
    }
    if path.last() != Some(&b'/') {
        path.push(b'/');
    }
    path.extend_from_slice(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_like_llvm() {
        assert_eq!(full_path(b"/src", b"", b"a.c"), b"/src/a.c");
        assert_eq!(full_path(b"/src", b"inc", b"a.h"), b"/src/inc/a.h");
        assert_eq!(
            full_path(b"/src", b"/usr/include", b"a.h"),
            b"/usr/include/a.h"
        );
        assert_eq!(full_path(b"/src", b"/usr", b"/abs.h"), b"/abs.h");
        assert_eq!(full_path(b"/src/", b"./x", b"a.c"), b"/src/./x/a.c");
        assert_eq!(full_path(b"", b"", b"a.c"), b"a.c");
    }

    #[test]
    fn sequences_become_intervals() {
        let mut out = Vec::new();
        flush_sequence(&[(0x10, 1, 3), (0x10, 1, 4), (0x14, 2, 5)], 0x20, &mut out);
        assert_eq!(
            out,
            vec![
                LineRow {
                    start: 0x10,
                    end: 0x14,
                    file: 1,
                    line: 4
                },
                LineRow {
                    start: 0x14,
                    end: 0x20,
                    file: 2,
                    line: 5
                }
            ]
        );
    }
}
