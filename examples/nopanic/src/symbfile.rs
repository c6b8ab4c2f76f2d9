//! Every symbfile entry point, on the input bytes: parse, framing, validation with and
//! without scratch, records with line tables and return-pad entries, string tables, both
//! lookups, and the random access an index uses (heads, records decoded at an offset).

use core::fmt::Write;

use symblob::symbfile::{Head, Range, Record, StringTable, Strings, SymbFile};

use crate::digest::Digest;
use crate::parsed;
use crate::rt::Console;

pub fn check(input: &[u8], out: &mut Console) {
    let Some(file) = parsed(SymbFile::parse(input), "symbfile", out) else {
        return;
    };
    let mut digest = Digest::new();
    for m in file.messages() {
        match m {
            Ok(m) => digest.number(m.offset ^ u64::from(m.kind) ^ m.body.len() as u64),
            Err(e) => {
                let _ = write!(digest, "{e}");
            }
        }
    }
    let mut scratch = [""; 256];
    match file.validate(&mut []) {
        Ok(c) => {
            let _ = writeln!(
                out,
                "symbfile: {} ranges, {} return pads, {} string tables",
                c.ranges, c.return_pads, c.string_tables
            );
        }
        Err(e) => {
            let _ = writeln!(out, "symbfile validate: {e}");
        }
    }
    let mut probes = [0u64; 32];
    let mut n = 0;
    let mut records = file.records(&mut scratch);
    loop {
        match records.next() {
            Ok(Some(Record::Range(r))) => {
                digest.number(r.va ^ r.length ^ u64::from(r.depth));
                for s in [Some(r.func), r.file, r.call_file].into_iter().flatten() {
                    digest.bytes(s.as_bytes());
                }
                digest.number(u64::from(r.call_line.unwrap_or(0)));
                for row in r.line_table.iter() {
                    digest.number(u64::from(row.offset) ^ u64::from(row.line));
                }
                digest.number(u64::from(r.line_at(r.va.wrapping_add(1)).unwrap_or(0)));
                if let Some(slot) = probes.get_mut(n) {
                    *slot = r.va.wrapping_add(r.length / 2);
                    n = n.saturating_add(1);
                }
            }
            Ok(Some(Record::ReturnPad(p))) => {
                digest.number(p.va ^ u64::from(p.len()));
                for e in p.entries() {
                    digest.bytes(e.func.as_bytes());
                    digest.bytes(e.file.unwrap_or("").as_bytes());
                    digest.number(u64::from(e.line.unwrap_or(0)));
                }
                if let Some(slot) = probes.get_mut(n) {
                    *slot = p.va;
                    n = n.saturating_add(1);
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = write!(digest, "{e}");
                break;
            }
        }
        let table = records.string_table();
        for s in table.iter().take(2).flatten() {
            digest.bytes(s.1.as_bytes());
        }
        if let Ok(Some(s)) = table.get(1) {
            digest.bytes(s.as_bytes());
        }
    }
    let mut frames = [Range::EMPTY; 16];
    for &addr in probes.get(..n).unwrap_or(&[]) {
        match file.lookup_ranges(addr, &mut scratch, &mut frames) {
            Ok(found) => {
                for f in frames.iter().take(found) {
                    let _ = write!(digest, "{}", f.func);
                }
            }
            Err(e) => {
                let _ = write!(digest, "{e}");
            }
        }
        match file.lookup_return_pad(addr, &mut scratch) {
            Ok(Some(p)) => {
                for e in p.entries() {
                    digest.bytes(e.func.as_bytes());
                }
            }
            Ok(None) => {}
            Err(e) => {
                let _ = write!(digest, "{e}");
            }
        }
    }
    heads(&file, &mut digest);
    let _ = writeln!(out, "symbfile digest: {:016x}", digest.value());
}

/// Each record decoded again from its head, its strings from the table before it.
fn heads(file: &SymbFile<'_>, digest: &mut Digest) {
    let mut slots = [""; 256];
    let mut table = StringTable::default();
    let mut filled = 0;
    for head in file.heads() {
        let head = match head {
            Ok(h) => h,
            Err(e) => {
                let _ = write!(digest, "{e}");
                break;
            }
        };
        let strings = Strings::from_slots(table, slots.get(..filled).unwrap_or(&[]));
        match head {
            Head::StringTable { table: t, .. } => {
                table = t;
                filled = match t.index(&mut slots) {
                    Ok(n) => (n as usize).min(slots.len()),
                    Err(_) => 0,
                };
            }
            Head::Range { offset, va, length } => match file.range_at(offset, va, strings) {
                Ok(r) => digest.number(r.va ^ length ^ r.func.len() as u64),
                Err(e) => {
                    let _ = write!(digest, "{e}");
                }
            },
            Head::ReturnPad { offset, va } => match file.return_pad_at(offset, va, strings) {
                Ok(p) => {
                    for e in p.entries() {
                        digest.bytes(e.func.as_bytes());
                    }
                }
                Err(e) => {
                    let _ = write!(digest, "{e}");
                }
            },
        }
    }
}
