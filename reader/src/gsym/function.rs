//! FunctionInfo records: a function's size and name, its typed chunks, and iteration
//! over all functions.

use core::iter::FusedIterator;

use super::raw::info_type;
use super::{error, section, to_u64, GsymFile, Str};
use crate::cursor::Cursor;
use crate::{Error, ErrorKind, Format};

/// A function of the file: what its address-table entry and FunctionInfo say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Function<'a> {
    /// Position in the address table.
    pub index: usize,
    /// Start address.
    pub address: u64,
    /// Size in bytes; 0 for a symbol without a size, which LLVM lets cover every address
    /// up to the next function.
    pub size: u32,
    /// The function's name (empty when the name offset is 0 or outside the string
    /// table).
    pub name: Str<'a>,
    /// The name's offset in the string table; LLVM refuses 0.
    pub name_offset: u32,
    /// File offset of the FunctionInfo record.
    pub info_offset: u32,
}

impl Function<'_> {
    /// Whether the function covers `addr` as LLVM decides it: a size of 0 covers every
    /// address; otherwise `address <= addr < address + size` (64-bit, wrapping).
    pub fn covers(&self, addr: u64) -> bool {
        let end = self.address.wrapping_add(u64::from(self.size));
        self.size == 0 || (self.address <= addr && addr < end)
    }
}

/// One typed chunk of a FunctionInfo.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    /// The chunk type ([`info_type`]).
    pub(crate) kind: u32,
    /// File offset of the chunk's data (after its type and length).
    pub(crate) offset: u64,
}

/// A cursor over `bytes[..end]` positioned at `start`: errors carry file offsets, and
/// reads stop at `end`.
pub(crate) fn cursor_at<'b>(
    bytes: &'b [u8],
    start: u64,
    end: u64,
    section: &'static str,
) -> Result<Cursor<'b>, Error> {
    let end = usize::try_from(end).unwrap_or(usize::MAX).min(bytes.len());
    let mut cursor = Cursor::new(bytes.get(..end).unwrap_or(&[]), Format::Gsym);
    let start = usize::try_from(start).unwrap_or(usize::MAX);
    cursor.take(start, section)?;
    Ok(cursor)
}

impl<'a> GsymFile<'a> {
    /// Function `index`: its address, and the size and name its FunctionInfo starts with.
    ///
    /// Fails when the index is past the end (an [`ErrorKind::OutOfRange`] at the address
    /// table), or when the FunctionInfo offset lies outside the file or the record is
    /// cut. A name offset of 0 is returned as it is (lookups refuse it, as LLVM does).
    pub fn function(&self, index: usize) -> Result<Function<'a>, Error> {
        let (Some(address), Some(info_offset)) = (self.address(index), self.info_offset(index))
        else {
            return Err(error(
                section::ADDRESSES,
                0,
                ErrorKind::OutOfRange {
                    value: to_u64(index),
                    limit: to_u64(self.len()),
                },
            ));
        };
        let at = u64::from(info_offset);
        if at >= to_u64(self.bytes.len()) {
            // LLVM: "invalid address info offset".
            let entry = self
                .info_offsets_at
                .saturating_add(to_u64(index).saturating_mul(4));
            return Err(error(
                section::INFO_OFFSETS,
                entry,
                ErrorKind::OutOfRange {
                    value: at,
                    limit: to_u64(self.bytes.len()),
                },
            ));
        }
        let mut cursor = cursor_at(self.bytes, at, u64::MAX, section::FUNCTION)?;
        let size = self.endian.read_u32(&mut cursor, section::FUNCTION)?;
        let name_offset = self.endian.read_u32(&mut cursor, section::FUNCTION)?;
        Ok(Function {
            index,
            address,
            size,
            name: self.string_or_empty(name_offset),
            name_offset,
            info_offset,
        })
    }

    /// Every function in address-table order; a damaged record is an `Err` item and the
    /// iteration goes on with the next one.
    pub fn functions(&self) -> Functions<'a> {
        Functions {
            file: *self,
            next: 0,
        }
    }

    /// Calls `each` with every chunk of `function`'s FunctionInfo up to the end-of-list
    /// chunk, and the chunk's bytes; the first error ends the walk.
    ///
    /// Every chunk's length must lie inside the file (LLVM's "FunctionInfo data is
    /// truncated"); chunks of unknown types are passed on like the others.
    pub(crate) fn chunks(
        &self,
        function: &Function<'a>,
        mut each: impl FnMut(Chunk, &'a [u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let start = u64::from(function.info_offset).saturating_add(8);
        let mut cursor = cursor_at(self.bytes, start, u64::MAX, section::FUNCTION)?;
        // Each chunk takes at least eight bytes, so the loop ends.
        loop {
            let kind = self.endian.read_u32(&mut cursor, section::FUNCTION)?;
            let length = self.endian.read_u32(&mut cursor, section::FUNCTION)?;
            let offset = cursor.offset();
            let length = usize::try_from(length).unwrap_or(usize::MAX);
            let data = cursor.take(length, section::FUNCTION)?;
            if kind == info_type::END_OF_LIST {
                return Ok(());
            }
            each(Chunk { kind, offset }, data)?;
        }
    }
}

/// Iterator over the functions of a file; see [`GsymFile::functions`].
#[derive(Clone, Debug)]
pub struct Functions<'a> {
    file: GsymFile<'a>,
    next: usize,
}

impl<'a> Iterator for Functions<'a> {
    type Item = Result<Function<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.file.len() {
            return None;
        }
        let item = self.file.function(self.next);
        self.next = self.next.saturating_add(1);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.file.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Functions<'_> {}
impl FusedIterator for Functions<'_> {}
