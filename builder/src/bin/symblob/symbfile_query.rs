//! Lookups in a symbfile (`symblob symbfile lookup`, `symblob lookup`): the file indexed
//! once when it is opened, then each address answered from the index, ranges first, then
//! return pads.

use std::io::{self, Write};
use std::path::Path;

use symblob::symbfile::{Range, SymbFile};
use symblob_build::symbfile::index::SymbfileIndex;

use crate::common::{Outcome, Result};
use crate::frames::{self, Frame};
use crate::lookups::{self, LookupFlags};
use crate::symbfile::{blob_error, named};

/// Inline levels kept per address; deeper chains are cut at the outermost levels.
const MAX_DEPTH: usize = 256;

/// Answers `addresses` (or standard input) from `file`, read from `path`.
pub fn answer_all(
    path: &Path,
    file: SymbFile<'_>,
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let index = SymbfileIndex::new(file).map_err(|e| named(path, e))?;
    let mut ranges = vec![Range::EMPTY; MAX_DEPTH];
    lookups::run(addresses, flags, &frames::NO_FRAMES, |addr, out| {
        // A corrupt record is an error of the whole file, not of this address.
        answer(&index, flags, addr, &mut ranges, out).unwrap_or_else(|e| {
            Err(lookups::input_error(match e.reader_error() {
                Some(&b) => blob_error(path, b),
                None => e,
            }))
        })
    })
}

/// One answer: the line `symblob lidia lookup` prints, or one JSON line `{address,
/// source, frames: [{function, file, line, depth, call_file, call_line}]}`. The outer
/// error is the file's, the inner one writing the answer's.
fn answer<'a>(
    index: &SymbfileIndex<'a>,
    flags: LookupFlags,
    addr: u64,
    ranges: &mut [Range<'a>],
    out: &mut dyn Write,
) -> symblob_build::Result<io::Result<()>> {
    let mut frames = Vec::new();
    let mut source = "none";
    if let Some(at) = flags.file_address(addr) {
        let found = index.lookup_ranges(at, ranges)?;
        let kept = &ranges[..found.min(ranges.len())];
        if !kept.is_empty() {
            source = "ranges";
            for (i, r) in kept.iter().enumerate() {
                // The position inside each frame: the call site of the next inner frame,
                // or for the innermost the address's own line.
                let (file, line) = match kept.get(i + 1) {
                    Some(inner) => (inner.call_file.or(r.file), inner.call_line.unwrap_or(0)),
                    None => (r.file, r.line_at(at).unwrap_or(0)),
                };
                frames.push(Frame {
                    function: r.func.into(),
                    file: file.unwrap_or("").into(),
                    line: line.into(),
                    depth: r.depth.into(),
                    call_file: r.call_file.unwrap_or("").into(),
                    call_line: r.call_line.unwrap_or(0).into(),
                });
            }
        } else if let Some(pad) = index.lookup_return_pad(at)? {
            source = "return_pad";
            let mut call = ("", 0);
            for (depth, e) in pad.entries().enumerate() {
                let (file, line) = (e.file.unwrap_or(""), e.line.unwrap_or(0));
                frames.push(Frame {
                    function: e.func.into(),
                    file: file.into(),
                    line: line.into(),
                    depth: depth as u64,
                    call_file: call.0.into(),
                    call_line: call.1.into(),
                });
                call = (file, line);
            }
        }
    }
    frames.reverse();
    Ok(frames::write(out, flags.json, addr, &frames, Some(source)))
}
