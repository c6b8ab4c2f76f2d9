//! The line-table chunk: a small program of opcodes that pushes (address, file, line)
//! rows, run on the fly from the chunk's bytes (LLVM's `LineTable::lookup`).

use super::function::cursor_at;
use super::raw::opcode;
use super::section::LINE_TABLE;
use super::{error, to_u64};
use crate::cursor::Cursor;
use crate::varint::{read_sleb128, read_uleb128};
use crate::{Error, ErrorKind};

/// One row of a line table: addresses from `address` on belong to `file:line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LineRow {
    /// First address of the row.
    pub address: u64,
    /// Index into the file table (0 is the empty file).
    pub file: u32,
    /// Source line.
    pub line: u32,
}

/// The low 32 bits of `value`: LLVM keeps lines and file indexes in `uint32_t`, so a
/// wider value is truncated, and a line delta wraps.
pub(crate) fn low32(value: u64) -> u32 {
    let [a, b, c, d, ..] = value.to_le_bytes();
    u32::from_le_bytes([a, b, c, d])
}

/// A running line-table program.
pub(crate) struct LineProgram<'a> {
    cursor: Cursor<'a>,
    min_delta: i64,
    /// `max_delta - min_delta + 1`; `None` when that is not a positive `i64`, which
    /// only a special opcode needs (LLVM would divide by it).
    line_range: Option<i64>,
    /// For a line range of at most 255: the range and ⌈2¹⁶ / range⌉, whose product
    /// with an adjusted opcode (below 256), shifted right by 16, is the exact quotient
    /// (the error a·(m − 2¹⁶/r)/2¹⁶ stays below 1/256, less than the gap 1/r to the next
    /// integer); a division per row costs several times as much.
    reciprocal: Option<(u32, u32)>,
    row: LineRow,
}

impl<'a> LineProgram<'a> {
    /// Starts the program of the chunk at file offset `offset` of `len` bytes, for a
    /// function starting at `start`: reads the minimum and maximum line deltas and the
    /// first line.
    pub(crate) fn new(bytes: &'a [u8], offset: u64, len: usize, start: u64) -> Result<Self, Error> {
        let end = offset.saturating_add(u64::try_from(len).unwrap_or(u64::MAX));
        let mut cursor = cursor_at(bytes, offset, end, LINE_TABLE)?;
        let min_delta = read_sleb128(&mut cursor, LINE_TABLE)?;
        let max_delta = read_sleb128(&mut cursor, LINE_TABLE)?;
        let first_line = read_uleb128(&mut cursor, LINE_TABLE)?;
        let line_range = max_delta
            .checked_sub(min_delta)
            .and_then(|d| d.checked_add(1))
            .filter(|&r| r > 0);
        let reciprocal = line_range
            .and_then(|r| u32::try_from(r).ok())
            .filter(|&r| r <= 255)
            .and_then(|r| Some((r, 0xffffu32.checked_div(r)?.wrapping_add(1))));
        Ok(LineProgram {
            cursor,
            min_delta,
            line_range,
            reciprocal,
            row: LineRow {
                address: start,
                file: 1,
                line: low32(first_line),
            },
        })
    }

    /// Moves the program to the state a [`LookupIndex`](super::LookupIndex) checkpoint
    /// recorded: the cursor at file offset `at` (inside the chunk), `row` the last row
    /// pushed before it.
    pub(crate) fn resume(&mut self, at: u64, row: LineRow) -> Result<(), Error> {
        let data = self.cursor.data();
        self.cursor = cursor_at(data, at, to_u64(data.len()), LINE_TABLE)?;
        self.row = row;
        Ok(())
    }

    /// The file offset of the next opcode.
    pub(crate) fn offset(&self) -> u64 {
        self.cursor.offset()
    }

    /// The next row the program pushes, or `None` at the end-sequence opcode. Running
    /// out of bytes before it, a bad LEB128, or a special opcode with an empty line range
    /// (minimum delta above the maximum) is an error at the opcode.
    pub(crate) fn next_row(&mut self) -> Result<Option<LineRow>, Error> {
        let mut row = self.row;
        let next = self.step(&mut row);
        self.row = row;
        next
    }

    /// [`next_row`](Self::next_row) on a row state the caller keeps: in a loop of its
    /// own, in registers (written back to the program after each row, the state's
    /// fields are stored and reloaded at different widths, which stalls every row).
    #[inline(always)]
    fn step(&mut self, row: &mut LineRow) -> Result<Option<LineRow>, Error> {
        // Every opcode consumes at least one byte, so a caller's loop ends.
        loop {
            let at = self.cursor.offset();
            let op = self.cursor.byte(LINE_TABLE)?;
            match op {
                opcode::END_SEQUENCE => return Ok(None),
                opcode::SET_FILE => {
                    row.file = low32(read_uleb128(&mut self.cursor, LINE_TABLE)?);
                }
                opcode::ADVANCE_PC => {
                    let delta = read_uleb128(&mut self.cursor, LINE_TABLE)?;
                    row.address = row.address.wrapping_add(delta);
                    return Ok(Some(*row));
                }
                opcode::ADVANCE_LINE => {
                    let delta = read_sleb128(&mut self.cursor, LINE_TABLE)?;
                    row.line = row.line.wrapping_add(low32(delta.cast_unsigned()));
                }
                special => {
                    if self.line_range.is_none() {
                        return Err(error(
                            LINE_TABLE,
                            at,
                            ErrorKind::Malformed("special opcode with an empty line range"),
                        ));
                    }
                    let adjusted = u32::from(special.saturating_sub(opcode::FIRST_SPECIAL));
                    let (addr_delta, line_offset) = match self.reciprocal {
                        Some((r, m)) => {
                            let q = adjusted.wrapping_mul(m) >> 16;
                            (q, adjusted.wrapping_sub(q.wrapping_mul(r)))
                        }
                        // A range above 255 exceeds every adjusted opcode.
                        None => (0, adjusted),
                    };
                    let (addr_delta, line_offset) = (i64::from(addr_delta), i64::from(line_offset));
                    let line_delta = self.min_delta.wrapping_add(line_offset);
                    row.line = row.line.wrapping_add(low32(line_delta.cast_unsigned()));
                    row.address = row.address.wrapping_add(addr_delta.cast_unsigned());
                    return Ok(Some(*row));
                }
            }
        }
    }

    /// The row LLVM 14's `LineTable::lookup` answers for `addr`: running the program,
    /// the first row that starts at `addr`, else the last row pushed before one that
    /// starts above it. (Several rows often start at one address, one per inlined call
    /// that begins there; LLVM 14 takes the first, later LLVM sources the last.) `None`
    /// when no row starts at or below `addr`, or the row's file index is 0 (LLVM:
    /// "address is not in the line table"). Rows after the answer are not read.
    #[cfg(test)]
    pub(crate) fn row_for(self, addr: u64) -> Result<Option<LineRow>, Error> {
        Ok(self.row_for_from(addr, None)?.map(|(row, _)| row))
    }

    /// [`row_for`](Self::row_for) of a program resumed after the row `found`, which
    /// starts below `addr` (so does every row before it: an indexed table is sorted),
    /// with the opcode offset after the row answered (a row that starts below a later
    /// address, to resume after).
    pub(crate) fn row_for_from(
        mut self,
        addr: u64,
        mut found: Option<(LineRow, u64)>,
    ) -> Result<Option<(LineRow, u64)>, Error> {
        let mut state = self.row;
        while let Some(row) = self.step(&mut state)? {
            if addr < row.address {
                break;
            }
            found = Some((row, self.cursor.offset()));
            if addr == row.address {
                break;
            }
        }
        Ok(found.filter(|(row, _)| row.file != 0))
    }
}

/// The rows of a function's line table, in program order; see
/// [`GsymFile::line_rows`](super::GsymFile::line_rows). A damaged program ends the
/// iteration with one `Err` item.
pub struct LineRows<'a> {
    program: Option<LineProgram<'a>>,
}

impl Iterator for LineRows<'_> {
    type Item = Result<LineRow, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let program = self.program.as_mut()?;
        let item = program.next_row().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.program = None;
        }
        item
    }
}

impl core::iter::FusedIterator for LineRows<'_> {}

impl<'a> super::GsymFile<'a> {
    /// The rows of `function`'s line table (its last line-table chunk, the one lookups
    /// use), or `None` when it has none. Fails when the record or the table's header is
    /// damaged.
    pub fn line_rows(&self, function: &super::Function<'a>) -> Result<Option<LineRows<'a>>, Error> {
        let mut found = None;
        self.chunks(function, |chunk, data| {
            if chunk.kind == super::raw::info_type::LINE_TABLE {
                found = Some((chunk.offset, data.len()));
            }
            Ok(())
        })?;
        let Some((offset, len)) = found else {
            return Ok(None);
        };
        let program = LineProgram::new(self.bytes, offset, len, function.address)?;
        Ok(Some(LineRows {
            program: Some(program),
        }))
    }
}

#[cfg(test)]
mod reciprocal_tests {
    /// The quotient by multiplication equals the division for every range a reciprocal
    /// is used for and every adjusted opcode.
    #[test]
    fn reciprocal_quotients_are_exact() {
        for r in 1u32..=255 {
            let m = 0xffff / r + 1;
            assert_eq!(m, 0x1_0000u32.div_ceil(r));
            for a in 0u32..256 {
                assert_eq!(a.wrapping_mul(m) >> 16, a / r, "{a} / {r}");
            }
        }
    }
}
