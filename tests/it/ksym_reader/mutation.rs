//! Hostile bytes: random corruptions of a valid blob never make the reader panic, loop or
//! read out of bounds, and whatever parses keeps every accessor total.

use proptest::prelude::*;
use symblob::ksym::{KsymBlob, Ksyms, TextRanges};

use super::support::{origin, read};

fn seed() -> Vec<u8> {
    read(origin("alias-dup-6.bin"))
}

/// Exercises every accessor of a blob that parsed.
fn use_everything(bytes: &[u8], probes: &[u64]) {
    let Ok(blob) = KsymBlob::parse(bytes) else {
        return;
    };
    assert!(blob.used_size() <= bytes.len());
    let mut out = String::new();
    blob.dump(&mut out).unwrap();
    // A corrupted name may hold a newline, so count lines by their fixed prefix.
    assert!(out.len() >= blob.len() * 20);
    assert_eq!(blob.symbols().count(), blob.len());
    let _ = blob.validate();
    for e in blob.symbols_by_name() {
        let name = e.name.to_string();
        // Every stored name is found unless the table is unsorted; either way, no panic.
        let _ = blob.lookup_name(&name);
    }
    let ksyms = Ksyms::new(blob, TextRanges::single(0, u64::MAX).unwrap());
    // Batched lookups answer what single ones answer, whatever the bytes.
    ksyms.lookup_address_each(probes, |i, s| {
        assert_eq!(s, ksyms.lookup_address(probes[i]))
    });
    for &p in probes {
        if let Some(s) = ksyms.lookup_address(p) {
            assert!(s.index < blob.len());
            assert!(s.offset <= p);
        }
        let _ = ksyms.lookup_return_address(p);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mutated_blobs_never_panic(
        edits in prop::collection::vec((0usize..256, any::<u8>()), 1..6),
        cut in 0usize..300,
        probes in prop::collection::vec(0x0fffu64..0x1600, 8),
    ) {
        let mut bytes = seed();
        for (at, value) in edits {
            if let Some(b) = bytes.get_mut(at) {
                *b = value;
            }
        }
        bytes.truncate(cut.max(bytes.len().saturating_sub(cut)));
        use_everything(&bytes, &probes);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        use_everything(&bytes, &[0, 1, 0x1000, u64::MAX]);
    }
}
