//! Records as JSON, in the shape of the reference model (`symbfile_ref.py dump --json` and
//! `write`): `{"records": [...]}` with `type`, `elf_va`, `length`, `func`, `file`,
//! `call_file`, `call_line`, `depth`, `line_table` (`[offset, line]` pairs) for ranges and
//! `type`, `elf_va`, `entries` (`func`, `file`, `line`) for return pads; absent values are
//! `null`. Reading also takes `elf_va` as a `"0x…"` string.

use serde_json::{json, Value};

use crate::{Error, Location, Result};

use super::record::{LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord};

/// The JSON document of `records`.
pub fn to_json(records: &[Record]) -> Value {
    let records: Vec<Value> = records.iter().map(record_json).collect();
    json!({ "records": records })
}

/// The JSON object of one record (an element of the `records` array).
pub fn record_json(record: &Record) -> Value {
    match record {
        Record::Range(r) => json!({
            "type": "range",
            "elf_va": r.va,
            "length": r.length,
            "func": r.func,
            "file": r.file,
            "call_file": r.call_file,
            "call_line": r.call_line,
            "depth": r.depth,
            "line_table": r.lines.iter().map(|l| [l.offset, l.line]).collect::<Vec<_>>(),
        }),
        Record::ReturnPad(p) => json!({
            "type": "return_pad",
            "elf_va": p.va,
            "entries": p.entries.iter().map(|e| json!({
                "func": e.func,
                "file": e.file,
                "line": e.line,
            })).collect::<Vec<_>>(),
        }),
    }
}

/// Records from a JSON document of that shape; `input` names it in errors.
pub fn from_json(doc: &Value, input: &str) -> Result<Vec<Record>> {
    let list = doc["records"]
        .as_array()
        .ok_or_else(|| Error::malformed(input, Location::Whole, "no \"records\" array"))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            parse_record(v)
                .map_err(|e| Error::malformed(input, Location::Index(i as u64), "").with_source(e))
        })
        .collect()
}

/// Why a JSON record cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// A field does not hold what it must.
    Field {
        /// The field, as the message names it (`"elf_va"`, `call_line`, `entry "func"`).
        field: String,
        /// What it must be (`a u32`, `a string`, …).
        expected: &'static str,
    },
    /// The record's `type` is neither `range` nor `return_pad`.
    UnknownType {
        /// The `type` found, if it is a string.
        found: Option<String>,
    },
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::Field { field, expected } => write!(f, "{field} is not {expected}"),
            RecordError::UnknownType { found } => write!(f, "unknown record type {found:?}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// A [`RecordError::Field`].
fn field(field: impl Into<String>, expected: &'static str) -> RecordError {
    RecordError::Field {
        field: field.into(),
        expected,
    }
}

fn parse_record(v: &Value) -> std::result::Result<Record, RecordError> {
    // Addresses may also be "0x…" strings, as `symblob symbfile dump --json` writes them.
    let u64_of = |key: &str| {
        let hex = |s: &str| {
            let digits = s.strip_prefix("0x")?;
            u64::from_str_radix(digits, 16).ok()
        };
        v[key]
            .as_u64()
            .or_else(|| v[key].as_str().and_then(hex))
            .ok_or_else(|| {
                field(
                    format!("{key:?}"),
                    "an unsigned integer or a \"0x…\" string",
                )
            })
    };
    let u32_of = |x: &Value, what: &str| {
        x.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| field(what, "a u32"))
    };
    let opt_str = |x: &Value| x.as_str().map(str::to_owned);
    let opt_u32 = |x: &Value, what: &str| match x {
        Value::Null => Ok(None),
        x => u32_of(x, what).map(|n| (n != 0).then_some(n)),
    };
    match v["type"].as_str() {
        Some("range") => Ok(Record::Range(RangeRecord {
            va: u64_of("elf_va")?,
            length: v["length"].as_u64().unwrap_or(0),
            func: v["func"]
                .as_str()
                .ok_or_else(|| field("\"func\"", "a string"))?
                .to_owned(),
            file: opt_str(&v["file"]),
            call_file: opt_str(&v["call_file"]),
            call_line: opt_u32(&v["call_line"], "call_line")?,
            depth: opt_u32(&v["depth"], "depth")?.unwrap_or(0),
            lines: v["line_table"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .map(|row| {
                    Ok(LineRow {
                        offset: u32_of(&row[0], "line offset")?,
                        line: u32_of(&row[1], "line number")?,
                    })
                })
                .collect::<std::result::Result<_, RecordError>>()?,
        })),
        Some("return_pad") => Ok(Record::ReturnPad(ReturnPadRecord {
            va: u64_of("elf_va")?,
            entries: v["entries"]
                .as_array()
                .ok_or_else(|| field("\"entries\"", "an array"))?
                .iter()
                .map(|e| {
                    Ok(PadEntry {
                        func: e["func"]
                            .as_str()
                            .ok_or_else(|| field("entry \"func\"", "a string"))?
                            .to_owned(),
                        file: opt_str(&e["file"]),
                        line: opt_u32(&e["line"], "entry line")?,
                    })
                })
                .collect::<std::result::Result<_, RecordError>>()?,
        })),
        other => Err(RecordError::UnknownType {
            found: other.map(str::to_owned),
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// Each bad record is refused with its index, the field and what it must be.
    #[test]
    fn bad_records_name_their_index_and_field() {
        let good = json!({"type": "range", "elf_va": "0x10", "length": 4, "func": "f"});
        let cases = [
            (
                json!({"type": "range", "elf_va": -1, "func": "f"}),
                field("\"elf_va\"", "an unsigned integer or a \"0x…\" string"),
                "in.json at entry 1: \"elf_va\" is not an unsigned integer or a \"0x…\" string",
            ),
            (
                json!({"type": "range", "elf_va": 1, "func": "f", "depth": 1u64 << 32}),
                field("depth", "a u32"),
                "in.json at entry 1: depth is not a u32",
            ),
            (
                json!({"type": "return_pad", "elf_va": 1, "entries": [{"func": 3}]}),
                field("entry \"func\"", "a string"),
                "in.json at entry 1: entry \"func\" is not a string",
            ),
            (
                json!({"type": "frame"}),
                RecordError::UnknownType {
                    found: Some("frame".into()),
                },
                "in.json at entry 1: unknown record type Some(\"frame\")",
            ),
        ];
        for (bad, kind, text) in cases {
            let doc = json!({"records": [good.clone(), bad]});
            let e = from_json(&doc, "in.json").unwrap_err();
            assert_eq!(e.to_string(), text);
            assert_eq!(e.location(), Location::Index(1));
            let source = e.source().and_then(|s| s.downcast_ref::<RecordError>());
            assert_eq!(source, Some(&kind));
        }
        assert_eq!(
            from_json(&json!({"records": [good]}), "in.json")
                .unwrap()
                .len(),
            1
        );
    }
}
