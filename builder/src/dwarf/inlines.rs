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

use super::lines::UnitLines;
use super::units::{FuncTree, ROOT};
use crate::model::{sort_spans, Group, SharedBytes, Span, ThinVec};

/// Sorts and merges overlapping or touching intervals; drops empty ones.
pub(crate) fn normalize(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    normalize_in_place(&mut v);
    v
}

/// [`normalize`] without a new allocation.
fn normalize_in_place(v: &mut Vec<(u64, u64)>) {
    merge_in_place(v, true);
}

/// Sorts `v`, drops empty intervals and merges overlapping ones, and touching ones when
/// `touching` is set.
fn merge_in_place(v: &mut Vec<(u64, u64)>, touching: bool) {
    let n = merge_front(v, touching);
    v.truncate(n);
}

/// [`merge_in_place`] on a slice: the result is its first `n` entries, `n` returned.
fn merge_front(v: &mut [(u64, u64)], touching: bool) -> usize {
    let mut n = 0;
    for i in 0..v.len() {
        if v[i].0 < v[i].1 {
            v[n] = v[i];
            n += 1;
        }
    }
    let v = &mut v[..n];
    if n < 2 {
        return n;
    }
    v.sort_unstable();
    let mut w = 0;
    for i in 1..n {
        let (s, e) = v[i];
        if s < v[w].1 || (touching && s == v[w].1) {
            v[w].1 = v[w].1.max(e);
        } else {
            w += 1;
            v[w] = (s, e);
        }
    }
    w + 1
}

/// Intersection of two normalized interval lists.
#[cfg(test)]
pub(crate) fn intersect(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    intersect_into(a, b, &mut out);
    out
}

/// Appends the intersection of `a` and `b` (normalized) to `out`.
fn intersect_into(a: &[(u64, u64)], b: &[(u64, u64)], out: &mut Vec<(u64, u64)>) {
    let (mut i, mut j) = (0, 0);
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
}

/// `a` minus `b`, both normalized.
pub(crate) fn subtract(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    subtract_into(a, b, &mut out);
    out
}

/// Appends `a` minus `b` (both normalized) to `out`.
fn subtract_into(a: &[(u64, u64)], b: &[(u64, u64)], out: &mut Vec<(u64, u64)>) {
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
}

/// The [`Span::instance`] of a depth-0 piece starting at `start`: its start's low 32 bits
/// (two ranges that touch differ there), never 0 (unknown).
fn range_id(start: u64) -> u32 {
    (start as u32).max(1)
}

/// Turns one function tree into groups (one per depth-0 piece), spans without rows yet,
/// appended to `groups`. With `touching_apart`, an inlined call's touching ranges stay
/// separate spans (the depth-0 pieces are merged either way), and each depth-0 piece
/// carries an instance that tells it from a touching function of the same name.
pub(crate) fn tree_to_groups<'a>(
    mut tree: FuncTree<'a>,
    lines: &UnitLines,
    touching_apart: bool,
    groups: &mut Vec<Group<'a>>,
) {
    let n = tree.nodes.len();
    // Every node's final intervals, in one array: node i owns `flat[at[i].0..at[i].1]`.
    let mut flat: Vec<(u64, u64)> = Vec::new();
    let mut at: Vec<(usize, usize)> = Vec::with_capacity(n);
    // What the children of each node cover so far (allocated only for nodes with
    // children).
    let mut taken: Vec<Vec<(u64, u64)>> = vec![Vec::new(); n];
    let mut inside: Vec<(u64, u64)> = Vec::new();
    for i in 0..n {
        let own = &mut tree.nodes[i].ranges;
        let merged = merge_front(own, i == 0 || !touching_apart);
        own.truncate(merged);
        let parent = tree.nodes[i].parent;
        let start = flat.len();
        if parent == ROOT || parent >= i {
            if i == 0 {
                flat.extend_from_slice(&tree.nodes[i].ranges);
            }
        } else {
            let (ps, pe) = at[parent];
            inside.clear();
            intersect_into(&tree.nodes[i].ranges, &flat[ps..pe], &mut inside);
            subtract_into(&inside, &taken[parent], &mut flat);
            let t = &mut taken[parent];
            t.extend_from_slice(&flat[start..]);
            normalize_in_place(t);
        }
        at.push((start, flat.len()));
    }
    let Some(root) = tree.nodes.first() else {
        return;
    };
    let (ps, pe) = at[0];
    let pieces = &flat[ps..pe];
    let first = groups.len();
    let root_file = root.decl_file.and_then(|f| lines.file(f));
    // Each piece's spans counted first, so that its list is allocated once at its size.
    let mut sizes = vec![1usize; pieces.len()];
    for &(s0, e0) in at.iter().skip(1) {
        for &(s, _) in &flat[s0..e0] {
            if let Some(size) = sizes.get_mut(pieces.partition_point(|p| p.1 <= s)) {
                *size += 1;
            }
        }
    }
    for (&(s, e), &size) in pieces.iter().zip(&sizes) {
        let mut spans = Vec::with_capacity(size);
        spans.push(Span {
            start: s,
            end: e,
            depth: 0,
            name: root.name.clone(),
            file: root_file.clone(),
            call_file: None,
            call_line: 0,
            // Which function range the later cuts (where rows change file) come from,
            // so that two functions of one name that touch stay apart.
            instance: if touching_apart { range_id(s) } else { 0 },
            rows: ThinVec::new(),
        });
        groups.push(Group { spans });
    }
    let mine = &mut groups[first..];
    for (instance, (node, &(s0, e0))) in tree.nodes.iter().zip(&at).enumerate().skip(1) {
        if s0 == e0 {
            continue;
        }
        let call_file: Option<SharedBytes> = node.call_file.and_then(|f| lines.file(f));
        for &(s, e) in &flat[s0..e0] {
            let g = pieces.partition_point(|p| p.1 <= s);
            let Some(group) = mine.get_mut(g) else {
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
                instance: u32::try_from(instance).unwrap_or(u32::MAX),
                rows: ThinVec::new(),
            });
        }
    }
    for g in mine {
        if g.spans.len() > 1 {
            sort_spans(&mut g.spans);
        }
    }
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
