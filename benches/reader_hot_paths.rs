//! Benchmarks: the hot paths the other benches leave out, on a large real user-space
//! binary every Rust machine has — the toolchain's own `librustc_driver-*.so` (about
//! 165,000 symbols, long mangled Rust names), or the file `SYMBLOB_BENCH_SO` names.
//!
//! * `build/ksym_from_elf` and `build/lidia_from_elf` (symbols only, Go's defaults);
//! * `ksym/lookup_address`, `ksym/lookup_name` on that blob (the kernel blob of
//!   `benches/ksym.rs` has short C names; these are 60–200-byte Rust names);
//! * `lidia/parse`, `lidia/lookup_function`, `lidia/lookup` on the symbols-only file;
//! * `crc32c/reader` — the reader's portable checksum, in bytes per second.
//!
//! Lookups cycle through 65,536 addresses sampled uniformly from the stored symbols (a
//! random symbol, then a random byte of it), so the branch predictor cannot learn a path.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use symblob::ksym::{KsymBlob, Ksyms, NameIndex, TextRanges};
use symblob::lidia::LidiaFile;
use symblob_build::ksym::{BuildOptions, InputOptions};
use symblob_build::pipeline::lidia::ElfOptions;

/// A deterministic xorshift64* generator: the same addresses on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// The input: `SYMBLOB_BENCH_SO`, else the toolchain's `librustc_driver-*.so`.
fn input() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SYMBLOB_BENCH_SO") {
        return Some(path.into());
    }
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let lib = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()).join("lib");
    std::fs::read_dir(lib)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("librustc_driver-") && n.ends_with(".so"))
        })
}

fn bench(c: &mut Criterion) {
    let Some(path) = input() else {
        eprintln!("reader_hot_paths: no librustc_driver-*.so found; set SYMBLOB_BENCH_SO");
        return;
    };
    let data = std::fs::read(&path).expect("the input ELF reads");
    let name = path.display().to_string();

    let mut build = c.benchmark_group("build");
    build.sample_size(10);
    build.bench_function("ksym_from_elf", |b| {
        b.iter(|| {
            symblob_build::pipeline::ksym::build_from_elf(
                black_box(&data),
                &name,
                &InputOptions::default(),
                &BuildOptions::default(),
            )
            .map(|e| e.blob.bytes.len())
        })
    });
    build.bench_function("lidia_from_elf", |b| {
        b.iter(|| {
            symblob_build::pipeline::lidia::collect_from_elf(
                &path,
                black_box(&data),
                &ElfOptions::default(),
            )
            .map(|w| w.finish().len())
        })
    });
    build.finish();

    let elf = symblob_build::pipeline::ksym::build_from_elf(
        &data,
        &name,
        &InputOptions::default(),
        &BuildOptions::default(),
    )
    .expect("the ksym blob builds");
    let blob = KsymBlob::parse(&elf.blob.bytes).expect("the ksym blob parses");
    let ksyms = Ksyms::new(
        blob,
        TextRanges::new(&elf.text_ranges).expect("text ranges"),
    );
    let symbols: Vec<(u64, String)> = blob
        .symbols()
        .map(|e| (e.address, e.name.to_string()))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let addrs: Vec<u64> = (0..1 << 16)
        .map(|_| {
            let i = rng.below(symbols.len() as u64 - 1) as usize;
            let (start, end) = (symbols[i].0, symbols[i + 1].0);
            start + rng.below(end - start)
        })
        .collect();
    let names: Vec<&str> = (0..1 << 16)
        .map(|_| symbols[rng.below(symbols.len() as u64) as usize].1.as_str())
        .collect();
    println!(
        "{name}: {} ksym symbols, blob {} bytes",
        symbols.len(),
        elf.blob.bytes.len()
    );

    let mut group = c.benchmark_group("ksym");
    let mut i = 0usize;
    group.bench_function(BenchmarkId::new("lookup_address", "librustc_driver"), |b| {
        b.iter(|| {
            i = (i + 1) & 0xffff;
            ksyms.lookup_address(black_box(addrs[i])).map(|s| s.offset)
        })
    });
    group.bench_function(BenchmarkId::new("lookup_name", "librustc_driver"), |b| {
        b.iter(|| {
            i = (i + 1) & 0xffff;
            blob.lookup_name(black_box(names[i].as_bytes()))
        })
    });
    let mut words = vec![0u64; NameIndex::words_needed(blob.len())];
    let index = NameIndex::build(blob, &mut words).expect("the blob indexes");
    group.bench_function(
        BenchmarkId::new("NameIndex::lookup_name", "librustc_driver"),
        |b| {
            b.iter(|| {
                i = (i + 1) & 0xffff;
                index.lookup_name(black_box(names[i].as_bytes()))
            })
        },
    );
    group.finish();

    let lidia_bytes =
        symblob_build::pipeline::lidia::collect_from_elf(&path, &data, &ElfOptions::default())
            .expect("the Lidia file builds")
            .finish();
    let lidia = LidiaFile::parse(&lidia_bytes).expect("the Lidia file parses");
    let mut group = c.benchmark_group("lidia");
    group.bench_function(BenchmarkId::new("parse", "librustc_driver"), |b| {
        b.iter(|| LidiaFile::parse(black_box(&lidia_bytes)).map(|f| f.len()))
    });
    group.bench_function(
        BenchmarkId::new("lookup_function", "librustc_driver"),
        |b| {
            b.iter(|| {
                i = (i + 1) & 0xffff;
                lidia.lookup_function(black_box(addrs[i])).map(|s| s.len())
            })
        },
    );
    group.bench_function(BenchmarkId::new("lookup", "librustc_driver"), |b| {
        b.iter(|| {
            i = (i + 1) & 0xffff;
            lidia
                .lookup(black_box(addrs[i]))
                .fold(0u64, |acc, f| acc + f.line + f.function.len() as u64)
        })
    });
    group.finish();

    let buffer: Vec<u8> = (0..1u32 << 24)
        .map(|x| (x.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut group = c.benchmark_group("crc32c");
    group.throughput(Throughput::Bytes(buffer.len() as u64));
    group.bench_function("reader", |b| {
        b.iter(|| symblob::lidia::crc32c(black_box(&buffer)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
