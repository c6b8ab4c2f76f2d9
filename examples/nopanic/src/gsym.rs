//! Every GSYM entry point, on the input bytes.

use core::fmt::Write;

use symblob::gsym::{GsymFile, Lookup, LookupIndex};

use crate::digest::Digest;
use crate::parsed;
use crate::rt::Console;

/// Words of the lookup index built on the stack (64 KiB); a larger file's index is
/// refused with an error, which is an outcome too.
const INDEX_WORDS: usize = 8192;

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
    let mut index_words = [0u64; INDEX_WORDS];
    let needed = LookupIndex::words_needed(&file);
    let index = match LookupIndex::build(file, &mut index_words) {
        Ok(index) => Some(index),
        Err(e) => {
            let _ = writeln!(out, "gsym lookup index ({needed} words): {e}");
            None
        }
    };
    if let Some(index) = &index {
        digest.number((index.checkpoints() ^ index.inline_nodes()) as u64);
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
            lookups += digest_lookup(&mut digest, file.lookup(addr));
            if let Some(index) = &index {
                digest_lookup(&mut digest, index.lookup(addr));
            }
        }
    }
    if let Some(index) = &index {
        // Batched: every address of the input taken as an address, sorted in pieces.
        let (addrs, _) = input.as_chunks::<8>();
        let mut wanted = [0u64; 64];
        for (w, a) in wanted.iter_mut().zip(addrs) {
            *w = u64::from_le_bytes(*a);
        }
        let mut order = [0u64; 16];
        index.lookup_each(&wanted, &mut order, |i, found| {
            digest.number(i as u64);
            digest_lookup(&mut digest, found.map(|l| l.copied()));
        });
    }
    let _ = writeln!(
        out,
        "gsym: {} functions, {lookups} lookups, digest {:016x}",
        file.len(),
        digest.value()
    );
}

/// Adds a lookup's answer to the digest; 1 when it found a function.
fn digest_lookup(digest: &mut Digest, found: Result<Option<Lookup<'_>>, symblob::Error>) -> u64 {
    match found {
        Ok(Some(found)) => {
            if let Some(row) = found.row {
                digest.number(row.address ^ u64::from(row.file) ^ u64::from(row.line));
            }
            for frame in found.frames() {
                let _ = write!(digest, "{}{}{}", frame.name, frame.dir, frame.base);
                digest.number(frame.offset ^ u64::from(frame.line));
                digest.number(u64::from(frame.inlined) ^ u64::from(frame.has_location()));
            }
            1
        }
        Ok(None) => 0,
        Err(e) => {
            let _ = write!(digest, "{e}");
            0
        }
    }
}
