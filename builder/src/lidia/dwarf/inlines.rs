//! From a DWARF function tree to well-nested groups of spans.
//!
//! Rules (each one keeps the Lidia lookup walk of spec 11.2 exact):
//! * a subprogram's ranges are sorted and merged (overlapping or touching ranges become
//!   one); each merged range is one depth-0 piece and starts its own [`Group`];
//! * an inlined call's ranges are intersected with its parent's (a deeper span never
//!   starts before, or ends after, the span it is nested in), and minus what earlier
//!   siblings (in DIE order) already cover (two frames of one depth never overlap);
//! * each resulting interval becomes a span in the group of the depth-0 piece holding it,
//!   so a span never crosses a piece boundary and the walk back from any address reaches
//!   the covering inline spans, innermost first, before its own depth-0 span.

use std::sync::Arc;

use super::group::{sort_spans, Group, Span};
use super::lines::UnitLines;
use super::units::{FuncTree, ROOT};

/// Sorts and merges overlapping or touching intervals; drops empty ones.
pub(crate) fn normalize(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.retain(|r| r.0 < r.1);
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Intersection of two normalized interval lists.
pub(crate) fn intersect(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        let s = x.0.max(y.0);
        let e = x.1.min(y.1);
        if s < e {
            out.push((s, e));
        }
        if x.1 <= y.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// `a` minus `b`, both normalized.
pub(crate) fn subtract(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut j = 0;
    for &(mut s, e) in a {
        while b.get(j).is_some_and(|y| y.1 <= s) {
            j += 1;
        }
        let mut k = j;
        while let Some(&(bs, be)) = b.get(k) {
            if bs >= e {
                break;
            }
            if bs > s {
                out.push((s, bs));
            }
            s = s.max(be);
            if s >= e {
                break;
            }
            k += 1;
        }
        if s < e {
            out.push((s, e));
        }
    }
    out
}

/// Turns one function tree into groups (one per depth-0 piece), spans without rows yet.
pub(crate) fn tree_to_groups<'a>(tree: FuncTree<'a>, lines: &UnitLines) -> Vec<Group<'a>> {
    let n = tree.nodes.len();
    let mut norm: Vec<Vec<(u64, u64)>> = Vec::with_capacity(n);
    let mut taken: Vec<Vec<(u64, u64)>> = vec![Vec::new(); n];
    for (i, node) in tree.nodes.iter().enumerate() {
        let own = normalize(node.ranges.clone());
        let r = if node.parent == ROOT || node.parent >= i {
            if i == 0 {
                own
            } else {
                Vec::new()
            }
        } else {
            let inside = intersect(&own, &norm[node.parent]);
            let free = subtract(&inside, &taken[node.parent]);
            let mut t = std::mem::take(&mut taken[node.parent]);
            t.extend_from_slice(&free);
            taken[node.parent] = normalize(t);
            free
        };
        norm.push(r);
    }
    let pieces = norm.first().cloned().unwrap_or_default();
    let mut groups: Vec<Group<'a>> = Vec::with_capacity(pieces.len());
    let Some(root) = tree.nodes.first() else {
        return groups;
    };
    let root_file = root.decl_file.and_then(|f| lines.file(f));
    for &(s, e) in &pieces {
        groups.push(Group {
            spans: vec![Span {
                start: s,
                end: e,
                depth: 0,
                name: root.name.clone(),
                file: root_file.clone(),
                call_file: None,
                call_line: 0,
                rows: Vec::new(),
            }],
        });
    }
    for (node, ranges) in tree.nodes.iter().zip(&norm).skip(1) {
        let call_file: Option<Arc<[u8]>> = node.call_file.and_then(|f| lines.file(f));
        for &(s, e) in ranges {
            let g = pieces.partition_point(|p| p.1 <= s);
            let Some(group) = groups.get_mut(g) else {
                continue;
            };
            group.spans.push(Span {
                start: s,
                end: e,
                depth: node.depth,
                name: node.name.clone(),
                file: None,
                call_file: call_file.clone(),
                call_line: node.call_line,
                rows: Vec::new(),
            });
        }
    }
    for g in &mut groups {
        sort_spans(&mut g.spans);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_algebra() {
        assert_eq!(
            normalize(vec![(5, 9), (0, 2), (2, 3), (8, 12), (4, 4)]),
            vec![(0, 3), (5, 12)]
        );
        assert_eq!(
            intersect(&[(0, 10), (20, 30)], &[(5, 25)]),
            vec![(5, 10), (20, 25)]
        );
        assert_eq!(
            subtract(&[(0, 10), (20, 30)], &[(2, 4), (8, 22), (29, 40)]),
            vec![(0, 2), (4, 8), (22, 29)]
        );
        assert_eq!(subtract(&[(0, 10)], &[]), vec![(0, 10)]);
    }
}
