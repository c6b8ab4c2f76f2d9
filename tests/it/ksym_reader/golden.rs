//! Every origin blob decodes to its expected dump at every alignment, and reproduces its
//! expected lookups line for line.

use std::collections::BTreeMap;

use symblob::ksym::{KsymBlob, Ksyms, TextRanges};

use super::support::{
    dump, dump_lines, origin, origin_blobs_with_lookups, origin_stems, read, Expected, Placed,
};

#[test]
fn every_origin_blob_dumps_exactly_its_expected_text_at_every_alignment() {
    for stem in origin_stems() {
        let bytes = read(origin(&format!("{stem}.bin")));
        let expected = String::from_utf8(read(origin(&format!("{stem}.dump.txt")))).unwrap();
        for misalign in 0..8 {
            let placed = Placed::new(&bytes, misalign);
            let blob = KsymBlob::parse(placed.bytes())
                .unwrap_or_else(|e| panic!("{stem} at +{misalign}: {e}"));
            assert_eq!(
                blob.used_size(),
                bytes.len(),
                "{stem}: origin blobs have no padding"
            );
            let got = dump(&blob);
            if got != expected {
                let first = got
                    .lines()
                    .zip(expected.lines())
                    .position(|(g, e)| g != e)
                    .unwrap_or(got.lines().count());
                panic!("{stem} at +{misalign}: dump differs first at line {first}");
            }
        }
    }
}

/// Checks one expectation against the reader.
fn check(stem: &str, ksyms: &Ksyms<'_>, e: &Expected) {
    match e {
        Expected::Address { ret, query, result } => {
            let got = if *ret {
                ksyms.lookup_return_address(*query)
            } else {
                ksyms.lookup_address(*query)
            };
            let got = got.map(|s| (s.kind, s.name.to_string(), s.offset, s.size));
            assert_eq!(got.as_ref(), result.as_ref(), "{stem}: {e:?}");
        }
        Expected::Name { query, result } => {
            let blob = ksyms.blob();
            let lowest = blob.lookup_name(query);
            let all: Vec<u64> = blob.lookup_name_all(query).map(|m| m.address).collect();
            assert_eq!(lowest, result.as_ref().map(|r| r.0), "{stem}: {e:?}");
            let expected_all = result.as_ref().map_or(&[][..], |r| &r.1[..]);
            assert_eq!(all, expected_all, "{stem}: {e:?}");
            for m in blob.lookup_name_all(query) {
                assert_eq!(m.name, query.as_str(), "{stem}: {e:?}");
            }
        }
    }
}

#[test]
fn every_lookups_file_is_reproduced_line_for_line() {
    let mut files = 0;
    for (stem, lookups, bytes) in origin_blobs_with_lookups() {
        files += 1;
        // Misaligned on purpose: lookups must not depend on where the blob sits.
        let placed = Placed::new(&bytes, 5);
        let blob = KsymBlob::parse(placed.bytes()).unwrap();
        let ksyms = Ksyms::new(blob, TextRanges::new(&lookups.ranges).unwrap());
        for e in &lookups.expected {
            check(&stem, &ksyms, e);
        }
        // The batched lookup gives every plain `addr` expectation too.
        let plain: Vec<_> = lookups
            .expected
            .iter()
            .filter_map(|e| match e {
                Expected::Address {
                    ret: false,
                    query,
                    result,
                } => Some((*query, result)),
                _ => None,
            })
            .collect();
        let queries: Vec<u64> = plain.iter().map(|(q, _)| *q).collect();
        let mut answered = 0;
        ksyms.lookup_address_each(&queries, |i, got| {
            let got = got.map(|s| (s.kind, s.name.to_string(), s.offset, s.size));
            assert_eq!(
                got.as_ref(),
                plain[i].1.as_ref(),
                "{stem}: {:#x}",
                plain[i].0
            );
            answered += 1;
        });
        assert_eq!(answered, queries.len());
    }
    assert_eq!(files, 7, "expected seven .lookups.tsv files");
}

#[test]
fn every_stored_name_finds_its_lowest_address_and_all_its_entries() {
    for stem in origin_stems() {
        let bytes = read(origin(&format!("{stem}.bin")));
        let text = String::from_utf8(read(origin(&format!("{stem}.dump.txt")))).unwrap();
        let mut by_name: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for (addr, _, name) in dump_lines(&text) {
            by_name.entry(name).or_default().push(addr);
        }
        let blob = KsymBlob::parse(&bytes).unwrap();
        for (name, addrs) in &by_name {
            let lowest = *addrs.iter().min().unwrap();
            assert_eq!(blob.lookup_name(name), Some(lowest), "{stem}: {name:?}");
            let mut all: Vec<u64> = blob.lookup_name_all(name).map(|m| m.address).collect();
            all.sort();
            let mut expected = addrs.clone();
            expected.sort();
            assert_eq!(all, expected, "{stem}: {name:?}");
        }
    }
}

#[test]
fn iteration_in_both_orders_agrees_with_the_dump() {
    for stem in origin_stems() {
        let bytes = read(origin(&format!("{stem}.bin")));
        let text = String::from_utf8(read(origin(&format!("{stem}.dump.txt")))).unwrap();
        let lines = dump_lines(&text);
        let blob = KsymBlob::parse(&bytes).unwrap();
        assert_eq!(blob.len(), lines.len(), "{stem}");
        assert_eq!(blob.symbols().len(), lines.len(), "{stem}");

        let forward: Vec<(u64, u8, String)> = blob
            .symbols()
            .map(|e| (e.address, e.kind, e.name.to_string()))
            .collect();
        let expected: Vec<(u64, u8, String)> = lines
            .iter()
            .map(|&(a, k, n)| (a, k, n.to_string()))
            .collect();
        assert_eq!(forward, expected, "{stem}");
        let mut backward: Vec<_> = blob
            .symbols()
            .rev()
            .map(|e| (e.address, e.kind, e.name.to_string()))
            .collect();
        backward.reverse();
        assert_eq!(backward, expected, "{stem}");
        for (i, e) in blob.symbols().enumerate() {
            assert_eq!(e.index, i);
        }

        // Name order: the dump's names sorted byte-wise.
        let by_name: Vec<String> = blob.symbols_by_name().map(|e| e.name.to_string()).collect();
        let mut sorted: Vec<String> = lines.iter().map(|l| l.2.to_string()).collect();
        sorted.sort();
        assert_eq!(by_name, sorted, "{stem}");
        assert_eq!(blob.symbols_by_name().rev().count(), lines.len());

        // dump_line gives the same lines by random access.
        for (i, line) in text.split_inclusive('\n').enumerate().step_by(97) {
            assert_eq!(
                blob.dump_line(i).unwrap().to_string(),
                line,
                "{stem} line {i}"
            );
        }
        assert!(blob.dump_line(lines.len()).is_none());
        assert!(blob.symbol(lines.len()).is_none());
    }
}

#[test]
fn id_511_records_decode_to_their_full_names() {
    // Blobs whose records use the two-byte reference `FF 01 FF FF`, with the number of such
    // records the test data README gives. The origin reader printed these names empty.
    let cases = [
        ("tokens-600", 3),
        ("rust-mangled", 2),
        ("rust-mangled-C", 1),
        ("linux-6.1-cloud-amd64-tt", 4),
    ];
    for (stem, count) in cases {
        let bytes = read(origin(&format!("{stem}.bin")));
        let text = String::from_utf8(read(origin(&format!("{stem}.dump.txt")))).unwrap();
        let lines = dump_lines(&text);
        let blob = KsymBlob::parse(&bytes).unwrap();
        let layout = blob.layout();
        let mut found = 0;
        assert_eq!(lines.len(), blob.len());
        for (i, &(_, _, expected_name)) in lines.iter().enumerate() {
            let at = layout.offsets.offset + 4 * i;
            let off = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            let payload = layout.names.offset + off + 3;
            if bytes[payload..payload + 4] != [0xFF, 0x01, 0xFF, 0xFF] {
                continue;
            }
            found += 1;
            let entry = blob.symbol(i).unwrap();
            let token = &bytes[layout.token_table.offset..layout.token_table.end()];
            assert_eq!(blob.token_count(), 512, "{stem}");
            // Token 511 is the last one: it runs to the end of the token table.
            let at = layout.token_index.offset + 4 * 511;
            let start = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            assert_eq!(entry.name.token, &token[start..], "{stem}: symbol {i}");
            assert_eq!(entry.name.to_string(), expected_name, "{stem}: symbol {i}");
            assert!(
                blob.lookup_name(expected_name).is_some(),
                "{stem}: symbol {i}"
            );
        }
        assert_eq!(found, count, "{stem}");
    }
}

#[test]
fn origin_blobs_from_address_sorted_input_validate() {
    for stem in origin_stems() {
        let bytes = read(origin(&format!("{stem}.bin")));
        let blob = KsymBlob::parse(&bytes).unwrap();
        let result = blob.validate();
        if stem == "edge-order" {
            // The origin keeps input order for equal names: `dup_name` at 0x401070 is
            // listed before 0x401048, which breaks the equal-names-by-address rule.
            let e = result.unwrap_err();
            assert_eq!(
                (e.section, e.kind),
                ("seqs", symblob::ErrorKind::Unsorted),
                "{e}"
            );
        } else {
            result.unwrap_or_else(|e| panic!("{stem}: {e}"));
        }
    }
}
