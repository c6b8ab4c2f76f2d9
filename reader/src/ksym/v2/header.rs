//! The header and segment positions of a v2 blob (spec sections 3 and 4), checked in O(1).

use super::packed::packed_len;
use crate::{Error, ErrorKind, Format};

/// The eight bytes every v2 blob starts with.
pub const MAGIC: [u8; 8] = *b"KSYMBIN2";

/// Bytes of the fixed header.
pub const HEADER_SIZE: usize = 48;

/// Bytes of `token_ends`: 256 u16 ends.
pub(crate) const TOKEN_ENDS_SIZE: u64 = 512;

/// The largest `restart_shift`: a name is decoded from at most 32 entries, which bounds
/// the stack its decoder needs.
pub(crate) const MAX_RESTART_SHIFT: u8 = 5;

/// The largest `hash_bits`: at most 2^32 buckets.
pub(crate) const MAX_HASH_BITS: u8 = 32;

/// Bits of a name hash entry's fingerprint (spec 4.5).
pub(crate) const FINGERPRINT_BITS: u32 = 8;

/// The width of a bucket start of the name hash index: `bits(N)`.
pub(crate) fn hash_start_bits(num_syms: u32) -> u32 {
    u32::BITS.wrapping_sub(num_syms.leading_zeros())
}

/// Error in `section` at `offset`.
pub(crate) fn err(section: &'static str, offset: u64, kind: ErrorKind) -> Error {
    Error::new(Format::Ksym, section, offset, kind)
}

/// Where every segment lies, and the widths and shifts the header gives. Offsets are
/// from the blob start and below 2^32 (the spec's limit on `E`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub num_syms: u32,
    pub base: u64,
    pub num_types: u32,
    pub num_shapes: u32,
    pub addr_block_shift: u32,
    pub restart_shift: u32,
    pub group_shift: u32,
    pub first_bytes: u32,
    pub type_bits: u32,
    pub group_bits: u32,
    pub index_bits: u32,
    pub restart_pos_bits: u32,
    /// b: the name hash index has 2^b buckets; 0 when the blob has none.
    pub hash_bits: u32,
    /// Segment starts, in file order, then the end `E`.
    pub types: u32,
    pub token_ends: u32,
    pub token_bytes: u32,
    pub shapes: u32,
    pub addr_blocks: u32,
    pub addr_data: u32,
    pub a2n: u32,
    pub restart_keys: u32,
    pub restart_pos: u32,
    pub names: u32,
    pub n2a: u32,
    pub hash_starts: u32,
    pub hash_entries: u32,
    pub end: u32,
}

/// A little-endian field of the header (the caller checked the header is there).
fn field<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    bytes
        .get(at..at.wrapping_add(N))
        .and_then(|b| <[u8; N]>::try_from(b).ok())
        .unwrap_or([0; N])
}

fn u8_at(bytes: &[u8], at: usize) -> u32 {
    u32::from(field::<1>(bytes, at)[0])
}

/// `ceil(n / 2^shift)`.
fn blocks(n: u64, shift: u32) -> u64 {
    (n >> shift).wrapping_add(u64::from(n & ((1u64 << shift).wrapping_sub(1)) != 0))
}

impl Geometry {
    /// Reads the header of `bytes` and places every segment (spec section 4), checking the
    /// field limits of section 3, that the segments fit in `bytes` and that
    /// `total_bytes` is their end.
    pub fn read(bytes: &[u8]) -> Result<Geometry, Error> {
        if bytes.len() < HEADER_SIZE {
            let kind = ErrorKind::Truncated {
                needed: HEADER_SIZE as u64,
                available: bytes.len() as u64,
            };
            return Err(err("header", 0, kind));
        }
        if field::<8>(bytes, 0) != MAGIC {
            return Err(err("magic", 0, ErrorKind::BadMagic));
        }
        let total = u64::from_le_bytes(field(bytes, 8));
        let g = Geometry {
            base: u64::from_le_bytes(field(bytes, 16)),
            num_syms: u32::from_le_bytes(field(bytes, 24)),
            num_types: u32::from(u16::from_le_bytes(field(bytes, 36))),
            num_shapes: u8_at(bytes, 38),
            addr_block_shift: u8_at(bytes, 39),
            restart_shift: u8_at(bytes, 40),
            group_shift: u8_at(bytes, 41),
            first_bytes: u8_at(bytes, 42),
            type_bits: u8_at(bytes, 44),
            group_bits: u8_at(bytes, 45),
            index_bits: u8_at(bytes, 46),
            restart_pos_bits: u8_at(bytes, 47),
            hash_bits: u8_at(bytes, 43),
            ..Geometry::default()
        };
        let names_len = u64::from(u32::from_le_bytes(field(bytes, 28)));
        let addr_data_len = u64::from(u32::from_le_bytes(field(bytes, 32)));
        if g.first_bytes != 4 && g.first_bytes != 8 {
            let kind = ErrorKind::BadFieldSize(u64::from(g.first_bytes));
            return Err(err("first_bytes", 42, kind));
        }
        let limits: [(&'static str, u64, u32, u32); 9] = [
            ("num_shapes", 38, g.num_shapes, 255),
            ("hash_bits", 43, g.hash_bits, u32::from(MAX_HASH_BITS)),
            ("addr_block_shift", 39, g.addr_block_shift, 15),
            (
                "restart_shift",
                40,
                g.restart_shift,
                u32::from(MAX_RESTART_SHIFT),
            ),
            ("group_shift", 41, g.group_shift, 8),
            ("type_bits", 44, g.type_bits, 8),
            ("group_bits", 45, g.group_bits, 32),
            ("index_bits", 46, g.index_bits, 32),
            ("restart_pos_bits", 47, g.restart_pos_bits, 32),
        ];
        for (section, offset, value, limit) in limits {
            if value > limit {
                let kind = ErrorKind::OutOfRange {
                    value: u64::from(value),
                    limit: u64::from(limit),
                };
                return Err(err(section, offset, kind));
            }
        }
        let n = u64::from(g.num_syms);
        if (n == 0) != (g.num_types == 0) {
            let kind = ErrorKind::Malformed("num_types is 0 exactly when num_syms is 0");
            return Err(err("num_types", 36, kind));
        }

        // Segment sizes, in file order (spec section 4).
        let token_ends_at = (HEADER_SIZE as u64).wrapping_add(u64::from(g.num_types));
        let token_bytes_len = bytes
            .get(usize::try_from(token_ends_at.wrapping_add(510)).unwrap_or(usize::MAX)..)
            .and_then(|b| b.get(..2))
            .and_then(|b| <[u8; 2]>::try_from(b).ok())
            .map(u16::from_le_bytes)
            .ok_or_else(|| truncated(bytes, "token_ends", token_ends_at, TOKEN_ENDS_SIZE))?;
        let overflow = |section| err(section, 0, ErrorKind::Overflow);
        // The name hash index (absent when b = 0): 2^b + 1 bucket starts of bits(N) bits,
        // then N entries of index_bits + 8 bits.
        let (hash_starts, hash_entries) = if g.hash_bits == 0 {
            (Some(0), Some(0))
        } else {
            let buckets = 1u64.wrapping_shl(g.hash_bits).wrapping_add(1);
            (
                packed_len(buckets, hash_start_bits(g.num_syms)),
                packed_len(n, g.index_bits.wrapping_add(FINGERPRINT_BITS)),
            )
        };
        let sizes: [(&'static str, Option<u64>); 13] = [
            ("types", Some(u64::from(g.num_types))),
            ("token_ends", Some(TOKEN_ENDS_SIZE)),
            ("token_bytes", Some(u64::from(token_bytes_len))),
            ("shapes", Some(u64::from(g.num_shapes).wrapping_mul(2))),
            (
                "addr_blocks",
                blocks(n, g.addr_block_shift).checked_mul(u64::from(g.first_bytes).wrapping_add(4)),
            ),
            ("addr_data", Some(addr_data_len)),
            ("a2n", packed_len(n, g.group_bits.wrapping_add(g.type_bits))),
            ("restart_keys", blocks(n, g.restart_shift).checked_mul(8)),
            (
                "restart_pos",
                packed_len(blocks(n, g.restart_shift), g.restart_pos_bits),
            ),
            ("names", Some(names_len)),
            ("n2a", packed_len(n, g.index_bits)),
            ("hash_starts", hash_starts),
            ("hash_entries", hash_entries),
        ];
        let mut starts = [0u32; 14];
        let mut at = HEADER_SIZE as u64;
        for (slot, (section, size)) in starts.iter_mut().zip(sizes) {
            let size = size.ok_or_else(|| overflow(section))?;
            *slot = u32::try_from(at).map_err(|_| overflow(section))?;
            let end = at.checked_add(size).ok_or_else(|| overflow(section))?;
            if end > bytes.len() as u64 {
                return Err(truncated(bytes, section, at, size));
            }
            at = end;
        }
        starts[13] = u32::try_from(at).map_err(|_| overflow("total_bytes"))?;
        if total != at {
            let kind = ErrorKind::Mismatch {
                expected: at,
                found: total,
            };
            return Err(err("total_bytes", 8, kind));
        }
        let [types, token_ends, token_bytes, shapes, addr_blocks, addr_data, a2n, restart_keys, restart_pos, names, n2a, hash_starts, hash_entries, end] =
            starts;
        Ok(Geometry {
            types,
            token_ends,
            token_bytes,
            shapes,
            addr_blocks,
            addr_data,
            a2n,
            restart_keys,
            restart_pos,
            names,
            n2a,
            hash_starts,
            hash_entries,
            end,
            ..g
        })
    }
}

/// A `Truncated` error for a segment of `size` bytes at `at`.
fn truncated(bytes: &[u8], section: &'static str, at: u64, size: u64) -> Error {
    let kind = ErrorKind::Truncated {
        needed: size,
        available: (bytes.len() as u64).saturating_sub(at),
    };
    err(section, at, kind)
}
