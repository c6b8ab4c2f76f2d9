//! Lidia files from the [model](crate::model): every span of every function becomes one
//! range, functions in model order and spans in (start, depth) order; the writer sorts the
//! ranges by (address, depth) as Pyroscope's does.

use crate::lidia::writer::InternedRange;
use crate::lidia::{Flags, LidiaWriter, LineEntry, RangeSpec};
use crate::model::{Group, Model};

/// Hands every span of `groups` to `sink` as a Lidia range, groups in the given order,
/// spans in their group's order.
pub fn for_each_range(groups: &[Group<'_>], sink: &mut dyn FnMut(&RangeSpec<'_>)) {
    let mut buf: Vec<LineEntry> = Vec::new();
    for g in groups {
        for s in &g.spans {
            buf.clear();
            buf.extend(s.rows.iter().map(|r| LineEntry {
                offset: r.addr.wrapping_sub(s.start),
                line: u64::from(r.line),
            }));
            sink(&RangeSpec {
                va: s.start,
                length: s.end.wrapping_sub(s.start),
                depth: u64::from(s.depth),
                function: &s.name,
                file: s.file.as_deref().unwrap_or_default(),
                call_file: s.call_file.as_deref().unwrap_or_default(),
                call_line: u64::from(s.call_line),
                lines: &buf,
            });
        }
    }
}

/// A Lidia file of the model's functions, with their files and lines (a model without
/// them gives the same bytes as a symbols-only file: an empty file or line list stores
/// nothing). Symbols and return pads have no Lidia form.
///
/// The ranges are those of [`for_each_range`], added with [`LidiaWriter::add`]'s
/// interning, but a string met again at the same place in the model (a file shared by
/// its spans, a name borrowed from the input) reuses its offset instead of being hashed
/// and compared again: interning was the writer's largest cost.
pub fn write_model(model: &Model<'_>) -> Vec<u8> {
    let mut writer = LidiaWriter::new(Flags::FILES_AND_LINES);
    let mut memo = Offsets::new();
    for_each_range(&model.functions, &mut |range| {
        // In `add`'s order (function, file, call file): a new string's offset is its
        // place in the table.
        let func = memo.intern(&mut writer, range.function);
        let file = memo.intern(&mut writer, range.file);
        let call_file = memo.intern(&mut writer, range.call_file);
        writer.add_interned(InternedRange::of(range, func, file, call_file), range.lines);
    });
    writer.finish()
}

/// Slots of [`Offsets`] (a power of two).
const MEMO_SLOTS: usize = 4096;

/// The strings-table offsets of strings by their place in memory: a direct-mapped cache
/// of (address, length) to offset. Valid while the model is borrowed, which keeps every
/// string where it is and unchanged, so one place always holds the same bytes.
struct Offsets {
    slots: Vec<(usize, usize, u64)>,
}

impl Offsets {
    fn new() -> Self {
        Offsets {
            slots: vec![(0, 0, 0); MEMO_SLOTS],
        }
    }

    /// The offset of `s`, interned by `writer` unless its place is remembered.
    fn intern(&mut self, writer: &mut LidiaWriter, s: &[u8]) -> u64 {
        if s.is_empty() {
            return writer.intern(s);
        }
        let at = s.as_ptr() as usize;
        let slot = &mut self.slots[(at ^ (at >> 12) ^ s.len()) % MEMO_SLOTS];
        if slot.0 == at && slot.1 == s.len() {
            return slot.2;
        }
        let offset = writer.intern(s);
        *slot = (at, s.len(), offset);
        offset
    }
}
