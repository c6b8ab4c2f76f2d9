//! The writer's window: the records waiting for their string table, each encoded as it
//! arrives into one byte vector, strings as window string ids (varints).
//!
//! A window holds up to 2^18 records until its string table can be written (the table
//! precedes the records, and whether a string is inline or in the table is known only
//! when the window is complete). Held as structs, a record cost 64 bytes plus its line
//! table; encoded this way it costs about 15 bytes plus its line table.

use symblob::varint::decode_uleb128;

use super::writer::{length_prefixed, varint};

const RANGE: u8 = 0;
const PAD: u8 = 1;

/// A range record's fields other than its line table, strings as window string ids.
pub(crate) struct RangeHead {
    pub va: u64,
    pub length: u64,
    pub func: u32,
    pub file: Option<u32>,
    pub call_file: Option<u32>,
    /// 0 = none.
    pub call_line: u64,
    pub depth: u64,
}

/// A buffered range record.
pub(crate) struct PendingRange<'w> {
    pub head: RangeHead,
    /// The `lineTable` payload (empty = none).
    pub lines: &'w [u8],
}

/// A buffered return-pad record.
pub(crate) struct PendingPad<'w> {
    pub va: u64,
    count: usize,
    entries: &'w [u8],
}

/// One buffered entry of a return pad.
#[derive(Clone, Copy)]
pub(crate) struct PendingEntry {
    pub func: u32,
    pub file: u32,
    pub line: u64,
}

impl PendingPad<'_> {
    /// The entries, outermost first.
    pub(crate) fn entries(&self) -> impl Iterator<Item = PendingEntry> + '_ {
        let mut r = Cursor(self.entries);
        (0..self.count).map(move |_| PendingEntry {
            func: r.varint() as u32,
            file: r.varint() as u32,
            line: r.varint(),
        })
    }
}

/// A buffered record.
pub(crate) enum Pending<'w> {
    Range(PendingRange<'w>),
    ReturnPad(PendingPad<'w>),
}

/// The buffered records of a window, in order.
#[derive(Default)]
pub(crate) struct Window {
    bytes: Vec<u8>,
    len: usize,
    pads: usize,
}

impl Window {
    /// Number of records buffered.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether a return pad is buffered.
    pub(crate) fn has_pads(&self) -> bool {
        self.pads != 0
    }

    /// Buffers a range record; `lines` appends its line-table payload.
    pub(crate) fn push_range(&mut self, r: &RangeHead, lines: impl FnOnce(&mut Vec<u8>)) {
        let b = &mut self.bytes;
        b.push(RANGE);
        varint(b, r.va);
        varint(b, r.length);
        varint(b, u64::from(r.func));
        varint(b, r.file.map_or(0, |f| u64::from(f) + 1));
        varint(b, r.call_file.map_or(0, |f| u64::from(f) + 1));
        varint(b, r.call_line);
        varint(b, r.depth);
        length_prefixed(b, lines);
        self.len += 1;
    }

    /// Buffers a return pad.
    pub(crate) fn push_pad(
        &mut self,
        va: u64,
        entries: impl ExactSizeIterator<Item = PendingEntry>,
    ) {
        let b = &mut self.bytes;
        b.push(PAD);
        varint(b, va);
        varint(b, entries.len() as u64);
        length_prefixed(b, |b| {
            for e in entries {
                varint(b, u64::from(e.func));
                varint(b, u64::from(e.file));
                varint(b, e.line);
            }
        });
        self.len += 1;
        self.pads += 1;
    }

    /// The buffered records, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Pending<'_>> + '_ {
        let mut r = Cursor(&self.bytes);
        std::iter::from_fn(move || {
            let (&kind, rest) = r.0.split_first()?;
            r.0 = rest;
            Some(match kind {
                RANGE => Pending::Range(PendingRange {
                    head: RangeHead {
                        va: r.varint(),
                        length: r.varint(),
                        func: r.varint() as u32,
                        file: r.varint().checked_sub(1).map(|f| f as u32),
                        call_file: r.varint().checked_sub(1).map(|f| f as u32),
                        call_line: r.varint(),
                        depth: r.varint(),
                    },
                    lines: r.bytes(),
                }),
                _ => {
                    let va = r.varint();
                    let count = r.varint() as usize;
                    Pending::ReturnPad(PendingPad {
                        va,
                        count,
                        entries: r.bytes(),
                    })
                }
            })
        })
    }

    /// Empties the window, keeping its buffer.
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
        self.pads = 0;
    }
}

/// Reads back what [`Window`] wrote (its own bytes, so always well formed).
struct Cursor<'w>(&'w [u8]);

impl<'w> Cursor<'w> {
    #[inline(always)]
    fn varint(&mut self) -> u64 {
        // The window's own bytes always hold a whole varint here.
        let (v, n) = decode_uleb128(self.0).unwrap_or((0, self.0.len()));
        self.0 = &self.0[n..];
        v
    }

    fn bytes(&mut self) -> &'w [u8] {
        let len = self.varint() as usize;
        let (bytes, rest) = self.0.split_at(len.min(self.0.len()));
        self.0 = rest;
        bytes
    }
}
