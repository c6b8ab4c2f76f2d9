//! A function's GSYM inline tree (`docs/formats/gsym.md` §7.2) from its groups' spans:
//! the depth-0 spans are the root, every inlined span goes under the nearest span that
//! contains it, and the pieces of one inlined call become one node.

use crate::model::{Group, Span};

/// One node: the spans it is made of (its ranges, ascending) and its children.
struct Node {
    spans: Vec<usize>,
    children: Vec<usize>,
}

/// Encodes the inline tree of the function made of `pieces` (its groups, contiguous, in
/// address order) into `out`, with `name` and `file_index` giving the string offset of a
/// name and the file-table index of a path. Spans of zero length, which no lookup can
/// meet, are left out. Returns false (writing nothing) when there is no inlined span.
pub(crate) fn encode<'m>(
    pieces: &'m [Group<'_>],
    name: &mut dyn FnMut(&'m [u8]) -> u32,
    file_index: &mut dyn FnMut(&'m [u8]) -> u32,
    out: &mut Vec<u8>,
) -> bool {
    let spans: Vec<&'m Span<'_>> = pieces.iter().flat_map(|g| &g.spans).collect();
    let nodes = tree(&spans);
    if nodes[0].children.is_empty() {
        return false;
    }
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return false;
    };
    let mut writer = Writer {
        spans: &spans,
        nodes: &nodes,
        root: (first.start(), last.end()),
        name,
        file_index,
        out,
    };
    writer.write(0, first.start());
    true
}

/// Whether `b` is a piece of the inlined call `a` is a piece of (both under one parent):
/// the same [`Span::instance`] when the source numbered the calls, else — when it did
/// not — the same call touching `a`.
fn same_call(a: &Span<'_>, b: &Span<'_>) -> bool {
    let same_site = a.depth == b.depth
        && *a.name == *b.name
        && a.call_file == b.call_file
        && a.call_line == b.call_line;
    match (a.instance, b.instance) {
        (0, 0) => same_site && a.end == b.start,
        (x, y) => same_site && x == y,
    }
}

/// The nodes of the spans (each group's sorted by (start, depth), laminar), root first:
/// every depth-0 span is the root; every other span goes under the innermost span before
/// it that contains it, joining the last child node there when it continues its call.
fn tree(spans: &[&Span<'_>]) -> Vec<Node> {
    let mut nodes = vec![Node {
        spans: vec![0],
        children: Vec::new(),
    }];
    // The spans that may still contain later ones, outermost first, with their node.
    let mut open: Vec<(usize, usize)> = vec![(0, 0)];
    for (i, s) in spans.iter().enumerate().skip(1) {
        if s.depth == 0 {
            open = vec![(i, 0)];
            continue;
        }
        if s.start >= s.end {
            continue;
        }
        while let Some(&(top, _)) = open.last() {
            let t = spans[top];
            if open.len() == 1 || (t.depth < s.depth && t.start <= s.start && s.end <= t.end) {
                break;
            }
            open.pop();
        }
        let parent = open.last().map_or(0, |&(_, node)| node);
        let joined = nodes[parent].children.iter().rev().copied().find(|&c| {
            let last = nodes[c].spans.last().map_or(0, |&k| k);
            same_call(spans[last], s)
        });
        let node = match joined {
            Some(c) => {
                nodes[c].spans.push(i);
                c
            }
            None => {
                nodes.push(Node {
                    spans: vec![i],
                    children: Vec::new(),
                });
                let c = nodes.len() - 1;
                nodes[parent].children.push(c);
                c
            }
        };
        open.push((i, node));
    }
    nodes
}

/// LLVM's `InlineInfo::encode` over the nodes.
struct Writer<'w, 's, 'a> {
    spans: &'w [&'s Span<'a>],
    nodes: &'w [Node],
    /// The function's whole range, the root's one range.
    root: (u64, u64),
    name: &'w mut dyn FnMut(&'s [u8]) -> u32,
    file_index: &'w mut dyn FnMut(&'s [u8]) -> u32,
    out: &'w mut Vec<u8>,
}

impl<'s> Writer<'_, 's, '_> {
    /// Node `n`: its ranges relative to `base`, the children flag, name, call file and
    /// line, then its children relative to its first range's start and a terminating 0.
    fn write(&mut self, n: usize, base: u64) {
        let node = &self.nodes[n];
        let first = self.spans[node.spans[0]];
        let ranges = self.ranges(n);
        leb128::write::unsigned(self.out, ranges.len() as u64).ok();
        for &(start, end) in &ranges {
            leb128::write::unsigned(self.out, start.wrapping_sub(base)).ok();
            leb128::write::unsigned(self.out, end.wrapping_sub(start)).ok();
        }
        self.out.push(u8::from(!node.children.is_empty()));
        let name = (self.name)(&first.name);
        self.out.extend_from_slice(&name.to_le_bytes());
        let call_file = first.call_file.as_deref().map_or(0, &mut *self.file_index);
        leb128::write::unsigned(self.out, u64::from(call_file)).ok();
        leb128::write::unsigned(self.out, u64::from(first.call_line)).ok();
        if !node.children.is_empty() {
            let start = ranges.first().map_or(base, |r| r.0);
            for &child in &node.children {
                self.write(child, start);
            }
            leb128::write::unsigned(self.out, 0).ok();
        }
    }

    /// The ranges of node `n`: the function's range for the root, else its spans' ranges
    /// with touching ones joined.
    fn ranges(&self, n: usize) -> Vec<(u64, u64)> {
        if n == 0 {
            return vec![self.root];
        }
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &i in &self.nodes[n].spans {
            let s = self.spans[i];
            match out.last_mut() {
                Some(last) if last.1 == s.start => last.1 = s.end,
                _ => out.push((s.start, s.end)),
            }
        }
        out
    }
}
