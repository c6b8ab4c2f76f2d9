//! The global pass over the depth-0 pieces of every unit, so that no depth-0 range
//! shadows another (spec 11.3, "last depth-0 range shadows").
//!
//! Rules, applied in this order:
//! 1. a piece must start inside an executable section (`SHF_EXECINSTR`) of the ELF; it is
//!    clipped to that section's end. Functions of code the linker discarded (relocated
//!    to 0 or to a tombstone) and zero-length pieces disappear here;
//! 2. pieces are ordered by (start, unit order, DIE order); a piece that starts before the
//!    end of an earlier one loses the overlapping part (the earlier piece wins) and is
//!    dropped if nothing is left. After this, depth-0 pieces are pairwise disjoint, so the
//!    walk back from any address stops at the piece that covers it, or at one that ends
//!    before it (no result, correctly).

use crate::model::Group;

/// Rule 1 for the groups of one unit (run per unit, in parallel): drops the groups that
/// do not start in executable code and clips the others to the end of their section.
/// Order is kept.
pub(crate) fn clip_to_code<'a>(groups: Vec<Group<'a>>, exec: &[(u64, u64)]) -> Vec<Group<'a>> {
    let mut kept = Vec::with_capacity(groups.len());
    for g in groups {
        let start = g.start();
        let i = exec.partition_point(|r| r.1 <= start);
        let Some(&(sec_start, sec_end)) = exec.get(i) else {
            continue;
        };
        if start < sec_start {
            continue;
        }
        if let Some(g) = g.clip(start, sec_end) {
            kept.push(g);
        }
    }
    kept
}

/// Rule 2 for the groups of all units, each already through [`clip_to_code`] (given in
/// unit order, each unit's in DIE order): returns the surviving groups sorted by address.
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
    use crate::model::{Bytes, Span};

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
                rows: Vec::new(),
            }],
        }
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
