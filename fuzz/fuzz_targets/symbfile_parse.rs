//! symbfile reader on arbitrary bytes: parse, validation with several scratch sizes,
//! records, line tables, return-pad entries, string tables and sweep lookups, at the
//! input's own alignment and shifted by an odd offset.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob_fuzz::{at_offset, odd_offset, probes, symbfile};

fuzz_target!(|data: &[u8]| {
    let probes = probes(data);
    let here = symbfile::read(data, &probes);
    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    assert_eq!(symbfile::read(&shifted[offset..], &probes), here);
});
