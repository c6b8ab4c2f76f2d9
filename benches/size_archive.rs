//! Benchmarks: SuperSize archives of large ELF files (symbols, aliases, DWARF compile
//! unit paths, JSON, gzip), and loading them back.
//!
//! Inputs (each is skipped when absent):
//! * `SYMBLOB_BENCH_VMLINUX`: a kernel image with DWARF;
//! * `SYMBLOB_BENCH_ELF`: any ELF with DWARF (default: this benchmark binary itself), e.g.
//!   the `symblob` binary built with `cargo build --release`.
//!
//! Groups: `size_archive/<input>` (ELF → `SizeInfo`, in memory), `size_write/<input>`
//! (text + gzip), `size_load/<input>` (gunzip + parse with SuperSize's checks).
//! Wall time of the whole command, against Chromium's `supersize archive OUT.size
//! --elf-file ELF --no-map-file`: `time symblob size archive ELF -o out.size`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use symblob_build::size::{archive_elf, loader, writer, ArchiveOptions, ElfArchiveInput};

fn inputs() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("SYMBLOB_BENCH_VMLINUX").map(PathBuf::from) {
        if p.is_file() {
            out.push(("vmlinux".to_string(), p));
        } else {
            eprintln!("skipping vmlinux: {} does not exist", p.display());
        }
    }
    let elf = std::env::var_os("SYMBLOB_BENCH_ELF")
        .map(PathBuf::from)
        .or_else(|| std::env::current_exe().ok());
    if let Some(p) = elf.filter(|p| p.is_file()) {
        let name = p
            .file_name()
            .map_or("elf".into(), |n| n.to_string_lossy().into_owned());
        out.push((name, p));
    }
    out
}

fn bench(c: &mut Criterion) {
    for (name, path) in inputs() {
        let data = std::fs::read(&path).expect("read input");
        let input = ElfArchiveInput {
            data: &data,
            file_name: name.clone(),
            mtime: Some(0),
            stripped: None,
        };
        let options = ArchiveOptions::default();
        let mut group = c.benchmark_group("size");
        group.sample_size(10);
        group.bench_function(format!("archive/{name}"), |b| {
            b.iter(|| archive_elf(black_box(&input), &options).expect("archive"))
        });
        let info = archive_elf(&input, &options).expect("archive");
        group.bench_function(format!("write/{name}"), |b| {
            b.iter(|| writer::size_file(black_box(&info)))
        });
        let file = writer::size_file(&info);
        group.bench_function(format!("load/{name}"), |b| {
            b.iter(|| loader::load(black_box(&file), "bench").expect("load"))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
