//! The bounds-checked read position every format's parser shares.
//!
//! Every read is checked; running out of bytes is an [`Error`] that names the format, the
//! section being read and the offset, never a panic.

use crate::{Error, ErrorKind, Format};

/// Reads a byte slice front to back; every read is checked and names its section.
#[derive(Clone, Debug)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, a blob (or stream) of `format`.
    pub(crate) const fn new(data: &'a [u8], format: Format) -> Self {
        Cursor {
            data,
            pos: 0,
            format,
        }
    }

    pub(crate) const fn data(&self) -> &'a [u8] {
        self.data
    }

    pub(crate) const fn pos(&self) -> usize {
        self.pos
    }

    /// The offset as the `u64` that [`Error`] carries.
    pub(crate) fn offset(&self) -> u64 {
        u64::try_from(self.pos).unwrap_or(u64::MAX)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// Moves to the end of the data (nothing is left to read).
    pub(crate) fn skip_to_end(&mut self) {
        self.pos = self.data.len();
    }

    /// The next byte, or `None` at the end of the data.
    pub(crate) fn next(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos = self.pos.saturating_add(1);
        Some(b)
    }

    /// The next byte; running out is a truncation of `section`.
    pub(crate) fn byte(&mut self, section: &'static str) -> Result<u8, Error> {
        match self.next() {
            Some(b) => Ok(b),
            None => Err(self.truncated(section, 1)),
        }
    }

    /// The next `n` bytes, or `None` (position unchanged) if fewer remain.
    pub(crate) fn take_opt(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let slice = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(slice)
    }

    /// The next `n` bytes; fewer is a truncation of `section`.
    pub(crate) fn take(&mut self, n: usize, section: &'static str) -> Result<&'a [u8], Error> {
        match self.take_opt(n) {
            Some(s) => Ok(s),
            None => Err(self.truncated(section, n)),
        }
    }

    /// A big-endian two's-complement field of `n` bytes (1..=8), sign-extended to 64 bits.
    pub(crate) fn signed(&mut self, n: usize, section: &'static str) -> Result<u64, Error> {
        let bytes = self.take(n, section)?;
        let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
        let mut value: u64 = if negative { u64::MAX } else { 0 };
        for &b in bytes {
            value = value.wrapping_shl(8) | u64::from(b);
        }
        Ok(value)
    }

    /// An error of `kind` in `section` at byte `offset` of this cursor's data.
    pub(crate) fn error_at(&self, section: &'static str, offset: u64, kind: ErrorKind) -> Error {
        Error::new(self.format, section, offset, kind)
    }

    /// A truncation error for `section` at the current position.
    pub(crate) fn truncated(&self, section: &'static str, needed: usize) -> Error {
        Error::new(
            self.format,
            section,
            self.offset(),
            ErrorKind::Truncated {
                needed: u64::try_from(needed).unwrap_or(u64::MAX),
                available: u64::try_from(self.remaining()).unwrap_or(u64::MAX),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_fields_are_sign_extended() {
        let mut c = Cursor::new(&[0xff, 0x00, 0x80, 0xf7, 0, 0, 0], Format::Cif);
        assert_eq!(c.signed(1, "t"), Ok(u64::MAX));
        assert_eq!(c.signed(2, "t"), Ok(0x0080));
        assert_eq!(c.signed(4, "t"), Ok(0xffff_ffff_f700_0000));
        assert!(c.signed(1, "t").is_err());
    }
}
