//! On-disk definitions of Lidia v1, shared by the reader and the builder.
//!
//! Every field is an alignment-1 little-endian zerocopy type, so a header can be viewed in
//! place at any offset of any buffer, on any host.

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The four magic bytes at offset 0: ASCII `.dia`.
pub const MAGIC: [u8; 4] = *b".dia";
/// The only version this crate reads and writes.
pub const VERSION: u32 = 1;
/// Size of [`Header`] in bytes; the VA table of a Go-written file starts here.
pub const HEADER_SIZE: usize = 128;
/// Number of fields in a range-table entry (length, depth, func, file, line index,
/// line count, call file, call line).
pub const RANGE_FIELDS: usize = 8;
/// Bytes of the two strings every strings table starts with: `""` and `"[overflow]"`.
pub const STRINGS_PREFIX: [u8; 18] = *b"\0\0\0\0\x0a\0\0\0[overflow]";
/// String offset of `"[overflow]"`, used for strings too long for a u32 length prefix.
pub const OVERFLOW_STRING: u32 = 4;

/// Header of a table whose entries have a size and a count (VA, range and line tables).
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct TableHeader {
    /// VA table: entry size (4 or 8); range table: field size (4 or 8); line table:
    /// field size (2 or 4).
    pub entry_size: U64,
    /// Number of entries (line table: number of (offset, line) pairs).
    pub count: U64,
    /// Byte offset of the table from the start of the file.
    pub offset: U64,
    /// CRC32C of the table's bytes.
    pub crc: U32,
    /// Reserved, written as zero.
    pub reserved: U32,
}

/// Header of the strings table.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct StringsHeader {
    /// Byte length of the strings table.
    pub size: U64,
    /// Byte offset of the strings table from the start of the file.
    pub offset: U64,
    /// CRC32C of the strings table's bytes.
    pub crc: U32,
    /// Reserved, written as zero.
    pub reserved: U32,
}

/// The 128-byte file header.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: [u8; 4],
    /// [`VERSION`].
    pub version: U32,
    /// The VA table: one start address per range.
    pub va: TableHeader,
    /// The range table: [`RANGE_FIELDS`] fields per range.
    pub ranges: TableHeader,
    /// The strings table.
    pub strings: StringsHeader,
    /// The line table: (offset, line) pairs.
    pub lines: TableHeader,
}

const _: () = assert!(core::mem::size_of::<Header>() == HEADER_SIZE);
