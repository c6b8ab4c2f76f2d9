//! symblib's multi-extractor (spec §5.6): sources in priority order, a coverage map over
//! the executable segments decides which depth-0 records are new.

use object::{Object, ObjectSegment, SegmentFlags};

use crate::model::RangeRecord;
use crate::{Error, ErrorKind, Result};

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
    /// [`ErrorKind::Unsupported`] when two executable segments overlap (symblib refuses
    /// such files); the caller names the file.
    pub(crate) fn new(obj: &object::File<'_>) -> Result<Self> {
        let scale = match obj.architecture() {
            object::Architecture::Aarch64 => 4,
            _ => 1,
        };
        let mut segments: Vec<Segment> = Vec::new();
        for seg in obj.segments() {
            let exec = match seg.flags() {
                SegmentFlags::Elf { p_flags, .. } => p_flags.contains(object::elf::PF_X),
                _ => false,
            };
            if !exec {
                continue;
            }
            let start = seg.address();
            let end = start.saturating_add(seg.size());
            if segments.iter().any(|s| start < s.end && s.start < end) {
                return Err(Error::unnamed(
                    ErrorKind::Unsupported,
                    "the file has overlapping executable segments",
                ));
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

/// The merge state of one source: a depth-0 record is accepted only if none of its range is
/// covered yet, an inline record only if it lies inside the last accepted depth-0 record of
/// this source.
#[derive(Default)]
pub(crate) struct SourceMerge {
    accept_inline: Option<(u64, u64)>,
    /// Counts so far.
    pub stats: SourceStats,
}

impl SourceMerge {
    /// Whether `r` (the source's next record, in its order) is kept; marks it if so.
    pub(crate) fn accept(&mut self, map: &mut CoverageMap, r: &RangeRecord) -> bool {
        let stats = &mut self.stats;
        stats.produced += 1;
        let (va, end) = (r.va, r.end());
        if r.depth == 0 {
            if map.partially_covered(va, end) {
                stats.rejected += 1;
                self.accept_inline = None;
                return false;
            }
            map.mark(va, end);
            self.accept_inline = Some((va, end));
            stats.accepted += 1;
            return true;
        }
        match self.accept_inline {
            Some((s, e)) if va >= s && end <= e && va < end => {
                stats.accepted += 1;
                true
            }
            Some(_) => {
                stats.rejected += 1;
                stats.unexpected_inline_children += 1;
                false
            }
            None => {
                stats.rejected += 1;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(start: u64, end: u64, scale: u64) -> CoverageMap {
        let buckets = (end - start).div_ceil(scale);
        CoverageMap {
            segments: vec![Segment {
                start,
                end,
                bits: vec![0; buckets.div_ceil(64) as usize],
            }],
            scale,
        }
    }

    /// The cases of symblib's own coverage-map test (`covmap.rs`, scale 1).
    #[test]
    fn partial_coverage_as_symblib() {
        let mut m = map(0x100, 0x200, 1);
        m.mark(0x90, 0x110); // starts outside: symblib marks nothing (segment of the start)
        m.mark(0x1a0, 0x1e0);
        m.mark(0x1a2, 0x1ef);
        m.mark(0x152, 0x191);
        assert!(!m.partially_covered(0x92, 0x94));
        assert!(!m.partially_covered(0x80, 0x100));
        for s in 0x1a0..0x1ef {
            assert!(!m.partially_covered(s, s), "empty range");
            for l in 1..10 {
                assert!(m.partially_covered(s, s + l));
            }
        }
        assert!(!m.partially_covered(0x1ef, 0x1f0));
        assert!(!m.partially_covered(0x191, 0x192));
        assert!(m.partially_covered(0x190, 0x191));
    }

    #[test]
    fn four_byte_granularity() {
        let mut m = map(0x1000, 0x2000, 4);
        m.mark(0x1001, 0x1002);
        assert!(m.partially_covered(0x1003, 0x1004), "same 4-byte bucket");
        assert!(!m.partially_covered(0x1004, 0x1008));
    }

    fn record(depth: u32, va: u64, length: u64) -> RangeRecord {
        RangeRecord {
            va,
            length,
            func: "f".into(),
            file: None,
            call_file: None,
            call_line: None,
            depth,
            lines: Vec::new(),
        }
    }

    fn merge_source(
        map: &mut CoverageMap,
        records: impl IntoIterator<Item = RangeRecord>,
        out: &mut Vec<RangeRecord>,
    ) -> SourceStats {
        let mut m = SourceMerge::default();
        out.extend(records.into_iter().filter(|r| m.accept(map, r)));
        m.stats
    }

    /// symblib's multi-extractor test (`multi.rs`): the same records, counts and verdicts.
    #[test]
    fn merge_as_symblib() {
        let base = 0x1000;
        let mut m = map(base, base + 0x1000, 1);
        let r = |d, s: u64, e: u64| record(d, base + s, e - s);
        let mut out = Vec::new();
        let first = [
            r(0, 0x10, 0x20),
            r(1, 0x1a, 0x1f),
            r(2, 0x1c, 0x1f),
            r(2, 0xcc, 0xdd),
            r(0, 0x30, 0x40),
            r(0, 0x3a, 0x60),
            r(1, 0x40, 0x41),
        ];
        let s1 = merge_source(&mut m, first, &mut out);
        assert_eq!(
            (
                s1.produced,
                s1.accepted,
                s1.rejected,
                s1.unexpected_inline_children
            ),
            (7, 4, 3, 1)
        );
        let second = [r(0, 0x10, 0x20), r(0, 0x50, 0x70), r(0, 0x32, 0x3b)];
        let s2 = merge_source(&mut m, second, &mut out);
        assert_eq!(
            (
                s2.produced,
                s2.accepted,
                s2.rejected,
                s2.unexpected_inline_children
            ),
            (3, 1, 2, 0)
        );
        assert_eq!(out.len(), 5);
    }
}
