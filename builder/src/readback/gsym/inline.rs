//! The inlined spans of one GSYM function: each node of its inline tree over the
//! addresses where LLVM's lookup reaches it (`docs/formats/gsym.md` §7.2).

use symblob::gsym::{Function, GsymFile};

use super::Paths;
use crate::model::{Bytes, Span, ThinVec};

/// Address intervals `[start, end)`, sorted, disjoint and apart.
type Intervals = Vec<(u64, u64)>;

/// An open node of the walk.
struct Level {
    /// The addresses where the lookup reaches the node.
    reach: Intervals,
    /// The ranges of its children so far: a later child is not entered where an earlier
    /// one covers an address.
    taken: Intervals,
    /// The model depth of its spans (or of its nearest ancestor with spans).
    depth: u32,
}

/// Appends the inlined spans of `function` (whose depth-0 span ends at `end`) to `out`.
///
/// A node reaches the addresses of its ranges that its parent reaches and that no
/// sibling before it covers (the lookup enters the first covering child), the root those
/// of its ranges inside the function. A node whose call file is a `{0, 0}` entry adds no
/// frame to a lookup and no span here (the root, in what LLVM writes); its children are
/// one deeper than its nearest ancestor that has spans. Each node with spans gets the next
/// [`Span::instance`], from 1.
pub(super) fn spans<'a>(
    file: &GsymFile<'a>,
    function: &Function<'a>,
    end: u64,
    paths: &mut Paths,
    out: &mut Vec<Span<'a>>,
) -> Result<(), symblob::Error> {
    let Some(nodes) = file.inline_nodes(function)? else {
        return Ok(());
    };
    let whole: Intervals = if function.address < end {
        vec![(function.address, end)]
    } else {
        Vec::new()
    };
    let mut levels: Vec<Level> = Vec::new();
    let mut instance = 0u32;
    for node in nodes {
        let node = node?;
        // The walk is depth first: the node's parent is the last level left open.
        levels.truncate(node.depth);
        let ranges = normalized(node.ranges.clone().map(|r| (r.start, r.end)).collect());
        let (reach, outer) = match levels.last_mut() {
            Some(parent) => {
                let reach = subtract(&intersect(&ranges, &parent.reach), &parent.taken);
                parent.taken = union(&parent.taken, ranges);
                (reach, parent.depth)
            }
            None => (intersect(&ranges, &whole), 0),
        };
        let names_file = file
            .file_offsets(node.call_file)
            .is_some_and(|offsets| offsets != (0, 0));
        let depth = outer + u32::from(names_file);
        if names_file && !reach.is_empty() {
            instance += 1;
            let call_file = paths.get(file, node.call_file);
            out.extend(reach.iter().map(|&(start, end)| Span {
                start,
                end,
                depth,
                name: Bytes::Borrowed(node.name.0),
                file: None,
                call_file: call_file.clone(),
                call_line: node.call_line,
                instance,
                rows: ThinVec::new(),
            }));
        }
        levels.push(Level {
            reach,
            taken: Vec::new(),
            depth,
        });
    }
    Ok(())
}

/// `ranges` without empty ones, sorted, overlapping and touching ones joined.
fn normalized(mut ranges: Intervals) -> Intervals {
    ranges.retain(|&(start, end)| start < end);
    ranges.sort_unstable();
    let mut out: Intervals = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// The addresses in both `a` and `b`.
fn intersect(a: &[(u64, u64)], b: &[(u64, u64)]) -> Intervals {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while let (Some(&(s1, e1)), Some(&(s2, e2))) = (a.get(i), b.get(j)) {
        let (start, end) = (s1.max(s2), e1.min(e2));
        if start < end {
            out.push((start, end));
        }
        if e1 <= e2 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The addresses in `a` and not in `b`.
fn subtract(a: &[(u64, u64)], b: &[(u64, u64)]) -> Intervals {
    let mut out = Vec::new();
    let mut j = 0;
    for &(start, end) in a {
        let mut from = start;
        // Skip what ends before this interval; the rest may cut it.
        while b.get(j).is_some_and(|&(_, e)| e <= from) {
            j += 1;
        }
        let mut k = j;
        while let Some(&(s, e)) = b.get(k) {
            if s >= end {
                break;
            }
            if s > from {
                out.push((from, s));
            }
            from = from.max(e);
            if from >= end {
                break;
            }
            k += 1;
        }
        if from < end {
            out.push((from, end));
        }
    }
    out
}

/// `a` with `b` added (`b` normalized); siblings come in address order, so `b` usually
/// lies after all of `a`.
fn union(a: &[(u64, u64)], b: Intervals) -> Intervals {
    match (a.last(), b.first()) {
        (None, _) => b,
        (Some(&(_, end)), Some(&(start, _))) if end < start => {
            let mut out = a.to_vec();
            out.extend(b);
            out
        }
        _ => normalized(a.iter().copied().chain(b).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_arithmetic() {
        let a = normalized(vec![(10, 20), (0, 5), (5, 7), (30, 30)]);
        assert_eq!(a, [(0, 7), (10, 20)]);
        assert_eq!(
            intersect(&a, &[(3, 12), (15, 40)]),
            [(3, 7), (10, 12), (15, 20)]
        );
        assert_eq!(
            subtract(&a, &[(3, 4), (6, 11), (19, 25)]),
            [(0, 3), (4, 6), (11, 19)]
        );
        assert_eq!(subtract(&a, &[]), a);
        assert_eq!(union(&a, vec![(25, 30)]), [(0, 7), (10, 20), (25, 30)]);
        assert_eq!(union(&a, vec![(6, 10)]), [(0, 20)]);
    }
}
