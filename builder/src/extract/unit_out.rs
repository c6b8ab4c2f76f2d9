//! The records of one unit in compact form: strings as indices into the unit's pools of
//! function and file names, line rows in one shared vector. A unit's records are made on
//! a worker thread and handed on later; holding them this way costs no allocation per
//! record, and handing them on fills one reused [`RangeRecord`].

use crate::model::{LineRow, RangeRecord};

/// No string (a file or call file that is absent).
pub(crate) const NO_STRING: u32 = u32::MAX;

/// A range record with its strings as pool indices.
#[derive(Clone, Copy)]
pub(crate) struct CompactRange {
    pub va: u64,
    pub length: u64,
    /// Index into [`UnitRecords::funcs`].
    pub func: u32,
    /// Index into [`UnitRecords::files`], or [`NO_STRING`].
    pub file: u32,
    /// Index into [`UnitRecords::files`], or [`NO_STRING`].
    pub call_file: u32,
    pub call_line: Option<u32>,
    pub depth: u32,
    /// `[start, end)` in [`UnitRecords::lines`].
    pub lines: (u32, u32),
}

/// One unit's records, in output order.
#[derive(Default)]
pub(crate) struct UnitRecords {
    pub records: Vec<CompactRange>,
    pub lines: Vec<LineRow>,
    /// Demangled function names, each once.
    pub funcs: Vec<String>,
    /// File names, each once.
    pub files: Vec<String>,
}

/// The record handed to the sink, refilled for each record so that its buffers are
/// allocated once, not once per record.
#[derive(Default)]
pub(crate) struct ReusedRecord {
    record: RangeRecord,
    /// Buffers of the optional strings while they are `None`.
    spare_file: String,
    spare_call_file: String,
}

impl ReusedRecord {
    /// Hands every record of `unit` to `sink`, in order.
    pub(crate) fn deliver(&mut self, unit: &UnitRecords, sink: &mut dyn FnMut(&RangeRecord)) {
        for c in &unit.records {
            let r = &mut self.record;
            r.va = c.va;
            r.length = c.length;
            set(&mut r.func, &unit.funcs[c.func as usize]);
            set_optional(
                &mut r.file,
                &mut self.spare_file,
                pooled(&unit.files, c.file),
            );
            set_optional(
                &mut r.call_file,
                &mut self.spare_call_file,
                pooled(&unit.files, c.call_file),
            );
            r.call_line = c.call_line;
            r.depth = c.depth;
            r.lines.clear();
            r.lines
                .extend_from_slice(&unit.lines[c.lines.0 as usize..c.lines.1 as usize]);
            sink(r);
        }
    }
}

fn pooled(pool: &[String], index: u32) -> Option<&str> {
    (index != NO_STRING).then(|| pool[index as usize].as_str())
}

fn set(slot: &mut String, value: &str) {
    slot.clear();
    slot.push_str(value);
}

/// Sets `slot` to `value`, parking its buffer in `spare` while it is `None`.
fn set_optional(slot: &mut Option<String>, spare: &mut String, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(s), Some(v)) => set(s, v),
        (None, Some(v)) => {
            let mut s = std::mem::take(spare);
            set(&mut s, v);
            *slot = Some(s);
        }
        (_, None) => {
            if let Some(s) = slot.take() {
                *spare = s;
            }
        }
    }
}
