//! Decoded symbol names: a borrowed token piece followed by a borrowed raw piece.
//!
//! A name is never copied into a buffer (spec D6): it is returned as the token bytes and
//! the rest of the payload, and every operation (comparison, display, copy) streams over the
//! two pieces. Stack use is therefore independent of name length.

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Chain, Copied};
use core::slice;

use super::raw::TOKEN_MARKER;
use crate::{Error, ErrorKind, Format};

/// A symbol name: `token ‖ rest`, either piece possibly empty.
///
/// The pieces borrow from the blob. Builder-written blobs split names on UTF-8 character
/// boundaries, so each piece is valid UTF-8 on its own; blobs from elsewhere may not be,
/// which [`Display`](fmt::Display) handles by printing U+FFFD.
#[derive(Clone, Copy, Default)]
pub struct Name<'a> {
    /// The bytes of the token the name starts with (empty when the record is raw).
    pub token: &'a [u8],
    /// The bytes that follow the token.
    pub rest: &'a [u8],
}

/// Iterator over the bytes of a [`Name`], token first.
pub type NameBytes<'a> = Chain<Copied<slice::Iter<'a, u8>>, Copied<slice::Iter<'a, u8>>>;

impl<'a> Name<'a> {
    /// A name made of one contiguous piece.
    pub const fn from_bytes(bytes: &'a [u8]) -> Self {
        Name {
            token: &[],
            rest: bytes,
        }
    }

    /// Length of the decoded name in bytes.
    pub fn len(&self) -> usize {
        // Both pieces are sub-slices of one blob, so the sum cannot overflow.
        self.token.len().saturating_add(self.rest.len())
    }

    /// True when the name has no bytes (only possible in blobs the origin wrote).
    pub fn is_empty(&self) -> bool {
        self.token.is_empty() && self.rest.is_empty()
    }

    /// The bytes of the name, token first.
    pub fn bytes(&self) -> NameBytes<'a> {
        self.token.iter().copied().chain(self.rest.iter().copied())
    }

    /// Compares the name with `other` byte-wise (name order), without copying.
    ///
    /// The token piece is compared with one slice comparison (a `memcmp`), then the rest
    /// with the remainder of `other`.
    #[inline]
    pub fn cmp_bytes(&self, other: &[u8]) -> Ordering {
        let token = self.token;
        match other.split_at_checked(token.len()) {
            Some((head, tail)) => match compare(token, head) {
                Ordering::Equal => compare(self.rest, tail),
                unequal => unequal,
            },
            // `other` is shorter than the token: it is either a strict prefix of the
            // token (the name is greater) or differs within it.
            None => match token.get(..other.len()).map(|t| compare(t, other)) {
                Some(Ordering::Equal) | None => Ordering::Greater,
                Some(unequal) => unequal,
            },
        }
    }

    /// Compares two names byte-wise, whatever their split into pieces.
    pub fn cmp_name(&self, other: &Name<'_>) -> Ordering {
        match other.token.len().cmp(&self.token.len()) {
            // `other`'s token is the shorter one: compare it against our name's pieces.
            Ordering::Less | Ordering::Equal => match self.cmp_bytes_prefix(other.token) {
                Some(rest_of_self) => rest_of_self.cmp_bytes(other.rest),
                None => self.cmp_bytes(other.token),
            },
            Ordering::Greater => other.cmp_name(self).reverse(),
        }
    }

    /// If `prefix` (no longer than the token) is a prefix of this name, the name without it.
    fn cmp_bytes_prefix(&self, prefix: &[u8]) -> Option<Name<'a>> {
        let (head, tail) = self.token.split_at_checked(prefix.len())?;
        (compare(head, prefix) == Ordering::Equal).then_some(Name {
            token: tail,
            rest: self.rest,
        })
    }

    /// True when the name starts with `prefix`.
    pub fn starts_with(&self, prefix: &[u8]) -> bool {
        match prefix.split_at_checked(self.token.len()) {
            Some((head, tail)) => head == self.token && self.rest.starts_with(tail),
            None => self.token.starts_with(prefix),
        }
    }

    /// Copies the name into `buf` and returns its length.
    ///
    /// Fails with [`ErrorKind::BufferTooSmall`] (section `name`, offset 0) and leaves `buf`
    /// unchanged when `buf` is shorter than [`len`](Self::len).
    pub fn copy_to(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let len = self.len();
        let too_small = || {
            Error::new(
                Format::Ksym,
                "name",
                0,
                ErrorKind::BufferTooSmall { needed: len as u64 },
            )
        };
        // Each destination is cut to its source's own length, so the copies cannot fail
        // (a length computed as a sum would leave the optimiser a mismatch to check).
        let (head, after) = buf
            .split_at_mut_checked(self.token.len())
            .ok_or_else(too_small)?;
        let tail = after.get_mut(..self.rest.len()).ok_or_else(too_small)?;
        head.copy_from_slice(self.token);
        tail.copy_from_slice(self.rest);
        Ok(len)
    }
}

impl PartialEq for Name<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.cmp_name(other) == Ordering::Equal
    }
}

impl Eq for Name<'_> {}

impl PartialOrd for Name<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_name(other)
    }
}

impl PartialEq<[u8]> for Name<'_> {
    fn eq(&self, other: &[u8]) -> bool {
        self.len() == other.len() && self.cmp_bytes(other) == Ordering::Equal
    }
}

impl PartialEq<&[u8]> for Name<'_> {
    fn eq(&self, other: &&[u8]) -> bool {
        *self == **other
    }
}

impl PartialEq<str> for Name<'_> {
    fn eq(&self, other: &str) -> bool {
        *self == *other.as_bytes()
    }
}

impl PartialEq<&str> for Name<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == *other.as_bytes()
    }
}

/// `a.cmp(b)` for byte slices, eight bytes at a time.
///
/// Names are short (tens of bytes), and for such lengths a word-wise loop beats a call to
/// the C library's `memcmp`, some variants of which stall on the masked vector loads they
/// use for short tails. Big-endian words compare in the same order as their bytes. The
/// last, partial word is compared as the eight bytes that end where the shorter slice
/// ends: they overlap bytes already found equal, so no byte loop is needed.
#[inline]
pub(crate) fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let common = a.len().min(b.len());
    let word = |s: &[u8], at: usize| {
        s.get(at..at.wrapping_add(8))
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_be_bytes)
    };
    if common >= 8 {
        let mut at = 0;
        while at < common {
            // The last step starts early so that it ends at `common`.
            let start = at.min(common.wrapping_sub(8));
            let (x, y) = (word(a, start), word(b, start));
            if x != y {
                return x.cmp(&y);
            }
            at = at.wrapping_add(8);
        }
    } else {
        for (x, y) in a.iter().zip(b) {
            if x != y {
                return x.cmp(y);
            }
        }
    }
    a.len().cmp(&b.len())
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::text::write_lossy(f, &[self.token, self.rest])
    }
}

impl fmt::Debug for Name<'_> {
    /// Quoted like a `str`, escaped as `str`'s `Debug` escapes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::text::write_quoted(f, &[self.token, self.rest])
    }
}

/// How a record payload refers to the token table (spec D5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Payload<'a> {
    /// The token id, if the payload starts with a reference.
    pub token: Option<u16>,
    /// The raw bytes after the reference (the whole payload when raw).
    pub rest: &'a [u8],
}

/// Why a payload is not well formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BadMarker;

/// Splits a record payload into its token reference and raw rest (spec D5).
///
/// `FF id FF FF` is the two-byte id `id·256 + 0xFF`: a one-byte reference cannot be followed
/// by a raw `0xFF`, because `0xFF` never occurs in UTF-8.
#[inline]
pub(crate) fn split_payload(p: &[u8]) -> Result<Payload<'_>, BadMarker> {
    match *p {
        [] => Ok(Payload {
            token: None,
            rest: p,
        }),
        [first, ..] if first != TOKEN_MARKER => Ok(Payload {
            token: None,
            rest: p,
        }),
        [_, hi, TOKEN_MARKER, TOKEN_MARKER, ref rest @ ..] => Ok(Payload {
            token: Some(u16::from_be_bytes([hi, TOKEN_MARKER])),
            rest,
        }),
        [_, id, TOKEN_MARKER, ref rest @ ..] => Ok(Payload {
            token: Some(u16::from(id)),
            rest,
        }),
        [_, hi, lo, TOKEN_MARKER, ref rest @ ..] => Ok(Payload {
            token: Some(u16::from_be_bytes([hi, lo])),
            rest,
        }),
        _ => Err(BadMarker),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_forms_follow_d5() {
        let raw = split_payload(b"abc").unwrap();
        assert_eq!((raw.token, raw.rest), (None, &b"abc"[..]));
        let short = split_payload(&[0xFF, 7, 0xFF, b'x']).unwrap();
        assert_eq!((short.token, short.rest), (Some(7), &b"x"[..]));
        let long = split_payload(&[0xFF, 1, 2, 0xFF, b'y']).unwrap();
        assert_eq!((long.token, long.rest), (Some(258), &b"y"[..]));
        let ff = split_payload(&[0xFF, 1, 0xFF, 0xFF, b'z']).unwrap();
        assert_eq!((ff.token, ff.rest), (Some(511), &b"z"[..]));
        assert_eq!(split_payload(&[]).unwrap().token, None);
        assert_eq!(split_payload(&[0xFF, 1, 2, 3]), Err(BadMarker));
        assert_eq!(split_payload(&[0xFF, 1]), Err(BadMarker));
    }

    #[test]
    fn comparison_matches_contiguous_bytes() {
        let words: [&[u8]; 8] = [b"", b"a", b"ab", b"abc", b"abd", b"b", b"abcabc", b"zz"];
        for w in words {
            for cut in 0..=w.len() {
                let (t, r) = w.split_at(cut);
                let n = Name { token: t, rest: r };
                for q in words {
                    assert_eq!(n.cmp_bytes(q), w.cmp(q), "{w:?}@{cut} vs {q:?}");
                    assert_eq!(n.starts_with(q), w.starts_with(q), "{w:?}@{cut} vs {q:?}");
                    for qcut in 0..=q.len() {
                        let (qt, qr) = q.split_at(qcut);
                        let m = Name {
                            token: qt,
                            rest: qr,
                        };
                        assert_eq!(n.cmp(&m), w.cmp(q), "{w:?}@{cut} vs {q:?}@{qcut}");
                    }
                }
            }
        }
    }

    #[test]
    fn word_comparison_matches_slice_order() {
        // Pairs that share prefixes of every length up to 40 bytes, then differ by one
        // byte (low, high, 0x00, 0xFF) or in length, so that each word position and each
        // overlapping last word decides some comparison.
        const VARIANTS: usize = 7;
        let case = |i: usize| -> ([u8; 41], usize) {
            let mut v = [0u8; 41];
            for (j, b) in v.iter_mut().enumerate() {
                *b = b'a' + (j % 26) as u8;
            }
            let len = i / VARIANTS;
            match i % VARIANTS {
                0 => (v, len),
                k @ 1..=4 => {
                    v[len] = [0x00, b'a', b'm', 0xFF][k - 1];
                    (v, len + 1)
                }
                k => {
                    if len > 0 {
                        v[len / 2] = if k == 5 { 0x00 } else { 0xFF };
                    }
                    (v, len)
                }
            }
        };
        let count = 41 * VARIANTS;
        for i in 0..count {
            let (a, a_len) = case(i);
            let a = &a[..a_len];
            for j in 0..count {
                let (b, b_len) = case(j);
                let b = &b[..b_len];
                assert_eq!(compare(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}
