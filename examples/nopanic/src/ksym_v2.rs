//! Every ksym-bin v2 entry point, on the input bytes.

use core::fmt::Write;
use core::hint::black_box;

use symblob::ksym::v2::{Blob, Ksyms};
use symblob::ksym::{TextRanges, Version};

use crate::digest::Digest;
use crate::fixed_buf::FixedBuf;
use crate::parsed;
use crate::rt::Console;

/// A number taken from the input, so that queries are as opaque as the blob.
fn word(input: &[u8], at: usize) -> u64 {
    input
        .get(at..)
        .and_then(|rest| rest.first_chunk::<8>())
        .map_or(0, |bytes| u64::from_le_bytes(*bytes))
}

pub fn check(input: &[u8], out: &mut Console) {
    let _ = writeln!(out, "ksym version: {:?}", Version::detect(input));
    // The O(1) open alone: every accessor must stay in bounds on unvalidated tables.
    if let Ok(trusted) = Blob::open(input) {
        let _ = writeln!(out, "ksym v2 open: {} symbols", trusted.len());
        exercise(trusted, input, out);
    }
    let Some(blob) = parsed(Blob::parse(input), "ksym v2", out) else {
        return;
    };
    let _ = writeln!(
        out,
        "ksym v2: {} symbols, {} multi-byte codes, used size {}",
        blob.len(),
        blob.multi_byte_codes(),
        blob.used_size()
    );
    let _ = writeln!(out, "ksym v2 dump:");
    let _ = blob.dump(out);
    let _ = writeln!(out, "ksym v2 dump end");
}

fn exercise(blob: Blob<'_>, input: &[u8], out: &mut Console) {
    let mut digest = Digest::new();
    let _ = blob.validate();
    let first = blob.address(0).unwrap_or(0);
    let last = blob
        .address(blob.len().saturating_sub(1))
        .map_or(0, |a| a.wrapping_add(16));
    let Ok(ranges) = TextRanges::single(first, last.max(first.wrapping_add(1))) else {
        return;
    };
    let bias = word(input, input.len().saturating_sub(8)) & 0xfff;
    let ksyms = Ksyms::new(blob, ranges).with_bias(black_box(bias));
    let _ = (ksyms.bias(), ksyms.ranges().len(), ksyms.blob().base());

    let mut queries = [0u64; 11];
    for (k, query) in queries.iter_mut().enumerate() {
        *query = word(input, k.wrapping_mul(8)) ^ first;
    }
    ksyms.lookup_address_each(&queries, |i, symbol| {
        digest.number(i as u64 ^ symbol.map_or(0, |s| s.offset));
    });

    let mut line = [0u8; 160];
    let mut name_buf = [0u8; 512];
    // Bounded: a blob that claims many symbols is still walked in full, but each step is
    // bounded; a fuzzer's inputs are small.
    for entry in blob.symbols().take(4096) {
        digest.number(entry.address);
        for query in [entry.address, entry.address.wrapping_add(bias ^ 7)] {
            if let Some(symbol) = ksyms.lookup_address(query) {
                let mut w = FixedBuf::new(&mut line);
                let _ = write!(w, "{symbol}");
                digest.bytes(w.bytes());
            }
            if let Some(symbol) = ksyms.lookup_return_address(query) {
                digest.number(symbol.offset ^ symbol.size ^ symbol.index as u64);
            }
        }
        let name = entry.name;
        digest.number(name.len() as u64);
        digest.number(u64::from(name.is_empty()));
        digest.number(name.rank().map_or(0, |r| r as u64));
        digest.number(name.bytes().fold(0u64, |a, b| a.wrapping_add(u64::from(b))));
        digest.number(name.cmp_bytes(input.get(..4).unwrap_or(&[])) as u64);
        digest.number(u64::from(name.starts_with(b"__")));
        match name.copy_to(&mut name_buf) {
            Ok(len) => {
                let copied = name_buf.get(..len).unwrap_or(&[]);
                digest.number(u64::from(name == copied));
                digest.number(blob.lookup_name(copied).unwrap_or(0));
                for found in blob.lookup_name_all(copied).take(64) {
                    digest.number(found.address ^ u64::from(found.kind));
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
    for entry in blob.symbols_by_name().take(4096) {
        if let Some(previous) = previous {
            digest.number(u64::from(entry.name == previous));
        }
        previous = Some(entry.name);
        digest.number(blob.rank_of(entry.index).map_or(0, |r| r as u64));
    }
    let tail = input.get(input.len().saturating_sub(24)..).unwrap_or(&[]);
    digest.number(blob.lookup_name(tail).unwrap_or(0));
    digest.number(blob.lookup_name_all(tail).len() as u64);
    digest.number(symblob::ksym::v2::name_hash(tail));
    let _ = writeln!(out, "ksym v2 lookups: digest {:016x}", digest.value());
}
