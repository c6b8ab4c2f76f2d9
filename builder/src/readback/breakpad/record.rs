//! The line-by-line reader: each record parsed in place (names borrowed from the file),
//! `FUNC` records with their line and `INLINE` records built into groups as soon as the
//! next record ends them.

use std::sync::Arc;

use super::fields::{hex, is_hex, plain_line_record, Fields, Plain};
use super::function::{Function, InlineRange, LineRecord};
use super::publics::{self, FuncRange, Public};
use super::tables::{Refused, Tables};
use super::{BreakpadSource, ReadOptions};
use crate::model::{CfiRecord, CfiRow, Group, Symbol};
use crate::{Error, Location, Result};

/// The record that later lines may continue.
#[derive(Debug, PartialEq, Eq)]
enum Open {
    None,
    Func,
    Cfi,
}

/// The reader's state.
pub(super) struct Reader<'i, 'a> {
    input: &'i str,
    pub(super) line: u64,
    pub(super) out: BreakpadSource<'a>,
    /// Shared with the chunks of a parallel read, which never change them (see
    /// [`Self::chunk`]).
    pub(super) tables: Arc<Tables<'a>>,
    /// Whether this reader reads one chunk of a file after its head (`chunks`): the
    /// records that change what later chunks read (`MODULE`, `FILE`, `INLINE_ORIGIN`) are
    /// refused, and the whole file is read again in one piece.
    chunk: bool,
    open: Open,
    /// Whether `STACK CFI` rows are kept (they are checked either way).
    keep_cfi_rows: bool,
    /// The address of the open `STACK CFI INIT` record's last row: the next one must
    /// not come before it.
    cfi_last: Option<u64>,
    pub(super) func: Function<'a>,
    /// The `FUNC` records read, in file order, and their groups, in the same order.
    pub(super) funcs: Vec<FuncRange>,
    pub(super) groups: Vec<Group<'a>>,
    pub(super) publics: Vec<Public<'a>>,
}

impl<'i, 'a> Reader<'i, 'a> {
    pub(super) fn new(input: &'i str, options: ReadOptions) -> Self {
        Reader {
            input,
            line: 0,
            out: BreakpadSource::default(),
            tables: Arc::new(Tables::new()),
            chunk: false,
            open: Open::None,
            keep_cfi_rows: options.unwind_rows,
            cfi_last: None,
            func: Function::default(),
            funcs: Vec::new(),
            groups: Vec::new(),
            publics: Vec::new(),
        }
    }

    /// A reader of one chunk of a file whose head defined `tables`; its line numbers
    /// start past the first line, where only `MODULE` may be.
    pub(super) fn chunk(input: &'i str, tables: Arc<Tables<'a>>, options: ReadOptions) -> Self {
        Reader {
            line: 1,
            tables,
            chunk: true,
            ..Reader::new(input, options)
        }
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::malformed(self.input, Location::Line(self.line), message)
    }

    pub(super) fn read(mut self, bytes: &'a [u8]) -> Result<BreakpadSource<'a>> {
        if bytes.is_empty() {
            self.line = 1;
            return Err(self.error("empty: a Breakpad symbol file starts with a MODULE record"));
        }
        self.lines(bytes)?;
        self.close()?;
        self.finish()
    }

    /// Reads every line of `bytes` (whole lines, each with its line ending).
    pub(super) fn lines(&mut self, bytes: &'a [u8]) -> Result<()> {
        let mut rest = bytes;
        while !rest.is_empty() {
            self.line += 1;
            let Some(end) = memchr::memchr(b'\n', rest) else {
                return Err(self.error(
                    "the last line has no line ending: the file is cut (breakpad-symbols \
                     refuses it too)",
                ));
            };
            let mut line = &rest[..end];
            rest = &rest[end + 1..];
            while let [head @ .., b'\r'] = line {
                line = head;
            }
            self.record(line)?;
        }
        Ok(())
    }

    /// Ends the open `FUNC` or `STACK CFI INIT` record.
    pub(super) fn close(&mut self) -> Result<()> {
        // A FUNC of size 0 answers nothing (counted when read).
        if self.open == Open::Func && self.func.start < self.func.end {
            let tables = &self.tables;
            let path = |file: u32| tables.path(file);
            match self.func.groups(&path, &mut self.groups) {
                Ok(groups) => self.funcs.push(FuncRange {
                    start: self.func.start,
                    end: self.func.end,
                    groups,
                }),
                Err(e) => {
                    self.line = e.line;
                    return Err(self.error(format!(
                        "INLINE ranges of depth {} at {:#x} answer differently: a lookup \
                         there is undefined",
                        e.depth, e.address
                    )));
                }
            }
        }
        self.open = Open::None;
        Ok(())
    }

    fn record(&mut self, line: &'a [u8]) -> Result<()> {
        // Line records, most of a file, as dump_syms writes them; any other spelling, and
        // any error, is read field by field below.
        if self.open == Open::Func {
            if let Some((start, size, line, number)) = plain_line_record(line) {
                if let Some(record) = self.line_in_range(start, size, line, number) {
                    self.func.lines.push(record);
                    return Ok(());
                }
            }
        }
        let mut f = Fields::new(line);
        let Some(kind) = f.token() else {
            // An empty line ends a FUNC or STACK CFI INIT record, as in breakpad-symbols.
            return self.close();
        };
        if self.line == 1 && kind != b"MODULE" {
            return Err(self.error("not a Breakpad symbol file: the first record is not MODULE"));
        }
        // Line records, most of a file, first: no record name is all hexadecimal digits.
        if is_hex(kind) {
            return self.line_record(kind, f);
        }
        match kind {
            b"MODULE" => self.module(f),
            b"INFO" => {
                self.close()?;
                self.info(f)
            }
            b"FILE" => {
                self.close()?;
                self.file(f)
            }
            b"INLINE_ORIGIN" => self.origin(f),
            b"FUNC" => {
                self.close()?;
                self.function(f)
            }
            b"INLINE" => self.inline(f),
            b"PUBLIC" => {
                self.close()?;
                self.public(f)
            }
            b"STACK" => self.stack(f),
            _ => {
                self.close()?;
                self.skip(kind);
                Ok(())
            }
        }
    }

    fn skip(&mut self, kind: &[u8]) {
        let shown = &kind[..kind.len().min(40)];
        let key = String::from_utf8_lossy(shown).into_owned();
        *self.out.skipped.entry(key).or_default() += 1;
    }

    /// In a chunk, the records that only the head of a file may hold (see
    /// [`Self::chunk`]).
    fn head_only(&self) -> Result<()> {
        if self.chunk {
            // Never shown: the file is read again in one piece, which takes the record.
            Err(self.error(
                "a MODULE, FILE or INLINE_ORIGIN record after the first FUNC, PUBLIC or \
                 STACK CFI INIT record",
            ))
        } else {
            Ok(())
        }
    }

    /// A field that must be there.
    fn field(&self, f: &mut Fields<'a>, record: &str, what: &str) -> Result<&'a [u8]> {
        f.token()
            .ok_or_else(|| self.error(format!("{record} record cut short: no {what}")))
    }

    #[inline]
    fn hex_field(&self, f: &mut Fields<'a>, record: &str, what: &str) -> Result<u64> {
        let before = *f;
        match f.hex() {
            Some(value) => Ok(value),
            None => Err(self.hex_error(before, record, what)),
        }
    }

    /// Why the field after `f` is not a hexadecimal number.
    #[cold]
    fn hex_error(&self, mut f: Fields<'a>, record: &str, what: &str) -> Error {
        let token = match self.field(&mut f, record, what) {
            Ok(token) => token,
            Err(e) => return e,
        };
        self.error(format!(
            "{record}: {what} `{}` is not a hexadecimal number of up to 16 digits",
            String::from_utf8_lossy(token)
        ))
    }

    #[inline]
    fn decimal_field(&self, f: &mut Fields<'a>, record: &str, what: &str) -> Result<u32> {
        let before = *f;
        match f.decimal() {
            Some(value) => Ok(value),
            None => Err(self.decimal_error(before, record, what)),
        }
    }

    /// Why the field after `f` is not a decimal number below 2³².
    #[cold]
    fn decimal_error(&self, mut f: Fields<'a>, record: &str, what: &str) -> Error {
        let token = match self.field(&mut f, record, what) {
            Ok(token) => token,
            Err(e) => return e,
        };
        self.error(format!(
            "{record}: {what} `{}` is not a decimal number below 2^32",
            String::from_utf8_lossy(token)
        ))
    }

    fn name_field(&self, f: &mut Fields<'a>, record: &str) -> Result<&'a [u8]> {
        f.name()
            .ok_or_else(|| self.error(format!("{record} record cut short: no name")))
    }

    fn text(&self, bytes: &'a [u8], record: &str, what: &str) -> Result<&'a str> {
        std::str::from_utf8(bytes)
            .map_err(|_| self.error(format!("{record}: the {what} is not UTF-8")))
    }

    /// `[start, start + size)`, or an error when it passes 2⁶⁴.
    fn range(&self, start: u64, size: u64, record: &str) -> Result<u64> {
        start.checked_add(size).ok_or_else(|| {
            self.error(format!(
                "{record}: the range at {start:#x} of size {size:#x} passes 2^64"
            ))
        })
    }

    fn end_of_line(&self, f: &Fields<'a>, record: &str) -> Result<()> {
        if f.is_done() {
            Ok(())
        } else {
            Err(self.error(format!(
                "{record}: unexpected fields at the end of the line"
            )))
        }
    }

    /// `MODULE os arch id name`.
    fn module(&mut self, mut f: Fields<'a>) -> Result<()> {
        if self.line != 1 || self.chunk {
            return Err(self.error("a MODULE record after the first line"));
        }
        let os = self.field(&mut f, "MODULE", "operating system")?;
        let arch = self.field(&mut f, "MODULE", "architecture")?;
        let id = self.field(&mut f, "MODULE", "identifier")?;
        if !is_hex(id) {
            return Err(self.error("MODULE: the identifier is not hexadecimal"));
        }
        let name = self.name_field(&mut f, "MODULE")?;
        let module = &mut self.out.module;
        module.os = String::from_utf8_lossy(os).into_owned();
        module.arch = String::from_utf8_lossy(arch).into_owned();
        module.id = String::from_utf8_lossy(id).into_owned();
        module.name = String::from_utf8_lossy(name).into_owned();
        module.base = 0;
        Ok(())
    }

    /// `INFO CODE_ID id [name]`; other `INFO` records are counted.
    fn info(&mut self, mut f: Fields<'a>) -> Result<()> {
        let what = f.token().unwrap_or_default();
        if what == b"CODE_ID" {
            let id = self.field(&mut f, "INFO CODE_ID", "identifier")?;
            if !is_hex(id) {
                return Err(self.error("INFO CODE_ID: the identifier is not hexadecimal"));
            }
            self.out.module.code_id = Some(String::from_utf8_lossy(id).into_owned());
        } else {
            let mut key = b"INFO ".to_vec();
            key.extend_from_slice(what);
            self.skip(&key);
        }
        Ok(())
    }

    /// `FILE number name`.
    fn file(&mut self, mut f: Fields<'a>) -> Result<()> {
        self.head_only()?;
        let number = self.decimal_field(&mut f, "FILE", "number")?;
        let name = self.name_field(&mut f, "FILE")?;
        match Arc::make_mut(&mut self.tables).define_file(number, name) {
            Ok(()) => Ok(()),
            Err(Refused::TooMany) => Err(self.error("FILE: more than 2^32 files")),
            Err(Refused::Twice) => {
                Err(self.error(format!("FILE {number} is defined twice, differently")))
            }
        }
    }

    /// `INLINE_ORIGIN number name`, which may come inside a `FUNC`.
    fn origin(&mut self, mut f: Fields<'a>) -> Result<()> {
        if self.open == Open::Cfi {
            self.close()?;
        }
        self.head_only()?;
        let number = self.decimal_field(&mut f, "INLINE_ORIGIN", "number")?;
        let name = self.name_field(&mut f, "INLINE_ORIGIN")?;
        if Arc::make_mut(&mut self.tables)
            .define_origin(number, name)
            .is_err()
        {
            return Err(self.error(format!(
                "INLINE_ORIGIN {number} is defined twice, differently"
            )));
        }
        Ok(())
    }

    /// `FUNC [m] address size parameter_size name`.
    fn function(&mut self, mut f: Fields<'a>) -> Result<()> {
        let multiple = f.word(b"m");
        let start = self.hex_field(&mut f, "FUNC", "address")?;
        let size = self.hex_field(&mut f, "FUNC", "size")?;
        self.hex_field(&mut f, "FUNC", "parameter size")?;
        let name = self.name_field(&mut f, "FUNC")?;
        let end = self.range(start, size, "FUNC")?;
        if multiple {
            self.out.multiple.insert(start);
        }
        if size == 0 {
            // breakpad-symbols keeps no FUNC of size 0; its line records go with it.
            *self.out.skipped.entry("FUNC (size 0)".into()).or_default() += 1;
        }
        self.func.begin(start, end, name);
        self.open = Open::Func;
        Ok(())
    }

    /// A line record `address size line file` inside a `FUNC`.
    fn line_record(&mut self, first: &'a [u8], mut f: Fields<'a>) -> Result<()> {
        if self.open != Open::Func {
            return Err(self.error("a line record that follows no FUNC record"));
        }
        let start = hex(first).ok_or_else(|| {
            self.error("line record: the address is not a hexadecimal number of up to 16 digits")
        })?;
        let size = self.hex_field(&mut f, "line", "size")?;
        let line = self.decimal_field(&mut f, "line", "line number")?;
        let number = self.decimal_field(&mut f, "line", "file number")?;
        self.end_of_line(&f, "line record")?;
        let end = self.range(start, size, "line record")?;
        let file = self
            .tables
            .file(number)
            .ok_or_else(|| self.error(format!("line record: FILE {number} is not defined")))?;
        self.func.lines.push(LineRecord {
            start,
            end,
            file,
            line,
        });
        Ok(())
    }

    /// The line record `[start, start + size)`, line `line` of `FILE number`, when the
    /// range stays below 2⁶⁴ and the file is defined (else the field-by-field reading
    /// says which is wrong).
    fn line_in_range(&self, start: u64, size: u64, line: u32, number: u32) -> Option<LineRecord> {
        Some(LineRecord {
            start,
            end: start.checked_add(size)?,
            file: self.tables.file(number)?,
            line,
        })
    }

    /// An `INLINE` record's fields after `INLINE` as dump_syms writes them ([`Plain`]),
    /// its ranges appended to the function's; false (nothing appended) for any other
    /// spelling and any error, which the field-by-field reading then reports.
    fn plain_inline(&mut self, fields: &'a [u8]) -> bool {
        let mark = self.func.inlines.len();
        if self.try_plain_inline(fields).is_some() {
            return true;
        }
        self.func.inlines.truncate(mark);
        false
    }

    fn try_plain_inline(&mut self, fields: &'a [u8]) -> Option<()> {
        let mut f = Plain::after_space(fields);
        let depth = f.decimal()?;
        let call_line = f.decimal()?;
        let call_file = self.tables.file(f.decimal()?)?;
        let name = self.tables.origin(f.decimal()?)?;
        let call = self.next_inline_call(depth, call_line, call_file, name);
        loop {
            let start = f.hex()?;
            let end = start.checked_add(f.hex()?)?;
            self.func.inlines.push(InlineRange { start, end, ..call });
            if f.is_done() {
                self.func.records = call.instance;
                return Some(());
            }
        }
    }

    /// The fields of the function's next `INLINE` record on this line, without its
    /// range (each range copies them).
    fn next_inline_call(
        &self,
        depth: u32,
        call_line: u32,
        call_file: u32,
        name: &'a [u8],
    ) -> InlineRange<'a> {
        InlineRange {
            depth,
            start: 0,
            end: 0,
            call_file,
            call_line,
            name,
            instance: self.func.records.saturating_add(1),
            line: self.line,
        }
    }

    /// `INLINE depth call_line call_file origin [address size]+` inside a `FUNC`.
    fn inline(&mut self, mut f: Fields<'a>) -> Result<()> {
        if self.open != Open::Func {
            return Err(self.error("an INLINE record that follows no FUNC record"));
        }
        if self.plain_inline(f.rest()) {
            return Ok(());
        }
        let depth = self.decimal_field(&mut f, "INLINE", "depth")?;
        let call_line = self.decimal_field(&mut f, "INLINE", "call line")?;
        let call_number = self.decimal_field(&mut f, "INLINE", "call file")?;
        let origin = self.decimal_field(&mut f, "INLINE", "origin")?;
        let call_file = self
            .tables
            .file(call_number)
            .ok_or_else(|| self.error(format!("INLINE: call FILE {call_number} is not defined")))?;
        let name = self
            .tables
            .origin(origin)
            .ok_or_else(|| self.error(format!("INLINE: INLINE_ORIGIN {origin} is not defined")))?;
        let call = self.next_inline_call(depth, call_line, call_file, name);
        self.func.records = call.instance;
        let mut ranges = 0;
        while let Some(token) = f.token() {
            let start = hex(token).ok_or_else(|| {
                self.error("INLINE: an address is not a hexadecimal number of up to 16 digits")
            })?;
            let size = self.hex_field(&mut f, "INLINE", "range size")?;
            let end = self.range(start, size, "INLINE")?;
            self.func.inlines.push(InlineRange { start, end, ..call });
            ranges += 1;
        }
        if ranges == 0 {
            return Err(self.error("INLINE record cut short: no address range"));
        }
        Ok(())
    }

    /// `PUBLIC [m] address parameter_size name`.
    fn public(&mut self, mut f: Fields<'a>) -> Result<()> {
        let multiple = f.word(b"m");
        let address = self.hex_field(&mut f, "PUBLIC", "address")?;
        self.hex_field(&mut f, "PUBLIC", "parameter size")?;
        let name = self.name_field(&mut f, "PUBLIC")?;
        if multiple {
            self.out.multiple.insert(address);
        }
        let text = self.text(name, "PUBLIC", "name")?;
        self.out.model.symbols.push(Symbol {
            address,
            kind: b'T',
            name: text.to_owned(),
        });
        self.publics.push(Public { address, name });
        Ok(())
    }

    /// `STACK CFI INIT address size rules`, `STACK CFI address rules`, `STACK WIN …`.
    fn stack(&mut self, mut f: Fields<'a>) -> Result<()> {
        if !f.word(b"CFI") {
            self.close()?;
            let mut key = b"STACK ".to_vec();
            key.extend_from_slice(f.token().unwrap_or_default());
            self.skip(&key);
            return Ok(());
        }
        if f.word(b"INIT") {
            self.close()?;
            let start = self.hex_field(&mut f, "STACK CFI INIT", "address")?;
            let size = self.hex_field(&mut f, "STACK CFI INIT", "size")?;
            self.range(start, size, "STACK CFI INIT")?;
            let rules = self.name_field(&mut f, "STACK CFI INIT")?;
            let init = self.text(rules, "STACK CFI INIT", "rules")?;
            self.out.model.unwind.push(CfiRecord {
                start,
                size,
                init: init.into(),
                rows: Vec::new(),
            });
            self.open = Open::Cfi;
            self.cfi_last = None;
            return Ok(());
        }
        if self.open != Open::Cfi {
            return Err(self.error("a STACK CFI record that follows no STACK CFI INIT record"));
        }
        let address = self.hex_field(&mut f, "STACK CFI", "address")?;
        let rules = self.name_field(&mut f, "STACK CFI")?;
        let rules = self.text(rules, "STACK CFI", "rules")?;
        let Some(record) = self.out.model.unwind.last_mut() else {
            return Err(self.error("a STACK CFI record that follows no STACK CFI INIT record"));
        };
        let (start, end) = (record.start, record.start.saturating_add(record.size));
        let after = self.cfi_last.unwrap_or(start);
        if address < after || address >= end {
            return Err(self.error(format!(
                "STACK CFI: the address {address:#x} is not in order inside its STACK CFI \
                 INIT range [{start:#x}, {end:#x})"
            )));
        }
        self.cfi_last = Some(address);
        if self.keep_cfi_rows {
            record.rows.push(CfiRow {
                address,
                rules: rules.into(),
            });
        }
        Ok(())
    }

    /// The model: functions kept and sorted, publics' extents, unwind rules in file order.
    pub(super) fn finish(mut self) -> Result<BreakpadSource<'a>> {
        let funcs = std::mem::take(&mut self.funcs);
        let groups = std::mem::take(&mut self.groups);
        let (kept, groups, dropped) = publics::keep_functions(funcs, groups);
        if dropped > 0 {
            *self
                .out
                .skipped
                .entry("FUNC (overlapping)".into())
                .or_default() += dropped;
        }
        let publics = publics::groups(std::mem::take(&mut self.publics), &kept);
        let functions = publics::merge(&kept, groups, publics);
        self.out.model.functions = functions;
        Ok(self.out)
    }
}
