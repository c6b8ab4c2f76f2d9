//! Address lookup: LLVM 14's `GsymReader::lookup`, frame for frame.

use core::iter::FusedIterator;

use super::inline::{self, Chain};
use super::line_table::{LineProgram, LineRow};
use super::raw::info_type;
use super::{error, section, FileEntry, Function, GsymFile, Str};
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
    /// The file-table entry of the row's file, with its index: set with the row.
    row_file: Option<(u32, FileEntry<'a>)>,
    chain: Chain,
}

/// A function and the chunks its lookups read ([`GsymFile::locate`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located<'a> {
    pub(crate) function: Function<'a>,
    /// `None` when lookups must walk the chunk list themselves.
    chunks: Option<LookupChunks>,
}

/// Where a lookup left a function's line program: at opcode offset `at` of the table at
/// file offset `chunk`, after `row`, the row it answered.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineStop {
    pub(crate) chunk: u64,
    pub(crate) at: u64,
    pub(crate) row: LineRow,
}

/// The line-table and inline-info chunks of a function (file offset, length).
#[derive(Clone, Copy, Debug)]
struct LookupChunks {
    line: Option<(u64, usize)>,
    inline: Option<(u64, usize)>,
}

impl<'a> Lookup<'a> {
    /// A lookup to be filled in by [`GsymFile::answer`].
    pub(crate) fn empty(file: GsymFile<'a>) -> Self {
        Lookup {
            address: 0,
            function: Function::default(),
            row: None,
            file,
            row_file: None,
            chain: Chain::EMPTY,
        }
    }

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
            // Set with the row (see `GsymFile::answer`).
            let entry = self.row_file.map(|(_, entry)| entry).unwrap_or_default();
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
    /// the function's chunks (see [`answer`](Self::answer)).
    pub(crate) fn lookup_indexed<'s>(
        &self,
        addr: u64,
        resume: impl Fn(&Function<'a>, u64) -> Option<(u64, LineRow)>,
        subtrees: impl Fn(&Function<'a>, u64) -> Option<&'s [[u64; 2]]>,
    ) -> Result<Option<Lookup<'a>>, Error> {
        let Some(function) = self.function_at(addr)? else {
            return Ok(None);
        };
        let located = self.locate(function)?;
        let mut lookup = Lookup::empty(*self);
        self.answer(&located, addr, &mut lookup, resume, subtrees)?;
        Ok(Some(lookup))
    }

    /// The chunks of `function` that its lookups read, found by one walk of its chunk
    /// list. Fails as a lookup does before it reads any chunk: on a name offset of 0.
    pub(crate) fn locate(&self, function: Function<'a>) -> Result<Located<'a>, Error> {
        if function.name_offset == 0 {
            let at = u64::from(function.info_offset).saturating_add(4);
            return Err(error(
                section::FUNCTION,
                at,
                ErrorKind::Malformed("function name offset 0"),
            ));
        }
        let (mut line, mut inline, mut line_tables) = (None, None, 0u32);
        let walked = self.chunks(&function, |chunk, data| {
            match chunk.kind {
                info_type::LINE_TABLE => {
                    line = Some((chunk.offset, data.len()));
                    line_tables = line_tables.saturating_add(1);
                }
                info_type::INLINE_INFO => inline = Some((chunk.offset, data.len())),
                _ => {}
            }
            Ok(())
        });
        // A lookup decodes each line table as the walk meets it: with a damaged list or
        // several tables, which error comes first depends on that order, so such a
        // record is looked up by the walk itself.
        let chunks = (walked.is_ok() && line_tables <= 1).then_some(LookupChunks { line, inline });
        Ok(Located { function, chunks })
    }

    /// Fills `lookup` with the answer for `addr`, which `located`'s function covers: its
    /// line-table row and inline chain, with the answers and errors of LLVM 14's
    /// `GsymReader::lookup` (see [`lookup`](Self::lookup)). Returns where the line
    /// program stopped: after the row answered.
    ///
    /// From a [`LookupIndex`](super::LookupIndex) (given the function and the chunk's
    /// file offset): `resume` where to resume the line program (the opcode offset after a
    /// row that starts below `addr`, and that row), `subtrees` the inline tree's subtree
    /// words (see [`inline::chain`]).
    pub(crate) fn answer<'s>(
        &self,
        located: &Located<'a>,
        addr: u64,
        lookup: &mut Lookup<'a>,
        resume: impl Fn(&Function<'a>, u64) -> Option<(u64, LineRow)>,
        subtrees: impl Fn(&Function<'a>, u64) -> Option<&'s [[u64; 2]]>,
    ) -> Result<Option<LineStop>, Error> {
        let function = located.function;
        lookup.address = addr;
        lookup.function = function;
        lookup.row = None;
        lookup.chain.len = 0;
        let row_at = |offset: u64, len: usize| -> Result<LineStop, Error> {
            let mut program = LineProgram::new(self.bytes, offset, len, function.address)?;
            let found = match resume(&function, offset) {
                Some((at, after)) => {
                    program.resume(at, after)?;
                    program.row_for_from(addr, Some((after, at)))?
                }
                None => program.row_for_from(addr, None)?,
            };
            let (row, at) = found.ok_or_else(|| {
                error(
                    section::LINE_TABLE,
                    offset,
                    ErrorKind::Malformed("address not in the function's line table"),
                )
            })?;
            Ok(LineStop {
                chunk: offset,
                at,
                row,
            })
        };
        let (row, inline_chunk) = match located.chunks {
            Some(chunks) => {
                let row = chunks
                    .line
                    .map(|(offset, len)| row_at(offset, len))
                    .transpose()?;
                (row, chunks.inline)
            }
            None => {
                let (mut row, mut inline_chunk) = (None, None);
                self.chunks(&function, |chunk, data| {
                    match chunk.kind {
                        info_type::LINE_TABLE => row = Some(row_at(chunk.offset, data.len())?),
                        info_type::INLINE_INFO => inline_chunk = Some((chunk.offset, data.len())),
                        _ => {}
                    }
                    Ok(())
                })?;
                (row, inline_chunk)
            }
        };
        // Without a line row LLVM answers the function alone, inline tree or not.
        let Some(stop) = row else {
            return Ok(None);
        };
        // A lookup filled again in place keeps the entry while its rows share the file.
        if lookup
            .row_file
            .is_none_or(|(index, _)| index != stop.row.file)
        {
            self.check_file(stop.row.file, section::LINE_TABLE, stop.chunk)?;
            let entry = self.file(stop.row.file).unwrap_or_default();
            lookup.row_file = Some((stop.row.file, entry));
        }
        lookup.row = Some(stop.row);
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
        Ok(Some(stop))
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
