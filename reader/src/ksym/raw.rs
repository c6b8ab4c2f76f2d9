//! On-disk definitions of ksym-bin v1, shared by the reader and the builder.
//!
//! The blob has no header struct: it is a sequence of segments whose positions follow from
//! the counts (spec section 3.1). All integers are little-endian; positions are offsets
//! from the first byte of the blob, and padding is computed on those offsets.

/// Byte that opens (and closes) a token reference in a name record's payload.
pub const TOKEN_MARKER: u8 = 0xFF;
/// Bytes of a name record's header: the type byte and the u16 payload length.
pub const RECORD_HEADER: usize = 3;
/// Largest payload a record can hold (u16 length).
pub const MAX_PAYLOAD: usize = u16::MAX as usize;
/// Size of the smallest blob (N = L = T = K = 0).
pub const MIN_BLOB: usize = 32;

/// `align(x, a)`: the smallest multiple of `a` (a power of two) that is ≥ `x`, or `None`
/// on overflow.
pub(crate) const fn align_up(x: u64, a: u64) -> Option<u64> {
    match x.checked_add(a.wrapping_sub(1)) {
        Some(v) => Some(v & !(a.wrapping_sub(1))),
        None => None,
    }
}
