//! `KsymBlob::validate`: the deep check of spec D4 (`validate_full`), for properties whose
//! violation gives wrong answers but never unsafety. O(N log N)-free: one linear pass over
//! the name table, comparing neighbours; no allocation.

use core::cmp::Ordering;

use super::layout::Segment;
use super::parse::{err, KsymBlob};
use super::raw::RECORD_HEADER;
use crate::{Error, ErrorKind};

impl KsymBlob<'_> {
    /// Checks every entry as [`parse`](Self::parse) does (so a blob opened with
    /// [`parse_trusted`](Self::parse_trusted) is checked in full, with the same errors),
    /// then what `parse` leaves out, and reports the first problem found:
    ///
    /// * every token and every record's raw bytes are UTF-8 (`token_table` / `names`,
    ///   [`ErrorKind::InvalidUtf8`]);
    /// * names ascend along `seqs`, and equal names ascend by address (`seqs`,
    ///   [`ErrorKind::Unsorted`] at the first entry out of order);
    /// * `seqs` is a permutation of `0..N` (`seqs`, [`ErrorKind::Malformed`] at the
    ///   repeated entry);
    /// * the padding after `names` and after `token_table`, and every byte after the
    ///   blob's end, is zero (`padding` / `trailing bytes`, [`ErrorKind::Mismatch`]).
    ///
    /// Runs in O(N + L + T) time and O(1) space. The permutation check follows from the
    /// order check: the entry checks guarantee every entry is below N, and if the key
    /// (name, address, index) strictly increases along `seqs` no index can repeat, so N
    /// distinct values below N are exactly `0..N`.
    pub fn validate(&self) -> Result<(), Error> {
        self.check_entries(&self.layout())?;
        self.validate_tokens_utf8()?;
        self.validate_records_utf8()?;
        self.validate_name_order()?;
        let layout = self.layout();
        self.validate_zero("padding", layout.names_padding)?;
        self.validate_zero("padding", layout.token_table_padding)?;
        let trailing = Segment {
            offset: layout.used_size,
            size: self.bytes.len().saturating_sub(layout.used_size),
        };
        self.validate_zero("trailing bytes", trailing)
    }

    fn validate_tokens_utf8(&self) -> Result<(), Error> {
        let base = self.layout().token_table.offset;
        let mut start = 0usize;
        for id in 0..self.token_count() {
            let token = self.token(id);
            if let Err(e) = core::str::from_utf8(token) {
                let at = base.saturating_add(start).saturating_add(e.valid_up_to());
                return Err(err("token_table", at, ErrorKind::InvalidUtf8));
            }
            start = start.saturating_add(token.len());
        }
        Ok(())
    }

    fn validate_records_utf8(&self) -> Result<(), Error> {
        let base = self.layout().names.offset;
        for (i, offset) in self.offsets.iter().enumerate() {
            let Some((_, payload)) = self.record(i) else {
                continue;
            };
            let rest = self.decode(payload).rest;
            if let Err(e) = core::str::from_utf8(rest) {
                // The rest is the tail of the payload, which follows the record header.
                let marker = payload.len().saturating_sub(rest.len());
                let at = base
                    .saturating_add(offset.get() as usize)
                    .saturating_add(RECORD_HEADER)
                    .saturating_add(marker)
                    .saturating_add(e.valid_up_to());
                return Err(err("names", at, ErrorKind::InvalidUtf8));
            }
        }
        Ok(())
    }

    fn validate_name_order(&self) -> Result<(), Error> {
        let seqs_at = self.layout().seqs.offset;
        let mut ranks = self.symbols_by_name();
        let Some(mut previous) = ranks.next() else {
            return Ok(());
        };
        for (rank, current) in (1usize..).zip(ranks) {
            let at = seqs_at.saturating_add(rank.saturating_mul(4));
            let order = previous
                .name
                .cmp(&current.name)
                .then(previous.address.cmp(&current.address))
                .then(previous.index.cmp(&current.index));
            match order {
                Ordering::Less => {}
                Ordering::Equal => {
                    let what = "seqs is not a permutation: index repeated";
                    return Err(err("seqs", at, ErrorKind::Malformed(what)));
                }
                Ordering::Greater => return Err(err("seqs", at, ErrorKind::Unsorted)),
            }
            previous = current;
        }
        Ok(())
    }

    fn validate_zero(&self, section: &'static str, segment: Segment) -> Result<(), Error> {
        let bytes = self.bytes.get(segment.range()).unwrap_or_default();
        match bytes.iter().position(|&b| b != 0) {
            None => Ok(()),
            Some(i) => {
                let found = bytes.get(i).copied().unwrap_or_default();
                let kind = ErrorKind::Mismatch {
                    expected: 0,
                    found: u64::from(found),
                };
                Err(err(section, segment.offset.saturating_add(i), kind))
            }
        }
    }
}
