//! symbfiles as a source: range records become spans (each depth-0 record starting a
//! function, the inline records after it joining it), return-pad records return pads;
//! names are borrowed from the file.

use std::collections::HashMap;

use symblob::symbfile::{Record, SymbFile};

use super::reader_error;
use crate::model::SCRATCH_SLOTS;
use crate::model::{sort_spans, Bytes, Group, Model, PadFrame, ReturnPad, Row, SharedBytes, Span};
use crate::{Error, Location, Result};

/// Reads the symbfile `bytes` (named `input` in errors) into the model.
///
/// Records keep the file's order; the records of one function follow its depth-0 record
/// (symblib writes each function in pre-order), and an inline record before any depth-0
/// one is refused with its offset.
pub fn read<'a>(bytes: &'a [u8], input: &str) -> Result<Model<'a>> {
    let file = SymbFile::parse(bytes).map_err(|e| reader_error(input, e))?;
    let mut scratch = vec![""; SCRATCH_SLOTS];
    let mut records = file.records(&mut scratch);
    let mut files: HashMap<&'a str, SharedBytes> = HashMap::new();
    let mut shared = |s: Option<&'a str>| -> Option<SharedBytes> {
        s.map(|s| {
            files
                .entry(s)
                .or_insert_with(|| s.as_bytes().into())
                .clone()
        })
    };
    let mut model = Model::default();
    while let Some(record) = records.next().map_err(|e| reader_error(input, e))? {
        match record {
            Record::Range(r) => {
                let span = Span {
                    start: r.va,
                    end: r.va.wrapping_add(r.length),
                    depth: r.depth,
                    name: Bytes::Borrowed(r.func.as_bytes()),
                    file: shared(r.file),
                    call_file: shared(r.call_file),
                    call_line: r.call_line.unwrap_or(0),
                    instance: 0,
                    rows: r
                        .line_table
                        .iter()
                        .map(|row| Row {
                            addr: r.va.wrapping_add(u64::from(row.offset)),
                            line: row.line,
                        })
                        .collect(),
                };
                if r.depth == 0 {
                    model.functions.push(Group { spans: vec![span] });
                } else if let Some(group) = model.functions.last_mut() {
                    group.spans.push(span);
                } else {
                    return Err(Error::malformed(
                        input,
                        Location::Offset(r.offset),
                        "an inline record comes before any function record",
                    ));
                }
            }
            Record::ReturnPad(pad) => model.return_pads.push(ReturnPad {
                address: pad.va,
                frames: pad
                    .entries()
                    .map(|e| PadFrame {
                        function: e.func.to_owned(),
                        file: e.file.map(str::to_owned),
                        line: e.line.unwrap_or(0),
                    })
                    .collect(),
            }),
        }
    }
    for group in &mut model.functions {
        sort_spans(&mut group.spans);
    }
    Ok(model)
}
