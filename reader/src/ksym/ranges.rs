//! Text ranges (spec D7): the half-open address ranges an address lookup may answer for,
//! typically `[_stext, _etext)` and `[_sinittext, _einittext)`.

use core::fmt;
use core::ops::Range;

use crate::{Error, ErrorKind, Format};

/// A validated list of text ranges: at least one, each non-empty, sorted and
/// non-overlapping. Borrowed, or a single range held inline; never allocated.
#[derive(Clone, Copy)]
pub struct TextRanges<'r> {
    repr: Repr<'r>,
}

#[derive(Clone, Copy)]
enum Repr<'r> {
    /// One range held inline, `[start, end)`.
    Single(u64, u64),
    /// A borrowed list.
    Many(&'r [Range<u64>]),
}

/// The error for a bad range list: section `text_ranges`, offset = the index of the range.
fn range_error(index: usize, kind: ErrorKind) -> Error {
    Error::new(Format::Ksym, "text_ranges", index as u64, kind)
}

impl<'r> TextRanges<'r> {
    /// The single range `[start, end)`, as the origin's `(stext, etext)` constructor.
    pub fn single(start: u64, end: u64) -> Result<Self, Error> {
        check_range(0, start, end)?;
        Ok(TextRanges {
            repr: Repr::Single(start, end),
        })
    }

    /// Several ranges, which must be non-empty, sorted and non-overlapping.
    ///
    /// Errors use the section `text_ranges` and report the index of the bad range as the
    /// offset: [`ErrorKind::Malformed`] for an empty list or an empty range,
    /// [`ErrorKind::Unsorted`] for a range that starts before the previous one ends.
    pub fn new(ranges: &'r [Range<u64>]) -> Result<Self, Error> {
        if ranges.is_empty() {
            return Err(range_error(0, ErrorKind::Malformed("no text range given")));
        }
        let mut previous_end = None;
        for (i, r) in ranges.iter().enumerate() {
            check_range(i, r.start, r.end)?;
            if previous_end.is_some_and(|end| r.start < end) {
                return Err(range_error(i, ErrorKind::Unsorted));
            }
            previous_end = Some(r.end);
        }
        Ok(TextRanges {
            repr: Repr::Many(ranges),
        })
    }

    /// The range that contains `addr`, as `(start, end)`.
    #[inline]
    pub fn find(&self, addr: u64) -> Option<(u64, u64)> {
        match self.repr {
            Repr::Single(start, end) => (start <= addr && addr < end).then_some((start, end)),
            Repr::Many(ranges) => ranges
                .iter()
                .find(|r| r.contains(&addr))
                .map(|r| (r.start, r.end)),
        }
    }

    /// Number of ranges.
    pub fn len(&self) -> usize {
        match self.repr {
            Repr::Single(..) => 1,
            Repr::Many(ranges) => ranges.len(),
        }
    }

    /// Always false: a validated list holds at least one range.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ranges, as `(start, end)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + 'r {
        let (single, many) = match self.repr {
            Repr::Single(start, end) => (Some((start, end)), &[][..]),
            Repr::Many(ranges) => (None, ranges),
        };
        single
            .into_iter()
            .chain(many.iter().map(|r| (r.start, r.end)))
    }
}

/// Rejects an empty range.
fn check_range(index: usize, start: u64, end: u64) -> Result<(), Error> {
    if start < end {
        Ok(())
    } else {
        Err(range_error(index, ErrorKind::Malformed("empty text range")))
    }
}

impl fmt::Debug for TextRanges<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|(s, e)| s..e))
            .finish()
    }
}
