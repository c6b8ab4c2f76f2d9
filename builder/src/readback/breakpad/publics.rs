//! The whole file's functions: `FUNC` records that overlap (one is dropped, as
//! `breakpad-symbols` drops it) and the extent of each `PUBLIC` record, which has no size.

use crate::model::{Bytes, Group, Span};

/// The range of one `FUNC` record and how many groups it made: they follow those of the
/// records before it.
#[derive(Clone, Copy, Debug)]
pub(super) struct FuncRange {
    pub start: u64,
    pub end: u64,
    pub groups: usize,
}

/// One `PUBLIC` record.
#[derive(Clone, Copy, Debug)]
pub(super) struct Public<'a> {
    pub address: u64,
    pub name: &'a [u8],
}

/// The `FUNC` records `breakpad-symbols` keeps, sorted by range, with their `groups` in
/// that order: of records that overlap, the first in (start, end) order. Returns them,
/// their groups and how many records were dropped.
pub(super) fn keep_functions(
    funcs: Vec<FuncRange>,
    groups: Vec<Group<'_>>,
) -> (Vec<FuncRange>, Vec<Group<'_>>, u64) {
    let sorted = funcs
        .windows(2)
        .all(|w| (w[0].start, w[0].end) <= (w[1].start, w[1].end) && w[0].end <= w[1].start);
    if sorted {
        return (funcs, groups, 0);
    }
    // Each record with where its groups start.
    let mut next = 0;
    let mut placed: Vec<(FuncRange, usize)> = funcs
        .into_iter()
        .map(|f| {
            let at = next;
            next += f.groups;
            (f, at)
        })
        .collect();
    placed.sort_by_key(|(f, _)| (f.start, f.end));
    let mut groups = groups;
    let mut kept: Vec<FuncRange> = Vec::with_capacity(placed.len());
    let mut kept_groups = Vec::with_capacity(groups.len());
    let mut dropped = 0;
    for (f, at) in placed {
        if kept.last().is_some_and(|last| f.start < last.end) {
            dropped += 1;
            continue;
        }
        kept.push(f);
        let taken = groups[at..at + f.groups]
            .iter_mut()
            .map(|g| std::mem::replace(g, Group { spans: Vec::new() }));
        kept_groups.extend(taken);
    }
    (kept, kept_groups, dropped)
}

/// The kept functions' `groups` (in their order) and the `publics`' (from [`groups`]) in
/// address order, as a stable sort by start would place them: a public's group lies
/// outside every function, so it goes before the first function that starts above it.
pub(super) fn merge<'a>(
    funcs: &[FuncRange],
    groups: Vec<Group<'a>>,
    publics: Vec<Group<'a>>,
) -> Vec<Group<'a>> {
    if publics.is_empty() {
        return groups;
    }
    let mut out = Vec::with_capacity(groups.len() + publics.len());
    let mut publics = publics.into_iter().peekable();
    let mut groups = groups.into_iter();
    for f in funcs {
        while let Some(public) = publics.next_if(|p| p.start() < f.start) {
            out.push(public);
        }
        out.extend(groups.by_ref().take(f.groups));
    }
    out.extend(publics);
    out.extend(groups);
    out
}

/// The groups of the `PUBLIC` records, in address order, given the kept functions (sorted,
/// disjoint).
///
/// `breakpad-symbols` answers an address no `FUNC` covers with the last public symbol at
/// or below it (in (address, name) order: of several at one address, the greatest name),
/// unless a `FUNC` starts between that symbol and the address. So a public's group runs
/// from its address (or from the end of a `FUNC` that covers it) to the next public's
/// address or the next `FUNC`'s start, whichever comes first. The last one, which
/// answers every address above it, keeps an empty group at its address (as GSYM's
/// records of size 0 are read; no other format answers it).
pub(super) fn groups<'a>(mut publics: Vec<Public<'a>>, funcs: &[FuncRange]) -> Vec<Group<'a>> {
    publics.sort_by(|a, b| (a.address, a.name).cmp(&(b.address, b.name)));
    let mut out = Vec::new();
    for (k, p) in publics.iter().enumerate() {
        if publics.get(k + 1).is_some_and(|n| n.address == p.address) {
            continue; // not the greatest name at its address
        }
        let next_public = publics.get(k + 1).map(|n| n.address);
        let i = funcs.partition_point(|f| f.start < p.address);
        let next_func = funcs.get(i).map(|f| f.start);
        let covered_to = i
            .checked_sub(1)
            .map(|i| funcs[i].end)
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

    fn ranges(funcs: &[(u64, u64)]) -> Vec<FuncRange> {
        let range = |&(start, end)| FuncRange {
            start,
            end,
            groups: 1,
        };
        funcs.iter().map(range).collect()
    }

    fn public_groups(publics: &[(u64, &'static str)], funcs: &[FuncRange]) -> Vec<Group<'static>> {
        let publics = publics
            .iter()
            .map(|&(address, name)| Public {
                address,
                name: name.as_bytes(),
            })
            .collect();
        groups(publics, funcs)
    }

    fn described(groups: &[Group<'_>]) -> Vec<(u64, u64, String)> {
        let describe = |g: &Group<'_>| {
            let s = &g.spans[0];
            let name = String::from_utf8_lossy(&s.name).into_owned();
            (s.start, s.end, name)
        };
        groups.iter().map(describe).collect()
    }

    fn extents(publics: &[(u64, &'static str)], funcs: &[(u64, u64)]) -> Vec<(u64, u64, String)> {
        described(&public_groups(publics, &ranges(funcs)))
    }

    /// One group per range, named by its range.
    fn func_groups(funcs: &[FuncRange]) -> Vec<Group<'static>> {
        let group = |f: &FuncRange| Group {
            spans: vec![Span::function(
                f.start,
                f.end,
                Bytes::Shared(format!("f{:x}", f.start).into_bytes().into()),
            )],
        };
        funcs.iter().map(group).collect()
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
        let funcs = ranges(&[(0x20, 0x30), (0x10, 0x28), (0x10, 0x18)]);
        let groups = func_groups(&funcs);
        let (kept, groups, dropped) = keep_functions(funcs, groups);
        let kept: Vec<_> = kept.iter().map(|f| (f.start, f.end)).collect();
        assert_eq!(kept, [(0x10, 0x18), (0x20, 0x30)]);
        assert_eq!(dropped, 1);
        // Each record's groups went with it.
        let names: Vec<_> = described(&groups).into_iter().map(|d| d.2).collect();
        assert_eq!(names, ["f10", "f20"]);
    }

    #[test]
    fn publics_merge_as_a_stable_sort_places_them() {
        // Two groups for the first function (cut where its file changes), one for the
        // second, none for a function of size 0 at the start of the third.
        let funcs = [
            FuncRange {
                start: 0x30,
                end: 0x40,
                groups: 2,
            },
            FuncRange {
                start: 0x50,
                end: 0x58,
                groups: 0,
            },
            FuncRange {
                start: 0x50,
                end: 0x58,
                groups: 1,
            },
        ];
        let mut groups = func_groups(&funcs[..1]);
        groups.push(Group {
            spans: vec![Span::function(0x38, 0x40, Bytes::Borrowed(b"f38"))],
        });
        groups.extend(func_groups(&funcs[2..]));
        let publics = [
            (0x10, "a"),
            (0x20, "c"),
            (0x38, "inside"),
            (0x50, "at a FUNC"),
            (0x60, "last"),
        ];
        let publics = public_groups(&publics, &funcs);
        let mut sorted = groups.clone();
        sorted.extend(publics.iter().cloned());
        sorted.sort_by_key(Group::start);
        let merged = merge(&funcs, groups, publics);
        assert_eq!(described(&merged), described(&sorted));
        assert_eq!(merged.len(), 7);
    }
}
