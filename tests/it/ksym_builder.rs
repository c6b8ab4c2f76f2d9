//! Tests: ksym builder. Every input of the test data is built, read back with the reader
//! and compared with the origin generator's expected dumps and lookups, with the System.map
//! of a real kernel, with `nm` on an ELF file, and with a plain model of the spec's lookup
//! semantics (proptest).

use std::collections::BTreeMap;
use std::ops::Range;

use proptest::prelude::*;
use symblob::ksym::{KsymBlob, Ksyms, LayoutKind, TextRanges};
use symblob_build::elf::read_elf;
use symblob_build::ksym::{build, BuildOptions, Built, Demangle, InputOptions, Symbol};
use symblob_build::pipeline::ksym::build_from_elf;
use symblob_build::text::{detect_format, parse_input};

use crate::common::testdata;

mod elf;
mod model;
mod whole;

/// (address, type, name) as a dump line shows it.
pub(super) type Line = (u64, u8, String);

pub(super) fn read(rel: &str) -> Vec<u8> {
    std::fs::read(testdata(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub(super) fn build_input(rel: &str, demangle: Demangle) -> symblob_build::Result<Built> {
    let bytes = read(&format!("ksym/input/{rel}"));
    let options = InputOptions {
        demangle,
        ..InputOptions::default()
    };
    let list = parse_input(&bytes, detect_format(&bytes), rel, &options)?;
    build(&list.symbols, &BuildOptions::default())
}

/// Parses a `%016x %c %s` dump; the name is the rest of the line.
pub(super) fn parse_dump(text: &str) -> Vec<Line> {
    text.lines()
        .map(|l| {
            let addr = u64::from_str_radix(&l[..16], 16).unwrap();
            let kind = l.as_bytes()[17];
            (addr, kind, l[19..].to_string())
        })
        .collect()
}

pub(super) fn dump_of(blob: &KsymBlob<'_>) -> Vec<Line> {
    blob.symbols()
        .map(|e| (e.address, e.kind, e.name.to_string()))
        .collect()
}

pub(super) fn leading_underscores(name: &str) -> usize {
    name.bytes().take_while(|&b| b == b'_').count()
}

/// The spec's D13 address order, applied to a set of lines (an independent model).
pub(super) fn d13_sorted(mut lines: Vec<Line>) -> Vec<Line> {
    lines.sort_by(|a, b| {
        (a.0, leading_underscores(&a.2), &a.2, a.1).cmp(&(
            b.0,
            leading_underscores(&b.2),
            &b.2,
            b.1,
        ))
    });
    lines
}

/// Reads a little-endian u64/u32 at `at`.
pub(super) fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
pub(super) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Checks what every builder blob must satisfy: it parses, `validate()` passes, nothing
/// follows the token index, a sized blob's first u64 is its length, and no record uses
/// token id 511 or an id ≥ K. The records are decoded here from the raw layout (spec 3.1,
/// 3.5, D5), not through the reader.
pub(super) fn check_blob(bytes: &[u8]) -> KsymBlob<'_> {
    let blob = KsymBlob::parse(bytes).expect("builder blob parses");
    blob.validate().expect("builder blob validates");
    assert_eq!(blob.used_size(), bytes.len(), "no trailing bytes");
    // The sized layout is the plain one after a u64 total; the shift by 8 keeps every
    // alignment, so the rest is checked as a plain blob.
    let bytes = match blob.layout_kind() {
        LayoutKind::Sized => {
            assert_eq!(le64(bytes, 0), bytes.len() as u64, "total_bytes");
            &bytes[8..]
        }
        LayoutKind::Plain => bytes,
    };
    let n = le64(bytes, 0) as usize;
    let names_at = 8 + 16 * n + 8;
    let names_len = le64(bytes, 8 + 16 * n) as usize;
    let table_len_at = (names_at + names_len).next_multiple_of(8);
    let table_len = le64(bytes, table_len_at) as usize;
    let k_at = (table_len_at + 8 + table_len).next_multiple_of(8);
    let k = le64(bytes, k_at) as usize;
    assert!(k <= 511);
    for i in 0..n {
        let off = le32(bytes, 8 + 8 * n + 4 * i) as usize;
        let rec = &bytes[names_at + off..];
        let len = u16::from_le_bytes([rec[1], rec[2]]) as usize;
        let p = &rec[3..3 + len];
        assert!(!p.is_empty(), "record {i}: empty payload");
        if p[0] == 0xFF {
            let id = if p[2] == 0xFF {
                assert!(
                    p.len() < 4 || p[3] != 0xFF,
                    "record {i}: FF x FF FF written"
                );
                p[1] as usize
            } else {
                assert_eq!(p[3], 0xFF, "record {i}: bad marker");
                assert!(p[1] >= 1, "record {i}: long form for a short id");
                p[1] as usize * 256 + p[2] as usize
            };
            assert!(id != 511 && id < k, "record {i}: token id {id} of {k}");
        }
    }
    blob
}

/// Expected outcome of building each input.
enum Expect {
    /// Builds; the dump equals this origin dump (D13 alias order aside), after `adjust`.
    Origin(&'static str),
    /// Builds; no origin blob exists (the origin generator panics on it).
    Builds,
    /// Fails; the message contains both strings (input name and line, and the reason).
    Fails(&'static str, &'static str),
}

const INPUTS: &[(&str, Expect)] = &[
    ("seed-3.nm", Expect::Origin("seed-3")),
    ("alias-dup-6.nm", Expect::Origin("alias-dup-6")),
    ("tokens-300.nm", Expect::Origin("tokens-300")),
    ("tokens-600.nm", Expect::Origin("tokens-600")),
    ("edge-order.nm", Expect::Origin("edge-order")),
    (
        "proc-kallsyms-sample.txt",
        Expect::Origin("proc-kallsyms-sample"),
    ),
    (
        "rust-long-demangled.nm",
        Expect::Origin("rust-long-demangled"),
    ),
    ("rust-mangled.nm", Expect::Origin("rust-mangled")),
    ("rust-mangled.nmC", Expect::Origin("rust-mangled-C")),
    ("name-65535.nm", Expect::Origin("name-65535")),
    ("utf8-boundary.nm", Expect::Builds),
    (
        "name-65536.nm",
        Expect::Fails("name-65536.nm:2: ", "65536 bytes long"),
    ),
    (
        "empty-name.nm",
        Expect::Fails("empty-name.nm:2: ", "missing symbol name"),
    ),
    (
        "proc-kallsyms-restricted.txt",
        Expect::Fails("proc-kallsyms-restricted.txt: ", "every address is zero"),
    ),
];

/// The origin's dump, adjusted for the documented differences between the origin
/// generator and this builder: module symbols of /proc/kallsyms are skipped (D15; the
/// origin glued `\t[module]` into the name as ` [module]`), and records equal in
/// address, type and name are kept once (D13; the origin keeps both, e.g. one repeated
/// line in `rust-long-demangled`).
fn expected_lines(origin: &str) -> Vec<Line> {
    let text = String::from_utf8(read(&format!("ksym/origin/{origin}.dump.txt"))).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    parse_dump(&text)
        .into_iter()
        .filter(|(_, _, name)| !(origin == "proc-kallsyms-sample" && name.ends_with(']')))
        .filter(|l| seen.insert(l.clone()))
        .collect()
}

/// Compares our dump with the origin's as sets of (address, type, name) (alias order
/// differs by D13). With demangling, `_R…` (v0) names are demangled too, which the origin
/// does not do: in `rust-mangled` those lines are compared by address and type only.
fn compare_names(origin: &str, ours: &[Line], expected: &[Line]) {
    assert_eq!(ours.len(), expected.len(), "{origin}: symbol count");
    let sorted = |lines: &[Line], keep_name: &dyn Fn(&str) -> bool| {
        let mut v: Vec<Line> = lines
            .iter()
            .map(|(a, k, n)| {
                (
                    *a,
                    *k,
                    if keep_name(n) {
                        n.clone()
                    } else {
                        String::new()
                    },
                )
            })
            .collect();
        v.sort();
        v
    };
    if origin == "rust-mangled" {
        for (_, _, name) in ours {
            assert!(
                !name.starts_with("_R") && !name.starts_with("_ZN"),
                "{name}"
            );
        }
        let plain: std::collections::BTreeSet<&str> = expected
            .iter()
            .filter(|l| !l.2.starts_with("_R"))
            .map(|l| l.2.as_str())
            .collect();
        let want = sorted(expected, &|n| !n.starts_with("_R"));
        let got = sorted(ours, &|n| plain.contains(n));
        assert_eq!(got, want, "{origin}: (address, type, name) set");
    } else {
        assert_eq!(
            sorted(ours, &|_| true),
            sorted(expected, &|_| true),
            "{origin}"
        );
    }
}

#[test]
fn every_input_builds_like_the_origin_or_fails_as_expected() {
    for (input, expect) in INPUTS {
        // The origin demangles `_ZN` names of raw nm input; do the same for that file.
        let demangle = if *input == "rust-mangled.nm" {
            Demangle::Rust
        } else {
            Demangle::None
        };
        let result = build_input(input, demangle);
        match expect {
            Expect::Fails(at, what) => {
                let err = result
                    .err()
                    .unwrap_or_else(|| panic!("{input} must fail"))
                    .to_string();
                assert!(err.starts_with(at) && err.contains(what), "{input}: {err}");
            }
            Expect::Builds => {
                let built = result.unwrap_or_else(|e| panic!("{input}: {e}"));
                let blob = check_blob(&built.bytes);
                let text = String::from_utf8(read(&format!("ksym/input/{input}"))).unwrap();
                let expected = d13_sorted(parse_dump(&text));
                assert_eq!(dump_of(&blob), expected, "{input}");
            }
            Expect::Origin(origin) => {
                let built = result.unwrap_or_else(|e| panic!("{input}: {e}"));
                let blob = check_blob(&built.bytes);
                let ours = dump_of(&blob);
                let expected = expected_lines(origin);
                compare_names(origin, &ours, &expected);
                // The stored order is D13's, whatever the input order.
                assert_eq!(ours, d13_sorted(ours.clone()), "{origin}: D13 order");
                // Reproducible: a second build gives the same bytes.
                let again = build_input(input, demangle).unwrap();
                assert_eq!(again.bytes, built.bytes, "{input}: determinism");
            }
        }
    }
}

/// Text ranges from a lookups.tsv header line.
fn tsv_ranges(text: &str) -> Vec<Range<u64>> {
    let line = text
        .lines()
        .find(|l| l.starts_with("# text ranges"))
        .unwrap();
    line.split('[')
        .skip(1)
        .map(|r| {
            let (s, e) = r.split_once(", ").unwrap();
            let e = e.split(')').next().unwrap();
            let hex = |t: &str| u64::from_str_radix(t.trim_start_matches("0x"), 16).unwrap();
            hex(s)..hex(e)
        })
        .collect()
}

fn hex(t: &str) -> u64 {
    u64::from_str_radix(t.trim_start_matches("0x"), 16).unwrap()
}

/// Checks every line of `origin/<name>.lookups.tsv` against a blob built from `input`.
fn check_lookups(origin: &str, bytes: &[u8]) {
    let text = String::from_utf8(read(&format!("ksym/origin/{origin}.lookups.tsv"))).unwrap();
    let ranges = tsv_ranges(&text);
    let blob = KsymBlob::parse(bytes).unwrap();
    let ksyms = Ksyms::new(blob, TextRanges::new(&ranges).unwrap());
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "addr" | "ret" => {
                let q = hex(f[1]);
                let got = if f[0] == "addr" {
                    ksyms.lookup_address(q)
                } else {
                    ksyms.lookup_return_address(q)
                };
                if f[2] == "none" {
                    assert!(got.is_none(), "{origin}: {line}: got {got:?}");
                    continue;
                }
                let got = got.unwrap_or_else(|| panic!("{origin}: {line}: not found"));
                let (off, size) = (hex(f[4]), hex(f[5]));
                assert_eq!((got.offset, got.size), (off, size), "{origin}: {line}");
                let name = got.name.to_string();
                if name != f[3] {
                    // Exception (D13): at an alias address the origin names the first
                    // alias in input order, this builder the first in (leading
                    // underscores, name) order. Allowed only if the expected name is an
                    // alias at the same address and ours is the D13-first of them.
                    let start = got.address;
                    assert!(
                        blob.lookup_name_all(f[3]).any(|e| e.address == start),
                        "{origin}: {line}: got {name}, which is no alias of the expected"
                    );
                    let aliases: Vec<Line> = blob
                        .symbols()
                        .filter(|e| e.address == start)
                        .map(|e| (e.address, e.kind, e.name.to_string()))
                        .collect();
                    assert_eq!(d13_sorted(aliases)[0].2, name, "{origin}: {line}");
                } else {
                    assert_eq!(char::from(got.kind).to_string(), f[2], "{origin}: {line}");
                }
            }
            "name" => {
                let q = f[1];
                let got = blob.lookup_name(q);
                if f[2] == "none" || (origin == "proc-kallsyms-sample" && q.ends_with(']')) {
                    // Exception (D15): module symbols are skipped, so `name [module]`
                    // is not stored by this builder.
                    assert_eq!(got, None, "{origin}: {line}");
                    continue;
                }
                assert_eq!(got, Some(hex(f[2])), "{origin}: {line}");
                // Name-table order of equal names differs (D13: by address); compare
                // the set of addresses.
                let mut all: Vec<u64> = blob.lookup_name_all(q).map(|e| e.address).collect();
                let mut want: Vec<u64> = f[3].split(',').map(hex).collect();
                assert!(all.windows(2).all(|w| w[0] <= w[1]), "{origin}: {line}");
                all.sort();
                want.sort();
                assert_eq!(all, want, "{origin}: {line}");
            }
            other => panic!("{origin}: unknown line kind {other}"),
        }
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn lookups_match_the_origin_expectations() {
    for (input, origin) in [
        ("seed-3.nm", "seed-3"),
        ("alias-dup-6.nm", "alias-dup-6"),
        ("edge-order.nm", "edge-order"),
        ("proc-kallsyms-sample.txt", "proc-kallsyms-sample"),
        ("tokens-600.nm", "tokens-600"),
    ] {
        let built = build_input(input, Demangle::None).unwrap();
        check_lookups(origin, &built.bytes);
    }
}

/// T/t lines of the System.map, as (address, type, name).
fn system_map_tt() -> Vec<Line> {
    let text = String::from_utf8(read("ksym/linux-6.1-cloud-amd64.System.map")).unwrap();
    parse_dump(&text)
        .into_iter()
        .filter(|l| l.1 == b'T' || l.1 == b't')
        .collect()
}

#[test]
fn linux_system_map() {
    let built = build_input("../linux-6.1-cloud-amd64.System.map", Demangle::None).unwrap();
    let blob = check_blob(&built.bytes);
    let input = system_map_tt();
    assert_eq!(input.len(), 46_471);

    // The dump is the sorted input (D13 order).
    let expected = d13_sorted(input.clone());
    assert_eq!(dump_of(&blob), expected);

    // Every address finds its first alias; every name its lowest address.
    let mut first_alias: BTreeMap<u64, &str> = BTreeMap::new();
    let mut lowest: BTreeMap<&str, u64> = BTreeMap::new();
    for (a, _, n) in &expected {
        first_alias.entry(*a).or_insert(n);
        let e = lowest.entry(n).or_insert(*a);
        *e = (*e).min(*a);
    }
    let last = *first_alias.keys().last().unwrap();
    let first = *first_alias.keys().next().unwrap();
    let ksyms = Ksyms::new(blob, TextRanges::single(first, last + 1).unwrap());
    for (&a, &n) in &first_alias {
        let s = ksyms.lookup_address(a).unwrap();
        assert_eq!((s.address, s.offset), (a, 0));
        assert!(s.name == n, "{a:#x}: {} vs {n}", s.name);
    }
    for (&n, &a) in &lowest {
        assert_eq!(blob.lookup_name(n), Some(a), "{n}");
    }
    check_lookups("linux-6.1-cloud-amd64-tt", &built.bytes);

    // Compression: the origin's names segment is 988,960 bytes for these names (1.053 ×
    // raw); the trie tokens must do better than that and better than raw names.
    let s = built.stats;
    assert_eq!(s.raw_name_bytes, 939_530);
    assert!(s.names_bytes < 988_960, "{s:?}");
    eprintln!(
        "linux T/t: names {} B / raw {} B = {:.3}, {} tokens, blob {} B",
        s.names_bytes,
        s.raw_name_bytes,
        s.names_ratio(),
        s.tokens,
        s.blob_bytes
    );
}

#[test]
fn output_does_not_depend_on_input_order() {
    for input in ["tokens-600.nm", "edge-order.nm", "rust-mangled.nmC"] {
        let bytes = read(&format!("ksym/input/{input}"));
        let list = parse_input(
            &bytes,
            detect_format(&bytes),
            input,
            &InputOptions::default(),
        )
        .unwrap();
        let forward = build(&list.symbols, &BuildOptions::default()).unwrap();
        let mut reversed = list.symbols.clone();
        reversed.reverse();
        let backward = build(&reversed, &BuildOptions::default()).unwrap();
        assert_eq!(forward.bytes, backward.bytes, "{input}");
    }
}

#[test]
fn pad_to_appends_zeros_or_fails() {
    let built = build_input("seed-3.nm", Demangle::None).unwrap();
    let list = parse_input(
        &read("ksym/input/seed-3.nm"),
        detect_format(b""),
        "seed-3.nm",
        &InputOptions::default(),
    )
    .unwrap();
    let padded = build(
        &list.symbols,
        &BuildOptions {
            pad_to: Some(4096),
            ..BuildOptions::default()
        },
    )
    .unwrap();
    assert_eq!(padded.bytes.len(), 4096);
    assert_eq!(&padded.bytes[..built.bytes.len()], &built.bytes[..]);
    assert!(padded.bytes[built.bytes.len()..].iter().all(|&b| b == 0));
    let blob = KsymBlob::parse(&padded.bytes).unwrap();
    assert_eq!(blob.used_size(), built.bytes.len());
    let too_small = BuildOptions {
        pad_to: Some(built.bytes.len() as u64 - 1),
        ..BuildOptions::default()
    };
    assert!(build(&list.symbols, &too_small).is_err());
}

#[test]
fn more_tokens_wanted_than_ids_exist() {
    // 2,000 distinct 30-byte prefixes used three times each: every prefix would pay
    // for itself, so the 511-token cap binds.
    let symbols: Vec<Symbol> = (0..6000u64)
        .map(|i| Symbol {
            address: 0x1000 + 16 * i,
            kind: b't',
            name: format!(
                "subsystem_{:05}_handler_common_{}",
                i / 3,
                ["a", "b", "c"][i as usize % 3]
            ),
        })
        .collect();
    let built = build(&symbols, &BuildOptions::default()).unwrap();
    // Some chosen tokens are dropped again once ids are final (they no longer pay), so
    // the count ends a little below the cap.
    assert!(
        (400..=511).contains(&built.stats.tokens),
        "{:?}",
        built.stats
    );
    assert!(built.stats.long_refs > 0);
    let blob = check_blob(&built.bytes);
    for s in &symbols {
        assert_eq!(blob.lookup_name(&s.name), Some(s.address));
    }
}
