//! Format detection, on the input bytes.

use core::fmt::Write;

use symblob::{detect, Detected};

use crate::rt::Console;

pub fn check(input: &[u8], out: &mut Console) {
    let found = detect(input);
    let _ = match found {
        Detected::Blob(format) => writeln!(out, "detect: {format}"),
        other => writeln!(out, "detect: {other:?}"),
    };
}
