//! Lidia reader on damaged valid files: generated ranges are written with the Lidia
//! writer, a few bytes are edited, and the reader runs on the result at a chosen
//! alignment.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob_build::lidia::{Flags, LidiaWriter};
use symblob_fuzz::gen::GenRanges;
use symblob_fuzz::mutate::{apply, Edit};
use symblob_fuzz::{at_offset, reader};

#[derive(Arbitrary, Debug)]
struct Input {
    ranges: GenRanges,
    edits: Vec<Edit>,
    offset: u8,
    probes: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let ranges = input.ranges.ranges();
    let mut writer = LidiaWriter::new(Flags {
        files: input.ranges.files,
        lines: input.ranges.lines,
    });
    for range in &ranges {
        writer.add(&range.spec());
    }
    let mut file = writer.finish();
    apply(&mut file, &input.edits[..input.edits.len().min(8)]);
    let offset = usize::from(input.offset % 8);
    let shifted = at_offset(&file, offset);
    reader::lidia(&shifted[offset..], &input.probes);
});
