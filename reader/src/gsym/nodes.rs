//! A function's whole inline tree, node by node: what a reader needs to carry every
//! inlined call of a GSYM file elsewhere (a lookup reads only the nodes that cover one
//! address). The walk reuses the lookup's node decoding, keeps the open levels in a
//! fixed array instead of recursing, and allocates nothing.

use core::iter::FusedIterator;

use super::function::cursor_at;
use super::inline::{read_fields, read_ranges, MAX_INLINE_DEPTH};
use super::raw::info_type;
use super::section::INLINE;
use super::{error, Function, GsymFile, Str};
use crate::cursor::Cursor;
use crate::varint::read_uleb128;
use crate::{Error, ErrorKind};

/// One address range of an inline node: `start..end`, where `end` is the start plus the
/// stored size (a 64-bit sum that wraps, as in LLVM).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InlineRange {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
}

/// The ranges of one [`InlineNode`], decoded from the file as they are iterated (no
/// copy): in stored order, each relative to the parent's first range start (the
/// function's start for the root).
#[derive(Clone, Debug)]
pub struct InlineRanges<'a> {
    cursor: Cursor<'a>,
    base: u64,
    left: u64,
}

impl InlineRanges<'_> {
    /// The number of ranges not yet iterated.
    pub fn remaining(&self) -> u64 {
        self.left
    }
}

impl Iterator for InlineRanges<'_> {
    type Item = InlineRange;

    fn next(&mut self) -> Option<InlineRange> {
        self.left = self.left.checked_sub(1)?;
        // The node was decoded whole before it was handed out, so these reads succeed;
        // should one fail, the iteration ends.
        let offset = read_uleb128(&mut self.cursor, INLINE);
        let size = read_uleb128(&mut self.cursor, INLINE);
        let (Ok(offset), Ok(size)) = (offset, size) else {
            self.left = 0;
            return None;
        };
        let start = self.base.wrapping_add(offset);
        Some(InlineRange {
            start,
            end: start.wrapping_add(size),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, usize::try_from(self.left).ok())
    }
}

impl FusedIterator for InlineRanges<'_> {}

/// One node of a function's inline tree: the root (depth 0, the function itself, with
/// call file 0 in what LLVM writes) or an inlined call.
#[derive(Clone, Debug)]
pub struct InlineNode<'a> {
    /// Nesting depth: 0 for the root, its children 1, and so on; always below
    /// [`MAX_INLINE_DEPTH`].
    pub depth: usize,
    /// File offset of the node (its range count).
    pub offset: u64,
    /// How many address ranges the node has (at least one).
    pub range_count: u64,
    /// The node's address ranges, absolute.
    pub ranges: InlineRanges<'a>,
    /// Start of the first range: what the node's children's ranges, and a lookup's frame
    /// offset, are counted from.
    pub first_start: u64,
    /// The name (empty when its offset is 0 or outside the string table).
    pub name: Str<'a>,
    /// The name's string-table offset, as stored.
    pub name_offset: u32,
    /// File-table index of the call site (see [`GsymFile::file`]); a node whose entry is
    /// the empty `{0, 0}` one adds no frame to a lookup.
    pub call_file: u32,
    /// Line of the call site.
    pub call_line: u32,
    /// Whether child nodes follow this one (the next nodes of the walk with
    /// `depth + 1`, up to the next node of this depth or less).
    pub has_children: bool,
}

/// Every node of a function's inline tree, depth first (a node, then its children in
/// stored order); see [`GsymFile::inline_nodes`].
///
/// Decoding errors (a cut node, a bad LEB128) and nesting deeper than
/// [`MAX_INLINE_DEPTH`] end the walk with one `Err` item naming the offset. The walk uses
/// a fixed array of [`MAX_INLINE_DEPTH`] start addresses and no recursion.
#[derive(Clone, Debug)]
pub struct InlineNodes<'a> {
    file: GsymFile<'a>,
    cursor: Cursor<'a>,
    /// The function's start: the root's ranges are counted from it.
    start: u64,
    /// For each open list of children, the first range start of its parent.
    bases: [u64; MAX_INLINE_DEPTH],
    /// Open lists of children: the depth of the next node.
    open: usize,
    done: bool,
}

impl<'a> InlineNodes<'a> {
    /// The next node, or `None` at the end of the tree.
    fn step(&mut self) -> Result<Option<InlineNode<'a>>, Error> {
        // Every pass reads at least one byte of a bounded chunk: the loop ends.
        loop {
            let at = self.cursor.offset();
            let mut ranges_at = self.cursor.clone();
            let base = match self.open.checked_sub(1) {
                Some(level) => self.bases.get(level).copied().unwrap_or(self.start),
                None => self.start,
            };
            let ranges = read_ranges(&mut self.cursor, base, 0)?;
            if ranges.count == 0 {
                // An empty tree, or the end of a list of children; the tree ends when
                // the root's list closes.
                self.open = self.open.saturating_sub(1);
                if self.open == 0 {
                    return Ok(None);
                }
                continue;
            }
            let fields = read_fields(&mut self.cursor, self.file.endian)?;
            let depth = self.open;
            if fields.has_children {
                // Children sit one level deeper; a chain holds MAX_INLINE_DEPTH nodes
                // (the limit of lookups and `validate`).
                let slot = self
                    .bases
                    .get_mut(depth)
                    .filter(|_| depth.saturating_add(1) < MAX_INLINE_DEPTH);
                let Some(slot) = slot else {
                    return Err(error(
                        INLINE,
                        at,
                        ErrorKind::Malformed("inline chain deeper than MAX_INLINE_DEPTH"),
                    ));
                };
                *slot = ranges.first_start;
                self.open = depth.saturating_add(1);
            } else if depth == 0 {
                // A root without children is the whole tree.
                self.done = true;
            }
            // The count decoded a moment ago decodes again.
            let count = read_uleb128(&mut ranges_at, INLINE).unwrap_or(0);
            return Ok(Some(InlineNode {
                depth,
                offset: at,
                range_count: count,
                ranges: InlineRanges {
                    cursor: ranges_at,
                    base,
                    left: count,
                },
                first_start: ranges.first_start,
                name: self.file.string_or_empty(fields.name),
                name_offset: fields.name,
                call_file: fields.call_file,
                call_line: fields.call_line,
                has_children: fields.has_children,
            }));
        }
    }
}

impl<'a> Iterator for InlineNodes<'a> {
    type Item = Result<InlineNode<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.step().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}

impl FusedIterator for InlineNodes<'_> {}

impl<'a> GsymFile<'a> {
    /// Every node of `function`'s inline tree (its last inline-info chunk, the one
    /// lookups use), depth first, or `None` when it has none.
    ///
    /// Nothing is allocated and nothing is checked ahead: each node is decoded when the
    /// iterator reaches it, and damage there is an `Err` item (see [`InlineNodes`]).
    /// Ranges are given as stored; [`validate`](Self::validate) is what checks that they
    /// are sorted, non-empty and inside their parent's. Fails when the FunctionInfo
    /// record or its chunk list is damaged.
    ///
    /// ```
    /// # fn walk(gsym: &symblob::gsym::GsymFile<'_>) -> Result<(), symblob::Error> {
    /// for function in gsym.functions() {
    ///     let function = function?;
    ///     let Some(nodes) = gsym.inline_nodes(&function)? else { continue };
    ///     for node in nodes {
    ///         let node = node?;
    ///         for range in node.ranges.clone() {
    ///             println!("{:2} {:#x}..{:#x} {} called at file {} line {}", node.depth,
    ///                 range.start, range.end, node.name, node.call_file, node.call_line);
    ///         }
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn inline_nodes(&self, function: &Function<'a>) -> Result<Option<InlineNodes<'a>>, Error> {
        let mut found = None;
        self.chunks(function, |chunk, data| {
            if chunk.kind == info_type::INLINE_INFO {
                found = Some((chunk.offset, data.len()));
            }
            Ok(())
        })?;
        let Some((offset, len)) = found else {
            return Ok(None);
        };
        let end = offset.saturating_add(u64::try_from(len).unwrap_or(u64::MAX));
        let cursor = cursor_at(self.bytes, offset, end, INLINE)?;
        Ok(Some(InlineNodes {
            file: *self,
            cursor,
            start: function.address,
            bases: [0; MAX_INLINE_DEPTH],
            open: 0,
            done: false,
        }))
    }
}
