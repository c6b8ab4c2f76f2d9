//! symbfile: the symbol files of the OpenTelemetry eBPF profiler.
//!
//! A symbfile is the magic `symbfile` followed by length- and type-prefixed protobuf
//! messages: a header, string tables, **range** records (address range → function, file,
//! inline depth, call site, line table) and **return-pad** records (return address →
//! inline trace). [`SymbFile::parse`] checks the magic and the header; [`SymbFile::records`]
//! then decodes the records in file order, keeping the one VA delta chain that runs across
//! both record kinds and the current string table (spec §3).
//!
//! Nothing is copied or allocated: strings are `&str` borrowed from the input, string
//! tables are message bodies read in place, and line tables and return-pad entries are
//! iterators over the wire bytes. The input may sit at any alignment.
//!
//! # String tables and the scratch
//!
//! Records refer to strings of the most recent table by index. Give the decoder a scratch
//! of `&str` slots at least as long as the largest table (the writer's tables hold at most
//! a few hundred thousand strings) and each index is resolved by a slot read after one pass
//! over the table, which checks each string's UTF-8 once; with an empty or short scratch the missing part is found by scanning the
//! table body, which is correct but costs O(table size) per lookup.
//!
//! # Lookups: a symbfile is a stream, not an index
//!
//! The VA of each record is a delta from the previous one and string tables change along
//! the way, so an address can only be found by a sweep from the start. [`SymbFile::lookup_ranges`]
//! and [`SymbFile::lookup_return_pad`] each make one pass: O(file size) time, O(1) memory,
//! with only the VA and length of the records that do not match decoded. For many lookups
//! on one file, index it once: [`SymbFile::heads`] gives each record's offset, VA and
//! length in one pass, and [`SymbFile::range_at`] / [`SymbFile::return_pad_at`] decode a
//! record from those (the builder's `symbfile::index` keeps them in an interval tree), or
//! convert it once to an indexed format (Lidia).
//!
//! # Validation
//!
//! [`SymbFile::records`] enforces every rule of spec §12: the magic, the header first,
//! varints of at most 10 bytes, message types below 2^31 (0 and a second header are
//! errors), bodies of at most 16 MiB inside the input, well-formed protobuf with the right
//! wire types, UTF-8 strings, string indices inside the table, line-table and return-pad
//! columns of equal length, values that fit `u32`, line offsets whose sum fits `u32`, and a
//! delta VA only after an absolute one. Unknown message types are skipped by their length
//! (symblib's reader does not, spec §8.2). Errors carry the offset of the message.
//! Lookups check the framing, the VA chain and the records they return.
//!
//! # Example
//!
//! ```
//! use symblob::symbfile::{Record, SymbFile};
//!
//! // magic, empty header, string table ["f.c"], one range: set VA 0x1000, length 0x20,
//! // func "main" inline, fileRef 0, line table [(0, 10), (0x10, 12)].
//! let mut bytes = b"symbfile\x00\x01\x05\x04\x0a\x03f.c".to_vec();
//! bytes.extend(b"\x17\x02\x60\x80\x20\x10\x20\x1a\x04main\x50\x00\x42\x08\x0a\x02\x00\x10\x12\x02\x0a\x0c");
//! let file = SymbFile::parse(&bytes)?;
//! let mut scratch = [""; 16];
//! let mut records = file.records(&mut scratch);
//! let Some(Record::Range(range)) = records.next()? else { panic!() };
//! assert_eq!((range.va, range.length, range.func, range.file), (0x1000, 0x20, "main", Some("f.c")));
//! assert_eq!(range.line_at(0x1014), Some(12));
//!
//! let mut out = [symblob::symbfile::Range::EMPTY; 8];
//! let found = file.lookup_ranges(0x1004, &mut scratch, &mut out)?;
//! assert_eq!(found, 1);
//! assert_eq!(out[0].func, "main");
//! # Ok::<(), symblob::Error>(())
//! ```

mod heads;
mod line_table;
mod lookup;
mod proto;
pub mod raw;
mod records;
mod strings;
mod usual;

pub use heads::{Head, Heads};
pub use line_table::{LineRow, LineRows, LineTable};
pub use records::{PadEntries, PadEntry, Range, ReturnPad};
pub use strings::{StringTable, Strings, TableStrings};

use crate::slice::to_u64;
use crate::varint::{self, VarintError};
use crate::{Error, ErrorKind, Format};
use proto::Fields;
use raw::{message_type, MAGIC, MAX_MESSAGE_SIZE, MAX_MESSAGE_TYPE};
use records::{Fail, VaBase};

/// One framed message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// Offset of the message (its length prefix) in the file.
    pub offset: u64,
    /// Message type (below 2^31; see [`raw::message_type`]).
    pub kind: u32,
    /// The body.
    pub body: &'a [u8],
}

fn error(section: &'static str, offset: u64, kind: ErrorKind) -> Error {
    Error::new(Format::Symbfile, section, offset, kind)
}

/// A symbfile whose magic and header have been checked.
#[derive(Copy, Clone, Debug)]
pub struct SymbFile<'a> {
    data: &'a [u8],
    /// Offset of the first message after the header.
    start: usize,
}

impl<'a> SymbFile<'a> {
    /// Checks the magic and that the first message is a well-formed header.
    pub fn parse(data: &'a [u8]) -> Result<Self, Error> {
        if data.get(..MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(error("magic", 0, ErrorKind::BadMagic));
        }
        let mut messages = Messages {
            data,
            pos: MAGIC.len(),
        };
        let header = match messages.next() {
            Some(m) => m?,
            None => {
                return Err(error(
                    "header",
                    to_u64(MAGIC.len()),
                    ErrorKind::Truncated {
                        needed: 2,
                        available: 0,
                    },
                ))
            }
        };
        if header.kind != message_type::HEADER {
            return Err(error(
                "header",
                header.offset,
                ErrorKind::Mismatch {
                    expected: u64::from(message_type::HEADER),
                    found: u64::from(header.kind),
                },
            ));
        }
        for field in Fields::new(header.body) {
            field.map_err(|e| error("header", header.offset, ErrorKind::Malformed(e)))?;
        }
        Ok(SymbFile {
            data,
            start: messages.pos,
        })
    }

    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The messages after the header, framed but not decoded.
    pub fn messages(&self) -> Messages<'a> {
        Messages {
            data: self.data,
            pos: self.start,
        }
    }

    /// Decodes the records in file order, every message checked; `scratch` speeds up
    /// string-table access (see the module documentation; `&mut []` for none).
    pub fn records<'s>(&self, scratch: &'s mut [&'a str]) -> Records<'a, 's> {
        Records::new(self.messages(), scratch, true)
    }

    /// Decodes the whole file, checking every rule; returns the record counts.
    pub fn validate(&self, scratch: &mut [&'a str]) -> Result<Counts, Error> {
        let mut counts = Counts::default();
        let mut records = self.records(scratch);
        while let Some(r) = records.next()? {
            match r {
                Record::Range(_) => counts.ranges = counts.ranges.saturating_add(1),
                Record::ReturnPad(_) => counts.return_pads = counts.return_pads.saturating_add(1),
            }
        }
        counts.string_tables = records.string_tables;
        counts.unknown = records.unknown;
        Ok(counts)
    }
}

/// How many messages of each kind a file holds ([`SymbFile::validate`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Range records.
    pub ranges: u64,
    /// Return-pad records.
    pub return_pads: u64,
    /// String tables.
    pub string_tables: u64,
    /// Messages of unknown types (skipped).
    pub unknown: u64,
}

/// Iterator over framed messages; stops after the first error.
#[derive(Clone, Debug)]
pub struct Messages<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Messages<'a> {
    fn varint(&mut self, start: usize, what: &'static str) -> Result<u64, Error> {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        match varint::uleb128_prefix(rest) {
            Ok((v, n)) => {
                self.pos = self.pos.saturating_add(n);
                Ok(v)
            }
            Err(VarintError::TooLong) => Err(error(
                what,
                to_u64(start),
                ErrorKind::Malformed("varint longer than 10 bytes"),
            )),
            Err(VarintError::Truncated) => Err(error(
                what,
                to_u64(start),
                ErrorKind::Truncated {
                    needed: to_u64(rest.len().saturating_add(1)),
                    available: to_u64(rest.len()),
                },
            )),
        }
    }

    #[inline(always)]
    fn message(&mut self) -> Result<Message<'a>, Error> {
        let start = self.pos;
        let offset = to_u64(start);
        let len = self.varint(start, "message length")?;
        if len > MAX_MESSAGE_SIZE {
            return Err(error(
                "message length",
                offset,
                ErrorKind::OutOfRange {
                    value: len,
                    limit: MAX_MESSAGE_SIZE,
                },
            ));
        }
        let kind = self.varint(start, "message type")?;
        let kind = u32::try_from(kind)
            .ok()
            .filter(|&k| k <= MAX_MESSAGE_TYPE)
            .ok_or_else(|| {
                error(
                    "message type",
                    offset,
                    ErrorKind::OutOfRange {
                        value: kind,
                        limit: u64::from(MAX_MESSAGE_TYPE).saturating_add(1),
                    },
                )
            })?;
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        let (body, _) = rest.split_at_checked(len).ok_or_else(|| {
            error(
                "message body",
                offset,
                ErrorKind::Truncated {
                    needed: to_u64(len),
                    available: to_u64(rest.len()),
                },
            )
        })?;
        self.pos = self.pos.saturating_add(len);
        Ok(Message { offset, kind, body })
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<Message<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.data.len() {
            return None;
        }
        let m = self.message();
        if m.is_err() {
            self.pos = self.data.len();
        }
        Some(m)
    }
}

/// A decoded record.
#[derive(Copy, Clone, Debug)]
pub enum Record<'a, 's> {
    /// A `RangeV1` record.
    Range(Range<'a>),
    /// A `ReturnPadV1` record; its entries resolve through the string table in the scratch.
    ReturnPad(ReturnPad<'a, 's>),
}

/// A record message, framed, with the VA of the record before it.
#[derive(Copy, Clone, Debug)]
struct Pending<'a> {
    message: Message<'a>,
    prev_va: Option<u64>,
}

/// Decodes records in file order ([`SymbFile::records`]).
#[derive(Debug)]
pub struct Records<'a, 's> {
    messages: Messages<'a>,
    scratch: &'s mut [&'a str],
    /// Index each table as soon as it arrives (full validation) or when first used.
    eager: bool,
    prev_va: Option<u64>,
    table: StringTable<'a>,
    table_offset: u64,
    /// Number of strings in the current table, once it has been indexed.
    table_len: Option<u32>,
    /// Body position past the last string of the current table stored in the scratch.
    table_resume: u32,
    string_tables: u64,
    unknown: u64,
}

impl<'a, 's> Records<'a, 's> {
    fn new(messages: Messages<'a>, scratch: &'s mut [&'a str], eager: bool) -> Self {
        Records {
            messages,
            scratch,
            eager,
            prev_va: None,
            table: StringTable::default(),
            table_offset: 0,
            table_len: Some(0),
            table_resume: 0,
            string_tables: 0,
            unknown: 0,
        }
    }

    /// The next record message, string tables and unknown messages handled on the way.
    #[inline(always)]
    fn next_pending(&mut self) -> Result<Option<Pending<'a>>, Error> {
        while let Some(message) = self.messages.next() {
            let message = message?;
            match message.kind {
                message_type::RANGE_V1 | message_type::RETURN_PAD_V1 => {
                    return Ok(Some(Pending {
                        message,
                        prev_va: self.prev_va,
                    }))
                }
                message_type::STRING_TABLE_V1 => {
                    self.table = StringTable::new(message.body);
                    self.table_offset = message.offset;
                    self.table_len = None;
                    self.string_tables = self.string_tables.saturating_add(1);
                    if self.eager {
                        self.index_table()?;
                    }
                }
                message_type::INVALID | message_type::HEADER => {
                    return Err(error(
                        "message type",
                        message.offset,
                        ErrorKind::Malformed("MT_INVALID or a second MT_HEADER"),
                    ))
                }
                _ => self.unknown = self.unknown.saturating_add(1),
            }
        }
        Ok(None)
    }

    /// Indexes the current table into the scratch (once per table); returns its length.
    fn index_table(&mut self) -> Result<u32, Error> {
        if let Some(n) = self.table_len {
            return Ok(n);
        }
        let (n, resume) = self
            .table
            .index_with_resume(self.scratch)
            .map_err(|e| error("string table", self.table_offset, ErrorKind::Malformed(e)))?;
        self.table_len = Some(n);
        self.table_resume = resume;
        Ok(n)
    }

    fn strings(&self) -> Strings<'a, '_> {
        Strings::new(
            self.table,
            self.table_len.unwrap_or(0),
            self.scratch,
            self.table_resume,
        )
    }

    /// Fully decodes a pending record and advances the VA chain to it.
    #[inline(always)]
    fn decode(&mut self, p: Pending<'a>) -> Result<Record<'a, '_>, Error> {
        self.index_table()?;
        let offset = p.message.offset;
        let at = |(section, kind): Fail| error(section, offset, kind);
        if p.message.kind == message_type::RANGE_V1 {
            let resolve = records::resolver(self.strings());
            let range =
                records::decode_range(offset, p.message.body, VaBase::After(p.prev_va), resolve)
                    .map_err(at)?;
            self.prev_va = Some(range.va);
            Ok(Record::Range(range))
        } else {
            let Records {
                scratch,
                prev_va,
                table,
                table_len,
                table_resume,
                ..
            } = self;
            let strings = Strings::new(*table, table_len.unwrap_or(0), scratch, *table_resume);
            let pad = records::decode_return_pad(
                offset,
                p.message.body,
                VaBase::After(p.prev_va),
                strings,
            )
            .map_err(at)?;
            *prev_va = Some(pad.va);
            Ok(Record::ReturnPad(pad))
        }
    }

    /// The next record, or `None` at the end of the file.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Record<'a, '_>>, Error> {
        match self.next_pending()? {
            Some(p) => self.decode(p).map(Some),
            None => Ok(None),
        }
    }

    /// The current string table (the last one read).
    pub fn string_table(&self) -> StringTable<'a> {
        self.table
    }
}
