//! Part files (spec §9): a record stream cut into complete, self-contained symbfiles, each
//! with its own header, string tables and an absolute VA on its first record.
//!
//! A range file is cut only before a depth-0 record, so a function and its inline records
//! always travel together; return pads may be cut before any record. Parts are filled
//! greedily in file order while an upper bound of their encoded size stays within the
//! limit; a single function whose records alone exceed it becomes a part of its own.

use crate::Result;

use super::record::Record;
use super::writer::{SymbfileWriter, WriterOptions};

/// Bytes of the magic, the header and one string-table prefix.
const FILE_OVERHEAD: u64 = 8 + 2 + 6;

/// An upper bound of the bytes a record adds to a part: each string counted as written
/// inline (at most its length + 6 bytes, and at most 6 bytes as a reference) plus once more
/// for a possible table entry.
fn size_bound(record: &Record) -> u64 {
    let string = |s: &str| 2 * (s.len() as u64 + 6);
    let body = match record {
        Record::Range(r) => {
            11 + 11
                + string(&r.func)
                + r.file.as_deref().map_or(0, string)
                + r.call_file.as_deref().map_or(0, string)
                + 6
                + 6
                + 12
                + 10 * r.lines.len() as u64
        }
        Record::ReturnPad(p) => {
            11 + 18
                + p.entries
                    .iter()
                    .map(|e| 15 + string(&e.func) + string(e.file.as_deref().unwrap_or("")))
                    .sum::<u64>()
        }
    };
    body + 6
}

/// Cuts `records` into parts of at most `max_part_size` bytes each (see the module
/// documentation); `None` gives one part. Every part is a complete symbfile.
pub fn split(
    records: &[Record],
    max_part_size: Option<u64>,
    options: WriterOptions,
) -> Result<Vec<Vec<u8>>> {
    let limit = max_part_size.unwrap_or(u64::MAX);
    let mut parts = Vec::new();
    let mut writer = SymbfileWriter::with_options(options);
    let mut bound = FILE_OVERHEAD;
    let mut i = 0;
    while i < records.len() {
        // The group: this record and the inline records that follow it.
        let end = records[i + 1..]
            .iter()
            .position(Record::starts_group)
            .map_or(records.len(), |n| i + 1 + n);
        let group = &records[i..end];
        let group_bound: u64 = group.iter().map(size_bound).sum();
        if !writer.is_empty() && bound + group_bound > limit {
            parts.push(
                std::mem::replace(&mut writer, SymbfileWriter::with_options(options)).finish()?,
            );
            bound = FILE_OVERHEAD;
        }
        writer.extend(group)?;
        bound += group_bound;
        i = end;
    }
    parts.push(writer.finish()?);
    Ok(parts)
}
