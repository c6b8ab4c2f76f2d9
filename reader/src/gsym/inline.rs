//! The inline-info chunk: a tree of inlined calls written depth first, read without
//! recursion and without allocation.
//!
//! Each node is: ULEB128 range count R (0 ends a list of siblings); R × (ULEB128 offset
//! from the parent's first range start — the function's start for the root —, ULEB128
//! size); `u8` has-children; `u32` name; ULEB128 call file; ULEB128 call line; then, if it
//! has children, the children and a terminating 0.

use super::function::cursor_at;
use super::line_table::low32;
use super::lookup_index::UNKNOWN_SPAN;
use super::section::INLINE;
use super::{error, Endian};
use crate::cursor::Cursor;
use crate::varint::read_uleb128;
use crate::{Error, ErrorKind};

/// The deepest inline chain a lookup follows. LLVM recurses without a limit; a reader
/// that must not allocate or overflow its stack stops here with an error. Real programs
/// stay far below (a few tens of levels).
pub const MAX_INLINE_DEPTH: usize = 64;

/// One node of the chain that covers an address.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Node {
    pub(crate) name: u32,
    pub(crate) call_file: u32,
    pub(crate) call_line: u32,
    /// Start of the node's first range: what its children's offsets and the frame's
    /// offset are counted from.
    pub(crate) start: u64,
}

/// The chain of nodes that cover an address, root first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chain {
    pub(crate) nodes: [Node; MAX_INLINE_DEPTH],
    pub(crate) len: usize,
}

impl Chain {
    pub(crate) const EMPTY: Chain = Chain {
        nodes: [Node {
            name: 0,
            call_file: 0,
            call_line: 0,
            start: 0,
        }; MAX_INLINE_DEPTH],
        len: 0,
    };

    /// The nodes in use, root first.
    pub(crate) fn nodes(&self) -> &[Node] {
        self.nodes.get(..self.len).unwrap_or(&[])
    }
}

/// The ranges of one node: how many, the start of the first, whether one covers the
/// probed address, and the smallest and largest address they span.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ranges {
    pub(crate) count: u64,
    pub(crate) first_start: u64,
    pub(crate) covers: bool,
    /// Whether every range is non-empty, in ascending order and apart from the previous
    /// one (what LLVM's binary search in `AddressRanges::contains` assumes).
    pub(crate) ordered: bool,
    pub(crate) low: u64,
    pub(crate) high: u64,
}

/// The fields after a node's ranges.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeFields {
    pub(crate) has_children: bool,
    pub(crate) name: u32,
    pub(crate) call_file: u32,
    pub(crate) call_line: u32,
}

/// Reads a node's ranges relative to `base`, testing each against `addr`.
pub(crate) fn read_ranges(cursor: &mut Cursor<'_>, base: u64, addr: u64) -> Result<Ranges, Error> {
    let count = read_uleb128(cursor, INLINE)?;
    let mut ranges = Ranges {
        count,
        first_start: base,
        covers: false,
        ordered: true,
        low: u64::MAX,
        high: 0,
    };
    let mut previous_end = None;
    // Each range takes at least two bytes: a bad count runs out of data, not time.
    for i in 0..count {
        let start = base.wrapping_add(read_uleb128(cursor, INLINE)?);
        let end = start.wrapping_add(read_uleb128(cursor, INLINE)?);
        if i == 0 {
            ranges.first_start = start;
        }
        ranges.covers |= start <= addr && addr < end;
        ranges.ordered &= start < end && previous_end.is_none_or(|e| e <= start);
        previous_end = Some(end);
        ranges.low = ranges.low.min(start);
        ranges.high = ranges.high.max(end);
    }
    Ok(ranges)
}

/// Reads the fields that follow a node's ranges.
pub(crate) fn read_fields(cursor: &mut Cursor<'_>, endian: Endian) -> Result<NodeFields, Error> {
    let has_children = cursor.byte(INLINE)? != 0;
    let name = endian.read_u32(cursor, INLINE)?;
    let call_file = low32(read_uleb128(cursor, INLINE)?);
    let call_line = low32(read_uleb128(cursor, INLINE)?);
    Ok(NodeFields {
        has_children,
        name,
        call_file,
        call_line,
    })
}

/// Skips the rest of a node whose ranges were read, with all its descendants. A depth
/// counter replaces recursion: a node with children opens a list, a range count of 0
/// closes one.
fn skip_node(cursor: &mut Cursor<'_>, endian: Endian) -> Result<(), Error> {
    let mut open: u64 = 0;
    let mut fields = read_fields(cursor, endian)?;
    loop {
        if fields.has_children {
            open = open.saturating_add(1);
        }
        // Find the next node that has ranges, closing lists on the way.
        loop {
            if open == 0 {
                return Ok(());
            }
            let count = read_uleb128(cursor, INLINE)?;
            if count != 0 {
                for _ in 0..count {
                    read_uleb128(cursor, INLINE)?;
                    read_uleb128(cursor, INLINE)?;
                }
                break;
            }
            open = open.saturating_sub(1);
        }
        fields = read_fields(cursor, endian)?;
    }
}

/// The chain of nodes covering `addr` in the inline tree at file offset `offset` (`len`
/// bytes) of a function starting at `start`, as LLVM's `InlineInfo::lookup` finds it:
/// the root if it covers `addr`, then in each covering node's children the first that
/// covers it. Siblings before it are read but not kept.
///
/// With `subtrees` (a [`LookupIndex`](super::LookupIndex)'s words for this tree: for
/// node `k` in depth-first order, the offset after its subtree, its number of nodes and
/// its span), a child whose span does not hold `addr` is stepped over without reading
/// it, and one whose ranges do not cover `addr` without decoding its subtree.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chain(
    bytes: &[u8],
    endian: Endian,
    offset: u64,
    len: usize,
    start: u64,
    addr: u64,
    chain: &mut Chain,
    subtrees: Option<&[[u64; 2]]>,
) -> Result<(), Error> {
    // The depth-first number of the node about to be read, and of the first node after
    // the children being read (where their list ends).
    let mut node = 0usize;
    let mut children_end = usize::MAX;
    let relative = addr.wrapping_sub(start);
    let end = offset.saturating_add(u64::try_from(len).unwrap_or(u64::MAX));
    let mut cursor = cursor_at(bytes, offset, end, INLINE)?;
    chain.len = 0;
    let mut base = start;
    let mut root = true;
    loop {
        // Node `node`'s words: its subtree (end offset, size) and its span.
        let words = subtrees.and_then(|w| w.get(node));
        if let Some(&[subtree, span]) = words.filter(|_| !root) {
            if node >= children_end {
                return Ok(()); // the end of the children: the chain ends at the parent
            }
            let (low, high) = (span & 0xffff_ffff, span >> 32);
            if span != UNKNOWN_SPAN && !(low <= relative && relative < high) {
                cursor = cursor_at(bytes, subtree & 0xffff_ffff, end, INLINE)?;
                node = node.wrapping_add(usize::try_from(subtree >> 32).unwrap_or(usize::MAX));
                continue;
            }
        }
        let at = cursor.offset();
        let ranges = read_ranges(&mut cursor, base, addr)?;
        if ranges.count == 0 {
            // An empty root, or the end of the children: the chain ends at the parent.
            return Ok(());
        }
        if !ranges.covers {
            match words {
                Some(&[word, _]) => {
                    cursor = cursor_at(bytes, word & 0xffff_ffff, end, INLINE)?;
                    node = node.wrapping_add(usize::try_from(word >> 32).unwrap_or(usize::MAX));
                }
                None => skip_node(&mut cursor, endian)?,
            }
            if root {
                return Ok(());
            }
            continue;
        }
        let fields = read_fields(&mut cursor, endian)?;
        let Some(slot) = chain.nodes.get_mut(chain.len) else {
            return Err(error(
                INLINE,
                at,
                ErrorKind::Malformed("inline chain deeper than MAX_INLINE_DEPTH"),
            ));
        };
        *slot = Node {
            name: fields.name,
            call_file: fields.call_file,
            call_line: fields.call_line,
            start: ranges.first_start,
        };
        chain.len = chain.len.saturating_add(1);
        if !fields.has_children {
            return Ok(());
        }
        let size = words.map(|[subtree, _]| subtree >> 32);
        children_end = node
            .wrapping_add(size.map_or(usize::MAX, |s| usize::try_from(s).unwrap_or(usize::MAX)));
        node = node.wrapping_add(1);
        base = ranges.first_start;
        root = false;
    }
}
