//! A unit's line program as symblib reads it (spec §5.1): one entry per run of rows with
//! the same file index and line, files named `"<dir>/<name>"`.

use crate::dwarf::Slice;
use crate::fast_hash::FastMap;

/// Why a unit is abandoned (spec §5: the unit counts as broken).
pub(crate) type UnitError = String;

/// The source files of one unit, named once per file index and interned so that equal
/// strings share an id (symblib compares file strings when splitting and merging rows).
#[derive(Default)]
pub(crate) struct UnitFiles {
    by_index: FastMap<u64, u32>,
    ids: FastMap<String, u32>,
    /// The strings, indexed by id.
    pub names: Vec<String>,
}

impl UnitFiles {
    /// The id of file `index` of the unit's line-program header.
    pub(crate) fn id<'a>(
        &mut self,
        dwarf: &gimli::Dwarf<Slice<'a>>,
        unit: &gimli::Unit<Slice<'a>>,
        header: &gimli::LineProgramHeader<Slice<'a>>,
        index: u64,
    ) -> Result<u32, UnitError> {
        if let Some(&id) = self.by_index.get(&index) {
            return Ok(id);
        }
        let name = file_name(dwarf, unit, header, index)?;
        let next = self.names.len() as u32;
        let id = *self.ids.entry(name.clone()).or_insert_with(|| {
            self.names.push(name);
            next
        });
        self.by_index.insert(index, id);
        Ok(id)
    }
}

/// `"<dir>/<name>"`; a missing directory 0 is `<unknown dir>`, any other is an error.
fn file_name<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    header: &gimli::LineProgramHeader<Slice<'a>>,
    index: u64,
) -> Result<String, UnitError> {
    let entry = header
        .file(index)
        .ok_or_else(|| format!("invalid file index {index}"))?;
    let name = dwarf
        .attr_string(unit, entry.path_name())
        .map_err(|e| format!("file name: {e}"))?;
    let name = name.to_string_lossy();
    let dir = match entry.directory(header) {
        Some(av) => dwarf
            .attr_string(unit, av)
            .map_err(|e| format!("directory name: {e}"))?
            .to_string_lossy()
            .into_owned(),
        None if entry.directory_index() == 0 => "<unknown dir>".to_string(),
        None => {
            return Err(format!(
                "invalid directory index {}",
                entry.directory_index()
            ))
        }
    };
    Ok(format!("{dir}/{name}"))
}

/// One line entry: `[start, end)` has `line` (0 = none) of file id `file`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineEntry {
    pub start: u64,
    pub end: u64,
    pub file: u32,
    pub line: u64,
}

/// The open entry while walking rows.
struct Open {
    start: u64,
    end: u64,
    file_index: u64,
    file: u32,
    line: u64,
}

/// Reads the unit's line program into non-empty entries sorted by start address (ties in
/// program order). `Ok(None)` when the unit has no line program.
pub(crate) fn read_lines<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    files: &mut UnitFiles,
) -> Result<Option<Vec<LineEntry>>, UnitError> {
    let Some(program) = unit.line_program.clone() else {
        return Ok(None);
    };
    let mut rows = program.rows();
    let mut out = Vec::new();
    let mut open: Option<Open> = None;
    let close = |o: Open, out: &mut Vec<LineEntry>| {
        if o.end > o.start {
            out.push(LineEntry {
                start: o.start,
                end: o.end,
                file: o.file,
                line: o.line,
            });
        }
    };
    loop {
        let (header, row) = match rows.next_row() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => return Err(format!("line program: {e}")),
        };
        let address = row.address();
        let line = row.line().map_or(0, |l| l.get());
        let Some(mut cur) = open.take() else {
            if !row.end_sequence() {
                let file = files.id(dwarf, unit, header, row.file_index())?;
                open = Some(Open {
                    start: address,
                    end: address,
                    file_index: row.file_index(),
                    file,
                    line,
                });
            }
            continue;
        };
        if row.end_sequence() {
            cur.end = address;
            close(cur, &mut out);
            continue;
        }
        let new_open = |files: &mut UnitFiles| -> Result<Open, UnitError> {
            Ok(Open {
                start: address,
                end: address,
                file_index: row.file_index(),
                file: files.id(dwarf, unit, header, row.file_index())?,
                line,
            })
        };
        if cur.end > address {
            // Addresses went down inside a sequence: symblib gives the open entry one byte.
            let next = new_open(files)?;
            cur.end = cur.start.wrapping_add(1);
            close(cur, &mut out);
            open = Some(next);
            continue;
        }
        cur.end = address;
        if cur.file_index == row.file_index() && cur.line == line {
            open = Some(cur);
            continue;
        }
        let next = new_open(files)?;
        close(cur, &mut out);
        open = Some(next);
    }
    if let Some(o) = open {
        close(o, &mut out);
    }
    out.sort_by_key(|e| e.start);
    Ok(Some(out))
}

/// The entries overlapping `[start, end)`: `entries` sorted by start, `max_end[i]` the
/// largest end among `entries[..=i]`.
pub(crate) fn overlapping<'e>(
    entries: &'e [LineEntry],
    max_end: &[u64],
    start: u64,
    end: u64,
) -> impl Iterator<Item = &'e LineEntry> {
    let upper = entries.partition_point(|e| e.start < end);
    let lower = max_end[..upper].partition_point(|&m| m <= start);
    entries[lower..upper].iter().filter(move |e| e.end > start)
}
