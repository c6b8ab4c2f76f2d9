//! Benchmarks: the ksym-bin reader on the Debian 6.1 cloud kernel's T/t symbols (46,471
//! symbols, origin-generated), with the text ranges `[_stext, _etext)` and
//! `[_sinittext, _einittext)`.
//!
//! Reference figures of the origin reader on the same blob: `lookup_address` 243 ns,
//! `lookup_name` 1.7 µs.
//!
//! The `ksym2/` benchmarks run the same queries on the ksym-bin v2 blob of the same
//! symbols (built here by the builder), so that the two versions compare in one run.

use std::hint::black_box;
use std::ops::Range;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use symblob::ksym::{v2, KallsymsMapped, KsymBlob, Ksyms, NameIndex, TextRanges};
use symblob_build::ksym::{build, BuildOptions, FormatVersion, Symbol};

const TEXT: Range<u64> = 0xffffffff81000000..0xffffffff81e01ef2;
const INIT_TEXT: Range<u64> = 0xffffffff8304e000..0xffffffff830b1850;

fn blob_bytes() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/ksym/origin/linux-6.1-cloud-amd64-tt.bin");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A small deterministic generator (xorshift64*), so every run probes the same addresses.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random addresses inside the two ranges, weighted by their sizes.
fn random_addresses(count: usize) -> Vec<u64> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let text = TEXT.end - TEXT.start;
    let init = INIT_TEXT.end - INIT_TEXT.start;
    (0..count)
        .map(|_| {
            let x = rng.below(text + init);
            if x < text {
                TEXT.start + x
            } else {
                INIT_TEXT.start + (x - text)
            }
        })
        .collect()
}

/// Moves `j` on to the next of `names`, back to the first after the last, and returns it.
fn next_name<'a>(names: &'a [String], j: &mut usize) -> &'a str {
    *j += 1;
    if *j == names.len() {
        *j = 0;
    }
    &names[*j]
}

fn bench(c: &mut Criterion) {
    let bytes = blob_bytes();
    let blob = KsymBlob::parse(&bytes).expect("the benchmark blob parses");
    let ranges = [TEXT, INIT_TEXT];
    let ksyms = Ksyms::new(blob, TextRanges::new(&ranges).unwrap());

    c.bench_function("ksym/parse", |b| {
        b.iter(|| KsymBlob::parse(black_box(&bytes)).map(|k| k.len()))
    });
    c.bench_function("ksym/parse_trusted", |b| {
        b.iter(|| KsymBlob::parse_trusted(black_box(&bytes)).map(|k| k.len()))
    });
    c.bench_function("ksym/validate", |b| b.iter(|| black_box(blob).validate()));

    let addresses = random_addresses(1 << 16);
    let mask = addresses.len() - 1;
    let mut i = 0usize;
    c.bench_function("ksym/lookup_address (random, in ranges)", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            ksyms
                .lookup_address(black_box(addresses[i]))
                .map(|s| s.offset)
        })
    });

    let mut group = c.benchmark_group("ksym");
    group.throughput(criterion::Throughput::Elements(addresses.len() as u64));
    group.bench_function("lookup_address_each (random, in ranges)", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            ksyms.lookup_address_each(black_box(&addresses), |_, s| {
                acc += s.map_or(0, |s| s.offset);
            });
            acc
        })
    });
    group.finish();

    // Every distinct name, in address order of first occurrence.
    let mut names: Vec<String> = blob.symbols().map(|e| e.name.to_string()).collect();
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    let mut j = 0usize;
    c.bench_function("ksym/lookup_name (every distinct name)", |b| {
        b.iter(|| blob.lookup_name(black_box(next_name(&names, &mut j).as_bytes())))
    });

    // The same queries through the compatibility type (the `ksym` crate's API).
    let mapped = KallsymsMapped::from_parsed(blob, TEXT.start, TEXT.end);
    c.bench_function(
        "ksym/KallsymsMapped::lookup_name (every distinct name)",
        |b| b.iter(|| mapped.lookup_name(black_box(next_name(&names, &mut j)))),
    );

    // The same queries through the optional hash index (16 bytes per symbol).
    let mut words = vec![0u64; NameIndex::words_needed(blob.len())];
    c.bench_function("ksym/NameIndex::build", |b| {
        b.iter(|| {
            NameIndex::build(blob, black_box(&mut words[..]))
                .map(|i| i.blob().len())
                .ok()
        })
    });
    let index = NameIndex::build(blob, &mut words).expect("the kernel blob indexes");
    c.bench_function("ksym/NameIndex::lookup_name (every distinct name)", |b| {
        b.iter(|| index.lookup_name(black_box(next_name(&names, &mut j).as_bytes())))
    });
}

/// The same queries on the v2 blob of the same symbols.
fn bench_v2(c: &mut Criterion) {
    let v1_bytes = blob_bytes();
    let v1 = KsymBlob::parse(&v1_bytes).expect("the benchmark blob parses");
    let symbols: Vec<Symbol> = v1
        .symbols()
        .map(|e| Symbol {
            address: e.address,
            kind: e.kind,
            name: e.name.to_string(),
        })
        .collect();
    let options = BuildOptions {
        format_version: FormatVersion::V2,
        ..BuildOptions::default()
    };
    let bytes = build(&symbols, &options).expect("v2 build").bytes;
    let blob = v2::Blob::parse(&bytes).expect("the v2 blob parses");
    let ranges = [TEXT, INIT_TEXT];
    let ksyms = v2::Ksyms::new(blob, TextRanges::new(&ranges).unwrap());

    c.bench_function("ksym2/open", |b| {
        b.iter(|| v2::Blob::open(black_box(&bytes)).map(|k| k.len()))
    });
    c.bench_function("ksym2/validate", |b| b.iter(|| black_box(blob).validate()));

    let addresses = random_addresses(1 << 16);
    let mask = addresses.len() - 1;
    let mut i = 0usize;
    c.bench_function("ksym2/lookup_address (random, in ranges)", |b| {
        b.iter(|| {
            i = (i + 1) & mask;
            ksyms
                .lookup_address(black_box(addresses[i]))
                .map(|s| s.offset)
        })
    });
    let mut line = String::with_capacity(256);
    c.bench_function("ksym2/lookup_address + name+off/size", |b| {
        use std::fmt::Write as _;
        b.iter(|| {
            i = (i + 1) & mask;
            line.clear();
            if let Some(s) = ksyms.lookup_address(black_box(addresses[i])) {
                let _ = write!(line, "{s}");
            }
            line.len()
        })
    });
    let mut group = c.benchmark_group("ksym2");
    group.throughput(criterion::Throughput::Elements(addresses.len() as u64));
    group.bench_function("lookup_address_each (random, in ranges)", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            ksyms.lookup_address_each(black_box(&addresses), |_, s| {
                acc += s.map_or(0, |s| s.offset);
            });
            acc
        })
    });
    group.finish();

    let mut names: Vec<String> = symbols.iter().map(|s| s.name.clone()).collect();
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    let mut j = 0usize;
    c.bench_function("ksym2/lookup_name (every distinct name)", |b| {
        b.iter(|| blob.lookup_name(black_box(next_name(&names, &mut j).as_bytes())))
    });
}

criterion_group!(benches, bench, bench_v2);
criterion_main!(benches);
