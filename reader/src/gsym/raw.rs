//! On-disk definitions of GSYM v1 (`docs/formats/gsym.md`), shared by the reader and a
//! future writer.
//!
//! A GSYM file is written in one byte order, chosen by its writer and told by the magic:
//! the `u32` 0x4753594d (`'GSYM'`) reads right in the file's own order. The header is
//! therefore generic over zerocopy's [`ByteOrder`]; every field has alignment 1, so a
//! header can be viewed in place at any offset of any buffer, on any host.

use zerocopy::byteorder::{ByteOrder, U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The magic as a `u32` in the file's own byte order: ASCII `GSYM` read big-endian.
pub const MAGIC: u32 = 0x4753_594d;
/// The first four bytes of a little-endian file (`MAGIC` stored little-endian).
pub const MAGIC_LE: [u8; 4] = MAGIC.to_le_bytes();
/// The first four bytes of a big-endian file.
pub const MAGIC_BE: [u8; 4] = MAGIC.to_be_bytes();
/// The version this crate reads.
pub const VERSION: u16 = 1;
/// Size of [`Header`] in bytes.
pub const HEADER_SIZE: usize = 48;
/// Capacity of the UUID field; [`Header::uuid_size`] says how much of it is used.
pub const MAX_UUID_SIZE: usize = 20;
/// Alignment of the address-info-offsets table (from the start of the header).
pub const INFO_OFFSET_ALIGN: u64 = 4;
/// Size of one file-table entry: the string offsets of a directory and a base name.
pub const FILE_ENTRY_SIZE: u64 = 8;

/// The fixed-size header at offset 0.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
pub struct Header<O: ByteOrder> {
    /// [`MAGIC`] in the file's byte order.
    pub magic: U32<O>,
    /// [`VERSION`].
    pub version: U16<O>,
    /// Size of an address-table entry: 1, 2, 4 or 8.
    pub addr_off_size: u8,
    /// Bytes of `uuid` in use, at most [`MAX_UUID_SIZE`].
    pub uuid_size: u8,
    /// Address every address-table entry is an offset from.
    pub base_address: U64<O>,
    /// Number of entries of the address and address-info-offsets tables.
    pub num_addresses: U32<O>,
    /// File offset of the string table.
    pub strtab_offset: U32<O>,
    /// Size of the string table in bytes.
    pub strtab_size: U32<O>,
    /// The build ID of the executable the file describes; bytes past `uuid_size` are 0.
    pub uuid: [u8; MAX_UUID_SIZE],
}

const _: () = assert!(core::mem::size_of::<Header<zerocopy::LittleEndian>>() == HEADER_SIZE);

/// Byte offsets of header fields, for error offsets.
pub mod field {
    /// `version`.
    pub const VERSION: u64 = 4;
    /// `addr_off_size`.
    pub const ADDR_OFF_SIZE: u64 = 6;
    /// `uuid_size`.
    pub const UUID_SIZE: u64 = 7;
    /// `num_addresses`.
    pub const NUM_ADDRESSES: u64 = 16;
    /// `strtab_offset`.
    pub const STRTAB_OFFSET: u64 = 20;
}

/// Types of the chunks that follow a function's size and name (`FunctionInfo`).
pub mod info_type {
    /// Ends the chunk list (its length is written as 0).
    pub const END_OF_LIST: u32 = 0;
    /// A line table.
    pub const LINE_TABLE: u32 = 1;
    /// An inline tree.
    pub const INLINE_INFO: u32 = 2;
}

/// Opcodes of the line-table program; every byte from [`FIRST_SPECIAL`](opcode::FIRST_SPECIAL) up is a
/// special opcode that advances both the address and the line and pushes a row.
pub mod opcode {
    /// Ends the program.
    pub const END_SEQUENCE: u8 = 0;
    /// ULEB128 operand: the file index of the following rows.
    pub const SET_FILE: u8 = 1;
    /// ULEB128 operand: added to the address; pushes a row.
    pub const ADVANCE_PC: u8 = 2;
    /// SLEB128 operand: added to the line.
    pub const ADVANCE_LINE: u8 = 3;
    /// The first special opcode.
    pub const FIRST_SPECIAL: u8 = 4;
}
