//! Address → symbol for v2 blobs: text ranges, load bias, aliases and return addresses as
//! in v1 (ksym-bin.md D8–D10).

use core::fmt;

use super::addresses::Located;
use super::blob::Blob;
use super::name::Name;
use crate::ksym::TextRanges;
use crate::Error;

/// A v2 blob ready for address lookups: the blob, the text ranges the caller vouches
/// for, and the load bias (runtime = stored + bias). `Copy` and `Sync`.
#[derive(Clone, Copy, Debug)]
pub struct Ksyms<'a> {
    blob: Blob<'a>,
    ranges: TextRanges<'a>,
    bias: u64,
}

/// The symbol that covers an address. `Display` prints `name+0xoff/0xsize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol<'a> {
    /// Index in address order: the first of the aliases at this address.
    pub index: usize,
    /// Runtime address of the symbol's start.
    pub address: u64,
    /// Distance to the next greater stored address or to the end of the text range,
    /// whichever comes first.
    pub size: u64,
    /// Distance from the symbol's start to the queried address (plus one for
    /// return-address lookups).
    pub offset: u64,
    /// The nm type letter as a byte.
    pub kind: u8,
    /// The name, decoded when used.
    pub name: Name<'a>,
}

impl fmt::Display for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{:#x}/{:#x}", self.name, self.offset, self.size)
    }
}

impl<'a> Ksyms<'a> {
    /// Combines a blob with validated text ranges; the bias is 0.
    pub fn new(blob: Blob<'a>, ranges: TextRanges<'a>) -> Self {
        Ksyms {
            blob,
            ranges,
            bias: 0,
        }
    }

    /// Parses (and validates) `bytes` and uses the single text range `[stext, etext)`.
    pub fn from_blob(bytes: &'a [u8], stext: u64, etext: u64) -> Result<Self, Error> {
        Ok(Ksyms::new(
            Blob::parse(bytes)?,
            TextRanges::single(stext, etext)?,
        ))
    }

    /// Sets the load bias `runtime − stored`; additions wrap.
    pub fn with_bias(self, bias: u64) -> Self {
        Ksyms { bias, ..self }
    }

    /// The blob.
    pub fn blob(&self) -> Blob<'a> {
        self.blob
    }

    /// The text ranges.
    pub fn ranges(&self) -> TextRanges<'a> {
        self.ranges
    }

    /// The load bias.
    pub fn bias(&self) -> u64 {
        self.bias
    }

    /// The symbol covering the runtime address `addr`, or `None` outside every text
    /// range or before that range's first symbol. Among aliases the first is reported.
    #[inline]
    pub fn lookup_address(&self, addr: u64) -> Option<Symbol<'a>> {
        let range = self.ranges.find(addr)?;
        let located = self.blob.locate(addr.wrapping_sub(self.bias))?;
        self.symbol_at(addr, range, &located)
    }

    /// Looks up every address of `addrs` and calls `each(i, symbol)` for `addrs[i]`, in
    /// order, with what [`lookup_address`](Self::lookup_address) answers; the searches of
    /// [`LANES`](crate::LANES) addresses run in lockstep.
    pub fn lookup_address_each(
        &self,
        addrs: &[u64],
        mut each: impl FnMut(usize, Option<Symbol<'a>>),
    ) {
        let lanes = crate::LANES;
        for (c, chunk) in addrs.chunks(lanes).enumerate() {
            let mut keys = [0u64; crate::LANES];
            for (key, &addr) in keys.iter_mut().zip(chunk) {
                *key = addr.wrapping_sub(self.bias);
            }
            let located = self.blob.locate_each(&keys);
            for (lane, (&addr, at)) in chunk.iter().zip(located).enumerate() {
                let symbol = self
                    .ranges
                    .find(addr)
                    .and_then(|range| self.symbol_at(addr, range, &at?));
                each(c.wrapping_mul(lanes).wrapping_add(lane), symbol);
            }
        }
    }

    /// Resolves a return address: looks up `ra − 1` and reports the offset of `ra`.
    /// `None` for `ra = 0`.
    pub fn lookup_return_address(&self, ra: u64) -> Option<Symbol<'a>> {
        let mut symbol = self.lookup_address(ra.checked_sub(1)?)?;
        symbol.offset = symbol.offset.wrapping_add(1);
        Some(symbol)
    }

    /// The symbol covering `addr` in the range `(start, end)`, given where `addr − bias`
    /// falls among the stored addresses.
    #[inline]
    fn symbol_at(
        &self,
        addr: u64,
        (range_start, range_end): (u64, u64),
        at: &Located,
    ) -> Option<Symbol<'a>> {
        let stored = addr.wrapping_sub(self.bias);
        let start = at.start;
        let offset = stored.wrapping_sub(start);
        if offset > addr.wrapping_sub(range_start) {
            return None;
        }
        let to_range_end = range_end.wrapping_sub(addr).wrapping_add(offset);
        let size = match at.following {
            Some(following) => following.wrapping_sub(start).min(to_range_end),
            None => to_range_end,
        };
        let last = at.count.checked_sub(1)?;
        // The first alias is found in the block the lookup read, but for an alias group
        // that begins in the block before, which costs a second search.
        let index = match at.first {
            Some(first) => first.min(last),
            None => start
                .checked_sub(1)
                .map_or(0, |below| self.blob.count_at_or_below(below))
                .min(last),
        };
        Some(Symbol {
            index,
            address: start.wrapping_add(self.bias),
            size,
            offset,
            kind: self.blob.kind(index),
            name: Name::of_index(self.blob, index),
        })
    }
}
