//! Damaged and unusual GSYM files: each class of damage gives its error, with the
//! section and offset; the unusual-but-valid shapes give LLVM 14's answers.

use symblob::gsym::{section, GsymFile, LookupIndex, MAX_INLINE_DEPTH};
use symblob::{Error, ErrorKind};

use super::oracle::{gsym_fixture, lookups, GSYMUTIL};
use super::tiny::{gsym, line_table, nested_calls, node, uleb, Func, INL, MAIN};
use super::{agree, batched_answers, frames, our_answer};
use crate::common::{run_scratch_dir, tool};

fn llvm_file() -> Option<Vec<u8>> {
    Some(std::fs::read(gsym_fixture("c-gcc")?).expect("read gsym"))
}

fn parse_err(bytes: &[u8]) -> Error {
    GsymFile::parse(bytes).expect_err("damaged file must not parse")
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Where the tables of an LLVM-written little-endian file sit: (address table size,
/// info offsets, file table count field).
fn layout(bytes: &[u8]) -> (usize, usize, usize) {
    let count = u32_at(bytes, 16) as usize;
    let addresses = count * usize::from(bytes[6]);
    let infos = (48 + addresses).next_multiple_of(4);
    (addresses, infos, infos + 4 * count)
}

/// Answers of our reader and of the tool on a file put together here.
fn both_on(name: &str, bytes: &[u8], addrs: &[u64]) {
    if tool(GSYMUTIL).is_none() {
        return;
    }
    let path = run_scratch_dir("gsym-tiny").join(format!("{name}.gsym"));
    std::fs::write(&path, bytes).expect("write");
    let file = GsymFile::parse(bytes).expect("parse");
    for (addr, theirs) in addrs.iter().zip(lookups(&path, addrs)) {
        let ours = our_answer(&file, *addr);
        assert!(
            agree(&ours, &theirs),
            "{name} {addr:#x}: ours {ours:?}, theirs {theirs:?}"
        );
    }
    assert_index_agrees(name, &file, addrs);
}

/// Lookups through a [`LookupIndex`] answer as the file does, errors included.
fn assert_index_agrees(name: &str, file: &GsymFile<'_>, addrs: &[u64]) {
    let mut words = vec![0u64; LookupIndex::words_needed(file)];
    let index = LookupIndex::build(*file, &mut words).expect("the index builds");
    for &addr in addrs {
        let plain = file.lookup(addr).map(|l| l.map(|l| frames(&l)));
        let indexed = index.lookup(addr).map(|l| l.map(|l| frames(&l)));
        assert_eq!(indexed, plain, "{name} {addr:#x}");
    }
    // Batched: the addresses backwards and twice over, sorted whole, in pieces, or not.
    let mixed: Vec<u64> = addrs.iter().rev().chain(addrs).copied().collect();
    for scratch in [0, 1, 5, mixed.len()] {
        let batched = batched_answers(&index, &mixed, scratch);
        for (&addr, answer) in mixed.iter().zip(batched) {
            assert_eq!(
                answer,
                our_answer(file, addr),
                "{name} {addr:#x} batched ({scratch})"
            );
        }
    }
}

/// The lookup index on damaged files: a table or tree that does not decode whole is not
/// indexed, so its lookups fail as without the index; whole ones are indexed.
#[test]
fn gsym_lookup_index_leaves_damaged_tables_to_the_plain_lookup() {
    let one = |chunks| {
        gsym(&[Func {
            start: 0x1000,
            size: 0x100,
            name: MAIN,
            chunks,
        }])
    };
    let every_byte: Vec<u64> = (0xff0..0x1110).collect();
    let indexed = |bytes: &[u8]| {
        let file = GsymFile::parse(bytes).unwrap();
        let mut words = vec![0u64; LookupIndex::words_needed(&file)];
        let index = LookupIndex::build(file, &mut words).unwrap();
        (index.checkpoints(), index.inline_nodes())
    };
    // Whole: 64 rows make four checkpoints; three calls in `main`, two of them with a
    // call each (6 nodes), the first two stepped over for the addresses of the third.
    let mut calls = node(0, 0x10, INL, 1, Some(node(0, 8, INL, 2, None)));
    calls.extend(node(0x10, 0x10, INL, 3, Some(node(0, 8, INL, 4, None))));
    calls.extend(node(0x20, 0xe0, INL, 5, None));
    let tree = node(0, 0x100, MAIN, 0, Some(calls));
    let whole = one(vec![simple_lines(0x40), (2, tree)]);
    assert_eq!(indexed(&whole), (4, 6));
    assert_index_agrees("whole", &GsymFile::parse(&whole).unwrap(), &every_byte);
    // A chain one node deeper than a lookup may go: indexed (it decodes whole), and the
    // lookups that reach its end fail as they do without the index.
    let deep = one(vec![
        simple_lines(0x40),
        (2, nested_calls(MAX_INLINE_DEPTH + 1)),
    ]);
    assert_eq!(indexed(&deep), (4, MAX_INLINE_DEPTH + 1));
    assert!(GsymFile::parse(&deep).unwrap().lookup(0x10ff).is_err());
    assert_index_agrees("deep", &GsymFile::parse(&deep).unwrap(), &every_byte);
    // A line program cut before its end-sequence opcode: not indexed.
    let cut = one(vec![line_table(0, 1, 10, &[4; 20])]);
    assert_eq!(indexed(&cut), (0, 0));
    assert_index_agrees("cut", &GsymFile::parse(&cut).unwrap(), &every_byte);
    // Rows out of order (an address advance that wraps around): not indexed.
    let mut ops = vec![4; 20];
    ops.push(2);
    ops.extend(uleb(u64::MAX - 0x10));
    ops.extend([4; 20]);
    ops.push(0);
    let unsorted = one(vec![line_table(0, 1, 10, &ops)]);
    assert_eq!(indexed(&unsorted), (0, 0));
    assert_index_agrees(
        "unsorted",
        &GsymFile::parse(&unsorted).unwrap(),
        &every_byte,
    );
}

/// One row per address from `start`, lines 10, 11, …: special opcodes with deltas 0..=1.
fn simple_lines(rows: u8) -> (u32, Vec<u8>) {
    // Line range 2 (deltas 0 and 1): opcode 4 + delta + 2 * address advance.
    let mut ops = vec![4]; // the first row: address +0, line +0
    ops.extend(std::iter::repeat_n(4 + 1 + 2, usize::from(rows) - 1));
    ops.push(0);
    line_table(0, 1, 10, &ops)
}

#[test]
fn gsym_wrong_magic_and_swapped_byte_order() {
    let Some(bytes) = llvm_file() else {
        return;
    };
    let mut wrong = bytes.clone();
    wrong[..4].copy_from_slice(b"XSYM");
    let e = parse_err(&wrong);
    assert_eq!(
        (e.section, e.offset, e.kind),
        (section::HEADER, 0, ErrorKind::BadMagic)
    );
    // The magic of the other order makes every other field read swapped.
    let mut swapped = bytes.clone();
    swapped[..4].reverse();
    let e = parse_err(&swapped);
    assert_eq!(
        (e.offset, e.kind),
        (4, ErrorKind::UnsupportedVersion(0x100))
    );
    assert!(matches!(
        parse_err(&bytes[..30]).kind,
        ErrorKind::Truncated { needed: 48, .. }
    ));
}

#[test]
fn gsym_cut_tables() {
    let Some(bytes) = llvm_file() else {
        return;
    };
    let (addresses, infos, files) = layout(&bytes);
    for (cut, name, at) in [
        (48 + addresses / 2, section::ADDRESSES, 48),
        (infos + 2, section::INFO_OFFSETS, infos),
        (files + 2, section::FILES, files),
        (files + 6, section::FILES, files + 4),
    ] {
        let e = parse_err(&bytes[..cut]);
        assert_eq!((e.section, e.offset), (name, at as u64), "{e}");
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    }
    // Cut inside the last FunctionInfo: the header parses, that function fails.
    let file = GsymFile::parse(&bytes).unwrap();
    let last = file.function(file.len() - 1).unwrap();
    let cut = &bytes[..last.info_offset as usize + 6];
    let file = GsymFile::parse(cut).unwrap();
    let e = file.lookup(last.address).expect_err("cut record");
    assert_eq!(e.section, section::FUNCTION);
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }));
    assert!(file.validate().is_err());
}

#[test]
fn gsym_offsets_out_of_range() {
    let Some(bytes) = llvm_file() else {
        return;
    };
    let (_, infos, _) = layout(&bytes);
    let file = GsymFile::parse(&bytes).unwrap();
    let index = file.len() / 2;
    let address = file.address(index).unwrap();
    let mut bad = bytes.clone();
    let at = infos + 4 * index;
    bad[at..at + 4].copy_from_slice(&(bytes.len() as u32 + 16).to_le_bytes());
    let file = GsymFile::parse(&bad).unwrap();
    for e in [
        file.lookup(address).unwrap_err(),
        file.validate().unwrap_err(),
    ] {
        assert_eq!(
            (e.section, e.offset),
            (section::INFO_OFFSETS, at as u64),
            "{e}"
        );
        assert!(matches!(e.kind, ErrorKind::OutOfRange { .. }));
    }
    // A string table past the end: the error points at its offset field.
    let mut bad = bytes.clone();
    bad[20..24].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
    let e = parse_err(&bad);
    assert_eq!((e.section, e.offset), (section::STRINGS, 20));
    // A file entry naming a string past the string table: only validate sees it.
    let (_, _, files) = layout(&bytes);
    let mut bad = bytes.clone();
    bad[files + 12..files + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = GsymFile::parse(&bad).unwrap().validate().unwrap_err();
    assert_eq!((e.section, e.offset), (section::FILES, files as u64 + 12));
}

/// Inline trees: a chain of nested calls within the limit agrees with LLVM; one past
/// the limit is an error (LLVM recurses on, without a bound); a child outside its parent
/// fails validation.
#[test]
fn gsym_deep_inline_trees() {
    let file = |depth| {
        gsym(&[Func {
            start: 0x1000,
            size: 0x100,
            name: MAIN,
            chunks: vec![simple_lines(0x40), (2, nested_calls(depth))],
        }])
    };
    let within = file(symblob::gsym::MAX_INLINE_DEPTH);
    GsymFile::parse(&within).unwrap().validate().unwrap();
    both_on(
        "inline-deep",
        &within,
        &[0x1000, 0x1001, 0x1010, 0x1030, 0x1050, 0x10ff, 0x1100],
    );

    let beyond = file(symblob::gsym::MAX_INLINE_DEPTH + 1);
    let parsed = GsymFile::parse(&beyond).unwrap();
    let e = parsed.lookup(0x10ff).unwrap_err();
    assert_eq!(e.section, section::INLINE);
    assert!(matches!(e.kind, ErrorKind::Malformed(m) if m.contains("deeper")));
    assert_eq!(parsed.validate().unwrap_err().section, section::INLINE);

    // A child that reaches past its parent.
    let outside = node(0, 0x20, MAIN, 0, Some(node(0x10, 0x20, INL, 3, None)));
    let bytes = gsym(&[Func {
        start: 0x1000,
        size: 0x40,
        name: MAIN,
        chunks: vec![simple_lines(0x40), (2, outside)],
    }]);
    let e = GsymFile::parse(&bytes).unwrap().validate().unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::Malformed(m) if m.contains("outside")),
        "{e}"
    );
}

#[test]
fn gsym_bad_line_programs() {
    let with_lines = |chunk| {
        gsym(&[Func {
            start: 0x1000,
            size: 0x10,
            name: MAIN,
            chunks: vec![chunk],
        }])
    };
    // Minimum delta above the maximum: the special opcode has no line range.
    let bytes = with_lines(line_table(3, 1, 10, &[4, 0]));
    let e = GsymFile::parse(&bytes).unwrap().lookup(0x1000).unwrap_err();
    assert_eq!(e.section, section::LINE_TABLE);
    assert!(
        matches!(e.kind, ErrorKind::Malformed(m) if m.contains("line range")),
        "{e}"
    );
    // No end-sequence opcode: the program runs out of bytes.
    let bytes = with_lines(line_table(0, 1, 10, &[4, 7, 7]));
    let file = GsymFile::parse(&bytes).unwrap();
    assert!(
        file.lookup(0x1000).is_ok(),
        "rows before the cut still answer"
    );
    let e = file.validate().unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    // An over-long ULEB128 operand.
    let mut ops = vec![2];
    ops.extend([0x80; 11]);
    let bytes = with_lines(line_table(0, 1, 10, &ops));
    let e = GsymFile::parse(&bytes).unwrap().lookup(0x1000).unwrap_err();
    assert_eq!(e.section, section::LINE_TABLE);
    // A file index past the file table.
    let mut ops = vec![1];
    ops.extend(uleb(9));
    ops.extend([4, 0]);
    let bytes = with_lines(line_table(0, 1, 10, &ops));
    let e = GsymFile::parse(&bytes).unwrap().lookup(0x1000).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfRange { value: 9, limit: 2 });
}

/// Valid shapes LLVM's converter does not write, answered as LLVM 14 answers them:
/// several entries at one address, a chunk of unknown type, a function without a size,
/// an address before the line table's first row, a name offset of 0.
#[test]
fn gsym_unusual_shapes_match_llvm() {
    let lines = simple_lines(0x10);
    let late_lines = line_table(0, 1, 20, &[2, 8, 0]); // the first row at +8
    let bytes = gsym(&[
        Func {
            start: 0x1000,
            size: 0x10,
            name: MAIN,
            chunks: vec![lines.clone()],
        },
        Func {
            start: 0x1000,
            size: 0x40,
            name: INL,
            chunks: vec![(9, vec![1, 2, 3]), lines.clone()],
        },
        Func {
            start: 0x2000,
            size: 0,
            name: INL,
            chunks: vec![],
        },
        Func {
            start: 0x3000,
            size: 0x10,
            name: MAIN,
            chunks: vec![late_lines],
        },
        Func {
            start: 0x4000,
            size: 0x10,
            name: 0,
            chunks: vec![lines],
        },
    ]);
    let file = GsymFile::parse(&bytes).unwrap();
    assert!(file.validate().is_err(), "name offset 0");
    let addrs = [
        0xfff, 0x1000, 0x1008, 0x100f, 0x1010, 0x1020, 0x1040, 0x2000, 0x2fff, 0x3000, 0x3008,
        0x300f, 0x4000, 0x4010,
    ];
    both_on("unusual", &bytes, &addrs);
    // The unknown chunk is skipped by lookups and accepted by validate.
    let ok = gsym(&[Func {
        start: 0x1000,
        size: 0x40,
        name: INL,
        chunks: vec![(9, vec![1]), simple_lines(4)],
    }]);
    GsymFile::parse(&ok).unwrap().validate().unwrap();
    // An unsorted address table.
    let unsorted = gsym(&[
        Func {
            start: 0x2000,
            size: 0x10,
            name: MAIN,
            chunks: vec![],
        },
        Func {
            start: 0x1000,
            size: 0x10,
            name: MAIN,
            chunks: vec![],
        },
    ]);
    let e = GsymFile::parse(&unsorted).unwrap().validate().unwrap_err();
    assert_eq!(
        (e.section, e.offset, e.kind),
        (section::ADDRESSES, 56, ErrorKind::Unsorted)
    );
    // Lookups on it follow the binary search, batched ones too.
    let every: Vec<u64> = (0xff0..0x1020).chain(0x1ff0..0x2020).collect();
    assert_index_agrees(
        "unsorted table",
        &GsymFile::parse(&unsorted).unwrap(),
        &every,
    );
}
