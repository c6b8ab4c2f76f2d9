//! The corrupt blobs of `testdata/ksym/corrupt/`: each gives exactly the outcome the test
//! data README expects, and nothing panics, whatever the bytes.

use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
use symblob::{ErrorKind, Format};

use super::support::{origin, read, Placed};
use crate::common::testdata;

/// What the README table expects of one corrupt blob.
enum Outcome {
    /// Parse fails in this section, at this offset, with an error of this kind.
    Reject(&'static str, u64, fn(&ErrorKind) -> bool),
    /// Parse succeeds with this used size; validate fails in this section with this kind.
    AcceptParse(usize, &'static str, fn(&ErrorKind) -> bool),
    /// Parse succeeds with this used size and this many symbols; validate gives this.
    Accept(usize, usize, Option<&'static str>),
}

use Outcome::*;

fn overflow(k: &ErrorKind) -> bool {
    *k == ErrorKind::Overflow
}
fn unsorted(k: &ErrorKind) -> bool {
    *k == ErrorKind::Unsorted
}
fn malformed(k: &ErrorKind) -> bool {
    matches!(k, ErrorKind::Malformed(_))
}

/// Offsets of seed-3's segments (README section 4): offsets@32, seqs@44, names@64,
/// token_index@136. Record 0 starts at names+0, record 2 at names+19.
const CASES: &[(&str, Outcome)] = &[
    ("num-syms-huge", Reject("num_syms", 0, overflow)),
    ("num-syms-wrap", Reject("num_syms", 0, overflow)),
    ("names-len-huge", Reject("names_len", 56, overflow)),
    (
        "token-table-len-huge",
        Reject("token_table_len", 96, overflow),
    ),
    (
        "token-index-len-wrap",
        Reject("token_index_len", 128, overflow),
    ),
    (
        "token-index-len-short",
        Reject("token_index", 136, |k| {
            *k == ErrorKind::Truncated {
                needed: 16,
                available: 12,
            }
        }),
    ),
    // offsets[1] at 32 + 4.
    (
        "offset-out-of-range",
        Reject("offsets", 36, |k| matches!(k, ErrorKind::OutOfRange { .. })),
    ),
    (
        "offset-header-straddles",
        Reject("offsets", 40, |k| {
            matches!(
                k,
                ErrorKind::OutOfRange {
                    value: 31,
                    limit: 29
                }
            )
        }),
    ),
    // The length field of record 2: names@64 + 19 + 1.
    (
        "record-len-out-of-range",
        Reject("names", 84, |k| {
            matches!(
                k,
                ErrorKind::OutOfRange {
                    value: 65557,
                    limit: 32
                }
            )
        }),
    ),
    // The payload of record 2: names@64 + 19 + 3.
    (
        "token-id-out-of-range",
        Reject("names", 86, |k| {
            *k == ErrorKind::OutOfRange { value: 7, limit: 3 }
        }),
    ),
    (
        "token-index-out-of-range",
        Reject("token_index", 140, |k| {
            *k == ErrorKind::OutOfRange {
                value: 1000,
                limit: 23,
            }
        }),
    ),
    (
        "token-index-decreasing",
        Reject("token_index", 140, unsorted),
    ),
    (
        "seq-out-of-range",
        Reject("seqs", 44, |k| {
            *k == ErrorKind::OutOfRange { value: 3, limit: 3 }
        }),
    ),
    ("addresses-unsorted", Reject("addresses", 16, unsorted)),
    // The payload of record 0: names@64 + 3.
    ("bad-marker", Reject("names", 67, malformed)),
    (
        "two-byte-id-ff-out-of-range",
        Reject("names", 67, |k| {
            *k == ErrorKind::OutOfRange {
                value: 0x2FF,
                limit: 3,
            }
        }),
    ),
    ("seqs-not-permutation", AcceptParse(148, "seqs", malformed)),
    ("names-unsorted", AcceptParse(148, "seqs", unsorted)),
    ("nonzero-padding", Accept(148, 3, Some("padding"))),
    ("zero-page", Accept(32, 0, None)),
    ("seed-3-padded", Accept(148, 3, None)),
    (
        "seed-3-trailing-garbage",
        Accept(148, 3, Some("trailing bytes")),
    ),
];

/// Runs every accessor over a parsed blob: none may panic, whatever the tables say.
pub(super) fn exercise(blob: KsymBlob<'_>) {
    let mut sink = String::new();
    blob.dump(&mut sink).unwrap();
    let _ = blob.validate();
    let names: Vec<String> = blob.symbols().map(|e| e.name.to_string()).collect();
    for e in blob.symbols_by_name() {
        let _ = blob.lookup_name_all(e.name.to_string()).count();
    }
    for n in names
        .iter()
        .map(String::as_str)
        .chain(["", " ", "!", "zzz", "_start"])
    {
        let _ = blob.lookup_name(n);
    }
    let ksyms = Ksyms::new(blob, TextRanges::single(0, u64::MAX).unwrap());
    for a in [
        0u64,
        1,
        0xfff,
        0x1000,
        0x1001,
        0x10ff,
        0x1100,
        0x1234,
        0x12ff,
        u64::MAX - 1,
    ] {
        let _ = ksyms.lookup_address(a).map(|s| s.to_string());
        let _ = ksyms.lookup_return_address(a);
    }
}

#[test]
fn every_corrupt_blob_gives_its_expected_outcome() {
    let mut seen = 0;
    for (stem, outcome) in CASES {
        let bytes = read(testdata(&format!("ksym/corrupt/{stem}.bin")));
        for misalign in [0, 3] {
            let placed = Placed::new(&bytes, misalign);
            let parsed = KsymBlob::parse(placed.bytes());
            match (outcome, parsed) {
                (Reject(section, offset, kind), Err(e)) => {
                    assert_eq!(e.format, Format::Ksym, "{stem}: {e}");
                    assert_eq!((e.section, e.offset), (*section, *offset), "{stem}: {e}");
                    assert!(kind(&e.kind), "{stem}: unexpected kind in {e}");
                }
                (AcceptParse(used, section, kind), Ok(blob)) => {
                    assert_eq!(blob.used_size(), *used, "{stem}");
                    let e = blob.validate().expect_err(stem);
                    assert_eq!(e.section, *section, "{stem}: {e}");
                    assert!(kind(&e.kind), "{stem}: unexpected kind in {e}");
                    exercise(blob);
                }
                (Accept(used, len, validate_section), Ok(blob)) => {
                    assert_eq!(blob.used_size(), *used, "{stem}");
                    assert_eq!(blob.len(), *len, "{stem}");
                    match (validate_section, blob.validate()) {
                        (None, Ok(())) => {}
                        (Some(section), Err(e)) => {
                            assert_eq!(e.section, *section, "{stem}: {e}");
                            assert!(matches!(e.kind, ErrorKind::Mismatch { expected: 0, .. }));
                        }
                        (want, got) => panic!("{stem}: validate gave {got:?}, wanted {want:?}"),
                    }
                    exercise(blob);
                }
                (_, got) => panic!("{stem}: unexpected parse result {got:?}"),
            }
        }
        seen += 1;
    }
    let on_disk = std::fs::read_dir(testdata("ksym/corrupt")).unwrap().count();
    assert_eq!(seen, on_disk, "every corrupt blob has an expected outcome");
}

#[test]
fn zero_page_is_an_empty_blob() {
    let bytes = read(testdata("ksym/corrupt/zero-page.bin"));
    let blob = KsymBlob::parse(&bytes).unwrap();
    assert!(blob.is_empty());
    assert_eq!(
        (blob.len(), blob.token_count(), blob.used_size()),
        (0, 0, 32)
    );
    assert_eq!(blob.symbols().next(), None);
    assert_eq!(blob.lookup_name(""), None);
    let ksyms = Ksyms::new(blob, TextRanges::single(0, u64::MAX).unwrap());
    assert_eq!(ksyms.lookup_address(0x1000), None);
}

#[test]
fn every_proper_prefix_of_seed_3_is_rejected() {
    let bytes = read(origin("seed-3.bin"));
    assert_eq!(bytes.len(), 148);
    for len in 0..bytes.len() {
        let e = KsymBlob::parse(&bytes[..len]).expect_err(&format!("prefix of {len} bytes"));
        assert!(
            matches!(e.kind, ErrorKind::Truncated { .. }),
            "prefix {len}: {e}"
        );
    }
    assert!(KsymBlob::parse(&bytes).is_ok());
}

#[test]
fn errors_say_what_and_where() {
    let bytes = read(testdata("ksym/corrupt/token-id-out-of-range.bin"));
    let e = KsymBlob::parse(&bytes).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ksym-bin: names at offset 0x56: value 0x7 out of range (limit 0x3)"
    );
}
