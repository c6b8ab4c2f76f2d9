//! A function's GSYM inline tree (`docs/formats/gsym.md` §7.2) from its groups' spans:
//! the depth-0 spans are the root, every inlined span goes under the nearest span that
//! contains it, and the pieces of one inlined call become one node.

use crate::fast_hash::{fast_map, FastMap};
use crate::model::{Group, Span};

/// No node or span: the end of a list.
const END: usize = usize::MAX;

/// One node: the spans it is made of (a list through [`Tree::next_span`], ascending) and
/// its children (a list through `next_sibling`, in creation order).
struct Node {
    first_span: usize,
    last_span: usize,
    first_child: usize,
    last_child: usize,
    next_sibling: usize,
}

/// The inline tree: nodes and span lists in flat vectors (a Rust function's tree has
/// thousands of nodes; two vectors per node were most of the encoder's allocations).
struct Tree {
    nodes: Vec<Node>,
    /// Per span: the next span of its node.
    next_span: Vec<usize>,
}

/// The list from `first` through `next` up to [`END`].
fn list(first: usize, next: impl Fn(usize) -> usize) -> impl Iterator<Item = usize> {
    std::iter::successors((first != END).then_some(first), move |&k| {
        Some(next(k)).filter(|&n| n != END)
    })
}

impl Tree {
    /// The children of node `n`, in creation order.
    fn children(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        list(self.nodes[n].first_child, |c| self.nodes[c].next_sibling)
    }

    /// The spans of node `n`, ascending.
    fn spans(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        list(self.nodes[n].first_span, |k| self.next_span[k])
    }

    /// A new node of span `i` as the last child of `parent`.
    fn add(&mut self, parent: usize, i: usize) -> usize {
        let c = self.nodes.len();
        self.nodes.push(Node {
            first_span: i,
            last_span: i,
            first_child: END,
            last_child: END,
            next_sibling: END,
        });
        match self.nodes[parent].last_child {
            END => self.nodes[parent].first_child = c,
            last => self.nodes[last].next_sibling = c,
        }
        self.nodes[parent].last_child = c;
        c
    }

    /// Span `i` appended to node `c`.
    fn join(&mut self, c: usize, i: usize) {
        let last = self.nodes[c].last_span;
        self.next_span[last] = i;
        self.nodes[c].last_span = i;
    }
}

/// The table entries of a function's spans, by span index (its groups' spans in order).
pub(crate) struct Ids<'i> {
    /// The string offset of span `k`'s name.
    pub name: &'i dyn Fn(usize) -> u32,
    /// The file-table index of span `k`'s call file, whose path is given.
    pub call_file: &'i dyn Fn(usize, &[u8]) -> u32,
}

/// Encodes the inline tree of the function made of `pieces` (its groups, contiguous, in
/// address order) into `out`, with `ids` giving the string offset of a span's name and
/// the file-table index of its call file. Spans of zero length, which no lookup can
/// meet, are left out. Returns false (writing nothing) when there is no inlined span.
pub(crate) fn encode(pieces: &[Group<'_>], ids: &Ids<'_>, out: &mut Vec<u8>) -> bool {
    let spans: Vec<&Span<'_>> = pieces.iter().flat_map(|g| &g.spans).collect();
    let tree = tree(&spans);
    if tree.nodes[0].first_child == END {
        return false;
    }
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return false;
    };
    let mut writer = Writer {
        spans: &spans,
        tree: &tree,
        root: (first.start(), last.end()),
        ids,
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
fn tree(spans: &[&Span<'_>]) -> Tree {
    let mut tree = Tree {
        nodes: vec![Node {
            first_span: 0,
            last_span: 0,
            first_child: END,
            last_child: END,
            next_sibling: END,
        }],
        next_span: vec![END; spans.len()],
    };
    // The last child node of each (parent node, instance), for calls the source
    // numbered: the child a search of the parent's children would find first, found
    // without the search (the root of a Rust function has thousands of children).
    let mut by_instance: FastMap<(usize, u32), usize> = fast_map();
    // The spans that may still contain later ones, outermost first, with their node.
    let mut open: Vec<(usize, usize)> = vec![(0, 0)];
    for (i, s) in spans.iter().enumerate().skip(1) {
        if s.depth == 0 {
            open.clear();
            open.push((i, 0));
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
        let continues = |c: usize| same_call(spans[tree.nodes[c].last_span], s);
        // A numbered call continues only a child of its number: with none yet, it starts
        // a node without a search; the children are searched only where the source did
        // not number its calls, or numbered them inconsistently.
        let numbered = (s.instance != 0).then(|| by_instance.get(&(parent, s.instance)).copied());
        let joined = match numbered {
            Some(None) => None,
            Some(Some(c)) if continues(c) => Some(c),
            _ => {
                let mut found = None;
                for c in tree.children(parent) {
                    if continues(c) {
                        found = Some(c);
                    }
                }
                found
            }
        };
        let node = match joined {
            Some(c) => {
                tree.join(c, i);
                c
            }
            None => tree.add(parent, i),
        };
        if s.instance != 0 {
            by_instance.insert((parent, s.instance), node);
        }
        open.push((i, node));
    }
    tree
}

/// LLVM's `InlineInfo::encode` over the nodes.
struct Writer<'w, 's, 'a> {
    spans: &'w [&'s Span<'a>],
    tree: &'w Tree,
    /// The function's whole range, the root's one range.
    root: (u64, u64),
    ids: &'w Ids<'w>,
    out: &'w mut Vec<u8>,
}

impl Writer<'_, '_, '_> {
    /// Node `n`: its ranges relative to `base`, the children flag, name, call file and
    /// line, then its children relative to its first range's start and a terminating 0.
    fn write(&mut self, n: usize, base: u64) {
        let node = &self.tree.nodes[n];
        let k = node.first_span;
        let first = self.spans[k];
        let has_children = node.first_child != END;
        let (tree, spans, root) = (self.tree, self.spans, self.root);
        leb128::write::unsigned(self.out, ranges(tree, spans, root, n).count() as u64).ok();
        let mut first_start = base;
        for (r, (start, end)) in ranges(tree, spans, root, n).enumerate() {
            if r == 0 {
                first_start = start;
            }
            leb128::write::unsigned(self.out, start.wrapping_sub(base)).ok();
            leb128::write::unsigned(self.out, end.wrapping_sub(start)).ok();
        }
        self.out.push(u8::from(has_children));
        let name = (self.ids.name)(k);
        self.out.extend_from_slice(&name.to_le_bytes());
        let call_file = first
            .call_file
            .as_deref()
            .map_or(0, |path| (self.ids.call_file)(k, path));
        leb128::write::unsigned(self.out, u64::from(call_file)).ok();
        leb128::write::unsigned(self.out, u64::from(first.call_line)).ok();
        if has_children {
            for child in tree.children(n) {
                self.write(child, first_start);
            }
            leb128::write::unsigned(self.out, 0).ok();
        }
    }
}

/// The ranges of node `n`: the function's range `root` for the root, else its spans'
/// ranges with touching ones joined.
fn ranges<'t>(
    tree: &'t Tree,
    spans: &'t [&Span<'_>],
    root: (u64, u64),
    n: usize,
) -> impl Iterator<Item = (u64, u64)> + 't {
    let mut own = tree.spans(n).map(|i| (spans[i].start, spans[i].end));
    let mut pending = if n == 0 { None } else { own.next() };
    let joined = std::iter::from_fn(move || {
        let (start, mut end) = pending?;
        pending = None;
        for (s, e) in own.by_ref() {
            if s == end {
                end = e;
            } else {
                pending = Some((s, e));
                break;
            }
        }
        Some((start, end))
    });
    (n == 0).then_some(root).into_iter().chain(joined)
}
