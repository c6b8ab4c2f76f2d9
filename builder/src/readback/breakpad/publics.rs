//! The whole file's functions: `FUNC` records that overlap (one is dropped, as
//! `breakpad-symbols` drops it) and the extent of each `PUBLIC` record, which has no size.

use crate::model::{Bytes, Group, Span};

/// The groups of one `FUNC` record and its range.
#[derive(Debug)]
pub(super) struct FuncGroups<'a> {
    pub start: u64,
    pub end: u64,
    pub groups: Vec<Group<'a>>,
}

/// One `PUBLIC` record.
#[derive(Clone, Copy, Debug)]
pub(super) struct Public<'a> {
    pub address: u64,
    pub name: &'a [u8],
}

/// The `FUNC` records `breakpad-symbols` keeps, sorted by range: of records that overlap,
/// the first in (start, end) order; returns them and how many were dropped.
pub(super) fn keep_functions(mut funcs: Vec<FuncGroups<'_>>) -> (Vec<FuncGroups<'_>>, u64) {
    let sorted = funcs
        .windows(2)
        .all(|w| (w[0].start, w[0].end) <= (w[1].start, w[1].end) && w[0].end <= w[1].start);
    if sorted {
        return (funcs, 0);
    }
    funcs.sort_by_key(|f| (f.start, f.end));
    let mut kept: Vec<FuncGroups<'_>> = Vec::with_capacity(funcs.len());
    let mut dropped = 0;
    for f in funcs {
        if kept.last().is_some_and(|last| f.start < last.end) {
            dropped += 1;
            continue;
        }
        kept.push(f);
    }
    (kept, dropped)
}

/// The groups of the `PUBLIC` records, given the kept functions' ranges (sorted,
/// disjoint).
///
/// `breakpad-symbols` answers an address no `FUNC` covers with the last public symbol at
/// or below it (in (address, name) order: of several at one address, the greatest name),
/// unless a `FUNC` starts between that symbol and the address. So a public's group runs
/// from its address (or from the end of a `FUNC` that covers it) to the next public's
/// address or the next `FUNC`'s start, whichever comes first. The last one, which
/// answers every address above it, keeps an empty group at its address (as GSYM's
/// records of size 0 are read; no other format answers it).
pub(super) fn groups<'a>(mut publics: Vec<Public<'a>>, funcs: &[(u64, u64)]) -> Vec<Group<'a>> {
    publics.sort_by(|a, b| (a.address, a.name).cmp(&(b.address, b.name)));
    let mut out = Vec::new();
    for (k, p) in publics.iter().enumerate() {
        if publics.get(k + 1).is_some_and(|n| n.address == p.address) {
            continue; // not the greatest name at its address
        }
        let next_public = publics.get(k + 1).map(|n| n.address);
        let i = funcs.partition_point(|&(s, _)| s < p.address);
        let next_func = funcs.get(i).map(|&(s, _)| s);
        let covered_to = i
            .checked_sub(1)
            .map(|i| funcs[i].1)
            .filter(|&e| e > p.address);
        let begin = covered_to.unwrap_or(p.address);
        let end = match (next_public, next_func) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let name = Bytes::Borrowed(p.name);
        match end {
            Some(end) if begin < end => out.push(Group {
                spans: vec![Span::function(begin, end, name)],
            }),
            None if covered_to.is_none() => out.push(Group {
                spans: vec![Span::function(begin, begin, name)],
            }),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extents(publics: &[(u64, &'static str)], funcs: &[(u64, u64)]) -> Vec<(u64, u64, String)> {
        let publics = publics
            .iter()
            .map(|&(address, name)| Public {
                address,
                name: name.as_bytes(),
            })
            .collect();
        groups(publics, funcs)
            .iter()
            .map(|g| {
                let s = &g.spans[0];
                (
                    s.start,
                    s.end,
                    String::from_utf8_lossy(&s.name).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn a_public_ends_at_the_next_public_or_func() {
        let got = extents(
            &[
                (0x10, "a"),
                (0x20, "c"),
                (0x20, "b"),
                (0x38, "inside"),
                (0x60, "last"),
            ],
            &[(0x30, 0x40), (0x50, 0x58)],
        );
        assert_eq!(
            got,
            [
                (0x10, 0x20, "a".into()),
                (0x20, 0x30, "c".into()),
                (0x40, 0x50, "inside".into()),
                (0x60, 0x60, "last".into()),
            ]
        );
        // A public where a FUNC starts has no address of its own.
        assert!(extents(&[(0x30, "f")], &[(0x30, 0x40), (0x50, 0x58)]).is_empty());
    }

    #[test]
    fn overlapping_functions_keep_the_first() {
        let f = |start, end| FuncGroups {
            start,
            end,
            groups: Vec::new(),
        };
        let (kept, dropped) = keep_functions(vec![f(0x20, 0x30), f(0x10, 0x28), f(0x10, 0x18)]);
        let ranges: Vec<_> = kept.iter().map(|f| (f.start, f.end)).collect();
        assert_eq!(ranges, [(0x10, 0x18), (0x20, 0x30)]);
        assert_eq!(dropped, 1);
    }
}
