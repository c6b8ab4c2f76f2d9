//! One compilation unit's DIE walk: every `DW_TAG_subprogram` with code becomes the root
//! of a [`FuncTree`], every `DW_TAG_inlined_subroutine` a node under its nearest enclosing
//! subprogram or inlined subroutine (lexical blocks and other DIEs are transparent).

use gimli::AttributeValue;

use super::group::Bytes;
use super::names::Names;
use super::UnitRef;

/// Parent index of a root node.
pub(crate) const ROOT: usize = usize::MAX;

/// A subprogram or one inlined call inside it, as DWARF describes it.
#[derive(Debug)]
pub(crate) struct Node<'a> {
    /// Index of the parent node in the tree, [`ROOT`] for the subprogram.
    pub parent: usize,
    /// Inline depth: 0 for the subprogram.
    pub depth: u32,
    /// Function name (through abstract origins and specifications).
    pub name: Bytes<'a>,
    /// `DW_AT_call_file` (inlined subroutines), a line-program file index.
    pub call_file: Option<u64>,
    /// `DW_AT_call_line` (inlined subroutines).
    pub call_line: u32,
    /// `DW_AT_decl_file` of the DIE or its origin: the file used when no line row says.
    pub decl_file: Option<u64>,
    /// Address ranges, as read (unsorted, possibly overlapping).
    pub ranges: Vec<(u64, u64)>,
}

/// A subprogram with its inlined calls, in DIE order (parents before children).
#[derive(Debug, Default)]
pub(crate) struct FuncTree<'a> {
    /// `nodes[0]` is the subprogram.
    pub nodes: Vec<Node<'a>>,
}

/// Walks the DIEs of `u` and returns its functions in DIE order.
pub(crate) fn walk_unit<'a>(
    u: &UnitRef<'_, 'a>,
    names: &mut Names<'_, 'a>,
) -> gimli::Result<Vec<FuncTree<'a>>> {
    let mut trees: Vec<FuncTree<'a>> = Vec::new();
    // (DIE depth, tree index, node index) of the open subprograms and inlined calls.
    let mut open: Vec<(isize, usize, usize)> = Vec::new();
    let mut entries = u.unit.entries();
    let mut depth: isize = 0;
    while let Some((delta, entry)) = entries.next_dfs()? {
        depth = depth.saturating_add(delta);
        while open.last().is_some_and(|o| o.0 >= depth) {
            open.pop();
        }
        match entry.tag() {
            gimli::DW_TAG_subprogram => {
                let ranges = read_ranges(u, entry)?;
                if ranges.is_empty() {
                    continue;
                }
                let node = Node {
                    parent: ROOT,
                    depth: 0,
                    name: names.name_of(u, entry),
                    call_file: None,
                    call_line: 0,
                    decl_file: file_attr(entry, gimli::DW_AT_decl_file),
                    ranges,
                };
                trees.push(FuncTree { nodes: vec![node] });
                open.push((depth, trees.len() - 1, 0));
            }
            gimli::DW_TAG_inlined_subroutine => {
                let Some(&(_, t, parent)) = open.last() else {
                    continue;
                };
                let Some(tree) = trees.get_mut(t) else {
                    continue;
                };
                let parent_depth = tree.nodes.get(parent).map_or(0, |n| n.depth);
                let node = Node {
                    parent,
                    depth: parent_depth.saturating_add(1),
                    name: names.name_of(u, entry),
                    call_file: file_attr(entry, gimli::DW_AT_call_file),
                    call_line: entry
                        .attr_value(gimli::DW_AT_call_line)?
                        .and_then(|v| v.udata_value())
                        .map_or(0, |l| u32::try_from(l).unwrap_or(u32::MAX)),
                    decl_file: None,
                    ranges: read_ranges(u, entry)?,
                };
                tree.nodes.push(node);
                open.push((depth, t, tree.nodes.len() - 1));
            }
            _ => {}
        }
    }
    Ok(trees)
}

/// The non-empty address ranges of a DIE (`DW_AT_low_pc`/`DW_AT_high_pc` or
/// `DW_AT_ranges`, DWARF 4 `.debug_ranges` or DWARF 5 `.debug_rnglists`).
fn read_ranges(
    u: &UnitRef<'_, '_>,
    entry: &gimli::DebuggingInformationEntry<'_, '_, super::Slice<'_>>,
) -> gimli::Result<Vec<(u64, u64)>> {
    let mut out = Vec::new();
    let mut iter = u.dwarf.die_ranges(u.unit, entry)?;
    while let Some(r) = iter.next()? {
        if r.begin < r.end {
            out.push((r.begin, r.end));
        }
    }
    Ok(out)
}

/// A file-index attribute (`DW_AT_decl_file`, `DW_AT_call_file`).
fn file_attr(
    entry: &gimli::DebuggingInformationEntry<'_, '_, super::Slice<'_>>,
    name: gimli::DwAt,
) -> Option<u64> {
    match entry.attr_value(name).ok()?? {
        AttributeValue::FileIndex(i) => Some(i),
        v => v.udata_value(),
    }
}
