//! The walk over whole CIE/FDE pairs, hand-encoded in `.debug_frame` form: which rows
//! become lines and which rules each line lists. The expected text follows from the
//! DWARF 5 call-frame instructions (section 6.4.2) and the rules in the module docs.

use gimli::{BaseAddresses, CieOrFde, DebugFrame, LittleEndian, UnwindContext, UnwindSection};

use super::registers::Family;
use super::rules::fde_records;
use crate::model::{CfiRecord, CfiRow};

/// A `.debug_frame` of one CIE (version 1, code alignment 1, data alignment -8,
/// return-address column `ra`, `cie_program`) and one FDE at 0x1000, 0x20 bytes long,
/// running `fde_program`. 32-bit format, 8-byte addresses.
fn debug_frame(ra: u8, cie_program: &[u8], fde_program: &[u8]) -> Vec<u8> {
    let mut cie = vec![0xff, 0xff, 0xff, 0xff, 1, 0, 1, 0x78, ra];
    cie.extend_from_slice(cie_program);
    let mut out = (cie.len() as u32).to_le_bytes().to_vec();
    out.extend(cie);
    let mut fde = 0u32.to_le_bytes().to_vec(); // the CIE at offset 0
    fde.extend(0x1000u64.to_le_bytes());
    fde.extend(0x20u64.to_le_bytes());
    fde.extend_from_slice(fde_program);
    out.extend((fde.len() as u32).to_le_bytes());
    out.extend(fde);
    out
}

/// The records of the one FDE of `data`.
fn walk(data: &[u8], family: Family, load_address: u64) -> Vec<CfiRecord> {
    let mut section = DebugFrame::new(data, LittleEndian);
    section.set_address_size(8);
    let bases = BaseAddresses::default();
    let mut ctx = UnwindContext::new();
    let mut entries = section.entries(&bases);
    let mut out = Vec::new();
    while let Some(entry) = entries.next().unwrap() {
        if let CieOrFde::Fde(partial) = entry {
            let fde = partial.parse(DebugFrame::cie_from_offset).unwrap();
            out.extend(
                fde_records(&section, &bases, &mut ctx, &fde, family, load_address).unwrap(),
            );
        }
    }
    out
}

fn row(address: u64, rules: &str) -> CfiRow {
    CfiRow {
        address,
        rules: rules.into(),
    }
}

// DWARF opcodes used below.
const DEF_CFA: u8 = 0x0c;
const DEF_CFA_REGISTER: u8 = 0x0d;
const DEF_CFA_OFFSET: u8 = 0x0e;
const DEF_CFA_EXPRESSION: u8 = 0x0f;
const SAME_VALUE: u8 = 0x08;
const REGISTER: u8 = 0x09;
const VAL_OFFSET: u8 = 0x14;
const ADVANCE_LOC: u8 = 0x40; // | delta
const OFFSET: u8 = 0x80; // | register, then the factored offset
const RESTORE: u8 = 0xc0; // | register
const DW_OP_BREG7: u8 = 0x77;

#[test]
fn x86_64_rows_list_only_what_changed() {
    // At entry: CFA = rsp + 8, return address (16) at CFA - 8.
    let cie = [DEF_CFA, 7, 8, OFFSET | 16, 1];
    let fde = [
        ADVANCE_LOC | 1,
        DEF_CFA_OFFSET,
        16,
        OFFSET | 6, // rbp at CFA + 2 × -8
        2,
        ADVANCE_LOC | 3,
        DEF_CFA_REGISTER,
        6,
        ADVANCE_LOC | 4,
        SAME_VALUE,
        3, // rbx unchanged
        VAL_OFFSET,
        12,
        3, // r12 = CFA + 3 × -8
        ADVANCE_LOC | 4,
        DEF_CFA_EXPRESSION, // not expressible: the row has nothing to write
        2,
        DW_OP_BREG7,
        0,
        ADVANCE_LOC | 4,
        DEF_CFA,
        7,
        8,
        RESTORE | 6, // rbp back to its CIE rule (none): not written either
        REGISTER,
        14,
        15, // r14 kept in r15
    ];
    let records = walk(&debug_frame(16, &cie, &fde), Family::X86_64, 0);
    assert_eq!(
        records,
        vec![CfiRecord {
            start: 0x1000,
            size: 0x20,
            init: ".cfa: $rsp 8 + .ra: .cfa -8 + ^".into(),
            rows: vec![
                row(0x1001, ".cfa: $rsp 16 + $rbp: .cfa -16 + ^"),
                row(0x1004, ".cfa: $rbp 16 +"),
                row(0x1008, "$rbx: $rbx $r12: .cfa -24 +"),
                row(0x1010, ".cfa: $rsp 8 + $r14: $r15"),
            ],
        }]
    );
    // Below the module's load address: skipped.
    assert_eq!(
        walk(&debug_frame(16, &cie, &fde), Family::X86_64, 0x2000),
        vec![]
    );
}

#[test]
fn aarch64_init_names_the_link_register() {
    // CFA = sp (31); no rule for x30 (the return-address column) at entry.
    let cie = [DEF_CFA, 31, 0];
    let fde = [
        ADVANCE_LOC | 4,
        DEF_CFA_OFFSET,
        16,
        OFFSET | 29, // x29 at CFA - 16
        2,
        OFFSET | 30, // x30 at CFA - 8
        1,
    ];
    let records = walk(&debug_frame(30, &cie, &fde), Family::Arm64, 0);
    assert_eq!(
        records,
        vec![CfiRecord {
            start: 0x1000,
            size: 0x20,
            init: ".cfa: sp 0 + .ra: x30".into(),
            rows: vec![row(
                0x1004,
                ".cfa: sp 16 + x29: .cfa -16 + ^ .ra: .cfa -8 + ^"
            )],
        }]
    );
}

#[test]
fn unwritable_first_row_leaves_rows_without_init() {
    // CFA as an expression at entry; later a plain CFA.
    let cie = [DEF_CFA_EXPRESSION, 2, DW_OP_BREG7, 8];
    let fde = [ADVANCE_LOC | 2, DEF_CFA, 7, 16];
    let records = walk(&debug_frame(16, &cie, &fde), Family::X86_64, 0);
    assert_eq!(
        records,
        vec![CfiRecord {
            start: 0x1000,
            size: 0x20,
            init: String::new(),
            rows: vec![row(0x1002, ".cfa: $rsp 16 +")],
        }]
    );
    let mut text = String::new();
    super::write(&mut text, &records, 0x1000);
    assert_eq!(text, "STACK CFI 2 .cfa: $rsp 16 +\n");
}

#[test]
fn write_subtracts_the_base_in_lower_case_hex() {
    let records = [CfiRecord {
        start: 0x40_1abc,
        size: 0x2f,
        init: ".cfa: $rsp 8 + .ra: .cfa -8 + ^".into(),
        rows: vec![row(0x40_1abd, ".cfa: $rsp 16 +")],
    }];
    let mut text = String::new();
    super::write(&mut text, &records, 0x40_0000);
    assert_eq!(
        text,
        "STACK CFI INIT 1abc 2f .cfa: $rsp 8 + .ra: .cfa -8 + ^\nSTACK CFI 1abd .cfa: $rsp 16 +\n"
    );
}
