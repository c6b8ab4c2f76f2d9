//! `KsymBlob::parse`: locate the segments and run the structural checks of spec D4 once,
//! so that every accessor afterwards is infallible.

use core::fmt;

use zerocopy::little_endian::{U32, U64};
use zerocopy::FromBytes;

use super::layout::{Counts, Layout, LayoutKind, Segment};
use super::name::{split_payload, Name};
use super::raw::RECORD_HEADER;
use crate::{Error, ErrorKind, Format};

/// A parsed, structurally validated ksym-bin v1 blob.
///
/// It borrows the blob's tables in place (no copy, no allocation) and is cheap to copy,
/// `Send` and `Sync`: parse it once and share it. Every accessor is infallible; lookups by
/// address need text ranges and live in [`Ksyms`](super::Ksyms).
#[derive(Clone, Copy)]
pub struct KsymBlob<'a> {
    /// The whole input, trailing bytes included (for [`validate`](Self::validate)).
    pub(crate) bytes: &'a [u8],
    pub(crate) addresses: &'a [U64],
    pub(crate) offsets: &'a [U32],
    pub(crate) seqs: &'a [U32],
    pub(crate) names: &'a [u8],
    pub(crate) token_table: &'a [u8],
    pub(crate) token_index: &'a [U32],
    /// The framing the blob was read with.
    pub(crate) kind: LayoutKind,
}

/// Error in `section` at byte `offset`.
pub(crate) fn err(section: &'static str, offset: usize, kind: ErrorKind) -> Error {
    Error::new(Format::Ksym, section, offset as u64, kind)
}

/// A u64 count field, or an error if the blob ends before it.
fn read_count(blob: &[u8], seg: Segment, section: &'static str) -> Result<u64, Error> {
    let bytes = view(blob, seg, section)?;
    U64::read_from_bytes(bytes)
        .map(U64::get)
        .map_err(|_| err(section, seg.offset, ErrorKind::Overflow))
}

/// The bytes of a segment, or a `Truncated` error naming it.
fn view<'a>(blob: &'a [u8], seg: Segment, section: &'static str) -> Result<&'a [u8], Error> {
    blob.get(seg.range()).ok_or_else(|| {
        let available = blob.len().saturating_sub(seg.offset);
        err(
            section,
            seg.offset,
            ErrorKind::Truncated {
                needed: seg.size as u64,
                available: available as u64,
            },
        )
    })
}

/// A table of little-endian integers (alignment 1, so any blob position works).
fn table<'a, T: FromBytes + zerocopy::Immutable>(
    blob: &'a [u8],
    seg: Segment,
    section: &'static str,
) -> Result<&'a [T], Error> {
    let bytes = view(blob, seg, section)?;
    <[T]>::ref_from_bytes(bytes).map_err(|_| err(section, seg.offset, ErrorKind::Overflow))
}

impl<'a> KsymBlob<'a> {
    /// Parses a blob of either layout at any alignment, with structural validation in
    /// O(N + K) and no allocation (spec D2–D5). The layout is recognised by
    /// [`LayoutKind::detect`]; [`parse_as`](Self::parse_as) takes it from a caller that
    /// knows.
    ///
    /// Checked here: every segment fits in `blob`; in the sized layout, `total_bytes`
    /// equals the blob's end; addresses are non-decreasing; every record lies inside
    /// `names` and its payload is empty, raw or a token reference whose id exists;
    /// `token_index` is non-decreasing and within the token table; every `seqs` entry is
    /// below N. Bytes after the blob's end ([`used_size`](Self::used_size)) are allowed:
    /// they are the zero padding of a fixed-size section.
    ///
    /// Errors name the segment and the byte offset of the offending entry.
    pub fn parse(blob: &'a [u8]) -> Result<Self, Error> {
        Self::parse_as(blob, LayoutKind::detect(blob))
    }

    /// [`parse`](Self::parse) with the layout given instead of detected.
    pub fn parse_as(blob: &'a [u8], kind: LayoutKind) -> Result<Self, Error> {
        let (parsed, layout) = Self::locate(blob, kind)?;
        parsed.check_entries(&layout)?;
        Ok(parsed)
    }

    /// Parses a blob that the caller trusts (typically one its own build embedded), in
    /// O(1): only the segment layout is checked, as by [`parse`](Self::parse), and none of
    /// the N + K entries is read. The layout is detected as by `parse`.
    ///
    /// On a blob that [`parse`](Self::parse) accepts, the result is the same value. On one
    /// it would reject for its entries, every accessor is still total and bounded (nothing
    /// panics, no lookup loops), but answers may be wrong: a record that does not lie
    /// inside `names` reads as type `?` with an empty name, a malformed payload as an empty
    /// name, a token reference to a missing token as an empty token, iteration in name
    /// order ends at the first rank whose `seqs` entry is out of range, and searches over
    /// unsorted tables may miss. [`validate`](Self::validate) runs every check of
    /// `parse` and more, whenever the caller can afford it.
    pub fn parse_trusted(blob: &'a [u8]) -> Result<Self, Error> {
        Self::parse_trusted_as(blob, LayoutKind::detect(blob))
    }

    /// [`parse_trusted`](Self::parse_trusted) with the layout given instead of detected.
    pub fn parse_trusted_as(blob: &'a [u8], kind: LayoutKind) -> Result<Self, Error> {
        Self::locate(blob, kind).map(|(parsed, _)| parsed)
    }

    /// Reads the counts and checks that every segment fits in `blob` (spec D2, D3) and, in
    /// the sized layout, that `total_bytes` is the blob's end.
    pub(crate) fn locate(blob: &'a [u8], kind: LayoutKind) -> Result<(Self, Layout), Error> {
        let mut counts = Counts::default();
        // One layout value, recomputed as each count is read (one stack slot: kernels have
        // small stacks).
        let mut layout = Layout::compute(counts, kind)?;
        let total = match kind {
            LayoutKind::Plain => None,
            LayoutKind::Sized => Some(read_count(blob, layout.total_bytes, "total_bytes")?),
        };
        counts.num_syms = read_count(blob, layout.num_syms, "num_syms")?;
        layout = Layout::compute(counts, kind)?;
        // Fixed tables first, so a huge N is reported before names_len is read.
        let addresses = table::<U64>(blob, layout.addresses, "addresses")?;
        let offsets = table::<U32>(blob, layout.offsets, "offsets")?;
        let seqs = table::<U32>(blob, layout.seqs, "seqs")?;
        counts.names_len = read_count(blob, layout.names_len, "names_len")?;
        layout = Layout::compute(counts, kind)?;
        let names = view(blob, layout.names, "names")?;
        counts.token_table_len = read_count(blob, layout.token_table_len, "token_table_len")?;
        layout = Layout::compute(counts, kind)?;
        let token_table = view(blob, layout.token_table, "token_table")?;
        counts.token_index_len = read_count(blob, layout.token_index_len, "token_index_len")?;
        layout = Layout::compute(counts, kind)?;
        let token_index = table::<U32>(blob, layout.token_index, "token_index")?;
        if let Some(total) = total {
            let end = layout.used_size as u64;
            if total != end {
                let kind = ErrorKind::Mismatch {
                    expected: end,
                    found: total,
                };
                return Err(err("total_bytes", 0, kind));
            }
        }
        let parsed = KsymBlob {
            bytes: blob,
            addresses,
            offsets,
            seqs,
            names,
            token_table,
            token_index,
            kind,
        };
        Ok((parsed, layout))
    }

    /// The O(N + K) entry checks of `parse` (D4.2–D4.6).
    pub(crate) fn check_entries(&self, layout: &Layout) -> Result<(), Error> {
        self.check_addresses(layout)?;
        self.check_token_index(layout)?;
        self.check_seqs(layout)?;
        self.check_records(layout)
    }

    /// D4.2: addresses are non-decreasing.
    fn check_addresses(&self, layout: &Layout) -> Result<(), Error> {
        let mut previous = 0u64;
        for (i, a) in self.addresses.iter().enumerate() {
            let a = a.get();
            if a < previous {
                return Err(err(
                    "addresses",
                    entry(layout.addresses, i, 8),
                    ErrorKind::Unsorted,
                ));
            }
            previous = a;
        }
        Ok(())
    }

    /// D4.5: token_index is non-decreasing and no entry lies beyond the token table.
    fn check_token_index(&self, layout: &Layout) -> Result<(), Error> {
        let limit = self.token_table.len() as u64;
        let mut previous = 0u64;
        for (k, start) in self.token_index.iter().enumerate() {
            let start = u64::from(start.get());
            let at = entry(layout.token_index, k, 4);
            if start > limit {
                let kind = ErrorKind::OutOfRange {
                    value: start,
                    limit,
                };
                return Err(err("token_index", at, kind));
            }
            if start < previous {
                return Err(err("token_index", at, ErrorKind::Unsorted));
            }
            previous = start;
        }
        Ok(())
    }

    /// D4.6: every seqs entry names a symbol.
    fn check_seqs(&self, layout: &Layout) -> Result<(), Error> {
        let n = self.addresses.len() as u64;
        for (r, seq) in self.seqs.iter().enumerate() {
            let value = u64::from(seq.get());
            if value >= n {
                let kind = ErrorKind::OutOfRange { value, limit: n };
                return Err(err("seqs", entry(layout.seqs, r, 4), kind));
            }
        }
        Ok(())
    }

    /// D4.3 and D4.4: every record lies inside `names`, and its payload is well formed.
    fn check_records(&self, layout: &Layout) -> Result<(), Error> {
        let names_len = self.names.len() as u64;
        let k = self.token_index.len() as u64;
        for (i, offset) in self.offsets.iter().enumerate() {
            let start = u64::from(offset.get());
            let record_at = layout.names.offset.saturating_add(offset.get() as usize);
            // `start + 3` cannot overflow a u64 built from a u32.
            let header_end = start.saturating_add(RECORD_HEADER as u64);
            if header_end > names_len {
                let kind = ErrorKind::OutOfRange {
                    value: start,
                    limit: names_len.saturating_sub(RECORD_HEADER as u64),
                };
                return Err(err("offsets", entry(layout.offsets, i, 4), kind));
            }
            let payload_len = self.record_payload_len(start);
            let end = header_end.saturating_add(payload_len);
            if end > names_len {
                let kind = ErrorKind::OutOfRange {
                    value: end,
                    limit: names_len,
                };
                return Err(err("names", record_at.saturating_add(1), kind));
            }
            let payload_at = record_at.saturating_add(RECORD_HEADER);
            let payload = self.record(i).map_or(&[][..], |(_, p)| p);
            let split = split_payload(payload).map_err(|_| {
                let what = "token reference without its closing 0xFF";
                err("names", payload_at, ErrorKind::Malformed(what))
            })?;
            if let Some(id) = split.token {
                if u64::from(id) >= k {
                    let kind = ErrorKind::OutOfRange {
                        value: u64::from(id),
                        limit: k,
                    };
                    return Err(err("names", payload_at, kind));
                }
            }
        }
        Ok(())
    }

    /// The u16 payload length of the record at `start` in `names` (0 if out of bounds).
    fn record_payload_len(&self, start: u64) -> u64 {
        let at = usize::try_from(start).unwrap_or(usize::MAX);
        let len = at
            .checked_add(1)
            .and_then(|lo| self.names.get(lo..lo.checked_add(2)?));
        len.and_then(|b| <[u8; 2]>::try_from(b).ok())
            .map_or(0, |b| u64::from(u16::from_le_bytes(b)))
    }

    /// Type byte and payload of record `index`; `None` if `index ≥ N`, or if the record
    /// does not lie inside `names` (which only [`parse_trusted`](Self::parse_trusted)
    /// lets through).
    #[inline]
    pub(crate) fn record(&self, index: usize) -> Option<(u8, &'a [u8])> {
        let start = self.offsets.get(index)?.get() as usize;
        let header = self.names.get(start..start.checked_add(RECORD_HEADER)?)?;
        let (&kind, len) = header.split_first()?;
        let len = u16::from_le_bytes(<[u8; 2]>::try_from(len).ok()?) as usize;
        let payload_start = start.checked_add(RECORD_HEADER)?;
        let payload = self
            .names
            .get(payload_start..payload_start.checked_add(len)?)?;
        Some((kind, payload))
    }

    /// Type byte and decoded name of record `index`; `None` only if `index ≥ N`.
    #[inline]
    pub(crate) fn kind_and_name(&self, index: usize) -> Option<(u8, Name<'a>)> {
        if index >= self.len() {
            return None;
        }
        // A record outside `names` (only parse_trusted lets one through) reads as an
        // unknown type with an empty name, so that every index below N has a symbol.
        Some(
            self.record(index)
                .map_or((b'?', Name::default()), |(kind, payload)| {
                    (kind, self.decode(payload))
                }),
        )
    }

    /// Decodes a payload. Anything [`parse`](Self::parse) would reject (possible after
    /// [`parse_trusted`](Self::parse_trusted)) decodes as an empty name rather than
    /// failing.
    #[inline]
    pub(crate) fn decode(&self, payload: &'a [u8]) -> Name<'a> {
        match split_payload(payload) {
            Ok(p) => Name {
                token: p.token.map_or(&[][..], |id| self.token(usize::from(id))),
                rest: p.rest,
            },
            Err(_) => Name::default(),
        }
    }

    /// The bytes of token `id` (empty if it does not exist).
    #[inline]
    pub(crate) fn token(&self, id: usize) -> &'a [u8] {
        let start = self.token_index.get(id).map_or(0, |s| s.get() as usize);
        let end = match id
            .checked_add(1)
            .and_then(|next| self.token_index.get(next))
        {
            Some(e) => e.get() as usize,
            None => self.token_table.len(),
        };
        self.token_table.get(start..end).unwrap_or_default()
    }

    /// The stored (link-time) address of symbol `index`.
    #[inline]
    pub(crate) fn address(&self, index: usize) -> Option<u64> {
        self.addresses.get(index).map(|a| a.get())
    }

    /// The address-order index of the symbol at name-order rank `rank`.
    #[inline]
    pub(crate) fn seq(&self, rank: usize) -> Option<usize> {
        self.seqs.get(rank).map(|s| s.get() as usize)
    }

    /// The blob's own length `E` (the end of `token_index`, header included); bytes after
    /// it were accepted as padding.
    pub fn used_size(&self) -> usize {
        self.layout().used_size
    }

    /// Number of symbols N.
    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    /// True when the blob holds no symbols, e.g. an all-zero placeholder section that was
    /// never filled (spec section 8).
    pub fn is_empty(&self) -> bool {
        self.addresses.is_empty()
    }

    /// Number of tokens K.
    pub fn token_count(&self) -> usize {
        self.token_index.len()
    }

    /// The four counts N, L, T, K.
    pub(crate) fn counts(&self) -> Counts {
        Counts {
            num_syms: self.addresses.len() as u64,
            names_len: self.names.len() as u64,
            token_table_len: self.token_table.len() as u64,
            token_index_len: self.token_index.len() as u64,
        }
    }

    /// The offset and size of every segment.
    pub fn layout(&self) -> Layout {
        // Parse has computed the same layout successfully, so this cannot fail.
        Layout::compute(self.counts(), self.kind).unwrap_or_default()
    }

    /// The framing the blob was read with.
    pub fn layout_kind(&self) -> LayoutKind {
        self.kind
    }
}

/// Byte offset of entry `i` of a table of `width`-byte entries.
fn entry(table: Segment, i: usize, width: usize) -> usize {
    table.offset.saturating_add(i.saturating_mul(width))
}

impl fmt::Debug for KsymBlob<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KsymBlob")
            .field("symbols", &self.len())
            .field("names_len", &self.names.len())
            .field("tokens", &self.token_count())
            .field("token_table_len", &self.token_table.len())
            .field("used_size", &self.used_size())
            .field("layout", &self.kind)
            .finish()
    }
}
