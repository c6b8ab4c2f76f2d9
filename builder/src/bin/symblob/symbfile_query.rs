//! Lookups in a symbfile (`symblob symbfile lookup`, `symblob lookup`): each address
//! answered by one sweep of the file, ranges first, then return pads.

use std::io::{self, Write};

use serde_json::json;
use symblob::symbfile::{Range, SymbFile};

use crate::common::{hex, write_json_line, Outcome, Result};
use crate::lookups::{self, LookupFlags, Question};

/// Inline levels kept per address; deeper chains are cut at the outermost levels.
const MAX_DEPTH: usize = 256;

/// One frame of an answer.
struct Frame<'a> {
    function: &'a str,
    file: &'a str,
    line: u32,
    depth: usize,
    call_file: &'a str,
    call_line: u32,
}

/// Answers `addresses` (or standard input) from `file`.
pub fn answer_all(
    file: &SymbFile<'_>,
    flags: LookupFlags,
    addresses: &[String],
) -> Result<Outcome> {
    let mut scratch = vec![""; 1 << 16];
    let mut ranges = vec![Range::EMPTY; MAX_DEPTH];
    lookups::run(addresses, |question, out| {
        answer(file, flags, question, &mut scratch, &mut ranges, out)
    })
}

/// One answer: the line `symblob lidia lookup` prints, or one JSON line `{address,
/// source, frames: [{function, file, line, depth, call_file, call_line}]}`.
fn answer<'a>(
    file: &SymbFile<'a>,
    flags: LookupFlags,
    question: &Question<'_>,
    scratch: &mut [&'a str],
    ranges: &mut [Range<'a>],
    out: &mut dyn Write,
) -> io::Result<()> {
    let addr = match question {
        Question::Address(addr) => *addr,
        Question::Bad { input, error } => {
            let empty = ("frames", json!([]));
            return lookups::write_placeholder(out, flags, (input, error), empty, b"??\t0\n");
        }
    };
    // A corrupt record is an error of the whole file, not of this address.
    let invalid = |e: symblob::Error| io::Error::new(io::ErrorKind::InvalidData, e.to_string());
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
                    function: r.func,
                    file: file.unwrap_or(""),
                    line,
                    depth: r.depth as usize,
                    call_file: r.call_file.unwrap_or(""),
                    call_line: r.call_line.unwrap_or(0),
                });
            }
        } else if let Some(pad) = file.lookup_return_pad(at, scratch).map_err(invalid)? {
            source = "return_pad";
            let mut call = ("", 0);
            for (depth, e) in pad.entries().enumerate() {
                let (file, line) = (e.file.unwrap_or(""), e.line.unwrap_or(0));
                frames.push(Frame {
                    function: e.func,
                    file,
                    line,
                    depth,
                    call_file: call.0,
                    call_line: call.1,
                });
                call = (file, line);
            }
        }
    }
    frames.reverse();
    if flags.json {
        let frames: Vec<_> = frames
            .iter()
            .map(|f| {
                json!({
                    "function": f.function,
                    "file": f.file,
                    "line": f.line,
                    "depth": f.depth,
                    "call_file": f.call_file,
                    "call_line": f.call_line,
                })
            })
            .collect();
        return write_json_line(
            out,
            &json!({ "address": hex(addr), "source": source, "frames": frames }),
        );
    }
    write!(out, "{addr:#x}\t{}", frames.len())?;
    for f in &frames {
        write!(out, "\t{}\t{}\t{}", f.function, f.file, f.line)?;
    }
    out.write_all(b"\n")
}
