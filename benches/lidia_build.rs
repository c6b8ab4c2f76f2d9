//! Benchmarks: Lidia files built from DWARF, and lookups with full inline frames.
//!
//! Inputs (each group is skipped when its input is absent):
//! * `SYMBLOB_BENCH_VMLINUX`: a kernel image with DWARF, e.g. `vmlinux-6.1.0-*-cloud-amd64`
//!   from Debian's `linux-image-6.1.0-*-cloud-amd64-dbg` (`apt-get download` it, then
//!   `dpkg-deb -x` it into a scratch directory);
//! * `SYMBLOB_BENCH_ELF`: any ELF with DWARF (default: this benchmark binary itself), e.g.
//!   the `symblob` binary built with `CARGO_PROFILE_RELEASE_DEBUG=2 cargo build --release`.
//!
//! Groups: `dwarf_build/<input>` (DWARF → Lidia with files and lines, in memory) and
//! `lookup/<input>` (10,000 addresses spread over every function: our reader with files
//! and lines against the `addr2line` crate with functions and locations, on the same
//! binary and addresses).
//!
//! Wall time and peak memory side by side with `llvm-gsymutil-14` (not measurable inside
//! criterion; run these with the same input, one after the other, page cache warm):
//!
//! ```text
//! /usr/bin/time -v symblob lidia build --dwarf --files --lines "$ELF" -o out.lidia
//! /usr/bin/time -v llvm-gsymutil-14 --convert "$ELF" --out-file out.gsym
//! ls -l out.lidia out.gsym
//! ```
//! and compare "Elapsed (wall clock) time" and "Maximum resident set size".

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use symblob::lidia::LidiaFile;
use symblob_build::dwarf::DwarfOptions;
use symblob_build::lidia::LidiaWriter;
use symblob_build::pipeline::lidia::collect_dwarf;
use symblob_build::pipeline::lidia::ElfOptions;

#[path = "support/elf_inputs.rs"]
mod elf_inputs;
use elf_inputs::elf_inputs;

fn build(path: &Path, data: &[u8]) -> Vec<u8> {
    let options = ElfOptions::dwarf_with_files_and_lines(DwarfOptions::default());
    let mut writer = LidiaWriter::new(options.lidia);
    collect_dwarf(path, data, &options, &mut writer).expect("DWARF build");
    writer.finish()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read input")
}

fn dwarf_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("dwarf_build");
    group.sample_size(10);
    for (name, path) in elf_inputs() {
        let data = read(&path);
        group.bench_function(name, |b| b.iter(|| black_box(build(&path, &data).len())));
    }
    group.finish();
}

/// 10,000 addresses spread over the depth-0 ranges of `file`.
fn addresses(file: &LidiaFile<'_>) -> Vec<u64> {
    let funcs: Vec<(u64, u64)> = file
        .ranges()
        .filter(|r| r.depth == 0 && r.length > 0)
        .map(|r| (r.va, r.length))
        .collect();
    let total: u64 = funcs.iter().map(|f| f.1).sum();
    let step = (total / 10_000).max(1);
    let mut out = Vec::new();
    let mut carry = 0u64;
    for (va, len) in funcs {
        let mut off = carry;
        while off < len {
            out.push(va + off);
            off += step;
        }
        carry = off - len;
    }
    out
}

fn lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("lookup");
    for (name, path) in elf_inputs() {
        let data = read(&path);
        let blob = build(&path, &data);
        let file = LidiaFile::parse(&blob).expect("parse");
        let addrs = addresses(&file);
        group.throughput(criterion::Throughput::Elements(addrs.len() as u64));
        group.bench_function(format!("{name}/lidia"), |b| {
            b.iter(|| {
                let mut n = 0u64;
                for &a in &addrs {
                    for f in file.lookup(a) {
                        n = n.wrapping_add(f.line).wrapping_add(f.file.0.len() as u64);
                    }
                }
                black_box(n)
            })
        });
        let loader = match addr2line::Loader::new(&path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("skipping addr2line on {name}: {e}");
                continue;
            }
        };
        group.bench_function(format!("{name}/addr2line"), |b| {
            b.iter(|| {
                let mut n = 0u64;
                for &a in &addrs {
                    if let Ok(mut frames) = loader.find_frames(a) {
                        while let Ok(Some(f)) = frames.next() {
                            let name_len = f
                                .function
                                .as_ref()
                                .map_or(0, |x| x.raw_name().map_or(0, |s| s.len()));
                            let line = f.location.as_ref().and_then(|l| l.line).unwrap_or(0);
                            n = n
                                .wrapping_add(u64::from(line))
                                .wrapping_add(name_len as u64);
                        }
                    }
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, dwarf_build, lookup);
criterion_main!(benches);
