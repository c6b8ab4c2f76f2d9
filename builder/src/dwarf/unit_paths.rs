//! Source paths of `.text` addresses from DWARF compile units, as SuperSize's
//! `dwarfdump.py` finds them from `llvm-dwarfdump --debug-info --recurse-depth=0`: each
//! compile unit's name (or split-DWARF `.dwo` name) over its address ranges.

use gimli::{EndianSlice, RunTimeEndian};

use crate::dwarf::load::SectionStore;
use crate::model::SourceMapper;

impl SourceMapper {
    /// Reads the compile units of an ELF file's DWARF sections; unreadable units are
    /// skipped.
    pub(crate) fn from_sections(sections: &SectionStore<'_>) -> SourceMapper {
        let dwarf = sections.dwarf();
        let mut mapper = SourceMapper::default();
        let mut headers = dwarf.units();
        while let Ok(Some(header)) = headers.next() {
            let Ok(unit) = dwarf.unit(header) else {
                continue;
            };
            collect_unit(&dwarf, &unit, &mut mapper);
        }
        // Equal ranges are ordered by path and directory, as sorting full tuples would.
        let units = &mapper.units;
        mapper
            .ranges
            .sort_unstable_by(|a, b| (a.0, a.1, &units[a.2]).cmp(&(b.0, b.1, &units[b.2])));
        mapper
    }
}

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;

fn collect_unit(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    out: &mut SourceMapper,
) {
    let mut entries = unit.entries();
    let Ok(Some(die)) = entries.next_dfs() else {
        return;
    };
    if die.tag() != gimli::DW_TAG_compile_unit {
        return; // dwarfdump.py looks at DW_TAG_compile_unit lines only
    }
    let string = |attr: gimli::DwAt| -> Option<String> {
        let value = die.attr_value(attr)?;
        let s = dwarf.attr_string(unit, value).ok()?;
        Some(String::from_utf8_lossy(s.slice()).into_owned())
    };
    let name = string(gimli::DW_AT_name);
    let dwo_name = string(gimli::DW_AT_GNU_dwo_name);
    let comp_dir = string(gimli::DW_AT_comp_dir).unwrap_or_default();
    let path = match (dwo_name, name) {
        (Some(dwo), _) if !dwo.is_empty() => dwo,
        (_, Some(name)) if !name.is_empty() => name,
        _ => return,
    };
    let mut found = Vec::new();
    if let Some(attr) = die.attr_value(gimli::DW_AT_ranges) {
        if let Ok(Some(offset)) = dwarf.attr_ranges_offset(unit, attr) {
            if let Ok(mut iter) = dwarf.ranges(unit, offset) {
                while let Ok(Some(r)) = iter.next() {
                    if r.begin != r.end {
                        found.push((r.begin, r.end));
                    }
                }
            }
        }
    } else {
        let low = match die.attr_value(gimli::DW_AT_low_pc) {
            Some(gimli::AttributeValue::Addr(a)) => a,
            Some(gimli::AttributeValue::DebugAddrIndex(i)) => dwarf.address(unit, i).unwrap_or(0),
            _ => 0,
        };
        if low > 0 {
            let high = match die.attr_value(gimli::DW_AT_high_pc) {
                Some(gimli::AttributeValue::Addr(a)) => a,
                Some(gimli::AttributeValue::DebugAddrIndex(i)) => {
                    dwarf.address(unit, i).unwrap_or(low)
                }
                Some(v) => v.udata_value().map_or(low + 1, |off| low.wrapping_add(off)),
                _ => low + 1,
            };
            found.push((low, high));
        }
    }
    if !found.is_empty() {
        let index = out.units.len();
        out.units.push((path, comp_dir));
        out.ranges
            .extend(found.into_iter().map(|(start, end)| (start, end, index)));
    }
}
