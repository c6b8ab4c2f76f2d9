//! The walk over whole CIE/FDE pairs, hand-encoded in `.debug_frame` form: which rows
//! become lines and which rules each line lists. The expected text follows from the
//! DWARF 5 call-frame instructions (section 6.4.2) and the rules in the module docs. The
//! section walk in parts gives the records and the error of the walk in one piece.

use gimli::{BaseAddresses, CieOrFde, DebugFrame, LittleEndian, RunTimeEndian, UnwindSection};

use super::registers::Family;
use super::rules::Translator;
use super::walk::{fde_list, translate};
use crate::model::{CfiRecord, CfiRow};

/// A `.debug_frame` of one CIE (version 1, code alignment 1, data alignment -8,
/// return-address column `ra`, `cie_program`) and one FDE at 0x1000, 0x20 bytes long,
/// running `fde_program`. 32-bit format, 8-byte addresses.
fn debug_frame(ra: u8, cie_program: &[u8], fde_program: &[u8]) -> Vec<u8> {
    debug_frame_of(ra, cie_program, &[(0x1000, fde_program)])
}

/// [`debug_frame`] with one FDE, 0x20 bytes long, per `(address, program)` of `fdes`.
fn debug_frame_of(ra: u8, cie_program: &[u8], fdes: &[(u64, &[u8])]) -> Vec<u8> {
    let mut cie = vec![0xff, 0xff, 0xff, 0xff, 1, 0, 1, 0x78, ra];
    cie.extend_from_slice(cie_program);
    let mut out = (cie.len() as u32).to_le_bytes().to_vec();
    out.extend(cie);
    for &(address, program) in fdes {
        let mut fde = 0u32.to_le_bytes().to_vec(); // the CIE at offset 0
        fde.extend(address.to_le_bytes());
        fde.extend(0x20u64.to_le_bytes());
        fde.extend_from_slice(program);
        out.extend((fde.len() as u32).to_le_bytes());
        out.extend(fde);
    }
    out
}

/// The records of `data`'s FDEs as the section walk gives them, in parts of `part_len`
/// FDEs; the error is the FDE's offset.
fn walk_in_parts(
    data: &[u8],
    family: Family,
    part_len: usize,
) -> Result<Vec<CfiRecord<'static>>, u64> {
    let mut section = DebugFrame::new(data, RunTimeEndian::Little);
    section.set_address_size(8);
    let bases = BaseAddresses::default();
    let (fdes, list_error) = fde_list(&section, &bases, data, false);
    assert!(list_error.is_none());
    translate(&section, &bases, &fdes, family, 0, part_len).map_err(|(at, _)| at)
}

/// The records of the FDEs of `data`, one after another on this thread.
fn walk(data: &[u8], family: Family, load_address: u64) -> Vec<CfiRecord<'static>> {
    let mut section = DebugFrame::new(data, LittleEndian);
    section.set_address_size(8);
    let bases = BaseAddresses::default();
    let mut translator = Translator::new(family, load_address);
    let mut entries = section.entries(&bases);
    let mut out = Vec::new();
    while let Some(entry) = entries.next().unwrap() {
        if let CieOrFde::Fde(partial) = entry {
            let fde = partial.parse(DebugFrame::cie_from_offset).unwrap();
            translator
                .fde_records(&section, &bases, &fde, &mut out)
                .unwrap();
        }
    }
    out
}

fn row(address: u64, rules: &'static str) -> CfiRow<'static> {
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
            init: "".into(),
            rows: vec![row(0x1002, ".cfa: $rsp 16 +")],
        }]
    );
}

#[test]
fn a_rule_that_comes_back_unchanged_is_not_written_again() {
    let cie = [DEF_CFA, 7, 8, OFFSET | 16, 1];
    let fde = [
        ADVANCE_LOC | 1,
        OFFSET | 6, // rbp at CFA - 16
        2,
        ADVANCE_LOC | 1,
        RESTORE | 6, // rbp back to no rule: nothing to write
        ADVANCE_LOC | 1,
        OFFSET | 6, // rbp at CFA - 16 again: the last rule written for it
        2,
        ADVANCE_LOC | 1,
        OFFSET | 6, // rbp at CFA - 24
        3,
    ];
    let records = walk(&debug_frame(16, &cie, &fde), Family::X86_64, 0);
    assert_eq!(
        records,
        vec![CfiRecord {
            start: 0x1000,
            size: 0x20,
            init: ".cfa: $rsp 8 + .ra: .cfa -8 + ^".into(),
            rows: vec![
                row(0x1001, "$rbp: .cfa -16 + ^"),
                row(0x1004, "$rbp: .cfa -24 + ^"),
            ],
        }]
    );
}

#[test]
fn parts_of_any_size_give_the_records_in_section_order() {
    let cie = [DEF_CFA, 7, 8, OFFSET | 16, 1];
    let grow = [ADVANCE_LOC | 1, DEF_CFA_OFFSET, 16];
    // Every fourth FDE starts at all ones: it gives no record.
    let fdes: Vec<(u64, &[u8])> = (0..9u64)
        .map(|i| match i % 4 {
            3 => (u64::MAX, &grow[..]),
            _ => (0x9000 - i * 0x100, &grow[..]),
        })
        .collect();
    let data = debug_frame_of(16, &cie, &fdes);
    let whole = walk_in_parts(&data, Family::X86_64, usize::MAX).unwrap();
    let starts: Vec<u64> = whole.iter().map(|r| r.start).collect();
    assert_eq!(
        starts,
        [0x9000, 0x8f00, 0x8e00, 0x8c00, 0x8b00, 0x8a00, 0x8800]
    );
    assert_eq!(whole, walk(&data, Family::X86_64, 0));
    for part_len in 1..=10 {
        assert_eq!(
            walk_in_parts(&data, Family::X86_64, part_len),
            Ok(whole.clone())
        );
    }
}

#[test]
fn the_first_fde_error_in_section_order_is_the_one_reported() {
    let cie = [DEF_CFA, 7, 8];
    let good = [ADVANCE_LOC | 1, DEF_CFA_OFFSET, 16];
    // DW_CFA_restore_state with nothing remembered: gimli's walk fails.
    let bad = [ADVANCE_LOC | 1, 0x0b];
    let mut fdes: Vec<(u64, &[u8])> = Vec::new();
    for i in 0..12u64 {
        let program: &[u8] = if i == 5 || i == 9 { &bad } else { &good };
        fdes.push((0x1000 + i * 0x100, program));
    }
    let data = debug_frame_of(16, &cie, &fdes);
    let first_bad = {
        let section = DebugFrame::new(&data[..], LittleEndian);
        let bases = BaseAddresses::default();
        let mut entries = section.entries(&bases);
        let mut fde_offsets = Vec::new();
        while let Some(entry) = entries.next().unwrap() {
            if let CieOrFde::Fde(partial) = entry {
                fde_offsets.push(partial.offset() as u64);
            }
        }
        fde_offsets[5]
    };
    for part_len in [1, 2, 3, 5, 6, 100] {
        assert_eq!(
            walk_in_parts(&data, Family::X86_64, part_len),
            Err(first_bad),
            "parts of {part_len}"
        );
    }
}

#[test]
fn an_error_in_the_rows_of_an_fde_below_the_load_address_still_counts() {
    // DW_CFA_restore_state with nothing remembered, after the first row.
    let data = debug_frame(16, &[DEF_CFA, 7, 8], &[ADVANCE_LOC | 1, 0x0b]);
    let section = DebugFrame::new(&data[..], LittleEndian);
    let bases = BaseAddresses::default();
    let mut entries = section.entries(&bases);
    let mut translator = Translator::new(Family::X86_64, 0x2000);
    let mut results = Vec::new();
    while let Some(entry) = entries.next().unwrap() {
        if let CieOrFde::Fde(partial) = entry {
            let fde = partial.parse(DebugFrame::cie_from_offset).unwrap();
            let mut out = Vec::new();
            let got = translator.fde_records(&section, &bases, &fde, &mut out);
            results.push(got.map_err(|e| e.to_string()));
            assert!(out.is_empty());
        }
    }
    assert_eq!(results, [Err(gimli::Error::PopWithEmptyStack.to_string())]);
}

#[test]
fn a_second_row_at_the_first_address_is_another_init_line() {
    let cie = [DEF_CFA, 7, 8, OFFSET | 16, 1];
    let fde = [
        OFFSET | 6, // rbp at CFA - 16
        2,
        ADVANCE_LOC, // by 0: the first row is empty
        DEF_CFA_OFFSET,
        16,
        ADVANCE_LOC | 2,
        OFFSET | 3, // rbx at CFA - 24
        3,
    ];
    let records = walk(&debug_frame(16, &cie, &fde), Family::X86_64, 0);
    assert_eq!(
        records,
        vec![
            CfiRecord {
                start: 0x1000,
                size: 0x20,
                init: ".cfa: $rsp 8 + .ra: .cfa -8 + ^ $rbp: .cfa -16 + ^".into(),
                rows: vec![],
            },
            CfiRecord {
                start: 0x1000,
                size: 0x20,
                init: ".cfa: $rsp 16 +".into(),
                rows: vec![row(0x1002, "$rbx: .cfa -24 + ^")],
            },
        ]
    );
}
