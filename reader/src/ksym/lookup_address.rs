//! Address → symbol (spec D8–D10): a blob plus text ranges and a load bias.

use core::fmt;

use super::name::Name;
use super::parse::KsymBlob;
use super::ranges::TextRanges;
use crate::partition::{in_lanes, partition_points};
use crate::Error;

/// A blob ready for address lookups: the parsed tables, the text ranges the caller vouches
/// for, and the load bias (runtime = stored + bias).
///
/// `Copy` and `Sync` with no interior mutability: keep one in a static and look up from any
/// CPU, panic or NMI path without locks. Re-creating it with other ranges (after init
/// memory is freed) costs nothing, because the tables are shared.
#[derive(Clone, Copy, Debug)]
pub struct Ksyms<'a> {
    blob: KsymBlob<'a>,
    ranges: TextRanges<'a>,
    bias: u64,
}

/// The symbol that covers an address, as `lookup_address` reports it.
///
/// Addresses are runtime addresses (stored + bias). `Display` prints `name+0xoff/0xsize`,
/// the Linux `%pS` form, e.g. `do_fork+0x1a/0x40`.
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
    /// The decoded name.
    pub name: Name<'a>,
}

impl fmt::Display for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{:#x}/{:#x}", self.name, self.offset, self.size)
    }
}

impl<'a> Ksyms<'a> {
    /// Combines a parsed blob with validated text ranges; the bias is 0.
    pub fn new(blob: KsymBlob<'a>, ranges: TextRanges<'a>) -> Self {
        Ksyms {
            blob,
            ranges,
            bias: 0,
        }
    }

    /// Parses `bytes` and uses the single text range `[stext, etext)`, like the origin's
    /// `KallsymsMapped::from_blob`.
    pub fn from_blob(bytes: &'a [u8], stext: u64, etext: u64) -> Result<Self, Error> {
        Ok(Ksyms::new(
            KsymBlob::parse(bytes)?,
            TextRanges::single(stext, etext)?,
        ))
    }

    /// Sets the load bias `runtime − stored` (spec D9): KASLR slide or relocation offset.
    /// Ranges and queries are runtime addresses; results report runtime addresses.
    /// Additions wrap.
    pub fn with_bias(self, bias: u64) -> Self {
        Ksyms { bias, ..self }
    }

    /// The parsed blob.
    pub fn blob(&self) -> KsymBlob<'a> {
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

    /// The symbol covering the runtime address `addr` (spec D8), or `None` when `addr` is
    /// outside every text range or lies in a range before that range's first symbol.
    ///
    /// Among aliases the first stored one is reported, whichever byte of the symbol is
    /// asked for.
    #[inline]
    pub fn lookup_address(&self, addr: u64) -> Option<Symbol<'a>> {
        let range = self.ranges.find(addr)?;
        let stored = addr.wrapping_sub(self.bias);
        // core's partition point is branchless; a hand-written bisection here compiles to
        // a branch that mispredicts on about half the levels of every random lookup.
        let next = self.blob.addresses.partition_point(|a| a.get() <= stored);
        self.symbol_before(addr, range, next)
    }

    /// Looks up every address of `addrs` and calls `each(i, symbol)` with the answer for
    /// `addrs[i]`, in order: what [`lookup_address`](Self::lookup_address) answers, found
    /// faster by searching [`LANES`](crate::LANES) addresses at a time with a four-way search in
    /// lockstep (their loads overlap). The answers are the same on every blob whose
    /// addresses are sorted, which [`KsymBlob::parse`] checks; after
    /// [`KsymBlob::parse_trusted`] of a blob with unsorted addresses both stay bounded but
    /// may pick different symbols.
    pub fn lookup_address_each(
        &self,
        addrs: &[u64],
        mut each: impl FnMut(usize, Option<Symbol<'a>>),
    ) {
        in_lanes(
            addrs,
            |addr| addr.wrapping_sub(self.bias),
            |keys| partition_points(self.blob.addresses, keys, |a, s| a.get() <= *s),
            |i, addr, next| {
                let range = self.ranges.find(addr);
                each(i, range.and_then(|r| self.symbol_before(addr, r, next)));
            },
        );
    }

    /// The symbol covering `addr`, which lies in the text range `(range_start, range_end)`,
    /// given `next`: the number of stored addresses at or below `addr − bias`.
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
        // The symbol must start inside the range: addr − offset ≥ range_start.
        if offset > addr.wrapping_sub(range_start) {
            return None;
        }
        let to_range_end = range_end.wrapping_sub(addr).wrapping_add(offset);
        let size = match self.blob.address(next) {
            Some(following) => following.wrapping_sub(start).min(to_range_end),
            None => to_range_end,
        };
        let index = self.first_alias(last, start);
        let (kind, name) = self.blob.kind_and_name(index)?;
        Some(Symbol {
            index,
            address: start.wrapping_add(self.bias),
            size,
            offset,
            kind,
            name,
        })
    }

    /// Resolves a return address (spec D10): looks up `ra − 1`, so that a call in the last
    /// instruction of a function is named after the caller, and reports the offset of `ra`
    /// itself. `None` for `ra = 0`.
    pub fn lookup_return_address(&self, ra: u64) -> Option<Symbol<'a>> {
        let mut symbol = self.lookup_address(ra.checked_sub(1)?)?;
        symbol.offset = symbol.offset.wrapping_add(1);
        Some(symbol)
    }

    /// The first index of the alias group at `address` that contains `index`.
    ///
    /// Most addresses carry one symbol, so the neighbour is checked first; only a real
    /// alias group costs a binary search (bounded even for hostile blobs).
    #[inline]
    fn first_alias(&self, index: usize, address: u64) -> usize {
        let addresses = self.blob.addresses;
        let is_alias = |i: usize| addresses.get(i).is_some_and(|a| a.get() == address);
        match index.checked_sub(1) {
            Some(previous) if is_alias(previous) => {
                // Lower bound of `address` in [0, previous].
                let (mut lo, mut hi) = (0usize, previous);
                while lo < hi {
                    let mid = lo.wrapping_add(hi.wrapping_sub(lo) / 2);
                    if addresses.get(mid).is_some_and(|a| a.get() < address) {
                        lo = mid.wrapping_add(1);
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
            _ => index,
        }
    }
}
