//! Every Lidia entry point, on the input bytes.

use core::fmt::Write;

use symblob::lidia::LidiaFile;

use crate::digest::Digest;
use crate::parsed;
use crate::rt::Console;

pub fn check(input: &[u8], out: &mut Console) {
    let Some(file) = parsed(LidiaFile::parse(input), "lidia", out) else {
        return;
    };
    let mut digest = Digest::new();
    if let Err(e) = file.verify_checksums() {
        let _ = writeln!(out, "lidia checksums: {e}");
    }
    if let Err(e) = file.validate() {
        let _ = writeln!(out, "lidia validate: {e}");
    }
    digest.number(u64::from(file.va_size()) ^ u64::from(file.field_size()));
    digest.number(u64::from(file.line_size()));
    digest.number(file.strings_table().len() as u64);
    digest.number(file.lines().len() as u64);
    for line in file.lines().iter() {
        digest.number(line.offset ^ line.line);
    }
    for range in file.ranges() {
        digest.number(range.va ^ range.length ^ range.depth ^ range.call_line);
        let _ = write!(
            digest,
            "{}{}{}",
            range.function, range.file, range.call_file
        );
        digest.number(range.lines.line_for(range.va, range.va.wrapping_add(1)));
        for addr in [range.va, range.va.wrapping_add(range.length / 2)] {
            if let Some(function) = file.lookup_function(addr) {
                digest.bytes(function.0);
            }
            for frame in file.lookup(addr) {
                let _ = write!(digest, "{}{}", frame.function, frame.file);
                digest.number(frame.line ^ frame.depth ^ frame.range_index as u64);
                digest.bytes(frame.call_file.0);
            }
        }
    }
    // The batched lookups, over addresses taken from the table and the input.
    let mut addrs = [0u64; 12];
    for (k, addr) in addrs.iter_mut().enumerate() {
        *addr = file.va(k.wrapping_mul(file.len()) / 12).unwrap_or(0) ^ input.len() as u64;
    }
    file.lookup_each(&addrs, |i, frames| {
        digest.number(i as u64);
        for frame in frames {
            digest.number(frame.line ^ frame.range_index as u64);
        }
    });
    file.lookup_function_each(&addrs, |_, function| {
        digest.bytes(function.map_or(&[][..], |f| f.0));
    });
    for index in [0, file.len() / 2, file.len()] {
        digest.number(file.va(index).unwrap_or(0));
        if let Some(entry) = file.entry(index) {
            digest.number(entry.length);
            if let Some(name) = file.string(entry.func) {
                digest.number(name.to_str().map_or(0, |s| s.len() as u64));
            }
        }
        if let Some(range) = file.range(index) {
            digest.number(range.index as u64);
        }
    }
    let _ = writeln!(
        out,
        "lidia: {} ranges, digest {:016x}",
        file.len(),
        digest.value()
    );
}
