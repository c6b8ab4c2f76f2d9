//! Function names of DIEs: `DW_AT_linkage_name` (or `DW_AT_MIPS_linkage_name`), else
//! `DW_AT_name`, searched through `DW_AT_abstract_origin` and `DW_AT_specification`
//! chains like LLVM's `DWARFDie::getName(LinkageName)`, bounded so that cyclic references
//! end; optionally demangled.

use std::collections::hash_map::Entry as MapEntry;

use gimli::{AttributeValue, UnitOffset};

use super::{Slice, UnitRef};
use crate::demangle::{demangle_bytes, Language};
use crate::fast_hash::{fast_map, FastMap};
use crate::model::{Bytes, SharedBytes};

/// A DIE as the unit walk holds it.
pub(crate) type Entry<'e, 'a> = gimli::DebuggingInformationEntry<Slice<'a>>;

/// At most this many references are followed from one DIE (origins of origins…).
const MAX_CHAIN: u32 = 16;

/// A DIE anywhere in `.debug_info` by global offset, or in the supplementary file's
/// `.debug_info` (offset with [`IN_SUP`] set).
type GlobalOffset = usize;

/// Marks a [`GlobalOffset`] in the supplementary file (no `.debug_info` reaches 2^63).
const IN_SUP: usize = 1 << (usize::BITS - 1);

/// The unit indexes of the DWARF being read and of its supplementary file.
#[derive(Clone, Copy)]
pub(crate) struct Indexes<'u, 'a> {
    /// The units of the file the walked units are in.
    pub main: &'u UnitIndex<'a>,
    /// The units of the supplementary file (empty without one).
    pub sup: &'u UnitIndex<'a>,
}

/// Where each unit lies in `.debug_info`: `(start, end, header)`, sorted by start. Built
/// once, shared by every worker, so that a reference into another unit
/// (`DW_FORM_ref_addr`, common in Rust and LTO builds) finds its unit by binary search.
pub(crate) type UnitIndex<'a> = [(usize, usize, gimli::UnitHeader<Slice<'a>>)];

/// Resolves and caches the names of the DIEs one unit refers to.
pub(crate) struct Names<'u, 'a> {
    demangle: bool,
    /// The unit's `DW_AT_language`, read when the first name is demangled.
    language: Option<Option<Language>>,
    indexes: Indexes<'u, 'a>,
    /// Demangled names, by the address of the mangled string (a string of the input, so
    /// every DIE naming it shares one entry): inlined calls repeat a few names many times.
    demangled: FastMap<usize, Bytes<'a>>,
    /// (linkage name, name) found through each DIE's chain.
    raw: FastMap<GlobalOffset, Found<'a>>,
    /// Other units parsed to read referenced DIEs, by start offset ([`IN_SUP`] set for
    /// units of the supplementary file).
    others: FastMap<usize, gimli::Unit<Slice<'a>>>,
}

/// (linkage name, name) found through a DIE's chain.
type Found<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// Name attributes of one DIE.
#[derive(Default)]
pub(crate) struct NameAttrs<'a> {
    linkage: Option<&'a [u8]>,
    name: Option<&'a [u8]>,
    refs: [Option<GlobalOffset>; 2],
}

impl<'u, 'a> Names<'u, 'a> {
    /// A resolver; `demangle` turns Rust and C++ linkage names into readable ones.
    pub fn new(demangle: bool, indexes: Indexes<'u, 'a>) -> Self {
        Names {
            demangle,
            language: None,
            indexes,
            demangled: fast_map(),
            raw: fast_map(),
            others: fast_map(),
        }
    }

    /// The name of `entry`, a subprogram or inlined subroutine of `unit` that the walk is
    /// at (its attributes are read from it, not looked up again).
    pub fn name_of(&mut self, unit: &UnitRef<'_, 'a>, entry: &Entry<'_, 'a>) -> Bytes<'a> {
        let attrs = name_attrs(unit.dwarf, unit.unit, entry, false);
        self.name_from_attrs(unit, entry.offset(), attrs)
    }

    /// [`Self::name_of`] for the DIE at `offset` whose name attributes the caller read.
    pub fn name_from_attrs(
        &mut self,
        unit: &UnitRef<'_, 'a>,
        offset: UnitOffset,
        attrs: NameAttrs<'a>,
    ) -> Bytes<'a> {
        if global_offset(unit, offset).is_none() {
            return Bytes::default();
        }
        // The walked DIE itself is not memoized: the walk names each DIE once, and
        // reference chains lead to DIEs without code (abstract instances, declarations),
        // which the walk never names. The DIEs the chain reaches are memoized, so the
        // many inlined calls of one function resolve its name once.
        let (mut linkage, mut short) = (attrs.linkage, attrs.name);
        for r in attrs.refs.into_iter().flatten() {
            if linkage.is_some() {
                break;
            }
            let (l, n) = self.resolve(unit, r, 1);
            linkage = linkage.or(l);
            short = short.or(n);
        }
        let raw = linkage.or(short).unwrap_or_default();
        if !self.demangle {
            return Bytes::Borrowed(raw);
        }
        let language = *self
            .language
            .get_or_insert_with(|| unit_language(unit.unit));
        self.demangled
            .entry(raw.as_ptr() as usize)
            .or_insert_with(|| match demangle_bytes(raw, language) {
                Some(d) => Bytes::Shared(SharedBytes::from(d.into_bytes())),
                None => Bytes::Borrowed(raw),
            })
            .clone()
    }

    /// The first linkage name and the first name found on `die` or, depth first, on the
    /// DIEs its `DW_AT_abstract_origin` and `DW_AT_specification` point to. Memoized; a
    /// cycle meets its own in-progress entry (nothing found) and ends.
    fn resolve(&mut self, unit: &UnitRef<'_, 'a>, die: GlobalOffset, depth: u32) -> Found<'a> {
        if let Some(r) = self.raw.get(&die) {
            return *r;
        }
        if depth > MAX_CHAIN {
            return (None, None);
        }
        let attrs = self.read_name_attrs(unit, die).unwrap_or_default();
        self.resolve_attrs(unit, die, attrs, depth)
    }

    /// [`Self::resolve`] for a DIE whose attributes are already read (and whose result is
    /// not memoized yet).
    fn resolve_attrs(
        &mut self,
        unit: &UnitRef<'_, 'a>,
        die: GlobalOffset,
        attrs: NameAttrs<'a>,
        depth: u32,
    ) -> Found<'a> {
        let (mut linkage, mut short) = (attrs.linkage, attrs.name);
        if linkage.is_some() || attrs.refs.iter().all(Option::is_none) {
            // Nothing to follow, so no cycle can pass through `die`: memoize directly.
            self.raw.insert(die, (linkage, short));
            return (linkage, short);
        }
        self.raw.insert(die, (None, None));
        for r in attrs.refs.into_iter().flatten() {
            if linkage.is_some() {
                break;
            }
            let (l, n) = self.resolve(unit, r, depth + 1);
            linkage = linkage.or(l);
            short = short.or(n);
        }
        self.raw.insert(die, (linkage, short));
        (linkage, short)
    }

    /// Reads the name-related attributes of the DIE at global offset `die`, which may lie
    /// in another unit.
    fn read_name_attrs(
        &mut self,
        unit: &UnitRef<'_, 'a>,
        die: GlobalOffset,
    ) -> Option<NameAttrs<'a>> {
        if die & IN_SUP != 0 {
            return self.read_sup_name_attrs(unit, die & !IN_SUP);
        }
        let header = &unit.unit.header;
        let start = header.offset().to_debug_info_offset(header)?.0;
        if let Some(local) = die.checked_sub(start).map(UnitOffset) {
            if local.0 >= header.header_size() && local.0 < header.length_including_self() {
                return attrs_in(unit.dwarf, unit.unit, local, false);
            }
        }
        let i = self.indexes.main.partition_point(|u| u.1 <= die);
        let (u_start, _, u_header) = self.indexes.main.get(i).filter(|u| u.0 <= die)?;
        if !self.others.contains_key(u_start) {
            let parsed = unit.dwarf.unit(*u_header).ok()?;
            self.others.insert(*u_start, parsed);
        }
        let other = self.others.get(u_start)?;
        attrs_in(unit.dwarf, other, UnitOffset(die - u_start), false)
    }

    /// [`Self::read_name_attrs`] for the DIE at offset `die` of the supplementary file.
    fn read_sup_name_attrs(&mut self, unit: &UnitRef<'_, 'a>, die: usize) -> Option<NameAttrs<'a>> {
        let sup = unit.dwarf.sup()?;
        let i = self.indexes.sup.partition_point(|u| u.1 <= die);
        let (u_start, _, u_header) = self.indexes.sup.get(i).filter(|u| u.0 <= die)?;
        let other = match self.others.entry(u_start | IN_SUP) {
            MapEntry::Occupied(e) => e.into_mut(),
            MapEntry::Vacant(e) => e.insert(sup.unit(*u_header).ok()?),
        };
        attrs_in(sup, other, UnitOffset(die - u_start), true)
    }
}

/// The language of `unit` (its root DIE's `DW_AT_language`), if it says.
fn unit_language(unit: &gimli::Unit<Slice<'_>>) -> Option<Language> {
    let mut entries = unit.entries();
    let root = entries.next_dfs().ok()??;
    match root.attr_value(gimli::DW_AT_language)? {
        AttributeValue::Language(lang) => Some(Language::from_dwarf(lang)),
        _ => None,
    }
}

/// The `.debug_info` offset of a unit-relative DIE offset.
fn global_offset(unit: &UnitRef<'_, '_>, offset: UnitOffset) -> Option<GlobalOffset> {
    offset.to_debug_info_offset(&unit.unit.header).map(|o| o.0)
}

/// The name attributes of the DIE at `offset` of `unit` (a unit of the supplementary
/// file when `in_sup`).
fn attrs_in<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    offset: UnitOffset,
    in_sup: bool,
) -> Option<NameAttrs<'a>> {
    let entry = unit.entry(offset).ok()?;
    Some(name_attrs(dwarf, unit, &entry, in_sup))
}

/// The name-related attributes of `entry`, a DIE of `unit` (a unit of the
/// supplementary file when `in_sup`).
fn name_attrs<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    entry: &Entry<'_, 'a>,
    in_sup: bool,
) -> NameAttrs<'a> {
    let mut raw = RawNameAttrs::default();
    for attr in entry.attrs() {
        raw.note_in(unit, attr, in_sup);
    }
    raw.resolve(dwarf, unit)
}

/// The name attributes of a DIE as read, their strings not looked up yet (a DIE that
/// turns out to have no code is never named, and finding the end of a long Rust name in
/// `.debug_str` is the costly part).
#[derive(Default)]
pub(crate) struct RawNameAttrs<'a> {
    linkage: Option<AttributeValue<Slice<'a>>>,
    name: Option<AttributeValue<Slice<'a>>>,
    refs: [Option<GlobalOffset>; 2],
}

impl<'a> RawNameAttrs<'a> {
    /// Takes `attr`, an attribute of a DIE of `unit`, into account if it is one of the
    /// name attributes (a repeated attribute replaces the earlier one).
    pub(crate) fn note(
        &mut self,
        unit: &gimli::Unit<Slice<'a>>,
        attr: &gimli::Attribute<Slice<'a>>,
    ) {
        self.note_in(unit, attr, false);
    }

    /// [`Self::note`] for a DIE of the supplementary file when `in_sup`.
    fn note_in(
        &mut self,
        unit: &gimli::Unit<Slice<'a>>,
        attr: &gimli::Attribute<Slice<'a>>,
        in_sup: bool,
    ) {
        match attr.name() {
            gimli::DW_AT_linkage_name | gimli::DW_AT_MIPS_linkage_name => {
                self.linkage = Some(attr.value());
            }
            gimli::DW_AT_name => self.name = Some(attr.value()),
            gimli::DW_AT_abstract_origin => {
                self.refs[0] = reference(unit, attr.value(), in_sup);
            }
            gimli::DW_AT_specification => {
                self.refs[1] = reference(unit, attr.value(), in_sup);
            }
            _ => {}
        }
    }

    /// Looks the strings up (a string that cannot be read counts as absent).
    pub(crate) fn resolve(
        self,
        dwarf: &gimli::Dwarf<Slice<'a>>,
        unit: &gimli::Unit<Slice<'a>>,
    ) -> NameAttrs<'a> {
        let string = |v: Option<AttributeValue<Slice<'a>>>| {
            dwarf.attr_string(unit, v?).ok().map(|s| s.slice())
        };
        let linkage = string(self.linkage);
        NameAttrs {
            linkage,
            // A linkage name wins over every name, this DIE's and its chain's, so the
            // name is only looked up when there is none.
            name: if linkage.is_some() {
                None
            } else {
                string(self.name)
            },
            refs: self.refs,
        }
    }
}

/// The global offset a reference attribute of a DIE of `unit` points to (`unit` is in
/// the supplementary file when `in_sup`).
fn reference(
    unit: &gimli::Unit<Slice<'_>>,
    value: AttributeValue<Slice<'_>>,
    in_sup: bool,
) -> Option<usize> {
    let sup_if =
        |o: usize, sup: bool| (o & IN_SUP == 0).then_some(if sup { o | IN_SUP } else { o });
    match value {
        AttributeValue::UnitRef(o) => sup_if(o.to_debug_info_offset(&unit.header)?.0, in_sup),
        AttributeValue::DebugInfoRef(o) => sup_if(o.0, in_sup),
        // `DW_FORM_GNU_ref_alt`, `DW_FORM_ref_sup4/8`.
        AttributeValue::DebugInfoRefSup(o) => sup_if(o.0, true),
        _ => None,
    }
}
