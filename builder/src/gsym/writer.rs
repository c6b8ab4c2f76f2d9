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

/// Where a slice of the model lies in memory: the model shares one allocation among the
/// spans of a name or a path, so most lookups are answered by two words hashed instead
/// of a long name.
type Place = (usize, usize);

fn place(s: &[u8]) -> Place {
    (s.as_ptr() as usize, s.len())
}

/// Strings and files, interned in first-use order; keyed by the model's own bytes, and
/// by their place in memory first.
struct Tables<'m> {
    strings: Vec<u8>,
    string_offsets: FastMap<&'m [u8], u32>,
    string_places: FastMap<Place, u32>,
    files: Vec<(u32, u32)>,
    file_indexes: FastMap<&'m [u8], u32>,
    file_places: FastMap<Place, u32>,
}

impl<'m> Tables<'m> {
    fn new() -> Self {
        Tables {
            strings: vec![0],
            string_offsets: fast_map(),
            string_places: fast_map(),
            files: vec![(0, 0)],
            file_indexes: fast_map(),
            file_places: fast_map(),
        }
    }

    fn string(&mut self, s: &'m [u8]) -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&o) = self.string_places.get(&place(s)) {
            return o;
        }
        let offset = match self.string_offsets.get(s) {
            Some(&o) => o,
            None => {
                let offset = self.strings.len() as u32;
                self.strings.extend_from_slice(s);
                self.strings.push(0);
                self.string_offsets.insert(s, offset);
                offset
            }
        };
        self.string_places.insert(place(s), offset);
        offset
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
        if let Some(&i) = self.file_places.get(&place(path)) {
            return i;
        }
        let index = self.file_by_bytes(path);
        self.file_places.insert(place(path), index);
        index
    }

    /// [`file`](Self::file) by the path's bytes.
    fn file_by_bytes(&mut self, path: &'m [u8]) -> u32 {
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

    // Records are planned and encoded in parallel, a window at a time, so that only one
    // window's plans and encodings are held beside the model; strings and files are
    // interned in between, serially in record order, so that the bytes do not depend on
    // the number of threads.
    let mut tables = Tables::new();
    let mut infos = Infos::default();
    for window in records.chunks(RECORDS_PER_WINDOW) {
        let plans: Vec<Plan<'_>> = window.par_iter().map(plan).collect();
        let ids: Vec<Vec<u32>> = plans.iter().map(|p| p.intern(&mut tables)).collect();
        let encoded: Vec<Result<Encoded>> = window
            .par_iter()
            .zip(&plans)
            .zip(&ids)
            .map(|((r, p), ids)| encode_info(r, p, ids, &tables))
            .collect();
        for e in encoded {
            let e = e?;
            written.with_lines += usize::from(e.lines);
            written.with_inlines += usize::from(e.inlines);
            infos.push(&e.bytes);
        }
    }
    written.functions = records.len();
    written.bytes = layout(&records, infos, &tables, &options.uuid)?;
    Ok(written)
}

/// Records planned and encoded together: enough to keep both cores busy, few enough
/// that their plans (line rows, the strings they intern) stay small beside the model.
const RECORDS_PER_WINDOW: usize = 1024;

/// The encoded `FunctionInfo`s, one after the other as the file holds them (each at a
/// multiple of 4 from the first), with where each starts.
#[derive(Default)]
struct Infos {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl Infos {
    fn push(&mut self, info: &[u8]) {
        align(&mut self.bytes, 4);
        self.offsets.push(self.bytes.len());
        self.bytes.extend_from_slice(info);
    }
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
/// numbered in that record alone. The encoder finds each table entry by its use's
/// position, so no string is hashed twice.
struct Plan<'g> {
    uses: Vec<Use<'g>>,
    rows: Vec<line_table::Row>,
    /// The position in `uses` of each of the record's files (the rows' file numbers).
    row_files: Vec<u32>,
    /// Per span of the record (its groups' spans in order): the positions in `uses` of
    /// an inlined span's name and call file ([`NONE`] where there is none).
    span_uses: Vec<(u32, u32)>,
}

/// No use: a span that is not in the inline tree, or one without a call file.
const NONE: u32 = u32::MAX;

/// A string or a file path a record's encoding interns.
#[derive(Clone, Copy)]
enum Use<'g> {
    String(&'g [u8]),
    File(&'g [u8]),
}

impl<'g> Plan<'g> {
    /// Interns the uses in order; the table entry of each (a string's offset, a file's
    /// index).
    fn intern(&self, tables: &mut Tables<'g>) -> Vec<u32> {
        self.uses
            .iter()
            .map(|u| match *u {
                Use::String(s) => tables.string(s),
                Use::File(p) => tables.file(p),
            })
            .collect()
    }
}

/// The plan of record `r`: its line rows and what its encoding will intern, each string
/// and path once (by its place in memory: most repeats share one), in first-use order.
fn plan<'g>(r: &Record<'g, '_>) -> Plan<'g> {
    let mut uses = Vec::new();
    let mut seen: FastMap<(bool, Place), u32> = fast_map();
    let mut add = |uses: &mut Vec<Use<'g>>, u: Use<'g>| -> u32 {
        let key = match u {
            Use::String(s) => (false, place(s)),
            Use::File(p) => (true, place(p)),
        };
        *seen.entry(key).or_insert_with(|| {
            uses.push(u);
            uses.len() as u32 - 1
        })
    };
    add(&mut uses, Use::String(r.name()));
    let mut files: Vec<&'g [u8]> = Vec::new();
    let mut row_files = Vec::new();
    let rows = line_table::rows(r.pieces, &mut |p| {
        // Paths are shared: the same allocation is the common case.
        let known = files.iter().position(|f| std::ptr::eq(*f, p) || *f == p);
        let index = known.unwrap_or_else(|| {
            files.push(p);
            row_files.push(add(&mut uses, Use::File(p)));
            files.len() - 1
        });
        index as u32
    });
    // The inline tree's names and call files: those of its inlined spans (the pieces of
    // one call share both), in span order.
    let spans = r.pieces.iter().flat_map(|g| &g.spans);
    let mut span_uses = Vec::with_capacity(spans.clone().count());
    for span in spans {
        if span.depth == 0 || span.start >= span.end {
            span_uses.push((NONE, NONE));
            continue;
        }
        let name = add(&mut uses, Use::String(&span.name));
        let call_file = match span.call_file.as_deref() {
            Some(call_file) => add(&mut uses, Use::File(call_file)),
            None => NONE,
        };
        span_uses.push((name, call_file));
    }
    Plan {
        uses,
        rows,
        row_files,
        span_uses,
    }
}

/// An encoded `FunctionInfo`, and which chunks it has.
struct Encoded {
    bytes: Vec<u8>,
    lines: bool,
    inlines: bool,
}

/// One `FunctionInfo`: size, name, then the line-table and inline chunks and the end;
/// `ids` are the table entries of the plan's uses.
fn encode_info(
    r: &Record<'_, '_>,
    plan: &Plan<'_>,
    ids: &[u32],
    tables: &Tables<'_>,
) -> Result<Encoded> {
    let id = |at: u32| ids.get(at as usize).copied().unwrap_or(0);
    let (start, end) = r.range();
    let size = u32_field("GSYM function size", end.wrapping_sub(start))?;
    let mut out = Vec::new();
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&id(0).to_le_bytes());
    let lines = !plan.rows.is_empty();
    if lines {
        let rows: Vec<line_table::Row> = plan
            .rows
            .iter()
            .map(|row| line_table::Row {
                file: plan
                    .row_files
                    .get(row.file as usize)
                    .map_or(0, |&at| id(at)),
                ..*row
            })
            .collect();
        let mut chunk = Vec::new();
        line_table::encode(&rows, start, &mut chunk);
        push_chunk(&mut out, info_type::LINE_TABLE, &chunk)?;
    }
    let mut chunk = Vec::new();
    let uses = |k: usize| plan.span_uses.get(k).copied().unwrap_or((NONE, NONE));
    let inlines = inline::encode(
        r.pieces,
        &inline::Ids {
            // The root is the record's own name; its depth-0 span has no call file in
            // the tree's uses, and is looked up by its bytes.
            name: &|k| if k == 0 { id(0) } else { id(uses(k).0) },
            call_file: &|k, path| match uses(k).1 {
                NONE => tables.file_id(path),
                at => id(at),
            },
        },
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

/// The whole file, in `GsymCreator::encode`'s order: the tables before the function
/// records are laid out, then moved in front of the records in the records' own
/// allocation, so that the file is never held twice.
fn layout(
    records: &[Record<'_, '_>],
    infos: Infos,
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
    let size = HEADER_SIZE
        + addr_size * records.len()
        + 3
        + 4 * records.len()
        + 4
        + 8 * tables.files.len()
        + tables.strings.len()
        + 3;
    let mut head = Vec::with_capacity(size);
    head.resize(HEADER_SIZE, 0);
    for r in records {
        let offset = r.range().0 - base;
        head.extend_from_slice(&offset.to_le_bytes()[..addr_size]);
    }
    align(&mut head, 4);
    let offsets_at = head.len();
    head.resize(offsets_at + 4 * records.len(), 0);
    head.extend_from_slice(&u32_field("GSYM files", tables.files.len() as u64)?.to_le_bytes());
    for &(dir, base_name) in &tables.files {
        head.extend_from_slice(&dir.to_le_bytes());
        head.extend_from_slice(&base_name.to_le_bytes());
    }
    let strtab_offset = u32_field("GSYM string table offset", head.len() as u64)?;
    head.extend_from_slice(&tables.strings);
    // The records start at a multiple of 4, as each record does.
    if !infos.offsets.is_empty() {
        align(&mut head, 4);
    }
    let infos_at = head.len();
    for (i, &offset) in infos.offsets.iter().enumerate() {
        let at = u32_field("GSYM function offset", (infos_at + offset) as u64)?;
        head[offsets_at + 4 * i..offsets_at + 4 * i + 4].copy_from_slice(&at.to_le_bytes());
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
    head[..HEADER_SIZE].copy_from_slice(header.as_bytes());
    let mut out = infos.bytes;
    let records_len = out.len();
    out.reserve_exact(head.len());
    out.resize(records_len + head.len(), 0);
    out.copy_within(..records_len, head.len());
    out[..head.len()].copy_from_slice(&head);
    Ok(out)
}
