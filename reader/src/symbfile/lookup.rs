//! Address lookups by one sweep over the file (a symbfile has no index).

use super::records::{self, Range, ReturnPad, VaBase};
use super::{error, message_type, raw, Pending, Records, Strings, SymbFile};
use crate::Error;

impl<'a> SymbFile<'a> {
    /// Every range record covering `addr`, in inline order: depth 0 (the outermost
    /// function) first, records of equal depth in file order.
    ///
    /// One pass over the file, O(file size) time, no allocation: records that do not
    /// cover `addr` are decoded only as far as their VA and length. The first
    /// `out.len()` covering records (in file order) are stored in `out`, sorted by depth;
    /// the return value is the number of covering records, which may exceed `out.len()`.
    pub fn lookup_ranges(
        &self,
        addr: u64,
        scratch: &mut [&'a str],
        out: &mut [Range<'a>],
    ) -> Result<usize, Error> {
        let mut records = Records::new(self.messages(), scratch, false);
        let mut found = 0usize;
        while let Some(p) = records.next_pending()? {
            let (range, va, length) = records.peek_next(&p)?;
            let covers = range && addr.checked_sub(va).is_some_and(|d| d < length);
            if !covers {
                continue;
            }
            if let Some(slot) = out.get_mut(found) {
                if let super::Record::Range(r) = records.decode(p)? {
                    *slot = r;
                }
            }
            found = found.saturating_add(1);
        }
        let kept = found.min(out.len());
        sort_by_depth(out.get_mut(..kept).unwrap_or(&mut []));
        Ok(found)
    }

    /// The first return pad at exactly `addr`, by one pass over the file (O(file size)).
    /// Its entries resolve through `scratch`, which holds the pad's string table.
    pub fn lookup_return_pad<'s>(
        &self,
        addr: u64,
        scratch: &'s mut [&'a str],
    ) -> Result<Option<ReturnPad<'a, 's>>, Error> {
        let mut records = Records::new(self.messages(), scratch, false);
        while let Some(p) = records.next_pending()? {
            let (range, va, _) = records.peek_next(&p)?;
            if !range && va == addr {
                let len = records.index_table()?;
                let Records {
                    scratch,
                    table,
                    table_resume,
                    ..
                } = records;
                let strings = Strings::new(table, len, scratch, table_resume);
                return records::decode_return_pad(
                    p.message.offset,
                    p.message.body,
                    VaBase::After(p.prev_va),
                    strings,
                )
                .map(Some)
                .map_err(|(s, k)| error(s, p.message.offset, k));
            }
        }
        Ok(None)
    }
}

impl<'a> Records<'a, '_> {
    /// The VA and length of pending record `p` (a range or a return pad), read without
    /// decoding the rest, and its VA kept as the base of the next record's delta. Returns
    /// whether it is a range record, its VA and its length.
    #[inline]
    fn peek_next(&mut self, p: &Pending<'a>) -> Result<(bool, u64, u64), Error> {
        let range = p.message.kind == message_type::RANGE_V1;
        let (section, set_field) = if range {
            ("range", raw::range::SET_ELF_VA)
        } else {
            ("return pad", raw::return_pad::SET_ELF_VA)
        };
        let (va, length) = records::peek(p.message.body, set_field, section, p.prev_va)
            .map_err(|(s, k)| error(s, p.message.offset, k))?;
        self.prev_va = Some(va);
        Ok((range, va, length))
    }
}

/// Stable insertion sort by depth: the handful of frames of one address, no allocation.
fn sort_by_depth(ranges: &mut [Range<'_>]) {
    for i in 1..ranges.len() {
        let mut j = i;
        while let Some(prev) = j.checked_sub(1) {
            let Some([a, b]) = ranges.get_mut(prev..=j) else {
                break;
            };
            if a.depth <= b.depth {
                break;
            }
            core::mem::swap(a, b);
            j = prev;
        }
    }
}
