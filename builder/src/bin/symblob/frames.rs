//! The answer `lidia lookup`, `symbfile lookup` and `gsym lookup` share: the frames covering an address,
//! innermost first, as a line of the golden `lookups.tsv` format or as one JSON line.

use std::borrow::Cow;
use std::io;

use serde::Serialize;
use serde_json::Value;

use crate::common::hex;
use crate::lookups::Placeholder;

/// What a bad line gets: `?? TAB 0`, or an empty `frames` array.
pub const NO_FRAMES: Placeholder = Placeholder {
    text: b"??\t0\n",
    key: "frames",
    empty: Value::Array(Vec::new()),
};

/// One frame of an answer.
pub struct Frame<'a> {
    /// The function's name.
    pub function: Cow<'a, str>,
    /// The source file of the position in the function (empty when unknown).
    pub file: Cow<'a, str>,
    /// The source line of that position (0 when unknown).
    pub line: u64,
    /// Inline depth (0 = top-level function).
    pub depth: u64,
    /// Where the function was inlined into its caller (empty when not inlined).
    pub call_file: Cow<'a, str>,
    /// The line of that call (0 when not inlined).
    pub call_line: u64,
}

/// One answer as JSON, serialised from the borrowed frames (a `serde_json::Value` per frame
/// cost 2.4× the time). Fields in alphabetical order, as the answers have always had them.
#[derive(Serialize)]
struct JsonAnswer<'a> {
    address: String,
    frames: Vec<JsonFrame<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
}

/// One frame of a [`JsonAnswer`].
#[derive(Serialize)]
struct JsonFrame<'a> {
    call_file: &'a str,
    call_line: u64,
    depth: u64,
    file: &'a str,
    function: &'a str,
    line: u64,
}

impl<'a> From<&'a Frame<'_>> for JsonFrame<'a> {
    fn from(f: &'a Frame<'_>) -> Self {
        JsonFrame {
            call_file: &f.call_file,
            call_line: f.call_line,
            depth: f.depth,
            file: &f.file,
            function: &f.function,
            line: f.line,
        }
    }
}

/// Appends the answer for `addr` to `text`: `0x<addr> TAB <count>` then `TAB function TAB
/// file TAB line` per frame, or with `json` one JSON line `{address, frames: [{function,
/// file, line, depth, call_file, call_line}]}` plus `source` when given.
pub fn write(
    text: &mut Vec<u8>,
    json: bool,
    addr: u64,
    frames: &[Frame<'_>],
    source: Option<&str>,
) -> io::Result<()> {
    if json {
        let answer = JsonAnswer {
            address: hex(addr),
            frames: frames.iter().map(JsonFrame::from).collect(),
            source,
        };
        serde_json::to_writer(&mut *text, &answer)?;
        text.push(b'\n');
        return Ok(());
    }
    let mut number = itoa::Buffer::new();
    push_hex(text, addr);
    text.push(b'\t');
    text.extend_from_slice(number.format(frames.len()).as_bytes());
    for f in frames {
        for piece in [
            f.function.as_bytes(),
            f.file.as_bytes(),
            number.format(f.line).as_bytes(),
        ] {
            text.push(b'\t');
            text.extend_from_slice(piece);
        }
    }
    text.push(b'\n');
    Ok(())
}

/// Appends `value` as `{:#x}` formats it, without the formatting machinery (a tenth of
/// the answer's formatting time went to it).
fn push_hex(text: &mut Vec<u8>, value: u64) {
    let digits = (64 - (value | 1).leading_zeros()).div_ceil(4);
    text.extend_from_slice(b"0x");
    for i in (0..digits).rev() {
        text.push(b"0123456789abcdef"[(value >> (i * 4)) as usize & 0xf]);
    }
}

#[cfg(test)]
mod tests {
    use super::push_hex;

    #[test]
    fn hex_is_what_format_writes() {
        for value in [0, 1, 0xf, 0x10, 0xabc, 0x8000_0000, u64::MAX >> 4, u64::MAX] {
            let mut text = Vec::new();
            push_hex(&mut text, value);
            assert_eq!(String::from_utf8(text).unwrap(), format!("{value:#x}"));
        }
    }
}
