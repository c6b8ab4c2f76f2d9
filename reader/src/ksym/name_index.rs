//! An optional hash index for name → address, built once into memory the caller provides.
//!
//! [`KsymBlob::lookup_name`] needs no extra memory, but each step of its binary search
//! makes three dependent reads (seqs → offsets → record) and compares long shared prefixes.
//! [`NameIndex`] trades [`NameIndex::WORDS_PER_SYMBOL`] `u64` words (16 bytes) per symbol
//! of caller memory for a lookup that hashes the query once, reads one or two adjacent
//! slots, and compares a single stored name. The blob itself is not changed.
//!
//! The table uses linear probing. A slot holds the upper 32 bits of the name's hash (a tag
//! that rejects nearly every other name without reading it) and the address-order index of
//! the symbol plus one; zero marks an empty slot. Symbols are inserted in address order and
//! only the first symbol of each name is inserted, so the first match is the lowest address
//! (parse checks that addresses do not decrease).
//!
//! Hostile blobs: names crafted to collide would make probe runs long, so the build gives up
//! with an error once any insertion has to probe more than [`MAX_PROBES`] slots, and a
//! lookup never probes more than that. A lookup is therefore O(1) in the worst case, and the
//! build O(N + buffer length).

use core::cmp::Ordering;

use super::name::Name;
use super::parse::{err, KsymBlob};
use crate::{Error, ErrorKind};

/// The longest probe run an insertion may need before the build gives up. At the load
/// factor of at most one half that [`NameIndex::words_needed`] guarantees, runs of even 64
/// slots are vanishingly rare for well-spread hashes; 1024 only stops crafted collisions.
pub const MAX_PROBES: usize = 1024;

/// A name → address hash index over a [`KsymBlob`], in a caller-provided `&mut [u64]`.
///
/// ```
/// # use symblob::ksym::{KsymBlob, NameIndex};
/// # fn demo(blob: KsymBlob<'_>) -> Result<(), symblob::Error> {
/// let mut words = vec![0u64; NameIndex::words_needed(blob.len())];
/// let index = NameIndex::build(blob, &mut words)?;
/// assert_eq!(index.lookup_name("do_fork"), blob.lookup_name("do_fork"));
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NameIndex<'a, 'b> {
    blob: KsymBlob<'a>,
    slots: &'b [u64],
}

impl<'a, 'b> NameIndex<'a, 'b> {
    /// Words of index memory per symbol that [`words_needed`](Self::words_needed) asks for:
    /// 2 × 8 bytes, a table at most half full.
    pub const WORDS_PER_SYMBOL: usize = 2;

    /// The smallest buffer, in `u64` words, that [`build`](Self::build) accepts for a blob
    /// of `symbols` symbols: `2 × symbols` (16 bytes per symbol). A larger buffer is used
    /// whole and makes probe runs shorter.
    pub const fn words_needed(symbols: usize) -> usize {
        symbols.saturating_mul(Self::WORDS_PER_SYMBOL)
    }

    /// Builds the index into `buf` in O(N + `buf.len()`), without allocating.
    ///
    /// Fails with [`ErrorKind::BufferTooSmall`] (section `name_index`; `needed` in bytes)
    /// when `buf` is shorter than [`words_needed`](Self::words_needed), with
    /// [`ErrorKind::Overflow`] when the blob has `u32::MAX` symbols or more, and with
    /// [`ErrorKind::Malformed`] (section `names`, at the record's offset entry) when the
    /// names collide so often that an insertion would probe more than [`MAX_PROBES`]
    /// slots (only crafted blobs do; [`KsymBlob::lookup_name`] still works on them).
    pub fn build(blob: KsymBlob<'a>, buf: &'b mut [u64]) -> Result<Self, Error> {
        let n = blob.len();
        let needed = Self::words_needed(n);
        if buf.len() < needed {
            let bytes = (needed as u64).saturating_mul(8);
            let kind = ErrorKind::BufferTooSmall { needed: bytes };
            return Err(err("name_index", 0, kind));
        }
        if u32::try_from(n).map_or(true, |n| n == u32::MAX) {
            return Err(err("num_syms", 0, ErrorKind::Overflow));
        }
        // The position arithmetic works on a u32 table length; more slots are never needed.
        let cap = buf.len().min(u32::MAX as usize);
        let slots = buf.get_mut(..cap).unwrap_or_default();
        slots.fill(0);
        for index in 0..n {
            let name = blob
                .kind_and_name(index)
                .map_or(Name::default(), |(_, n)| n);
            let hash = hash_name(name);
            let entry = (hash & TAG_MASK) | (index as u64).wrapping_add(1);
            let mut pos = start(hash, cap);
            let mut placed = false;
            for _ in 0..MAX_PROBES {
                let Some(slot) = slots.get_mut(pos) else {
                    break;
                };
                if *slot == 0 {
                    *slot = entry;
                    placed = true;
                    break;
                }
                // The same name is already in: it has the lower address, so this symbol
                // can never be an answer.
                if same_tag(*slot, hash) && stored_name(&blob, *slot).cmp_name(&name).is_eq() {
                    placed = true;
                    break;
                }
                pos = next(pos, cap);
            }
            if !placed {
                let at = blob
                    .layout()
                    .offsets
                    .offset
                    .saturating_add(index.saturating_mul(4));
                let what = "names collide too often for a name index";
                return Err(err("names", at, ErrorKind::Malformed(what)));
            }
        }
        Ok(NameIndex { blob, slots })
    }

    /// The lowest address among the symbols named exactly `name`, or `None`: the same
    /// answer as [`KsymBlob::lookup_name`], in O(1) expected time.
    #[inline]
    pub fn lookup_name(&self, name: impl AsRef<[u8]>) -> Option<u64> {
        self.blob.address(self.index_of(name.as_ref())?)
    }

    /// The address-order index (for [`KsymBlob::symbol`]) of the lowest-addressed symbol
    /// named exactly `name`.
    #[inline]
    pub fn index_of(&self, name: &[u8]) -> Option<usize> {
        let cap = self.slots.len();
        let hash = hash_bytes(name);
        let mut pos = start(hash, cap);
        for _ in 0..MAX_PROBES {
            let slot = *self.slots.get(pos)?;
            if slot == 0 {
                return None;
            }
            if same_tag(slot, hash) {
                let index = slot_index(slot);
                let (_, stored) = self.blob.kind_and_name(index)?;
                if stored.len() == name.len() && stored.cmp_bytes(name) == Ordering::Equal {
                    return Some(index);
                }
            }
            pos = next(pos, cap);
        }
        None
    }

    /// The blob the index was built over.
    pub fn blob(&self) -> KsymBlob<'a> {
        self.blob
    }
}

/// The tag half of a slot: the hash's upper 32 bits.
const TAG_MASK: u64 = 0xFFFF_FFFF_0000_0000;

#[inline]
fn same_tag(slot: u64, hash: u64) -> bool {
    (slot ^ hash) & TAG_MASK == 0
}

/// The symbol index a non-empty slot holds.
#[inline]
fn slot_index(slot: u64) -> usize {
    let low = u32::try_from(slot & 0xFFFF_FFFF).unwrap_or(0);
    low.wrapping_sub(1) as usize
}

fn stored_name<'a>(blob: &KsymBlob<'a>, slot: u64) -> Name<'a> {
    blob.kind_and_name(slot_index(slot))
        .map_or(Name::default(), |(_, n)| n)
}

/// The first slot to probe: the hash's lower 32 bits scaled onto `0..cap` (a multiply
/// and a shift, no division; `cap` ≤ `u32::MAX`).
#[inline]
fn start(hash: u64, cap: usize) -> usize {
    let scaled = (hash & 0xFFFF_FFFF).wrapping_mul(cap as u64) >> 32;
    usize::try_from(scaled).unwrap_or(0)
}

#[inline]
fn next(pos: usize, cap: usize) -> usize {
    let pos = pos.wrapping_add(1);
    if pos >= cap {
        0
    } else {
        pos
    }
}

/// Multiplier of the word mix (the 64-bit golden ratio, as in FxHash).
const K: u64 = 0x9E37_79B9_7F4A_7C15;

/// A streaming hash over 8-byte little-endian words; a name split into token and rest
/// hashes exactly as the same bytes in one piece. ksym-bin v2's name hash index uses it
/// too (ksym-bin-v2.md 4.5).
pub(crate) struct Hasher {
    state: u64,
    pending: u64,
    filled: u32,
    len: u64,
}

impl Hasher {
    pub(crate) const fn new() -> Self {
        Hasher {
            state: 0,
            pending: 0,
            filled: 0,
            len: 0,
        }
    }

    #[inline]
    fn word(&mut self, w: u64) {
        self.state = (self.state.rotate_left(5) ^ w).wrapping_mul(K);
    }

    #[inline]
    pub(crate) fn write(&mut self, mut bytes: &[u8]) {
        self.len = self.len.wrapping_add(bytes.len() as u64);
        // Complete a word left over from the previous piece, byte by byte.
        while self.filled != 0 {
            let Some((&b, tail)) = bytes.split_first() else {
                return;
            };
            self.pending |= u64::from(b) << (self.filled.wrapping_mul(8) & 63);
            self.filled = self.filled.wrapping_add(1);
            bytes = tail;
            if self.filled == 8 {
                let w = self.pending;
                self.word(w);
                self.pending = 0;
                self.filled = 0;
            }
        }
        let mut words = bytes.chunks_exact(8);
        for w in words.by_ref() {
            let w = <[u8; 8]>::try_from(w).map_or(0, u64::from_le_bytes);
            self.word(w);
        }
        let mut shift = 0u32;
        for &b in words.remainder() {
            self.pending |= u64::from(b) << (shift & 63);
            shift = shift.wrapping_add(8);
        }
        self.filled = shift / 8;
    }

    #[inline]
    pub(crate) fn finish(mut self) -> u64 {
        if self.filled != 0 {
            let w = self.pending;
            self.word(w);
        }
        let len = self.len;
        self.word(len);
        // murmur3's finaliser: every input bit reaches both the tag and the position half.
        let mut h = self.state;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        h ^ (h >> 33)
    }
}

#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = Hasher::new();
    h.write(bytes);
    h.finish()
}

fn hash_name(name: Name<'_>) -> u64 {
    let mut h = Hasher::new();
    h.write(name.token);
    h.write(name.rest);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_names_hash_like_contiguous_bytes() {
        let text: &[u8] =
            b"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$GT$17h0123456789abcdefE";
        for len in 0..text.len() {
            let whole = &text[..len];
            for cut in 0..=len {
                let (token, rest) = whole.split_at(cut);
                assert_eq!(
                    hash_name(Name { token, rest }),
                    hash_bytes(whole),
                    "{len}@{cut}"
                );
            }
        }
    }

    #[test]
    fn start_stays_below_the_capacity() {
        for cap in [1usize, 2, 3, 1000, u32::MAX as usize] {
            for hash in [0u64, u64::MAX, 0xFFFF_FFFF, 0x1234_5678_9ABC_DEF0] {
                assert!(start(hash, cap) < cap);
            }
        }
    }
}
