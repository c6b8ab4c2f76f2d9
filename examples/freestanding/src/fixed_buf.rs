//! A `fmt::Write` into a fixed byte buffer that truncates instead of failing, the way a
//! kernel formats into a line buffer.

use core::fmt;

/// Formats into `buf`; bytes beyond its end are dropped (and counted in `wanted`).
pub struct FixedBuf<'a> {
    buf: &'a mut [u8],
    len: usize,
    wanted: usize,
}

impl<'a> FixedBuf<'a> {
    /// An empty writer over `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        FixedBuf {
            buf,
            len: 0,
            wanted: 0,
        }
    }

    /// The bytes written so far.
    pub fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// How many bytes the output would have needed.
    pub fn wanted(&self) -> usize {
        self.wanted
    }
}

impl fmt::Write for FixedBuf<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.wanted = self.wanted.saturating_add(s.len());
        let room = self.buf.get_mut(self.len..).unwrap_or(&mut []);
        // Byte by byte: the copy is as long as the shorter side, with no length check
        // that could fail.
        for (dst, src) in room.iter_mut().zip(s.as_bytes()) {
            *dst = *src;
            self.len += 1;
        }
        Ok(())
    }
}
