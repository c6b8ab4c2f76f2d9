//! ksym-bin reader on arbitrary bytes: parse, validate, both iterations, the dump and
//! every kind of lookup, at the input's own alignment and shifted by an odd offset; the
//! same entry points after the O(1) trusted open; the drop-in `KallsymsMapped`; the v2
//! reader (inputs starting with `KSYMBIN2` get through its open).

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
    reader::ksym_v2(data, &probes, &names);

    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    let moved = &shifted[offset..];
    reader::ksym(moved, &probes, &names);
    reader::ksym_v2(moved, &probes, &names);
    // Alignment changes nothing: same verdicts, same contents.
    let here = KsymBlob::parse(data);
    let there = KsymBlob::parse(moved);
    assert_eq!(here.err(), there.err());
    if let (Ok(a), Ok(b)) = (here, there) {
        assert_eq!(a.validate(), b.validate());
        assert!(a.symbols().eq(b.symbols()));
    }
    let here = symblob::ksym::v2::Blob::open(data);
    let there = symblob::ksym::v2::Blob::open(moved);
    assert_eq!(here.err(), there.err());
    if let (Ok(a), Ok(b)) = (here, there) {
        assert_eq!(a.validate(), b.validate());
        assert!(a.symbols().eq(b.symbols()));
    }
});
