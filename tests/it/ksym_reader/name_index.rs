//! `NameIndex`: the caller-memory hash index answers name → address exactly as the origin
//! reader's expectations and the dumps say, and refuses what it cannot index.

use std::collections::BTreeMap;

use symblob::ksym::{KsymBlob, NameIndex};
use symblob::ErrorKind;

use super::support::{
    dump_lines, origin, origin_blobs_with_lookups, origin_stems, read, Expected, Placed,
};

fn index_words(blob: &KsymBlob<'_>) -> Vec<u64> {
    vec![0; NameIndex::words_needed(blob.len())]
}

#[test]
fn origin_name_queries_are_reproduced() {
    let mut queries = 0;
    for (stem, lookups, bytes) in origin_blobs_with_lookups() {
        let placed = Placed::new(&bytes, 3);
        let blob = KsymBlob::parse(placed.bytes()).unwrap();
        // Garbage in the buffer must not matter: build clears it.
        let mut words = vec![u64::MAX; NameIndex::words_needed(blob.len())];
        let index = NameIndex::build(blob, &mut words).unwrap();
        for e in &lookups.expected {
            if let Expected::Name { query, result } = e {
                queries += 1;
                let want = result.as_ref().map(|r| r.0);
                assert_eq!(index.lookup_name(query), want, "{stem}: {query:?}");
            }
        }
    }
    assert!(queries > 0, "the .lookups.tsv files hold name queries");
}

#[test]
fn every_dumped_name_finds_its_lowest_address() {
    for stem in origin_stems() {
        let bytes = read(origin(&format!("{stem}.bin")));
        let text = String::from_utf8(read(origin(&format!("{stem}.dump.txt")))).unwrap();
        let mut lowest: BTreeMap<&str, u64> = BTreeMap::new();
        for (addr, _, name) in dump_lines(&text) {
            let e = lowest.entry(name).or_insert(addr);
            *e = (*e).min(addr);
        }
        let blob = KsymBlob::parse(&bytes).unwrap();
        // Exactly the minimum, and a larger buffer (shorter probe runs) gives the same.
        for extra in [0, 7, 1000] {
            let mut words = index_words(&blob);
            words.resize(words.len() + extra, 0);
            let index = NameIndex::build(blob, &mut words).unwrap();
            for (name, addr) in &lowest {
                assert_eq!(index.lookup_name(name), Some(*addr), "{stem}: {name:?}");
                let i = index.index_of(name.as_bytes()).unwrap();
                assert_eq!(blob.symbol(i).unwrap().address, *addr, "{stem}: {name:?}");
            }
            // Names that are not stored: prefixes, extensions, near misses.
            for name in lowest.keys().take(200) {
                for probe in [format!("{name}x"), format!("{name}\0"), format!("~{name}")] {
                    if !lowest.contains_key(probe.as_str()) {
                        assert_eq!(index.lookup_name(&probe), None, "{stem}: {probe:?}");
                    }
                }
                if let Some((_, shorter)) =
                    name.char_indices().last().map(|(i, _)| name.split_at(i))
                {
                    if !lowest.contains_key(shorter) {
                        assert_eq!(index.lookup_name(shorter), None, "{stem}: {shorter:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_short_buffer_is_refused_with_the_bytes_needed() {
    let bytes = read(origin("seed-3.bin"));
    let blob = KsymBlob::parse(&bytes).unwrap();
    assert_eq!(NameIndex::words_needed(blob.len()), 6);
    let mut words = vec![0u64; 5];
    let e = NameIndex::build(blob, &mut words).unwrap_err();
    assert_eq!(e.section, "name_index");
    assert_eq!(e.kind, ErrorKind::BufferTooSmall { needed: 48 });
}

#[test]
fn an_empty_blob_indexes_into_an_empty_buffer() {
    // 32 bytes of zeros: N = L = T = K = 0 (the placeholder of a fixed-size section).
    let bytes = [0u8; 32];
    let blob = KsymBlob::parse(&bytes).unwrap();
    let index = NameIndex::build(blob, &mut []).unwrap();
    assert_eq!(index.lookup_name("anything"), None);
    assert_eq!(index.lookup_name(""), None);
}

/// The lowest address of any symbol whose decoded name is exactly `name`, by iteration.
fn lowest_by_scan(blob: &KsymBlob<'_>, name: &[u8]) -> Option<u64> {
    blob.symbols()
        .filter(|e| e.name == name)
        .map(|e| e.address)
        .min()
}

#[test]
fn corrupted_blobs_that_parse_still_answer_exactly_or_refuse() {
    // Every single-byte corruption of a small blob (names, tokens, seqs included): the
    // index either refuses to build or answers every stored name like a full scan, even
    // where a corrupted name order makes the binary search miss.
    let bytes = read(origin("alias-dup-6.bin"));
    let mut checked = 0;
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut mutated = bytes.clone();
            mutated[at] ^= flip;
            let Ok(blob) = KsymBlob::parse(&mutated) else {
                continue;
            };
            let mut words = index_words(&blob);
            let Ok(index) = NameIndex::build(blob, &mut words) else {
                continue;
            };
            checked += 1;
            for e in blob.symbols() {
                let name = e.name.to_string().into_bytes();
                if e.name != name.as_slice() {
                    continue; // not UTF-8: the Display form differs from the bytes
                }
                assert_eq!(
                    index.lookup_name(&name),
                    lowest_by_scan(&blob, &name),
                    "byte {at} ^ {flip:#x}: {:?}",
                    e.name
                );
            }
            assert_eq!(index.lookup_name("not a stored name"), None);
        }
    }
    assert!(checked > 100, "{checked} corrupted blobs parsed");
}
