//! Register names of Breakpad's `STACK CFI` rules, by DWARF register number, per CPU
//! family, as `dump_syms` (symbolic-cfi's `AsciiCfiWriter`) prints them.
//!
//! The numbers are those of each architecture's DWARF mapping (the System V psABIs of
//! x86-64 and i386, ARM's and AArch64's "DWARF for the Arm architecture", the PowerPC
//! and MIPS ABIs); the spellings are Breakpad's: `$`-prefixed on x86 and MIPS, bare on
//! ARM and PowerPC. A number the table does not name (a reserved slot, or beyond its
//! end) has no name, and a rule that needs it is left out of the record.

/// The CPU family of an ELF file (`e_machine`, and `e_flags` for MIPS), which decides
/// the register names and the address size of the unwind sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// `EM_386`.
    X86,
    /// `EM_X86_64`.
    X86_64,
    /// `EM_ARM`.
    Arm,
    /// `EM_AARCH64`.
    Arm64,
    /// `EM_PPC`.
    Ppc32,
    /// `EM_PPC64`.
    Ppc64,
    /// `EM_MIPS` / `EM_MIPS_RS3_LE` without the O64 or EABI64 flags.
    Mips32,
    /// `EM_MIPS` / `EM_MIPS_RS3_LE` with the O64 or EABI64 ABI flag.
    Mips64,
    /// Any other machine: no register has a name.
    Unknown,
}

/// `EF_MIPS_ABI_O64 | EF_MIPS_ABI_EABI64`: dump_syms calls a MIPS file 64-bit only when
/// one of these ABI flags is set (an n64 file, ELFCLASS64 without them, counts as 32-bit,
/// which only changes the address size below).
const MIPS_64_ABI_FLAGS: u32 = 0x2000 | 0x4000;

impl Family {
    /// The family of an ELF file with machine `machine` and flags `flags`.
    pub(crate) fn from_elf(machine: object::elf::Machine, flags: u32) -> Family {
        use object::elf::{EM_386, EM_AARCH64, EM_ARM, EM_MIPS, EM_MIPS_RS3_LE, EM_PPC};
        use object::elf::{EM_PPC64, EM_X86_64};
        match machine {
            EM_386 => Family::X86,
            EM_X86_64 => Family::X86_64,
            EM_ARM => Family::Arm,
            EM_AARCH64 => Family::Arm64,
            EM_PPC => Family::Ppc32,
            EM_PPC64 => Family::Ppc64,
            EM_MIPS | EM_MIPS_RS3_LE if flags & MIPS_64_ABI_FLAGS != 0 => Family::Mips64,
            EM_MIPS | EM_MIPS_RS3_LE => Family::Mips32,
            _ => Family::Unknown,
        }
    }

    /// The size of an absolute address in the unwind sections (`DW_EH_PE_absptr`, and
    /// `.debug_frame` CIEs before version 4); `None` leaves gimli's default (the host's
    /// pointer size), as dump_syms does for a family it does not know.
    pub(crate) fn address_size(self) -> Option<u8> {
        match self {
            Family::X86 | Family::Arm | Family::Ppc32 | Family::Mips32 => Some(4),
            Family::X86_64 | Family::Arm64 | Family::Ppc64 | Family::Mips64 => Some(8),
            Family::Unknown => None,
        }
    }

    /// Whether the return address lives in a register at a call (ARM's `lr`, AArch64's
    /// `x30`, MIPS's `$ra`, PowerPC's `lr`): there, a first row that gives no rule for
    /// the return address gets `.ra: <that register>`.
    pub(crate) fn return_address_in_register(self) -> bool {
        !matches!(self, Family::X86 | Family::X86_64 | Family::Unknown)
    }

    /// The Breakpad name of DWARF register `number`, if the family names it.
    pub(crate) fn name(self, number: u16) -> Option<&'static str> {
        let table: &[&str] = match self {
            Family::X86 => X86,
            Family::X86_64 => X86_64,
            Family::Arm => ARM,
            Family::Arm64 => ARM64,
            Family::Ppc32 | Family::Ppc64 => PPC,
            Family::Mips32 | Family::Mips64 => MIPS,
            Family::Unknown => &[],
        };
        table
            .get(usize::from(number))
            .copied()
            .filter(|name| !name.is_empty())
    }
}

// The tables: index = DWARF register number; "" = no name. Reserved slots that Breakpad
// names (`$unusedN` on x86) keep those names, because dump_syms prints them.

/// i386 psABI: general registers in the `eax ecx edx ebx esp ebp esi edi` order, then
/// `eip` (8), flags, x87, SSE, MMX, control and segment registers.
const X86: &[&str] = &[
    "$eax", "$ecx", "$edx", "$ebx", "$esp", "$ebp", "$esi", "$edi", "$eip", "$eflags", "$unused1",
    "$st0", "$st1", "$st2", "$st3", "$st4", "$st5", "$st6", "$st7", "$unused2", "$unused3",
    "$xmm0", "$xmm1", "$xmm2", "$xmm3", "$xmm4", "$xmm5", "$xmm6", "$xmm7", "$mm0", "$mm1", "$mm2",
    "$mm3", "$mm4", "$mm5", "$mm6", "$mm7", "$fcw", "$fsw", "$mxcsr", "$es", "$cs", "$ss", "$ds",
    "$fs", "$gs", "$unused4", "$unused5", "$tr", "$ldtr",
];

/// x86-64 psABI: `rax rdx rcx rbx rsi rdi rbp rsp` (0–7), `r8`–`r15`, the return address
/// (16, named `$rip`), `xmm0`–`xmm15`, x87, MMX, flags, segment and control registers.
const X86_64: &[&str] = &[
    "$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp", "$r8", "$r9", "$r10", "$r11",
    "$r12", "$r13", "$r14", "$r15", "$rip", "$xmm0", "$xmm1", "$xmm2", "$xmm3", "$xmm4", "$xmm5",
    "$xmm6", "$xmm7", "$xmm8", "$xmm9", "$xmm10", "$xmm11", "$xmm12", "$xmm13", "$xmm14", "$xmm15",
    "$st0", "$st1", "$st2", "$st3", "$st4", "$st5", "$st6", "$st7", "$mm0", "$mm1", "$mm2", "$mm3",
    "$mm4", "$mm5", "$mm6", "$mm7", "$rflags", "$es", "$cs", "$ss", "$ds", "$fs", "$gs",
    "$unused1", "$unused2", "$fs.base", "$gs.base", "$unused3", "$unused4", "$tr", "$ldtr",
    "$mxcsr", "$fcw", "$fsw",
];

/// 32-bit ARM: `r0`–`r12`, `sp`, `lr`, `pc` (0–15), the legacy FPA registers `f0`–`f7`,
/// `fps` and `cpsr` (16–25), nothing up to 63, VFP `s0`–`s31` (64–95), then the FPA
/// registers again under their newer numbers (96–103).
const ARM: &[&str] = &[
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr",
    "pc", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "fps", "cpsr", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9",
    "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22",
    "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31", "f0", "f1", "f2", "f3", "f4",
    "f5", "f6", "f7",
];

/// AArch64: `x0`–`x30` (0–30; x29 is the frame pointer, x30 the link register), `sp`
/// (31), nothing up to 63, SIMD `v0`–`v31` (64–95).
const ARM64: &[&str] = &[
    "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
    "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
    "x28", "x29", "x30", "sp", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "v0", "v1", "v2", "v3", "v4", "v5",
    "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19",
    "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31",
];

/// PowerPC (32 and 64-bit): `r0`–`r31`, `f0`–`f31`, then `lr` (65), `ctr` (66),
/// `cr0`–`cr7` (68–75), `xer` (76), `vr0`–`vr31` (77–108), `vscr` (110) and the
/// transactional-memory registers (114–116).
const PPC: &[&str] = &[
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
    "r15", "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27",
    "r28", "r29", "r30", "r31", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10",
    "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21", "f22", "f23",
    "f24", "f25", "f26", "f27", "f28", "f29", "f30", "f31", "", "lr", "ctr", "", "cr0", "cr1",
    "cr2", "cr3", "cr4", "cr5", "cr6", "cr7", "xer", "vr0", "vr1", "vr2", "vr3", "vr4", "vr5",
    "vr6", "vr7", "vr8", "vr9", "vr10", "vr11", "vr12", "vr13", "vr14", "vr15", "vr16", "vr17",
    "vr18", "vr19", "vr20", "vr21", "vr22", "vr23", "vr24", "vr25", "vr26", "vr27", "vr28", "vr29",
    "vr30", "vr31", "", "vscr", "", "", "", "tfhar", "tfiar", "texasr",
];

/// MIPS: the 32 general registers by their ABI names (0–31), `$lo`, `$hi`, `$pc`
/// (32–34), then the floating-point registers, where Breakpad's list has no `$f1`
/// (35 is `$f0`, 36 `$f2`, … 65 `$f31`), `$fcsr` (66) and `$fir` (67).
const MIPS: &[&str] = &[
    "$zero", "$at", "$v0", "$v1", "$a0", "$a1", "$a2", "$a3", "$t0", "$t1", "$t2", "$t3", "$t4",
    "$t5", "$t6", "$t7", "$s0", "$s1", "$s2", "$s3", "$s4", "$s5", "$s6", "$s7", "$t8", "$t9",
    "$k0", "$k1", "$gp", "$sp", "$fp", "$ra", "$lo", "$hi", "$pc", "$f0", "$f2", "$f3", "$f4",
    "$f5", "$f6", "$f7", "$f8", "$f9", "$f10", "$f11", "$f12", "$f13", "$f14", "$f15", "$f16",
    "$f17", "$f18", "$f19", "$f20", "$f21", "$f22", "$f23", "$f24", "$f25", "$f26", "$f27", "$f28",
    "$f29", "$f30", "$f31", "$fcsr", "$fir",
];

#[cfg(test)]
mod tests {
    use super::*;
    use object::elf::Machine;

    // The numbers below are the psABIs' (DWARF register number mappings), not read back
    // from the tables.
    #[test]
    fn names_by_dwarf_number() {
        // x86-64 psABI, figure "DWARF Register Number Mapping".
        assert_eq!(Family::X86_64.name(0), Some("$rax"));
        assert_eq!(Family::X86_64.name(3), Some("$rbx"));
        assert_eq!(Family::X86_64.name(6), Some("$rbp"));
        assert_eq!(Family::X86_64.name(7), Some("$rsp"));
        assert_eq!(Family::X86_64.name(16), Some("$rip"));
        assert_eq!(Family::X86_64.name(17), Some("$xmm0"));
        assert_eq!(Family::X86_64.name(49), Some("$rflags"));
        assert_eq!(Family::X86_64.name(58), Some("$fs.base"));
        assert_eq!(Family::X86_64.name(66), Some("$fsw"));
        assert_eq!(Family::X86_64.name(67), None);
        // i386 psABI.
        assert_eq!(Family::X86.name(4), Some("$esp"));
        assert_eq!(Family::X86.name(5), Some("$ebp"));
        assert_eq!(Family::X86.name(8), Some("$eip"));
        assert_eq!(Family::X86.name(21), Some("$xmm0"));
        // AArch64 DWARF: x29 frame pointer, x30 link register, 31 sp, 64 v0.
        assert_eq!(Family::Arm64.name(29), Some("x29"));
        assert_eq!(Family::Arm64.name(30), Some("x30"));
        assert_eq!(Family::Arm64.name(31), Some("sp"));
        assert_eq!(Family::Arm64.name(32), None);
        assert_eq!(Family::Arm64.name(64), Some("v0"));
        assert_eq!(Family::Arm64.name(95), Some("v31"));
        assert_eq!(Family::Arm64.name(96), None);
        // ARM DWARF: 13 sp, 14 lr, 15 pc, 64 s0; D registers (256+) are unnamed.
        assert_eq!(Family::Arm.name(13), Some("sp"));
        assert_eq!(Family::Arm.name(14), Some("lr"));
        assert_eq!(Family::Arm.name(64), Some("s0"));
        assert_eq!(Family::Arm.name(95), Some("s31"));
        assert_eq!(Family::Arm.name(30), None);
        assert_eq!(Family::Arm.name(256), None);
        // PowerPC: 65 lr, 66 ctr, 77 vr0; MIPS: 29 $sp, 31 $ra.
        assert_eq!(Family::Ppc64.name(65), Some("lr"));
        assert_eq!(Family::Ppc64.name(66), Some("ctr"));
        assert_eq!(Family::Ppc64.name(77), Some("vr0"));
        assert_eq!(Family::Ppc64.name(116), Some("texasr"));
        assert_eq!(Family::Mips32.name(29), Some("$sp"));
        assert_eq!(Family::Mips32.name(31), Some("$ra"));
        assert_eq!(Family::Unknown.name(0), None);
    }

    #[test]
    fn families_of_elf_machines() {
        assert_eq!(Family::from_elf(Machine(62), 0), Family::X86_64);
        assert_eq!(Family::from_elf(Machine(183), 0), Family::Arm64);
        assert_eq!(Family::from_elf(Machine(8), 0x2000), Family::Mips64);
        assert_eq!(Family::from_elf(Machine(8), 0), Family::Mips32);
        assert_eq!(Family::from_elf(Machine(243), 0), Family::Unknown); // RISC-V
        assert_eq!(Family::X86_64.address_size(), Some(8));
        assert_eq!(Family::Unknown.address_size(), None);
    }
}
