//! Our records against symblib's decoded output for four Lidia test ELFs
//! (`shared/testdata/symbfile/symblib/`, normalised one line a record as its README shows).
//! Every record symblib wrote must be ours too; our extra records must be exactly the
//! inline records symblib lost to split functions (its statistics count them as
//! `unexpected_inline_children`).

use std::collections::{BTreeMap, BTreeSet};

use symblob_build::extract::{
    ranges, ranges_from_bytes, ExtractOptions, RangeRecord, ReturnPadRecord,
};
use symblob_build::retpads::{return_pads, return_pads_from_bytes};
use symblob_build::symbfile::{text, Record};

use crate::common::{shared_testdata, testdata};

/// The README's line for a range record.
fn range_line(r: &RangeRecord) -> String {
    text::line(&Record::Range(r.clone()))
}

/// The README's line for a return pad.
fn pad_line(p: &ReturnPadRecord) -> String {
    text::line(&Record::ReturnPad(p.clone()))
}

fn multiset(lines: impl IntoIterator<Item = String>) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for l in lines {
        *m.entry(l).or_insert(0) += 1;
    }
    m
}

/// `unexpected_inline_children` of symblib's DWARF source.
fn lost_by_symblib(stats: &str) -> usize {
    let line = stats
        .lines()
        .find(|l| l.contains("extractor=dwarf"))
        .expect("dwarf stats line");
    let field = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("unexpected_inline_children="))
        .expect("count");
    field.parse().unwrap()
}

/// For each record, the index of the depth-0 record it follows.
fn tops(records: &[RangeRecord]) -> Vec<usize> {
    let mut top = 0;
    records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.depth == 0 {
                top = i;
            }
            top
        })
        .collect()
}

/// Whether depth-0 record `i` is an earlier piece of a function split at a file change:
/// a later depth-0 record of the same function starts where it ends.
fn is_earlier_piece(records: &[RangeRecord], i: usize) -> bool {
    let r = &records[i];
    records[i + 1..]
        .iter()
        .find(|n| n.depth == 0)
        .is_some_and(|n| n.func == r.func && n.va == r.end())
}

fn check(elf: &str) {
    let Some(dir) = shared_testdata("symbfile/symblib") else {
        return;
    };
    let bin = testdata(&format!("lidia/elf/{elf}"));
    let ours = ranges(&bin, &ExtractOptions::default()).unwrap();
    let records = &ours.records;
    let want_ranges = std::fs::read_to_string(dir.join(format!("{elf}.ranges.txt"))).unwrap();
    let stats = std::fs::read_to_string(dir.join(format!("{elf}.ranges.stats"))).unwrap();
    let want = multiset(want_ranges.lines().map(str::to_string));
    let mut have = multiset(records.iter().map(range_line));
    for (line, n) in &want {
        let got = have.get(line).copied().unwrap_or(0);
        assert!(
            got >= *n,
            "{elf}: symblib's record missing ({got} of {n}): {line}"
        );
        *have.get_mut(line).unwrap() -= n;
    }
    // What is left must be inline records following an earlier piece of a split function.
    let top = tops(records);
    let mut extra_ranges = 0;
    let mut lost_pieces = BTreeSet::new();
    for (i, r) in records.iter().enumerate() {
        let line = range_line(r);
        let Some(n) = have.get_mut(&line).filter(|n| **n > 0) else {
            continue;
        };
        *n -= 1;
        assert!(r.depth > 0, "{elf}: extra depth-0 record {line}");
        assert!(
            is_earlier_piece(records, top[i]),
            "{elf}: extra record not inside an earlier piece of a split function: {line}"
        );
        lost_pieces.insert(top[i]);
        extra_ranges += 1;
    }
    assert_eq!(
        extra_ranges,
        lost_by_symblib(&stats),
        "{elf}: our extra inline records against symblib's count of lost ones"
    );
    let split: BTreeSet<&str> = lost_pieces
        .iter()
        .map(|&i| records[i].func.as_str())
        .collect();
    eprintln!(
        "{elf}: {} records, all {} of symblib's plus {extra_ranges} inline records it lost \
         in {} earlier pieces of these split functions: {split:?}",
        records.len(),
        want.values().sum::<usize>(),
        lost_pieces.len(),
    );

    // Return pads: every pad of symblib's, unless it lies in a piece whose inline records
    // symblib lost: there ours carries the full inline chain where symblib's has one level.
    let pads = return_pads(&bin, records).unwrap();
    let want_pads = std::fs::read_to_string(dir.join(format!("{elf}.retpads.txt"))).unwrap();
    let ours_by_va: BTreeMap<u64, &ReturnPadRecord> = pads.iter().map(|p| (p.va, p)).collect();
    assert_eq!(ours_by_va.len(), pads.len(), "{elf}: one pad per address");
    let lost_ranges: Vec<(u64, u64)> = lost_pieces
        .iter()
        .map(|&i| (records[i].va, records[i].end()))
        .collect();
    let mut improved = 0;
    let mut want_vas = BTreeSet::new();
    for line in want_pads.lines() {
        let va = u64::from_str_radix(line[7..].split(' ').next().unwrap(), 16).unwrap();
        want_vas.insert(va);
        let ours = ours_by_va
            .get(&va)
            .unwrap_or_else(|| panic!("{elf}: pad missing: {line}"));
        if pad_line(ours) == line {
            continue;
        }
        // The call (at most 15 bytes before the pad) lies in a piece symblib stripped.
        assert!(
            lost_ranges.iter().any(|&(s, e)| va >= s && va < e + 15),
            "{elf}: pad differs outside the pieces symblib stripped:\n ours {}\n want {line}",
            pad_line(ours)
        );
        assert!(ours.entries.len() > 1, "{elf}: {}", pad_line(ours));
        improved += 1;
    }
    for p in &pads {
        assert!(
            want_vas.contains(&p.va),
            "{elf}: pad symblib has not: {}",
            pad_line(p)
        );
    }
    eprintln!(
        "{elf}: {} pads, {improved} with the inline chain symblib lost",
        pads.len()
    );
}

#[test]
fn inl_matches_symblib() {
    check("inl");
}

#[test]
fn simple_matches_symblib() {
    check("simple");
}

#[test]
fn libdemo_matches_symblib() {
    check("libdemo.so");
}

#[test]
fn gohello_matches_symblib_and_keeps_the_inline_records_it_lost() {
    check("gohello");
}

/// The in-memory entry point gives what the path one gives (the ELF carries its DWARF).
#[test]
fn bytes_and_path_agree() {
    let bin = testdata("lidia/elf/simple");
    let data = std::fs::read(&bin).unwrap();
    let options = ExtractOptions::default();
    let from_path = ranges(&bin, &options).unwrap().records;
    let from_bytes = ranges_from_bytes(&data, "simple", &options)
        .unwrap()
        .records;
    assert!(!from_path.is_empty());
    assert_eq!(from_path, from_bytes);
}

/// Return pads are made for x86-64 and aarch64 only: another machine is an error naming
/// the file, not an empty result.
#[test]
fn other_architectures_are_refused() {
    let bin = testdata("lidia/elf/simple");
    let mut data = std::fs::read(&bin).unwrap();
    let records = ranges(&bin, &ExtractOptions::default()).unwrap().records;
    // e_machine (ELF64 little-endian, offset 18) := EM_RISCV (243).
    data[18..20].copy_from_slice(&243u16.to_le_bytes());
    let err = return_pads_from_bytes(&data, "simple-riscv", &records)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("simple-riscv") && err.contains("x86-64 and aarch64"),
        "{err}"
    );
}
