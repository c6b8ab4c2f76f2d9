//! Random access for an index kept by the caller: one light pass gives each record's
//! position, VA and extent ([`SymbFile::heads`]), and a record is then decoded alone from
//! its position ([`SymbFile::range_at`], [`SymbFile::return_pad_at`]).
//!
//! A symbfile cannot be read from the middle by itself: a record's VA is a delta from the
//! previous record's, and its strings refer to the last string table before it. The pass
//! resolves both once; an index keeps the VA and the table with each position and hands
//! them back when it decodes the record.

use super::raw::{range, return_pad};
use super::records::{self, Range, ReturnPad, VaBase};
use super::{error, message_type, to_u64, Messages, StringTable, Strings, SymbFile};
use crate::{Error, ErrorKind};

/// A message as an index sees it ([`SymbFile::heads`]): where each record is and what it
/// covers, and where string tables begin. Nothing else of a record is decoded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Head<'a> {
    /// A `RangeV1` record covering `[va, va + length)`.
    Range {
        /// Offset of the record's message in the file.
        offset: u64,
        /// Its VA, resolved through the delta chain.
        va: u64,
        /// Bytes covered (u64 as on the wire).
        length: u64,
    },
    /// A `ReturnPadV1` record at `va`.
    ReturnPad {
        /// Offset of the record's message in the file.
        offset: u64,
        /// Its VA, resolved through the delta chain.
        va: u64,
    },
    /// A `StringTableV1`: the records after it, up to the next table, resolve their
    /// strings in it. Its strings are not checked here ([`StringTable::iter`] does).
    StringTable {
        /// Offset of the table's message in the file.
        offset: u64,
        /// The table.
        table: StringTable<'a>,
    },
}

/// The messages of a file as [`Head`]s, in file order; stops after the first error.
#[derive(Clone, Debug)]
pub struct Heads<'a> {
    messages: Messages<'a>,
    prev_va: Option<u64>,
}

impl<'a> Iterator for Heads<'a> {
    type Item = Result<Head<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let message = match self.messages.next()? {
                Ok(m) => m,
                Err(e) => return Some(Err(e)),
            };
            let offset = message.offset;
            let (section, set_field) = match message.kind {
                message_type::RANGE_V1 => ("range", range::SET_ELF_VA),
                message_type::RETURN_PAD_V1 => ("return pad", return_pad::SET_ELF_VA),
                message_type::STRING_TABLE_V1 => {
                    let table = StringTable::new(message.body);
                    return Some(Ok(Head::StringTable { offset, table }));
                }
                message_type::INVALID | message_type::HEADER => {
                    return Some(Err(self.stop(error(
                        "message type",
                        offset,
                        ErrorKind::Malformed("MT_INVALID or a second MT_HEADER"),
                    ))))
                }
                // Unknown types are skipped by their length, as a sweep does.
                _ => continue,
            };
            let head = records::peek(message.body, set_field, section, self.prev_va)
                .map_err(|(s, k)| self.stop(error(s, offset, k)))
                .map(|(va, length)| {
                    self.prev_va = Some(va);
                    if message.kind == message_type::RANGE_V1 {
                        Head::Range { offset, va, length }
                    } else {
                        Head::ReturnPad { offset, va }
                    }
                });
            return Some(head);
        }
    }
}

impl Heads<'_> {
    /// Ends the iteration after `e`, as [`Messages`] does.
    fn stop(&mut self, e: Error) -> Error {
        self.messages.pos = self.messages.data.len();
        e
    }
}

impl<'a> SymbFile<'a> {
    /// Each record's position, VA and length, and each string table, in one pass that
    /// decodes nothing else (as fast as a sweep lookup): what an index of the file needs.
    /// The framing and the VA chain are checked; record bodies only as far as their VA
    /// and length.
    pub fn heads(&self) -> Heads<'a> {
        Heads {
            messages: self.messages(),
            prev_va: None,
        }
    }

    /// The range record whose message starts at `offset` (a [`Head::Range`]'s), decoded
    /// with `va` as its VA (the head's: its own bytes only give it relative to the record
    /// before) and its strings from `strings`, the last table before it
    /// ([`Strings::from_slots`]). Every rule of the record is checked; an offset that is
    /// not a range record's, or an absolute VA other than `va`, is an error.
    pub fn range_at(
        &self,
        offset: u64,
        va: u64,
        strings: Strings<'a, '_>,
    ) -> Result<Range<'a>, Error> {
        let body = self.body_at(offset, message_type::RANGE_V1)?;
        records::decode_range(offset, body, VaBase::Known(va), records::resolver(strings))
            .map_err(|(s, k)| error(s, offset, k))
    }

    /// The return-pad record whose message starts at `offset` (a [`Head::ReturnPad`]'s),
    /// as [`SymbFile::range_at`] decodes ranges; its entries resolve in `strings`.
    pub fn return_pad_at<'s>(
        &self,
        offset: u64,
        va: u64,
        strings: Strings<'a, 's>,
    ) -> Result<ReturnPad<'a, 's>, Error> {
        let body = self.body_at(offset, message_type::RETURN_PAD_V1)?;
        records::decode_return_pad(offset, body, VaBase::Known(va), strings)
            .map_err(|(s, k)| error(s, offset, k))
    }

    /// The body of the message of type `kind` at `offset`, framing checked.
    fn body_at(&self, offset: u64, kind: u32) -> Result<&'a [u8], Error> {
        let pos = usize::try_from(offset)
            .ok()
            .filter(|&p| p >= self.start && p < self.data.len())
            .ok_or_else(|| {
                error(
                    "record",
                    offset,
                    ErrorKind::OutOfRange {
                        value: offset,
                        limit: to_u64(self.data.len()),
                    },
                )
            })?;
        let mut messages = Messages {
            data: self.data,
            pos,
        };
        let message = messages.message()?;
        if message.kind != kind {
            return Err(error(
                "record",
                offset,
                ErrorKind::Mismatch {
                    expected: u64::from(kind),
                    found: u64::from(message.kind),
                },
            ));
        }
        Ok(message.body)
    }
}
