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

use std::collections::HashMap;

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
struct StringUse {
    /// Number of uses (each field occurrence counts).
    count: u32,
    /// Table index, once assigned at flush.
    index: Option<u32>,
}

/// Writes records into a symbfile in memory.
pub struct SymbfileWriter {
    options: WriterOptions,
    out: Vec<u8>,
    window: Vec<Record>,
    uses: HashMap<String, StringUse>,
    /// Distinct strings of the window in first-use order.
    order: Vec<String>,
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
            uses: HashMap::new(),
            order: Vec::new(),
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
        self.push(record.clone())
    }

    /// Adds one record, taking it over (what an extractor producing records calls).
    pub fn push(&mut self, record: Record) -> Result<()> {
        if let Record::Range(r) = &record {
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
        }
        for s in strings_of(&record) {
            self.use_string(s);
        }
        self.window.push(record);
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

    fn use_string(&mut self, s: &str) {
        if let Some(u) = self.uses.get_mut(s) {
            u.count += 1;
            return;
        }
        self.table_estimate += 5 + s.len();
        self.uses.insert(
            s.to_owned(),
            StringUse {
                count: 1,
                index: None,
            },
        );
        self.order.push(s.to_owned());
    }

    /// Writes the buffered window: its string table, then its records.
    fn flush(&mut self) -> Result<()> {
        let mut table: Vec<&str> = Vec::new();
        for s in &self.order {
            let u = self
                .uses
                .get_mut(s.as_str())
                .expect("every ordered string is counted");
            if u.count > 1 {
                u.index = Some(table.len() as u32);
                table.push(s);
            }
        }
        for record in &self.window {
            let Record::ReturnPad(p) = record else {
                continue;
            };
            let funcs = p.entries.iter().map(|e| e.func.as_str());
            let files = p.entries.iter().map(|e| e.file.as_deref().unwrap_or(""));
            for s in funcs.chain(files) {
                let u = self.uses.get_mut(s).expect("pad strings are counted");
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
        for record in std::mem::take(&mut self.window) {
            body.clear();
            match &record {
                Record::Range(r) => self.encode_range(&mut body, r),
                Record::ReturnPad(p) => self.encode_pad(&mut body, p),
            }
            let kind = match record {
                Record::Range(_) => MT_RANGE_V1,
                Record::ReturnPad(_) => MT_RETURN_PAD_V1,
            };
            checked_message(&mut self.out, kind, &body)?;
        }
        self.uses.clear();
        self.order.clear();
        self.table_estimate = 0;
        self.flushed = true;
        Ok(())
    }

    /// `deltaElfVA` (field 1) when the signed difference fits i64, else the absolute VA in
    /// `set_field`, as symblib chooses (spec §3.1).
    fn elf_va(&mut self, body: &mut Vec<u8>, va: u64, set_field: u32) {
        let delta = self
            .prev_va
            .and_then(|prev| i64::try_from(i128::from(va) - i128::from(prev)).ok());
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
        self.prev_va = Some(va);
    }

    fn string_field(&self, body: &mut Vec<u8>, inline_field: u32, ref_field: u32, s: &str) {
        match self
            .uses
            .get(s)
            .and_then(|u| if u.count > 1 { u.index } else { None })
        {
            Some(i) => {
                tag(body, ref_field, 0);
                varint(body, u64::from(i));
            }
            None => len_delim(body, inline_field, s.as_bytes()),
        }
    }

    fn encode_range(&mut self, body: &mut Vec<u8>, r: &RangeRecord) {
        self.elf_va(body, r.va, 12);
        if r.length != 0 {
            tag(body, 2, 0);
            varint(body, r.length);
        }
        self.string_field(body, 3, 9, &r.func);
        if let Some(file) = &r.file {
            self.string_field(body, 4, 10, file);
        }
        if let Some(line) = r.call_line.filter(|&l| l != 0) {
            tag(body, 5, 0);
            varint(body, u64::from(line));
        }
        if let Some(call_file) = &r.call_file {
            self.string_field(body, 6, 11, call_file);
        }
        if r.depth != 0 {
            tag(body, 7, 0);
            varint(body, u64::from(r.depth));
        }
        if !r.lines.is_empty() {
            let mut table = Vec::new();
            let mut last = 0;
            packed(
                &mut table,
                1,
                r.lines.iter().map(|row: &LineRow| {
                    let delta = row.offset - last;
                    last = row.offset;
                    u64::from(delta)
                }),
            );
            packed(&mut table, 2, r.lines.iter().map(|row| u64::from(row.line)));
            len_delim(body, 8, &table);
        }
    }

    fn encode_pad(&mut self, body: &mut Vec<u8>, p: &ReturnPadRecord) {
        self.elf_va(body, p.va, 5);
        let index = |s: &str| u64::from(self.uses.get(s).and_then(|u| u.index).unwrap_or(0));
        let funcs: Vec<u64> = p.entries.iter().map(|e| index(&e.func)).collect();
        let files: Vec<u64> = p
            .entries
            .iter()
            .map(|e| index(e.file.as_deref().unwrap_or("")))
            .collect();
        packed(body, 2, funcs.into_iter());
        packed(body, 3, files.into_iter());
        packed(
            body,
            4,
            p.entries.iter().map(|e| u64::from(e.line.unwrap_or(0))),
        );
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

/// The strings a record uses, in the order that decides first use (spec §4).
fn strings_of(record: &Record) -> Vec<&str> {
    match record {
        Record::Range(r) => [
            Some(r.func.as_str()),
            r.file.as_deref(),
            r.call_file.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect(),
        Record::ReturnPad(p) => p
            .entries
            .iter()
            .flat_map(|e| [e.func.as_str(), e.file.as_deref().unwrap_or("")])
            .collect(),
    }
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
