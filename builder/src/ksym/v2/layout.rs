//! The header and the order of the segments (spec 3, 4).

use super::addrs::Addresses;
use super::hash::HashIndex;
use super::links::Links;
use super::names::Names;
use super::pack::{bits, pack};
use super::{SegmentSizes, Shifts, HEADER_BYTES, MAGIC};
use crate::{Error, Result};

/// Writes the blob: the header, then the thirteen segments back to back (the last two
/// empty without a name hash index). Returns the bytes
/// (exactly `total_bytes` of them) and the size of each part.
pub(crate) fn lay_out(
    n: u64,
    shifts: Shifts,
    names: &Names,
    addrs: &Addresses,
    links: &Links,
    index: &HashIndex,
) -> Result<(Vec<u8>, SegmentSizes)> {
    let limit = |what: &'static str, v: u64| {
        if v >= 1 << 32 {
            Err(Error::limit(what, v, u64::from(u32::MAX)))
        } else {
            Ok(v)
        }
    };
    let names_len = limit("names stream bytes", names.stream.len() as u64)?;
    let addr_data_len = limit("address data bytes", addrs.data.len() as u64)?;

    let mut token_ends = Vec::with_capacity(512);
    let mut token_bytes = Vec::new();
    for s in &names.codes.strings {
        token_bytes.extend_from_slice(s);
        // At most 256 strings of at most 255 bytes: the end fits in a u16.
        token_ends.extend_from_slice(&(token_bytes.len() as u16).to_le_bytes());
    }
    let shapes: Vec<u8> = names
        .shapes
        .pairs
        .iter()
        .flat_map(|&(l, c)| [l, c])
        .collect();
    let restart_pos_bits = bits(names.restart_pos.last().copied().unwrap_or(0));
    let restart_pos = pack(names.restart_pos.iter().copied(), restart_pos_bits);

    let mut header = Vec::with_capacity(HEADER_BYTES);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&[0; 8]); // total_bytes, filled in at the end
    header.extend_from_slice(&addrs.base.to_le_bytes());
    header.extend_from_slice(&(n as u32).to_le_bytes());
    header.extend_from_slice(&(names_len as u32).to_le_bytes());
    header.extend_from_slice(&(addr_data_len as u32).to_le_bytes());
    header.extend_from_slice(&(links.types.len() as u16).to_le_bytes());
    header.push(names.shapes.pairs.len() as u8);
    header.extend_from_slice(&[
        shifts.addr_block,
        shifts.restart,
        shifts.group,
        addrs.first_bytes,
        index.bits,
        links.type_bits,
        links.group_bits,
        links.index_bits,
        restart_pos_bits,
    ]);
    debug_assert_eq!(header.len(), HEADER_BYTES);

    let sizes = SegmentSizes {
        header: header.len() as u64,
        types: links.types.len() as u64,
        token_ends: token_ends.len() as u64,
        token_bytes: token_bytes.len() as u64,
        shapes: shapes.len() as u64,
        addr_blocks: addrs.blocks.len() as u64,
        addr_data: addrs.data.len() as u64,
        a2n: links.a2n.len() as u64,
        restart_keys: names.restart_keys.len() as u64,
        restart_pos: restart_pos.len() as u64,
        names: names.stream.len() as u64,
        n2a: links.n2a.len() as u64,
        hash_starts: index.starts.len() as u64,
        hash_entries: index.entries.len() as u64,
    };
    let mut out = header;
    out.reserve(sizes.total() as usize);
    for segment in [
        &links.types,
        &token_ends,
        &token_bytes,
        &shapes,
        &addrs.blocks,
        &addrs.data,
        &links.a2n,
        &names.restart_keys,
        &restart_pos,
        &names.stream,
        &links.n2a,
        &index.starts,
        &index.entries,
    ] {
        out.extend_from_slice(segment);
    }
    let total = out.len() as u64;
    debug_assert_eq!(total, sizes.total());
    out[8..16].copy_from_slice(&total.to_le_bytes());
    Ok((out, sizes))
}
