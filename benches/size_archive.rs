//! Benchmarks: SuperSize archives of large ELF files (symbols, aliases, DWARF compile
//! unit paths, JSON, gzip), and loading them back.
//!
//! Inputs (each is skipped when absent):
//! * `SYMBLOB_BENCH_VMLINUX`: a kernel image with DWARF;
//! * `SYMBLOB_BENCH_ELF`: any ELF with DWARF (default: this benchmark binary itself), e.g.
//!   the `symblob` binary built with `cargo build --release`;
//! * `SYMBLOB_BENCH_SQLITE`: a directory holding SQLite's amalgamation (`sqlite3.c`,
//!   `sqlite3.h`, `shell.c`); the `sqlite3` shell is built from it with `gcc -g -O2`, the
//!   input Chromium's SuperSize was timed on. The amalgamation ships in SQLite's
//!   `sqlite-amalgamation-*.zip` and in sdists that bundle SQLite.
//!
//! Groups: `size_archive/<input>` (ELF → `SizeInfo`, in memory), `size_write/<input>`
//! (text + gzip), `size_load/<input>` (gunzip + parse with SuperSize's checks).
//! Wall time of the whole command, against Chromium's `supersize archive OUT.size
//! --elf-file ELF --no-map-file`: `time symblob size archive ELF -o out.size`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use symblob_build::pipeline::size::{archive_elf, ElfArchiveInput};
use symblob_build::size::{loader, writer, ArchiveOptions};

#[path = "support/elf_inputs.rs"]
mod elf_inputs;
use elf_inputs::elf_inputs;

/// The `sqlite3` shell built from the amalgamation in `dir`, in `build_dir`.
fn sqlite_shell(dir: &std::path::Path, build_dir: &std::path::Path) -> Option<PathBuf> {
    let shell = build_dir.join("sqlite3");
    let status = std::process::Command::new("gcc")
        .args(["-g", "-O2", "shell.c", "sqlite3.c", "-lm", "-o"])
        .arg(&shell)
        .current_dir(dir)
        .status();
    match status {
        Ok(s) if s.success() => Some(shell),
        other => {
            eprintln!("skipping sqlite3: gcc in {} gave {other:?}", dir.display());
            None
        }
    }
}

fn inputs(build_dir: &std::path::Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os("SYMBLOB_BENCH_SQLITE").map(PathBuf::from) {
        if let Some(shell) = sqlite_shell(&dir, build_dir) {
            out.push(("sqlite3".to_string(), shell));
        }
    }
    out.extend(elf_inputs());
    out
}

fn bench(c: &mut Criterion) {
    let build_dir = tempfile::tempdir().expect("temporary directory");
    for (name, path) in inputs(build_dir.path()) {
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
