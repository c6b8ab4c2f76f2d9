//! Benchmarks: the Lidia reader.
//!
//! * `parse` and `verify_checksums` (reported as bytes per second) of the golden
//!   `gohello` file (2,838 ranges, 141 KB) and of a large generated file;
//! * `lookup_function` (names only, innermost frame) and `lookup` (every frame with file and
//!   line) per address, cycling through 4,096 pseudo-random addresses inside the covered
//!   address span, so the branch predictor cannot learn one path.
//!
//! The large file is generated deterministically through the builder's writer: 200,000
//! top-level functions, every third with an inlined chain of depth 1 and 2, files and line
//! tables on (about 20 MB). Set `SYMBLOB_BENCH_ELF=<path>` to also measure a file built from
//! the symbols of a real ELF.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use symblob::lidia::LidiaFile;
use symblob_build::lidia::{Flags, LidiaWriter, LineEntry, RangeSpec};

/// Deterministic xorshift64 generator: the same addresses on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A large file: `functions` top-level ranges of 64–575 bytes; every third holds an inlined
/// depth-1 range which holds a depth-2 range, each with a call site and a line table.
fn generated(functions: u64) -> Vec<u8> {
    let mut writer = LidiaWriter::new(Flags {
        files: true,
        lines: true,
    });
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let names: Vec<String> = (0..functions)
        .map(|i| format!("pkg{}::func_{i}", i % 97))
        .collect();
    let files: Vec<String> = (0..512).map(|i| format!("src/module_{i}.rs")).collect();
    let lines: Vec<LineEntry> = (0..8)
        .map(|k| LineEntry {
            offset: k * 8,
            line: 10 + k * 3,
        })
        .collect();
    let mut va = 0x40_0000u64;
    for i in 0..functions {
        let length = 64 + rng.next() % 512;
        let file = files[(i % 512) as usize].as_bytes();
        writer.add(&RangeSpec {
            va,
            length,
            depth: 0,
            function: names[i as usize].as_bytes(),
            file,
            call_file: b"",
            call_line: 0,
            lines: &lines,
        });
        if i % 3 == 0 {
            for depth in 1..=2u64 {
                writer.add(&RangeSpec {
                    va: va + 8 * depth,
                    length: 32 / depth,
                    depth,
                    function: names[((i + depth * 7) % functions) as usize].as_bytes(),
                    file: files[((i + depth) % 512) as usize].as_bytes(),
                    call_file: file,
                    call_line: 100 + depth,
                    lines: &lines[..4],
                });
            }
        }
        va += length;
    }
    writer.finish()
}

/// Addresses spread over the span the file's ranges cover.
fn addresses(file: &LidiaFile) -> Vec<u64> {
    let first = file.range(0).map_or(0, |r| r.va);
    let end = file
        .ranges()
        .map(|r| r.va.wrapping_add(r.length))
        .max()
        .unwrap_or(1);
    let span = end.saturating_sub(first).max(1);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    (0..4096).map(|_| first + rng.next() % span).collect()
}

fn files() -> Vec<(String, Vec<u8>)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let gohello = std::fs::read(format!("{root}/testdata/lidia/lidia/gohello.none.lidia"))
        .expect("golden gohello.none.lidia");
    let mut out = vec![
        ("gohello".to_owned(), gohello),
        ("generated-200k".to_owned(), generated(200_000)),
    ];
    if let Ok(path) = std::env::var("SYMBLOB_BENCH_ELF") {
        let options = symblob_build::pipeline::lidia::ElfOptions::default();
        let bytes = symblob_build::pipeline::lidia::build_from_elf(path.as_ref(), &options)
            .expect("SYMBLOB_BENCH_ELF builds");
        out.push(("elf".to_owned(), bytes));
    }
    out
}

fn bench(c: &mut Criterion) {
    for (name, bytes) in files() {
        let file = LidiaFile::parse(&bytes).expect("valid file");
        let addrs = addresses(&file);
        let hits = addrs
            .iter()
            .filter(|&&a| file.lookup_function(a).is_some())
            .count();
        println!(
            "{name}: {} bytes, {} ranges, {hits}/{} sample addresses resolve",
            bytes.len(),
            file.len(),
            addrs.len()
        );

        let mut group = c.benchmark_group("lidia");
        group.bench_function(BenchmarkId::new("parse", &name), |b| {
            b.iter(|| LidiaFile::parse(black_box(&bytes)).map(|f| f.len()))
        });
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(BenchmarkId::new("verify_checksums", &name), |b| {
            b.iter(|| black_box(&file).verify_checksums())
        });
        group.bench_function(BenchmarkId::new("validate", &name), |b| {
            b.iter(|| black_box(&file).validate())
        });
        group.throughput(Throughput::Elements(1));
        group.bench_function(BenchmarkId::new("lookup_function", &name), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 4095;
                file.lookup_function(black_box(addrs[i])).map(|s| s.len())
            })
        });
        group.bench_function(BenchmarkId::new("lookup_frames", &name), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) & 4095;
                file.lookup(black_box(addrs[i])).fold(0u64, |acc, f| {
                    acc + f.line + f.function.len() as u64 + f.file.len() as u64
                })
            })
        });
        // Batched: all 4096 sample addresses per iteration, eight searches in lockstep.
        group.throughput(Throughput::Elements(addrs.len() as u64));
        group.bench_function(BenchmarkId::new("lookup_function_each", &name), |b| {
            b.iter(|| {
                let mut acc = 0usize;
                file.lookup_function_each(black_box(&addrs), |_, f| {
                    acc += f.map_or(0, |s| s.len());
                });
                acc
            })
        });
        group.bench_function(BenchmarkId::new("lookup_each", &name), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                file.lookup_each(black_box(&addrs), |_, frames| {
                    for f in frames {
                        acc += f.line + f.function.len() as u64 + f.file.len() as u64;
                    }
                });
                acc
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
