//! ksym-bin reader on damaged valid blobs: a generated symbol set is built into a blob,
//! a few bytes are edited, and the reader runs on the result at a chosen alignment
//! (ksym-bin v2 when `max_tokens` has [`V2_BIT`] set).

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob_fuzz::gen::{build_blob, GenSymbols, V2_BIT};
use symblob_fuzz::mutate::{apply, Edit};
use symblob_fuzz::{at_offset, reader};

#[derive(Arbitrary, Debug)]
struct Input {
    symbols: GenSymbols,
    max_tokens: u16,
    edits: Vec<Edit>,
    offset: u8,
    probes: Vec<u64>,
    names: Vec<Vec<u8>>,
}

fuzz_target!(|input: Input| {
    let symbols = input.symbols.symbols();
    let built = build_blob(&symbols, input.max_tokens);
    let mut blob = built;
    apply(&mut blob, &input.edits[..input.edits.len().min(8)]);
    let offset = usize::from(input.offset % 8);
    let shifted = at_offset(&blob, offset);
    let names: Vec<&[u8]> = input.names.iter().map(Vec::as_slice).collect();
    if input.max_tokens & V2_BIT != 0 {
        reader::ksym_v2(&shifted[offset..], &input.probes, &names);
    } else {
        reader::ksym(&shifted[offset..], &input.probes, &names);
    }
});
