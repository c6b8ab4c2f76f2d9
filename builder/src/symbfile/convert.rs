//! Conversions between symbfile and Lidia.
//!
//! * symbfile → Lidia: every range record becomes a Lidia range with its file, call site
//!   and line table, so the indexed `no_std` Lidia reader answers an OpenTelemetry range
//!   file in O(log n) per address instead of a sweep. Return pads have no Lidia form and
//!   are counted, not converted.
//! * Lidia → symbfile: every Lidia range becomes a range record (in Lidia's table order,
//!   which is by VA then depth, so each function precedes its inline records).

use symblob::lidia::LidiaFile;
use symblob::symbfile::{Record as View, SymbFile};

use crate::lidia::{Flags, LidiaWriter, LineEntry, RangeSpec};
use crate::Result;

use super::record::{LineRow, RangeRecord, Record, SCRATCH_SLOTS};
use super::writer::SymbfileWriter;

/// What a conversion to Lidia produced.
#[derive(Clone, Debug)]
pub struct ToLidia {
    /// The Lidia file.
    pub bytes: Vec<u8>,
    /// Range records converted.
    pub ranges: u64,
    /// Return-pad records skipped.
    pub return_pads: u64,
}

/// Converts the range records of a symbfile into a Lidia file with files and lines.
pub fn symbfile_to_lidia(symbfile: &[u8]) -> Result<ToLidia> {
    let file = SymbFile::parse(symbfile)?;
    let mut scratch = vec![""; SCRATCH_SLOTS];
    let mut records = file.records(&mut scratch);
    let mut writer = LidiaWriter::new(Flags {
        files: true,
        lines: true,
    });
    let (mut ranges, mut return_pads) = (0, 0);
    let mut lines = Vec::new();
    while let Some(record) = records.next()? {
        match record {
            View::Range(r) => {
                lines.clear();
                lines.extend(r.line_table.iter().map(|row| LineEntry {
                    offset: u64::from(row.offset),
                    line: u64::from(row.line),
                }));
                writer.add(&RangeSpec {
                    va: r.va,
                    length: r.length,
                    depth: u64::from(r.depth),
                    function: r.func.as_bytes(),
                    file: r.file.unwrap_or("").as_bytes(),
                    call_file: r.call_file.unwrap_or("").as_bytes(),
                    call_line: u64::from(r.call_line.unwrap_or(0)),
                    lines: &lines,
                });
                ranges += 1;
            }
            View::ReturnPad(_) => return_pads += 1,
        }
    }
    Ok(ToLidia {
        bytes: writer.finish(),
        ranges,
        return_pads,
    })
}

/// The range records of a Lidia file (empty strings become absent fields; line values
/// beyond `u32` are clamped, which Lidia files of real programs never hold).
pub fn lidia_records(lidia: &[u8]) -> Result<Vec<Record>> {
    let file = LidiaFile::parse(lidia)?;
    let text = |s: &[u8]| String::from_utf8_lossy(s).into_owned();
    let some = |s: &[u8]| (!s.is_empty()).then(|| text(s));
    let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    Ok(file
        .ranges()
        .map(|r| {
            Record::Range(RangeRecord {
                va: r.va,
                length: r.length,
                func: text(&r.function),
                file: some(&r.file),
                call_file: some(&r.call_file),
                call_line: (r.call_line != 0).then(|| clamp(r.call_line)),
                depth: clamp(r.depth),
                lines: r
                    .lines
                    .iter()
                    .map(|e| LineRow {
                        offset: clamp(e.offset),
                        line: clamp(e.line),
                    })
                    .collect(),
            })
        })
        .collect())
}

/// Converts a Lidia file into a range symbfile.
pub fn lidia_to_symbfile(lidia: &[u8]) -> Result<Vec<u8>> {
    let mut writer = SymbfileWriter::new();
    writer.extend(&lidia_records(lidia)?)?;
    writer.finish()
}
