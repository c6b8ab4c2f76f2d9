//! The encoder's output: a caller's buffer that also counts what did not fit.

/// Writes into a fixed buffer and keeps counting past its end, so one pass both fills the
/// buffer and learns the full encoded length (an empty buffer makes a pure dry run).
pub(crate) struct Sink<'o> {
    buf: &'o mut [u8],
    len: usize,
}

impl<'o> Sink<'o> {
    pub(crate) fn new(buf: &'o mut [u8]) -> Self {
        Sink { buf, len: 0 }
    }

    /// Bytes produced so far, written or not.
    pub(crate) const fn len(&self) -> usize {
        self.len
    }

    /// Whether everything produced so far was written.
    pub(crate) fn fits(&self) -> bool {
        self.len <= self.buf.len()
    }

    /// Bytes that actually landed in the buffer.
    pub(crate) fn written(&self) -> usize {
        self.len.min(self.buf.len())
    }

    pub(crate) fn put(&mut self, byte: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = byte;
        }
        self.len = self.len.saturating_add(1);
    }

    pub(crate) fn put_slice(&mut self, bytes: &[u8]) {
        // Copy as much as fits; when it only partly fits, the buffer is filled up to its
        // end so the caller sees how far it got. Both sides are cut to the same `n`, so
        // the copy has no length check that could fail.
        let room = self.buf.get_mut(self.len..).unwrap_or_default();
        let n = room.len().min(bytes.len());
        if let (Some(dst), Some(src)) = (room.get_mut(..n), bytes.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.len = self.len.saturating_add(bytes.len());
    }
}
