//! Symbol-table functions under `llvm-gsymutil --convert`'s rules (LLVM 14's
//! `ObjectFileTransformer::convert`), which differ from `llvm-symbolizer`'s
//! ([`super::symtab_fill`]):
//!
//! * `.symtab` symbols in table order, `STT_FUNC` only (an `STT_GNU_IFUNC` resolver is
//!   `ST_Other` to LLVM), at an address inside an executable section;
//! * a symbol is skipped when its address lies in a range added before it: any DWARF
//!   function's, or an earlier symbol's. So of aliases at one address (identical code
//!   folded by the linker) the first in the table is kept, and a symbol that starts inside
//!   a DWARF function adds nothing, even where it reaches past it;
//! * the raw name, no file, no line rows.
//!
//! LLVM stores a symbol without a size as size 0, which its lookup lets cover every
//! address up to the next function; a model span needs an end, so such a symbol ends where
//! the next function (DWARF's or a symbol's) or its section starts.

use std::collections::BTreeMap;

use object::{Object, ObjectSymbol, SymbolFlags};

use crate::model::{Bytes, Group, Span};

/// The address ranges added so far, merged (LLVM's `AddressRanges`).
#[derive(Default)]
struct Ranges(BTreeMap<u64, u64>);

impl Ranges {
    /// Whether a range contains `addr` (LLVM's `AddressRanges::contains`).
    fn contains(&self, addr: u64) -> bool {
        self.0
            .range(..=addr)
            .next_back()
            .is_some_and(|(_, &end)| addr < end)
    }

    /// Adds `[start, end)`, merged with the ranges it touches; an empty range adds
    /// nothing (as in LLVM).
    fn insert(&mut self, mut start: u64, mut end: u64) {
        if start >= end {
            return;
        }
        if let Some((&s, &e)) = self.0.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
            }
        }
        let touching: Vec<u64> = self.0.range(start..=end).map(|(&s, _)| s).collect();
        for s in touching {
            if let Some(e) = self.0.remove(&s) {
                end = end.max(e);
            }
        }
        self.0.insert(start, end);
    }
}

/// The groups the symbol table of `obj` adds to the `dwarf` groups (sorted by start)
/// under LLVM's GSYM rules; `exec` are the executable sections' ranges.
pub(crate) fn symbol_groups<'a>(
    obj: &object::File<'a>,
    exec: &[(u64, u64)],
    dwarf: &[Group<'a>],
) -> Vec<Group<'a>> {
    let mut ranges = Ranges::default();
    // A group's only depth-0 span is its first (the model's invariant): reading every
    // span to find them took ripgrep's build 20 ms of cache misses.
    for group in dwarf {
        ranges.insert(group.start(), group.end());
    }
    let section_of = |addr: u64| exec.iter().find(|&&(s, e)| s <= addr && addr < e).copied();
    // (start, size, name, section end) in table order.
    let mut kept: Vec<(u64, u64, &'a [u8], u64)> = Vec::new();
    for sym in obj.symbols() {
        let SymbolFlags::Elf { st_info, .. } = sym.flags() else {
            continue;
        };
        let addr = sym.address();
        let Some((_, section_end)) = section_of(addr) else {
            continue;
        };
        if st_info.st_type() != object::elf::STT_FUNC || ranges.contains(addr) {
            continue;
        }
        let name = sym.name_bytes().unwrap_or_default();
        let size = sym.size();
        ranges.insert(addr, addr.saturating_add(size));
        // A name LLVM would store at string offset 0 makes an entry its lookup refuses.
        if !name.is_empty() {
            kept.push((addr, size, name, section_end));
        }
    }
    // Every start, for the end of sizeless symbols.
    let mut starts: Vec<u64> = dwarf.iter().map(Group::start).collect();
    starts.extend(kept.iter().map(|k| k.0));
    starts.sort_unstable();
    let mut out: Vec<Group<'a>> = kept
        .into_iter()
        .filter_map(|(start, size, name, section_end)| {
            let end = if size == 0 {
                // Beside another function at the same address a sizeless symbol adds
                // nothing (LLVM's lookup answers the first of equal addresses).
                let after = starts.partition_point(|&s| s <= start);
                if after >= 2 && starts[after - 2] == start {
                    return None;
                }
                starts
                    .get(after)
                    .map_or(section_end, |&next| next.min(section_end))
            } else {
                start.saturating_add(size)
            };
            (start < end).then(|| Group {
                spans: vec![Span::function(start, end, Bytes::Borrowed(name))],
            })
        })
        .collect();
    out.sort_by_key(Group::start);
    out
}

#[cfg(test)]
mod tests {
    use super::Ranges;

    #[test]
    fn ranges_merge_and_contain_as_llvm_s_address_ranges() {
        let mut r = Ranges::default();
        r.insert(10, 20);
        r.insert(30, 40);
        r.insert(5, 5);
        assert!(!r.contains(5) && r.contains(10) && r.contains(19) && !r.contains(20));
        r.insert(18, 31);
        assert_eq!(r.0.len(), 1);
        assert!(r.contains(25) && r.contains(39) && !r.contains(40));
        r.insert(40, 50);
        assert_eq!(r.0.into_iter().collect::<Vec<_>>(), [(10, 50)]);
    }
}
