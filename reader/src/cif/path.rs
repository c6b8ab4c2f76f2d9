//! Path opcodes on decode, with dynamic prefixes kept as references into the stream.
//!
//! A dynamic prefix is `output[string_base..p)` of some earlier path: everything that path
//! appended from its first `str` opcode up to a separator. Instead of copying those bytes,
//! the decoder records where that first `str` opcode is and how long the prefix is, and
//! expands a code by walking the defining path's opcodes again. A defining path may itself
//! contain expansions after its first `str`; those nest, and are followed with an explicit
//! stack of bounded depth, never recursion.

use super::prefix_table::FIRST_DYNAMIC_CODE;
use super::{FIXED_PREFIXES, MAX_EXPANSION_DEPTH};
use crate::cursor::Cursor;
use crate::{Error, ErrorKind, Format};

/// Version byte of the `framewk` opcode that means a shallow (iOS-style) bundle:
/// `/<name>.framework/<name>`.
const SHALLOW_FRAMEWORK_VERSION: u8 = 0x01;

/// Where a dynamic prefix's bytes are in the stream: the decoder's table entry.
///
/// Callers provide storage as `[PrefixRef::EMPTY; N]`; one entry per input byte can never
/// run out (every code needs a separator byte of its own).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PrefixRef {
    /// Stream offset of the defining path's first `str` opcode.
    start: usize,
    /// Prefix length in bytes.
    len: usize,
    /// Defined by a path that had already failed; expanding it fails too.
    poisoned: bool,
}

impl PrefixRef {
    /// An unused slot, for initialising storage.
    pub const EMPTY: PrefixRef = PrefixRef {
        start: 0,
        len: 0,
        poisoned: false,
    };
}

/// The decoder's prefix table: code numbering plus the caller's reference slots.
pub(crate) struct PrefixRefs<'t> {
    slots: &'t mut [PrefixRef],
    next_code: u64,
}

impl<'t> PrefixRefs<'t> {
    pub(crate) fn new(slots: &'t mut [PrefixRef]) -> Self {
        PrefixRefs {
            slots,
            next_code: FIRST_DYNAMIC_CODE,
        }
    }

    fn define(&mut self, entry: PrefixRef) {
        let code = self.next_code;
        self.next_code = self.next_code.saturating_add(1);
        let slot = code
            .checked_sub(FIRST_DYNAMIC_CODE)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.slots.get_mut(i));
        if let Some(slot) = slot {
            *slot = entry;
        }
    }

    /// Looks up a dynamic code (≥ 32) that the stream has defined.
    fn lookup(&self, code: u64, at: u64) -> Result<PrefixRef, Error> {
        if code >= self.next_code {
            return Err(path_error(
                at,
                ErrorKind::OutOfRange {
                    value: code,
                    limit: self.next_code,
                },
            ));
        }
        let slot = code
            .checked_sub(FIRST_DYNAMIC_CODE)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.slots.get(i));
        match slot {
            None => Err(path_error(at, ErrorKind::Malformed("prefix table full"))),
            Some(r) if r.poisoned => Err(path_error(
                at,
                ErrorKind::Malformed("prefix defined by a broken path"),
            )),
            Some(r) => Ok(*r),
        }
    }
}

fn path_error(at: u64, kind: ErrorKind) -> Error {
    Error::new(Format::Cif, "path", at, kind)
}

/// The rebuilt path in the caller's buffer; it keeps counting when the buffer is full
/// so prefix lengths stay right and the error can say how much room was needed.
struct PathOut<'p> {
    buf: &'p mut [u8],
    len: usize,
}

impl PathOut<'_> {
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
        }
        self.len = self.len.saturating_add(1);
    }

    fn push_slice(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    /// Whether `n` more bytes still fit in the buffer.
    fn has_room(&self, n: usize) -> bool {
        self.len
            .checked_add(n)
            .is_some_and(|end| end <= self.buf.len())
    }

    fn overflowed(&self) -> bool {
        self.len > self.buf.len()
    }
}

/// An expand opcode's code: `Ok(None)` when the stream ends inside it.
fn read_code(op: u8, cursor: &mut Cursor<'_>, at: u64) -> Result<Option<u64>, Error> {
    if op & 0x40 == 0 {
        return Ok(Some(u64::from(op & 0x3f)));
    }
    let count = usize::from(op & 0x3f).saturating_add(1);
    let Some(bytes) = cursor.take_opt(count) else {
        cursor.skip_to_end();
        return Ok(None);
    };
    let mut value: u64 = 0;
    for &b in bytes {
        if value.leading_zeros() < 8 {
            return Err(path_error(at, ErrorKind::Overflow));
        }
        value = value.wrapping_shl(8) | u64::from(b);
    }
    match value.checked_add(64) {
        Some(code) => Ok(Some(code)),
        None => Err(path_error(at, ErrorKind::Overflow)),
    }
}

/// One level of a prefix expansion: walking a defining path's opcodes.
#[derive(Copy, Clone, Default)]
struct Frame {
    pos: usize,
    remaining: usize,
    chunk_left: usize,
}

/// Appends the bytes of a dynamic prefix by re-walking its defining path.
fn expand_dynamic(
    data: &[u8],
    refs: &PrefixRefs<'_>,
    first: PrefixRef,
    out: &mut PathOut<'_>,
    at: u64,
) -> Result<(), Error> {
    let broken = || path_error(at, ErrorKind::Malformed("prefix definition unreadable"));
    let mut stack = [Frame::default(); MAX_EXPANSION_DEPTH];
    let mut depth = 1usize;
    if let Some(f) = stack.first_mut() {
        *f = Frame {
            pos: first.start,
            remaining: first.len,
            chunk_left: 0,
        };
    }
    while let Some(top) = depth.checked_sub(1) {
        let frame = stack.get_mut(top).ok_or_else(broken)?;
        if frame.remaining == 0 {
            depth = top;
            continue;
        }
        if frame.chunk_left > 0 {
            let n = frame.chunk_left.min(frame.remaining);
            let end = frame.pos.checked_add(n).ok_or_else(broken)?;
            out.push_slice(data.get(frame.pos..end).ok_or_else(broken)?);
            frame.pos = end;
            frame.chunk_left = frame.chunk_left.saturating_sub(n);
            frame.remaining = frame.remaining.saturating_sub(n);
            continue;
        }
        let mut cursor = Cursor::new(data, Format::Cif);
        cursor.take_opt(frame.pos).ok_or_else(broken)?;
        let op = cursor.next().ok_or_else(broken)?;
        match op {
            // `end` and `framewk` cannot occur inside a prefix: prefixes end at a `str` byte.
            0x00 | 0x40..=0x7f => return Err(broken()),
            0x01..=0x3f => {
                frame.chunk_left = usize::from(op);
                frame.pos = cursor.pos();
            }
            _ => {
                let code = read_code(op, &mut cursor, at)?.ok_or_else(broken)?;
                frame.pos = cursor.pos();
                if let Some(fixed) = usize::try_from(code)
                    .ok()
                    .and_then(|c| FIXED_PREFIXES.get(c))
                {
                    let n = fixed.len().min(frame.remaining);
                    out.push_slice(fixed.get(..n).unwrap_or(&[]));
                    frame.remaining = frame.remaining.saturating_sub(n);
                    continue;
                }
                let nested = refs.lookup(code, at)?;
                let n = nested.len.min(frame.remaining);
                frame.remaining = frame.remaining.saturating_sub(n);
                let slot = stack.get_mut(depth).ok_or_else(|| {
                    path_error(
                        at,
                        ErrorKind::Malformed("prefix expansion nested too deeply"),
                    )
                })?;
                *slot = Frame {
                    pos: nested.start,
                    remaining: n,
                    chunk_left: 0,
                };
                depth = depth.saturating_add(1);
            }
        }
    }
    Ok(())
}

/// Tracks the §6.3 state of the path being decoded.
struct PathState {
    /// Output position where the first `str` started, and that opcode's stream offset.
    string_base: Option<(usize, usize)>,
    /// The first failure; later definitions of this path are poisoned.
    failure: Option<Error>,
}

impl PathState {
    fn fail(&mut self, e: Error) {
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }
}

/// Decodes one path at the cursor into `buf`, defining its prefixes in `refs`: the path
/// (`None` when absent), or why it could not be rebuilt.
///
/// Failures other than the end of the data leave the cursor after the path's last opcode
/// (`end` or `framewk`), so the next image starts at the right byte.
pub(crate) fn decode_path<'p>(
    cursor: &mut Cursor<'_>,
    refs: &mut PrefixRefs<'_>,
    buf: &'p mut [u8],
) -> Result<Option<&'p str>, Error> {
    let start = cursor.offset();
    let end_of_input = |cursor: &Cursor<'_>| Err(cursor.truncated("path", 1));
    let Some(mut op) = cursor.next() else {
        return end_of_input(cursor);
    };
    if op == 0 {
        return Ok(None);
    }
    let data = cursor.data();
    let mut out = PathOut { buf, len: 0 };
    let mut state = PathState {
        string_base: None,
        failure: None,
    };
    loop {
        let op_at = cursor.offset().saturating_sub(1);
        match op {
            0x00 => break,
            0x01..=0x3f => {
                let (base, first_str) = *state
                    .string_base
                    .get_or_insert((out.len, cursor.pos().saturating_sub(1)));
                for _ in 0..op {
                    let Some(c) = cursor.next() else {
                        return end_of_input(cursor);
                    };
                    if (c == b'/' || c == b'\\') && out.len > base {
                        refs.define(PrefixRef {
                            start: first_str,
                            len: out.len.saturating_sub(base),
                            poisoned: state.failure.is_some(),
                        });
                    }
                    out.push(c);
                }
            }
            0x40..=0x7f => {
                let count = usize::from(op & 0x3f).saturating_add(1);
                let Some(version) = cursor.next() else {
                    return end_of_input(cursor);
                };
                let Some(name) = cursor.take_opt(count) else {
                    cursor.skip_to_end();
                    return end_of_input(cursor);
                };
                out.push(b'/');
                out.push_slice(name);
                if version == SHALLOW_FRAMEWORK_VERSION {
                    out.push_slice(b".framework/");
                } else {
                    out.push_slice(b".framework/Versions/");
                    out.push(version);
                    out.push(b'/');
                }
                out.push_slice(name);
                // `framewk` ends the path: no `end` follows.
                break;
            }
            _ => match read_code(op, cursor, op_at) {
                Ok(None) => return end_of_input(cursor),
                Err(e) => state.fail(e),
                Ok(Some(code)) => {
                    if let Err(e) = expand(data, refs, code, &mut out, op_at) {
                        state.fail(e);
                    }
                }
            },
        }
        match cursor.next() {
            Some(next) => op = next,
            None => return end_of_input(cursor),
        }
    }
    if let Some(e) = state.failure {
        Err(e)
    } else if out.overflowed() {
        Err(path_error(
            start,
            ErrorKind::BufferTooSmall {
                needed: u64::try_from(out.len).unwrap_or(u64::MAX),
            },
        ))
    } else {
        let len = out.len;
        match out.buf.get(..len).map(core::str::from_utf8) {
            Some(Ok(s)) => Ok(Some(s)),
            _ => Err(path_error(start, ErrorKind::InvalidUtf8)),
        }
    }
}

/// Appends prefix `code` (fixed or dynamic) to the output.
fn expand(
    data: &[u8],
    refs: &PrefixRefs<'_>,
    code: u64,
    out: &mut PathOut<'_>,
    at: u64,
) -> Result<(), Error> {
    if let Some(fixed) = usize::try_from(code)
        .ok()
        .and_then(|c| FIXED_PREFIXES.get(c))
    {
        out.push_slice(fixed);
        return Ok(());
    }
    if code < FIRST_DYNAMIC_CODE {
        return Err(path_error(at, ErrorKind::Malformed("reserved prefix code")));
    }
    let entry = refs.lookup(code, at)?;
    if out.has_room(entry.len) {
        expand_dynamic(data, refs, entry, out, at)
    } else {
        // It cannot fit: count it without walking (the path fails as too long anyway),
        // which also bounds the work hostile nested prefixes can cause.
        out.len = out.len.saturating_add(entry.len);
        Ok(())
    }
}
