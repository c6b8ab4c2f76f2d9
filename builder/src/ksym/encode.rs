//! Name records (spec 3.3, 4.4) and the segment layout (3.1), with the checks of D17.

use symblob::ksym::raw::{MAX_PAYLOAD, RECORD_HEADER, TOKEN_MARKER};
use symblob::ksym::LayoutKind;

use super::tokens::Tokens;
use super::Symbol;
use super::{align_up, RESERVED_TOKEN_ID};
use crate::{Error, ErrorKind, Location, Result};

/// Largest value of a u32 field (offsets, `seqs`, token index) plus one.
const U32_LIMIT: u64 = 1 << 32;

/// Sizes of what was written, for statistics.
pub(crate) struct Encoded {
    /// The blob, exactly `E` bytes long.
    pub bytes: Vec<u8>,
    /// L: bytes of the names segment.
    pub names_bytes: u64,
    /// T: bytes of the token table.
    pub token_table_bytes: u64,
    /// Records that use a token with a one-byte id.
    pub short_refs: u64,
    /// Records that use a token with a two-byte id.
    pub long_refs: u64,
}

/// Writes the blob in layout `kind`: `symbols` in address order, `seqs` the name-order
/// permutation, `tokens.uses[i]` the token of symbol `i`.
pub(crate) fn encode(
    symbols: &[&Symbol],
    seqs: &[u32],
    tokens: &Tokens<'_>,
    kind: LayoutKind,
) -> Result<Encoded> {
    let n = symbols.len() as u64;
    check_limit("symbol count", n, U32_LIMIT - 1)?;
    check_limit(
        "token count",
        tokens.table.len() as u64,
        u64::from(RESERVED_TOKEN_ID),
    )?;

    let mut names = Vec::new();
    let mut offsets = Vec::with_capacity(symbols.len());
    let (mut short_refs, mut long_refs) = (0u64, 0u64);
    for (i, sym) in symbols.iter().enumerate() {
        let at = Location::Index(i as u64);
        check_limit("names segment offset", names.len() as u64, U32_LIMIT - 1)?;
        offsets.push(names.len() as u32);
        let name = sym.name.as_bytes();
        let mut payload: Vec<u8> = Vec::with_capacity(name.len());
        match tokens.uses.get(i).copied().flatten() {
            Some((id, len)) => {
                if id >= RESERVED_TOKEN_ID || usize::from(id) >= tokens.table.len() {
                    return Err(Error::malformed(
                        "symbols",
                        at,
                        format!("internal: token id {id} cannot be written"),
                    ));
                }
                if let Ok(short) = u8::try_from(id) {
                    payload.extend_from_slice(&[TOKEN_MARKER, short, TOKEN_MARKER]);
                    short_refs += 1;
                } else {
                    let [hi, lo] = id.to_be_bytes();
                    payload.extend_from_slice(&[TOKEN_MARKER, hi, lo, TOKEN_MARKER]);
                    long_refs += 1;
                }
                payload.extend_from_slice(&name[len..]);
            }
            None => payload.extend_from_slice(name),
        }
        if payload.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "symbols",
                at,
                "empty symbol name",
            ));
        }
        if payload.len() > MAX_PAYLOAD {
            return Err(Error::new(
                ErrorKind::Limit,
                "symbols",
                at,
                format!(
                    "name record payload of {} bytes exceeds the limit of {MAX_PAYLOAD}",
                    payload.len()
                ),
            )
            .with_limit_exceeded(
                "name record payload",
                payload.len() as u64,
                MAX_PAYLOAD as u64,
            ));
        }
        names.push(sym.kind);
        names.extend_from_slice(&(payload.len() as u16).to_le_bytes());
        names.extend_from_slice(&payload);
        debug_assert_eq!(
            names.len() - *offsets.last().unwrap_or(&0) as usize,
            RECORD_HEADER + payload.len()
        );
    }
    check_limit("names segment size", names.len() as u64, U32_LIMIT - 1)?;

    let mut table = Vec::new();
    let mut index = Vec::with_capacity(tokens.table.len());
    for token in &tokens.table {
        check_limit("token table offset", table.len() as u64, U32_LIMIT - 1)?;
        index.push(table.len() as u32);
        table.extend_from_slice(token);
    }
    check_limit("token table size", table.len() as u64, U32_LIMIT - 1)?;

    let bytes = lay_out(kind, symbols, &offsets, seqs, &names, &table, &index);
    Ok(Encoded {
        bytes,
        names_bytes: names.len() as u64,
        token_table_bytes: table.len() as u64,
        short_refs,
        long_refs,
    })
}

fn check_limit(what: &'static str, value: u64, limit: u64) -> Result<()> {
    if value > limit {
        return Err(Error::limit(what, value, limit));
    }
    Ok(())
}

/// Pads `out` with zeros to a multiple of `align` (a power of two).
fn pad_to_alignment(out: &mut Vec<u8>, align: u64) {
    let end = align_up(out.len() as u64, align).unwrap_or(out.len() as u64);
    out.resize(end as usize, 0);
}

/// Writes the ten segments of spec 3.1 with zero padding and nothing after the token
/// index; in the sized layout (3.5), after a u64 holding the blob's length.
fn lay_out(
    kind: LayoutKind,
    symbols: &[&Symbol],
    offsets: &[u32],
    seqs: &[u32],
    names: &[u8],
    table: &[u8],
    index: &[u32],
) -> Vec<u8> {
    let n = symbols.len();
    let header = kind.header_size();
    let capacity = header + 8 + 16 * n + 8 + names.len() + 7 + 8 + table.len() + 7 + 8;
    let mut out = Vec::with_capacity(capacity + 4 * index.len());
    // `total_bytes` is filled in once the length is known; every later alignment is
    // relative to the blob start, so the 8 bytes shift nothing else.
    out.resize(header, 0);
    out.extend_from_slice(&(n as u64).to_le_bytes());
    for sym in symbols {
        out.extend_from_slice(&sym.address.to_le_bytes());
    }
    for &o in offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    for &s in seqs {
        out.extend_from_slice(&s.to_le_bytes());
    }
    pad_to_alignment(&mut out, 8);
    out.extend_from_slice(&(names.len() as u64).to_le_bytes());
    out.extend_from_slice(names);
    pad_to_alignment(&mut out, 8);
    out.extend_from_slice(&(table.len() as u64).to_le_bytes());
    out.extend_from_slice(table);
    pad_to_alignment(&mut out, 8);
    out.extend_from_slice(&(index.len() as u64).to_le_bytes());
    for &i in index {
        out.extend_from_slice(&i.to_le_bytes());
    }
    if kind == LayoutKind::Sized {
        let total = (out.len() as u64).to_le_bytes();
        out[..8].copy_from_slice(&total);
    }
    out
}
