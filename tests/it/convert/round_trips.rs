//! A → B → A gives A's bytes back wherever B holds every fact of A, and A → A is the
//! identity.

use symblob_build::convert::Target;

use super::{built, converted, programs, TARGETS};

/// Converts `bytes` (format `from`) through `via` and back.
fn round_trip(name: &str, bytes: &[u8], from: Target, via: Target) -> Vec<u8> {
    let there = converted(name, bytes, via);
    converted(name, &there, from)
}

#[test]
fn every_format_rewritten_as_itself_is_unchanged() {
    for (name, bin) in programs() {
        for format in TARGETS {
            let bytes = built(&bin, format);
            assert!(
                converted(name, &bytes, format) == bytes,
                "{name}: {format:?} to itself changed"
            );
        }
    }
}

#[test]
fn lidia_and_symbfile_round_trip_through_each_other() {
    for (name, bin) in programs() {
        // Lidia from DWARF → symbfile → Lidia.
        let lidia = built(&bin, Target::Lidia);
        assert!(
            round_trip(name, &lidia, Target::Lidia, Target::Symbfile) == lidia,
            "{name}: Lidia through symbfile changed"
        );
        // symbfile (from that Lidia) → Lidia → symbfile.
        let symbfile = converted(name, &lidia, Target::Symbfile);
        assert!(
            round_trip(name, &symbfile, Target::Symbfile, Target::Lidia) == symbfile,
            "{name}: symbfile through Lidia changed"
        );
    }
}

/// A blob of functions only (every symbol of type `T`, as convert writes them) holds
/// nothing Lidia and symbfile lose.
#[test]
fn function_only_ksym_round_trips_through_lidia_and_symbfile() {
    for (name, bin) in programs() {
        let lidia = built(&bin, Target::Lidia);
        let ksym = converted(name, &lidia, Target::Ksym);
        for via in [Target::Lidia, Target::Symbfile] {
            assert!(
                round_trip(name, &ksym, Target::Ksym, via) == ksym,
                "{name}: ksym-bin through {via:?} changed"
            );
        }
    }
}
