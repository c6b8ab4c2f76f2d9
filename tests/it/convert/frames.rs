//! The frames each format's reader answers for an address, in one shape: (function,
//! file, line), innermost first, as `symblob lookup` prints them.

use symblob::ksym::{KsymBlob, Ksyms, TextRanges};
use symblob::lidia::LidiaFile;
use symblob::symbfile::{Range, SymbFile};
use symblob_build::convert::{Format, Target};
use symblob_build::readback;
use symblob_build::symbfile::index::SymbfileIndex;

use crate::lidia_dwarf::oracle::Frame;

/// The frames of every address of `addrs` in the file `bytes` of format `format`.
pub fn answers(format: Target, bytes: &[u8], addrs: &[u64]) -> Vec<Vec<Frame>> {
    match format {
        Target::Ksym => ksym(bytes, addrs),
        Target::Lidia => {
            let file = LidiaFile::parse(bytes).expect("Lidia parses");
            addrs
                .iter()
                .map(|&a| crate::lidia_dwarf::frames(&file, a))
                .collect()
        }
        Target::Symbfile => symbfile(bytes, addrs),
        Target::Gsym => gsym(bytes, addrs),
        Target::Breakpad => {
            let sym =
                breakpad_symbols::SymbolFile::from_bytes(bytes).expect("breakpad-symbols parses");
            addrs
                .iter()
                .map(|&a| crate::breakpad::reader::reference(&sym, a))
                .collect()
        }
    }
}

/// ksym-bin: one frame, the symbol's name, with the blob's own text ranges (what
/// `symblob ksym lookup` uses by default).
fn ksym(bytes: &[u8], addrs: &[u64]) -> Vec<Vec<Frame>> {
    assert_eq!(Format::detect(bytes), Some(Format::Ksym));
    let blob = KsymBlob::parse(bytes).expect("ksym parses");
    let ranges = readback::ksym::text_ranges(&blob);
    let Ok(text) = TextRanges::new(&ranges) else {
        return addrs.iter().map(|_| Vec::new()).collect();
    };
    let ksyms = Ksyms::new(blob, text);
    addrs
        .iter()
        .map(|&a| match ksyms.lookup_address(a) {
            Some(s) => {
                let name: Vec<u8> = s.name.bytes().collect();
                vec![(
                    String::from_utf8_lossy(&name).into_owned(),
                    String::new(),
                    0,
                )]
            }
            None => Vec::new(),
        })
        .collect()
}

/// symbfile: the covering range records through the index, the position in each outer
/// frame being the call site of the frame inside it (as `symblob symbfile lookup`).
fn symbfile(bytes: &[u8], addrs: &[u64]) -> Vec<Vec<Frame>> {
    let file = SymbFile::parse(bytes).expect("symbfile parses");
    let index = SymbfileIndex::new(file).expect("index");
    let mut ranges = vec![Range::EMPTY; 256];
    addrs
        .iter()
        .map(|&addr| {
            let found = index.lookup_ranges(addr, &mut ranges).expect("lookup");
            let kept = &ranges[..found.min(ranges.len())];
            let mut frames: Vec<Frame> = kept
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let (file, line) = match kept.get(i + 1) {
                        Some(inner) => (inner.call_file.or(r.file), inner.call_line.unwrap_or(0)),
                        None => (r.file, r.line_at(addr).unwrap_or(0)),
                    };
                    (
                        r.func.to_string(),
                        file.unwrap_or("").to_string(),
                        u64::from(line),
                    )
                })
                .collect();
            frames.reverse();
            frames
        })
        .collect()
}

/// GSYM: the frames of our reader (equal to `llvm-gsymutil`'s, tested in `gsym`), the
/// path joined from directory and base name as `llvm-gsymutil` prints it; no frames where
/// the lookup fails.
fn gsym(bytes: &[u8], addrs: &[u64]) -> Vec<Vec<Frame>> {
    let file = symblob::gsym::GsymFile::parse(bytes).expect("GSYM parses");
    addrs
        .iter()
        .map(|&a| match file.lookup(a) {
            Ok(Some(found)) => found
                .frames()
                .map(|f| {
                    let (dir, base) = (f.dir.to_string(), f.base.to_string());
                    let base = match base.is_empty() {
                        true if !dir.is_empty() => "<invalid-file>".to_owned(),
                        _ => base,
                    };
                    let path = match dir.as_str() {
                        "" => base,
                        d if d.contains('\\') && !d.contains('/') => format!("{d}\\{base}"),
                        d => format!("{d}/{base}"),
                    };
                    (f.name.to_string(), path, u64::from(f.line))
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// For each of `addrs`, whether the lookup in the GSYM file `bytes` fails with an error
/// (not merely finding no function).
pub fn gsym_failures(bytes: &[u8], addrs: &[u64]) -> Vec<bool> {
    let file = symblob::gsym::GsymFile::parse(bytes).expect("GSYM parses");
    addrs.iter().map(|&a| file.lookup(a).is_err()).collect()
}
