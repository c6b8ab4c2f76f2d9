//! Lidia ranges from DWARF: the groups of [`crate::dwarf`], written as Lidia ranges.
//!
//! Every span of every group becomes one range, groups in address order and spans in
//! (start, depth) order, so the file answers lookups like `llvm-symbolizer --inlining
//! --functions=linkage`, and Pyroscope's Go reader still selects the right frames.

mod emit;

use std::path::Path;

pub use crate::dwarf::DwarfStats;
use crate::dwarf::{build_groups, DwarfOptions};
use crate::lidia::{ElfOptions, LidiaWriter, RangeSpec};
use crate::model::Group;
use crate::Result;

/// Adds the ranges of the ELF `data` (read from `path`) to `writer`: DWARF functions and
/// inlined calls with files and lines, and symbol-table ranges for code DWARF lacks, in
/// a deterministic order. `options.dwarf` (the default [`DwarfOptions`] when `None`),
/// `symbols.symtab`, the writer's flags (which decide whether rows are read) and
/// `progress` apply; see [`crate::dwarf`]. Returns what was found, with the warnings of
/// units that could not be read.
pub fn collect(
    path: &Path,
    data: &[u8],
    options: &ElfOptions,
    writer: &mut LidiaWriter,
) -> Result<DwarfStats> {
    session(path, data, options, |groups| {
        emit::emit_parallel(groups, writer)
    })
}

/// Runs the DWARF session that `options` describe.
fn session(
    path: &Path,
    data: &[u8],
    options: &ElfOptions,
    finish: impl for<'g> FnOnce(Vec<Group<'g>>),
) -> Result<DwarfStats> {
    let default = DwarfOptions::default();
    let dwarf = options.dwarf.as_ref().unwrap_or(&default);
    let contents = options.group_contents();
    build_groups(
        path,
        data,
        dwarf,
        contents,
        &options.progress,
        |groups, _| finish(groups),
    )
}

/// [`collect`] with any sink for the ranges, returning what was found.
pub fn collect_with_stats(
    path: &Path,
    data: &[u8],
    options: &ElfOptions,
    sink: &mut dyn FnMut(&RangeSpec<'_>),
) -> Result<DwarfStats> {
    session(path, data, options, |groups| {
        crate::lidia::model::for_each_range(&groups, sink)
    })
}
