//! The full check: every table entry, every FunctionInfo, every line table and inline
//! tree decoded once, in O(file size).

use super::function::cursor_at;
use super::inline::{read_fields, read_ranges, MAX_INLINE_DEPTH};
use super::line_table::LineProgram;
use super::raw::{info_type, FILE_ENTRY_SIZE, HEADER_SIZE};
use super::{error, section, to_u64, Function, GsymFile};
use crate::{Error, ErrorKind};

impl GsymFile<'_> {
    /// Decodes everything and reports the first damage, with its section and offset:
    ///
    /// * the address table out of order ([`ErrorKind::Unsorted`]);
    /// * a file-table string offset outside the string table;
    /// * for every function: a FunctionInfo offset outside the file, a cut record or
    ///   chunk, a name offset of 0 or outside the string table;
    /// * line tables: a bad LEB128, a special opcode with an empty line range, no
    ///   end-sequence opcode, rows out of address order, a file index past the file table;
    /// * inline trees: a cut node, ranges that are empty, unsorted or overlapping, a child
    ///   range outside its parent's span, a name outside the string table, a call file
    ///   past the file table, nesting deeper than [`MAX_INLINE_DEPTH`].
    ///
    /// Chunks of unknown types are accepted, as LLVM's lookups skip them (its full decode
    /// refuses them). After `validate` succeeds, a lookup fails only where LLVM's does:
    /// for an address its function's line table does not cover.
    pub fn validate(&self) -> Result<(), Error> {
        let size = u64::from(self.header.addr_off_size);
        if let Some(index) = self.first_unsorted_address() {
            let at = to_u64(HEADER_SIZE).saturating_add(to_u64(index).saturating_mul(size));
            return Err(error(section::ADDRESSES, at, ErrorKind::Unsorted));
        }
        for index in 0..self.file_count() {
            let at = self
                .files_at
                .saturating_add(to_u64(index).saturating_mul(FILE_ENTRY_SIZE));
            let (dir, base) = self
                .file_offsets(u32::try_from(index).unwrap_or(u32::MAX))
                .unwrap_or((0, 0));
            self.check_string(dir, section::FILES, at)?;
            self.check_string(base, section::FILES, at.saturating_add(4))?;
        }
        for function in self.functions() {
            self.validate_function(&function?)?;
        }
        Ok(())
    }

    /// An error unless `offset` is 0 or inside the string table.
    fn check_string(&self, offset: u32, section: &'static str, at: u64) -> Result<(), Error> {
        if offset == 0 || self.string(offset).is_some() {
            return Ok(());
        }
        Err(error(
            section,
            at,
            ErrorKind::OutOfRange {
                value: u64::from(offset),
                limit: u64::from(self.header.strtab_size),
            },
        ))
    }

    fn validate_function(&self, function: &Function<'_>) -> Result<(), Error> {
        let name_at = u64::from(function.info_offset).saturating_add(4);
        if function.name_offset == 0 {
            return Err(error(
                section::FUNCTION,
                name_at,
                ErrorKind::Malformed("function name offset 0"),
            ));
        }
        self.check_string(function.name_offset, section::FUNCTION, name_at)?;
        self.chunks(function, |chunk, data| {
            match chunk.kind {
                info_type::LINE_TABLE => self.validate_lines(function, chunk.offset, data.len())?,
                info_type::INLINE_INFO => {
                    self.validate_inline(function, chunk.offset, data.len())?
                }
                _ => {}
            }
            Ok(())
        })
    }

    fn validate_lines(
        &self,
        function: &Function<'_>,
        offset: u64,
        len: usize,
    ) -> Result<(), Error> {
        let mut program = LineProgram::new(self.bytes, offset, len, function.address)?;
        let mut previous = function.address;
        while let Some(row) = program.next_row()? {
            if row.address < previous {
                return Err(error(section::LINE_TABLE, offset, ErrorKind::Unsorted));
            }
            previous = row.address;
            self.check_file(row.file, section::LINE_TABLE, offset)?;
        }
        Ok(())
    }

    /// Walks the whole tree without recursion: `spans` holds, for each open list of
    /// children, the parent's span and first range start.
    fn validate_inline(
        &self,
        function: &Function<'_>,
        offset: u64,
        len: usize,
    ) -> Result<(), Error> {
        let end = offset.saturating_add(to_u64(len));
        let mut cursor = cursor_at(self.bytes, offset, end, section::INLINE)?;
        let mut spans = [(0u64, 0u64, 0u64); MAX_INLINE_DEPTH];
        let mut depth = 0usize;
        let mut base = function.address;
        loop {
            let at = cursor.offset();
            let ranges = read_ranges(&mut cursor, base, 0)?;
            let bad = |what| Err(error(section::INLINE, at, ErrorKind::Malformed(what)));
            if ranges.count == 0 {
                // The end of a list of children (or an empty root).
                depth = depth.saturating_sub(1);
                match depth.checked_sub(1).and_then(|d| spans.get(d)) {
                    Some(&(_, _, start)) => base = start,
                    None => return Ok(()),
                }
                continue;
            }
            if !ranges.ordered {
                return bad("inline ranges empty, unsorted or overlapping");
            }
            if let Some(&(low, high, _)) = depth.checked_sub(1).and_then(|d| spans.get(d)) {
                if ranges.low < low || ranges.high > high {
                    return bad("inline range outside its parent");
                }
            }
            let fields = read_fields(&mut cursor, self.endian)?;
            self.check_string(fields.name, section::INLINE, at)?;
            self.check_file(fields.call_file, section::INLINE, at)?;
            if fields.has_children {
                // Children sit one level deeper; a chain holds MAX_INLINE_DEPTH nodes.
                let Some(span) = spans
                    .get_mut(depth)
                    .filter(|_| depth.saturating_add(1) < MAX_INLINE_DEPTH)
                else {
                    return bad("inline chain deeper than MAX_INLINE_DEPTH");
                };
                *span = (ranges.low, ranges.high, ranges.first_start);
                depth = depth.saturating_add(1);
                base = ranges.first_start;
            } else if depth == 0 {
                return Ok(());
            }
        }
    }
}
