//! Lidia reader on arbitrary bytes: parse, checksums, validation, range iteration,
//! strings, line tables and lookups, at the input's own alignment and shifted by an odd
//! offset.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::lidia::LidiaFile;
use symblob_fuzz::{at_offset, odd_offset, probes, reader};

fuzz_target!(|data: &[u8]| {
    let probes = probes(data);
    reader::lidia(data, &probes);

    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    let moved = &shifted[offset..];
    reader::lidia(moved, &probes);
    let here = LidiaFile::parse(data);
    let there = LidiaFile::parse(moved);
    assert_eq!(here.err(), there.err());
    if let (Ok(a), Ok(b)) = (here, there) {
        assert_eq!(a.verify_checksums(), b.verify_checksums());
        assert_eq!(a.validate(), b.validate());
        for &p in &probes {
            assert!(a.lookup(p).eq(b.lookup(p)));
        }
    }
});
