//! An optional index of the line tables and inline trees, built once into memory the
//! caller provides.
//!
//! GSYM has no index inside a function: [`GsymFile::lookup`] runs the line program from
//! its start to the address and reads the inline tree's top-level calls one after the
//! other, decoding the subtrees of those that do not cover the address. On long
//! functions (thousands of rows, hundreds of inlined calls) that is most of a lookup.
//! [`LookupIndex`] keeps, per function,
//!
//! * the line program's state after every [`LookupIndex::ROWS_PER_CHECKPOINT`]-th row,
//!   so that a lookup resumes the program from the last checkpoint below the address and
//!   runs fewer rows than that;
//! * for every node of the inline tree, the addresses it spans, the offset after its
//!   subtree and the number of nodes in it, so that a lookup steps over an inlined call
//!   that does not cover the address without reading it or the calls inlined into it.
//!
//! The file itself is not changed, and the answers are [`GsymFile::lookup`]'s, errors
//! included: a function whose line table or inline tree does not decode whole, or whose
//! rows are out of order, is not indexed, and its lookups run as without an index.
//!
//! Memory: two words per function plus two, and two words per checkpoint and per
//! inline-tree node; [`LookupIndex::words_needed`] counts them in one pass over the file.
//!
//! ```
//! # use symblob::gsym::{GsymFile, LookupIndex};
//! # fn demo(file: GsymFile<'_>) -> Result<(), symblob::Error> {
//! let mut words = vec![0u64; LookupIndex::words_needed(&file)];
//! let index = LookupIndex::build(file, &mut words)?;
//! let addr = 0x1160;
//! assert_eq!(
//!     index.lookup(addr)?.map(|l| l.row),
//!     file.lookup(addr)?.map(|l| l.row)
//! );
//! # Ok(()) }
//! ```

use super::function::cursor_at;
use super::inline::{read_fields, read_ranges, MAX_INLINE_DEPTH};
use super::line_table::{LineProgram, LineRow};
use super::raw::info_type;
use super::section::INLINE;
use super::{error, Function, GsymFile, Lookup};
use crate::partition::partition_point;
use crate::{Error, ErrorKind};

/// A line-table and inline-tree index over a [`GsymFile`], in a caller-provided
/// `&mut [u64]`.
///
/// Layout of the words: two head words per function, and two after the last, then each
/// function's entries. Head word `2i` holds the word offset of function `i`'s entries
/// (from the first entry word) in its low 32 bits and the file offset of its indexed
/// line-table chunk (0: none) in its high 32 bits; word `2i + 1` the number of its line
/// checkpoints and the file offset of its indexed inline-info chunk (0: none). Entries
/// are the line checkpoints, two words each, `(address − function start) | line << 32`
/// and `opcode offset | file << 32`; then two words per inline-tree node in depth-first
/// order, `offset after its subtree | nodes in its subtree << 32` and its span,
/// `lowest start − function start | (highest end − function start) << 32` (or
/// `u64::MAX` when that does not fit).
#[derive(Clone, Copy, Debug)]
pub struct LookupIndex<'a, 'b> {
    file: GsymFile<'a>,
    words: &'b [u64],
    /// Whether the address table is sorted, as the batched lookups need to search for
    /// the function of an address from the previous one.
    pub(super) sorted: bool,
}

/// What one function puts in the index.
#[derive(Clone, Copy, Default)]
struct Counts {
    /// The indexed line-table chunk's file offset (0: none) and its checkpoints.
    line_chunk: u64,
    checkpoints: usize,
    /// The indexed inline-info chunk's file offset (0: none).
    inline_chunk: u64,
}

/// Where the entries go: the caller's words, or nowhere when only counted.
struct Entries<'w> {
    words: &'w mut [u64],
    /// The next free word (past the end of `words` when they are too few).
    next: usize,
}

impl Entries<'_> {
    /// Appends two words.
    fn push(&mut self, a: u64, b: u64) {
        self.set(self.next, a);
        self.set(self.next.saturating_add(1), b);
        self.next = self.next.saturating_add(2);
    }

    fn set(&mut self, at: usize, value: u64) {
        if let Some(word) = self.words.get_mut(at) {
            *word = value;
        }
    }
}

impl<'a, 'b> LookupIndex<'a, 'b> {
    /// Rows between two checkpoints: a lookup runs fewer than this many rows past the
    /// checkpoint it resumes from, and the index costs 16 bytes per this many rows.
    pub const ROWS_PER_CHECKPOINT: usize = 16;

    /// The words [`build`](Self::build) needs for `file`. Decodes every line table and
    /// inline tree once (O(file size)).
    pub fn words_needed(file: &GsymFile<'a>) -> usize {
        let mut entries = Entries {
            words: &mut [],
            next: heads(file),
        };
        for index in 0..file.len() {
            index_function(file, index, &mut entries);
        }
        entries.next
    }

    /// Builds the index into `words` in O(file size), without allocating.
    ///
    /// Fails with [`ErrorKind::BufferTooSmall`] (section `lookup index`, `needed` in
    /// bytes) when `words` is shorter than [`words_needed`](Self::words_needed) says, and
    /// with [`ErrorKind::Overflow`] when the entries take 2³² words or more.
    pub fn build(file: GsymFile<'a>, words: &'b mut [u64]) -> Result<Self, Error> {
        let first_entry = heads(&file);
        let mut entries = Entries {
            words,
            next: first_entry,
        };
        let head = |entries: &mut Entries<'_>, index: usize, words: [u64; 2]| {
            let slot = index.wrapping_mul(2);
            entries.set(slot, words[0]);
            entries.set(slot.wrapping_add(1), words[1]);
        };
        for index in 0..=file.len() {
            let offset = u64::try_from(entries.next.wrapping_sub(first_entry))
                .ok()
                .filter(|&e| e <= u64::from(u32::MAX))
                .ok_or_else(overflow)?;
            if index == file.len() {
                head(&mut entries, index, [offset, 0]);
                break;
            }
            let counts = index_function(&file, index, &mut entries);
            head(
                &mut entries,
                index,
                [
                    offset | counts.line_chunk << 32,
                    counts.checkpoints as u64 | counts.inline_chunk << 32,
                ],
            );
        }
        if entries.next > entries.words.len() || entries.words.len() < first_entry {
            return Err(too_small(&file));
        }
        let used = entries.next;
        Ok(LookupIndex {
            file,
            words: entries.words.get(..used).unwrap_or_default(),
            sorted: file.first_unsorted_address().is_none(),
        })
    }

    /// The file.
    pub fn file(&self) -> GsymFile<'a> {
        self.file
    }

    /// The line-table checkpoints the index holds, over all functions.
    pub fn checkpoints(&self) -> usize {
        (0..self.file.len())
            .filter_map(|index| self.entries(index))
            .map(|([_, inline], _, _)| (inline & 0xffff_ffff) as usize)
            .sum()
    }

    /// The inline-tree nodes the index holds, over all functions.
    pub fn inline_nodes(&self) -> usize {
        (0..self.file.len())
            .filter_map(|index| self.entries(index))
            .map(|([_, inline], first, end)| {
                let checkpoints = (inline & 0xffff_ffff) as usize;
                end.saturating_sub(first)
                    .saturating_sub(checkpoints.saturating_mul(2))
                    / 2
            })
            .sum()
    }

    /// [`GsymFile::lookup`] of `addr`, with the line program resumed from the last
    /// checkpoint below `addr` and the inline calls that do not cover `addr` stepped
    /// over: the same answer and the same errors.
    pub fn lookup(&self, addr: u64) -> Result<Option<Lookup<'a>>, Error> {
        self.file.lookup_indexed(
            addr,
            |function, chunk| self.checkpoint_below(function, chunk, addr),
            |function, chunk| self.subtrees(function, chunk),
        )
    }

    /// Function `index`'s head words and the word range of its entries.
    fn entries(&self, index: usize) -> Option<([u64; 2], usize, usize)> {
        let slot = index.checked_mul(2)?;
        let head = self.words.get(slot..slot.checked_add(3)?)?;
        let (line, inline, next) = (*head.first()?, *head.get(1)?, *head.get(2)?);
        let base = heads(&self.file);
        let first = base.checked_add(usize::try_from(line & 0xffff_ffff).ok()?)?;
        let end = base.checked_add(usize::try_from(next & 0xffff_ffff).ok()?)?;
        Some(([line, inline], first, end))
    }

    /// The last checkpoint of `function` whose row starts below `addr`, as the opcode
    /// offset to resume at and the row, if the index holds the line table at `chunk`.
    pub(super) fn checkpoint_below(
        &self,
        function: &Function<'a>,
        chunk: u64,
        addr: u64,
    ) -> Option<(u64, LineRow)> {
        let ([line, inline], first, _) = self.entries(function.index)?;
        if line >> 32 != chunk {
            return None;
        }
        let count = usize::try_from(inline & 0xffff_ffff).ok()?;
        let words = self
            .words
            .get(first..first.checked_add(count.checked_mul(2)?)?)?;
        let (pairs, _) = words.as_chunks::<2>();
        let start = function.address;
        let row_start = |a: u64| start.wrapping_add(a & 0xffff_ffff);
        // Rows are sorted: the checkpoints below `addr` are a prefix.
        let below = partition_point(pairs, |&[a, _]| row_start(a) < addr);
        let [a, b] = *pairs.get(below.checked_sub(1)?)?;
        let row = LineRow {
            address: row_start(a),
            file: (b >> 32) as u32,
            line: (a >> 32) as u32,
        };
        Some((b & 0xffff_ffff, row))
    }

    /// Whether the index holds `function`'s line table at `chunk` (whose rows are then
    /// known to be in address order).
    pub(super) fn holds_line_table(&self, function: &Function<'a>, chunk: u64) -> bool {
        self.entries(function.index)
            .is_some_and(|([line, _], _, _)| line >> 32 == chunk)
    }

    /// The node words of `function`'s inline tree, if the index holds the tree at
    /// `chunk`: a pair per node in depth-first order (see [`LookupIndex`]).
    pub(super) fn subtrees(&self, function: &Function<'a>, chunk: u64) -> Option<&'b [[u64; 2]]> {
        let ([_, inline], first, end) = self.entries(function.index)?;
        if inline >> 32 != chunk {
            return None;
        }
        let checkpoints = usize::try_from(inline & 0xffff_ffff).ok()?;
        let nodes = first.checked_add(checkpoints.checked_mul(2)?)?;
        Some(self.words.get(nodes..end)?.as_chunks::<2>().0)
    }
}

/// A node's span as its index word: `low − start | (high − start) << 32`, or
/// [`UNKNOWN_SPAN`] when it does not lie within 2³² bytes from the function's start.
fn span(start: u64, low: u64, high: u64) -> u64 {
    let relative = |a: u64| a.checked_sub(start).filter(|&r| r <= u64::from(u32::MAX));
    match (relative(low), relative(high)) {
        (Some(low), Some(high)) if low <= high => low | high << 32,
        _ => UNKNOWN_SPAN,
    }
}

/// The span word of a node whose span the index does not hold: a lookup reads its
/// ranges.
pub(crate) const UNKNOWN_SPAN: u64 = u64::MAX;

/// Head words: two per function and two after the last.
fn heads(file: &GsymFile<'_>) -> usize {
    file.len().saturating_add(1).saturating_mul(2)
}

/// Indexes function `index` into `entries`: its line table's checkpoints, then one word
/// per node of its inline tree. A table or tree that cannot be indexed takes no entries.
fn index_function(file: &GsymFile<'_>, index: usize, entries: &mut Entries<'_>) -> Counts {
    let mut counts = Counts::default();
    let Ok(function) = file.function(index) else {
        return counts;
    };
    let start = function.address;
    let (mut line, mut inline) = (None, None);
    let walked = file.chunks(&function, |chunk, data| {
        match chunk.kind {
            info_type::LINE_TABLE => line = Some((chunk.offset, data.len())),
            info_type::INLINE_INFO => inline = Some((chunk.offset, data.len())),
            _ => {}
        }
        Ok(())
    });
    if walked.is_err() {
        return counts;
    }
    // Entries are written as the table or tree is read, and taken back when it turns
    // out unfit to index.
    if let Some((chunk, len)) = line {
        let mark = entries.next;
        let found = checkpoints(file, &function, chunk, len, |row, after| {
            entries.push(
                row.address.wrapping_sub(start) | u64::from(row.line) << 32,
                after | u64::from(row.file) << 32,
            );
        });
        match found {
            Some(count) => (counts.line_chunk, counts.checkpoints) = (chunk, count),
            None => entries.next = mark,
        }
    }
    if let Some((chunk, len)) = inline {
        let first = entries.next;
        let word = |node: usize| first.wrapping_add(node.wrapping_mul(2));
        let found = subtrees(file, &function, chunk, len, |fact| match fact {
            NodeFact::Span(node, low, high) => {
                // Nodes are numbered as they start: this one's words come next.
                entries.next = word(node.wrapping_add(1));
                entries.set(word(node).wrapping_add(1), span(start, low, high));
            }
            NodeFact::End(node, after, size) => {
                entries.set(word(node), after | (size as u64) << 32);
            }
        });
        match found {
            Some(_) => counts.inline_chunk = chunk,
            None => entries.next = first,
        }
    }
    counts
}

/// Runs the line table at `chunk`, giving every [`LookupIndex::ROWS_PER_CHECKPOINT`]-th
/// row and the offset after it to `each`; their number, or `None` when the table does
/// not decode to its end, its rows are out of address order or start below the function
/// or 2³² bytes or more past its start, or an offset needs more than 32 bits.
fn checkpoints(
    file: &GsymFile<'_>,
    function: &Function<'_>,
    chunk: u64,
    len: usize,
    mut each: impl FnMut(LineRow, u64),
) -> Option<usize> {
    let fits = |value: u64| value <= u64::from(u32::MAX);
    if chunk == 0 || !fits(chunk) {
        return None;
    }
    let mut program = LineProgram::new(file.bytes, chunk, len, function.address).ok()?;
    let (mut rows, mut count, mut previous) = (0usize, 0usize, function.address);
    while let Some(row) = program.next_row().ok()? {
        let at = program.offset();
        let near = fits(row.address.wrapping_sub(function.address));
        if row.address < previous || !near || !fits(at) {
            return None;
        }
        previous = row.address;
        rows = rows.wrapping_add(1);
        if rows % LookupIndex::ROWS_PER_CHECKPOINT == 0 {
            each(row, at);
            count = count.wrapping_add(1);
        }
    }
    Some(count)
}

/// What [`subtrees`] tells of a node.
enum NodeFact {
    /// Node `k` (depth-first number) starts and spans the addresses `low..high`.
    Span(usize, u64, u64),
    /// Node `k`'s subtree ends at the file offset given and holds that many nodes.
    End(usize, u64, usize),
}

/// Reads the inline tree at `chunk` of `function` whole, telling `each` where every
/// node starts (with its span) and where its subtree ends; the number of nodes, or
/// `None` when the tree does not decode, nests deeper than [`MAX_INLINE_DEPTH`] or an
/// offset needs more than 32 bits.
fn subtrees(
    file: &GsymFile<'_>,
    function: &Function<'_>,
    chunk: u64,
    len: usize,
    mut each: impl FnMut(NodeFact),
) -> Option<usize> {
    let fits = |value: u64| value <= u64::from(u32::MAX);
    let end = chunk.saturating_add(u64::try_from(len).ok()?);
    if chunk == 0 || !fits(end) {
        return None;
    }
    let mut cursor = cursor_at(file.bytes, chunk, end, INLINE).ok()?;
    // The nodes whose children are being read, outermost first, with the first start
    // their children's ranges are relative to.
    let mut open = [(0usize, 0u64); MAX_INLINE_DEPTH];
    let mut depth = 0usize;
    let mut count = 0usize;
    loop {
        let base = match depth.checked_sub(1) {
            Some(parent) => open.get(parent)?.1,
            None => function.address,
        };
        let ranges = read_ranges(&mut cursor, base, 0).ok()?;
        if ranges.count == 0 {
            // The end of the children of the innermost open node (or an empty tree).
            let Some(parent) = depth.checked_sub(1) else {
                return Some(count);
            };
            depth = parent;
            let (node, _) = *open.get(parent)?;
            each(NodeFact::End(
                node,
                cursor.offset(),
                count.wrapping_sub(node),
            ));
        } else {
            let node = count;
            count = count.wrapping_add(1);
            each(NodeFact::Span(node, ranges.low, ranges.high));
            if read_fields(&mut cursor, file.endian).ok()?.has_children {
                *open.get_mut(depth)? = (node, ranges.first_start);
                depth = depth.wrapping_add(1);
                continue;
            }
            each(NodeFact::End(node, cursor.offset(), 1));
        }
        // Only the root is read at depth 0: its subtree is the tree.
        if depth == 0 {
            return Some(count);
        }
    }
}

fn too_small(file: &GsymFile<'_>) -> Error {
    let needed = u64::try_from(LookupIndex::words_needed(file))
        .unwrap_or(u64::MAX)
        .saturating_mul(8);
    error("lookup index", 0, ErrorKind::BufferTooSmall { needed })
}

fn overflow() -> Error {
    error("lookup index", 0, ErrorKind::Overflow)
}
