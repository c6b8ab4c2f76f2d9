//! Breakpad `.sym` reader on arbitrary bytes: reading never panics; what it reads keeps
//! the model's invariants (functions sorted, each group's spans inside its depth-0 span
//! and sorted) and converts to a Lidia file that parses and answers lookups at every
//! function start.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::lidia::LidiaFile;
use symblob_build::lidia::model::write_model;
use symblob_build::readback::breakpad;

fuzz_target!(|data: &[u8]| {
    // Most inputs the fuzzer makes do not start with MODULE; let it reach the records.
    let mut with_module = b"MODULE Linux x86_64 00 f\n".to_vec();
    with_module.extend_from_slice(data);
    for bytes in [data, &with_module[..]] {
        let Ok(source) = breakpad::read(bytes, "fuzz.sym") else {
            continue;
        };
        let functions = &source.model.functions;
        assert!(functions.windows(2).all(|w| w[0].start() <= w[1].start()));
        for g in functions {
            let (start, end) = (g.start(), g.end());
            assert!(g.spans[0].depth == 0);
            assert!(g
                .spans
                .windows(2)
                .all(|w| (w[0].start, w[0].depth) <= (w[1].start, w[1].depth)));
            assert!(g.spans.iter().all(|s| start <= s.start && s.end <= end));
        }
        let lidia = write_model(&source.model);
        let file = LidiaFile::parse(&lidia).expect("the Lidia file of a model parses");
        for g in functions.iter().take(64) {
            let _ = file.lookup(g.start()).count();
        }
    }
});
