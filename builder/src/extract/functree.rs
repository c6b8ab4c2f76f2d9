//! One function's range tree (spec §5.2–§5.4): a node per address range of the function
//! and of each inline instance, line entries assigned through the "top view", records
//! emitted in pre-order and split where the source file changes.
//!
//! Unlike symblib, each piece of a split node is followed by its own descendants, so that
//! a consumer which keeps only the inline records inside the preceding depth-0 record
//! (symblib's multi-extractor) loses none.

use gimli::AttributeValue as AV;

use super::lines::{overlapping, LineEntry, UnitError, UnitFiles};
use super::unit_out::{CompactRange, UnitRecords, NO_STRING};
use super::walk::{Function, Instance, MAX_FUNCTION_DEPTH};
use crate::demangle::symblib::demangle;
use crate::dwarf::Slice;
use crate::fast_hash::FastMap;
use crate::model::LineRow;

const NO_INSTANCE: usize = usize::MAX;

struct Node {
    start: u64,
    end: u64,
    instance: usize,
    children: Vec<usize>,
    /// Line rows seen from above: (start, file id, line).
    rows: Vec<(u64, u32, u64)>,
    /// Whether this node or a descendant has rows.
    has_lines: bool,
}

/// Everything a unit shares between its functions.
pub(crate) struct UnitContext<'u, 'a> {
    pub dwarf: &'u gimli::Dwarf<Slice<'a>>,
    pub unit: &'u gimli::Unit<Slice<'a>>,
    pub files: &'u mut UnitFiles,
    pub lines: &'u [LineEntry],
    /// Running maximum of `lines[..=i].end`.
    pub max_end: &'u [u64],
    /// Indices into [`UnitRecords::funcs`] of the demangled names, by the address and
    /// length of their bytes in the sections (equal `.debug_str` entries are one).
    pub names: &'u mut FastMap<(usize, usize), u32>,
}

/// The nodes of a function's tree and its top view, kept from one function to the next so
/// that their vectors are allocated once per unit rather than once per function.
#[derive(Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
    /// Nodes of earlier functions, emptied, for reuse.
    free: Vec<Node>,
    pieces: Vec<(u64, u64, usize)>,
}

impl Tree {
    /// Starts a new tree with its root.
    fn reset(&mut self) {
        for mut node in self.nodes.drain(..) {
            node.children.clear();
            node.rows.clear();
            self.free.push(node);
        }
        self.pieces.clear();
        self.add(0, u64::MAX, NO_INSTANCE);
    }

    fn add(&mut self, start: u64, end: u64, instance: usize) -> usize {
        let node = match self.free.pop() {
            Some(node) => Node {
                start,
                end,
                instance,
                has_lines: false,
                ..node
            },
            None => Node {
                start,
                end,
                instance,
                children: Vec::new(),
                rows: Vec::new(),
                has_lines: false,
            },
        };
        self.nodes.push(node);
        self.nodes.len() - 1
    }
}

/// Builds the tree of one function and appends its records to `out`. Records appended
/// before an error stay (symblib keeps what it emitted before abandoning a unit).
pub(crate) fn function_records<'a>(
    cx: &mut UnitContext<'_, 'a>,
    tree: &mut Tree,
    function: &Function<'a>,
    out: &mut UnitRecords,
) -> Result<(), UnitError> {
    tree.reset();
    for (i, inst) in function.instances.iter().enumerate() {
        if inst.depth > MAX_FUNCTION_DEPTH {
            return Err("inline tree deeper than 256".into());
        }
        for &(start, end) in function.ranges_of(inst) {
            // Ranges at 0 or 1 are code the linker removed. Empty and inverted ranges
            // (corrupt DWARF) could never give a record: symblib would compute a wrapped
            // length from them.
            if start <= 1 || end <= start {
                continue;
            }
            let Some(parent) = container(&tree.nodes, inst.depth, start, end) else {
                continue;
            };
            let id = tree.add(start, end, i);
            tree.nodes[parent].children.push(id);
        }
    }
    let nodes = &mut tree.nodes;
    if nodes[0].children.is_empty() {
        return Ok(());
    }
    for n in 0..nodes.len() {
        let mut children = std::mem::take(&mut nodes[n].children);
        children.sort_by_key(|&c| (nodes[c].start, nodes[c].end));
        nodes[n].children = children;
    }
    top_view(nodes, 0, &mut tree.pieces);
    for &(start, end, n) in &tree.pieces {
        if n == 0 {
            continue;
        }
        for e in overlapping(cx.lines, cx.max_end, start, end) {
            if e.line == 0 {
                continue;
            }
            nodes[n].rows.push((e.start.max(start), e.file, e.line));
        }
    }
    for node in nodes.iter_mut() {
        node.rows.sort_by_key(|r| r.0);
        // Rows with the same start, or the same file and line, merge into the first.
        node.rows
            .dedup_by(|b, a| a.0 == b.0 || (a.1 == b.1 && a.2 == b.2));
    }
    mark_lines(nodes, 0);
    for &c in &nodes[0].children {
        emit(cx, nodes, &function.instances, c, out)?;
    }
    Ok(())
}

/// The node a range of function-tree depth `depth` hangs under: the root for depth 0, else
/// the first child containing it at each level down to depth − 1.
fn container(nodes: &[Node], depth: u64, start: u64, end: u64) -> Option<usize> {
    let inside = |n: &Node| start >= n.start && end <= n.end;
    if depth == 0 {
        return inside(&nodes[0]).then_some(0);
    }
    let mut node = 0;
    for level in 1..=depth {
        let next = nodes[node]
            .children
            .iter()
            .copied()
            .find(|&c| inside(&nodes[c]))?;
        node = next;
        if level == depth {
            return Some(node);
        }
    }
    None
}

/// Each address to the deepest node covering it, as `(start, end, node)` pieces, in the
/// exact cutting order symblib uses.
fn top_view(nodes: &[Node], n: usize, out: &mut Vec<(u64, u64, usize)>) {
    let node = &nodes[n];
    out.push((node.start, node.end, n));
    for &c in &node.children {
        if let Some(prev) = out.last_mut() {
            prev.1 = nodes[c].start;
            if prev.0 >= prev.1 {
                out.pop();
            }
        }
        top_view(nodes, c, out);
        if let Some(&(_, prev_end, _)) = out.last() {
            if node.end > prev_end {
                out.push((prev_end, node.end, n));
            }
        }
    }
}

fn mark_lines(nodes: &mut [Node], n: usize) -> bool {
    let mut any = !nodes[n].rows.is_empty();
    for i in 0..nodes[n].children.len() {
        let c = nodes[n].children[i];
        any |= mark_lines(nodes, c);
    }
    nodes[n].has_lines = any;
    any
}

/// Emits node `n` (split at file changes, each piece followed by the descendants that
/// start in it), then whatever descendants remain.
fn emit<'a>(
    cx: &mut UnitContext<'_, 'a>,
    nodes: &[Node],
    instances: &[Instance<'a>],
    n: usize,
    out: &mut UnitRecords,
) -> Result<(), UnitError> {
    let node = &nodes[n];
    let inst = &instances[node.instance];
    let mut children = node.children.iter().copied().peekable();
    if let Some(raw) = inst.name {
        let key = (raw.slice().as_ptr() as usize, raw.len());
        let func = match cx.names.get(&key) {
            Some(&f) => f,
            None => {
                let f = out.funcs.len() as u32;
                out.funcs.push(demangle(&raw.to_string_lossy()));
                cx.names.insert(key, f);
                f
            }
        };
        let call_file = match inst.call_file {
            None => NO_STRING,
            Some(AV::FileIndex(i)) => {
                let header = &cx
                    .unit
                    .line_program
                    .as_ref()
                    .ok_or("call file without a line program")?
                    .header();
                cx.files.id(cx.dwarf, cx.unit, header, i)?
            }
            Some(_) => return Err("call file is not a file index".into()),
        };
        let mut record = CompactRange {
            va: node.start,
            length: node.end - node.start,
            func,
            file: NO_STRING,
            call_file,
            call_line: inst.call_line.map(|l| l.get() as u32),
            depth: inst.depth as u32,
            lines: (out.lines.len() as u32, out.lines.len() as u32),
        };
        let mut file_id = None;
        for &(start, file, line) in &node.rows {
            match file_id {
                Some(f) if f != file => {
                    let piece_end = start;
                    out.records.push(CompactRange {
                        length: start - record.va,
                        lines: (record.lines.0, out.lines.len() as u32),
                        ..record
                    });
                    while let Some(c) = children.next_if(|&c| nodes[c].start < piece_end) {
                        emit(cx, nodes, instances, c, out)?;
                    }
                    record.va = start;
                    record.length = node.end - start;
                    record.lines.0 = out.lines.len() as u32;
                    record.file = file;
                    file_id = Some(file);
                }
                Some(_) => {}
                None => {
                    record.file = file;
                    file_id = Some(file);
                }
            }
            out.lines.push(LineRow {
                offset: (start - record.va) as u32,
                line: line as u32,
            });
        }
        if node.has_lines {
            record.lines.1 = out.lines.len() as u32;
            out.records.push(record);
        }
    }
    for c in children {
        emit(cx, nodes, instances, c, out)?;
    }
    Ok(())
}
