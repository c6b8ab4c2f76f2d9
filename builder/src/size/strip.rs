//! What `strip` leaves of an ELF file, computed without writing it. SuperSize measures
//! the stripped file (it runs `strip -o TEMP ELF`, elfutils' `eu-strip` for the goldens
//! here): its section list, its `.shstrtab` and its file size give `section_sizes` and
//! `Overhead: ELF file`. `eu-strip` lays a stripped executable or library out as follows,
//! which is what `stripped_layout` computes:
//!
//! * removed: `SHT_SYMTAB` sections, the string table they link to, and the
//!   non-allocated debugging sections (`.debug*`, `.zdebug*`, `.gnu.debuglto_*`, `.stab`,
//!   `.stabstr`, `.line`, `.gdb_index`);
//! * allocated sections keep their file offsets; the kept non-allocated ones
//!   (`.comment`, the new `.shstrtab`, …) follow the end of the allocated sections (a
//!   NOBITS one ending at its offset) in section order, each at its own alignment;
//! * `.shstrtab` is rebuilt with the kept names only and written last, a name that is the tail of another
//!   (`.plt` of `.rela.plt`) sharing its bytes;
//! * the section header table follows, aligned to the address size.

use crate::model::SectionHeader as Section;

/// The stripped file: `.shstrtab`'s new size and the file size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrippedLayout {
    /// Size of the rebuilt section-name string table.
    pub shstrtab_size: u64,
    /// Size of the whole stripped file.
    pub file_size: u64,
}

/// Whether `strip` removes `sections[index]` (index 0, the null section, is kept).
pub(crate) fn removed_by_strip(sections: &[Section<'_>], index: usize) -> bool {
    let s = &sections[index];
    if s.kind == object::elf::SHT_SYMTAB.0 {
        return true;
    }
    if s.flags & object::elf::SHF_ALLOC.0 != 0 {
        return false;
    }
    let debug = [".debug", ".zdebug", ".gnu.debuglto_"]
        .iter()
        .any(|p| s.name.starts_with(p.as_bytes()))
        || [".stab", ".stabstr", ".line", ".gdb_index"]
            .iter()
            .any(|n| s.name == n.as_bytes());
    // The symbol table's own string table goes with it.
    let symbol_strings = sections
        .iter()
        .any(|t| t.kind == object::elf::SHT_SYMTAB.0 && t.link as usize == index);
    debug || symbol_strings
}

/// The layout `eu-strip` gives the file of `file_size` bytes whose section headers are
/// `sections` (index 0 included); `shstrtab` is the index of its section-name string
/// table. A file with nothing to strip is measured as it is.
pub(crate) fn stripped_layout(
    sections: &[Section<'_>],
    shstrtab: usize,
    is_64: bool,
    file_size: u64,
) -> StrippedLayout {
    let kept: Vec<usize> = (0..sections.len())
        .filter(|&i| i == 0 || !removed_by_strip(sections, i))
        .collect();
    if kept.len() == sections.len() {
        return StrippedLayout {
            shstrtab_size: sections.get(shstrtab).map_or(0, |s| s.size),
            file_size,
        };
    }
    let names: Vec<&[u8]> = kept.iter().skip(1).map(|&i| sections[i].name).collect();
    let shstrtab_size = string_table_size(&names);

    let alloc = object::elf::SHF_ALLOC.0;
    let in_file = |s: &Section<'_>| s.kind != object::elf::SHT_NOBITS.0;
    // A NOBITS section occupies no bytes but still counts at its offset (Go places
    // `.noptrbss` past the end of the file's contents).
    let mut end = kept
        .iter()
        .map(|&i| &sections[i])
        .filter(|s| s.flags & alloc != 0)
        .map(|s| s.offset + if in_file(s) { s.size } else { 0 })
        .max()
        .unwrap_or(0);
    // The rebuilt `.shstrtab` is written last, wherever it was.
    let others = kept.iter().skip(1).filter(|&&i| i != shstrtab);
    for &i in others.chain(kept.iter().filter(|&&i| i == shstrtab && i != 0)) {
        let s = &sections[i];
        if s.flags & alloc != 0 {
            continue;
        }
        let size = match (i == shstrtab, in_file(s)) {
            (true, _) => shstrtab_size,
            (false, true) => s.size,
            (false, false) => 0,
        };
        end = align_up(end, s.align) + size;
    }
    let (address_size, header_size) = if is_64 { (8, 64) } else { (4, 40) };
    StrippedLayout {
        shstrtab_size,
        file_size: align_up(end, address_size) + kept.len() as u64 * header_size,
    }
}

/// Size of a string table holding `names` (and the leading empty string), with every
/// name that is a tail of another stored inside it.
fn string_table_size(names: &[&[u8]]) -> u64 {
    let mut unique: Vec<&[u8]> = names.to_vec();
    unique.sort_unstable();
    unique.dedup();
    let stored = unique.iter().filter(|n| {
        !unique
            .iter()
            .any(|other| other.len() > n.len() && other.ends_with(n))
    });
    1 + stored.map(|n| n.len() as u64 + 1).sum::<u64>()
}

fn align_up(value: u64, align: u64) -> u64 {
    if align <= 1 {
        value
    } else {
        value.div_ceil(align) * align
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_share_bytes() {
        // "" + ".rela.plt" (holding ".plt") + ".text".
        let names: [&[u8]; 4] = [b".rela.plt", b".plt", b".text", b".plt"];
        assert_eq!(string_table_size(&names), 1 + 10 + 6);
    }

    #[test]
    fn alignment() {
        assert_eq!(align_up(0x3159, 8), 0x3160);
        assert_eq!(align_up(7, 0), 7);
    }
}
