//! symbfile reader on damaged valid files: generated records are written with the
//! writer (a chosen window size), a few bytes are edited, and the reader runs on the result.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob_build::symbfile::{SymbfileWriter, WriterOptions};
use symblob_fuzz::mutate::{apply, Edit};
use symblob_fuzz::symbfile::{read, records, GenRecord};

#[derive(Arbitrary, Debug)]
struct Input {
    records: Vec<GenRecord>,
    window: u8,
    edits: Vec<Edit>,
    probes: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let mut writer = SymbfileWriter::with_options(WriterOptions {
        window_records: usize::from(input.window).max(1),
    });
    writer
        .extend(&records(&input.records))
        .expect("sorted rows encode");
    let mut file = writer.finish().expect("small records encode");
    apply(&mut file, &input.edits[..input.edits.len().min(8)]);
    read(&file, &input.probes);
});
