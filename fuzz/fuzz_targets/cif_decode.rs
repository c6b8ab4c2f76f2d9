//! CIF decoder on arbitrary bytes, in both layouts; every stream that decodes is
//! re-encoded in both modes and must decode to the same images. Also run shifted by an
//! odd offset, which must not change the result.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::cif::DecodeOptions;
use symblob_fuzz::{at_offset, odd_offset, reader};

fuzz_target!(|data: &[u8]| {
    reader::cif(data);

    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    let moved = &shifted[offset..];
    let options = DecodeOptions::default();
    assert_eq!(
        reader::cif_decode(data, options),
        reader::cif_decode(moved, options)
    );
});
