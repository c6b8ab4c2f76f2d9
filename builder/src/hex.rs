//! Lower-case hex of bytes (build IDs, digests): shared by sources and writers, so it
//! belongs to neither.

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
