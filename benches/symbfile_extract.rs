//! Benchmarks: symbfile range records and return pads extracted from an executable.
//!
//! Input: `SYMBLOB_BENCH_ELF`, any ELF with DWARF (default: this benchmark binary itself),
//! e.g. ripgrep installed with `CARGO_PROFILE_RELEASE_DEBUG=2 cargo install ripgrep`.
//!
//! Groups: `symbfile_ranges/<input>` (DWARF, Go pclntab and ELF symbols merged, spec §5)
//! and `symbfile_return_pads/<input>` (disassembly of every function, spec §6).
//!
//! Peak memory is not measurable inside criterion; BENCHMARKS.md gives `/usr/bin/time -v`
//! figures of a process that runs `symblob_build::extract::ranges` once.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use symblob_build::extract::{ranges, ExtractOptions};
use symblob_build::retpads::return_pads;

fn input() -> Option<(String, PathBuf)> {
    let p = std::env::var_os("SYMBLOB_BENCH_ELF")
        .map(PathBuf::from)
        .or_else(|| std::env::current_exe().ok())
        .filter(|p| p.is_file())?;
    let name = p
        .file_name()
        .map_or("elf".into(), |n| n.to_string_lossy().into_owned());
    Some((name, p))
}

fn extract(c: &mut Criterion) {
    let Some((name, path)) = input() else {
        eprintln!("skipping: no input ELF");
        return;
    };
    let options = ExtractOptions::default();
    let mut group = c.benchmark_group("symbfile_ranges");
    group.sample_size(10);
    group.bench_function(&name, |b| {
        b.iter(|| black_box(ranges(&path, &options).expect("ranges").records.len()))
    });
    group.finish();
    let records = ranges(&path, &options).expect("ranges").records;
    let mut group = c.benchmark_group("symbfile_return_pads");
    group.sample_size(10);
    group.bench_function(&name, |b| {
        b.iter(|| black_box(return_pads(&path, &records).expect("return pads").len()))
    });
    group.finish();
}

criterion_group!(benches, extract);
criterion_main!(benches);
