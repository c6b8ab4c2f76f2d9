//! Lookups at scale: a symbfile indexed once, then each address answered in
//! O(log n + frames) instead of a sweep of the whole file.
//!
//! A symbfile is a stream (spec §3.1): a record's VA is a delta from the previous one's
//! and its strings refer to the last string table before it, so the reader's lookups
//! ([`SymbFile::lookup_ranges`], [`SymbFile::lookup_return_pad`]) sweep the file for every
//! address. [`SymbfileIndex::new`] makes that pass once
//! ([`SymbFile::heads`]: framing, VA chain, lengths, nothing else decoded), keeps
//! for each record only its address range and the offset of its message, and indexes each
//! string table's strings. A lookup then finds the covering records and decodes just
//! those, in place ([`SymbFile::range_at`]). The ranges of real files nest (a function
//! holds the calls inlined into it), so they go into a forest where each range links to
//! the innermost range holding it: one search finds the last range starting at or before
//! the address, and its chain of parents holds every covering range. Ranges that do not
//! nest, or that a 16-byte node cannot hold, go into an interval tree, which takes any
//! set of ranges.
//!
//! [`SymbfileIndex::lookup_ranges_each`] answers many addresses faster than one at a
//! time: lookups are bound by memory latency, and it interleaves the walks of eight
//! addresses and reads all their records' first bytes before decoding any, so that their
//! cache misses overlap.
//!
//! The answers are the sweep's, exactly: the same records in the same order, with the
//! same truncation when `out` is short. Like the sweep, a lookup checks the records it
//! returns (a corrupt one is an error of that lookup) and nothing else; the pass that
//! builds the index checks what the sweep checks for every address (framing, message
//! types, the VA chain) and the string tables.
//!
//! # Memory
//!
//! At most 20 bytes per range record in the forest (a 16-byte node, at most one 4-byte
//! bucket), 28 in the interval tree (a range of 4 GiB or more, a record past the file's
//! first 4 GiB, a start 4 GiB or more above the lowest, a range that breaks the nesting),
//! 16 per return pad, and 16 per string of the string tables; the records themselves stay
//! in the file's bytes. On the range files of real programs this is less than the file
//! (BENCHMARKS.md).
//!
//! # Example
//!
//! ```
//! use symblob::symbfile::{Range, SymbFile};
//! use symblob_build::symbfile::index::SymbfileIndex;
//! use symblob_build::symbfile::{writer::encode, RangeRecord, Record};
//!
//! let outer = RangeRecord { va: 0x1000, length: 0x40, func: "main".into(), ..RangeRecord::default() };
//! let inner = RangeRecord { va: 0x1010, length: 8, func: "inlined".into(), depth: 1, ..RangeRecord::default() };
//! let bytes = encode(&[Record::Range(outer), Record::Range(inner)])?;
//! let file = SymbFile::parse(&bytes)?;
//! let index = SymbfileIndex::new(file)?;
//!
//! let mut out = [Range::EMPTY; 8];
//! let found = index.lookup_ranges(0x1014, &mut out)?;
//! assert_eq!(found, 2);
//! assert_eq!((out[0].func, out[1].func), ("main", "inlined"));
//! // The same answer as a sweep of the file.
//! let mut swept = [Range::EMPTY; 8];
//! assert_eq!(file.lookup_ranges(0x1014, &mut [], &mut swept)?, 2);
//! assert_eq!(out, swept);
//! # Ok::<(), symblob_build::Error>(())
//! ```

mod forest;
mod tree;

use std::convert::Infallible;

use symblob::symbfile::{Head, Range, ReturnPad, StringTable, Strings, SymbFile};
use symblob::Format;

use crate::Result;
use forest::{Forest, LANES};
use tree::{IntervalTree, Span};

/// Covering ranges a lookup collects before decoding them (an address covered by more
/// takes a slower path).
const INLINE_SPANS: usize = 32;

/// The spans covering one address, collected before any record is decoded.
#[derive(Clone)]
struct Covering {
    spans: [Span; INLINE_SPANS],
    found: usize,
    /// More than [`INLINE_SPANS`]: the address takes the slower path.
    overflowed: bool,
}

impl Default for Covering {
    fn default() -> Self {
        Covering {
            spans: [Span::default(); INLINE_SPANS],
            found: 0,
            overflowed: false,
        }
    }
}

impl Covering {
    fn push(&mut self, span: &Span) {
        match self.spans.get_mut(self.found) {
            Some(slot) => {
                *slot = *span;
                self.found += 1;
            }
            None => self.overflowed = true,
        }
    }

    fn spans(&self) -> &[Span] {
        &self.spans[..self.found]
    }
}

/// A symbfile with its range records indexed (a forest of the ranges that nest, an
/// interval tree of the others) and its return pads sorted by address: lookups without a
/// sweep. Borrows the file's bytes; `Send` and `Sync`, so one
/// index can answer from many threads.
#[derive(Clone, Debug)]
pub struct SymbfileIndex<'a> {
    file: SymbFile<'a>,
    /// The ranges that nest, shorter than 4 GiB, with records in the first 4 GiB of the
    /// file: in every real file, all of them.
    nested: Forest,
    /// The others.
    others: IntervalTree,
    /// Return pads as `(va, offset)`, sorted (file order among equal VAs).
    pads: Vec<(u64, u64)>,
    /// The string tables in file order.
    tables: Vec<Table<'a>>,
}

/// A string table and its strings, each checked (UTF-8) once when the index is built.
#[derive(Clone, Debug)]
struct Table<'a> {
    /// Offset of the table's message: records after it use it.
    offset: u64,
    table: StringTable<'a>,
    strings: Vec<&'a str>,
}

impl<'a> SymbfileIndex<'a> {
    /// Indexes `file` in one pass. Fails, naming the offset, on what a sweep lookup would
    /// fail on anywhere in the file (framing, message types, the VA chain, a malformed VA
    /// or length) and on a string table that is not well-formed UTF-8.
    pub fn new(file: SymbFile<'a>) -> Result<Self> {
        let mut spans = Vec::new();
        let mut pads = Vec::new();
        let mut tables = Vec::new();
        for head in file.heads() {
            match head? {
                // A record of length 0 covers nothing.
                Head::Range { length: 0, .. } => {}
                Head::Range { offset, va, length } => {
                    spans.push(Span {
                        start: va,
                        // Inclusive, so that a range past 2^64 keeps every address it
                        // covers.
                        last: va.saturating_add(length - 1),
                        offset,
                    });
                }
                Head::ReturnPad { offset, va } => pads.push((va, offset)),
                Head::StringTable { offset, table } => {
                    let strings = table
                        .iter()
                        .map(|s| s.map(|(_, s)| s))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| {
                            let kind = symblob::ErrorKind::Malformed(e);
                            symblob::Error::new(Format::Symbfile, "string table", offset, kind)
                        })?;
                    tables.push(Table {
                        offset,
                        table,
                        strings,
                    });
                }
            }
        }
        // Stable: equal VAs stay in file order, so the first pad of an address is the
        // sweep's.
        pads.sort_by_key(|&(va, _)| va);
        pads.shrink_to_fit();
        let (nested, others) = Forest::new(spans);
        Ok(SymbfileIndex {
            file,
            nested,
            others: IntervalTree::new(others),
            pads,
            tables,
        })
    }

    /// The file indexed.
    pub fn file(&self) -> &SymbFile<'a> {
        &self.file
    }

    /// Number of range records indexed (those of length 0, which cover nothing, are not).
    pub fn ranges(&self) -> usize {
        self.nested.len() + self.others.len()
    }

    /// Number of return-pad records.
    pub fn return_pads(&self) -> usize {
        self.pads.len()
    }

    /// Bytes of memory the index holds beyond the file: the tree, the pads and the
    /// string slots.
    pub fn heap_bytes(&self) -> usize {
        let tables: usize = self
            .tables
            .iter()
            .map(|t| t.strings.capacity() * std::mem::size_of::<&str>())
            .sum();
        self.nested.heap_bytes()
            + self.others.heap_bytes()
            + self.pads.capacity() * std::mem::size_of::<(u64, u64)>()
            + self.tables.capacity() * std::mem::size_of::<Table<'_>>()
            + tables
    }

    /// Every range record covering `addr`, as [`SymbFile::lookup_ranges`] gives them:
    /// depth 0 (the outermost function) first, records of equal depth in file order. The
    /// first `out.len()` covering records in file order are stored in `out`; the return
    /// value is the number of covering records, which may exceed `out.len()`. Errors are
    /// those of the covering records.
    pub fn lookup_ranges(&self, addr: u64, out: &mut [Range<'a>]) -> Result<usize> {
        let mut covering = Covering::default();
        let mut collect = |span: &Span| -> Result<(), Infallible> {
            covering.push(span);
            Ok(())
        };
        let Ok(()) = self.nested.covering(addr, &mut collect);
        let Ok(()) = self.others.covering(addr, &mut collect);
        self.touch(std::slice::from_ref(&covering));
        self.answer(addr, &mut covering, out)
    }

    /// [`Self::lookup_ranges`] of each of `addrs`, in order: `each` gets the address, the
    /// number of covering records and the records kept in `out`. Faster than one lookup
    /// at a time: the index walks of eight addresses are interleaved and their records'
    /// first bytes read together, so that their cache misses overlap.
    pub fn lookup_ranges_each(
        &self,
        addrs: &[u64],
        out: &mut [Range<'a>],
        mut each: impl FnMut(u64, usize, &[Range<'a>]) -> Result<()>,
    ) -> Result<()> {
        let mut covering: [Covering; LANES] = Default::default();
        for chunk in addrs.chunks(LANES) {
            let mut lanes = [0u64; LANES];
            lanes[..chunk.len()].copy_from_slice(chunk);
            for c in &mut covering {
                (c.found, c.overflowed) = (0, false);
            }
            let Ok(()) = self.nested.covering_each(&lanes, |lane, span| {
                covering[lane].push(span);
                Ok::<(), Infallible>(())
            });
            for (lane, &addr) in chunk.iter().enumerate() {
                let Ok(()) = self.others.covering(addr, |span| {
                    covering[lane].push(span);
                    Ok::<(), Infallible>(())
                });
            }
            self.touch(&covering[..chunk.len()]);
            for (lane, &addr) in chunk.iter().enumerate() {
                let found = self.answer(addr, &mut covering[lane], out)?;
                each(addr, found, &out[..found.min(out.len())])?;
            }
        }
        Ok(())
    }

    /// Reads the first byte of every record in `covering`, together, before any is
    /// decoded: a lookup is bound by memory latency, and independent reads overlap.
    fn touch(&self, covering: &[Covering]) {
        let bytes = self.file.bytes();
        let spans = covering.iter().flat_map(|c| c.spans());
        let touched = spans.fold(0u8, |t, s| {
            let byte = usize::try_from(s.offset).ok().and_then(|o| bytes.get(o));
            t ^ byte.copied().unwrap_or(0)
        });
        std::hint::black_box(touched);
    }

    /// The answer of [`Self::lookup_ranges`] from the spans covering `addr`.
    fn answer(&self, addr: u64, covering: &mut Covering, out: &mut [Range<'a>]) -> Result<usize> {
        if covering.overflowed {
            return self.lookup_many_ranges(addr, out);
        }
        let found = covering.found;
        let spans = &mut covering.spans[..found];
        if found > out.len() {
            // Keep the records first in the file.
            spans.sort_unstable_by_key(|s| s.offset);
        } else {
            // The forest gives them innermost first: outermost first is (nearly always)
            // the order of depths asked for.
            spans.reverse();
        }
        // Decoded straight into `out`, the reader's error converted once.
        let decode = |out: &mut [Range<'a>]| -> Result<(), symblob::Error> {
            for (slot, span) in out.iter_mut().zip(spans.iter()) {
                let strings = self.strings_for(span.offset);
                *slot = self.file.range_at(span.offset, span.start, strings)?;
            }
            Ok(())
        };
        decode(out)?;
        let kept = out.get_mut(..found.min(out.len())).unwrap_or_default();
        if !kept.is_sorted_by_key(|r| (r.depth, r.offset)) {
            // File order, then depth: the sweep's stable sort by depth of the file-order
            // list.
            kept.sort_unstable_by_key(|r| (r.depth, r.offset));
        }
        Ok(found)
    }

    /// [`Self::lookup_ranges`] for an address covered by more than [`INLINE_SPANS`]
    /// ranges: each record decoded as its span is found.
    #[cold]
    fn lookup_many_ranges(&self, addr: u64, out: &mut [Range<'a>]) -> Result<usize> {
        let mut found = 0usize;
        let mut hit = |span: &Span| -> Result<()> {
            found += 1;
            // Keep the records first in the file: fill `out`, then replace the latest
            // kept one by an earlier record (they come in no file order).
            let slot = if found <= out.len() {
                out.get_mut(found - 1)
            } else {
                out.iter_mut()
                    .max_by_key(|r| r.offset)
                    .filter(|r| r.offset > span.offset)
            };
            if let Some(slot) = slot {
                *slot = self.range_at(span)?;
            }
            Ok(())
        };
        self.nested.covering(addr, &mut hit)?;
        self.others.covering(addr, &mut hit)?;
        let kept = out.get_mut(..found.min(out.len())).unwrap_or_default();
        kept.sort_unstable_by_key(|r| (r.depth, r.offset));
        Ok(found)
    }

    /// The first return pad (in file order) at exactly `addr`, as
    /// [`SymbFile::lookup_return_pad`] finds it; its entries resolve in the index's
    /// copy of its string table.
    pub fn lookup_return_pad(&self, addr: u64) -> Result<Option<ReturnPad<'a, '_>>> {
        let first = self.pads.partition_point(|&(va, _)| va < addr);
        match self.pads.get(first) {
            Some(&(va, offset)) if va == addr => Ok(Some(self.file.return_pad_at(
                offset,
                va,
                self.strings_for(offset),
            )?)),
            _ => Ok(None),
        }
    }

    /// The range record of `span`, decoded with its string table.
    fn range_at(&self, span: &Span) -> Result<Range<'a>> {
        let strings = self.strings_for(span.offset);
        Ok(self.file.range_at(span.offset, span.start, strings)?)
    }

    /// The strings of the last table before the record at `offset` (none before the
    /// first table).
    fn strings_for(&self, offset: u64) -> Strings<'a, '_> {
        let after = self.tables.partition_point(|t| t.offset < offset);
        match after.checked_sub(1).and_then(|i| self.tables.get(i)) {
            Some(t) => Strings::from_slots(t.table, &t.strings),
            None => Strings::default(),
        }
    }
}
