//! ksym-bin reader on arbitrary bytes: parse, validate, both iterations, the dump and
//! every kind of lookup, at the input's own alignment and shifted by an odd offset; the
//! same entry points after the O(1) trusted open; the drop-in `KallsymsMapped`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::ksym::KsymBlob;
use symblob_fuzz::{at_offset, compat, names, odd_offset, probes, reader};

fuzz_target!(|data: &[u8]| {
    let probes = probes(data);
    let names = names(data);
    reader::ksym(data, &probes, &names);
    reader::ksym_trusted(data, &probes, &names);
    compat::ksym_compat(data, &probes, &names);

    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    let moved = &shifted[offset..];
    reader::ksym(moved, &probes, &names);
    // Alignment changes nothing: same verdicts, same contents.
    let here = KsymBlob::parse(data);
    let there = KsymBlob::parse(moved);
    assert_eq!(here.err(), there.err());
    if let (Ok(a), Ok(b)) = (here, there) {
        assert_eq!(a.validate(), b.validate());
        assert!(a.symbols().eq(b.symbols()));
    }
});
