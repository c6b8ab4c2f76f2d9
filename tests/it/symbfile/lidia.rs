//! symbfile → Lidia (`symblob convert`): the Lidia reader answers every address as a
//! symbfile sweep does.

use symblob::lidia::LidiaFile;
use symblob::symbfile::{Range, SymbFile};
use symblob_build::convert::{convert, ConvertOptions, Target};
use symblob_build::symbfile::{decode, Record};

use crate::common::shared_testdata;

/// `bytes` converted to `to` by `symblob convert`'s library.
fn converted(bytes: &[u8], to: Target) -> Vec<u8> {
    let name = std::path::Path::new("input");
    convert(name, bytes, to, &ConvertOptions::default())
        .unwrap()
        .bytes
}

/// Every start, end − 1 and middle address of every range, plus the byte after each.
fn probes(records: &[Record]) -> Vec<u64> {
    let mut out = Vec::new();
    for r in records {
        if let Record::Range(r) = r {
            for a in [
                r.va,
                r.va + r.length / 2,
                (r.va + r.length).saturating_sub(1),
                r.va + r.length,
            ] {
                out.push(a);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// (function, depth, line) of the frames a symbfile sweep gives, outermost first.
fn sweep(file: &SymbFile<'_>, addr: u64) -> Vec<(String, u64)> {
    let mut scratch = vec![""; 4096];
    let mut out = [Range::EMPTY; 64];
    let n = file.lookup_ranges(addr, &mut scratch, &mut out).unwrap();
    out[..n]
        .iter()
        .map(|r| (r.func.to_owned(), u64::from(r.depth)))
        .collect()
}

fn lidia_frames(lidia: &LidiaFile<'_>, addr: u64) -> Vec<(String, u64)> {
    let mut frames: Vec<(String, u64)> = lidia
        .lookup(addr)
        .map(|f| (String::from_utf8_lossy(&f.function).into_owned(), f.depth))
        .collect();
    frames.reverse();
    frames
}

#[test]
fn symbfile_to_lidia_lookups_agree_with_sweeps() {
    let mut files = vec!["symbfile/upstream/inl.symbfile".to_owned()];
    for elf in ["inl", "simple", "libdemo.so", "gohello"] {
        files.push(format!("symbfile/symblib/{elf}.ranges.symbfile"));
    }
    for rel in files {
        let Some(path) = shared_testdata(&rel) else {
            return;
        };
        let bytes = std::fs::read(path).unwrap();
        let records = decode(&bytes).unwrap();
        let converted = converted(&bytes, Target::Lidia);
        let lidia = LidiaFile::parse(&converted).unwrap();
        assert_eq!(lidia.len(), records.len());
        lidia.validate().unwrap();
        let file = SymbFile::parse(&bytes).unwrap();
        let mut checked = 0;
        // Each sweep reads the whole file: at most ~600 probes, spread over the file.
        let probes = probes(&records);
        let step = probes.len().div_ceil(600).max(1);
        for addr in probes.into_iter().step_by(step) {
            let expected = sweep(&file, addr);
            assert_eq!(lidia_frames(&lidia, addr), expected, "{rel} at {addr:#x}");
            checked += usize::from(!expected.is_empty());
        }
        assert!(checked > 0, "{rel}");
    }
}

#[test]
fn symbfile_lidia_round_trip_keeps_the_records() {
    let Some(path) = shared_testdata("symbfile/symblib/inl.ranges.symbfile") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let lidia = converted(&bytes, Target::Lidia);
    let back = decode(&converted(&lidia, Target::Symbfile)).unwrap();
    let mut expected = decode(&bytes).unwrap();
    // Lidia stores ranges sorted by (VA, depth).
    expected.sort_by_key(|r| match r {
        Record::Range(r) => (r.va, r.depth),
        Record::ReturnPad(_) => unreachable!(),
    });
    assert_eq!(back, expected);
}
