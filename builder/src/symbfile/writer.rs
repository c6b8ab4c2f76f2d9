//! The symbfile writer: symblib's byte-level encoding (spec §2.6, §4) with a deterministic
//! string-table order.
//!
//! Records are buffered per window. A window ends when its string-table estimate reaches
//! symblib's limit (16 MiB − 64 KiB, each distinct string counting 5 + its length), when it
//! holds [`WriterOptions::window_records`] records, and at [`SymbfileWriter::finish`]. Each
//! window is written as one string table (even an empty one) followed by its records. The
//! table holds every string used more than once in the window, in order of first use, then
//! the return-pad strings used only once (per pad all functions, then all files); range
//! strings used once are written inline.

use crate::dwarf::fast_hash::{fast_map, FastMap};
use crate::{Error, Location, Result};

use super::record::{LineRow, RangeRecord, Record, ReturnPadRecord};

const MAGIC: &[u8; 8] = b"symbfile";
const MT_HEADER: u64 = 1;
const MT_RANGE_V1: u64 = 2;
const MT_RETURN_PAD_V1: u64 = 3;
const MT_STRING_TABLE_V1: u64 = 4;
/// Largest message body symblib reads or writes.
const MAX_MESSAGE_SIZE: usize = 16 << 20;
/// symblib flushes when its string-table estimate reaches this.
const TABLE_ESTIMATE_LIMIT: usize = (16 << 20) - (64 << 10);

/// Writer settings.
#[derive(Clone, Copy, Debug)]
pub struct WriterOptions {
    /// Records per window (string table) at most.
    pub window_records: usize,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            window_records: 1 << 18,
        }
    }
}

/// Per-string bookkeeping of the current window.
#[derive(Clone, Copy)]
struct StringUse {
    /// Number of uses (each field occurrence counts).
    count: u32,
    /// Table index, once assigned at flush.
    index: Option<u32>,
}

/// A buffered range record: strings as window string ids, the line table already encoded
/// (a fraction of the memory of the owned record, which the window holds 2^18 of).
struct PendingRange {
    va: u64,
    length: u64,
    func: u32,
    file: Option<u32>,
    call_file: Option<u32>,
    call_line: Option<u32>,
    depth: u32,
    /// The `lineTable` payload in [`SymbfileWriter::line_tables`].
    lines: std::ops::Range<usize>,
}

enum Pending {
    Range(PendingRange),
    ReturnPad(ReturnPadRecord),
}

/// Writes records into a symbfile in memory.
pub struct SymbfileWriter {
    options: WriterOptions,
    out: Vec<u8>,
    window: Vec<Pending>,
    /// The distinct strings of the window, each stored once, with its id: ids count up
    /// in first-use order. Fx-hashed: the strings are names from the input, and the map is
    /// bounded by a window.
    ids: FastMap<Box<str>, u32>,
    /// Uses of each string id.
    uses: Vec<StringUse>,
    /// The encoded line tables of the window's ranges.
    line_tables: Vec<u8>,
    table_estimate: usize,
    prev_va: Option<u64>,
    records: u64,
    /// Whether a window (string table) was written.
    flushed: bool,
}

impl Default for SymbfileWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl SymbfileWriter {
    /// A writer with the default options.
    pub fn new() -> Self {
        Self::with_options(WriterOptions::default())
    }

    /// A writer with `options`.
    pub fn with_options(options: WriterOptions) -> Self {
        let mut out = MAGIC.to_vec();
        message(&mut out, MT_HEADER, &[]);
        SymbfileWriter {
            options: WriterOptions {
                window_records: options.window_records.max(1),
            },
            out,
            window: Vec::new(),
            ids: fast_map(),
            uses: Vec::new(),
            line_tables: Vec::new(),
            table_estimate: 0,
            prev_va: None,
            records: 0,
            flushed: false,
        }
    }

    /// Number of records added so far.
    pub fn len(&self) -> u64 {
        self.records
    }

    /// True if no record was added.
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Adds one record (a copy of it). Fails on a line table not sorted by offset.
    pub fn add(&mut self, record: &Record) -> Result<()> {
        match record {
            Record::Range(r) => self.push_range(r),
            Record::ReturnPad(p) => self.push_pad(p.clone()),
        }
    }

    /// Adds one record, taking it over (what an extractor producing records calls).
    pub fn push(&mut self, record: Record) -> Result<()> {
        match record {
            Record::Range(r) => self.push_range(&r),
            Record::ReturnPad(p) => self.push_pad(p),
        }
    }

    /// Adds one range record (a copy of it); as [`add`](Self::add) without the [`Record`]
    /// around it.
    pub fn add_range(&mut self, r: &RangeRecord) -> Result<()> {
        self.push_range(r)
    }

    fn push_range(&mut self, r: &RangeRecord) -> Result<()> {
        if r.lines.windows(2).any(|w| w[1].offset < w[0].offset) {
            return Err(Error::input(
                "symbfile writer",
                Location::Index(self.records),
                format!(
                    "line table of {:?} at {:#x} is not sorted by offset",
                    r.func, r.va
                ),
            ));
        }
        // First use is decided in this order: function, file, call file (spec §4).
        let func = self.use_string(&r.func);
        let file = r.file.as_deref().map(|s| self.use_string(s));
        let call_file = r.call_file.as_deref().map(|s| self.use_string(s));
        let start = self.line_tables.len();
        if !r.lines.is_empty() {
            let mut last = 0;
            packed(
                &mut self.line_tables,
                1,
                r.lines.iter().map(|row: &LineRow| {
                    let delta = row.offset - last;
                    last = row.offset;
                    u64::from(delta)
                }),
            );
            packed(
                &mut self.line_tables,
                2,
                r.lines.iter().map(|row| u64::from(row.line)),
            );
        }
        self.window.push(Pending::Range(PendingRange {
            va: r.va,
            length: r.length,
            func,
            file,
            call_file,
            call_line: r.call_line,
            depth: r.depth,
            lines: start..self.line_tables.len(),
        }));
        self.pushed()
    }

    fn push_pad(&mut self, p: ReturnPadRecord) -> Result<()> {
        for e in &p.entries {
            self.use_string(&e.func);
            self.use_string(e.file.as_deref().unwrap_or(""));
        }
        self.window.push(Pending::ReturnPad(p));
        self.pushed()
    }

    /// Counts the record just buffered and flushes a full window.
    fn pushed(&mut self) -> Result<()> {
        self.records += 1;
        if self.window.len() >= self.options.window_records
            || self.table_estimate >= TABLE_ESTIMATE_LIMIT
        {
            self.flush()?;
        }
        Ok(())
    }

    /// Adds every record of `records`.
    pub fn extend<'r>(&mut self, records: impl IntoIterator<Item = &'r Record>) -> Result<()> {
        records.into_iter().try_for_each(|r| self.add(r))
    }

    /// Counts a use of `s` and returns its id in the window.
    fn use_string(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            self.uses[id as usize].count += 1;
            return id;
        }
        let id = self.uses.len() as u32;
        self.table_estimate += 5 + s.len();
        self.ids.insert(s.into(), id);
        self.uses.push(StringUse {
            count: 1,
            index: None,
        });
        id
    }

    /// Writes the buffered window: its string table, then its records.
    fn flush(&mut self) -> Result<()> {
        let ids = std::mem::take(&mut self.ids);
        let mut texts = vec![""; self.uses.len()];
        for (s, &id) in &ids {
            texts[id as usize] = s;
        }
        let mut table: Vec<&str> = Vec::new();
        for (u, s) in self.uses.iter_mut().zip(&texts) {
            if u.count > 1 {
                u.index = Some(table.len() as u32);
                table.push(s);
            }
        }
        for record in &self.window {
            let Pending::ReturnPad(p) = record else {
                continue;
            };
            let funcs = p.entries.iter().map(|e| e.func.as_str());
            let files = p.entries.iter().map(|e| e.file.as_deref().unwrap_or(""));
            for s in funcs.chain(files) {
                let u = &mut self.uses[ids[s] as usize];
                if u.index.is_none() {
                    u.index = Some(table.len() as u32);
                    table.push(s);
                }
            }
        }
        let mut body = Vec::new();
        for s in &table {
            len_delim(&mut body, 1, s.as_bytes());
        }
        checked_message(&mut self.out, MT_STRING_TABLE_V1, &body)?;
        let strings = WindowStrings {
            texts: &texts,
            uses: &self.uses,
            ids: &ids,
        };
        for record in std::mem::take(&mut self.window) {
            body.clear();
            let kind = match &record {
                Pending::Range(r) => {
                    encode_range(&mut body, &mut self.prev_va, &strings, r, &self.line_tables);
                    MT_RANGE_V1
                }
                Pending::ReturnPad(p) => {
                    encode_pad(&mut body, &mut self.prev_va, &strings, p);
                    MT_RETURN_PAD_V1
                }
            };
            checked_message(&mut self.out, kind, &body)?;
        }
        self.uses.clear();
        self.line_tables.clear();
        self.table_estimate = 0;
        self.flushed = true;
        Ok(())
    }

    /// Takes the bytes of the windows written so far, so that a long file can be streamed
    /// out while it is made; [`finish`](Self::finish) then gives only the rest.
    pub fn take_written(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// Writes the last window and returns the file (or, after
    /// [`take_written`](Self::take_written), its rest).
    pub fn finish(mut self) -> Result<Vec<u8>> {
        if !self.window.is_empty() || !self.flushed {
            self.flush()?;
        }
        Ok(self.out)
    }
}

/// The window's strings as the record encoders see them.
struct WindowStrings<'w> {
    texts: &'w [&'w str],
    uses: &'w [StringUse],
    ids: &'w FastMap<Box<str>, u32>,
}

impl WindowStrings<'_> {
    /// A range's string field: a table reference when the string is used more than once,
    /// else inline.
    fn field(&self, body: &mut Vec<u8>, inline_field: u32, ref_field: u32, id: u32) {
        let u = self.uses[id as usize];
        match u.index.filter(|_| u.count > 1) {
            Some(i) => {
                tag(body, ref_field, 0);
                varint(body, u64::from(i));
            }
            None => len_delim(body, inline_field, self.texts[id as usize].as_bytes()),
        }
    }

    /// A return-pad string's table index.
    fn index(&self, s: &str) -> u64 {
        let u = self.ids.get(s).map(|&id| self.uses[id as usize]);
        u64::from(u.and_then(|u| u.index).unwrap_or(0))
    }
}

/// `deltaElfVA` (field 1) when the signed difference fits i64, else the absolute VA in
/// `set_field`, as symblib chooses (spec §3.1).
fn elf_va(body: &mut Vec<u8>, prev_va: &mut Option<u64>, va: u64, set_field: u32) {
    let delta = prev_va.and_then(|prev| i64::try_from(i128::from(va) - i128::from(prev)).ok());
    match delta {
        Some(d) => {
            tag(body, 1, 0);
            varint(body, ((d << 1) ^ (d >> 63)) as u64);
        }
        None => {
            tag(body, set_field, 0);
            varint(body, va);
        }
    }
    *prev_va = Some(va);
}

fn encode_range(
    body: &mut Vec<u8>,
    prev_va: &mut Option<u64>,
    strings: &WindowStrings<'_>,
    r: &PendingRange,
    line_tables: &[u8],
) {
    elf_va(body, prev_va, r.va, 12);
    if r.length != 0 {
        tag(body, 2, 0);
        varint(body, r.length);
    }
    strings.field(body, 3, 9, r.func);
    if let Some(file) = r.file {
        strings.field(body, 4, 10, file);
    }
    if let Some(line) = r.call_line.filter(|&l| l != 0) {
        tag(body, 5, 0);
        varint(body, u64::from(line));
    }
    if let Some(call_file) = r.call_file {
        strings.field(body, 6, 11, call_file);
    }
    if r.depth != 0 {
        tag(body, 7, 0);
        varint(body, u64::from(r.depth));
    }
    if !r.lines.is_empty() {
        len_delim(body, 8, &line_tables[r.lines.clone()]);
    }
}

fn encode_pad(
    body: &mut Vec<u8>,
    prev_va: &mut Option<u64>,
    strings: &WindowStrings<'_>,
    p: &ReturnPadRecord,
) {
    elf_va(body, prev_va, p.va, 5);
    let funcs: Vec<u64> = p.entries.iter().map(|e| strings.index(&e.func)).collect();
    let files: Vec<u64> = p
        .entries
        .iter()
        .map(|e| strings.index(e.file.as_deref().unwrap_or("")))
        .collect();
    packed(body, 2, funcs.into_iter());
    packed(body, 3, files.into_iter());
    packed(
        body,
        4,
        p.entries.iter().map(|e| u64::from(e.line.unwrap_or(0))),
    );
}

/// Encodes every record into a complete symbfile with default options.
pub fn encode(records: &[Record]) -> Result<Vec<u8>> {
    let mut w = SymbfileWriter::new();
    w.extend(records)?;
    w.finish()
}

pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn tag(out: &mut Vec<u8>, field: u32, wire_type: u8) {
    varint(out, (u64::from(field) << 3) | u64::from(wire_type));
}

fn len_delim(out: &mut Vec<u8>, field: u32, payload: &[u8]) {
    tag(out, field, 2);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

fn packed(out: &mut Vec<u8>, field: u32, values: impl Iterator<Item = u64>) {
    let mut payload = Vec::new();
    for v in values {
        varint(&mut payload, v);
    }
    if !payload.is_empty() {
        len_delim(out, field, &payload);
    }
}

fn message(out: &mut Vec<u8>, kind: u64, body: &[u8]) {
    varint(out, body.len() as u64);
    varint(out, kind);
    out.extend_from_slice(body);
}

fn checked_message(out: &mut Vec<u8>, kind: u64, body: &[u8]) -> Result<()> {
    if body.len() > MAX_MESSAGE_SIZE {
        return Err(Error::Limit {
            what: "symbfile message size",
            value: body.len() as u64,
            limit: MAX_MESSAGE_SIZE as u64,
        });
    }
    message(out, kind, body);
    Ok(())
}
