//! symbfiles from the [model](crate::model): every span becomes a range record (functions
//! in model order, each in pre-order: its depth-0 span, then its inlined calls), every
//! return pad a return-pad record after them.

use crate::model::{Model, ReturnPad, Span};
use crate::Result;

use super::record::{LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord};
use super::writer::SymbfileWriter;

/// The range record of one span. symbfile strings are UTF-8: other bytes in a name or
/// path become U+FFFD. Line offsets beyond 32 bits (a range longer than 4 GiB) are
/// clamped.
pub fn range_record(s: &Span<'_>) -> RangeRecord {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    RangeRecord {
        va: s.start,
        length: s.end.wrapping_sub(s.start),
        func: text(&s.name),
        file: s.file.as_deref().map(text),
        call_file: s.call_file.as_deref().map(text),
        call_line: (s.call_line != 0).then_some(s.call_line),
        depth: s.depth,
        lines: s
            .rows
            .iter()
            .map(|r| LineRow {
                offset: clamp(r.addr.wrapping_sub(s.start)),
                line: r.line,
            })
            .collect(),
    }
}

/// The return-pad record of one return pad.
pub fn return_pad_record(p: &ReturnPad) -> ReturnPadRecord {
    ReturnPadRecord {
        va: p.address,
        entries: p
            .frames
            .iter()
            .map(|f| PadEntry {
                func: f.function.clone(),
                file: f.file.clone(),
                line: (f.line != 0).then_some(f.line),
            })
            .collect(),
    }
}

/// A symbfile of the model's functions (range records) and return pads. Typed symbols
/// have no symbfile form.
pub fn write_model(model: &Model<'_>) -> Result<Vec<u8>> {
    let mut writer = SymbfileWriter::new();
    for span in model.functions.iter().flat_map(|g| &g.spans) {
        writer.push(Record::Range(range_record(span)))?;
    }
    for pad in &model.return_pads {
        writer.push(Record::ReturnPad(return_pad_record(pad)))?;
    }
    writer.finish()
}
