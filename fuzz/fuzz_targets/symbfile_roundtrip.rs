//! symbfile round trip: generated records written with any window size and cut into
//! parts decode to the same records, and sweep lookups agree with a scan of the records.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use symblob_build::symbfile::{decode, parts, SymbfileWriter, WriterOptions};
use symblob_fuzz::symbfile::{read, records, GenRecord};

#[derive(Arbitrary, Debug)]
struct Input {
    records: Vec<GenRecord>,
    window: u8,
    part_size: u16,
    probes: Vec<u64>,
}

fuzz_target!(|input: Input| {
    let records = records(&input.records);
    let options = WriterOptions {
        window_records: usize::from(input.window).max(1),
    };
    let mut writer = SymbfileWriter::with_options(options);
    writer.extend(&records).expect("sorted rows encode");
    let file = writer.finish().expect("small records encode");
    assert_eq!(decode(&file).expect("own output decodes"), records);
    let mut probes = input.probes.clone();
    probes.extend(records.iter().map(|r| r.va()));
    assert_eq!(read(&file, &probes).as_ref(), Some(&records));

    let cut = parts::split(&records, Some(u64::from(input.part_size)), options).expect("parts");
    let mut again = Vec::new();
    for part in &cut {
        again.extend(decode(part).expect("every part is a complete file"));
    }
    assert_eq!(again, records);
});
