//! The symbfile wire format, defined once: the magic, the framing's limits, the message
//! types, and every message's field numbers with their wire types (spec §1–§2).
//!
//! The reader decodes by these definitions and symblob's writer (crate `symblob-build`)
//! encodes by them, so the two cannot drift apart. A file is
//!
//! ```text
//! file    := MAGIC message+
//! message := len:uvarint  type:uvarint  body:[len]      (the first one a HEADER)
//! ```
//!
//! and every body is a protobuf (proto3) message: fields of a key (`field number << 3 |
//! wire type`, a varint) and a payload. Varints are unsigned LEB128.

/// The 8-byte magic at the start of every symbfile.
pub const MAGIC: &[u8; 8] = b"symbfile";

/// Largest message body accepted, in bytes (symblib's limit on read and write).
pub const MAX_MESSAGE_SIZE: u64 = 16 << 20;

/// Largest message type: types must fit a signed 32-bit integer.
pub const MAX_MESSAGE_TYPE: u32 = 0x7fff_ffff;

/// Message type numbers: the `type` of a message's framing (spec §1).
pub mod message_type {
    /// Invalid everywhere.
    pub const INVALID: u32 = 0;
    /// The header (an empty message), first message only.
    pub const HEADER: u32 = 1;
    /// `RangeV1`: fields in [`range`](super::range).
    pub const RANGE_V1: u32 = 2;
    /// `ReturnPadV1`: fields in [`return_pad`](super::return_pad).
    pub const RETURN_PAD_V1: u32 = 3;
    /// `StringTableV1`: fields in [`string_table`](super::string_table). Replaces the
    /// current string table.
    pub const STRING_TABLE_V1: u32 = 4;
}

/// Protobuf wire types: the low three bits of a field's key.
pub mod wire_type {
    /// A varint (LEB128).
    pub const VARINT: u8 = 0;
    /// Eight bytes (no symbfile field has it; readers skip it).
    pub const I64: u8 = 1;
    /// Length-delimited: a varint length, then that many bytes (strings, nested messages,
    /// packed repeated varints).
    pub const LEN: u8 = 2;
    /// Start of a group (deprecated in protobuf; an error in a symbfile).
    pub const SGROUP: u8 = 3;
    /// End of a group (deprecated in protobuf; an error in a symbfile).
    pub const EGROUP: u8 = 4;
    /// Four bytes (no symbfile field has it; readers skip it).
    pub const I32: u8 = 5;
}

/// The key of a field: its number shifted left by three, or'ed with its wire type. Field
/// numbers below 16 give keys below `0x80`, which are written as one byte.
pub const fn key(field: u32, wire_type: u8) -> u32 {
    field.wrapping_shl(3) | wire_type as u32
}

/// Field numbers of `RangeV1` (spec §2.2). Of each oneof (VA, function, file, call file)
/// exactly one member is written, even when its value is 0.
pub mod range {
    /// `deltaElfVA`, varint, zigzag-coded (sint64): the VA is the previous record's VA plus
    /// this (oneof with [`SET_ELF_VA`]).
    pub const DELTA_ELF_VA: u32 = 1;
    /// `length`, varint: the bytes covered.
    pub const LENGTH: u32 = 2;
    /// `funcStr`, length-delimited: the function name inline (oneof with [`FUNC_REF`]).
    pub const FUNC_STR: u32 = 3;
    /// `fileStr`, length-delimited: the source file inline (oneof with [`FILE_REF`]).
    pub const FILE_STR: u32 = 4;
    /// `callLine`, varint: the line of the call in the caller; 0 for none.
    pub const CALL_LINE: u32 = 5;
    /// `callFileStr`, length-delimited: the file of the call inline (oneof with
    /// [`CALL_FILE_REF`]).
    pub const CALL_FILE_STR: u32 = 6;
    /// `depth`, varint: the inline depth, 0 for a top-level function.
    pub const DEPTH: u32 = 7;
    /// `lineTable`, length-delimited: a nested `LineTable` (fields in
    /// [`line_table`](super::line_table)).
    pub const LINE_TABLE: u32 = 8;
    /// `funcRef`, varint: the function name as a string-table index.
    pub const FUNC_REF: u32 = 9;
    /// `fileRef`, varint: the source file as a string-table index.
    pub const FILE_REF: u32 = 10;
    /// `callFileRef`, varint: the file of the call as a string-table index.
    pub const CALL_FILE_REF: u32 = 11;
    /// `setElfVA`, varint: the absolute VA (oneof with [`DELTA_ELF_VA`]).
    pub const SET_ELF_VA: u32 = 12;
}

/// Field numbers of `LineTable`, nested in a range's [`range::LINE_TABLE`] (spec §2.3).
/// Both are repeated varints, packed (length-delimited), with as many values each.
pub mod line_table {
    /// `offset`: byte offsets from the record's VA, each a delta from the previous one.
    pub const OFFSET: u32 = 1;
    /// `lineNumber`: the line of the rows starting at the corresponding offsets.
    pub const LINE_NUMBER: u32 = 2;
}

/// Field numbers of `ReturnPadV1` (spec §2.4). The three columns are repeated varints,
/// packed, with as many values each, outermost inline level first.
pub mod return_pad {
    /// `deltaElfVA`, varint, zigzag-coded, as [`range::DELTA_ELF_VA`](super::range::DELTA_ELF_VA).
    pub const DELTA_ELF_VA: u32 = 1;
    /// `func`: string-table indices of the functions.
    pub const FUNC: u32 = 2;
    /// `file`: string-table indices of the files; the index of `""` for none.
    pub const FILE: u32 = 3;
    /// `line`: the lines; 0 for none.
    pub const LINE: u32 = 4;
    /// `setElfVA`, varint: the absolute VA. Note the number: 5 here, 12 in a range.
    pub const SET_ELF_VA: u32 = 5;
}

/// Field numbers of `StringTableV1` (spec §2.5).
pub mod string_table {
    /// `strings`, length-delimited, one occurrence per string, in index order.
    pub const STRINGS: u32 = 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_the_spec_tag_bytes() {
        // The tag bytes of spec §2.2–§2.5.
        assert_eq!(key(range::DELTA_ELF_VA, wire_type::VARINT), 0x08);
        assert_eq!(key(range::SET_ELF_VA, wire_type::VARINT), 0x60);
        assert_eq!(key(range::LINE_TABLE, wire_type::LEN), 0x42);
        assert_eq!(key(range::CALL_FILE_REF, wire_type::VARINT), 0x58);
        assert_eq!(key(line_table::LINE_NUMBER, wire_type::LEN), 0x12);
        assert_eq!(key(return_pad::SET_ELF_VA, wire_type::VARINT), 0x28);
        assert_eq!(key(return_pad::LINE, wire_type::LEN), 0x22);
        assert_eq!(key(string_table::STRINGS, wire_type::LEN), 0x0a);
    }
}
