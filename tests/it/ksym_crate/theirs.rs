//! Blobs the crate's own generator writes (`gen_ksym` 0.5.1: plain, 0.6.0: sized), read by
//! symblob: every answer equals the crate reader's, except for the crate's documented
//! defects, which each check names.

use symblob::ksym::{KsymBlob, Ksyms, TextRanges};

use super::*;
use crate::ksym_builder::{parse_dump, read};

/// The generator versions and the layout each writes.
const GENERATORS: [(&str, LayoutKind); 2] =
    [("0.5.1", LayoutKind::Plain), ("0.6.0", LayoutKind::Sized)];

/// Token id 511 is written `FF 01 FF FF`, which the crate reads as token 1 followed by a
/// raw 0xFF (spec F1): its name is then not UTF-8 and the crate returns "" for it.
fn uses_token_511(blob: &KsymBlob<'_>, bytes: &[u8], index: usize) -> bool {
    let layout = blob.layout();
    let at = layout.offsets.offset + 4 * index;
    let offset = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let record = &bytes[layout.names.offset + offset..];
    record.get(3..7) == Some(&[0xFF, 0x01, 0xFF, 0xFF][..])
}

/// Generates a blob from `input` with each generator and compares the readers.
fn check_generated(what: &str, input: &[u8]) {
    for (version, layout) in GENERATORS {
        let Some(bytes) = gen_ksym(version, input) else {
            return;
        };
        let blob = KsymBlob::parse(&bytes).unwrap_or_else(|e| panic!("{what} {version}: {e}"));
        assert_eq!(blob.layout_kind(), layout, "{what} {version}");
        assert_eq!(blob.used_size(), bytes.len());
        let entries: Vec<_> = blob.symbols().collect();
        let defect_511: Vec<bool> = (0..entries.len())
            .map(|i| uses_token_511(&blob, &bytes, i))
            .collect();
        let stext = entries.first().map_or(0x1000, |e| e.address);
        let etext = entries.last().map_or(0x2000, |e| e.address + 0x40);
        let aligned = Aligned::new(&bytes);
        let theirs = open_crate(layout, &aligned, stext, etext);
        let compat = KallsymsMapped::from_blob(&bytes, stext, etext).unwrap();
        let ksyms = Ksyms::new(blob, TextRanges::single(stext, etext).unwrap());

        // Dump: equal line by line, except names of id-511 records (crate: empty).
        let crate_dump = parse_dump(&theirs.dump());
        let our_dump = parse_dump(&compat.dump());
        assert_eq!(crate_dump.len(), our_dump.len(), "{what} {version}");
        for (i, (c, o)) in crate_dump.iter().zip(&our_dump).enumerate() {
            if defect_511[i] {
                assert_eq!(
                    (c.0, c.1, c.2.as_str()),
                    (o.0, o.1, ""),
                    "{what}: F1 at {i}"
                );
            } else {
                assert_eq!(c, o, "{what} {version}: dump line {i}");
            }
        }

        // Addresses: the drop-in type equals the crate (names of id-511 records aside);
        // symblob's reader equals it but for the first alias inside a group.
        let mut starts: BTreeMap<u64, Vec<(String, char)>> = BTreeMap::new();
        for e in &entries {
            let name = e.name.to_string();
            starts
                .entry(e.address)
                .or_default()
                .push((name, char::from(e.kind)));
        }
        for q in probe_addresses(&starts, etext) {
            let want = theirs.address(q).expect("inside the text");
            let got = compat.address(q).unwrap();
            let index = entries.partition_point(|e| e.address <= q) - 1;
            let index = if entries[index].address == q {
                entries.partition_point(|e| e.address < q)
            } else {
                index
            };
            if defect_511[index] {
                assert_eq!(want.0, "", "{what}: F1 at {q:#x}");
                assert_eq!((got.1, got.2, got.3), (want.1, want.2, want.3));
            } else {
                assert_eq!(got, want, "{what} {version}: drop-in at {q:#x}");
            }
            let s = ksyms.lookup_address(q).unwrap();
            let (&start, aliases) = starts.range(..=q).next_back().unwrap();
            assert_eq!((s.address, s.offset, s.size), (start, want.2, want.1));
            // Crate defect: inside an alias group the crate names the last alias.
            assert_eq!(s.name.to_string(), aliases[0].0, "{what} {version}: {q:#x}");
        }

        // Names: every name, as the crate finds it. Where the crate's binary search
        // crosses an id-511 record (compared as ""), it can miss; symblob finds them all.
        // symblob's own lookup answers the lowest address of a name; the crate (and the
        // drop-in type) the first in name order, which the generator leaves in input order.
        let mut lowest: BTreeMap<String, u64> = BTreeMap::new();
        for e in &entries {
            let low = lowest.entry(e.name.to_string()).or_insert(e.address);
            *low = (*low).min(e.address);
        }
        let mut crate_misses = 0;
        for (name, &low) in &lowest {
            assert_eq!(
                blob.lookup_name(name),
                Some(low),
                "{what} {version}: {name}"
            );
            let ours = compat.name(name);
            assert!(ours.is_some(), "{what} {version}: drop-in misses {name}");
            match theirs.name(name) {
                Some(addr) => {
                    assert_eq!(Some(addr), ours, "{what} {version}: {name}");
                    assert_eq!(theirs.names(name), compat.names(name), "{name}");
                }
                None => {
                    assert!(
                        defect_511.contains(&true),
                        "{what} {version}: crate misses {name}"
                    );
                    crate_misses += 1;
                }
            }
        }
        if defect_511.contains(&true) {
            eprintln!(
                "{what} {version}: {} records use token 511 (crate reads them as \"\"), \
                 crate misses {crate_misses} names",
                defect_511.iter().filter(|&&d| d).count()
            );
        }
    }
}

#[test]
fn generator_blobs_of_the_kernel_system_map() {
    // All 87,361 symbols: the generator keeps every type.
    let map = read("ksym/linux-6.1-cloud-amd64.System.map");
    check_generated("System.map", &map);
}

#[test]
fn generator_blobs_of_the_input_files() {
    for rel in INPUT_FILES {
        check_generated(rel, &read(&format!("ksym/input/{rel}")));
    }
}

/// The sized layout's total and padding: the crate refuses a padded blob (the caller cuts
/// it with `check_total_bytes`); the drop-in type reads it as it is.
#[test]
fn padded_generator_blob_and_check_total_bytes() {
    let Some(bytes) = gen_ksym("0.6.0", &read("ksym/input/seed-3.nm")) else {
        return;
    };
    let mut padded = bytes.clone();
    padded.resize(4096, 0);
    let aligned = Aligned::new(&padded);
    let total = ksym06::KallsymsMapped::check_total_bytes(aligned.bytes()).unwrap();
    assert_eq!(KallsymsMapped::check_total_bytes(&padded), Ok(total));
    assert_eq!(total, bytes.len() as u64);
    assert!(ksym06::KallsymsMapped::from_blob(aligned.bytes(), 0x1000, 0x1300).is_err());
    let compat = KallsymsMapped::from_blob(&padded, 0x1000, 0x1300).unwrap();
    let cut = ksym06::KallsymsMapped::from_blob(&aligned.bytes()[..total as usize], 0x1000, 0x1300)
        .unwrap();
    assert_eq!(compat.dump(), Reader::dump(&cut));
    // At an odd address too (the crate needs 8-byte alignment; the drop-in does not).
    let mut odd = vec![0u8];
    odd.extend_from_slice(&padded);
    let compat_odd = KallsymsMapped::from_blob(&odd[1..], 0x1000, 0x1300).unwrap();
    assert_eq!(compat_odd.dump(), compat.dump());
    // Too short for a total: the crate's message.
    assert_eq!(
        KallsymsMapped::check_total_bytes(&[0; 7]),
        ksym06::KallsymsMapped::check_total_bytes(&[0; 7])
    );
    // A 0.5 plain blob: check_total_bytes gives its length, so cutting works the same.
    if let Some(plain) = gen_ksym("0.5.1", &read("ksym/input/seed-3.nm")) {
        let mut padded = plain.clone();
        padded.resize(4096, 0);
        assert_eq!(
            KallsymsMapped::check_total_bytes(&padded),
            Ok(plain.len() as u64)
        );
    }
}
