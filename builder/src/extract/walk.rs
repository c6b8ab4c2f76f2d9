//! The DIE walk of one unit (spec §5.2): every concrete `DW_TAG_subprogram` /
//! `DW_TAG_entry_point` outside functions, with its inline instances (and nested
//! subprograms) at their function-tree depth, names resolved through
//! `DW_AT_abstract_origin` / `DW_AT_specification`.

#![allow(non_upper_case_globals)] // gimli's DW_* constants in patterns

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::rc::Rc;

use gimli::constants::*;
use gimli::AttributeValue as AV;

use super::lines::UnitError;
use crate::dwarf::dies::Dies;
use crate::dwarf::Slice;
use crate::fast_hash::{fast_map, FastMap};

type Unit<'a> = gimli::Unit<Slice<'a>>;

/// Deepest function-tree level symblib accepts before abandoning the unit.
pub(crate) const MAX_FUNCTION_DEPTH: u64 = 256;
/// Most DIE levels inside one function.
const MAX_DIE_STACK: usize = 64 * 1024;
/// Longest `DW_AT_abstract_origin` / `DW_AT_specification` chain followed.
const MAX_REFERENCE_HOPS: usize = 4;

/// A function or inline instance with its address ranges.
pub(crate) struct Instance<'a> {
    /// 0 for the function, then one more per subprogram / inlined-subroutine level.
    pub depth: u64,
    /// Linkage name if any DIE of the chain has one, else the plain name.
    pub name: Option<Slice<'a>>,
    /// `DW_AT_call_file` of the concrete DIE, unresolved.
    pub call_file: Option<AV<Slice<'a>>>,
    /// `DW_AT_call_line` of the concrete DIE, 0 dropped.
    pub call_line: Option<NonZeroU64>,
    /// Its `[begin, end)` pairs, in DWARF order, in [`Function::ranges`].
    pub ranges: std::ops::Range<usize>,
}

/// A function: its instances (the function first, then its inline instances in DIE
/// order) and their address ranges in one vector. The walk reuses one for every function.
#[derive(Default)]
pub(crate) struct Function<'a> {
    pub instances: Vec<Instance<'a>>,
    pub ranges: Vec<(u64, u64)>,
}

impl Function<'_> {
    /// The address ranges of `inst`.
    pub(crate) fn ranges_of(&self, inst: &Instance<'_>) -> &[(u64, u64)] {
        &self.ranges[inst.ranges.clone()]
    }

    fn clear(&mut self) {
        self.instances.clear();
        self.ranges.clear();
    }
}

/// The headers of every unit, for references into other units.
pub(crate) struct UnitIndex<'a> {
    /// Unit headers with their `.debug_info` start and end, in section order.
    pub headers: Vec<(usize, usize, gimli::UnitHeader<Slice<'a>>)>,
}

impl<'a> UnitIndex<'a> {
    /// The index of `headers` (those whose start cannot be known are left out).
    pub(crate) fn new(headers: &[gimli::UnitHeader<Slice<'a>>]) -> Self {
        UnitIndex {
            headers: crate::dwarf::unit_index(headers),
        }
    }
}

/// The DWARF a walk reads: the sections of the walked unit with the index of their
/// units, and the supplementary file's (`dwz -m`) when the DWARF refers to one.
pub(crate) struct Sources<'d, 'a> {
    /// The sections of the walked unit.
    pub dwarf: &'d gimli::Dwarf<Slice<'a>>,
    /// Their units.
    pub index: &'d UnitIndex<'a>,
    /// The supplementary file's sections and units.
    pub sup: Option<(&'d gimli::Dwarf<Slice<'a>>, &'d UnitIndex<'a>)>,
}

/// Which file a DIE is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Side {
    /// The walked unit's file.
    Main,
    /// The supplementary file.
    Sup,
}

/// Another unit a reference leads to: its `.debug_info` start and the parsed unit.
type OtherUnit<'a> = (usize, Rc<Unit<'a>>);

/// (linkage name, name) of a DIE and its reference chain.
type Names<'a> = (Option<Slice<'a>>, Option<Slice<'a>>);

/// Per-unit state: the parsed units other units' references led to, and the names of the
/// DIEs references led to (many inline instances share one abstract origin).
pub(crate) struct Walker<'d, 'a> {
    sources: &'d Sources<'d, 'a>,
    others: HashMap<(Side, usize), Rc<Unit<'a>>>,
    /// Keyed by (file, `.debug_info` start of the unit, offset in it).
    referenced: FastMap<(Side, usize, usize), Names<'a>>,
}

impl<'d, 'a> Walker<'d, 'a> {
    pub(crate) fn new(sources: &'d Sources<'d, 'a>) -> Self {
        Walker {
            sources,
            others: HashMap::new(),
            referenced: fast_map(),
        }
    }

    fn dwarf(&self, side: Side) -> &'d gimli::Dwarf<Slice<'a>> {
        match (side, self.sources.sup) {
            (Side::Sup, Some((sup, _))) => sup,
            _ => self.sources.dwarf,
        }
    }

    /// Walks `unit`, calling `function` with each function.
    pub(crate) fn walk(
        &mut self,
        unit: &Unit<'a>,
        mut function: impl FnMut(&Function<'a>) -> Result<(), UnitError>,
    ) -> Result<(), UnitError> {
        // Only subprograms, inlined calls and entry points are read; the other DIEs'
        // attributes are stepped over.
        let at = |e: gimli::Error| format!(".debug_info: {e}");
        let mut dies = Dies::new(unit).map_err(at)?;
        // Inside a function: its DIE depth (its instances in `func`), and the DIE stack
        // below it as (depth, counts).
        let mut current: Option<isize> = None;
        let mut func = Function::default();
        let mut stack: Vec<(isize, bool)> = Vec::new();
        // Skipping the subtree of an abstract subprogram at this depth.
        let mut skip_below: Option<isize> = None;
        while let Some(head) = dies.next().map_err(at)? {
            let depth = head.depth;
            if let Some(d) = skip_below {
                if depth > d {
                    dies.skip(head).map_err(at)?;
                    continue;
                }
                skip_below = None;
            }
            if let Some(fdepth) = current {
                if depth > fdepth {
                    while stack.last().is_some_and(|&(d, _)| d >= depth) {
                        stack.pop();
                    }
                    if stack.len() + 1 > MAX_DIE_STACK {
                        return Err("inline tree too deep".into());
                    }
                    let affects =
                        matches!(head.tag(), DW_TAG_subprogram | DW_TAG_inlined_subroutine);
                    let level = 1 + stack.iter().filter(|&&(_, a)| a).count() as u64;
                    stack.push((depth, affects));
                    if !affects {
                        dies.skip(head).map_err(at)?;
                        continue;
                    }
                    let die = dies.read(head).map_err(at)?;
                    if !is_abstract(die) {
                        let inst = self.instance(unit, die, level, &mut func.ranges)?;
                        func.instances.push(inst);
                    }
                    continue;
                }
                current = None;
                function(&func)?;
                func.clear();
            }
            if !matches!(head.tag(), DW_TAG_subprogram | DW_TAG_entry_point) {
                dies.skip(head).map_err(at)?;
                continue;
            }
            let die = dies.read(head).map_err(at)?;
            if is_abstract(die) {
                skip_below = Some(depth);
                continue;
            }
            stack.clear();
            let inst = self.instance(unit, die, 0, &mut func.ranges)?;
            func.instances.push(inst);
            current = Some(depth);
        }
        if current.is_some() {
            function(&func)?;
        }
        Ok(())
    }

    fn instance(
        &mut self,
        unit: &Unit<'a>,
        die: &gimli::DebuggingInformationEntry<Slice<'a>>,
        depth: u64,
        ranges: &mut Vec<(u64, u64)>,
    ) -> Result<Instance<'a>, UnitError> {
        let mut call_file = None;
        let mut call_line = None;
        for a in die.attrs() {
            match a.name() {
                DW_AT_call_file => call_file = Some(a.value()),
                DW_AT_call_line => call_line = a.value().udata_value().and_then(NonZeroU64::new),
                _ => {}
            }
        }
        let (link, name) = self.names(Side::Main, unit, die, 0)?;
        let first = ranges.len();
        let mut iter = self
            .sources
            .dwarf
            .die_ranges(unit, die)
            .map_err(|e| format!("ranges: {e}"))?;
        while let Some(r) = iter.next().map_err(|e| format!("ranges: {e}"))? {
            ranges.push((r.begin, r.end));
        }
        Ok(Instance {
            depth,
            name: link.or(name),
            call_file,
            call_line,
            ranges: first..ranges.len(),
        })
    }

    /// (linkage name, name) of `die`, the nearer DIE of the reference chain winning.
    fn names(
        &mut self,
        side: Side,
        unit: &Unit<'a>,
        die: &gimli::DebuggingInformationEntry<Slice<'a>>,
        hops: usize,
    ) -> Result<Names<'a>, UnitError> {
        if hops > MAX_REFERENCE_HOPS {
            return Err("DIE reference chain too long".into());
        }
        let mut name = None;
        let mut link = None;
        let mut origin = None;
        let mut spec = None;
        for a in die.attrs() {
            match a.name() {
                DW_AT_name => name = Some(a.value()),
                DW_AT_linkage_name => link = Some(a.value()),
                DW_AT_abstract_origin => origin = Some(a.value()),
                DW_AT_specification => spec = Some(a.value()),
                _ => {}
            }
        }
        let dwarf = self.dwarf(side);
        let string = |v: Option<AV<Slice<'a>>>| -> Result<Option<Slice<'a>>, UnitError> {
            v.map(|v| dwarf.attr_string(unit, v))
                .transpose()
                .map_err(|e| format!("name: {e}"))
        };
        let mut name = string(name)?;
        let mut link = string(link)?;
        for r in origin.into_iter().chain(spec) {
            let (target_side, target, offset) = self.resolve(side, unit, r)?;
            let key = match &target {
                Some((start, _)) => (target_side, *start, offset.0),
                None => (target_side, unit_start(unit), offset.0),
            };
            let (l, n) = match self.referenced.get(&key) {
                Some(found) => *found,
                None => {
                    let target_unit: &Unit<'a> = match &target {
                        Some((_, u)) => u,
                        None => unit,
                    };
                    let entry = target_unit
                        .entry(offset)
                        .map_err(|e| format!("referenced DIE: {e}"))?;
                    let found = self.names(target_side, target_unit, &entry, hops + 1)?;
                    self.referenced.insert(key, found);
                    found
                }
            };
            link = link.or(l);
            name = name.or(n);
        }
        Ok((link, name))
    }

    /// The file, the unit (`None` = this one) and the offset a reference from `unit` (in
    /// the file `side`) points to.
    fn resolve(
        &mut self,
        side: Side,
        unit: &Unit<'a>,
        r: AV<Slice<'a>>,
    ) -> Result<(Side, Option<OtherUnit<'a>>, gimli::UnitOffset), UnitError> {
        let (target_side, offset) = match r {
            AV::UnitRef(o) => return Ok((side, None, o)),
            AV::DebugInfoRef(o) => (side, o),
            AV::DebugInfoRefSup(o) if side == Side::Main => (Side::Sup, o),
            _ => return Err("reference attribute of unexpected form".into()),
        };
        let index = match (target_side, self.sources.sup) {
            (Side::Main, _) => self.sources.index,
            (Side::Sup, Some((_, index))) => index,
            (Side::Sup, None) => return Err("reference into a missing supplementary file".into()),
        };
        if target_side == side {
            if let Some(own) = unit.header.offset().to_debug_info_offset(&unit.header) {
                if let Some(o) = offset.to_unit_offset(&unit.header) {
                    if own.0 <= offset.0 {
                        return Ok((side, None, o));
                    }
                }
            }
        }
        let headers = &index.headers;
        let i = headers.partition_point(|(start, _, _)| *start <= offset.0);
        let Some((start, end, header)) = i.checked_sub(1).and_then(|i| headers.get(i)) else {
            return Err("reference to a missing unit".into());
        };
        if offset.0 >= *end {
            return Err("reference to a missing unit".into());
        }
        let target = match self.others.get(&(target_side, *start)) {
            Some(u) => u.clone(),
            None => {
                let u = Rc::new(
                    self.dwarf(target_side)
                        .unit(*header)
                        .map_err(|e| format!("referenced unit: {e}"))?,
                );
                self.others.insert((target_side, *start), u.clone());
                u
            }
        };
        let o = offset
            .to_unit_offset(&target.header)
            .ok_or("reference to an offset outside its unit")?;
        Ok((target_side, Some((*start, target)), o))
    }
}

fn unit_start(unit: &Unit<'_>) -> usize {
    unit.header
        .offset()
        .to_debug_info_offset(&unit.header)
        .map_or(0, |o| o.0)
}

/// `DW_AT_inline` other than `DW_INL_not_inlined`, or `DW_AT_declaration` true.
fn is_abstract(die: &gimli::DebuggingInformationEntry<Slice<'_>>) -> bool {
    for a in die.attrs() {
        match (a.name(), a.value()) {
            (DW_AT_inline, AV::Inline(i)) if i != DW_INL_not_inlined => return true,
            (DW_AT_declaration, AV::Flag(true)) => return true,
            _ => {}
        }
    }
    false
}
