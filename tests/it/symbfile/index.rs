//! The builder's symbfile index against the reader's sweep, the tested lookup: on every
//! address of dense sweeps over the records of symblib's files, of files built from the
//! test ELFs, and of random record sets, the index answers exactly what the sweep answers
//! (the same ranges in the same order, the same truncation, the same return pad).

use std::collections::BTreeSet;
use std::path::Path;

use proptest::prelude::*;
use symblob::symbfile::{Range, SymbFile};
use symblob_build::extract::{ranges, ExtractOptions};
use symblob_build::retpads::return_pads;
use symblob_build::symbfile::index::SymbfileIndex;
use symblob_build::symbfile::{
    decode, LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord, SymbfileWriter, WriterOptions,
};

use crate::common::{files_ending_in, shared_testdata, testdata};

/// Bytes swept per file at most (each probe sweeps the whole file, slowly in a test
/// build): a small file is probed at every address, a large one at fewer.
const SWEPT_BYTES: usize = 64 << 20;

/// The addresses to probe in a file of `size` bytes: every address each record covers
/// and the one on each side (gaps and neighbours), each return pad's and its
/// neighbours'; or, when those are too many to sweep for, each record's first, second,
/// middle, last and outside addresses, evenly thinned.
fn probes(records: &[Record], size: usize) -> Vec<u64> {
    let limit = (SWEPT_BYTES / size.max(1)).max(300);
    let mut dense = BTreeSet::new();
    let mut sparse = BTreeSet::new();
    for r in records {
        let (va, end) = match r {
            Record::Range(r) => (r.va, r.va.saturating_add(r.length)),
            Record::ReturnPad(p) => (p.va, p.va.saturating_add(1)),
        };
        let last = end.saturating_sub(1).max(va);
        sparse.extend([
            va.wrapping_sub(1),
            va,
            va.saturating_add(1),
            va + (last - va) / 2,
        ]);
        sparse.extend([last, end]);
        if dense.len() <= limit {
            dense.extend(va.saturating_sub(1)..=end.min(va.saturating_add(limit as u64)));
        }
    }
    if dense.len() <= limit {
        return dense.into_iter().collect();
    }
    let step = sparse.len().div_ceil(limit).max(1);
    sparse.into_iter().step_by(step).collect()
}

/// A return pad as compared: offset, VA and entries.
fn pad_of(p: symblob::symbfile::ReturnPad<'_, '_>) -> (u64, ReturnPadRecord) {
    (p.offset, ReturnPadRecord::from(&p))
}

/// The batched lookups' answers to `addrs` with room for `room` frames: for each address,
/// the number of covering records and the frames kept.
fn batched<'a>(
    index: &SymbfileIndex<'a>,
    addrs: &[u64],
    room: usize,
) -> Vec<(u64, usize, Vec<Range<'a>>)> {
    let mut out = vec![Range::EMPTY; room];
    let mut answers = Vec::new();
    index
        .lookup_ranges_each(addrs, &mut out, |addr, found, kept| {
            answers.push((addr, found, kept.to_vec()));
            Ok(())
        })
        .unwrap();
    answers
}

/// Asserts that the index of `bytes` answers each of `addrs` as the sweep does, one
/// address at a time and batched, with room for every frame and with room for one;
/// returns how many addresses had an answer.
fn assert_index_is_the_sweep(name: &str, bytes: &[u8], addrs: &[u64]) -> usize {
    let file = SymbFile::parse(bytes).unwrap();
    let index = SymbfileIndex::new(file).unwrap();
    let mut scratch = vec![""; 1 << 12];
    let mut answered = 0;
    let (all, first) = (batched(&index, addrs, 256), batched(&index, addrs, 1));
    assert_eq!(
        (all.len(), first.len()),
        (addrs.len(), addrs.len()),
        "{name}: batched answers"
    );
    for (i, &addr) in addrs.iter().enumerate() {
        let mut swept = vec![Range::EMPTY; 256];
        let mut indexed = vec![Range::EMPTY; 256];
        let n = file.lookup_ranges(addr, &mut scratch, &mut swept).unwrap();
        let m = index.lookup_ranges(addr, &mut indexed).unwrap();
        assert_eq!(m, n, "{name} at {addr:#x}: covering records");
        assert_eq!(indexed, swept, "{name} at {addr:#x}: frames");
        let kept = &swept[..n.min(256)];
        assert_eq!(
            (all[i].0, all[i].1, &all[i].2[..]),
            (addr, n, kept),
            "{name} at {addr:#x}: batched"
        );
        // With room for one frame: the first covering record in file order. A sweep
        // with that room is needed only when it may differ from the one above.
        let mut one = [Range::EMPTY; 1];
        assert_eq!(index.lookup_ranges(addr, &mut one).unwrap(), n);
        if n > 1 {
            file.lookup_ranges(addr, &mut scratch, &mut swept[..1])
                .unwrap();
        }
        assert_eq!(one[0], swept[0], "{name} at {addr:#x}: room for one frame");
        let kept = &swept[..n.min(1)];
        assert_eq!(
            (first[i].1, &first[i].2[..]),
            (n, kept),
            "{name} at {addr:#x}: batched, room for one"
        );
        let swept = file
            .lookup_return_pad(addr, &mut scratch)
            .unwrap()
            .map(pad_of);
        let indexed = index.lookup_return_pad(addr).unwrap().map(pad_of);
        assert_eq!(indexed, swept, "{name} at {addr:#x}: return pad");
        answered += usize::from(n > 0 || swept.is_some());
    }
    answered
}

fn check_file(name: &str, bytes: &[u8]) {
    let addrs = probes(&decode(bytes).unwrap(), bytes.len());
    let answered = assert_index_is_the_sweep(name, bytes, &addrs);
    assert!(answered > 0, "{name}: no address answered");
}

#[test]
fn symbfile_index_answers_symblib_files_as_the_sweep() {
    let dir = testdata("symbfile/symblib");
    let files = files_ending_in(&dir, ".symbfile");
    assert!(files.len() >= 6);
    for (path, name) in files {
        check_file(&name, &std::fs::read(path).unwrap());
    }
}

#[test]
fn symbfile_index_answers_shared_symblib_and_upstream_files_as_the_sweep() {
    let mut rels = vec!["symbfile/upstream/inl.symbfile".to_owned()];
    for elf in ["inl", "simple", "libdemo.so", "gohello"] {
        for kind in ["ranges", "retpads"] {
            rels.push(format!("symbfile/symblib/{elf}.{kind}.symbfile"));
        }
    }
    for rel in rels {
        let Some(path) = shared_testdata(&rel) else {
            return;
        };
        check_file(&rel, &std::fs::read(path).unwrap());
    }
}

/// The records `symblob symbfile build --return-pads` makes of `elf`.
fn built(elf: &Path) -> (Vec<Record>, Vec<Record>) {
    let ranges = ranges(elf, &ExtractOptions::default()).unwrap().records;
    let pads = return_pads(elf, &ranges).unwrap();
    (
        ranges.into_iter().map(Record::Range).collect(),
        pads.into_iter().map(Record::ReturnPad).collect(),
    )
}

fn write(records: &[Record], window_records: usize) -> Vec<u8> {
    let mut writer = SymbfileWriter::with_options(WriterOptions { window_records });
    for r in records {
        writer.add(r).unwrap();
    }
    writer.finish().unwrap()
}

/// An address covered by more records than a lookup collects before decoding (deep
/// inlining, or identical ranges), beside ordinary ones, looked up one at a time and
/// batched: the same answers as the sweep.
#[test]
fn symbfile_index_answers_deeply_covered_addresses_as_the_sweep() {
    let mut records: Vec<Record> = (0..100u32)
        .map(|depth| {
            Record::Range(RangeRecord {
                va: 0x1000 + u64::from(depth % 50),
                length: 0x100 - u64::from(depth % 50) * 2,
                func: format!("f{depth}"),
                depth,
                ..RangeRecord::default()
            })
        })
        .collect();
    records.push(Record::Range(RangeRecord {
        va: 0x2000,
        length: 4,
        func: "g".into(),
        ..RangeRecord::default()
    }));
    let bytes = write(&records, 8);
    let addrs: Vec<u64> = (0xff0..0x1110).chain(0x1ff0..0x2010).collect();
    assert_index_is_the_sweep("deep", &bytes, &addrs);
}

#[test]
fn symbfile_index_answers_files_built_from_the_test_elfs_as_the_sweep() {
    for elf in ["inl", "simple", "simple-highva", "libdemo.so", "gohello"] {
        let (ranges, pads) = built(&testdata(&format!("lidia/elf/{elf}")));
        assert!(!ranges.is_empty() && !pads.is_empty(), "{elf}");
        // As `symbfile build` writes them, and both kinds in one file with a string table
        // every 7 records (records resolve in the table before them, not the last one).
        check_file(&format!("{elf}.ranges"), &write(&ranges, 1 << 18));
        check_file(&format!("{elf}.retpads"), &write(&pads, 1 << 18));
        let both: Vec<Record> = ranges.iter().chain(&pads).cloned().collect();
        check_file(&format!("{elf} ranges and pads"), &write(&both, 7));
    }
}

#[test]
fn symbfile_index_fails_where_the_sweep_fails() {
    // A string table ["f.c"], a range whose funcRef 5 is past it at 0x1000, and a good
    // range "ok" at 0x2000.
    let mut bytes = b"symbfile\x00\x01\x05\x04\x0a\x03f.c".to_vec();
    bytes.extend(b"\x07\x02\x60\x80\x20\x10\x20\x48\x05");
    bytes.extend(b"\x09\x02\x60\x80\x40\x10\x10\x1a\x02ok");
    let file = SymbFile::parse(&bytes).unwrap();
    let index = SymbfileIndex::new(file).unwrap();
    let mut out = [Range::EMPTY; 4];
    let swept = file.lookup_ranges(0x1000, &mut [], &mut out).unwrap_err();
    let indexed = index.lookup_ranges(0x1000, &mut out).unwrap_err();
    assert_eq!(
        indexed.location(),
        symblob_build::Location::Offset(swept.offset)
    );
    assert_eq!(index.lookup_ranges(0x2004, &mut out).unwrap(), 1);
    assert_eq!(out[0].func, "ok");
    // A file the sweep cannot read at any address cannot be indexed, at the same offset.
    for cut in 1..bytes.len() - 14 {
        let truncated = &bytes[..bytes.len() - cut];
        let file = SymbFile::parse(truncated).unwrap();
        let swept = file.lookup_ranges(0x2004, &mut [], &mut out);
        match SymbfileIndex::new(file) {
            Ok(_) => assert!(swept.is_ok(), "cut {cut}"),
            Err(e) => assert_eq!(
                e.location(),
                symblob_build::Location::Offset(swept.unwrap_err().offset)
            ),
        }
    }
}

const NAMES: [&str; 5] = ["main", "f", "a::b<T>", "é", "/src/x.c"];

fn range_record() -> impl Strategy<Value = Record> {
    (
        prop_oneof![4 => 0u64..240, 1 => (u64::MAX - 40)..=u64::MAX],
        prop_oneof![1 => Just(0u64), 6 => 1u64..48, 1 => Just(u64::MAX)],
        (
            0usize..5,
            prop::option::of(0usize..5),
            prop::option::of(0usize..5),
        ),
        (0u32..4, prop::option::of(1u32..90)),
        prop::collection::vec((0u32..6, 1u32..200), 0..4),
    )
        .prop_map(
            |(va, length, (func, file, call_file), (depth, call_line), rows)| {
                let mut offset = 0;
                let lines = rows
                    .into_iter()
                    .map(|(step, line)| {
                        offset += step;
                        LineRow { offset, line }
                    })
                    .collect();
                Record::Range(RangeRecord {
                    va,
                    length,
                    func: NAMES[func].into(),
                    file: file.map(|i| NAMES[i].into()),
                    call_file: call_file.map(|i| NAMES[i].into()),
                    call_line,
                    depth,
                    lines,
                })
            },
        )
}

fn pad_record() -> impl Strategy<Value = Record> {
    (
        0u64..240,
        prop::collection::vec((0usize..5, prop::option::of(0usize..5), 0u32..9), 0..3),
    )
        .prop_map(|(va, entries)| {
            Record::ReturnPad(ReturnPadRecord {
                va,
                entries: entries
                    .into_iter()
                    .map(|(func, file, line)| PadEntry {
                        func: NAMES[func].into(),
                        file: file.map(|i| NAMES[i].into()),
                        line: (line != 0).then_some(line),
                    })
                    .collect(),
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Random records in any order (overlapping, nested, identical, empty, reaching the
    /// top of the address space, pads sharing a VA), in windows of any size: the same
    /// answer at every address of the space and at its top.
    #[test]
    fn symbfile_index_answers_random_record_sets_as_the_sweep(
        records in prop::collection::vec(prop_oneof![3 => range_record(), 1 => pad_record()], 0..40),
        window in 1usize..9,
    ) {
        let bytes = write(&records, window);
        let addrs: Vec<u64> = (0..300).chain((u64::MAX - 50)..=u64::MAX).collect();
        assert_index_is_the_sweep("random", &bytes, &addrs);
    }
}
