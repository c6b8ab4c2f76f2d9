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
    let mut parts = Vec::new();
    let mut splitter = PartSplitter::new(max_part_size, options);
    for r in records {
        parts.extend(splitter.push(r.clone())?);
    }
    parts.extend(splitter.finish()?);
    Ok(parts)
}

/// The streaming form of [`split`]: records go in one by one, each part comes out as soon
/// as the first record that does not fit in it arrives. Memory holds one part and one
/// group (a depth-0 record and its inline records).
pub struct PartSplitter {
    limit: u64,
    options: WriterOptions,
    writer: SymbfileWriter,
    bound: u64,
    group: Vec<Record>,
    group_bound: u64,
}

impl PartSplitter {
    /// A splitter into parts of at most `max_part_size` bytes (`None`: one part).
    pub fn new(max_part_size: Option<u64>, options: WriterOptions) -> Self {
        PartSplitter {
            limit: max_part_size.unwrap_or(u64::MAX),
            options,
            writer: SymbfileWriter::with_options(options),
            bound: FILE_OVERHEAD,
            group: Vec::new(),
            group_bound: 0,
        }
    }

    /// Adds a record; returns the part it completes, if any.
    pub fn push(&mut self, record: Record) -> Result<Option<Vec<u8>>> {
        let part = if record.starts_group() {
            self.end_group()?
        } else {
            None
        };
        self.group_bound += size_bound(&record);
        self.group.push(record);
        Ok(part)
    }

    /// Ends the stream: returns the remaining parts (one or two; an empty stream gives one
    /// empty part).
    pub fn finish(mut self) -> Result<Vec<Vec<u8>>> {
        let mut parts: Vec<Vec<u8>> = self.end_group()?.into_iter().collect();
        parts.push(self.writer.finish()?);
        Ok(parts)
    }

    /// Moves the buffered group into the current part, first closing the part when the
    /// group does not fit; returns the closed part.
    fn end_group(&mut self) -> Result<Option<Vec<u8>>> {
        if self.group.is_empty() {
            return Ok(None);
        }
        let mut closed = None;
        if !self.writer.is_empty() && self.bound + self.group_bound > self.limit {
            let fresh = SymbfileWriter::with_options(self.options);
            closed = Some(std::mem::replace(&mut self.writer, fresh).finish()?);
            self.bound = FILE_OVERHEAD;
        }
        for r in self.group.drain(..) {
            self.writer.push(r)?;
        }
        self.bound += self.group_bound;
        self.group_bound = 0;
        Ok(closed)
    }
}
