//! Laying out a GSYM v1 file: header, address table, address-info offsets, file table,
//! string table and the function records, in LLVM's order and alignment.

use rayon::prelude::*;
use symblob::gsym::raw::{info_type, Header, HEADER_SIZE, MAGIC, MAX_UUID_SIZE, VERSION};
use zerocopy::byteorder::little_endian::{U16, U32, U64};
use zerocopy::IntoBytes;

use super::{inline, line_table};
use crate::fast_hash::{fast_map, FastMap};
use crate::model::{function_runs, Group, Model};
use crate::{Error, Result};

/// Options of the GSYM writer.
#[derive(Clone, Debug, Default)]
pub struct GsymOptions {
    /// The build ID of the executable, stored as the header's UUID (at most 20 bytes; a
    /// longer one is refused).
    pub uuid: Vec<u8>,
}

/// A written GSYM file and what became of the model's functions.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// The file.
    pub bytes: Vec<u8>,
    /// Function records written.
    pub functions: usize,
    /// Records with a line table.
    pub with_lines: usize,
    /// Records with an inline tree.
    pub with_inlines: usize,
    /// Pieces left out because they have no name (a GSYM record needs one).
    pub unnamed: usize,
    /// Pieces removed by LLVM's rules: a second piece with the same range (the one with
    /// less information goes), and zero-sized pieces inside the next function.
    pub merged: usize,
}

/// One function record before layout: the model's groups it is made of.
struct Record<'g, 'a> {
    pieces: &'g [Group<'a>],
    has_lines: bool,
    has_inlines: bool,
}

impl<'g> Record<'g, '_> {
    fn range(&self) -> (u64, u64) {
        let start = self.pieces.first().map_or(0, Group::start);
        (start, self.pieces.last().map_or(start, Group::end))
    }

    fn name(&self) -> &'g [u8] {
        self.pieces
            .first()
            .and_then(|g| g.spans.first())
            .map_or(&[], |s| &s.name)
    }

    fn rich(&self) -> bool {
        self.has_lines || self.has_inlines
    }
}

/// Strings and files, interned in first-use order; keyed by the model's own bytes.
struct Tables<'m> {
    strings: Vec<u8>,
    string_offsets: FastMap<&'m [u8], u32>,
    files: Vec<(u32, u32)>,
    file_indexes: FastMap<&'m [u8], u32>,
}

impl<'m> Tables<'m> {
    fn new() -> Self {
        Tables {
            strings: vec![0],
            string_offsets: fast_map(),
            files: vec![(0, 0)],
            file_indexes: fast_map(),
        }
    }

    fn string(&mut self, s: &'m [u8]) -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&o) = self.string_offsets.get(s) {
            return o;
        }
        let offset = self.strings.len() as u32;
        self.strings.extend_from_slice(s);
        self.strings.push(0);
        self.string_offsets.insert(s, offset);
        offset
    }

    /// The offset of a string interned before (0 for the empty string).
    fn string_id(&self, s: &[u8]) -> u32 {
        self.string_offsets.get(s).copied().unwrap_or(0)
    }

    /// The index of a file interned before.
    fn file_id(&self, path: &[u8]) -> u32 {
        self.file_indexes.get(path).copied().unwrap_or(0)
    }

    /// The file-table index of `path`: split at its last `/` into directory and base
    /// name, which a reader joins with `/` again (a path whose only `/` is its first byte
    /// is kept whole as the base name). The empty path gets an entry of its own that
    /// names no file, not entry 0, which makes a lookup fail.
    fn file(&mut self, path: &'m [u8]) -> u32 {
        if let Some(&i) = self.file_indexes.get(path) {
            return i;
        }
        let (dir, base) = match path.iter().rposition(|&b| b == b'/') {
            Some(cut) if cut > 0 => (&path[..cut], &path[cut + 1..]),
            _ => (&path[..0], path),
        };
        let entry = (self.string(dir), self.string(base));
        let index = self.files.len() as u32;
        self.files.push(entry);
        self.file_indexes.insert(path, index);
        index
    }
}

/// Writes the model's functions as a GSYM file.
///
/// # Errors
///
/// A function longer than 4 GiB or a table beyond the format's 32-bit offsets
/// ([`ErrorKind::Limit`](crate::ErrorKind::Limit)), a UUID longer than 20 bytes
/// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)).
pub fn write_model(model: &Model<'_>, options: &GsymOptions) -> Result<Written> {
    if options.uuid.len() > MAX_UUID_SIZE {
        return Err(Error::new(
            crate::ErrorKind::InvalidArgument,
            "uuid",
            crate::Location::Whole,
            format!(
                "a GSYM UUID holds at most {MAX_UUID_SIZE} bytes, not {}",
                options.uuid.len()
            ),
        ));
    }
    let mut written = Written::default();
    let mut records: Vec<Record<'_, '_>> = Vec::with_capacity(model.functions.len());
    for pieces in function_runs(&model.functions) {
        let Some(first) = pieces.first().and_then(|g| g.spans.first()) else {
            continue;
        };
        if first.name.is_empty() {
            written.unnamed += 1;
            continue;
        }
        let spans = || pieces.iter().flat_map(|g| &g.spans);
        records.push(Record {
            pieces,
            has_lines: spans().any(|s| !s.rows.is_empty()),
            has_inlines: spans().any(|s| s.depth > 0),
        });
    }
    // LLVM's FunctionInfo order: range, then without inline info before with it, then
    // without lines before with them; ties keep model order.
    records.sort_by_key(|r| (r.range(), r.has_inlines, r.has_lines));
    let records = finalize(records, &mut written);

    // Records are planned and encoded in parallel; strings and files are interned in
    // between, serially in record order, so that the bytes do not depend on the number
    // of threads.
    let plans: Vec<Plan<'_>> = records.par_iter().map(plan).collect();
    let mut tables = Tables::new();
    let file_ids: Vec<Vec<u32>> = plans.iter().map(|p| p.intern(&mut tables)).collect();
    let encoded: Vec<Result<Encoded>> = records
        .par_iter()
        .zip(&plans)
        .zip(&file_ids)
        .map(|((r, p), ids)| encode_info(r, p, ids, &tables))
        .collect();
    let mut infos: Vec<Vec<u8>> = Vec::with_capacity(records.len());
    for e in encoded {
        let e = e?;
        written.with_lines += usize::from(e.lines);
        written.with_inlines += usize::from(e.inlines);
        infos.push(e.bytes);
    }
    written.functions = records.len();
    written.bytes = layout(&records, &infos, &tables, &options.uuid)?;
    Ok(written)
}

/// LLVM 14's `GsymCreator::finalize` on sorted records: of two with the same range, the
/// second goes if both are equal, else the first goes if only the second has line or
/// inline information, else the second goes; a zero-sized record whose address lies in
/// the next record goes. Records that merely overlap stay (LLVM warns and keeps both).
fn finalize<'g, 'a>(records: Vec<Record<'g, 'a>>, written: &mut Written) -> Vec<Record<'g, 'a>> {
    let mut out: Vec<Record<'g, 'a>> = Vec::with_capacity(records.len());
    for curr in records {
        let Some(prev) = out.last() else {
            out.push(curr);
            continue;
        };
        let (ps, pe) = prev.range();
        let (cs, ce) = curr.range();
        if (ps, pe) == (cs, ce) && ps < pe {
            written.merged += 1;
            if !prev.rich() && curr.rich() {
                out.pop();
                out.push(curr);
            }
            continue;
        }
        if ps == pe && cs <= ps && ps < ce {
            written.merged += 1;
            out.pop();
        }
        out.push(curr);
    }
    out
}

/// What a record needs from the string and file tables (name, the files of its line
/// rows, then its inline tree's names and call files), and its line rows with files
/// numbered in that record alone.
struct Plan<'g> {
    uses: Vec<Use<'g>>,
    rows: Vec<line_table::Row>,
}

/// A string or a file path a record's encoding interns.
#[derive(Clone, Copy)]
enum Use<'g> {
    String(&'g [u8]),
    File(&'g [u8]),
}

impl<'g> Plan<'g> {
    /// Interns the uses in order; the global index of each of the record's files.
    fn intern(&self, tables: &mut Tables<'g>) -> Vec<u32> {
        // The rows' file numbers index the first file uses (the rows' files come first).
        let mut files = Vec::new();
        for u in &self.uses {
            match *u {
                Use::String(s) => {
                    tables.string(s);
                }
                Use::File(p) => files.push(tables.file(p)),
            }
        }
        files
    }
}

/// The plan of record `r`: its line rows and what its encoding will intern.
fn plan<'g>(r: &Record<'g, '_>) -> Plan<'g> {
    let mut uses = vec![Use::String(r.name())];
    let mut files: Vec<&'g [u8]> = Vec::new();
    let rows = line_table::rows(r.pieces, &mut |p| {
        // Paths are shared: the same allocation is the common case.
        let known = files.iter().position(|f| std::ptr::eq(*f, p) || *f == p);
        let index = known.unwrap_or_else(|| {
            files.push(p);
            uses.push(Use::File(p));
            files.len() - 1
        });
        index as u32
    });
    // The inline tree's names and call files: those of its inlined spans (the pieces of
    // one call share both), in span order.
    let inlined = r.pieces.iter().flat_map(|g| &g.spans);
    for span in inlined.filter(|s| s.depth > 0 && s.start < s.end) {
        uses.push(Use::String(&span.name));
        if let Some(call_file) = span.call_file.as_deref() {
            uses.push(Use::File(call_file));
        }
    }
    Plan { uses, rows }
}

/// An encoded `FunctionInfo`, and which chunks it has.
struct Encoded {
    bytes: Vec<u8>,
    lines: bool,
    inlines: bool,
}

/// One `FunctionInfo`: size, name, then the line-table and inline chunks and the end;
/// `file_ids` are the global indexes of the plan's files.
fn encode_info(
    r: &Record<'_, '_>,
    plan: &Plan<'_>,
    file_ids: &[u32],
    tables: &Tables<'_>,
) -> Result<Encoded> {
    let (start, end) = r.range();
    let size = u32_field("GSYM function size", end.wrapping_sub(start))?;
    let mut out = Vec::new();
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&tables.string_id(r.name()).to_le_bytes());
    let lines = !plan.rows.is_empty();
    if lines {
        let rows: Vec<line_table::Row> = plan
            .rows
            .iter()
            .map(|row| line_table::Row {
                file: file_ids.get(row.file as usize).copied().unwrap_or(0),
                ..*row
            })
            .collect();
        let mut chunk = Vec::new();
        line_table::encode(&rows, start, &mut chunk);
        push_chunk(&mut out, info_type::LINE_TABLE, &chunk)?;
    }
    let mut chunk = Vec::new();
    let inlines = inline::encode(
        r.pieces,
        &mut |s| tables.string_id(s),
        &mut |p| tables.file_id(p),
        &mut chunk,
    );
    if inlines {
        push_chunk(&mut out, info_type::INLINE_INFO, &chunk)?;
    }
    push_chunk(&mut out, info_type::END_OF_LIST, &[])?;
    Ok(Encoded {
        bytes: out,
        lines,
        inlines,
    })
}

fn push_chunk(out: &mut Vec<u8>, kind: u32, data: &[u8]) -> Result<()> {
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&u32_field("GSYM chunk length", data.len() as u64)?.to_le_bytes());
    out.extend_from_slice(data);
    Ok(())
}

fn u32_field(what: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::limit(what, value, u64::from(u32::MAX)))
}

/// Pads `out` with zeros to a multiple of `align` (from the file's start).
fn align(out: &mut Vec<u8>, align: usize) {
    out.resize(out.len().next_multiple_of(align), 0);
}

/// The whole file, in `GsymCreator::encode`'s order.
fn layout(
    records: &[Record<'_, '_>],
    infos: &[Vec<u8>],
    tables: &Tables<'_>,
    uuid: &[u8],
) -> Result<Vec<u8>> {
    let base = records.first().map_or(0, |r| r.range().0);
    let max_offset = records.last().map_or(0, |r| r.range().0 - base);
    let addr_size: usize = match max_offset {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xffff_ffff => 4,
        _ => 8,
    };
    let mut out = vec![0u8; HEADER_SIZE];
    for r in records {
        let offset = r.range().0 - base;
        out.extend_from_slice(&offset.to_le_bytes()[..addr_size]);
    }
    align(&mut out, 4);
    let offsets_at = out.len();
    out.resize(offsets_at + 4 * records.len(), 0);
    out.extend_from_slice(&u32_field("GSYM files", tables.files.len() as u64)?.to_le_bytes());
    for &(dir, base_name) in &tables.files {
        out.extend_from_slice(&dir.to_le_bytes());
        out.extend_from_slice(&base_name.to_le_bytes());
    }
    let strtab_offset = u32_field("GSYM string table offset", out.len() as u64)?;
    out.extend_from_slice(&tables.strings);
    for (i, info) in infos.iter().enumerate() {
        align(&mut out, 4);
        let at = u32_field("GSYM function offset", out.len() as u64)?;
        out[offsets_at + 4 * i..offsets_at + 4 * i + 4].copy_from_slice(&at.to_le_bytes());
        out.extend_from_slice(info);
    }
    let mut header_uuid = [0u8; MAX_UUID_SIZE];
    header_uuid[..uuid.len()].copy_from_slice(uuid);
    let header = Header {
        magic: U32::new(MAGIC),
        version: U16::new(VERSION),
        addr_off_size: addr_size as u8,
        uuid_size: uuid.len() as u8,
        base_address: U64::new(base),
        num_addresses: U32::new(u32_field("GSYM functions", records.len() as u64)?),
        strtab_offset: U32::new(strtab_offset),
        strtab_size: U32::new(u32_field(
            "GSYM string table size",
            tables.strings.len() as u64,
        )?),
        uuid: header_uuid,
    };
    out[..HEADER_SIZE].copy_from_slice(header.as_bytes());
    Ok(out)
}
