//! `KsymBlob::parse_trusted`: the O(1) open. On every blob `parse` accepts it must give
//! the same answers everywhere; on every blob `parse` rejects for its entries it must
//! still open, keep every accessor total, and let `validate` report exactly the error
//! `parse` reports.

use proptest::prelude::*;
use symblob::ksym::{KsymBlob, Ksyms, TextRanges};

use super::corrupt::exercise;
use super::support::{origin, origin_stems, read};
use crate::common::testdata;

/// Everything a caller can ask of a blob, as text: the dump, both iterations, every
/// stored name's lookups and address lookups at, just before and inside every symbol.
fn answers(blob: KsymBlob<'_>) -> String {
    let mut out = String::new();
    blob.dump(&mut out).unwrap();
    let ksyms = Ksyms::new(blob, TextRanges::single(0, u64::MAX).unwrap());
    let starts: Vec<u64> = blob.symbols().map(|e| e.address.wrapping_add(1)).collect();
    ksyms.lookup_address_each(&starts, |i, s| {
        assert_eq!(s, ksyms.lookup_address(starts[i]))
    });
    for e in blob.symbols_by_name() {
        let name = e.name.to_string();
        let all: Vec<u64> = blob.lookup_name_all(&name).map(|e| e.address).collect();
        out += &format!("{name} {:?} {all:?}\n", blob.lookup_name(&name));
        for a in [
            e.address.wrapping_sub(1),
            e.address,
            e.address.wrapping_add(1),
        ] {
            let s = ksyms.lookup_address(a).map(|s| s.to_string());
            let r = ksyms.lookup_return_address(a).map(|s| s.to_string());
            out += &format!("{a:#x} {s:?} {r:?}\n");
        }
    }
    out
}

#[test]
fn origin_blobs_give_the_same_answers_as_parse() {
    for stem in origin_stems() {
        let bytes = read(origin(&format!("{stem}.bin")));
        let full = KsymBlob::parse(&bytes).unwrap();
        let trusted = KsymBlob::parse_trusted(&bytes).unwrap();
        assert_eq!(trusted.len(), full.len(), "{stem}");
        assert_eq!(trusted.used_size(), full.used_size(), "{stem}");
        assert_eq!(trusted.validate(), full.validate(), "{stem}");
        assert_eq!(answers(trusted), answers(full), "{stem}");
    }
}

/// Checks one blob: `parse_trusted` either fails as `parse` does (a layout error), or
/// opens, and then `validate` gives `parse`'s verdict. Returns whether the trusted open
/// succeeded where `parse` failed.
fn check(bytes: &[u8], what: &str) -> bool {
    match (KsymBlob::parse(bytes), KsymBlob::parse_trusted(bytes)) {
        (Ok(full), Ok(trusted)) => {
            assert_eq!(trusted.validate(), full.validate(), "{what}");
            assert_eq!(answers(trusted), answers(full), "{what}");
            false
        }
        (Err(e), Err(t)) => {
            assert_eq!(t, e, "{what}");
            false
        }
        (Err(e), Ok(trusted)) => {
            assert_eq!(trusted.validate(), Err(e), "{what}");
            exercise(trusted);
            true
        }
        (Ok(_), Err(t)) => panic!("{what}: parse accepts, parse_trusted rejects: {t}"),
    }
}

#[test]
fn corrupt_blobs_open_and_validate_reports_what_parse_rejects() {
    let mut opened_despite_parse = 0;
    for entry in std::fs::read_dir(testdata("ksym/corrupt")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = read(path.clone());
        opened_despite_parse += usize::from(check(&bytes, &path.display().to_string()));
    }
    // The corrupt set covers both kinds of rejection: some are layout errors, and these
    // many are entry errors that only validate finds after a trusted open.
    assert!(opened_despite_parse >= 5, "{opened_despite_parse}");
}

/// A blob (found by fuzzing) whose third record starts past the end of `names`: parse
/// rejects it; after a trusted open that symbol reads as type `?` with an empty name, and
/// address-order iteration still yields all three symbols.
#[test]
fn a_record_outside_names_reads_as_an_unknown_empty_symbol() {
    let bytes: &[u8] = b"\x03\0\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x11\0\0\0\0\0\0\0\x12\0\0\0\0\0\0\
        \0\0\0\0\x09\0\0\0\x13\0\0\0\0\0\0\0star\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\
        \0\0\0\0tT\x07 \0do_f\0";
    let e = KsymBlob::parse(bytes).unwrap_err();
    let blob = KsymBlob::parse_trusted(bytes).unwrap();
    assert_eq!(blob.validate(), Err(e));
    let symbols: Vec<_> = blob.symbols().collect();
    assert_eq!(symbols.len(), 3);
    let unknown: Vec<_> = symbols.iter().filter(|s| s.kind == b'?').collect();
    assert!(!unknown.is_empty(), "{symbols:?}");
    assert!(unknown.iter().all(|s| s.name.is_empty()));
    exercise(blob);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mutated_blobs_keep_parse_trusted_total(
        edits in prop::collection::vec((0usize..256, any::<u8>()), 1..6),
    ) {
        let mut bytes = read(origin("alias-dup-6.bin"));
        for (at, value) in edits {
            if let Some(b) = bytes.get_mut(at) {
                *b = value;
            }
        }
        check(&bytes, "mutated alias-dup-6");
    }
}
