//! A range record's line table, read in place from the record body: the usual two packed
//! columns directly, any other encoding by walking every `lineTable` occurrence.

use super::proto::{Column, Fields, Packed, Value};
use super::raw::{line_table, range};
use super::records::{Fail, LINE_TABLE};
use crate::varint::uleb128_prefix;
use crate::ErrorKind;

/// A record's line table, read in place: `(offset, line)` rows in wire order with the
/// offsets already accumulated (spec §2.3).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable<'a> {
    /// The record's body (line tables may occur several times; protobuf merges them).
    pub(super) body: &'a [u8],
    /// Number of rows.
    pub(super) rows: u32,
    /// The two packed columns, when the table is written the usual way (one `lineTable`
    /// holding one packed field of each column): read directly, without walking the body.
    pub(super) packed: Option<(&'a [u8], &'a [u8])>,
}

impl<'a> LineTable<'a> {
    /// Number of rows.
    pub fn len(&self) -> u32 {
        self.rows
    }

    /// True if the table has no row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The rows in order.
    pub fn iter(&self) -> LineRows<'a> {
        let (offsets, lines) = match self.packed {
            Some((o, l)) => (
                Source::Packed(Packed::new(o)),
                Source::Packed(Packed::new(l)),
            ),
            None => (
                Source::Nested(LineColumn::new(self.body, line_table::OFFSET)),
                Source::Nested(LineColumn::new(self.body, line_table::LINE_NUMBER)),
            ),
        };
        LineRows {
            offsets,
            lines,
            offset: 0,
            left: self.rows,
        }
    }
}

impl<'a> IntoIterator for LineTable<'a> {
    type Item = LineRow;
    type IntoIter = LineRows<'a>;
    fn into_iter(self) -> LineRows<'a> {
        self.iter()
    }
}

/// One line-table row: from `offset` bytes past the record's VA on, the line is `line`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineRow {
    /// Offset from the record's VA (accumulated from the wire's deltas).
    pub offset: u32,
    /// Source line.
    pub line: u32,
}

/// Iterator over a [`LineTable`]'s rows.
#[derive(Clone, Debug)]
pub struct LineRows<'a> {
    offsets: Source<'a>,
    lines: Source<'a>,
    offset: u32,
    left: u32,
}

impl Iterator for LineRows<'_> {
    type Item = LineRow;

    #[inline]
    fn next(&mut self) -> Option<LineRow> {
        self.left = self.left.checked_sub(1)?;
        let delta = u32::try_from(self.offsets.next()?).ok()?;
        let line = u32::try_from(self.lines.next()?).ok()?;
        self.offset = self.offset.checked_add(delta)?;
        Some(LineRow {
            offset: self.offset,
            line,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (0, Some(n))
    }
}

/// Where a line-table column's values come from.
#[derive(Clone, Debug)]
enum Source<'a> {
    /// The one packed field of the column.
    Packed(Packed<'a>),
    /// Any other encoding: every occurrence, walked through the record body.
    Nested(LineColumn<'a>),
}

impl Iterator for Source<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self {
            Source::Packed(p) => p.next()?.ok(),
            Source::Nested(c) => c.next(),
        }
    }
}

/// The values of column `number` across every `lineTable` occurrence of a record body.
#[derive(Clone, Debug)]
struct LineColumn<'a> {
    outer: Fields<'a>,
    inner: Column<'a>,
    number: u32,
}

impl<'a> LineColumn<'a> {
    fn new(body: &'a [u8], number: u32) -> Self {
        LineColumn {
            outer: Fields::new(body),
            inner: Column::new(&[], number),
            number,
        }
    }
}

impl Iterator for LineColumn<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        loop {
            if let Some(v) = self.inner.next() {
                return Some(v);
            }
            let field = self.outer.next()?.ok()?;
            if let (range::LINE_TABLE, Value::Bytes(b)) = (field.number, field.value) {
                self.inner = Column::new(b, self.number);
            }
        }
    }
}

pub(super) const TOO_MANY_ROWS: Fail = (LINE_TABLE, ErrorKind::Malformed("too many rows"));
pub(super) const OFFSET_OVERFLOW: Fail = (
    LINE_TABLE,
    ErrorKind::Malformed("cumulative offset overflows u32"),
);

/// A packed column whose values all take one byte (the usual offset deltas): its count and
/// sum, found without decoding; `None` otherwise. A body holds at most 16 MiB, so neither
/// the count nor the sum (at most 127 per byte) can overflow `u32`.
#[inline]
pub(super) fn packed_small(bytes: &[u8]) -> Option<(u32, u32)> {
    // Without an early exit, so that the loop runs on whole vectors.
    let (high, sum) = bytes.iter().fold((0u8, 0u32), |(high, sum), &b| {
        (high | b, sum.wrapping_add(u32::from(b)))
    });
    if high >= 0x80 {
        return None;
    }
    Some((u32::try_from(bytes.len()).ok()?, sum))
}

/// A packed column of `u32` values whose sum fits `u32` (offset deltas of any size): its
/// count and sum, decoded; `None` otherwise (the full decoder then says what is wrong).
/// The usual path for columns [`packed_small`] does not take.
#[inline]
pub(super) fn packed_sum_u32(bytes: &[u8]) -> Option<(u32, u32)> {
    let (mut count, mut sum) = (0u32, 0u32);
    let mut rest = bytes;
    while !rest.is_empty() {
        let (v, n) = uleb128_prefix(rest).ok()?;
        sum = sum.checked_add(u32::try_from(v).ok()?)?;
        count = count.checked_add(1)?;
        rest = rest.get(n..)?;
    }
    Some((count, sum))
}

/// The number of values in a packed column when every value certainly fits `u32` (at most
/// four bytes, so below 2^28) and the last one is complete; `None` when the column needs
/// the full decoder to decide. Counts the final bytes (top bit clear) without decoding.
#[inline]
pub(super) fn packed_count_u32(bytes: &[u8]) -> Option<u32> {
    if bytes.last().is_some_and(|&b| b >= 0x80) {
        return None;
    }
    // Eight bytes a step: the continuation bits of a word (bit 7 of each byte) are
    // counted, and a run of four of them (a value of five bytes or more) is found by
    // shifting the bits onto each other, within the word and across the previous one's
    // last four bytes.
    const TOP: u64 = 0x8080_8080_8080_8080;
    let four = |t: u64| t & (t >> 8) & (t >> 16) & (t >> 24);
    let (mut continued, mut long, mut previous) = (0u32, 0u64, 0u64);
    let mut words = bytes.chunks_exact(8);
    let mut step = |word: [u8; 8]| {
        let top = u64::from_le_bytes(word) & TOP;
        continued = continued.wrapping_add(top.count_ones());
        long |= four(top) | four((previous >> 32) | (top << 32));
        previous = top;
    };
    for word in &mut words {
        step(<[u8; 8]>::try_from(word).ok()?);
    }
    // The last bytes, padded with final bytes (top bit clear), which add no continuation
    // bit and break no run.
    let mut last = [0u8; 8];
    let rest = words.remainder();
    last.get_mut(..rest.len())?.copy_from_slice(rest);
    step(last);
    let count = u32::try_from(bytes.len()).ok()?.checked_sub(continued)?;
    (long == 0).then_some(count)
}

#[cfg(test)]
mod tests {
    use super::super::usual::tests::Rng;
    use super::*;

    /// The counts taken without decoding agree with the decoder on generated columns
    /// (values of one to ten bytes, overlong and cut varints): the general field walk
    /// counts line tables with them, so they must hold on their own.
    #[test]
    fn column_counts_agree_with_decoding() {
        let mut rng = Rng(7);
        for _ in 0..200_000 {
            let mut column = [0u8; 64];
            let mut len = 0;
            for _ in 0..rng.below(12) {
                let bits = [7, 7, 7, 14, 21, 28, 35, 64][rng.below(8) as usize];
                let mut v = rng.next() >> (64 - bits);
                loop {
                    let more = v >= 0x80;
                    if let Some(slot) = column.get_mut(len) {
                        *slot = (v as u8 & 0x7f) | if more { 0x80 } else { 0 };
                        len += 1;
                    }
                    v >>= 7;
                    if !more {
                        break;
                    }
                }
            }
            match rng.below(8) {
                // Cut the last varint.
                0 if len > 0 => len -= 1,
                // A continuation byte with nothing after it.
                1 if len < 64 => {
                    column[len] = 0x80;
                    len += 1;
                }
                _ => {}
            }
            let bytes = &column[..len];
            let decoded: Option<([u64; 64], usize)> =
                Packed::new(bytes).try_fold(([0u64; 64], 0), |(mut values, n), v| {
                    *values.get_mut(n)? = v.ok()?;
                    Some((values, n + 1))
                });
            if let Some((count, sum)) = packed_small(bytes) {
                let (values, n) = decoded.expect("a column of one-byte values decodes");
                assert_eq!(count as usize, n, "{bytes:?}");
                assert_eq!(u64::from(sum), values[..n].iter().sum::<u64>(), "{bytes:?}");
            }
            match packed_sum_u32(bytes) {
                Some((count, sum)) => {
                    let (values, n) = decoded.expect("a column summed as u32 values decodes");
                    assert_eq!(count as usize, n, "{bytes:?}");
                    let total = values[..n].iter().map(|&v| u128::from(v)).sum::<u128>();
                    assert_eq!(u128::from(sum), total, "{bytes:?}");
                }
                None => assert!(
                    decoded.is_none_or(|(values, n)| {
                        let total = values[..n].iter().map(|&v| u128::from(v)).sum::<u128>();
                        total > u128::from(u32::MAX)
                    }),
                    "{bytes:?}"
                ),
            }
            if let Some(count) = packed_count_u32(bytes) {
                let (values, n) = decoded.expect("a column counted as u32 values decodes");
                assert_eq!(count as usize, n, "{bytes:?}");
                assert!(
                    values[..n].iter().all(|&v| v <= u64::from(u32::MAX)),
                    "{bytes:?}"
                );
            }
        }
    }
}
