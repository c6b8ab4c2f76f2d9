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
        .ok_or_else(|| Error::input(input, Location::Whole, "no \"records\" array"))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            parse_record(v).map_err(|m| Error::input(input, Location::Index(i as u64), m))
        })
        .collect()
}

fn parse_record(v: &Value) -> std::result::Result<Record, String> {
    // Addresses may also be "0x…" strings, as `symblob symbfile dump --json` writes them.
    let u64_of = |key: &str| {
        let hex = |s: &str| {
            let digits = s.strip_prefix("0x")?;
            u64::from_str_radix(digits, 16).ok()
        };
        v[key]
            .as_u64()
            .or_else(|| v[key].as_str().and_then(hex))
            .ok_or(format!(
                "{key:?} is not an unsigned integer or a \"0x…\" string"
            ))
    };
    let u32_of = |x: &Value, what: &str| {
        x.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or(format!("{what} is not a u32"))
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
                .ok_or("\"func\" is not a string")?
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
                .collect::<std::result::Result<_, String>>()?,
        })),
        Some("return_pad") => Ok(Record::ReturnPad(ReturnPadRecord {
            va: u64_of("elf_va")?,
            entries: v["entries"]
                .as_array()
                .ok_or("\"entries\" is not an array")?
                .iter()
                .map(|e| {
                    Ok(PadEntry {
                        func: e["func"]
                            .as_str()
                            .ok_or("entry \"func\" is not a string")?
                            .to_owned(),
                        file: opt_str(&e["file"]),
                        line: opt_u32(&e["line"], "entry line")?,
                    })
                })
                .collect::<std::result::Result<_, String>>()?,
        })),
        other => Err(format!("unknown record type {other:?}")),
    }
}
