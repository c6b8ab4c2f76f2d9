//! Every ksym-bin entry point, on the input bytes.

use core::fmt::Write;
use core::hint::black_box;
use core::ops::Range;

use symblob::ksym::{KallsymsMapped, KsymBlob, Ksyms, LayoutKind, NameIndex, TextRanges};

use crate::digest::Digest;
use crate::fixed_buf::FixedBuf;
use crate::parsed;
use crate::rt::Console;

/// Symbols the optional name index is sized for: 64 KiB of stack. Larger blobs take the
/// index's buffer-too-small path, which is checked as well.
const INDEX_WORDS: usize = NameIndex::words_needed(4096);

/// A number taken from the input, so that queries are as opaque as the blob.
fn word(input: &[u8], at: usize) -> u64 {
    input
        .get(at..)
        .and_then(|rest| rest.first_chunk::<8>())
        .map_or(0, |bytes| u64::from_le_bytes(*bytes))
}

pub fn check(input: &[u8], out: &mut Console) {
    if let Ok(trusted) = KsymBlob::parse_trusted(input) {
        let _ = writeln!(out, "ksym trusted open: {} symbols", trusted.len());
    }
    for kind in [LayoutKind::Plain, LayoutKind::Sized] {
        if let Ok(blob) = KsymBlob::parse_trusted_as(input, kind) {
            let _ = writeln!(out, "ksym {kind} trusted: {} symbols", blob.len());
        }
        if let Err(e) = KsymBlob::parse_as(input, kind) {
            let _ = writeln!(out, "ksym as {kind}: {e}");
        }
    }
    check_compat(input, out);
    let Some(blob) = parsed(KsymBlob::parse(input), "ksym", out) else {
        return;
    };
    let mut digest = Digest::new();
    let _ = writeln!(
        out,
        "ksym: {} symbols, {} tokens, used size {}",
        blob.len(),
        blob.token_count(),
        blob.used_size()
    );
    let _ = writeln!(out, "ksym dump:");
    let _ = blob.dump(out);
    let _ = writeln!(out, "ksym dump end");

    if let Err(e) = blob.validate() {
        let _ = writeln!(out, "ksym validate: {e}");
    }

    // Text ranges: the span of the symbols (a constructor that can fail), and two ranges
    // taken from the input.
    let first = blob.symbol(0).map_or(0, |e| e.address);
    let last = blob
        .symbols()
        .next_back()
        .map_or(0, |e| e.address.wrapping_add(16));
    let from_input: [Range<u64>; 2] = [
        word(input, 8)..word(input, 16),
        word(input, 24)..word(input, 32),
    ];
    let ranges = match (
        TextRanges::single(first, last),
        TextRanges::new(&from_input),
    ) {
        (Ok(span), Ok(other)) => {
            digest.number(other.len() as u64);
            for (start, end) in other.iter() {
                digest.number(start ^ end);
            }
            span
        }
        (Ok(span), Err(_)) => span,
        (Err(e), _) => {
            let _ = writeln!(out, "ksym ranges: {e}");
            return;
        }
    };
    let bias = word(input, input.len().saturating_sub(8)) & 0xfff;
    let ksyms = Ksyms::new(blob, ranges).with_bias(black_box(bias));
    let _ = (ksyms.bias(), ksyms.ranges().find(first), ksyms.blob().len());

    // The batched lookup, over addresses taken from the input.
    let mut queries = [0u64; 11];
    for (k, query) in queries.iter_mut().enumerate() {
        *query = word(input, k.wrapping_mul(8)) ^ first;
    }
    ksyms.lookup_address_each(&queries, |i, symbol| {
        digest.number(i as u64 ^ symbol.map_or(0, |s| s.offset));
    });

    let mut line = [0u8; 160];
    let mut name_buf = [0u8; 512];
    for entry in blob.symbols() {
        digest.number(entry.address);
        for query in [entry.address, entry.address.wrapping_add(bias ^ 7)] {
            if let Some(symbol) = ksyms.lookup_address(query) {
                let mut w = FixedBuf::new(&mut line);
                let _ = write!(w, "{symbol}");
                digest.bytes(w.bytes());
            }
            if let Some(symbol) = ksyms.lookup_return_address(query) {
                digest.number(symbol.offset ^ symbol.size);
                digest.number(symbol.index as u64);
            }
        }
        // Name operations.
        let name = entry.name;
        digest.number(name.len() as u64);
        digest.number(u64::from(name.is_empty()));
        digest.number(name.bytes().fold(0u64, |a, b| a.wrapping_add(u64::from(b))));
        digest.number(name.cmp_bytes(input.get(..4).unwrap_or(&[])) as u64);
        digest.number(u64::from(name.starts_with(b"__")));
        if let Some(dump) = blob.dump_line(entry.index) {
            let mut w = FixedBuf::new(&mut line);
            let _ = write!(w, "{dump}");
            digest.number(w.wanted() as u64);
        }
        match name.copy_to(&mut name_buf) {
            Ok(len) => {
                let copied = name_buf.get(..len).unwrap_or(&[]);
                digest.number(u64::from(name == copied));
                digest.number(blob.lookup_name(copied).unwrap_or(0));
                for found in blob.lookup_name_all(copied) {
                    digest.number(found.address);
                    digest.number(u64::from(found.kind));
                }
            }
            Err(e) => {
                let mut w = FixedBuf::new(&mut line);
                let _ = write!(w, "{e}");
                digest.bytes(w.bytes());
            }
        }
    }
    let mut previous = None;
    for entry in blob.symbols_by_name() {
        if let Some(previous) = previous {
            digest.number(entry.name.cmp_name(&previous) as u64);
            digest.number(u64::from(entry.name == previous));
        }
        previous = Some(entry.name);
    }
    // A query straight from the input.
    let tail = input.get(input.len().saturating_sub(24)..).unwrap_or(&[]);
    digest.number(blob.lookup_name(tail).unwrap_or(0));
    digest.number(blob.lookup_name_all(tail).ranks().len() as u64);
    if let Some(symbol) = ksyms.lookup_address(word(input, 40)) {
        digest.number(symbol.address);
    }
    // The optional name index, built into caller memory.
    let mut index_buf = [0u64; INDEX_WORDS];
    match NameIndex::build(blob, &mut index_buf) {
        Ok(index) => {
            for entry in blob.symbols() {
                if let Ok(len) = entry.name.copy_to(&mut name_buf) {
                    let query = name_buf.get(..len).unwrap_or(&[]);
                    digest.number(index.lookup_name(query).unwrap_or(0));
                    digest.number(index.index_of(query).map_or(0, |i| i as u64));
                }
            }
            digest.number(index.lookup_name(tail).unwrap_or(0));
        }
        Err(e) => {
            let mut w = FixedBuf::new(&mut line);
            let _ = write!(w, "{e}");
            digest.bytes(w.bytes());
        }
    }
    let _ = writeln!(out, "ksym lookups: digest {:016x}", digest.value());
}

/// The drop-in `KallsymsMapped`: every method, on the input bytes.
fn check_compat(input: &[u8], out: &mut Console) {
    match KallsymsMapped::check_total_bytes(input) {
        Ok(total) => writeln!(out, "ksym compat total: {total}"),
        Err(e) => writeln!(out, "ksym compat total: {e}"),
    }
    .ok();
    let start = word(input, 16);
    let end = start.wrapping_add(word(input, 24) & 0xffff);
    let mapped = match KallsymsMapped::from_blob(input, start, end) {
        Ok(mapped) => mapped,
        Err(e) => {
            let _ = writeln!(out, "ksym compat: {e}");
            return;
        }
    };
    let mut digest = Digest::new();
    let mut line = [0u8; 160];
    let _ = mapped.dump_all_symbols(&mut FixedBuf::new(&mut line));
    let mut name_buf = [0u8; 64];
    let mut copy = [0u8; 512];
    for entry in mapped.blob().symbols() {
        for query in [entry.address, entry.address.wrapping_add(3)] {
            if let Some((name, size, offset, kind)) = mapped.lookup_address(query, &mut name_buf) {
                digest.bytes(name.as_bytes());
                digest.number(size ^ offset ^ u64::from(kind));
            }
        }
        if let Ok(len) = entry.name.copy_to(&mut copy) {
            let name = core::str::from_utf8(copy.get(..len).unwrap_or(&[])).unwrap_or("");
            digest.number(mapped.lookup_name(name).unwrap_or(0));
            if let Some((first, last)) = mapped.lookup_names(name, true) {
                digest.number(mapped.lookup_name_by_idx(first).unwrap_or(0));
                digest.number(mapped.lookup_name_by_idx(last).unwrap_or(0));
            }
        }
    }
    digest.number(
        mapped
            .lookup_name_by_idx(word(input, 32) as usize)
            .unwrap_or(0),
    );
    let _ = writeln!(out, "ksym compat: digest {:016x}", digest.value());
}
