//! Source paths beyond SuperSize: a function's own DWARF declaration file (so template and
//! inline functions defined in headers go to the header, not to the compile unit that
//! emitted them), and data symbols attributed through DWARF variables with a fixed
//! address. Paths are given as the compile unit names are: relative to the unit's
//! `DW_AT_comp_dir` when under it.

use gimli::{AttributeValue, EndianSlice, RunTimeEndian};

use crate::dwarf::load::SectionStore;
use crate::model::DeclPaths;

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;

impl DeclPaths {
    /// Reads the declarations of an ELF file's DWARF sections; unreadable units give
    /// nothing.
    pub(crate) fn from_sections(sections: &SectionStore<'_>) -> DeclPaths {
        let mut out = DeclPaths::default();
        let dwarf = sections.dwarf();
        let mut units = dwarf.units();
        while let Ok(Some(header)) = units.next() {
            if let Ok(unit) = dwarf.unit(header) {
                collect(&dwarf, &unit, &mut out);
            }
        }
        out
    }
}

fn collect(dwarf: &gimli::Dwarf<Slice<'_>>, unit: &gimli::Unit<Slice<'_>>, out: &mut DeclPaths) {
    let comp_dir = unit
        .comp_dir
        .map(|d| String::from_utf8_lossy(d.slice()).into_owned())
        .unwrap_or_default();
    let mut entries = unit.entries();
    while let Ok(Some(die)) = entries.next_dfs() {
        let is_function = die.tag() == gimli::DW_TAG_subprogram;
        if !is_function && die.tag() != gimli::DW_TAG_variable {
            continue;
        }
        let address = if is_function {
            match die.attr_value(gimli::DW_AT_low_pc) {
                Some(AttributeValue::Addr(a)) => a,
                Some(AttributeValue::DebugAddrIndex(i)) => dwarf.address(unit, i).unwrap_or(0),
                _ => continue,
            }
        } else {
            match variable_address(dwarf, unit, die) {
                Some(a) => a,
                None => continue,
            }
        };
        if address == 0 {
            continue;
        }
        let Some(path) = decl_file(dwarf, unit, die, &comp_dir) else {
            continue;
        };
        let map = if is_function {
            &mut out.functions
        } else {
            &mut out.variables
        };
        map.entry(address).or_insert((path, comp_dir.clone()));
    }
}

/// The address of a variable whose location is a single `DW_OP_addr`.
fn variable_address(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    die: &gimli::DebuggingInformationEntry<Slice<'_>>,
) -> Option<u64> {
    let Some(AttributeValue::Exprloc(expr)) = die.attr_value(gimli::DW_AT_location) else {
        return None;
    };
    let mut ops = expr.operations(unit.encoding());
    let address = match ops.next().ok()?? {
        gimli::Operation::Address { address } => address,
        gimli::Operation::AddressIndex { index } => dwarf.address(unit, index).ok()?,
        _ => return None,
    };
    // Only a plain address (TLS and computed locations have more operations).
    ops.next().ok()?.is_none().then_some(address)
}

/// The declaration file of `die`, following `DW_AT_specification` and
/// `DW_AT_abstract_origin` within the unit (two steps at most).
fn decl_file<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    die: &gimli::DebuggingInformationEntry<Slice<'a>>,
    comp_dir: &str,
) -> Option<String> {
    let mut current = die.clone();
    for _ in 0..3 {
        if let Some(AttributeValue::FileIndex(index)) = current.attr_value(gimli::DW_AT_decl_file) {
            return file_path(dwarf, unit, index, comp_dir);
        }
        let next = [gimli::DW_AT_specification, gimli::DW_AT_abstract_origin]
            .into_iter()
            .find_map(|a| match current.attr_value(a) {
                Some(AttributeValue::UnitRef(offset)) => Some(offset),
                _ => None,
            })?;
        current = unit.entry(next).ok()?;
    }
    None
}

/// The path of line-table file `index`, relative to `comp_dir` when under it.
fn file_path(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    index: u64,
    comp_dir: &str,
) -> Option<String> {
    let header = unit.line_program.as_ref()?.header();
    let file = header.file(index)?;
    let name = dwarf.attr_string(unit, file.path_name()).ok()?;
    let name = String::from_utf8_lossy(name.slice()).into_owned();
    let path = if name.starts_with('/') {
        name
    } else {
        let dir = file
            .directory(header)
            .and_then(|d| dwarf.attr_string(unit, d).ok())
            .map(|d| String::from_utf8_lossy(d.slice()).into_owned())
            .unwrap_or_default();
        if dir.is_empty() {
            name
        } else {
            format!("{}/{name}", dir.trim_end_matches('/'))
        }
    };
    let under = comp_dir.trim_end_matches('/');
    match path.strip_prefix(under).and_then(|p| p.strip_prefix('/')) {
        Some(rel) if !under.is_empty() => Some(rel.to_string()),
        _ => Some(path),
    }
}
