//! ksym builder on arbitrary ELF bytes: the ELF symbol reader and the blob build. An
//! error is fine; an accepted file must give a blob that parses and validates, and text
//! ranges the reader accepts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
use symblob_build::ksym::{BuildOptions, Demangle, InputOptions, TypeFilter};
use symblob_build::pipeline::ksym::build_from_elf;

fuzz_target!(|data: &[u8]| {
    let options = [
        InputOptions::default(),
        InputOptions {
            types: TypeFilter::new("TtWwu"),
            demangle: Demangle::Rust,
        },
    ];
    for input in &options {
        let Ok(elf) = build_from_elf(data, "input.elf", input, &BuildOptions::default()) else {
            continue;
        };
        let blob = KsymBlob::parse(&elf.blob.bytes).expect("a built blob parses");
        blob.validate().expect("a built blob validates");
        assert_eq!(blob.len() as u64, elf.blob.stats.symbols);
        if elf.text_ranges.is_empty() {
            continue;
        }
        let ranges = TextRanges::new(&elf.text_ranges).expect("text ranges are valid");
        let ksyms = Ksyms::new(blob, ranges);
        for sym in elf.symbols.symbols.iter().take(64) {
            let _ = ksyms.lookup_address(sym.address);
            assert!(blob.lookup_name(&sym.name).is_some());
        }
    }
});
