//! The records of a symbfile in owned form: what producers fill (the model's records)
//! and what decoding gives.

use symblob::symbfile::{Record as View, SymbFile};

use crate::model::SCRATCH_SLOTS;
pub use crate::model::{LineRow, PadEntry, RangeRecord, ReturnPadRecord};
use crate::Result;

/// A record of either kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// A range record.
    Range(RangeRecord),
    /// A return-pad record.
    ReturnPad(ReturnPadRecord),
}

impl Record {
    /// The record's VA.
    pub fn va(&self) -> u64 {
        match self {
            Record::Range(r) => r.va,
            Record::ReturnPad(p) => p.va,
        }
    }

    /// True for a depth-0 range, where a part may start.
    pub fn starts_group(&self) -> bool {
        match self {
            Record::Range(r) => r.depth == 0,
            Record::ReturnPad(_) => true,
        }
    }
}

/// Decodes a whole symbfile into owned records, checking every rule of the reader.
pub fn decode(bytes: &[u8]) -> Result<Vec<Record>> {
    let file = SymbFile::parse(bytes)?;
    let mut scratch = vec![""; SCRATCH_SLOTS];
    let mut records = file.records(&mut scratch);
    let mut out = Vec::new();
    while let Some(r) = records.next()? {
        out.push(match r {
            View::Range(r) => Record::Range((&r).into()),
            View::ReturnPad(p) => Record::ReturnPad((&p).into()),
        });
    }
    Ok(out)
}
