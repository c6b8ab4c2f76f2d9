//! Which address ranges hold code: the one rule every builder path applies, with the two
//! views its users need.
//!
//! A section holds code when it has `SHF_EXECINSTR` and a non-zero size. The views differ
//! on purpose, because each is compared with a different tool, and joining them would
//! change output bytes:
//!
//! * [`code_ranges`] (ksym text ranges, given to the reader): only allocated sections with
//!   bytes in the file (not `SHT_NOBITS`), merged where they touch or overlap;
//! * [`section_ranges`] (the DWARF session clips functions to them): every code section
//!   on its own, `SHT_NOBITS` included, because a separate debug file keeps the headers
//!   of the code sections but not their bytes, and a function must not run across a
//!   section boundary as `llvm-symbolizer` sees it.

use std::ops::Range;

use object::{Object, ObjectSection, SectionFlags};

use super::normalise_ranges;

/// One section that holds code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CodeSection {
    start: u64,
    /// `start + size`, or `None` when that overflows.
    end: Option<u64>,
    /// `SHF_ALLOC` is set.
    allocated: bool,
    /// The section has bytes in the file (it is not `SHT_NOBITS`).
    in_file: bool,
}

/// The code sections of `obj` (see the module rule), in section-table order.
fn code_sections<'data>(obj: &impl Object<'data>) -> Vec<CodeSection> {
    obj.sections()
        .filter_map(|s| {
            let SectionFlags::Elf { sh_flags, sh_type } = s.flags() else {
                return None;
            };
            if !sh_flags.contains(object::elf::SHF_EXECINSTR) || s.size() == 0 {
                return None;
            }
            Some(CodeSection {
                start: s.address(),
                end: s.address().checked_add(s.size()),
                allocated: sh_flags.contains(object::elf::SHF_ALLOC),
                in_file: sh_type != object::elf::SHT_NOBITS,
            })
        })
        .collect()
}

/// The merged ranges of allocated code sections with bytes in the file.
pub(crate) fn code_ranges<'data>(obj: &impl Object<'data>) -> Vec<Range<u64>> {
    let ranges = code_sections(obj)
        .into_iter()
        .filter(|s| s.allocated && s.in_file)
        .map(|s| s.start..s.end.unwrap_or(u64::MAX))
        .collect();
    normalise_ranges(ranges)
}

/// Every code section's `(start, end)` on its own, sorted; sections whose end overflows
/// are left out.
pub(crate) fn section_ranges<'data>(obj: &impl Object<'data>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = code_sections(obj)
        .into_iter()
        .filter_map(|s| Some((s.start, s.end?)))
        .collect();
    out.sort_unstable();
    out
}
