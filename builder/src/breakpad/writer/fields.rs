//! The numbers of a record's fields, appended to its line without `core::fmt`: the
//! records of a large `.sym` file are tens of millions of numbers, and formatting them
//! through `write!` took a tenth of a kernel's build.

use crate::hex::LowerHex;

/// Appends `value` in lower-case hex, as `{:x}` writes it.
pub(super) fn push_hex(out: &mut String, value: u64) {
    out.push_str(LowerHex::new(value).as_str());
}

/// Appends `value` in decimal.
pub(super) fn push_dec(out: &mut String, value: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(value));
}
