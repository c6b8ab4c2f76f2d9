//! Unit checks of the decoders against the rules of `docs/formats/gsym.md`; the
//! end-to-end tests compare whole lookups with `llvm-gsymutil`.

use super::line_table::{LineProgram, LineRow};
use super::{Endian, GsymFile};
use crate::ErrorKind;

/// A header of `n` functions with 2-byte address entries in byte order `endian`, its
/// tables (empty file table beyond entry 0) and a one-byte string table.
fn file_bytes(endian: Endian, starts: &[u16]) -> [u8; 128] {
    let mut out = [0u8; 128];
    let n = starts.len();
    let put = |out: &mut [u8; 128], at: usize, bytes: &[u8]| {
        out[at..at + bytes.len()].copy_from_slice(bytes);
    };
    let u32b = |v: u32| match endian {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    };
    put(&mut out, 0, &u32b(0x4753_594d));
    put(
        &mut out,
        4,
        &u32b(1)[if endian == Endian::Little { 0..2 } else { 2..4 }],
    );
    out[6] = 2;
    put(&mut out, 16, &u32b(n as u32));
    let files = (48 + 2 * n).next_multiple_of(4) + 4 * n;
    put(&mut out, 20, &u32b(files as u32 + 12));
    put(&mut out, 24, &u32b(1));
    for (i, start) in starts.iter().enumerate() {
        let bytes = match endian {
            Endian::Little => start.to_le_bytes(),
            Endian::Big => start.to_be_bytes(),
        };
        put(&mut out, 48 + 2 * i, &bytes);
    }
    put(&mut out, files, &u32b(1));
    out
}

#[test]
fn both_byte_orders_read_the_same() {
    let le = file_bytes(Endian::Little, &[0x10, 0x20, 0x20, 0x30]);
    let be = file_bytes(Endian::Big, &[0x10, 0x20, 0x20, 0x30]);
    let (a, b) = (GsymFile::parse(&le).unwrap(), GsymFile::parse(&be).unwrap());
    assert_eq!((a.endian(), b.endian()), (Endian::Little, Endian::Big));
    assert_eq!(a.header(), b.header());
    assert_eq!(a.len(), 4);
    assert_eq!(a.file_count(), 1);
    for i in 0..4 {
        assert_eq!(a.address(i), b.address(i));
    }
    // LLVM 14's choice among equal entries: the first for an exact address, the last
    // for an address above them, nothing below the first entry.
    for file in [a, b] {
        assert_eq!(file.select(0x20), Some(1));
        assert_eq!(file.select(0x28), Some(2));
        assert_eq!(file.select(0x0f), None);
        assert_eq!(file.select(u64::MAX), Some(3));
    }
}

/// On sorted tables with runs of equal entries, the galloping search of the batched
/// lookups agrees with the binary search for every entry searched from and address.
#[test]
fn select_after_agrees_with_select_on_sorted_tables() {
    let tables: [&[u16]; 5] = [
        &[0x10, 0x10, 0x11, 0x12, 0x12, 0x12, 0x13, 0x20, 0x21, 0x21],
        &[0x10, 0x20, 0x20, 0x30],
        &[0x10, 0x10, 0x10],
        &[0x10],
        &[0x10, 0x11, 0x11, 0x12, 0x20, 0x20],
    ];
    for table in tables {
        let bytes = file_bytes(Endian::Little, table);
        let file = GsymFile::parse(&bytes).unwrap();
        assert_eq!(file.first_unsorted_address(), None);
        for addr in 0..0x40 {
            for from in 0..table.len() + 1 {
                let after = file.select_after(from, addr);
                assert_eq!(
                    after,
                    file.select(addr),
                    "{table:x?} {addr:#x} after {from}"
                );
            }
        }
    }
    let bytes = file_bytes(Endian::Little, &[0x10, 0x20, 0x18]);
    assert_eq!(
        GsymFile::parse(&bytes).unwrap().first_unsorted_address(),
        Some(2)
    );
}

#[test]
fn header_checks_name_their_field() {
    let mut bytes = file_bytes(Endian::Little, &[0x10]);
    bytes[6] = 3;
    let e = GsymFile::parse(&bytes).unwrap_err();
    assert_eq!((e.offset, e.kind), (6, ErrorKind::BadFieldSize(3)));
    bytes[6] = 2;
    bytes[7] = 21;
    let e = GsymFile::parse(&bytes).unwrap_err();
    assert_eq!(e.offset, 7);
    assert!(matches!(
        e.kind,
        ErrorKind::OutOfRange {
            value: 21,
            limit: 20
        }
    ));
}

/// Rows of a program, from offset 0 of `bytes`.
fn rows(bytes: &[u8], start: u64) -> alloc_free::Rows {
    let mut program = LineProgram::new(bytes, 0, bytes.len(), start).unwrap();
    let mut out = alloc_free::Rows::default();
    while let Some(row) = program.next_row().unwrap() {
        out.push(row);
    }
    out
}

/// A fixed-capacity row list: the reader's tests run without `alloc` too.
mod alloc_free {
    use super::LineRow;

    #[derive(Default, Debug, PartialEq)]
    pub struct Rows {
        pub rows: [Option<LineRow>; 8],
        pub len: usize,
    }

    impl Rows {
        pub fn push(&mut self, row: LineRow) {
            self.rows[self.len] = Some(row);
            self.len += 1;
        }
    }
}

#[test]
fn special_opcodes_follow_the_documented_arithmetic() {
    // MinDelta -1, MaxDelta 2 (LineRange 4), FirstLine 10; then a special opcode for
    // line +1 and address +2: 4 + (1 - -1) + 2 * 4 = 14; SetFile 2; AdvanceLine -3;
    // AdvancePC 5; EndSequence.
    let program = [0x7f, 0x02, 10, 14, 1, 2, 3, 0x7d, 2, 5, 0];
    let got = rows(&program, 0x1000);
    let row = |address, file, line| {
        Some(LineRow {
            address,
            file,
            line,
        })
    };
    assert_eq!(got.len, 2);
    assert_eq!(got.rows[0], row(0x1002, 1, 11));
    assert_eq!(got.rows[1], row(0x1007, 2, 8));
}

#[test]
fn llvm_14_answers_the_first_row_at_an_address() {
    // Rows at +0 (line 5), +0 (line 6), +4 (line 7): LineRange 2, MinDelta 0.
    let program = [0x00, 0x01, 5, 4, 5, 4 + 1 + 2 * 4, 0];
    let lookup = |addr| {
        LineProgram::new(&program, 0, program.len(), 0x100)
            .unwrap()
            .row_for(addr)
            .unwrap()
            .map(|r| r.line)
    };
    assert_eq!(lookup(0x100), Some(5));
    assert_eq!(lookup(0x103), Some(6));
    assert_eq!(lookup(0x104), Some(7));
    assert_eq!(lookup(0xff), None);
}

#[test]
fn special_opcode_without_line_range_is_an_error() {
    let program = [0x02, 0x01, 5, 4, 0];
    let mut p = LineProgram::new(&program, 0, program.len(), 0).unwrap();
    let e = p.next_row().unwrap_err();
    assert_eq!(e.offset, 3);
    assert!(matches!(e.kind, ErrorKind::Malformed(_)));
}
