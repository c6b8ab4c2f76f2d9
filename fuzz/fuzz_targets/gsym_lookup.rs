//! GSYM lookups inside one function: the input is the function's size, an address and
//! its chunk list (line programs, inline trees, unknown chunks) in a valid file, so the
//! fuzzer works on the decoders a lookup runs rather than on the header.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob_fuzz::gsym;

#[derive(Arbitrary, Debug)]
struct Input {
    size: u16,
    offsets: Vec<u16>,
    chunks: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let file = gsym::template(u32::from(input.size), &input.chunks);
    let probes: Vec<u64> = input
        .offsets
        .iter()
        .map(|&o| 0x1000 + u64::from(o))
        .chain([0xfff, 0x1000])
        .collect();
    gsym::gsym(&file, &probes);
});
