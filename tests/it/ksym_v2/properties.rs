//! Generated symbol sets: v2 answers as v1, and as a plain model where v1 cannot hold the
//! names (longer than 65,535 bytes).

use std::collections::BTreeMap;

use proptest::prelude::*;
use symblob::ksym::{v2, TextRanges};
use symblob_build::ksym::{build, NameHash, Symbol};

use super::{both_with, same_answers, sweep, v2_options};

/// Names built from a few shared parts, so that front coding, codes and equal names all
/// occur; types from a small set; addresses with aliases and gaps of every size.
fn symbol_sets() -> impl Strategy<Value = Vec<Symbol>> {
    let part = prop::sample::select(vec![
        "a",
        "ab",
        "abc",
        "_",
        "__x64_sys_",
        "do_",
        "fork",
        "ü",
        "ext4_",
        "::",
        "<T>",
        "z",
    ]);
    let name = prop::collection::vec(part, 1..6).prop_map(|parts| parts.concat());
    let kind = prop::sample::select(vec![b'T', b't', b'W', b'D']);
    let gap = prop_oneof![Just(0u64), 1u64..16, 16u64..5000, Just(1u64 << 33)];
    prop::collection::vec((gap, kind, name), 1..300).prop_map(|rows| {
        let mut address = 0xffff_ffff_8100_0000u64;
        rows.into_iter()
            .map(|(gap, kind, name)| {
                address = address.wrapping_add(gap);
                Symbol {
                    address,
                    kind,
                    name,
                }
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn generated_sets_v2_answers_as_v1(symbols in symbol_sets(), hashed in any::<bool>()) {
        let name_hash = if hashed { NameHash::Always } else { NameHash::Never };
        let (v1, v2) = both_with(&symbols, name_hash);
        let mut stored: Vec<u64> = symbols.iter().map(|s| s.address).collect();
        stored.sort_unstable();
        stored.dedup();
        let (first, last) = (stored[0], *stored.last().unwrap());
        let ranges = [first..last.saturating_add(32)];
        let queries = sweep(&stored, 0, &[first.saturating_sub(4)..first + 300]);
        same_answers("generated", &v1.bytes, &v2.bytes, &ranges, 0, &queries);
    }
}

#[test]
fn names_longer_than_v1_allows_round_trip() {
    // Lengths around the one-byte shape limit and far past v1's u16 limit, sharing long
    // prefixes so that lcp itself needs the escaped header.
    let long = "x".repeat(70_000);
    let names = [
        format!("{long}a"),
        format!("{long}b"),
        format!("{}c", "x".repeat(300)),
        "short".to_string(),
        format!("{long}{}", "y".repeat(300)),
    ];
    let symbols: Vec<Symbol> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Symbol {
            address: 0x1000 + 0x10 * i as u64,
            kind: b'T',
            name: name.clone(),
        })
        .collect();
    let built = build(&symbols, &v2_options()).expect("v2 takes names of any length");
    let blob = v2::Blob::parse(&built.bytes).unwrap();
    let model: BTreeMap<&str, u64> = symbols
        .iter()
        .map(|s| (s.name.as_str(), s.address))
        .collect();
    let by_name: Vec<(String, u64)> = blob
        .symbols_by_name()
        .map(|e| (e.name.to_string(), e.address))
        .collect();
    let expected: Vec<(String, u64)> = model.iter().map(|(n, a)| (n.to_string(), *a)).collect();
    assert_eq!(by_name, expected);
    for (name, address) in &model {
        assert_eq!(blob.lookup_name(name), Some(*address));
        let mut buf = vec![0u8; name.len()];
        assert_eq!(
            blob.lookup_name_all(name)
                .next()
                .unwrap()
                .name
                .copy_to(&mut buf),
            Ok(name.len())
        );
        assert_eq!(buf, name.as_bytes());
    }
    let ksyms = v2::Ksyms::new(blob, TextRanges::single(0x1000, 0x1100).unwrap());
    let symbol = ksyms.lookup_address(0x1013).unwrap();
    assert_eq!(symbol.to_string(), format!("{}+0x3/0x10", names[1]));
}

/// Found by `ksym_parse`: a blob that opens but does not validate, whose entries claim to
/// share more bytes with the previous name than it has. Every accessor of every name must
/// still agree with the others (the length once counted bytes the name does not give).
#[test]
fn names_of_a_blob_that_does_not_validate_agree_with_themselves() {
    let bytes = std::fs::read(crate::common::testdata(
        "fuzz-regressions/ksym_v2/lcp-past-previous-name.bin",
    ))
    .unwrap();
    let blob = v2::Blob::open(&bytes).expect("the layout is sound");
    assert!(blob.validate().is_err(), "the entries are not");
    assert!(!blob.is_empty());
    for entry in blob.symbols().chain(blob.symbols_by_name()) {
        let name = entry.name;
        let decoded: Vec<u8> = name.bytes().collect();
        assert_eq!(name.len(), decoded.len());
        let mut buf = vec![0u8; name.len()];
        assert_eq!(name.copy_to(&mut buf), Ok(decoded.len()));
        assert_eq!(buf, decoded);
        assert!(name == decoded[..]);
    }
}
