//! The global pass over the depth-0 pieces of every unit, so that no depth-0 range
//! shadows another (spec 11.3, "last depth-0 range shadows").
//!
//! Rules, applied in this order:
//! 1. a piece must start inside an executable section (`SHF_EXECINSTR`) of the ELF; it is
//!    clipped to that section's end. Functions of code the linker discarded (relocated
//!    to 0 or to a tombstone) and zero-length pieces disappear here. Then (rule 1b),
//!    inside one unit, a piece later in DIE order wins where it overlaps an earlier one
//!    (a subprogram nested in another's range, functions folded to one address), as
//!    LLVM's `DWARFUnit::updateAddressDieMap` decides; see [`later_wins_in_unit`];
//! 2. pieces (of different units, from here on) are ordered by (start, unit order, DIE
//!    order); a piece that starts before the end of an earlier one loses the overlapping
//!    part (the earlier piece wins) and is dropped if nothing is left. After this,
//!    depth-0 pieces are pairwise disjoint, so the walk back from any address stops at the
//!    piece that covers it, or at one that ends before it (no result, correctly).

use crate::model::Group;

/// Rule 1 for the groups of one unit: drops the groups that do not start in executable
/// code and clips the others to the end of their section. Order is kept.
#[cfg(test)]
pub(crate) fn clip_to_code<'a>(groups: Vec<Group<'a>>, exec: &[(u64, u64)]) -> Vec<Group<'a>> {
    groups
        .into_iter()
        .filter_map(|g| clip_group_to_code(g, exec))
        .collect()
}

/// Rule 1 for one group (run per unit, in parallel): `None` when it does not start in
/// executable code, else the group clipped to the end of its section.
pub(crate) fn clip_group_to_code<'a>(g: Group<'a>, exec: &[(u64, u64)]) -> Option<Group<'a>> {
    let start = g.start();
    let &(sec_start, sec_end) = exec.get(exec.partition_point(|r| r.1 <= start))?;
    if start < sec_start {
        return None;
    }
    g.clip(start, sec_end)
}

/// Whether `addr` lies in one of the (sorted) executable ranges `exec`.
pub(crate) fn in_code(addr: u64, exec: &[(u64, u64)]) -> bool {
    exec.get(exec.partition_point(|r| r.1 <= addr))
        .is_some_and(|r| r.0 <= addr)
}

/// Rule 1b for the groups of one unit: which function owns each address is decided by
/// LLVM's address map of the unit (`DWARFUnit::updateAddressDieMap`), built from `dies`,
/// the `(lo, hi, function)` ranges of every subprogram and inlined call in DIE order.
/// Each range is entered in turn; if it starts inside the entry before it, that entry is
/// cut at `lo` and, when the range ends inside it, resumes at `hi`; then the range is
/// entered at `lo`, replacing an entry with the same start. An entry covers from its start
/// to its end or the next entry's start, whichever comes first. So a nested function wins
/// inside its range and the enclosing one keeps the rest, and of functions with equal
/// ranges (folded twins) the later one wins, except where the earlier one's inlined calls
/// start entries the later one does not replace, as in LLVM.
///
/// `owners[i]` is the function of `groups[i]`. Each group is clipped to the addresses its
/// function owns. Returns disjoint groups: as given when they already were (the usual
/// case), else in address order.
pub(crate) fn later_wins_in_unit<'a>(
    mut groups: Vec<Group<'a>>,
    owners: &[usize],
    dies: &[(u64, u64, usize)],
) -> Vec<Group<'a>> {
    let mut keys: Vec<(u64, u64)> = groups.iter().map(|g| (g.start(), g.end())).collect();
    keys.sort_unstable();
    if keys.windows(2).all(|w| w[0].1 <= w[1].0) || owners.len() != groups.len() {
        return groups;
    }
    let mut map: std::collections::BTreeMap<u64, (u64, usize)> = Default::default();
    for &(lo, hi, owner) in dies {
        if lo >= hi {
            continue;
        }
        if let Some((&b_start, &(b_end, b_owner))) = map.range(..=lo).next_back() {
            if lo < b_end {
                if hi < b_end {
                    map.insert(hi, (b_end, b_owner));
                }
                if lo > b_start {
                    map.insert(b_start, (lo, b_owner));
                }
            }
        }
        map.insert(lo, (hi, owner));
    }
    // Each function's regions, adjacent ones merged (a function split by its own
    // inlined calls is one region again).
    let entries: Vec<(u64, u64, usize)> = map.into_iter().map(|(s, (e, o))| (s, e, o)).collect();
    let mut regions: Vec<(u64, u64, usize)> = Vec::with_capacity(entries.len());
    for (k, &(start, end, owner)) in entries.iter().enumerate() {
        let end = entries.get(k + 1).map_or(end, |n| end.min(n.0));
        if start >= end {
            continue;
        }
        match regions.last_mut() {
            Some(last) if last.1 == start && last.2 == owner => last.1 = end,
            _ => regions.push((start, end, owner)),
        }
    }
    let mut by_owner: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for (i, &owner) in owners.iter().enumerate() {
        by_owner.entry(owner).or_default().push(i);
    }
    let mut out = Vec::with_capacity(regions.len());
    for (start, end, owner) in regions {
        for &i in by_owner.get(&owner).map_or(&[][..], Vec::as_slice) {
            let (g_start, g_end) = (groups[i].start(), groups[i].end());
            if g_end <= start || end <= g_start || groups[i].spans.is_empty() {
                continue;
            }
            // A group inside one region is moved; one that regions share is copied.
            let g = if start <= g_start && g_end <= end {
                std::mem::replace(&mut groups[i], Group { spans: Vec::new() })
            } else {
                groups[i].clone()
            };
            out.extend(g.clip(start, end));
        }
    }
    out.sort_unstable_by_key(Group::start);
    out
}

/// Rule 2 for the groups of all units, each already through [`clip_group_to_code`] and
/// [`later_wins_in_unit`] (given in unit order): returns the surviving groups sorted by
/// address.
///
/// Works on a table of (start, end, index) read once per group, so sorting and the
/// overlap walk do not chase every group's span vector; a group is only touched again to
/// move it to the output (and to clip it, rarely).
pub(crate) fn remove_overlaps<'a>(mut groups: Vec<Group<'a>>) -> Vec<Group<'a>> {
    let mut keys: Vec<(u64, u64, usize)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (g.start(), g.end(), i))
        .collect();
    // Equal starts keep unit and DIE order (the index breaks ties).
    keys.sort_unstable_by_key(|&(start, _, i)| (start, i));
    let mut out: Vec<Group<'a>> = Vec::with_capacity(keys.len());
    let mut covered_to = 0u64;
    for (start, end, i) in keys {
        if end <= covered_to && !out.is_empty() {
            continue;
        }
        let g = std::mem::replace(&mut groups[i], Group { spans: Vec::new() });
        let g = if start < covered_to && !out.is_empty() {
            match g.clip(covered_to, u64::MAX) {
                Some(g) => g,
                None => continue,
            }
        } else {
            g
        };
        covered_to = g.end();
        out.push(g);
    }
    out
}

/// Rules 1 and 2 for the groups of all units (given in unit order, each unit's in DIE
/// order); returns the surviving groups sorted by address.
#[cfg(test)]
pub(crate) fn resolve_overlaps<'a>(groups: Vec<Group<'a>>, exec: &[(u64, u64)]) -> Vec<Group<'a>> {
    remove_overlaps(clip_to_code(groups, exec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bytes, Span, ThinVec};

    fn group(start: u64, end: u64, name: &'static [u8]) -> Group<'static> {
        Group {
            spans: vec![Span {
                start,
                end,
                depth: 0,
                name: Bytes::Borrowed(name),
                file: None,
                call_file: None,
                call_line: 0,
                instance: 0,
                rows: ThinVec::new(),
            }],
        }
    }

    fn spans(groups: &[Group<'static>]) -> Vec<(u64, u64, String)> {
        groups
            .iter()
            .map(|g| {
                let name = String::from_utf8_lossy(&g.spans[0].name).into_owned();
                (g.start(), g.end(), name)
            })
            .collect()
    }

    #[test]
    fn in_one_unit_the_later_die_wins_like_llvm() {
        let groups = vec![
            group(0x100, 0x200, b"outer"),
            group(0x140, 0x160, b"nested"),
            group(0x300, 0x340, b"first_twin"),
            group(0x300, 0x340, b"second_twin"),
            group(0x400, 0x480, b"a"),
            group(0x440, 0x500, b"b"),
        ];
        let owners: Vec<usize> = (0..groups.len()).collect();
        // The DIE ranges: each group's function, and an inlined call inside the first
        // twin, which keeps the entry it starts (LLVM's map).
        let mut dies: Vec<(u64, u64, usize)> = groups
            .iter()
            .zip(&owners)
            .map(|(g, &o)| (g.start(), g.end(), o))
            .collect();
        dies.insert(3, (0x310, 0x320, 2));
        assert_eq!(
            spans(&later_wins_in_unit(groups, &owners, &dies)),
            [
                (0x100, 0x140, "outer"),
                (0x140, 0x160, "nested"),
                (0x160, 0x200, "outer"),
                (0x300, 0x310, "second_twin"),
                (0x310, 0x340, "first_twin"),
                (0x400, 0x440, "a"),
                (0x440, 0x500, "b"),
            ]
            .map(|(s, e, n)| (s, e, n.to_owned()))
        );
    }

    #[test]
    fn overlaps_and_outside_code_are_removed() {
        let groups = vec![
            group(0x100, 0x180, b"b"),
            group(0, 0x40, b"discarded"),
            group(0x150, 0x200, b"c"),
            group(0x120, 0x130, b"inside_b"),
            group(0x100, 0x110, b"alias_b"),
            group(0x1f0, 0x400, b"d"),
        ];
        let out = resolve_overlaps(groups, &[(0x100, 0x300)]);
        let got: Vec<_> = out
            .iter()
            .map(|g| (g.start(), g.end(), &*g.spans[0].name))
            .collect();
        assert_eq!(
            got,
            vec![
                (0x100, 0x180, &b"b"[..]),
                (0x180, 0x200, &b"c"[..]),
                (0x200, 0x300, &b"d"[..])
            ]
        );
    }
}
