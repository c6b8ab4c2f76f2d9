//! Lookups in a symbfile (`symblob symbfile lookup`, `symblob lookup`): the file indexed
//! once when it is opened, then each address answered from the index, ranges first, then
//! return pads.

use std::io;
use std::path::Path;

use symblob::symbfile::{Range, SymbFile};
use symblob_build::symbfile::index::SymbfileIndex;

use crate::answer_pool;
use crate::common::{Outcome, Result};
use crate::frames::{self, Frame};
use crate::lookups::{self, LookupFlags};
use crate::symbfile::{blob_error, named};

/// Inline levels kept per address; deeper chains are cut at the outermost levels.
const MAX_DEPTH: usize = 256;

/// Answers `addresses` (or standard input) from `file`, read from `path`, on every core
/// ([`answer_pool`]), in batches ([`SymbfileIndex::lookup_ranges_each`] overlaps the
/// memory waits of several addresses).
pub fn answer_all(
    path: &Path,
    file: SymbFile<'_>,
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let index = SymbfileIndex::new(file).map_err(|e| named(path, e))?;
    let scratch = || Scratch {
        inside: Vec::new(),
        ranges: vec![Range::EMPTY; MAX_DEPTH],
        frames: Vec::new(),
    };
    answer_pool::run(
        addresses,
        flags,
        &frames::NO_FRAMES,
        scratch,
        |scratch, addrs, text| {
            // A corrupt record is an error of the whole file, not of this address.
            answer(&index, flags, addrs, scratch, text).unwrap_or_else(|e| {
                Err(lookups::input_error(match e.reader_error() {
                    Some(&b) => blob_error(path, b),
                    None => e,
                }))
            })
        },
    )
}

/// What a thread reuses from one batch to the next, so that a lookup allocates nothing.
struct Scratch<'a> {
    /// A batch's addresses in the file.
    inside: Vec<u64>,
    /// The covering records of an address.
    ranges: Vec<Range<'a>>,
    /// Its frames.
    frames: Vec<Frame<'a>>,
}

/// Appends the answers to `addrs` to `text`, in order: each the line `symblob lidia
/// lookup` prints, or one JSON line `{address, source, frames: [{function, file, line,
/// depth, call_file, call_line}]}`. The outer error is the file's, the inner one
/// formatting the answers'.
fn answer<'a>(
    index: &SymbfileIndex<'a>,
    flags: LookupFlags,
    addrs: &[u64],
    scratch: &mut Scratch<'a>,
    text: &mut Vec<u8>,
) -> symblob_build::Result<io::Result<()>> {
    // The addresses inside the file, looked up together; the others have no answer.
    let inside = &mut scratch.inside;
    inside.clear();
    inside.extend(addrs.iter().filter_map(|&a| flags.file_address(a)));
    let mut asked = addrs.iter().copied();
    let mut written = Ok(());
    let mut write = |addr: u64, frames: &mut Vec<Frame<'_>>, source: &str| {
        frames.reverse();
        if written.is_ok() {
            written = frames::write(text, flags.json, addr, frames, Some(source));
        }
        frames.clear();
    };
    let frames = &mut scratch.frames;
    index.lookup_ranges_each(inside, &mut scratch.ranges, |at, _, kept| {
        for addr in asked.by_ref() {
            if flags.file_address(addr).is_none() {
                write(addr, frames, "none");
                continue;
            }
            let source = if kept.is_empty() {
                return_pad_frames(index, at, frames)?
            } else {
                range_frames(kept, at, frames);
                "ranges"
            };
            write(addr, frames, source);
            break;
        }
        Ok(())
    })?;
    for addr in asked {
        write(addr, frames, "none");
    }
    Ok(written)
}

/// Pushes the frames of the covering range records `kept` (outermost first) at `at`,
/// outermost first.
fn range_frames<'a>(kept: &[Range<'a>], at: u64, frames: &mut Vec<Frame<'a>>) {
    frames.extend(kept.iter().enumerate().map(|(i, r)| {
        // The position inside each frame: the call site of the next inner frame, or for
        // the innermost the address's own line.
        let (file, line) = match kept.get(i + 1) {
            Some(inner) => (inner.call_file.or(r.file), inner.call_line.unwrap_or(0)),
            None => (r.file, r.line_at(at).unwrap_or(0)),
        };
        Frame {
            function: r.func.into(),
            file: file.unwrap_or("").into(),
            line: line.into(),
            depth: r.depth.into(),
            call_file: r.call_file.unwrap_or("").into(),
            call_line: r.call_line.unwrap_or(0).into(),
        }
    }));
}

/// Pushes the frames of the return pad at `at`, outermost first, and gives the answer's
/// source (`none` without a pad).
fn return_pad_frames<'a>(
    index: &SymbfileIndex<'a>,
    at: u64,
    frames: &mut Vec<Frame<'a>>,
) -> symblob_build::Result<&'static str> {
    let Some(pad) = index.lookup_return_pad(at)? else {
        return Ok("none");
    };
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
    Ok("return_pad")
}
