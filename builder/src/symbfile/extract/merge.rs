//! symblib's multi-extractor (spec §5.6): sources in priority order, a coverage map over
//! the executable segments decides which depth-0 records are new.

use object::{Object, ObjectSegment, SegmentFlags};

use super::records::RangeRecord;

/// One bit per `scale` bytes of one executable segment.
struct Segment {
    start: u64,
    end: u64,
    bits: Vec<u64>,
}

/// Coverage of the executable segments.
pub(crate) struct CoverageMap {
    segments: Vec<Segment>,
    scale: u64,
}

impl CoverageMap {
    /// The executable `PT_LOAD` segments of `obj`; granularity 4 bytes on aarch64, else 1.
    /// `Err` when two executable segments overlap (symblib refuses such files).
    pub(crate) fn new(obj: &object::File<'_>) -> Result<Self, String> {
        let scale = match obj.architecture() {
            object::Architecture::Aarch64 => 4,
            _ => 1,
        };
        let mut segments: Vec<Segment> = Vec::new();
        for seg in obj.segments() {
            let exec = match seg.flags() {
                SegmentFlags::Elf { p_flags } => p_flags & object::elf::PF_X != 0,
                _ => false,
            };
            if !exec {
                continue;
            }
            let start = seg.address();
            let end = start.saturating_add(seg.size());
            if segments.iter().any(|s| start < s.end && s.start < end) {
                return Err("the file has overlapping executable segments".into());
            }
            let buckets = (end - start).div_ceil(scale);
            segments.push(Segment {
                start,
                end,
                bits: vec![0; buckets.div_ceil(64) as usize],
            });
        }
        segments.sort_by_key(|s| s.start);
        Ok(CoverageMap { segments, scale })
    }

    /// The segment holding `va` and the bucket range of `[va, end)` clipped to it.
    fn buckets(&self, va: u64, end: u64) -> Option<(usize, u64, u64)> {
        let i = self
            .segments
            .partition_point(|s| s.start <= va)
            .checked_sub(1)?;
        let s = &self.segments[i];
        if va >= s.end {
            return None;
        }
        let lo = (va - s.start) / self.scale;
        let hi = (end.min(s.end) - s.start).div_ceil(self.scale);
        (lo < hi).then_some((i, lo, hi))
    }

    /// Whether any bucket of `[va, end)` is marked (only the segment holding `va` counts).
    pub(crate) fn partially_covered(&self, va: u64, end: u64) -> bool {
        let Some((i, lo, hi)) = self.buckets(va, end) else {
            return false;
        };
        let bits = &self.segments[i].bits;
        (lo..hi).any(|b| bits[(b / 64) as usize] & (1 << (b % 64)) != 0)
    }

    /// Marks `[va, end)` (within the segment holding `va`).
    pub(crate) fn mark(&mut self, va: u64, end: u64) {
        let Some((i, lo, hi)) = self.buckets(va, end) else {
            return;
        };
        let bits = &mut self.segments[i].bits;
        for b in lo..hi {
            bits[(b / 64) as usize] |= 1 << (b % 64);
        }
    }
}

/// Counts of one source, as symblib reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceStats {
    /// Records the source produced.
    pub produced: usize,
    /// Records kept.
    pub accepted: usize,
    /// Records dropped (already covered, or inline records outside their function).
    pub rejected: usize,
    /// Inline records dropped because they lie outside the last accepted depth-0 record.
    pub unexpected_inline_children: usize,
}

/// Adds the records of one source (in its order) to `out`: a depth-0 record only if none
/// of its range is covered yet, an inline record only if it lies inside the last accepted
/// depth-0 record of this source.
pub(crate) fn merge_source(
    map: &mut CoverageMap,
    records: impl IntoIterator<Item = RangeRecord>,
    out: &mut Vec<RangeRecord>,
) -> SourceStats {
    let mut stats = SourceStats::default();
    let mut accept_inline: Option<(u64, u64)> = None;
    for r in records {
        stats.produced += 1;
        let (va, end) = (r.va, r.end());
        if r.depth == 0 {
            if map.partially_covered(va, end) {
                stats.rejected += 1;
                accept_inline = None;
            } else {
                map.mark(va, end);
                accept_inline = Some((va, end));
                stats.accepted += 1;
                out.push(r);
            }
            continue;
        }
        match accept_inline {
            Some((s, e)) if va >= s && end <= e && va < end => {
                stats.accepted += 1;
                out.push(r);
            }
            Some(_) => {
                stats.rejected += 1;
                stats.unexpected_inline_children += 1;
            }
            None => stats.rejected += 1,
        }
    }
    stats
}
