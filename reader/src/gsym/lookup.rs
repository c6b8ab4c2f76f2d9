//! Address lookup: LLVM 14's `GsymReader::lookup`, frame for frame.

use core::iter::FusedIterator;

use super::inline::{self, Chain};
use super::line_table::{LineProgram, LineRow};
use super::raw::info_type;
use super::{error, section, Function, GsymFile, Str};
use crate::{Error, ErrorKind};

/// One frame of a lookup: what `llvm-gsymutil --address` prints on one line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Frame<'a> {
    /// The function (the concrete function for the last frame, an inlined one before).
    pub name: Str<'a>,
    /// The address minus the start of the function or of the inlined call's first range.
    pub offset: u64,
    /// Directory of the source position; empty when unknown or not recorded.
    pub dir: Str<'a>,
    /// File name of the source position; empty when unknown.
    pub base: Str<'a>,
    /// Source line; 0 when unknown.
    pub line: u32,
    /// True for every frame but the last: its code was inlined into the next frame.
    pub inlined: bool,
}

impl Frame<'_> {
    /// Whether the frame has a source position (LLVM prints `@ dir/base:line` then).
    pub fn has_location(&self) -> bool {
        !self.dir.is_empty() || !self.base.is_empty()
    }
}

/// The answer for an address that a function covers; [`frames`](Self::frames) gives the
/// inline chain.
#[derive(Clone, Copy, Debug)]
pub struct Lookup<'a> {
    /// The address looked up.
    pub address: u64,
    /// The concrete function that covers it.
    pub function: Function<'a>,
    /// The line-table row of the address, when the function has a line table.
    pub row: Option<LineRow>,
    file: GsymFile<'a>,
    chain: Chain,
}

impl<'a> Lookup<'a> {
    /// The frames, innermost first: the inlined calls that cover the address, then the
    /// function itself. Without a line table there is one frame, without a position.
    /// The iterator borrows the lookup (whose inline chain is a fixed array), so it copies
    /// nothing.
    pub fn frames(&self) -> Frames<'_, 'a> {
        let mut first = Frame {
            name: self.function.name,
            offset: self.address.wrapping_sub(self.function.address),
            ..Frame::default()
        };
        if let Some(row) = self.row {
            let entry = self.file.file(row.file).unwrap_or_default();
            first.dir = entry.dir;
            first.base = entry.base;
            first.line = row.line;
        }
        Frames {
            lookup: self,
            next_node: self.chain.len,
            current: Some(first),
        }
    }
}

/// Iterator over the frames of a [`Lookup`], innermost first; never allocates.
#[derive(Clone, Debug)]
pub struct Frames<'l, 'a> {
    lookup: &'l Lookup<'a>,
    /// Chain nodes `..next_node` are still to be applied, deepest last.
    next_node: usize,
    /// The frame being built: it takes each node's name as it is applied (LLVM's
    /// `SrcLocs.back()`).
    current: Option<Frame<'a>>,
}

impl<'a> Iterator for Frames<'_, 'a> {
    type Item = Frame<'a>;

    fn next(&mut self) -> Option<Frame<'a>> {
        let current = self.current.as_mut()?;
        let (file, address) = (&self.lookup.file, self.lookup.address);
        // Apply the nodes deepest first. A node whose call file is entry {0, 0} (the
        // root, in what LLVM writes) adds no frame, exactly as in LLVM.
        while let Some(index) = self.next_node.checked_sub(1) {
            self.next_node = index;
            let Some(node) = self.lookup.chain.nodes().get(index) else {
                break;
            };
            let Some((dir, base)) = file.file_offsets(node.call_file) else {
                continue;
            };
            if dir == 0 && base == 0 {
                continue;
            }
            let inner = Frame {
                name: file.string_or_empty(node.name),
                offset: address.wrapping_sub(node.start),
                inlined: true,
                ..*current
            };
            current.dir = file.string_or_empty(dir);
            current.base = file.string_or_empty(base);
            current.line = node.call_line;
            return Some(inner);
        }
        self.current.take()
    }
}

impl FusedIterator for Frames<'_, '_> {}

impl<'a> GsymFile<'a> {
    /// The function covering `addr`, as LLVM 14 selects it: the address-table entry equal
    /// to `addr` if any (the first of equal ones), else the last one below it; it covers
    /// `addr` if its size is 0 or `addr` is inside it. `Ok(None)` when it does not (LLVM:
    /// "address is not in GSYM").
    pub fn function_at(&self, addr: u64) -> Result<Option<Function<'a>>, Error> {
        let Some(index) = self.select(addr) else {
            return Ok(None);
        };
        let function = self.function(index)?;
        Ok(function.covers(addr).then_some(function))
    }

    /// Looks `addr` up: the covering function ([`function_at`](Self::function_at)), its
    /// line-table row, and the inline chain, with the answers of LLVM 14's
    /// `GsymReader::lookup` (what `llvm-gsymutil --address` prints).
    ///
    /// `Ok(None)` when no function covers `addr`. Errors, as in LLVM: a name offset of 0;
    /// a cut FunctionInfo, line table or inline tree; a line table with no row at or
    /// below `addr` (LLVM: "address is not in the line table"); a file index past the
    /// file table; and, beyond LLVM, an inline chain deeper than
    /// [`MAX_INLINE_DEPTH`](super::MAX_INLINE_DEPTH). Chunks of unknown types are skipped.
    ///
    /// Cost: the binary search, then the function's chunk list, its line table up to
    /// `addr` and the part of its inline tree before the covering nodes.
    pub fn lookup(&self, addr: u64) -> Result<Option<Lookup<'a>>, Error> {
        self.lookup_indexed(addr, |_, _| None, |_, _| None)
    }

    /// [`lookup`](Self::lookup) with what a [`LookupIndex`](super::LookupIndex) knows of
    /// the function's chunks (given the function and the chunk's file offset):
    /// `resume` where to resume the line program (the opcode offset after a row that
    /// starts below `addr`, and that row), `subtrees` the inline tree's subtree words
    /// (see [`inline::chain`]).
    pub(crate) fn lookup_indexed<'s>(
        &self,
        addr: u64,
        resume: impl Fn(&Function<'a>, u64) -> Option<(u64, LineRow)>,
        subtrees: impl Fn(&Function<'a>, u64) -> Option<&'s [[u64; 2]]>,
    ) -> Result<Option<Lookup<'a>>, Error> {
        let Some(function) = self.function_at(addr)? else {
            return Ok(None);
        };
        if function.name_offset == 0 {
            let at = u64::from(function.info_offset).saturating_add(4);
            return Err(error(
                section::FUNCTION,
                at,
                ErrorKind::Malformed("function name offset 0"),
            ));
        }
        let mut row = None;
        let mut inline_chunk = None;
        self.chunks(&function, |chunk, data| {
            match chunk.kind {
                info_type::LINE_TABLE => {
                    let mut program =
                        LineProgram::new(self.bytes, chunk.offset, data.len(), function.address)?;
                    let found = match resume(&function, chunk.offset) {
                        Some((at, after)) => {
                            program.resume(at, after)?;
                            program.row_for_from(addr, Some(after))?
                        }
                        None => program.row_for(addr)?,
                    };
                    let Some(found) = found else {
                        return Err(error(
                            section::LINE_TABLE,
                            chunk.offset,
                            ErrorKind::Malformed("address not in the function's line table"),
                        ));
                    };
                    row = Some((found, chunk.offset));
                }
                info_type::INLINE_INFO => inline_chunk = Some((chunk.offset, data.len())),
                _ => {}
            }
            Ok(())
        })?;
        let mut lookup = Lookup {
            address: addr,
            function,
            row: None,
            file: *self,
            chain: Chain::EMPTY,
        };
        // Without a line row LLVM answers the function alone, inline tree or not.
        let Some((row, row_at)) = row else {
            return Ok(Some(lookup));
        };
        self.check_file(row.file, section::LINE_TABLE, row_at)?;
        lookup.row = Some(row);
        if let Some((offset, len)) = inline_chunk {
            let (bytes, endian, start) = (self.bytes, self.endian, function.address);
            let subtrees = subtrees(&function, offset);
            inline::chain(
                bytes,
                endian,
                offset,
                len,
                start,
                addr,
                &mut lookup.chain,
                subtrees,
            )?;
            for node in lookup.chain.nodes().iter().rev() {
                self.check_file(node.call_file, section::INLINE, offset)?;
            }
        }
        Ok(Some(lookup))
    }

    /// An error unless `index` is an entry of the file table.
    pub(crate) fn check_file(
        &self,
        index: u32,
        section: &'static str,
        at: u64,
    ) -> Result<(), Error> {
        if self.file_offsets(index).is_some() {
            return Ok(());
        }
        Err(error(
            section,
            at,
            ErrorKind::OutOfRange {
                value: u64::from(index),
                limit: super::to_u64(self.file_count()),
            },
        ))
    }
}
