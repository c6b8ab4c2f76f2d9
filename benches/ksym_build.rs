//! Benchmarks: building a ksym-bin blob from the Debian 6.1 cloud kernel's System.map
//! (87,361 lines, of which 46,471 T/t symbols are kept).
//!
//! `parse` reads the text; `build` sorts, selects tokens and lays out the blob;
//! `parse+build` is what `symblob ksym build` does apart from file I/O.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use symblob_build::ksym::{build, BuildOptions, InputOptions};
use symblob_build::text::parse_nm;

fn system_map() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/ksym/linux-6.1-cloud-amd64.System.map");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bench_build(c: &mut Criterion) {
    let text = system_map();
    let options = InputOptions::default();
    let list = parse_nm(&text, "System.map", &options).expect("System.map parses");
    let mut group = c.benchmark_group("ksym_build/linux-6.1-tt");
    group.sample_size(20);
    group.bench_function("parse", |b| {
        b.iter(|| parse_nm(black_box(&text), "System.map", &options).map(|l| l.symbols.len()))
    });
    group.bench_function("build", |b| {
        b.iter(|| build(black_box(&list.symbols), &BuildOptions::default()).map(|x| x.bytes.len()))
    });
    group.bench_function("parse+build", |b| {
        b.iter(|| {
            let list = parse_nm(black_box(&text), "System.map", &options)?;
            build(&list.symbols, &BuildOptions::default()).map(|x| x.bytes.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_build);
criterion_main!(benches);
