//! Lidia files from the [model](crate::model): every span of every function becomes one
//! range, functions in model order and spans in (start, depth) order; the writer sorts the
//! ranges by (address, depth) as Pyroscope's does.

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
/// nothing). Symbols and return pads have no Lidia form. The ranges are those of
/// [`for_each_range`], added on every core ([`LidiaWriter::finish_with_groups`]).
pub fn write_model(model: &Model<'_>) -> Vec<u8> {
    LidiaWriter::new(Flags::FILES_AND_LINES).finish_with_groups(&model.functions)
}
