//! Telling the sized layout (crate 0.6) from the plain one (crate 0.3–0.5); spec 3.5.
//!
//! Neither layout has a magic number, so the rule is structural: **a blob is sized if its
//! first u64 equals the end of a consistent sized structure (every segment in the slice,
//! at least 40 bytes), and plain otherwise.** Bytes after that end are padding, as in a
//! fixed-size linker section.
//!
//! Why this rule:
//!
//! * It is what the crate's own 0.6 reader relies on (the first word is the blob length)
//!   extended to padded sections, where the crate demands the caller cut the padding first.
//!   The whole structure must agree with the word, not only its value, so a plain blob is
//!   not taken for a sized one because its N happens to be at most the slice length.
//! * A plain blob cannot satisfy it unpadded: its first word is N and its length is at
//!   least 32 + 16·N > N. Padded, the bytes from offset 8 on would have to chain into four
//!   counts ending exactly at N, starting with the first address read as a symbol count;
//!   for kernel addresses (≥ 2^47) that count does not fit in any slice. Only crafted
//!   input gets there, and a caller who knows the layout uses
//!   [`KsymBlob::parse_as`](super::KsymBlob::parse_as).
//! * Sized is tried first because the other order is wrong on real data: a small sized
//!   blob in a large zero-padded section also reads as a *plain* blob of `total_bytes`
//!   symbols (garbage addresses, then counts of zero from the padding).
//! * The check is O(1): it reads five counts, so `parse_trusted` stays O(1). The padding is
//!   not scanned; [`KsymBlob::validate`](super::KsymBlob::validate) checks it is zero.

use super::layout::{Counts, Layout, LayoutKind, Segment};

impl LayoutKind {
    /// The layout of `blob` by the rule above (spec 3.5): `Sized` when its first u64 is the
    /// end of a consistent sized structure inside `blob`, `Plain` otherwise (also for a
    /// slice too short to hold either, so that the plain parse reports what is missing).
    // Not inlined: its trial parse then uses the stack before `parse` does, not on top of
    // it (kernel stacks are small; the freestanding example measures the high-water mark).
    #[inline(never)]
    pub fn detect(blob: &[u8]) -> LayoutKind {
        let sized = LayoutKind::Sized;
        if blob.len() >= sized.min_size() && sized_structure_ends_at_its_total(blob) {
            sized
        } else {
            LayoutKind::Plain
        }
    }
}

/// Whether the sized layout's counts chain to an end inside `blob` that equals its first
/// u64: the structural part of `KsymBlob::parse_as(blob, Sized)`, without building the
/// tables (segments are laid out in order, so an end inside `blob` means all fit).
fn sized_structure_ends_at_its_total(blob: &[u8]) -> bool {
    let count = |segment: Segment| {
        blob.get(segment.range())
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(u64::from_le_bytes)
    };
    let kind = LayoutKind::Sized;
    let mut counts = Counts::default();
    let step = |counts: Counts| Layout::compute(counts, kind).ok();
    let Some(mut layout) = step(counts) else {
        return false;
    };
    let Some(total) = count(layout.total_bytes) else {
        return false;
    };
    let fields: [fn(&mut Counts) -> &mut u64; 4] = [
        |c| &mut c.num_syms,
        |c| &mut c.names_len,
        |c| &mut c.token_table_len,
        |c| &mut c.token_index_len,
    ];
    let segments: [fn(&Layout) -> Segment; 4] = [
        |l| l.num_syms,
        |l| l.names_len,
        |l| l.token_table_len,
        |l| l.token_index_len,
    ];
    for (field, segment) in fields.iter().zip(segments) {
        let Some(value) = count(segment(&layout)) else {
            return false;
        };
        *field(&mut counts) = value;
        layout = match step(counts) {
            Some(next) => next,
            None => return false,
        };
    }
    layout.used_size <= blob.len() && layout.used_size as u64 == total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ksym::KsymBlob;

    /// The spec's empty blob in each layout.
    fn empty(kind: LayoutKind) -> [u8; 40] {
        let mut b = [0u8; 40];
        if kind == LayoutKind::Sized {
            b[0] = 40;
        }
        b
    }

    #[test]
    fn first_word_equal_to_the_end_is_sized() {
        assert_eq!(
            LayoutKind::detect(&empty(LayoutKind::Sized)),
            LayoutKind::Sized
        );
        let mut padded = [0u8; 4096];
        padded[..40].copy_from_slice(&empty(LayoutKind::Sized));
        assert_eq!(LayoutKind::detect(&padded), LayoutKind::Sized);
        let blob = KsymBlob::parse(&padded).unwrap();
        assert_eq!((blob.used_size(), blob.is_empty()), (40, true));
    }

    #[test]
    fn zeros_and_short_slices_are_plain() {
        assert_eq!(LayoutKind::detect(&[0u8; 4096]), LayoutKind::Plain);
        assert_eq!(
            LayoutKind::detect(&empty(LayoutKind::Plain)),
            LayoutKind::Plain
        );
        assert_eq!(LayoutKind::detect(&[40, 0, 0]), LayoutKind::Plain);
    }

    #[test]
    fn a_word_beyond_the_slice_or_off_the_structure_is_plain() {
        let mut b = empty(LayoutKind::Sized);
        b[0] = 48; // larger than the slice
        assert_eq!(LayoutKind::detect(&b), LayoutKind::Plain);
        let mut padded = [0u8; 64];
        padded[0] = 44; // inside the slice, but not where the structure ends
        assert_eq!(LayoutKind::detect(&padded), LayoutKind::Plain);
    }
}
