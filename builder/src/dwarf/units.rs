//! One compilation unit's DIE walk: every `DW_TAG_subprogram` with code becomes the root
//! of a [`FuncTree`], every `DW_TAG_inlined_subroutine` a node under its nearest enclosing
//! subprogram or inlined subroutine (lexical blocks and other DIEs are transparent).

use gimli::AttributeValue;
use smallvec::SmallVec;

use super::dies::Dies;
use super::names::{Names, RawNameAttrs};
use super::{Slice, UnitRef};
use crate::model::Bytes;

/// A DIE's address ranges.
pub(crate) type Ranges = SmallVec<[(u64, u64); 1]>;

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
    /// Address ranges, as read (unsorted, possibly overlapping): usually one, kept in
    /// place (a vector per DIE was the walk's most frequent allocation).
    pub ranges: Ranges,
}

/// A subprogram with its inlined calls, in DIE order (parents before children).
#[derive(Debug, Default)]
pub(crate) struct FuncTree<'a> {
    /// `nodes[0]` is the subprogram.
    pub nodes: Vec<Node<'a>>,
}

/// Walks the DIEs of `u` and returns its functions in DIE order.
///
/// Only the unit DIE, subprograms, inlined subroutines and the C types the walk steps
/// over are read whole; every other DIE (parameters, variables, lexical blocks, types:
/// three quarters of a Rust program's) has its attributes skipped by their forms, not
/// parsed.
pub(crate) fn walk_unit<'a>(
    u: &UnitRef<'_, 'a>,
    names: &mut Names<'_, 'a>,
) -> gimli::Result<Vec<FuncTree<'a>>> {
    let mut trees: Vec<FuncTree<'a>> = Vec::new();
    // (DIE depth, tree index, node index) of the open subprograms and inlined calls.
    let mut open: Vec<(isize, usize, usize)> = Vec::new();
    let mut dies = Dies::new(u.unit)?;
    // The depth of the DIE whose subtree is being stepped over.
    let mut skipping: Option<isize> = None;
    let mut c_unit = false;
    while let Some(head) = dies.next()? {
        let depth = head.depth;
        if skipping.is_some_and(|d| depth > d) {
            dies.skip(head)?;
            continue;
        }
        skipping = None;
        while open.last().is_some_and(|o| o.0 >= depth) {
            open.pop();
        }
        let tag = head.tag();
        let steps_over = |c_unit: bool| c_unit && head.has_children() && holds_no_code_in_c(tag);
        let wanted = depth == 0
            || steps_over(c_unit)
            || matches!(
                tag,
                gimli::DW_TAG_subprogram | gimli::DW_TAG_inlined_subroutine
            );
        if !wanted {
            dies.skip(head)?;
            continue;
        }
        let entry = dies.read(head)?;
        if depth == 0 {
            c_unit = is_c(entry);
        }
        if steps_over(c_unit) {
            if !dies.jump_over_children(head) {
                skipping = Some(depth);
            }
            continue;
        }
        match tag {
            gimli::DW_TAG_subprogram => {
                let mut die = read_die(u, entry, gimli::DW_AT_decl_file)?;
                if die.ranges.is_empty() {
                    continue;
                }
                let node = Node {
                    parent: ROOT,
                    depth: 0,
                    name: die.name(u, names, entry),
                    call_file: None,
                    call_line: 0,
                    decl_file: die.file,
                    ranges: die.ranges,
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
                let mut die = read_die(u, entry, gimli::DW_AT_call_file)?;
                let node = Node {
                    parent,
                    depth: parent_depth.saturating_add(1),
                    name: die.name(u, names, entry),
                    call_file: die.file,
                    call_line: die.call_line,
                    decl_file: None,
                    ranges: die.ranges,
                };
                tree.nodes.push(node);
                open.push((depth, t, tree.nodes.len() - 1));
            }
            _ => {}
        }
    }
    Ok(trees)
}

/// Whether a unit DIE's `DW_AT_language` is C, whose types cannot hold a function.
fn is_c(unit: &gimli::DebuggingInformationEntry<Slice<'_>>) -> bool {
    let Some(AttributeValue::Language(lang)) = unit.attr_value(gimli::DW_AT_language) else {
        return false;
    };
    matches!(
        lang,
        gimli::DW_LANG_C89
            | gimli::DW_LANG_C
            | gimli::DW_LANG_C99
            | gimli::DW_LANG_C11
            | gimli::DW_LANG_C17
    )
}

/// Whether a DIE of this tag, in C, has only children that describe data (members,
/// enumerators, bounds, parameter types), never code: the walk steps over them. The
/// Linux kernel's units are mostly such types, and their children were most of the DIEs
/// the walk parsed.
fn holds_no_code_in_c(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        gimli::DW_TAG_structure_type
            | gimli::DW_TAG_union_type
            | gimli::DW_TAG_enumeration_type
            | gimli::DW_TAG_array_type
            | gimli::DW_TAG_subroutine_type
    )
}

/// What the walk needs of a subprogram or inlined-subroutine DIE.
struct Die<'a> {
    /// Its non-empty address ranges.
    ranges: Ranges,
    /// `DW_AT_decl_file` of a subprogram, `DW_AT_call_file` of an inlined call.
    file: Option<u64>,
    /// `DW_AT_call_line`, saturated; 0 when absent.
    call_line: u32,
    /// Its name attributes, when read in the same pass (`None`: read them from the DIE).
    names: Option<RawNameAttrs<'a>>,
}

impl<'a> Die<'a> {
    /// The DIE's function name.
    fn name(
        &mut self,
        u: &UnitRef<'_, 'a>,
        names: &mut Names<'_, 'a>,
        entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
    ) -> Bytes<'a> {
        match self.names.take() {
            Some(raw) => {
                let attrs = raw.resolve(u.dwarf, u.unit);
                names.name_from_attrs(u, entry.offset(), attrs)
            }
            None => names.name_of(u, entry),
        }
    }
}

/// Reads `entry` with one pass over its attributes (each `attr_value` lookup would scan
/// them again). `file_name` is the file attribute wanted. Where an attribute does not
/// parse, the DIE is read again attribute by attribute, so that what is found before
/// the bad attribute, and the error, are exactly those of the lookups.
fn read_die<'a>(
    u: &UnitRef<'_, 'a>,
    entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
    file_name: gimli::DwAt,
) -> gimli::Result<Die<'a>> {
    if let Some(die) = read_die_once(u, entry, file_name) {
        return Ok(die);
    }
    // In the order (and with the error handling) of the lookups: a subprogram's call
    // line is never read, an inlined call's is read before its ranges.
    let call_line = if file_name == gimli::DW_AT_call_file {
        call_line(entry.attr_value(gimli::DW_AT_call_line))
    } else {
        0
    };
    Ok(Die {
        ranges: read_ranges(u, entry)?,
        file: file_attr(entry, file_name),
        call_line,
        names: None,
    })
}

/// [`read_die`]'s single pass; `None` when an attribute, or the range list, does not
/// parse.
fn read_die_once<'a>(
    u: &UnitRef<'_, 'a>,
    entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
    file_name: gimli::DwAt,
) -> Option<Die<'a>> {
    type Value<'a> = Option<AttributeValue<Slice<'a>>>;
    let (mut low, mut high, mut ranges, mut file, mut line): (
        Value<'a>,
        Value<'a>,
        Value<'a>,
        Value<'a>,
        Value<'a>,
    ) = (None, None, None, None, None);
    let mut names = RawNameAttrs::default();
    // The first of repeated attributes counts, as for `attr_value`.
    for attr in entry.attrs() {
        let slot = match attr.name() {
            gimli::DW_AT_low_pc => &mut low,
            gimli::DW_AT_high_pc => &mut high,
            gimli::DW_AT_ranges => &mut ranges,
            gimli::DW_AT_call_line => &mut line,
            n if n == file_name => &mut file,
            _ => {
                names.note(u.unit, attr);
                continue;
            }
        };
        if slot.is_none() {
            *slot = Some(attr.value());
        }
    }
    Some(Die {
        ranges: ranges_of(u, ranges, low, high).ok()?,
        file: file.and_then(file_index),
        call_line: call_line(line),
        names: Some(names),
    })
}

/// The non-empty address ranges given by `DW_AT_ranges`, else by `DW_AT_low_pc` and
/// `DW_AT_high_pc` (see [`read_ranges`]).
fn ranges_of<'a>(
    u: &UnitRef<'_, 'a>,
    ranges: Option<AttributeValue<Slice<'a>>>,
    low: Option<AttributeValue<Slice<'a>>>,
    high: Option<AttributeValue<Slice<'a>>>,
) -> gimli::Result<Ranges> {
    let mut out = Ranges::new();
    if let Some(value) = ranges {
        if let Some(mut iter) = u.dwarf.attr_ranges(u.unit, value)? {
            while let Some(r) = iter.next()? {
                if r.begin < r.end {
                    out.push((r.begin, r.end));
                }
            }
            return Ok(out);
        }
    }
    let Some(low) = low else {
        return Ok(out);
    };
    if let Some(range) = single_range(u, low, high)? {
        out.push(range);
    }
    Ok(out)
}

/// `[low_pc, high_pc)`, where a constant `high_pc` is a size; `None` when empty or when
/// the size overflows.
fn single_range<'a>(
    u: &UnitRef<'_, 'a>,
    low: AttributeValue<Slice<'a>>,
    high: Option<AttributeValue<Slice<'a>>>,
) -> gimli::Result<Option<(u64, u64)>> {
    let Some(begin) = u.dwarf.attr_address(u.unit, low)? else {
        return Ok(None);
    };
    let end = match high {
        Some(AttributeValue::Udata(size)) => begin.checked_add(size),
        Some(high) => u.dwarf.attr_address(u.unit, high)?,
        None => None,
    };
    Ok(end.filter(|&end| begin < end).map(|end| (begin, end)))
}

/// `DW_AT_call_line` as stored: saturated to `u32`, 0 when absent.
fn call_line(value: Option<AttributeValue<Slice<'_>>>) -> u32 {
    value
        .and_then(|v| v.udata_value())
        .map_or(0, |l| u32::try_from(l).unwrap_or(u32::MAX))
}

/// The non-empty address ranges of a DIE (`DW_AT_low_pc`/`DW_AT_high_pc` or
/// `DW_AT_ranges`, DWARF 4 `.debug_ranges` or DWARF 5 `.debug_rnglists`).
fn read_ranges<'a>(
    u: &UnitRef<'_, 'a>,
    entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
) -> gimli::Result<Ranges> {
    let mut out = Ranges::new();
    if let Some(value) = entry.attr_value(gimli::DW_AT_ranges) {
        if let Some(mut iter) = u.dwarf.attr_ranges(u.unit, value)? {
            while let Some(r) = iter.next()? {
                if r.begin < r.end {
                    out.push((r.begin, r.end));
                }
            }
            return Ok(out);
        }
    }
    // The single range is computed here rather than by gimli's `die_ranges`, whose
    // unchecked `low_pc + size` panics (with overflow checks on) on corrupt DWARF. A size
    // that overflows gives no range, as an end below the start does.
    let Some(low) = entry.attr_value(gimli::DW_AT_low_pc) else {
        return Ok(out);
    };
    if let Some(range) = single_range(u, low, entry.attr_value(gimli::DW_AT_high_pc))? {
        out.push(range);
    }
    Ok(out)
}

/// A file-index attribute (`DW_AT_decl_file`, `DW_AT_call_file`).
fn file_attr(
    entry: &gimli::DebuggingInformationEntry<super::Slice<'_>>,
    name: gimli::DwAt,
) -> Option<u64> {
    file_index(entry.attr_value(name)?)
}

/// The file index a file attribute's value holds.
fn file_index(value: AttributeValue<Slice<'_>>) -> Option<u64> {
    match value {
        AttributeValue::FileIndex(i) => Some(i),
        v => v.udata_value(),
    }
}
