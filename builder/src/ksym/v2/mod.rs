//! The ksym-bin v2 writer (`docs/formats/ksym-bin-v2.md`).
//!
//! [`build`](super::build) comes here when [`BuildOptions::format_version`] is
//! [`FormatVersion::V2`]; the orders are v1's (`ksym::order`), so a v1 and a v2 blob of
//! the same symbols hold them in the same address and name orders.
//!
//! One concern per file: `names` front codes the names in name order with restarts, using
//! the code table of `codes` and the shapes of `shapes`; `addrs` writes the address blocks;
//! `links` the types, `a2n` and `n2a`; `layout` the header and the segments; `pack` the
//! bit-packed arrays and ULEB128 all of them use. Every width is the
//! smallest that holds its values, and nothing depends on hashing order or the machine:
//! the output is byte-for-byte reproducible.
//!
//! [`BuildOptions::format_version`]: super::BuildOptions::format_version
//! [`FormatVersion::V2`]: super::FormatVersion::V2

mod addrs;
mod codes;
mod hash;
mod layout;
mod links;
mod names;
mod pack;
mod shapes;

#[cfg(test)]
mod tests;

pub use hash::NameHash;

use super::Symbol;
use crate::{Error, Result};

/// The first eight bytes of every v2 blob (`KSYMBIN2`).
pub const MAGIC: [u8; 8] = *b"KSYMBIN2";

/// Bytes of the v2 header.
pub const HEADER_BYTES: usize = 48;

/// The block, restart and group sizes as powers of two (spec 3, fields 39–41).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shifts {
    /// a: A = 2^a symbols per address block.
    pub addr_block: u8,
    /// r: every R = 2^r-th name is a restart.
    pub restart: u8,
    /// g: G = 2^g ranks per group.
    pub group: u8,
}

/// What symblob chooses (spec 7): A = 32, R = 32, G = 64.
pub(crate) const SHIFTS: Shifts = Shifts {
    addr_block: 5,
    restart: 5,
    group: 6,
};

/// The bytes of each part of a v2 blob, in stored order; they add up to its
/// `total_bytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegmentSizes {
    /// The header (48).
    pub header: u64,
    /// `types`: one byte per distinct type.
    pub types: u64,
    /// `token_ends` (512).
    pub token_ends: u64,
    /// `token_bytes`: the code strings.
    pub token_bytes: u64,
    /// `shapes`: two bytes per (lcp, count) pair.
    pub shapes: u64,
    /// `addr_blocks`: the block records.
    pub addr_blocks: u64,
    /// `addr_data` (D): the in-block offsets.
    pub addr_data: u64,
    /// `a2n`: group and type per symbol.
    pub a2n: u64,
    /// `restart_keys`: 8 bytes per restart.
    pub restart_keys: u64,
    /// `restart_pos`: the packed restart offsets.
    pub restart_pos: u64,
    /// `names` (L): the name entries.
    pub names: u64,
    /// `n2a`: the address-order index per rank.
    pub n2a: u64,
    /// `hash_starts`: the name hash index's bucket starts (0 without the index).
    pub hash_starts: u64,
    /// `hash_entries`: the name hash index's rank and fingerprint per name (0 without).
    pub hash_entries: u64,
}

impl SegmentSizes {
    /// The parts with their spec names, in stored order (`token_ends` and `token_bytes`
    /// apart).
    pub fn named(&self) -> [(&'static str, u64); 14] {
        [
            ("header", self.header),
            ("types", self.types),
            ("token_ends", self.token_ends),
            ("token_bytes", self.token_bytes),
            ("shapes", self.shapes),
            ("addr_blocks", self.addr_blocks),
            ("addr_data", self.addr_data),
            ("a2n", self.a2n),
            ("restart_keys", self.restart_keys),
            ("restart_pos", self.restart_pos),
            ("names", self.names),
            ("n2a", self.n2a),
            ("hash_starts", self.hash_starts),
            ("hash_entries", self.hash_entries),
        ]
    }

    /// Their sum: the blob's `total_bytes`.
    pub fn total(&self) -> u64 {
        self.named().iter().map(|&(_, b)| b).sum()
    }

    /// The sizes the header of the v2 blob `bytes` gives (spec section 4), or `None` when
    /// `bytes` is shorter than the header and `token_ends` or a size overflows. Nothing
    /// else is checked: open the blob first.
    pub fn from_header(bytes: &[u8]) -> Option<SegmentSizes> {
        let at = |offset: usize, len: usize| -> Option<u64> {
            let field = bytes.get(offset..offset + len)?;
            Some(field.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b)))
        };
        if bytes.len() < HEADER_BYTES {
            return None;
        }
        let header = HEADER_BYTES as u64;
        let n = at(24, 4)?;
        let types = at(36, 2)?;
        // The one-byte fields: shifts, counts and widths.
        let byte = |offset: usize| at(offset, 1);
        // ceil(count / 2^shift) and ceil(count · width / 8).
        let blocks = |count: u64, shift: u64| -> Option<u64> {
            Some(count.checked_add((1u64 << shift.min(63)) - 1)? >> shift.min(63))
        };
        let packed = |count: u64, width: u64| -> Option<u64> {
            Some(count.checked_mul(width)?.checked_add(7)? / 8)
        };
        let token_ends_at = usize::try_from(header + types).ok()?;
        let token_bytes = at(token_ends_at.checked_add(510)?, 2)?;
        let address_blocks = blocks(n, byte(39)?)?;
        // The name hash index: 2^b + 1 starts of bits(N) bits, N entries of
        // index_bits + 8 bits; nothing when b = 0.
        let hash_bits = byte(43)?;
        let (hash_starts, hash_entries) = if hash_bits == 0 {
            (0, 0)
        } else {
            let buckets = 1u64
                .checked_shl(u32::try_from(hash_bits).ok()?)?
                .checked_add(1)?;
            (
                packed(buckets, u64::from(64 - n.leading_zeros()))?,
                packed(n, byte(46)? + 8)?,
            )
        };
        let restarts = blocks(n, byte(40)?)?;
        Some(SegmentSizes {
            header,
            types,
            token_ends: 512,
            token_bytes,
            shapes: 2 * byte(38)?,
            // `first` words of `first_bytes` bytes, then u32 positions.
            addr_blocks: address_blocks.checked_mul(byte(42)? + 4)?,
            addr_data: at(32, 4)?,
            a2n: packed(n, byte(45)? + byte(44)?)?,
            restart_keys: restarts.checked_mul(8)?,
            restart_pos: packed(restarts, byte(47)?)?,
            names: at(28, 4)?,
            n2a: packed(n, byte(46)?)?,
            hash_starts,
            hash_entries,
        })
    }
}

/// A written v2 blob and what the statistics need.
pub(crate) struct Encoded {
    /// The blob, exactly `total_bytes` long.
    pub bytes: Vec<u8>,
    /// The size of each part.
    pub sizes: SegmentSizes,
    /// Codes that stand for two bytes or more.
    pub merged_codes: u64,
    /// Name entries written with the escaped header.
    pub escaped_entries: u64,
}

/// Writes the v2 blob of `symbols` (address order) with `seqs[rank]` the address-order
/// index of the name at `rank`, as [`order`](super::order) gives them.
pub(crate) fn encode(symbols: &[&Symbol], seqs: &[u32], name_hash: NameHash) -> Result<Encoded> {
    let n = symbols.len() as u64;
    if n >= 1 << 32 {
        return Err(Error::limit("symbol count", n, u64::from(u32::MAX)));
    }
    let by_rank: Vec<&[u8]> = seqs
        .iter()
        .map(|&i| symbols[i as usize].name.as_bytes())
        .collect();
    let names = names::encode(&by_rank, 1 << SHIFTS.restart)?;
    let addresses: Vec<u64> = symbols.iter().map(|s| s.address).collect();
    let addrs = addrs::encode(&addresses, 1 << SHIFTS.addr_block)?;
    let kinds: Vec<u8> = symbols.iter().map(|s| s.kind).collect();
    let links = links::encode(&kinds, seqs, SHIFTS.group);
    let index = if hash::wanted(name_hash, &names.restart_keys) {
        hash::build(&by_rank, links.index_bits)
    } else {
        hash::HashIndex::default()
    };
    let (bytes, sizes) = layout::lay_out(n, SHIFTS, &names, &addrs, &links, &index)?;
    Ok(Encoded {
        bytes,
        sizes,
        merged_codes: names.codes.merged_codes as u64,
        escaped_entries: names.escaped,
    })
}
