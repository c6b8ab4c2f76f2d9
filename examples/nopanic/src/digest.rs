//! A running digest of everything the checks compute, printed at the end so that no
//! result is dead code to the optimiser.

use core::fmt;

/// FNV-1a over the bytes and numbers fed to it.
pub struct Digest(u64);

impl Digest {
    /// An empty digest.
    pub const fn new() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }

    /// Feeds bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Feeds a number.
    pub fn number(&mut self, value: u64) {
        self.bytes(&value.to_le_bytes());
    }

    /// The digest value.
    pub fn value(&self) -> u64 {
        self.0
    }
}

impl fmt::Write for Digest {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}
