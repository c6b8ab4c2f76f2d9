//! Every GSYM entry point, on the input bytes.

use core::fmt::Write;

use symblob::gsym::GsymFile;

use crate::digest::Digest;
use crate::parsed;
use crate::rt::Console;

pub fn check(input: &[u8], out: &mut Console) {
    let Some(file) = parsed(GsymFile::parse(input), "gsym", out) else {
        return;
    };
    if let Err(e) = file.validate() {
        let _ = writeln!(out, "gsym validate: {e}");
    }
    let mut digest = Digest::new();
    let header = file.header();
    digest.number(header.base_address ^ u64::from(header.addr_off_size));
    digest.bytes(header.uuid);
    digest.number(file.endian() as u64);
    for index in 0..file.file_count() as u32 {
        if let Some(entry) = file.file(index) {
            digest.bytes(entry.dir.0);
            digest.bytes(entry.base.0);
        }
    }
    let mut lookups = 0u64;
    for function in file.functions() {
        let Ok(function) = function else {
            continue;
        };
        digest.number(function.address ^ u64::from(function.size));
        digest.bytes(function.name.0);
        if let Some(name) = file.string(function.name_offset) {
            digest.number(name.len() as u64);
        }
        if let Ok(Some(rows)) = file.line_rows(&function) {
            for row in rows.flatten() {
                digest.number(row.address ^ u64::from(row.line) ^ u64::from(row.file));
            }
        }
        if let Ok(Some(nodes)) = file.inline_nodes(&function) {
            for node in nodes {
                match node {
                    Ok(node) => {
                        digest.number(node.depth as u64 ^ node.range_count);
                        digest.bytes(node.name.0);
                        digest.number(u64::from(node.call_file) ^ u64::from(node.call_line));
                        for range in node.ranges {
                            digest.number(range.start ^ range.end);
                        }
                    }
                    Err(e) => {
                        let _ = write!(digest, "{e}");
                    }
                }
            }
        }
        let end = function.address.wrapping_add(u64::from(function.size));
        for addr in [function.address, end.wrapping_sub(1), end] {
            if let Ok(Some(f)) = file.function_at(addr) {
                digest.number(f.index as u64);
            }
            match file.lookup(addr) {
                Ok(Some(found)) => {
                    lookups += 1;
                    if let Some(row) = found.row {
                        digest.number(row.address ^ u64::from(row.file) ^ u64::from(row.line));
                    }
                    for frame in found.frames() {
                        let _ = write!(digest, "{}{}{}", frame.name, frame.dir, frame.base);
                        digest.number(frame.offset ^ u64::from(frame.line));
                        digest.number(u64::from(frame.inlined) ^ u64::from(frame.has_location()));
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    let _ = write!(digest, "{e}");
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "gsym: {} functions, {lookups} lookups, digest {:016x}",
        file.len(),
        digest.value()
    );
}
