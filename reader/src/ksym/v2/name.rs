//! `Name`: a v2 name, decoded on demand from its restart without a buffer (spec 8.3).

use core::cmp::Ordering;
use core::fmt;

use super::blob::Blob;
use super::header::MAX_RESTART_SHIFT;
use crate::{text, Error, ErrorKind, Format};

/// The most entries a name is decoded from (R at its largest).
const MAX_PIECES: usize = 1 << MAX_RESTART_SHIFT;

/// Which symbol a [`Name`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// A rank in name order.
    Rank(usize),
    /// An index in address order, whose rank is found when the name is read: an address
    /// lookup that only wants the offset pays nothing for the name.
    Index(usize),
}

/// The name of a symbol of a v2 blob.
///
/// It holds a position, not bytes: every use decodes the name from its restart (at most
/// 32 entries) into a stack of at most 32 pieces, so any length is read with a bounded
/// stack and no allocation. Compare it with [`cmp_bytes`](Self::cmp_bytes) or `==`, print
/// it with `Display`, copy it with [`copy_to`](Self::copy_to).
#[derive(Clone, Copy)]
pub struct Name<'a> {
    blob: Blob<'a>,
    at: At,
}

/// One piece of a decoded name: the entry (header offset in `names`) whose codes give the
/// name's bytes from `start` on, up to the next piece's start.
#[derive(Clone, Copy, Debug, Default)]
struct Piece {
    /// Saturates at 2^32 − 1: a name that long cannot be decoded from a blob of under
    /// 4 GiB anyway.
    start: u32,
    head_at: u32,
}

/// A name as pieces (spec 8.3).
#[derive(Clone, Copy, Debug)]
struct Pieces {
    stack: [Piece; MAX_PIECES],
    depth: usize,
    len: u64,
}

impl<'a> Name<'a> {
    pub(crate) fn of_rank(blob: Blob<'a>, rank: usize) -> Self {
        Name {
            blob,
            at: At::Rank(rank),
        }
    }

    pub(crate) fn of_index(blob: Blob<'a>, index: usize) -> Self {
        Name {
            blob,
            at: At::Index(index),
        }
    }

    /// The name's rank in name order (`None` only in an invalid blob).
    pub fn rank(&self) -> Option<usize> {
        match self.at {
            At::Rank(rank) => Some(rank),
            At::Index(index) => self.blob.rank_of(index),
        }
    }

    /// The name's pieces; an empty name where the blob is broken.
    fn pieces(&self) -> Pieces {
        let mut pieces = Pieces {
            stack: [Piece::default(); MAX_PIECES],
            depth: 0,
            len: 0,
        };
        let Some(rank) = self.rank() else {
            return pieces;
        };
        let blob = &self.blob;
        // Only the last entry's length is computed: a piece ends where the next begins.
        // (An invalid blob whose shared length exceeds the previous name then reads short
        // pieces: a wrong name, never an out-of-bounds read.)
        let complete = blob.walk_to(rank, |r, at, head| {
            let lcp = u32::try_from(head.lcp).unwrap_or(u32::MAX);
            while let Some(top) = pieces.depth.checked_sub(1) {
                if pieces.stack.get(top).is_some_and(|p| p.start >= lcp) {
                    pieces.depth = top;
                } else {
                    break;
                }
            }
            if let Some(slot) = pieces.stack.get_mut(pieces.depth) {
                *slot = Piece {
                    start: lcp,
                    head_at: u32::try_from(at).unwrap_or(u32::MAX),
                };
                pieces.depth = pieces.depth.wrapping_add(1);
            }
            if r == rank {
                pieces.len = u64::from(lcp).wrapping_add(blob.expanded_len(head));
            }
        });
        if !complete {
            pieces.depth = 0;
            pieces.len = 0;
        }
        pieces
    }

    /// Calls `each` with the name's bytes, in order, in pieces (code strings or parts of
    /// them); stops early when `each` returns `false`.
    pub fn for_each_chunk(&self, mut each: impl FnMut(&'a [u8]) -> bool) {
        let pieces = self.pieces();
        let stack = pieces.stack.get(..pieces.depth).unwrap_or_default();
        let (entries, table) = (self.blob.entries(), self.blob.code_table());
        for (p, piece) in stack.iter().enumerate() {
            let end = stack
                .get(p.wrapping_add(1))
                .map_or(pieces.len, |next| u64::from(next.start));
            let mut remaining = end.saturating_sub(u64::from(piece.start));
            let Some(head) = entries.head(piece.head_at as usize) else {
                return;
            };
            for &c in self.blob.codes(&head) {
                if remaining == 0 {
                    break;
                }
                let string = table.string(c);
                let take = usize::try_from(remaining)
                    .unwrap_or(usize::MAX)
                    .min(string.len());
                if !each(string.get(..take).unwrap_or_default()) {
                    return;
                }
                remaining = remaining.wrapping_sub(take as u64);
            }
        }
    }

    /// The length in bytes: what [`for_each_chunk`](Self::for_each_chunk) gives, so that
    /// every accessor agrees even on a blob that does not validate.
    pub fn len(&self) -> usize {
        let mut len = 0usize;
        self.for_each_chunk(|chunk| {
            len = len.wrapping_add(chunk.len());
            true
        });
        len
    }

    /// Whether the name is empty (only in a broken blob: builders store no empty name).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name's bytes, one at a time.
    pub fn bytes(&self) -> NameBytes<'a> {
        NameBytes {
            name: *self,
            chunks: [&[][..]; CHUNKS],
            count: 0,
            next: 0,
            current: &[],
            loaded: 0,
            finished: false,
        }
    }

    /// The name's byte at `position`, if it is that long.
    pub(crate) fn byte_at(&self, position: u64) -> Option<u8> {
        let (mut at, mut found) = (0u64, None);
        self.for_each_chunk(|chunk| {
            let end = at.wrapping_add(chunk.len() as u64);
            if position < end {
                let k = usize::try_from(position.wrapping_sub(at)).unwrap_or(usize::MAX);
                found = chunk.get(k).copied();
                return false;
            }
            at = end;
            true
        });
        found
    }

    /// Compares the name with the name `head`'s codes spell on their own (a restart's),
    /// bytewise, without a buffer or a second decoder on the stack.
    pub(crate) fn cmp_codes(&self, head: &super::entries::Head) -> Ordering {
        let (codes, table) = (self.blob.codes(head), self.blob.code_table());
        // A cursor over the codes' bytes: code index, byte within its string.
        let (mut code, mut byte) = (0usize, 0usize);
        let mut next_byte = || loop {
            let string = table.string(*codes.get(code)?);
            if let Some(&b) = string.get(byte) {
                byte = byte.wrapping_add(1);
                return Some(b);
            }
            code = code.wrapping_add(1);
            byte = 0;
        };
        let mut order = Ordering::Equal;
        self.for_each_chunk(|chunk| {
            for &ours in chunk {
                match next_byte() {
                    Some(theirs) if theirs == ours => {}
                    Some(theirs) => {
                        order = ours.cmp(&theirs);
                        return false;
                    }
                    None => {
                        order = Ordering::Greater;
                        return false;
                    }
                }
            }
            true
        });
        match order {
            Ordering::Equal if next_byte().is_some() => Ordering::Less,
            decided => decided,
        }
    }

    /// Compares the name with `other` bytewise (shorter first on a common prefix).
    pub fn cmp_bytes(&self, other: &[u8]) -> Ordering {
        let mut at = 0usize;
        let mut order = Ordering::Equal;
        self.for_each_chunk(|chunk| {
            let rest = other.get(at..).unwrap_or_default();
            let common = chunk.len().min(rest.len());
            order = chunk
                .get(..common)
                .unwrap_or_default()
                .cmp(rest.get(..common).unwrap_or_default());
            if order == Ordering::Equal && chunk.len() > rest.len() {
                order = Ordering::Greater;
            }
            at = at.wrapping_add(common);
            order == Ordering::Equal
        });
        match order {
            Ordering::Equal => at.cmp(&other.len()),
            decided => decided,
        }
    }

    /// Whether the name starts with `prefix`.
    pub fn starts_with(&self, prefix: &[u8]) -> bool {
        let mut at = 0usize;
        let mut matches = true;
        self.for_each_chunk(|chunk| {
            let rest = prefix.get(at..).unwrap_or_default();
            let common = chunk.len().min(rest.len());
            matches = chunk.get(..common) == rest.get(..common);
            at = at.wrapping_add(common);
            matches && at < prefix.len()
        });
        matches && at == prefix.len()
    }

    /// Copies the name into `buf` and returns its length, or `BufferTooSmall`.
    pub fn copy_to(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let needed = self.len();
        let Some(out) = buf.get_mut(..needed) else {
            let kind = ErrorKind::BufferTooSmall {
                needed: needed as u64,
            };
            return Err(Error::new(Format::Ksym, "name", 0, kind));
        };
        let mut at = 0usize;
        self.for_each_chunk(|chunk| {
            let end = at.wrapping_add(chunk.len());
            if let Some(dst) = out.get_mut(at..end) {
                dst.copy_from_slice(chunk);
            }
            at = end;
            true
        });
        Ok(needed)
    }

    /// Writes the name, each invalid UTF-8 sequence as U+FFFD (`quoted`: as `str`'s
    /// `Debug` does, invalid bytes as `\xNN`).
    fn write_text(&self, f: &mut fmt::Formatter<'_>, quoted: bool) -> fmt::Result {
        let mut buffer = Utf8Buffer::default();
        let mut result = Ok(());
        self.for_each_chunk(|chunk| {
            result = buffer.push(chunk, f, quoted);
            result.is_ok()
        });
        result?;
        buffer.finish(f, quoted)
    }
}

/// Collects bytes and writes them as text, carrying a UTF-8 sequence that a chunk
/// boundary cuts (code strings may end inside a character).
struct Utf8Buffer {
    bytes: [u8; 128],
    len: usize,
}

impl Default for Utf8Buffer {
    fn default() -> Self {
        Utf8Buffer {
            bytes: [0; 128],
            len: 0,
        }
    }
}

impl Utf8Buffer {
    fn push(&mut self, mut chunk: &[u8], f: &mut fmt::Formatter<'_>, quoted: bool) -> fmt::Result {
        // Every chunk is collected, so that a name (most fit the buffer) reaches the
        // formatter in one call instead of one per code string.
        while !chunk.is_empty() {
            let room = self.bytes.len().wrapping_sub(self.len);
            let take = room.min(chunk.len());
            let (now, later) = chunk.split_at(take);
            if let Some(dst) = self.bytes.get_mut(self.len..self.len.wrapping_add(take)) {
                dst.copy_from_slice(now);
            }
            self.len = self.len.wrapping_add(take);
            chunk = later;
            if self.len == self.bytes.len() {
                self.flush(f, quoted, false)?;
            }
        }
        Ok(())
    }

    fn finish(&mut self, f: &mut fmt::Formatter<'_>, quoted: bool) -> fmt::Result {
        self.flush(f, quoted, true)
    }

    /// Writes the complete characters; keeps a sequence cut at the end unless `last`.
    fn flush(&mut self, f: &mut fmt::Formatter<'_>, quoted: bool, last: bool) -> fmt::Result {
        let pending = self.bytes.get(..self.len).unwrap_or_default();
        let keep = if last { 0 } else { incomplete_tail(pending) };
        let cut = self.len.wrapping_sub(keep);
        let ready = pending.get(..cut).unwrap_or_default();
        if quoted {
            text::write_escaped_piece(f, ready)?;
        } else {
            text::write_lossy_piece(f, ready)?;
        }
        let mut tail = [0u8; 4];
        for (t, b) in tail.iter_mut().zip(pending.get(cut..).unwrap_or_default()) {
            *t = *b;
        }
        for (dst, src) in self.bytes.iter_mut().zip(tail.iter().take(keep)) {
            *dst = *src;
        }
        self.len = keep;
        Ok(())
    }
}

/// The length of a UTF-8 sequence that `bytes` ends in the middle of (0 if none).
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let Some(&b) = bytes.get(bytes.len().wrapping_sub(back)) else {
            return 0;
        };
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for the lead
        }
        let needed = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f, false)
    }
}

impl fmt::Debug for Name<'_> {
    /// Quoted like a `str`, escaped as `str`'s `Debug` escapes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        self.write_text(f, true)?;
        f.write_str("\"")
    }
}

impl PartialEq for Name<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes().eq(other.bytes())
    }
}

impl Eq for Name<'_> {}

impl PartialEq<[u8]> for Name<'_> {
    fn eq(&self, other: &[u8]) -> bool {
        self.cmp_bytes(other) == Ordering::Equal
    }
}

impl PartialEq<&[u8]> for Name<'_> {
    fn eq(&self, other: &&[u8]) -> bool {
        self.cmp_bytes(other) == Ordering::Equal
    }
}

impl PartialEq<str> for Name<'_> {
    fn eq(&self, other: &str) -> bool {
        self.cmp_bytes(other.as_bytes()) == Ordering::Equal
    }
}

impl PartialEq<&str> for Name<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.cmp_bytes(other.as_bytes()) == Ordering::Equal
    }
}

/// Chunks a [`NameBytes`] loads per walk of the name.
const CHUNKS: usize = 8;

/// The bytes of a [`Name`], in order.
///
/// The name is walked once per 8 chunks (code strings), so the iterator stays small (it
/// lives on kernel stacks).
#[derive(Clone, Copy)]
pub struct NameBytes<'a> {
    name: Name<'a>,
    chunks: [&'a [u8]; CHUNKS],
    count: usize,
    next: usize,
    current: &'a [u8],
    /// Bytes of the name covered by the chunks loaded so far.
    loaded: usize,
    finished: bool,
}

impl NameBytes<'_> {
    /// Loads the next chunks after the `loaded` bytes; false when none are left.
    fn refill(&mut self) -> bool {
        if self.finished {
            return false;
        }
        let (mut position, skip) = (0usize, self.loaded);
        let mut stored = 0usize;
        let mut chunks = self.chunks;
        let mut more = false;
        self.name.for_each_chunk(|chunk| {
            let end = position.wrapping_add(chunk.len());
            if end > skip {
                let fresh = chunk
                    .get(skip.saturating_sub(position)..)
                    .unwrap_or_default();
                match chunks.get_mut(stored) {
                    Some(slot) => {
                        *slot = fresh;
                        stored = stored.wrapping_add(1);
                    }
                    None => {
                        more = true;
                        return false;
                    }
                }
            }
            position = end;
            true
        });
        self.chunks = chunks;
        self.count = stored;
        self.next = 0;
        self.finished = !more;
        self.loaded = chunks
            .iter()
            .take(stored)
            .map(|c| c.len())
            .fold(self.loaded, usize::wrapping_add);
        stored > 0
    }
}

impl Iterator for NameBytes<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        loop {
            if let Some((&first, rest)) = self.current.split_first() {
                self.current = rest;
                return Some(first);
            }
            if let Some(chunk) = self
                .chunks
                .get(self.next)
                .filter(|_| self.next < self.count)
            {
                self.current = chunk;
                self.next = self.next.wrapping_add(1);
                continue;
            }
            if !self.refill() {
                return None;
            }
        }
    }
}
