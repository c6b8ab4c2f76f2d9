//! Format detection on arbitrary bytes: never a panic, the same answer at any alignment,
//! and an answer that agrees with the parsers: a kind that is claimed holds the
//! structure it was recognised by, and bytes a parser accepts in full are detected as
//! its format.

#![no_main]

use libfuzzer_sys::fuzz_target;
use symblob::cif::{DecodeOptions, Decoder};
use symblob::gsym::GsymFile;
use symblob::ksym::KsymBlob;
use symblob::lidia::LidiaFile;
use symblob::symbfile::SymbFile;
use symblob::{detect, Detected, Format};
use symblob_fuzz::{at_offset, odd_offset};

fuzz_target!(|data: &[u8]| {
    let found = detect(data);
    let offset = odd_offset(data);
    let shifted = at_offset(data, offset);
    assert_eq!(detect(&shifted[offset..]), found);

    assert_eq!(found == Detected::Empty, data.is_empty());
    match found {
        // v2 is recognised by its magic alone (the parser then says what else is wrong).
        Detected::Blob(Format::Ksym) => assert!(
            KsymBlob::parse_trusted(data).is_ok() || data.starts_with(&symblob::ksym::v2::MAGIC)
        ),
        Detected::Blob(Format::Cif) => {
            assert!(Decoder::new(data, DecodeOptions::default(), &mut []).is_ok())
        }
        _ => {}
    }
    // Bytes a parser accepts are its format (the magic formats) or, for ksym-bin, which
    // has no magic number, ksym-bin unless a magic number came first.
    if SymbFile::parse(data).is_ok() {
        assert_eq!(found, Detected::Blob(Format::Symbfile));
    }
    if LidiaFile::parse(data).is_ok() {
        assert_eq!(found, Detected::Blob(Format::Lidia));
    }
    if GsymFile::parse(data).is_ok() {
        assert_eq!(found, Detected::Blob(Format::Gsym));
    }
    if KsymBlob::parse(data).is_ok() {
        assert!(
            matches!(
                found,
                Detected::Blob(Format::Ksym | Format::Lidia | Format::Symbfile | Format::Gsym)
                    | Detected::Elf
                    | Detected::Gzip
            ),
            "{found:?}"
        );
    }
});
