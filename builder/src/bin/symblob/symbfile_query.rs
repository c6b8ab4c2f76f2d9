//! Lookups in a symbfile (`symblob symbfile lookup`, `symblob lookup`): each address
//! answered by one sweep of the file, ranges first, then return pads.

use std::io::{self, Write};
use std::path::Path;

use symblob::symbfile::{Range, SymbFile};

use crate::common::{Outcome, Result};
use crate::frames::{self, Frame};
use crate::lookups::{self, LookupFlags};
use crate::symbfile::blob_error;

/// Inline levels kept per address; deeper chains are cut at the outermost levels.
const MAX_DEPTH: usize = 256;

/// Answers `addresses` (or standard input) from `file`, read from `path`.
pub fn answer_all(
    path: &Path,
    file: &SymbFile<'_>,
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let mut scratch = vec![""; 1 << 16];
    let mut ranges = vec![Range::EMPTY; MAX_DEPTH];
    lookups::run(addresses, flags, &frames::NO_FRAMES, |addr, out| {
        answer((path, file), flags, addr, &mut scratch, &mut ranges, out)
    })
}

/// One answer: the line `symblob lidia lookup` prints, or one JSON line `{address,
/// source, frames: [{function, file, line, depth, call_file, call_line}]}`.
fn answer<'a>(
    (path, file): (&Path, &SymbFile<'a>),
    flags: LookupFlags,
    addr: u64,
    scratch: &mut [&'a str],
    ranges: &mut [Range<'a>],
    out: &mut dyn Write,
) -> io::Result<()> {
    // A corrupt record is an error of the whole file, not of this address.
    let invalid = |e| lookups::input_error(blob_error(path, e));
    let mut frames = Vec::new();
    let mut source = "none";
    if let Some(at) = flags.file_address(addr) {
        let found = file.lookup_ranges(at, scratch, ranges).map_err(invalid)?;
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
        } else if let Some(pad) = file.lookup_return_pad(at, scratch).map_err(invalid)? {
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
    frames::write(out, flags.json, addr, &frames, Some(source))
}
