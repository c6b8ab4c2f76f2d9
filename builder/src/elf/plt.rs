//! PLT entries of an ELF file, named as binutils' `objdump -d` (and perf) names them:
//! `name@plt`, where `name` is the dynamic symbol of the relocation that fills the GOT
//! slot the entry jumps through.
//!
//! The entries are found by the instructions that load their GOT slot, as LLVM's
//! `findPltEntries` does, and the slot's address is matched with the `JUMP_SLOT` or
//! `GLOB_DAT` relocation at that address:
//! - x86-64 (`.plt`, `.plt.sec` with IBT, `.plt.got`): `jmp *disp32(%rip)` (`ff 25`, or
//!   `f2 ff 25` with a BND prefix); an entry starts at its `endbr64` when it has one;
//! - AArch64 (`.plt`): `adrp x16, page` followed by `ldr x17, [x16, #offset]`; an entry
//!   starts at its `bti c` when it has one.
//!
//! Entries whose slot no relocation names (`.plt`'s first, resolver entry) get no name.
//! Other architectures get none yet.

use std::collections::HashMap;

use object::elf::{
    RelocationType, R_AARCH64_GLOB_DAT, R_AARCH64_JUMP_SLOT, R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT,
};
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

/// `bti c`, which starts the entries of BTI-enabled AArch64 PLTs.
const BTI_C: u32 = 0xd503_245f;

/// (entry start, GOT address) of every entry of a PLT section's bytes at an address.
type JumpFinder = fn(&[u8], u64) -> Vec<(u64, u64)>;

/// How the PLT of one architecture is read.
struct PltKind {
    /// Finds the entries and the GOT slots they jump through.
    jumps: JumpFinder,
    /// The relocation types that fill a GOT slot a PLT entry jumps through.
    slot_relocations: [RelocationType; 2],
}

/// The PLT reading of `arch`, if supported.
fn plt_kind(arch: Architecture) -> Option<PltKind> {
    match arch {
        Architecture::X86_64 => Some(PltKind {
            jumps,
            slot_relocations: [R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT],
        }),
        Architecture::Aarch64 => Some(PltKind {
            jumps: aarch64_jumps,
            slot_relocations: [R_AARCH64_JUMP_SLOT, R_AARCH64_GLOB_DAT],
        }),
        _ => None,
    }
}

/// The named PLT entries of `obj`, in address order.
pub(crate) fn plt_entries<'a>(obj: &object::File<'a>) -> Vec<PltEntry<'a>> {
    let Some(kind) = plt_kind(obj.architecture()) else {
        return Vec::new();
    };
    let slots = got_slot_names(obj, kind.slot_relocations);
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
        let starts = (kind.jumps)(bytes, section.address());
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

/// (entry start, GOT address) of every `adrp x16, page; ldr x17, [x16, #offset]` pair in
/// an AArch64 PLT section at `base` (instructions are 4 bytes, little-endian).
fn aarch64_jumps(bytes: &[u8], base: u64) -> Vec<(u64, u64)> {
    let insns: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::new();
    for (i, pair) in insns.windows(2).enumerate() {
        let (adrp, ldr) = (pair[0], pair[1]);
        // ADRP with Rd = x16; LDR (unsigned offset, 64-bit) with Rn = x16, Rt = x17.
        if adrp & 0x9f00_001f != 0x9000_0010 || ldr & 0xffc0_03ff != 0xf940_0211 {
            continue;
        }
        let pc = base.wrapping_add(4 * i as u64);
        let immhi = u64::from((adrp >> 5) & 0x7_ffff);
        let immlo = u64::from((adrp >> 29) & 0x3);
        // 21-bit signed page count, sign-extended by shifting it to the top and back.
        let pages = ((((immhi << 2) | immlo) << 43) as i64) >> 43;
        let page = (pc & !0xfff).wrapping_add_signed(pages.wrapping_mul(4096));
        let got = page.wrapping_add(u64::from((ldr >> 10) & 0xfff) * 8);
        let bti = i > 0 && insns.get(i - 1) == Some(&BTI_C);
        let start = if bti { pc.wrapping_sub(4) } else { pc };
        out.push((start, got));
    }
    out
}

/// GOT slot address → name of the dynamic symbol its relocation of one of the types
/// `slot_relocations` binds.
fn got_slot_names<'a>(
    obj: &object::File<'a>,
    slot_relocations: [RelocationType; 2],
) -> HashMap<u64, &'a [u8]> {
    let mut out = HashMap::new();
    let (Some(relocs), Some(dynsym)) = (obj.dynamic_relocations(), obj.dynamic_symbol_table())
    else {
        return out;
    };
    for (offset, reloc) in relocs {
        let RelocationFlags::Elf { r_type } = reloc.flags() else {
            continue;
        };
        if !slot_relocations.contains(&r_type) {
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

    #[test]
    fn aarch64_classic_and_bti_entries() {
        let le = |insns: &[u32]| {
            insns
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<u8>>()
        };
        // adrp x16, 0x20000 (from 0x710); ldr x17, [x16, #8]; add x16, x16, #8; br x17.
        let classic = le(&[0x9000_0110, 0xf940_0611, 0x9100_2210, 0xd61f_0220]);
        assert_eq!(aarch64_jumps(&classic, 0x710), vec![(0x710, 0x20008)]);
        // bti c; adrp x16, one page back (immhi all ones); ldr x17, [x16, #4088].
        let bti = le(&[BTI_C, 0xf0ff_fff0, 0xf947_fe11, 0xd61f_0220]);
        assert_eq!(aarch64_jumps(&bti, 0x3000), vec![(0x3000, 0x2000 + 4088)]);
        // Another register or instruction: no entry.
        assert!(aarch64_jumps(&le(&[0x9000_0111, 0xf940_0611]), 0).is_empty());
        assert!(aarch64_jumps(&[0x10, 0, 0], 0).is_empty());
    }
}
