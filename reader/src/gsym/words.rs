//! Byte order and typed, alignment-1 views of GSYM's fixed-width tables.
//!
//! A table is a zerocopy slice of 1-, 2-, 4- or 8-byte integers in the file's byte
//! order. The width and the order are matched once per call, so a binary search runs a
//! loop specialised for one element type.

use zerocopy::byteorder::{BigEndian, ByteOrder, LittleEndian, U16, U32, U64};
use zerocopy::FromBytes;

use crate::cursor::Cursor;
use crate::partition::partition_point;
use crate::Error;

/// The byte order of a GSYM file, told by its magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Little-endian (what LLVM writes on x86 and Arm hosts).
    Little,
    /// Big-endian.
    Big,
}

/// A stored integer of one width and order, widened to u64.
trait Word: Copy {
    fn value(self) -> u64;
}

impl Word for u8 {
    #[inline(always)]
    fn value(self) -> u64 {
        u64::from(self)
    }
}

impl<O: ByteOrder> Word for U16<O> {
    #[inline(always)]
    fn value(self) -> u64 {
        u64::from(self.get())
    }
}

impl<O: ByteOrder> Word for U32<O> {
    #[inline(always)]
    fn value(self) -> u64 {
        u64::from(self.get())
    }
}

impl<O: ByteOrder> Word for U64<O> {
    #[inline(always)]
    fn value(self) -> u64 {
        self.get()
    }
}

/// A table of unsigned integers of one width, in the file's byte order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Words<'a> {
    U8(&'a [u8]),
    Le16(&'a [U16<LittleEndian>]),
    Be16(&'a [U16<BigEndian>]),
    Le32(&'a [U32<LittleEndian>]),
    Be32(&'a [U32<BigEndian>]),
    Le64(&'a [U64<LittleEndian>]),
    Be64(&'a [U64<BigEndian>]),
}

/// Applies `$body` to the typed slice of `$words`, whatever its width and order.
macro_rules! each_width {
    ($words:expr, $slice:ident => $body:expr) => {
        match $words {
            Words::U8($slice) => $body,
            Words::Le16($slice) => $body,
            Words::Be16($slice) => $body,
            Words::Le32($slice) => $body,
            Words::Be32($slice) => $body,
            Words::Le64($slice) => $body,
            Words::Be64($slice) => $body,
        }
    };
}

impl<'a> Words<'a> {
    /// Views `bytes` as words of `size` bytes (1, 2, 4 or 8) in `endian`; `None` when
    /// the size is another one or does not divide the length.
    pub(crate) fn new(bytes: &'a [u8], size: u8, endian: Endian) -> Option<Self> {
        Some(match (size, endian) {
            (1, _) => Words::U8(bytes),
            (2, Endian::Little) => Words::Le16(FromBytes::ref_from_bytes(bytes).ok()?),
            (2, Endian::Big) => Words::Be16(FromBytes::ref_from_bytes(bytes).ok()?),
            (4, Endian::Little) => Words::Le32(FromBytes::ref_from_bytes(bytes).ok()?),
            (4, Endian::Big) => Words::Be32(FromBytes::ref_from_bytes(bytes).ok()?),
            (8, Endian::Little) => Words::Le64(FromBytes::ref_from_bytes(bytes).ok()?),
            (8, Endian::Big) => Words::Be64(FromBytes::ref_from_bytes(bytes).ok()?),
            _ => return None,
        })
    }

    /// Number of words.
    pub(crate) fn len(&self) -> usize {
        each_width!(self, s => s.len())
    }

    /// Word `index`, widened.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<u64> {
        each_width!(self, s => s.get(index).map(|w| w.value()))
    }

    /// The number of leading words below `key` (C++'s `std::lower_bound`) on a sorted
    /// table; on any other table a position in `0..=len` after O(log n) steps.
    #[inline]
    pub(crate) fn lower_bound(&self, key: u64) -> usize {
        each_width!(self, s => partition_point(s, |w| w.value() < key))
    }

    /// [`lower_bound`](Self::lower_bound) on a sorted table whose word `from` is below
    /// `key`, found by galloping from `from`: O(log d) steps for an answer d words on.
    pub(crate) fn lower_bound_after(&self, from: usize, key: u64) -> usize {
        let first = from.saturating_add(1);
        each_width!(self, s => {
            let rest = s.get(first..).unwrap_or_default();
            // Every word before `end / 2` is below `key`.
            let mut end = 1usize;
            while end < rest.len() && rest.get(end.wrapping_sub(1)).is_some_and(|w| w.value() < key) {
                end = end.saturating_mul(2);
            }
            let low = end / 2;
            let window = rest.get(low..end.min(rest.len())).unwrap_or_default();
            first.saturating_add(low).saturating_add(partition_point(window, |w| w.value() < key))
        })
    }
}

impl Endian {
    /// The `u32` in `bytes` (exactly four) in this order.
    pub(crate) fn u32(self, bytes: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(bytes),
            Endian::Big => u32::from_be_bytes(bytes),
        }
    }

    /// Reads a `u32` in this order for `section`.
    pub(crate) fn read_u32(
        self,
        cursor: &mut Cursor<'_>,
        section: &'static str,
    ) -> Result<u32, Error> {
        let bytes = cursor.take(4, section)?;
        // `take` returned exactly four bytes.
        Ok(self.u32(bytes.try_into().unwrap_or([0; 4])))
    }
}
