//! Segment positions of a ksym-bin v1 blob (spec section 3.1).
//!
//! Positions are byte offsets from the first byte of the blob and padding is computed on
//! those offsets, exactly as the writer computes it, so the blob's memory alignment never
//! matters (spec D2).

use super::raw::align_up;
use crate::{Error, ErrorKind, Format};

/// The two published framings of ksym-bin v1 (spec section 3.5).
///
/// * [`Plain`](Self::Plain): `num_syms` first, as the `ksym` crate's versions 0.3 to 0.5
///   write and read it.
/// * [`Sized`](Self::Sized): a u64 `total_bytes` (the blob's own length, padding after it
///   excluded) first, then the plain layout shifted by 8 bytes, as version 0.6 writes and
///   reads it. Every alignment stays relative to the blob start, so the shift changes no
///   padding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LayoutKind {
    /// `num_syms` at offset 0 (crate 0.3–0.5).
    #[default]
    Plain,
    /// `total_bytes` at offset 0, `num_syms` at offset 8 (crate 0.6).
    Sized,
}

impl LayoutKind {
    /// Bytes before `num_syms`: 0 or 8.
    pub const fn header_size(self) -> usize {
        match self {
            LayoutKind::Plain => 0,
            LayoutKind::Sized => 8,
        }
    }

    /// The smallest blob of this layout (no symbols, names or tokens): 32 or 40 bytes.
    pub const fn min_size(self) -> usize {
        match self {
            LayoutKind::Plain => 32,
            LayoutKind::Sized => 40,
        }
    }

    /// `"plain"` or `"sized"`, the names `symblob ksym build --layout` takes.
    pub const fn name(self) -> &'static str {
        match self {
            LayoutKind::Plain => "plain",
            LayoutKind::Sized => "sized",
        }
    }
}

impl core::fmt::Display for LayoutKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where one segment lies in the blob.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Byte offset from the start of the blob.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

impl Segment {
    /// The offset one past the segment's last byte.
    pub fn end(&self) -> usize {
        // Layouts are only built when every end fits in u64 and in usize.
        self.offset.saturating_add(self.size)
    }

    /// The byte range of the segment, for `<[u8]>::get`.
    pub fn range(&self) -> core::ops::Range<usize> {
        self.offset..self.end()
    }
}

/// The position and size of every segment of a blob, padding included.
///
/// `symblob ksym info` prints it; `validate` uses the two padding segments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Which framing the positions follow.
    pub kind: LayoutKind,
    /// `total_bytes` (u64) at offset 0 in the sized layout; empty at offset 0 in the plain
    /// one.
    pub total_bytes: Segment,
    /// `num_syms` (u64), at offset 0 (plain) or 8 (sized).
    pub num_syms: Segment,
    /// `addresses`: N × u64.
    pub addresses: Segment,
    /// `offsets`: N × u32, byte offsets of the name records.
    pub offsets: Segment,
    /// `seqs`: N × u32, address-order indices in name order.
    pub seqs: Segment,
    /// `names_len` (u64).
    pub names_len: Segment,
    /// `names`: the name records.
    pub names: Segment,
    /// Zero padding after `names` (0–7 bytes).
    pub names_padding: Segment,
    /// `token_table_len` (u64).
    pub token_table_len: Segment,
    /// `token_table`: all tokens, concatenated.
    pub token_table: Segment,
    /// Zero padding after `token_table` (0–7 bytes).
    pub token_table_padding: Segment,
    /// `token_index_len` (u64).
    pub token_index_len: Segment,
    /// `token_index`: K × u32, start offsets of the tokens.
    pub token_index: Segment,
    /// The blob's own length `E`: the end of `token_index` (in the sized layout, the value
    /// `total_bytes` holds).
    pub used_size: usize,
}

/// The four counts a layout follows from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// N, the number of symbols.
    pub num_syms: u64,
    /// L, the length of the names segment.
    pub names_len: u64,
    /// T, the length of the token table.
    pub token_table_len: u64,
    /// K, the number of tokens.
    pub token_index_len: u64,
}

/// Bytes of a u64 count field.
const COUNT: u64 = 8;

/// Converts a position computed in u64 to a [`Segment`], naming `section` when it does not
/// fit in `usize`.
fn segment(offset: u64, size: u64, field: (&'static str, u64)) -> Result<Segment, Error> {
    let overflow = || Error::new(Format::Ksym, field.0, field.1, ErrorKind::Overflow);
    // Reject anything whose end overflows, so Segment::end never saturates.
    offset.checked_add(size).ok_or_else(overflow)?;
    let to_usize = |v: u64| usize::try_from(v).map_err(|_| overflow());
    Ok(Segment {
        offset: to_usize(offset)?,
        size: to_usize(size)?,
    })
}

impl Layout {
    /// Computes every segment's position from the four counts, with checked arithmetic.
    ///
    /// An overflow is reported as [`ErrorKind::Overflow`] in the count field whose value
    /// causes it. This does not look at any buffer; [`KsymBlob::parse`] checks that the
    /// segments fit.
    ///
    /// [`KsymBlob::parse`]: super::KsymBlob::parse
    pub(crate) fn compute(c: Counts, kind: LayoutKind) -> Result<Layout, Error> {
        let n_field = ("num_syms", 0);
        let n_overflow = || Error::new(Format::Ksym, n_field.0, n_field.1, ErrorKind::Overflow);
        let table = |width: u64| c.num_syms.checked_mul(width).ok_or_else(n_overflow);

        let header = kind.header_size() as u64;
        let total_bytes = segment(0, header, n_field)?;
        let num_syms = segment(header, COUNT, n_field)?;
        let addresses = segment(header.saturating_add(COUNT), table(8)?, n_field)?;
        let o2 = aligned(addresses.end(), 4, n_field)?;
        let offsets = segment(o2, table(4)?, n_field)?;
        let o3 = aligned(offsets.end(), 4, n_field)?;
        let seqs = segment(o3, table(4)?, n_field)?;
        let o4 = aligned(seqs.end(), 8, n_field)?;
        let names_len = segment(o4, COUNT, n_field)?;

        let l_field = ("names_len", o4);
        let names = segment(end(names_len)?, c.names_len, l_field)?;
        let o6 = aligned(names.end(), 8, l_field)?;
        let names_padding = between(names.end(), o6, l_field)?;
        let token_table_len = segment(o6, COUNT, l_field)?;

        let t_field = ("token_table_len", o6);
        let token_table = segment(end(token_table_len)?, c.token_table_len, t_field)?;
        let o8 = aligned(token_table.end(), 8, t_field)?;
        let token_table_padding = between(token_table.end(), o8, t_field)?;
        let token_index_len = segment(o8, COUNT, t_field)?;

        let k_field = ("token_index_len", o8);
        let k_size = c
            .token_index_len
            .checked_mul(4)
            .ok_or_else(|| Error::new(Format::Ksym, k_field.0, k_field.1, ErrorKind::Overflow))?;
        let o9 = aligned(token_index_len.end(), 4, k_field)?;
        let token_index = segment(o9, k_size, k_field)?;

        Ok(Layout {
            kind,
            total_bytes,
            num_syms,
            addresses,
            offsets,
            seqs,
            names_len,
            names,
            names_padding,
            token_table_len,
            token_table,
            token_table_padding,
            token_index_len,
            token_index,
            used_size: token_index.end(),
        })
    }
}

/// The end of a segment as u64 (segments always fit, so this cannot fail in practice).
fn end(s: Segment) -> Result<u64, Error> {
    u64::try_from(s.end()).map_err(|_| Error::new(Format::Ksym, "layout", 0, ErrorKind::Overflow))
}

/// `align(x, a)` of a segment end, as u64.
fn aligned(x: usize, a: u64, field: (&'static str, u64)) -> Result<u64, Error> {
    u64::try_from(x)
        .ok()
        .and_then(|x| align_up(x, a))
        .ok_or(Error::new(
            Format::Ksym,
            field.0,
            field.1,
            ErrorKind::Overflow,
        ))
}

/// The padding segment from `start` up to `end`.
fn between(start: usize, end: u64, field: (&'static str, u64)) -> Result<Segment, Error> {
    let start = u64::try_from(start)
        .map_err(|_| Error::new(Format::Ksym, field.0, field.1, ErrorKind::Overflow))?;
    segment(start, end.saturating_sub(start), field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_3_positions_match_the_spec_example() {
        let counts = Counts {
            num_syms: 3,
            names_len: 32,
            token_table_len: 23,
            token_index_len: 3,
        };
        let l = Layout::compute(counts, LayoutKind::Plain).unwrap();
        let offsets = [
            l.addresses.offset,
            l.offsets.offset,
            l.seqs.offset,
            l.names_len.offset,
            l.names.offset,
            l.token_table_len.offset,
            l.token_table.offset,
            l.token_table_padding.offset,
            l.token_index_len.offset,
            l.token_index.offset,
            l.used_size,
        ];
        assert_eq!(offsets, [8, 32, 44, 56, 64, 96, 104, 127, 128, 136, 148]);
        assert_eq!(l.token_table_padding.size, 1);
        assert_eq!(l.names_padding.size, 0);
        // The sized layout shifts every segment by 8 and keeps the padding unchanged.
        let sized = Layout::compute(counts, LayoutKind::Sized).unwrap();
        assert_eq!(sized.num_syms.offset, 8);
        assert_eq!(sized.token_index.offset, 144);
        assert_eq!(sized.used_size, 156);
        assert_eq!(sized.token_table_padding.size, 1);
    }

    #[test]
    fn empty_blob_is_32_bytes() {
        let empty = |kind| Layout::compute(Counts::default(), kind).unwrap().used_size;
        assert_eq!(empty(LayoutKind::Plain), 32);
        assert_eq!(empty(LayoutKind::Sized), 40);
    }

    #[test]
    fn overflow_names_the_count() {
        let counts = Counts {
            num_syms: 1 << 62,
            ..Counts::default()
        };
        let e = Layout::compute(counts, LayoutKind::Plain).unwrap_err();
        assert_eq!((e.section, e.kind), ("num_syms", ErrorKind::Overflow));
    }
}
