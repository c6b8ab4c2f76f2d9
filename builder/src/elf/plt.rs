//! PLT entries of an ELF file, named as binutils' `objdump -d` (and perf) names them:
//! `name@plt`, where `name` is the dynamic symbol of the relocation that fills the GOT
//! slot the entry jumps through.
//!
//! x86-64 only: the entries of `.plt`, `.plt.sec` (IBT) and `.plt.got` are found by their
//! `jmp *disp32(%rip)` instruction (`ff 25`, or `f2 ff 25` with a BND prefix), as LLVM's
//! `findPltEntries` does; the GOT address it reads is matched with the `JUMP_SLOT` or
//! `GLOB_DAT` relocation at that address. An entry starts at its `endbr64` when it has
//! one. Entries whose slot no relocation names (`.plt`'s first, resolver entry) get no
//! name. Other architectures get none yet.

use std::collections::HashMap;

use object::elf::{R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT};
use object::{
    Architecture, Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags,
    RelocationTarget,
};

/// One named PLT entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PltEntry<'a> {
    /// First byte of the entry.
    pub addr: u64,
    /// Bytes up to the next entry (or the end of the section).
    pub size: u64,
    /// The dynamic symbol's name, without `@plt`.
    pub name: &'a [u8],
}

/// `endbr64`, which starts the entries of IBT-enabled PLTs.
const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];

/// The named PLT entries of `obj`, in address order.
pub(crate) fn plt_entries<'a>(obj: &object::File<'a>) -> Vec<PltEntry<'a>> {
    if obj.architecture() != Architecture::X86_64 {
        return Vec::new();
    }
    let slots = got_slot_names(obj);
    if slots.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for section in obj.sections() {
        let name = section.name_bytes().unwrap_or_default();
        if !matches!(name, b".plt" | b".plt.sec" | b".plt.got") {
            continue;
        }
        let Ok(bytes) = section.data() else { continue };
        let starts = jumps(bytes, section.address());
        let end = section.address().saturating_add(bytes.len() as u64);
        let mut named: Vec<(u64, &'a [u8])> = starts
            .into_iter()
            .filter_map(|(entry, got)| Some((entry, *slots.get(&got)?)))
            .collect();
        named.sort_by_key(|&(a, _)| a);
        for (i, &(addr, name)) in named.iter().enumerate() {
            let next = named.get(i + 1).map_or(end, |n| n.0);
            out.push(PltEntry {
                addr,
                size: next.saturating_sub(addr),
                name,
            });
        }
    }
    out.sort_by_key(|e| e.addr);
    out
}

/// (entry start, GOT address) of every `jmp *disp32(%rip)` in a PLT section at `base`.
fn jumps(bytes: &[u8], base: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while let Some(window) = bytes.get(i..i + 6) {
        if window[0] != 0xff || window[1] != 0x25 {
            i += 1;
            continue;
        }
        let disp = i32::from_le_bytes([window[2], window[3], window[4], window[5]]);
        let next_insn = base.wrapping_add(i as u64 + 6);
        let got = next_insn.wrapping_add_signed(i64::from(disp));
        // Back over a BND prefix and an `endbr64` to where the entry starts.
        let mut start = i;
        if start > 0 && bytes.get(start - 1) == Some(&0xf2) {
            start -= 1;
        }
        if start >= 4 && bytes.get(start - 4..start) == Some(&ENDBR64[..]) {
            start -= 4;
        }
        out.push((base.wrapping_add(start as u64), got));
        i += 6;
    }
    out
}

/// GOT slot address → name of the dynamic symbol its `JUMP_SLOT` or `GLOB_DAT`
/// relocation binds.
fn got_slot_names<'a>(obj: &object::File<'a>) -> HashMap<u64, &'a [u8]> {
    let mut out = HashMap::new();
    let (Some(relocs), Some(dynsym)) = (obj.dynamic_relocations(), obj.dynamic_symbol_table())
    else {
        return out;
    };
    for (offset, reloc) in relocs {
        let RelocationFlags::Elf { r_type } = reloc.flags() else {
            continue;
        };
        if r_type != R_X86_64_JUMP_SLOT && r_type != R_X86_64_GLOB_DAT {
            continue;
        }
        let RelocationTarget::Symbol(index) = reloc.target() else {
            continue;
        };
        let Ok(sym) = dynsym.symbol_by_index(index) else {
            continue;
        };
        match sym.name_bytes() {
            Ok(name) if !name.is_empty() => {
                out.entry(offset).or_insert(name);
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_and_ibt_entries() {
        // Classic: jmp *0x2fe2(%rip); push $0; jmp PLT0.
        let classic = [
            0xff, 0x25, 0xe2, 0x2f, 0, 0, 0x68, 0, 0, 0, 0, 0xe9, 0xe0, 0xff, 0xff, 0xff,
        ];
        assert_eq!(jumps(&classic, 0x1030), vec![(0x1030, 0x1036 + 0x2fe2)]);
        // IBT: endbr64; bnd jmp *0x10(%rip); nop.
        let ibt = [
            0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0x10, 0, 0, 0, 0x0f, 0x1f, 0x44, 0, 0,
        ];
        assert_eq!(jumps(&ibt, 0x2000), vec![(0x2000, 0x200b + 0x10)]);
        assert!(jumps(&[0xff], 0).is_empty());
    }
}
