//! Address → symbol for v2 blobs: text ranges, load bias, aliases and return addresses as
//! in v1 (ksym-bin.md D8–D10).

use core::fmt;

use super::blob::Blob;
use super::name::Name;
use crate::ksym::TextRanges;
use crate::partition::in_lanes;
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
        let next = self.blob.count_at_or_below(addr.wrapping_sub(self.bias));
        self.symbol_before(addr, range, next)
    }

    /// Looks up every address of `addrs` and calls `each(i, symbol)` for `addrs[i]`, in
    /// order, with what [`lookup_address`](Self::lookup_address) answers; the searches of
    /// [`LANES`](crate::LANES) addresses run in lockstep.
    pub fn lookup_address_each(
        &self,
        addrs: &[u64],
        mut each: impl FnMut(usize, Option<Symbol<'a>>),
    ) {
        in_lanes(
            addrs,
            |addr| addr.wrapping_sub(self.bias),
            |keys| self.blob.counts_at_or_below(keys),
            |i, addr, next| {
                let range = self.ranges.find(addr);
                each(i, range.and_then(|r| self.symbol_before(addr, r, next)));
            },
        );
    }

    /// Resolves a return address: looks up `ra − 1` and reports the offset of `ra`.
    /// `None` for `ra = 0`.
    pub fn lookup_return_address(&self, ra: u64) -> Option<Symbol<'a>> {
        let mut symbol = self.lookup_address(ra.checked_sub(1)?)?;
        symbol.offset = symbol.offset.wrapping_add(1);
        Some(symbol)
    }

    /// The symbol covering `addr` in the range `(start, end)`, given `next`: the number
    /// of stored addresses at or below `addr − bias`.
    #[inline]
    fn symbol_before(
        &self,
        addr: u64,
        (range_start, range_end): (u64, u64),
        next: usize,
    ) -> Option<Symbol<'a>> {
        let stored = addr.wrapping_sub(self.bias);
        let last = next.checked_sub(1)?;
        let start = self.blob.address(last)?;
        let offset = stored.wrapping_sub(start);
        if offset > addr.wrapping_sub(range_start) {
            return None;
        }
        let to_range_end = range_end.wrapping_sub(addr).wrapping_add(offset);
        let size = match self.blob.address(next) {
            Some(following) => following.wrapping_sub(start).min(to_range_end),
            None => to_range_end,
        };
        let index = self.first_alias(last, start);
        Some(Symbol {
            index,
            address: start.wrapping_add(self.bias),
            size,
            offset,
            kind: self.blob.kind(index),
            name: Name::of_index(self.blob, index),
        })
    }

    /// The first index of the alias group at `address` that contains `index`.
    #[inline]
    fn first_alias(&self, index: usize, address: u64) -> usize {
        let previous = index.checked_sub(1).and_then(|p| self.blob.address(p));
        if previous != Some(address) {
            return index;
        }
        match address.checked_sub(1) {
            Some(below) => self.blob.count_at_or_below(below).min(index),
            None => 0,
        }
    }
}
