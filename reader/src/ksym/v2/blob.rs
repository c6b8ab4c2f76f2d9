//! `Blob`: a v2 blob opened in place, and its tables.

use core::fmt;

use zerocopy::little_endian::{U32, U64};
use zerocopy::FromBytes;

use super::header::Geometry;
use super::packed::Packed;
use crate::Error;

/// A ksym-bin v2 blob (spec `ksym-bin-v2.md`), read in place: no copy, no allocation.
///
/// Cheap to copy, `Send` and `Sync`. [`open`](Self::open) checks the layout in O(1);
/// [`parse`](Self::parse) also runs [`validate`](Self::validate) (O(N)). Every accessor
/// is total and bounded on any bytes `open` accepts; on a blob that `validate` would
/// reject, answers may be wrong but nothing panics or loops.
#[derive(Clone, Copy)]
pub struct Blob<'a> {
    /// The blob, cut at its end `E` (padding after it excluded).
    pub(crate) bytes: &'a [u8],
    /// The whole input, padding included (for `validate`).
    pub(crate) input: &'a [u8],
    pub(crate) g: Geometry,
}

/// The `first` array of the address blocks, in its stored word size (spec 4.2).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Firsts<'a> {
    Words(&'a [U32]),
    Wide(&'a [U64]),
}

/// The strings the 256 codes stand for (`token_ends`, `token_bytes`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CodeTable<'a> {
    ends: &'a [u8],
    /// `token_bytes`.
    pub strings: &'a [u8],
}

impl<'a> CodeTable<'a> {
    /// Where code `c`'s string starts in `token_bytes`, and the string (empty for an
    /// unused code or a broken table).
    #[inline(always)]
    pub fn at(&self, c: u8) -> (usize, &'a [u8]) {
        let end_of = |k: usize| {
            self.ends
                .get(k.wrapping_mul(2)..k.wrapping_mul(2).wrapping_add(2))
                .and_then(|b| <[u8; 2]>::try_from(b).ok())
                .map_or(0, |b| usize::from(u16::from_le_bytes(b)))
        };
        let k = usize::from(c);
        let start = if c == 0 { 0 } else { end_of(k.wrapping_sub(1)) };
        let string = self.strings.get(start..end_of(k)).unwrap_or_default();
        (start, string)
    }

    /// The string code `c` stands for.
    #[inline(always)]
    pub fn string(&self, c: u8) -> &'a [u8] {
        self.at(c).1
    }
}

impl<'a> Blob<'a> {
    /// Opens a blob the caller trusts (its own build's), in O(1): the header and the
    /// segment layout are checked, none of the N entries is read.
    pub fn open(bytes: &'a [u8]) -> Result<Self, Error> {
        let g = Geometry::read(bytes)?;
        let end = usize::try_from(g.end).unwrap_or(usize::MAX);
        Ok(Blob {
            bytes: bytes.get(..end).unwrap_or(bytes),
            input: bytes,
            g,
        })
    }

    /// Opens a blob and checks everything the spec requires ([`validate`](Self::validate)).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let blob = Self::open(bytes)?;
        blob.validate()?;
        Ok(blob)
    }

    /// The number of symbols.
    pub fn len(&self) -> usize {
        self.g.num_syms as usize
    }

    /// Whether the blob holds no symbol.
    pub fn is_empty(&self) -> bool {
        self.g.num_syms == 0
    }

    /// The blob's own length `E` (what `total_bytes` holds).
    pub fn used_size(&self) -> usize {
        self.bytes.len()
    }

    /// The lowest stored address (0 for an empty blob).
    pub fn base(&self) -> u64 {
        self.g.base
    }

    /// The number of codes that stand for more than one byte.
    pub fn multi_byte_codes(&self) -> usize {
        (0..=255u8).filter(|&c| self.code(c).len() > 1).count()
    }

    /// The bytes of segment `[start, end)`.
    #[inline(always)]
    pub(crate) fn segment(&self, start: u32, end: u32) -> &'a [u8] {
        self.bytes
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// The distinct type bytes.
    pub(crate) fn types(&self) -> &'a [u8] {
        self.segment(self.g.types, self.g.token_ends)
    }

    /// The `names` stream.
    #[inline(always)]
    pub(crate) fn names(&self) -> &'a [u8] {
        self.segment(self.g.names, self.g.n2a)
    }

    /// The string code `c` stands for (empty for an unused code).
    #[inline(always)]
    pub(crate) fn code(&self, c: u8) -> &'a [u8] {
        self.code_table().string(c)
    }

    /// The code table, cut from the blob once for a run of code reads.
    #[inline(always)]
    pub(crate) fn code_table(&self) -> CodeTable<'a> {
        CodeTable {
            ends: self.segment(self.g.token_ends, self.g.token_bytes),
            strings: self.segment(self.g.token_bytes, self.g.shapes),
        }
    }

    /// `a2n`, `n2a` and `restart_pos` as packed arrays.
    #[inline(always)]
    pub(crate) fn a2n(&self) -> Packed<'a> {
        Packed {
            bytes: self.segment(self.g.a2n, self.g.restart_keys),
            width: self.g.group_bits.wrapping_add(self.g.type_bits),
        }
    }

    #[inline(always)]
    pub(crate) fn n2a(&self) -> Packed<'a> {
        Packed {
            bytes: self.segment(self.g.n2a, self.g.hash_starts),
            width: self.g.index_bits,
        }
    }

    #[inline(always)]
    pub(crate) fn restart_pos(&self, m: usize) -> usize {
        let array = Packed {
            bytes: self.segment(self.g.restart_pos, self.g.names),
            width: self.g.restart_pos_bits,
        };
        usize::try_from(array.get(m)).unwrap_or(usize::MAX)
    }

    /// The search key of restart `m`: the first eight bytes of its name, big-endian.
    #[inline(always)]
    pub(crate) fn restart_key(&self, m: usize) -> u64 {
        let keys = self.segment(self.g.restart_keys, self.g.restart_pos);
        let at = m.wrapping_mul(8);
        keys.get(at..at.wrapping_add(8))
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(u64::MAX, u64::from_be_bytes)
    }

    /// The number of restarts, `ceil(N / R)`.
    pub(crate) fn restarts(&self) -> usize {
        ceil_shift(self.len(), self.g.restart_shift)
    }

    /// The number of address blocks, `ceil(N / A)`.
    pub(crate) fn address_blocks(&self) -> usize {
        ceil_shift(self.len(), self.g.addr_block_shift)
    }

    /// The blocks' first offsets (`addr_blocks`, first array).
    #[inline(always)]
    pub(crate) fn firsts(&self) -> Firsts<'a> {
        let blocks = self.segment(self.g.addr_blocks, self.g.addr_data);
        let count = self.address_blocks();
        if self.g.first_bytes == 8 {
            let bytes = blocks.get(..count.wrapping_mul(8)).unwrap_or_default();
            Firsts::Wide(<[U64]>::ref_from_bytes(bytes).unwrap_or_default())
        } else {
            let bytes = blocks.get(..count.wrapping_mul(4)).unwrap_or_default();
            Firsts::Words(<[U32]>::ref_from_bytes(bytes).unwrap_or_default())
        }
    }

    /// Block `j`'s first offset (0 past the end).
    #[inline(always)]
    pub(crate) fn first(&self, j: usize) -> u64 {
        match self.firsts() {
            Firsts::Words(w) => w.get(j).map_or(0, |v| u64::from(v.get())),
            Firsts::Wide(w) => w.get(j).map_or(0, |v| v.get()),
        }
    }

    /// Block `j`'s in-block offsets: the packed array after its width byte (empty past
    /// the end).
    #[inline(always)]
    pub(crate) fn block_data(&self, j: usize) -> Packed<'a> {
        match self.block_bytes(j) {
            Some([width, bytes @ ..]) => Packed {
                bytes,
                width: u32::from(*width).min(64),
            },
            _ => Packed::default(),
        }
    }

    /// Block `j`'s width byte as stored (`None` when `pos` is past `addr_data`).
    pub(crate) fn raw_block_width(&self, j: usize) -> Option<u8> {
        self.block_bytes(j)?.first().copied()
    }

    /// The bytes of `addr_data` after block `j`'s width byte (what its offsets may use).
    pub(crate) fn block_room(&self, j: usize) -> u64 {
        // `block_bytes` runs to the blob's end: take off the segments after `addr_data`.
        let after_data = u64::from(self.g.end.wrapping_sub(self.g.a2n));
        self.block_bytes(j)
            .map_or(0, |b| b.len() as u64)
            .saturating_sub(after_data)
            .saturating_sub(1)
    }

    /// The blob from block `j`'s `pos` in `addr_data` on (the later segments follow, so
    /// that reading a word at the last offsets never needs a shorter path).
    #[inline(always)]
    fn block_bytes(&self, j: usize) -> Option<&'a [u8]> {
        let blocks = self.segment(self.g.addr_blocks, self.g.addr_data);
        let positions = self
            .address_blocks()
            .wrapping_mul(self.g.first_bytes as usize);
        let at = positions.wrapping_add(j.wrapping_mul(4));
        let pos = blocks
            .get(at..at.wrapping_add(4))
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(usize::MAX, |b| u32::from_le_bytes(b) as usize);
        self.segment(self.g.addr_data, self.g.end).get(pos..)
    }

    /// The symbols of block `j` (`A`, or fewer in the last block).
    #[inline(always)]
    pub(crate) fn block_len(&self, j: usize) -> usize {
        let a = 1usize.wrapping_shl(self.g.addr_block_shift);
        self.len().saturating_sub(j.wrapping_mul(a)).min(a)
    }
}

/// `ceil(n / 2^shift)`.
pub(crate) fn ceil_shift(n: usize, shift: u32) -> usize {
    let whole = n.wrapping_shr(shift);
    let rest = n & 1usize.wrapping_shl(shift).wrapping_sub(1);
    whole.wrapping_add(usize::from(rest != 0))
}

impl fmt::Debug for Blob<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ksym::v2::Blob")
            .field("symbols", &self.len())
            .field("used_size", &self.used_size())
            .field("base", &format_args!("{:#x}", self.g.base))
            .finish()
    }
}
