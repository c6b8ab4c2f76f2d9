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

use symblob::symbfile::raw::{
    self, line_table, message_type, range, return_pad, string_table, wire_type, MAGIC,
};

use crate::fast_hash::{fast_map, FastMap};
use crate::{Error, ErrorKind, Location, Result};

use super::record::{LineRow, RangeRecord, Record, ReturnPadRecord};
use super::window::{Pending, PendingEntry, PendingPad, PendingRange, RangeHead, Window};

/// Largest message body symblib reads or writes.
const MAX_MESSAGE_SIZE: usize = raw::MAX_MESSAGE_SIZE as usize;
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

/// Writes records into a symbfile in memory.
pub struct SymbfileWriter {
    options: WriterOptions,
    out: Vec<u8>,
    window: Window,
    /// The distinct strings of the window, each stored once, with its id: ids count up
    /// in first-use order. Fx-hashed: the strings are names from the input, and the map is
    /// bounded by a window.
    ids: FastMap<Box<str>, u32>,
    /// Uses of each string id.
    uses: Vec<StringUse>,
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
        message(&mut out, message_type::HEADER, &[]);
        SymbfileWriter {
            options: WriterOptions {
                window_records: options.window_records.max(1),
            },
            out,
            window: Window::default(),
            ids: fast_map(),
            uses: Vec::new(),
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
            Record::ReturnPad(p) => self.push_pad(p),
        }
    }

    /// Adds one record, taking it over (what an extractor producing records calls).
    pub fn push(&mut self, record: Record) -> Result<()> {
        self.add(&record)
    }

    /// Adds one range record (a copy of it); as [`add`](Self::add) without the [`Record`]
    /// around it.
    pub fn add_range(&mut self, r: &RangeRecord) -> Result<()> {
        self.push_range(r)
    }

    fn push_range(&mut self, r: &RangeRecord) -> Result<()> {
        if r.lines.windows(2).any(|w| w[1].offset < w[0].offset) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
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
        let head = RangeHead {
            va: r.va,
            length: r.length,
            func,
            file,
            call_file,
            call_line: u64::from(r.call_line.unwrap_or(0)),
            depth: u64::from(r.depth),
        };
        self.window.push_range(&head, |b| {
            if r.lines.is_empty() {
                return;
            }
            let mut last = 0;
            packed(
                b,
                line_table::OFFSET,
                r.lines.iter().map(|row: &LineRow| {
                    let delta = row.offset - last;
                    last = row.offset;
                    u64::from(delta)
                }),
            );
            packed(
                b,
                line_table::LINE_NUMBER,
                r.lines.iter().map(|row| u64::from(row.line)),
            );
        });
        self.pushed()
    }

    fn push_pad(&mut self, p: &ReturnPadRecord) -> Result<()> {
        let mut entries = Vec::with_capacity(p.entries.len());
        for e in &p.entries {
            entries.push(PendingEntry {
                func: self.use_string(&e.func),
                file: self.use_string(e.file.as_deref().unwrap_or("")),
                line: u64::from(e.line.unwrap_or(0)),
            });
        }
        self.window.push_pad(p.va, entries.into_iter());
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
        let mut table: Vec<u32> = Vec::new();
        for (id, u) in self.uses.iter_mut().enumerate() {
            if u.count > 1 {
                u.index = Some(table.len() as u32);
                table.push(id as u32);
            }
        }
        // Then the return-pad strings used once (a window of ranges only has none).
        let pads = self.window.has_pads().then(|| self.window.iter());
        for record in pads.into_iter().flatten() {
            let Pending::ReturnPad(p) = record else {
                continue;
            };
            let funcs = p.entries().map(|e| e.func);
            let files = p.entries().map(|e| e.file);
            for id in funcs.chain(files) {
                let u = &mut self.uses[id as usize];
                if u.index.is_none() {
                    u.index = Some(table.len() as u32);
                    table.push(id);
                }
            }
        }
        // The table is written straight into the output: its size is known beforehand.
        let size: usize = table
            .iter()
            .map(|&id| {
                let len = texts[id as usize].len();
                1 + varint_len(len as u64) + len
            })
            .sum();
        check_size(size)?;
        varint(&mut self.out, size as u64);
        varint(&mut self.out, u64::from(message_type::STRING_TABLE_V1));
        for &id in &table {
            len_delim(
                &mut self.out,
                string_table::STRINGS,
                texts[id as usize].as_bytes(),
            );
        }
        let strings = WindowStrings {
            texts: &texts,
            uses: &self.uses,
        };
        let mut body = Vec::new();
        for record in self.window.iter() {
            body.clear();
            let kind = match &record {
                Pending::Range(r) => {
                    encode_range(&mut body, &mut self.prev_va, &strings, r);
                    message_type::RANGE_V1
                }
                Pending::ReturnPad(p) => {
                    encode_pad(&mut body, &mut self.prev_va, &strings, p);
                    message_type::RETURN_PAD_V1
                }
            };
            checked_message(&mut self.out, kind, &body)?;
        }
        self.window.clear();
        self.uses.clear();
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
}

impl WindowStrings<'_> {
    /// A range's string field: a table reference when the string is used more than once,
    /// else inline.
    fn field(&self, body: &mut Vec<u8>, inline_field: u32, ref_field: u32, id: u32) {
        let u = self.uses[id as usize];
        match u.index.filter(|_| u.count > 1) {
            Some(i) => {
                tag(body, ref_field, wire_type::VARINT);
                varint(body, u64::from(i));
            }
            None => len_delim(body, inline_field, self.texts[id as usize].as_bytes()),
        }
    }

    /// A return-pad string's table index.
    fn index(&self, id: u32) -> u64 {
        u64::from(self.uses[id as usize].index.unwrap_or(0))
    }
}

/// `deltaElfVA` when the signed difference fits i64, else the absolute VA in
/// `set_field`, as symblib chooses (spec §3.1).
fn elf_va(body: &mut Vec<u8>, prev_va: &mut Option<u64>, va: u64, set_field: u32) {
    let delta = prev_va.and_then(|prev| i64::try_from(i128::from(va) - i128::from(prev)).ok());
    match delta {
        Some(d) => {
            // The same field number in ranges and return pads.
            const _: () = assert!(range::DELTA_ELF_VA == return_pad::DELTA_ELF_VA);
            tag(body, range::DELTA_ELF_VA, wire_type::VARINT);
            varint(body, ((d << 1) ^ (d >> 63)) as u64);
        }
        None => {
            tag(body, set_field, wire_type::VARINT);
            varint(body, va);
        }
    }
    *prev_va = Some(va);
}

fn encode_range(
    body: &mut Vec<u8>,
    prev_va: &mut Option<u64>,
    strings: &WindowStrings<'_>,
    r: &PendingRange<'_>,
) {
    let h = &r.head;
    elf_va(body, prev_va, h.va, range::SET_ELF_VA);
    uint_field(body, range::LENGTH, h.length);
    strings.field(body, range::FUNC_STR, range::FUNC_REF, h.func);
    if let Some(file) = h.file {
        strings.field(body, range::FILE_STR, range::FILE_REF, file);
    }
    uint_field(body, range::CALL_LINE, h.call_line);
    if let Some(call_file) = h.call_file {
        strings.field(body, range::CALL_FILE_STR, range::CALL_FILE_REF, call_file);
    }
    uint_field(body, range::DEPTH, h.depth);
    if !r.lines.is_empty() {
        len_delim(body, range::LINE_TABLE, r.lines);
    }
}

fn encode_pad(
    body: &mut Vec<u8>,
    prev_va: &mut Option<u64>,
    strings: &WindowStrings<'_>,
    p: &PendingPad<'_>,
) {
    elf_va(body, prev_va, p.va, return_pad::SET_ELF_VA);
    packed(
        body,
        return_pad::FUNC,
        p.entries().map(|e| strings.index(e.func)),
    );
    packed(
        body,
        return_pad::FILE,
        p.entries().map(|e| strings.index(e.file)),
    );
    packed(body, return_pad::LINE, p.entries().map(|e| e.line));
}

/// Encodes every record into a complete symbfile with default options.
pub fn encode(records: &[Record]) -> Result<Vec<u8>> {
    let mut w = SymbfileWriter::new();
    w.extend(records)?;
    w.finish()
}

/// Appends `v` as an unsigned LEB128 varint. The one LEB128 encoder of the builder: the
/// reader (`symblob::varint`) only decodes, so encoding lives here, with the writer.
pub(crate) fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    varint(out, u64::from(raw::key(field, wire)));
}

/// A varint field; nothing for 0, which protobuf leaves out as the default.
fn uint_field(out: &mut Vec<u8>, field: u32, value: u64) {
    if value != 0 {
        tag(out, field, wire_type::VARINT);
        varint(out, value);
    }
}

fn len_delim(out: &mut Vec<u8>, field: u32, payload: &[u8]) {
    tag(out, field, wire_type::LEN);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// A packed repeated field; nothing when there are no values.
fn packed(out: &mut Vec<u8>, field: u32, values: impl Iterator<Item = u64>) {
    let mut values = values.peekable();
    if values.peek().is_none() {
        return;
    }
    tag(out, field, wire_type::LEN);
    length_prefixed(out, |b| values.for_each(|v| varint(b, v)));
}

/// Appends what `write` appends, preceded by its length as a varint: encoded in place and
/// the length moved before it, so the payload needs no buffer of its own.
pub(crate) fn length_prefixed(b: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    let start = b.len();
    write(b);
    let end = b.len();
    varint(b, (end - start) as u64);
    b[start..].rotate_left(end - start);
}

/// Bytes of `v` as a varint.
fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

fn message(out: &mut Vec<u8>, kind: u32, body: &[u8]) {
    varint(out, body.len() as u64);
    varint(out, u64::from(kind));
    out.extend_from_slice(body);
}

fn checked_message(out: &mut Vec<u8>, kind: u32, body: &[u8]) -> Result<()> {
    check_size(body.len())?;
    message(out, kind, body);
    Ok(())
}

fn check_size(size: usize) -> Result<()> {
    if size > MAX_MESSAGE_SIZE {
        return Err(Error::limit(
            "symbfile message size",
            size as u64,
            MAX_MESSAGE_SIZE as u64,
        ));
    }
    Ok(())
}
