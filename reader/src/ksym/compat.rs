//! [`KallsymsMapped`]: the API of the `ksym` crate's reader (versions 0.4–0.6) over
//! symblob's checked, zero-copy blob, so that moving a kernel over is one `use` line.
//!
//! Same method names and shapes as `ksym::KallsymsMapped`, and the same answers on every
//! well-formed blob of either layout, with these differences, all of them fixes:
//!
//! * **Alignment**: the crate reinterprets the tables in place and needs the blob 8-byte
//!   (it documents 4 KiB) aligned; here any alignment works.
//! * **Malformed blobs**: the crate indexes without checks and panics (or reads out of
//!   bounds) on a bad blob; here [`from_blob`](KallsymsMapped::from_blob) runs
//!   [`KsymBlob::parse`] and nothing afterwards panics.
//! * **Layouts**: both the plain (0.4/0.5) and the sized (0.6) layout are accepted, and
//!   zero padding after a sized blob is allowed, so the section need not be cut first.
//! * **Token id 511**: the crate reads the long reference `FF 01 FF FF` as token 1; here
//!   the spec's unambiguous rule (D5) decodes it.
//! * **Long names**: the crate cuts names at 4096 bytes, so `lookup_name` cannot find a
//!   longer one and a cut inside a UTF-8 character returns an empty name. Here names are
//!   compared whole, and a name longer than the caller's buffer is cut at the last
//!   character boundary that fits.
//! * **Addresses below the first symbol** (but inside `stext..etext`): the crate computes
//!   a negative offset (a panic in debug builds); here the answer is `None`.
//! * **Empty name records** (`len = 0`): the crate indexes past the record and panics;
//!   here the name is empty.
//! * **Dump**: `dump_all_symbols` writes into any [`core::fmt::Write`] instead of
//!   returning a `String`, so nothing is allocated; [`KsymBlob::symbols`] iterates.
//!
//! What stays as the crate does it, so that a kernel sees the same output: an address
//! inside (not at the start of) a group of aliases reports the *last* alias of the group
//! (the crate rewinds only over aliases equal to the queried address; [`Ksyms`] always
//! reports the first), a symbol's size runs to the next greater address even past
//! `etext`, and `lookup_name` answers the address of the first name in name order.
//!
//! [`Ksyms`]: super::Ksyms

use core::fmt;

use super::dump::DumpLine;
use super::name::Name;
use super::parse::KsymBlob;
use crate::{Error, ErrorKind};

/// The name buffer length the `ksym` crate uses (`ksym::KSYM_NAME_LEN`).
pub const KSYM_NAME_LEN: usize = 4096;

/// Drop-in replacement for `ksym::KallsymsMapped` (module docs list what it fixes).
#[derive(Clone, Copy, Debug)]
pub struct KallsymsMapped<'a> {
    blob: KsymBlob<'a>,
    stext: u64,
    etext: u64,
}

impl<'a> KallsymsMapped<'a> {
    /// The blob's own length, for cutting the zero padding of a section: the sized
    /// layout's `total_bytes`, or the end of a plain blob. Fails only when `blob` is
    /// shorter than 8 bytes. On bytes that are neither layout it returns the first u64,
    /// as the crate does, and `from_blob` then refuses them.
    pub fn check_total_bytes(blob: &[u8]) -> Result<u64, &'static str> {
        let first = blob
            .first_chunk::<8>()
            .ok_or("Blob is too small to contain the total byte count")?;
        let first = u64::from_le_bytes(*first);
        // A sized blob's used size is its `total_bytes`, checked by the parse.
        Ok(KsymBlob::parse_trusted(blob).map_or(first, |parsed| parsed.used_size() as u64))
    }

    /// Parses and checks `blob` ([`KsymBlob::parse`], either layout, any alignment,
    /// trailing zero padding allowed); `stext..etext` is the text range addresses are
    /// looked up in. Errors are the crate's messages where the crate has one for the
    /// problem; [`KsymBlob::parse`] gives the section and offset.
    pub fn from_blob(blob: &'a [u8], stext: u64, etext: u64) -> Result<Self, &'static str> {
        let blob = KsymBlob::parse(blob).map_err(|e| message(&e))?;
        Ok(KallsymsMapped { blob, stext, etext })
    }

    /// The same over a blob already parsed.
    pub fn from_parsed(blob: KsymBlob<'a>, stext: u64, etext: u64) -> Self {
        KallsymsMapped { blob, stext, etext }
    }

    /// The parsed blob, for symblob's own API (iteration, [`Ksyms`](super::Ksyms),
    /// [`NameIndex`](super::NameIndex)).
    pub fn blob(&self) -> KsymBlob<'a> {
        self.blob
    }

    /// Writes every symbol in address order, one `{address:016x} {type} {name}` line
    /// each, to `out` (the crate returns a `String` instead).
    pub fn dump_all_symbols<W: fmt::Write>(&self, out: &mut W) -> fmt::Result {
        self.blob
            .symbols()
            .try_for_each(|entry| write!(out, "{}", DumpLine { entry }))
    }

    /// Address → `(name, size, offset, type)`, the name copied into `name_buf` (cut at
    /// the last character boundary that fits). `None` outside `stext..etext`, below the
    /// first symbol, or when there are no symbols.
    pub fn lookup_address<'b, const N: usize>(
        &self,
        addr: u64,
        name_buf: &'b mut [u8; N],
    ) -> Option<(&'b str, u64, u64, char)> {
        if addr < self.stext || addr >= self.etext {
            return None;
        }
        let addresses = self.blob.addresses;
        let above = addresses.partition_point(|a| a.get() <= addr);
        let mut low = above.checked_sub(1)?;
        // As the crate: rewind only over aliases that start exactly at `addr`.
        while let Some(prev) = low.checked_sub(1) {
            if self.blob.address(prev) != Some(addr) {
                break;
            }
            low = prev;
        }
        let start = self.blob.address(low)?;
        let end = addresses
            .get(low..)
            .and_then(|after| after.iter().map(|a| a.get()).find(|&a| a > start))
            .unwrap_or(self.etext);
        let (kind, name) = match self.blob.record(low) {
            Some((kind, payload)) => (char::from(kind), self.blob.decode(payload)),
            None => (' ', Name::default()),
        };
        let size = end.wrapping_sub(start);
        Some((
            copy_cut(name, name_buf),
            size,
            addr.wrapping_sub(start),
            kind,
        ))
    }

    /// The address of the symbol at name-order rank `idx` (from
    /// [`lookup_names`](Self::lookup_names)), or `None` past the end.
    pub fn lookup_name_by_idx(&self, idx: usize) -> Option<u64> {
        self.blob.address(self.blob.seq(idx)?)
    }

    /// Name → address: the address of the first symbol named exactly `name` in name order.
    pub fn lookup_name(&self, name: &str) -> Option<u64> {
        let (first, _) = self.lookup_names(name, false)?;
        self.lookup_name_by_idx(first)
    }

    /// The name-order ranks of the symbols named exactly `name`: the first, and the last
    /// when `need_end` (0 otherwise, as the crate returns it).
    pub fn lookup_names(&self, name: &str, need_end: bool) -> Option<(usize, usize)> {
        let ranks = self.blob.lookup_name_all(name).ranks();
        let last = ranks.end.checked_sub(1)?;
        (ranks.start <= last).then_some((ranks.start, if need_end { last } else { 0 }))
    }
}

/// Copies as much of `name` as fits into `buf` and returns it as text, cut at the last
/// UTF-8 character boundary inside what was copied.
fn copy_cut<'b, const N: usize>(name: Name<'_>, buf: &'b mut [u8; N]) -> &'b str {
    let source = name.token.iter().chain(name.rest);
    let copied = buf.iter_mut().zip(source).map(|(d, s)| *d = *s).count();
    let buf: &'b [u8; N] = buf;
    let filled: &'b [u8] = buf.get(..copied).unwrap_or_default();
    match core::str::from_utf8(filled) {
        Ok(text) => text,
        Err(e) => filled
            .get(..e.valid_up_to())
            .and_then(|valid| core::str::from_utf8(valid).ok())
            .unwrap_or_default(),
    }
}

/// The crate's message for a parse error, where it has one.
fn message(e: &Error) -> &'static str {
    match (e.section, e.kind) {
        ("total_bytes", ErrorKind::Mismatch { .. }) => {
            "The total bytes in the blob does not match the actual blob length"
        }
        ("total_bytes", _) => "Blob is too small to contain the total byte count",
        ("num_syms", ErrorKind::Truncated { .. }) => "The number of symbols is missing",
        ("addresses", ErrorKind::Truncated { .. }) => "The addresses array is missing",
        ("offsets", ErrorKind::Truncated { .. }) => "The offsets array is missing",
        ("seqs", ErrorKind::Truncated { .. }) => "The seqs array is missing",
        ("names_len", ErrorKind::Truncated { .. }) => "The names length is missing",
        ("names", ErrorKind::Truncated { .. }) => "The names array is missing",
        ("token_table_len", ErrorKind::Truncated { .. }) => "The token table length is missing",
        ("token_table", ErrorKind::Truncated { .. }) => "The token table array is missing",
        ("token_index_len", ErrorKind::Truncated { .. }) => "The token index length is missing",
        ("token_index", ErrorKind::Truncated { .. }) => "The token index array is missing",
        _ => "The blob is malformed (KsymBlob::parse names the section and offset)",
    }
}
