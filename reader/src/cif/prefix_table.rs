//! The encoder's dynamic prefix table: fixed capacity, no heap, no copied bytes.
//!
//! Every dynamic prefix is a byte prefix of the `str` part of an earlier image's path, so
//! an entry only records where those bytes are: image index, start within the path and
//! length. Storage rules (they keep the output deterministic for a given capacity):
//! every definition consumes a code, stored or not; a prefix identical to a stored or
//! fixed one is not stored again (it could never win a match); when the table is full,
//! further prefixes are not stored. A smaller table therefore gives longer output, never
//! an undecodable one, because decoders number codes on their own.

use super::image::Image;
use super::FIXED_PREFIXES;

/// First code the dynamic table hands out; 12..=31 are reserved.
pub(crate) const FIRST_DYNAMIC_CODE: u64 = 32;

/// One stored dynamic prefix of the encoder: which bytes of which image's path it is.
///
/// Only the encoder creates these; callers provide storage for them (see
/// [`encode_with_table`](super::encode_with_table)) as `[PrefixEntry::EMPTY; N]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrefixEntry {
    code: u32,
    image: u32,
    start: u32,
    len: u32,
}

impl PrefixEntry {
    /// An unused slot, for initialising storage.
    pub const EMPTY: PrefixEntry = PrefixEntry {
        code: 0,
        image: 0,
        start: 0,
        len: 0,
    };
}

/// Fixed prefixes plus the dynamic ones stored in a caller-supplied slice.
pub(crate) struct PrefixTable<'t> {
    slots: &'t mut [PrefixEntry],
    stored: usize,
    next_code: u64,
}

/// A matched prefix: its code and how many bytes of the path it covers.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Match {
    pub(crate) code: u64,
    pub(crate) len: usize,
}

impl<'t> PrefixTable<'t> {
    pub(crate) fn new(slots: &'t mut [PrefixEntry]) -> Self {
        PrefixTable {
            slots,
            stored: 0,
            next_code: FIRST_DYNAMIC_CODE,
        }
    }

    fn stored(&self) -> &[PrefixEntry] {
        self.slots.get(..self.stored).unwrap_or(&[])
    }

    /// The bytes an entry stands for.
    fn bytes<'i>(entry: &PrefixEntry, images: &[Image<'i>]) -> &'i [u8] {
        let path = usize::try_from(entry.image)
            .ok()
            .and_then(|i| images.get(i))
            .and_then(|img| img.path)
            .unwrap_or(&[]);
        let start = usize::try_from(entry.start).unwrap_or(usize::MAX);
        let len = usize::try_from(entry.len).unwrap_or(usize::MAX);
        start
            .checked_add(len)
            .and_then(|end| path.get(start..end))
            .unwrap_or(&[])
    }

    /// The longest entry that is a byte prefix of `rest`; the lowest code wins among
    /// equal lengths (fixed entries first, then dynamic ones in definition order).
    pub(crate) fn longest_match(&self, images: &[Image<'_>], rest: &[u8]) -> Option<Match> {
        let mut best: Option<Match> = None;
        let mut consider = |code: u64, prefix: &[u8]| {
            let longer = best.is_none_or(|b| prefix.len() > b.len);
            if longer && !prefix.is_empty() && rest.starts_with(prefix) {
                best = Some(Match {
                    code,
                    len: prefix.len(),
                });
            }
        };
        for (code, prefix) in (0u64..).zip(FIXED_PREFIXES.iter()) {
            consider(code, prefix);
        }
        for entry in self.stored() {
            consider(u64::from(entry.code), Self::bytes(entry, images));
        }
        best
    }

    /// Defines the next code as `len` bytes of image `image`'s path from `start`.
    pub(crate) fn define(&mut self, images: &[Image<'_>], image: usize, start: usize, len: usize) {
        let code = self.next_code;
        self.next_code = self.next_code.saturating_add(1);
        let (Ok(code), Ok(image), Ok(start), Ok(len)) = (
            u32::try_from(code),
            u32::try_from(image),
            u32::try_from(start),
            u32::try_from(len),
        ) else {
            // Beyond what an entry can describe: treated like a full table.
            return;
        };
        let entry = PrefixEntry {
            code,
            image,
            start,
            len,
        };
        let new_bytes = Self::bytes(&entry, images);
        let known = FIXED_PREFIXES.contains(&new_bytes)
            || self
                .stored()
                .iter()
                .any(|e| e.len == entry.len && Self::bytes(e, images) == new_bytes);
        if known {
            return;
        }
        if let Some(slot) = self.slots.get_mut(self.stored) {
            *slot = entry;
            self.stored = self.stored.saturating_add(1);
        }
    }
}
