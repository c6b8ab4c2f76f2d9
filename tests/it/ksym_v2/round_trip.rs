//! v2 against v1 on real symbol lists and on every input of the test data.

use symblob::ksym::KsymBlob;
use symblob_build::ksym::{InputOptions, NameHash};
use symblob_build::text::{detect_format, parse_input};

use super::{both_with, kernel_symbols, same_answers, sweep};
use crate::common::{files_ending_in, testdata};

/// Every stored address of a v1 blob.
fn addresses(bytes: &[u8]) -> Vec<u64> {
    KsymBlob::parse(bytes)
        .unwrap()
        .symbols()
        .map(|e| e.address)
        .collect()
}

#[test]
fn kernel_v2_answers_as_v1() {
    kernel_answers_as_v1(NameHash::Auto);
}

#[test]
fn kernel_v2_with_the_name_hash_answers_as_v1() {
    kernel_answers_as_v1(NameHash::Always);
}

fn kernel_answers_as_v1(name_hash: NameHash) {
    let symbols = kernel_symbols();
    assert_eq!(symbols.len(), 46_471);
    let (v1, v2) = both_with(&symbols, name_hash);
    // The builder leaves the index out of the kernel's blob (its restart keys differ).
    assert_eq!(v2.bytes[43] != 0, name_hash == NameHash::Always);
    let stored = addresses(&v1.bytes);
    let (first, last) = (stored[0], *stored.last().unwrap());
    // Two ranges with a hole, a KASLR-like bias, and dense windows at the start, in the
    // middle, around the hole and at the end.
    let bias = 0x1a0_0000;
    let middle = first + (last - first) / 2;
    let ranges = [
        first + bias..middle + bias,
        middle + 0x100 + bias..last + 0x1000 + bias,
    ];
    let dense = [
        first - 64..first + 0x1000,
        middle - 0x800..middle + 0x800,
        last - 0x1000..last + 0x1100,
    ];
    let queries = sweep(&stored, bias, &dense);
    same_answers("kernel", &v1.bytes, &v2.bytes, &ranges, bias, &queries);
}

#[test]
fn every_test_input_v2_answers_as_v1() {
    let inputs = files_ending_in(&testdata("ksym/input"), "");
    assert!(inputs.len() >= 10, "{inputs:?}");
    for (path, name) in inputs {
        let bytes = std::fs::read(&path).unwrap();
        let format = detect_format(&bytes);
        let Ok(list) = parse_input(&bytes, format, &name, &InputOptions::default()) else {
            continue; // inputs the builder refuses are tested by the builder's own tests
        };
        if list.symbols.is_empty() {
            continue;
        }
        if list.symbols.iter().any(|s| s.name.len() > 65_535) {
            continue; // v1 cannot hold it; v2's long names are checked in properties.rs
        }
        for name_hash in [NameHash::Always, NameHash::Never] {
            let (v1, v2) = both_with(&list.symbols, name_hash);
            let stored = addresses(&v1.bytes);
            let (first, last) = (stored[0], *stored.last().unwrap());
            let span = (last - first).min(1 << 12);
            let queries = sweep(&stored, 0, &[first.saturating_sub(16)..first + span + 32]);
            let ranges = [first..last.saturating_add(64).max(first + 1)];
            let label = format!("{name} ({name_hash:?})");
            same_answers(&label, &v1.bytes, &v2.bytes, &ranges, 0, &queries);
        }
    }
}
