//! symbfile: the reader driven over one input, and generated records for the writer.

use arbitrary::Arbitrary;
use symblob::symbfile::{Range, Record as View, SymbFile};
use symblob_build::symbfile::index::SymbfileIndex;
use symblob_build::symbfile::{LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord};

/// Every reader entry point over `bytes`: parse, validation with three scratch sizes (all
/// must agree), the records with their line tables, pad entries and string tables, and a
/// sweep lookup per probe, checked against the decoded records, and the index's lookups,
/// which must equal the sweep's. Returns the ranges' and
/// pads' owned form when the file is valid.
pub fn read(bytes: &[u8], probes: &[u64]) -> Option<Vec<Record>> {
    let file = SymbFile::parse(bytes).ok()?;
    for m in file.messages() {
        if m.is_err() {
            break;
        }
    }
    let verdicts: Vec<_> = [0usize, 1, 64]
        .iter()
        .map(|&n| file.validate(&mut vec![""; n]))
        .collect();
    assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{verdicts:?}");
    let mut scratch = vec![""; 64];
    let mut records = file.records(&mut scratch);
    let mut owned = Vec::new();
    loop {
        match records.next() {
            Ok(Some(View::Range(r))) => {
                let rows: Vec<LineRow> = r.line_table.iter().collect();
                assert_eq!(rows.len(), r.line_table.len() as usize);
                assert!(rows.windows(2).all(|w| w[0].offset <= w[1].offset));
                let _ = r.line_at(r.va);
                owned.push(Record::Range((&r).into()));
            }
            Ok(Some(View::ReturnPad(p))) => {
                assert_eq!(p.entries().count(), p.len() as usize);
                owned.push(Record::ReturnPad((&p).into()));
            }
            Ok(None) => break,
            Err(_) => {
                assert!(verdicts[0].is_err());
                return None;
            }
        }
        for s in records.string_table().iter().take(4) {
            let _ = s;
        }
    }
    assert!(verdicts[0].is_ok());
    let mut out = [Range::EMPTY; 8];
    for &addr in probes.iter().take(16) {
        let n = file
            .lookup_ranges(addr, &mut scratch, &mut out)
            .expect("valid file");
        let covering: Vec<&RangeRecord> = owned
            .iter()
            .filter_map(|r| match r {
                Record::Range(r) if addr.checked_sub(r.va).is_some_and(|d| d < r.length) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(n, covering.len());
        for r in &out[..n.min(out.len())] {
            assert!(r.contains(addr));
        }
        assert!(out[..n.min(out.len())]
            .windows(2)
            .all(|w| w[0].depth <= w[1].depth));
        let pad = file
            .lookup_return_pad(addr, &mut scratch)
            .expect("valid file");
        let expected = owned.iter().find_map(|r| match r {
            Record::ReturnPad(p) if p.va == addr => Some(p.clone()),
            _ => None,
        });
        assert_eq!(pad.map(|p| ReturnPadRecord::from(&p)), expected);
    }
    index_is_the_sweep(&file, probes);
    Some(owned)
}

const NAMES: [&str; 8] = [
    "main",
    "f",
    "",
    "a::b<T>",
    "é",
    "inline.c",
    "/usr/include/x.h",
    "g",
];

fn name(pick: u8, own: &str) -> String {
    match NAMES.get(usize::from(pick)) {
        Some(n) => (*n).to_owned(),
        None => own.chars().take(16).collect(),
    }
}

/// A generated record.
#[derive(Arbitrary, Debug)]
pub enum GenRecord {
    /// A range.
    Range {
        /// Absolute VA, or a small step from the previous record.
        va: u64,
        /// Use `va` as a step from the previous VA.
        relative: bool,
        /// Length.
        length: u16,
        /// Names by pool index (an index past the pool uses `text`).
        names: [u8; 3],
        /// Which optional fields are present.
        present: u8,
        /// Call line and depth.
        call_line: u32,
        /// Depth.
        depth: u8,
        /// Line rows as (delta, line).
        rows: Vec<(u16, u32)>,
        /// Free text for names.
        text: String,
    },
    /// A return pad.
    Pad {
        /// VA.
        va: u64,
        /// Entries: (name pick, file pick, line).
        entries: Vec<(u8, u8, u32)>,
        /// Free text.
        text: String,
    },
}

/// Turns generated records into writer records.
pub fn records(gen: &[GenRecord]) -> Vec<Record> {
    let mut prev = 0u64;
    gen.iter()
        .take(256)
        .map(|g| {
            let r = match g {
                GenRecord::Range {
                    va,
                    relative,
                    length,
                    names,
                    present,
                    call_line,
                    depth,
                    rows,
                    text,
                } => {
                    let va = if *relative {
                        prev.wrapping_add(*va & 0xffff)
                    } else {
                        *va
                    };
                    let mut offset = 0u32;
                    Record::Range(RangeRecord {
                        va,
                        length: u64::from(*length),
                        func: name(names[0], text),
                        file: (present & 1 != 0).then(|| name(names[1], text)),
                        call_file: (present & 2 != 0).then(|| name(names[2], text)),
                        call_line: (*call_line != 0).then_some(*call_line),
                        depth: u32::from(*depth % 8),
                        lines: rows
                            .iter()
                            .take(32)
                            .map(|&(d, line)| {
                                offset = offset.saturating_add(u32::from(d));
                                LineRow { offset, line }
                            })
                            .collect(),
                    })
                }
                GenRecord::Pad { va, entries, text } => Record::ReturnPad(ReturnPadRecord {
                    va: *va,
                    entries: entries
                        .iter()
                        .take(8)
                        .map(|&(f, file, line)| PadEntry {
                            func: name(f, text),
                            file: Some(name(file, text)).filter(|s| !s.is_empty()),
                            line: (line != 0).then_some(line),
                        })
                        .collect(),
                }),
            };
            prev = r.va();
            r
        })
        .collect()
}

/// On a valid file the index answers every probe as the sweep does.
fn index_is_the_sweep(file: &SymbFile<'_>, probes: &[u64]) {
    let mut scratch = vec![""; 64];
    let index = SymbfileIndex::new(*file).expect("a valid file is indexed");
    for &addr in probes.iter().take(16) {
        let (mut swept, mut indexed) = ([Range::EMPTY; 4], [Range::EMPTY; 4]);
        let n = file
            .lookup_ranges(addr, &mut scratch, &mut swept)
            .expect("valid file");
        assert_eq!(index.lookup_ranges(addr, &mut indexed).ok(), Some(n));
        assert_eq!(indexed, swept);
        let pad = file
            .lookup_return_pad(addr, &mut scratch)
            .expect("valid file");
        let indexed = index.lookup_return_pad(addr).expect("valid file");
        assert_eq!(
            indexed.map(|p| ReturnPadRecord::from(&p)),
            pad.map(|p| ReturnPadRecord::from(&p))
        );
    }
}
