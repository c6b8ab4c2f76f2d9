//! Range records from DWARF, unit by unit in parallel (spec §5). A unit whose DWARF is
//! broken is abandoned; the records it produced before the error stay, as in symblib.

use rayon::prelude::*;

use super::functree::{function_records, Tree, UnitContext};
use super::lines::{read_lines, UnitError, UnitFiles};
use super::unit_out::{ReusedRecord, UnitRecords};
use super::walk::{Function, Sources, UnitIndex, Walker};
use super::DwarfInput;
use crate::dwarf::session::split_unit;
use crate::dwarf::Slice;
use crate::fast_hash::fast_map;
use crate::model::RangeRecord;

/// What the DWARF pass found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DwarfStats {
    /// Units processed to the end.
    pub units_ok: usize,
    /// Units abandoned (bad header, bad reference, bad file index, tree too deep…).
    pub units_broken: usize,
}

/// Units processed in parallel at a time: each batch's records are handed on, in unit
/// order, while the next batch is extracted, so memory stays bounded by two batches.
const BATCH_PER_THREAD: usize = 4;

/// Hands `sink` the records of every unit, in unit order; each unit's records in pre-order.
/// A skeleton unit's DIEs are walked in its split unit (its line program stays the
/// skeleton's); references into a supplementary file are followed.
pub(super) fn dwarf_records(
    input: &DwarfInput<'_, '_>,
    sink: &mut dyn FnMut(&RangeRecord),
) -> DwarfStats {
    let mut stats = DwarfStats::default();
    let index = UnitIndex::new(input.headers);
    let sup_index = UnitIndex::new(input.sup_headers);
    let sup = input.dwarf.sup().map(|d| (d, &sup_index));
    let batch = BATCH_PER_THREAD * rayon::current_num_threads().max(1);
    let extract = |chunk: &[_]| -> Vec<(UnitRecords, bool)> {
        chunk
            .par_iter()
            .with_max_len(1)
            .map(|(start, _, header)| {
                let mut out = UnitRecords::default();
                let mut files = UnitFiles::default();
                let split = input.split_units.get(start);
                let sources = Sources {
                    dwarf: input.dwarf,
                    index: &index,
                    sup,
                };
                let ok = unit_records(&sources, *header, split, &mut files, &mut out).is_ok();
                out.files = files.names;
                (out, ok)
            })
            .collect()
    };
    let mut reused = ReusedRecord::default();
    let mut deliver = |results: Vec<(UnitRecords, bool)>| {
        for (records, ok) in results {
            if ok {
                stats.units_ok += 1;
            } else {
                stats.units_broken += 1;
            }
            reused.deliver(&records, sink);
        }
    };
    // A pipeline of two stages: while the pool extracts one batch, this thread hands the
    // previous batch's records to the sink (merge and writer), so neither waits for the
    // other; the records still reach the sink in unit order.
    let debug_info = gimli::Section::reader(&input.dwarf.debug_info).slice();
    let chunks: Vec<_> = index.headers.chunks(batch).collect();
    std::thread::scope(|scope| {
        let mut previous = None;
        for (k, chunk) in chunks.iter().enumerate() {
            let next = scope.spawn(|| extract(chunk));
            if let Some(results) = previous.take() {
                deliver(results);
            }
            match next.join() {
                Ok(results) => previous = Some(results),
                Err(panic) => std::panic::resume_unwind(panic),
            }
            // Every unit before the next batch is done: its DIEs are read again only
            // through a reference from a later unit.
            let done = chunks
                .get(k + 1)
                .and_then(|c| c.first())
                .map_or(debug_info.len(), |(start, _, _)| *start);
            let from = chunk.first().map_or(done, |(start, _, _)| *start);
            if let Some(part) = debug_info.get(from..done) {
                crate::input::release_pages(part);
            }
        }
        if let Some(results) = previous {
            deliver(results);
        }
    });
    stats
}

fn unit_records<'a>(
    sources: &Sources<'_, 'a>,
    header: gimli::UnitHeader<Slice<'a>>,
    split: Option<&gimli::Dwarf<Slice<'a>>>,
    files: &mut UnitFiles,
    out: &mut UnitRecords,
) -> Result<(), UnitError> {
    let dwarf = sources.dwarf;
    let unit = dwarf.unit(header).map_err(|e| format!("unit: {e}"))?;
    let split_unit = match split {
        Some(d) => split_unit(d, &unit)
            .map_err(|e| format!("split unit: {e}"))?
            .map(|u| (d, u)),
        None => None,
    };
    let Some(lines) = read_lines(dwarf, &unit, files)? else {
        return Ok(());
    };
    let max_end: Vec<u64> = lines
        .iter()
        .scan(0u64, |m, e| {
            *m = (*m).max(e.end);
            Some(*m)
        })
        .collect();
    let mut names = fast_map();
    let mut cx = UnitContext {
        dwarf,
        unit: &unit,
        files,
        lines: &lines,
        max_end: &max_end,
        names: &mut names,
    };
    let mut tree = Tree::default();
    let each = |function: &Function<'a>| function_records(&mut cx, &mut tree, function, out);
    match &split_unit {
        // References out of a split unit lead nowhere: it gets no index of the binary's.
        Some((split_dwarf, split_unit)) => {
            let none = UnitIndex::new(&[]);
            let split_sources = Sources {
                dwarf: split_dwarf,
                index: &none,
                sup: sources.sup,
            };
            Walker::new(&split_sources).walk(split_unit, each)
        }
        None => Walker::new(sources).walk(&unit, each),
    }
}
