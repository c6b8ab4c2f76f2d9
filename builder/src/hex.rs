//! Lower-case hex of bytes (build IDs, digests) and of numbers: shared by sources and
//! writers, so it belongs to neither.

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A number in lower-case hex without a prefix, as `{:x}` writes it, held in a buffer
/// of its own (as `itoa::Buffer` holds a decimal). Writers of text made of many numbers
/// use it instead of `core::fmt`: formatting through it was a tenth of a Breakpad
/// build's time.
#[cfg(any(feature = "breakpad", feature = "serve"))]
pub(crate) struct LowerHex {
    digits: [u8; 16],
    start: usize,
}

#[cfg(any(feature = "breakpad", feature = "serve"))]
impl LowerHex {
    /// The digits of `value`.
    pub(crate) fn new(value: u64) -> Self {
        let mut digits = [b'0'; 16];
        let mut start = digits.len();
        let mut rest = value;
        while let Some(at) = start.checked_sub(1) {
            digits[at] = b"0123456789abcdef"[(rest & 0xf) as usize];
            start = at;
            rest >>= 4;
            if rest == 0 {
                break;
            }
        }
        LowerHex { digits, start }
    }

    /// The digits as text.
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits are ever stored.
        std::str::from_utf8(&self.digits[self.start..]).unwrap_or_default()
    }
}

#[cfg(all(test, any(feature = "breakpad", feature = "serve")))]
mod tests {
    use super::LowerHex;

    #[test]
    fn lower_hex_is_what_format_writes() {
        for value in [0, 1, 0xf, 0x10, 0xabc, 0x8000_0000, u64::MAX >> 4, u64::MAX] {
            assert_eq!(LowerHex::new(value).as_str(), format!("{value:x}"));
        }
    }
}
