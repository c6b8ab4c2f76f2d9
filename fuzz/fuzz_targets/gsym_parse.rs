//! GSYM reader on arbitrary bytes: parse, validation, iteration, file table and lookups,
//! at the input's own alignment and shifted by an odd offset, with the same answers.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::gsym::{Frame, GsymFile, Lookup};
use symblob_fuzz::{at_offset, gsym, odd_offset, probes};

fuzz_target!(|data: &[u8]| {
    let probes = probes(data);
    gsym::gsym(data, &probes);

    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    let moved = &shifted[offset..];
    let here = GsymFile::parse(data);
    let there = GsymFile::parse(moved);
    assert_eq!(here.err(), there.err());
    if let (Ok(a), Ok(b)) = (here, there) {
        assert_eq!(a.validate(), b.validate());
        for &p in &probes {
            let (x, y) = (a.lookup(p), b.lookup(p));
            assert_eq!(x.is_ok(), y.is_ok());
            if let (Ok(x), Ok(y)) = (x, y) {
                assert_eq!(frames(x), frames(y));
            }
        }
    }
});

fn frames(found: Option<Lookup<'_>>) -> Option<Vec<Frame<'_>>> {
    found.map(|l| l.frames().collect())
}
