//! Benchmarks: symbfile reader sweep throughput (bytes per second) over a generated range
//! file shaped like a real program's (200,000 functions' worth of ranges with inline
//! children, line tables, names from a pool so string tables are used) plus one return pad
//! per function, and the writer on the same records.
//!
//! * `sweep_records`: every record decoded (strings resolved, line tables and pad entries
//!   iterated): what a converter or a `dump` pays.
//! * `validate`: the same with nothing kept.
//! * `lookup_ranges` / `lookup_return_pad`: one sweep lookup of an address near the end.
//! * `write`: the deterministic writer.
//! * `index_build`: `SymbfileIndex::new`, the one pass `symblob lookup` makes on open.
//! * `index_lookup_each`: lookups through the index of 65,536 random addresses inside
//!   range records (and return pads where no range covers), per address.
//! * `index_lookup_uniform`: lookups of 65,536 addresses uniform over the depth-0 ranges'
//!   bytes.
//! * `index_lookup_batched`, `index_lookup_uniform_batched`: the same addresses through
//!   `lookup_ranges_each`.
//! * `index_lookup_cached`: the same over 256 of those addresses, repeated: lookups whose
//!   data stays in the caches (what the decoding costs alone).
//!
//! With `SYMBLOB_BENCH_SYMBFILE=FILE` the sweeps and the index benches also run over that
//! file (group `symbfile_file`), e.g. the range file of a large program.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use symblob::symbfile::{Range, Record as View, SymbFile};
use symblob_build::symbfile::index::SymbfileIndex;
use symblob_build::symbfile::writer::encode;
use symblob_build::symbfile::{LineRow, PadEntry, RangeRecord, Record, ReturnPadRecord};

#[path = "../tests/support/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

const FUNCTIONS: u64 = 200_000;

fn records() -> Vec<Record> {
    let mut rng = Rng::new(16);
    let names: Vec<String> = (0..40_000)
        .map(|i| format!("core::module_{}::Type{}::method_name_{i}", i % 97, i % 13))
        .collect();
    let files: Vec<String> = (0..2_000)
        .map(|i| format!("/src/crate_{}/src/file_{i}.rs", i % 50))
        .collect();
    let mut out = Vec::new();
    let mut va = 0x40_0000u64;
    for _ in 0..FUNCTIONS {
        let len = 32 + rng.below(400);
        let file = &files[rng.below(files.len() as u64) as usize];
        let rows = |rng: &mut Rng, len: u64| -> Vec<LineRow> {
            let n = 1 + rng.below(12);
            let mut offset = 0;
            (0..n)
                .map(|_| {
                    let row = LineRow {
                        offset,
                        line: 1 + rng.below(3000) as u32,
                    };
                    offset += 1 + rng.below(len / n + 1) as u32;
                    row
                })
                .collect()
        };
        let func = names[rng.below(names.len() as u64) as usize].clone();
        out.push(Record::Range(RangeRecord {
            va,
            length: len,
            func: func.clone(),
            file: Some(file.clone()),
            lines: rows(&mut rng, len),
            ..RangeRecord::default()
        }));
        for depth in 1..=rng.below(4) as u32 {
            let start = va + rng.below(len / 2);
            out.push(Record::Range(RangeRecord {
                va: start,
                length: 1 + rng.below(len / 2),
                func: names[rng.below(names.len() as u64) as usize].clone(),
                file: Some(files[rng.below(files.len() as u64) as usize].clone()),
                call_file: Some(file.clone()),
                call_line: Some(1 + rng.below(3000) as u32),
                depth,
                lines: rows(&mut rng, 16),
            }));
        }
        out.push(Record::ReturnPad(ReturnPadRecord {
            va: va + len / 2,
            entries: vec![PadEntry {
                func,
                file: Some(file.clone()),
                line: Some(7),
            }],
        }));
        va += len + rng.below(16);
    }
    out
}

fn bench(c: &mut Criterion) {
    let records = records();
    let bytes = encode(&records).unwrap();
    let mut g = c.benchmark_group("symbfile");
    g.sample_size(20);
    sweeps(&mut g, &bytes);
    g.bench_function("write", |b| {
        b.iter(|| black_box(encode(&records).unwrap().len()))
    });
    g.finish();
    // A real range file (e.g. `symblob symbfile build` of a large program) when named.
    if let Some(path) = std::env::var_os("SYMBLOB_BENCH_SYMBFILE") {
        let bytes = std::fs::read(&path).unwrap();
        let mut g = c.benchmark_group("symbfile_file");
        g.sample_size(20);
        sweeps(&mut g, &bytes);
        g.finish();
    }
}

/// The sweep benches over one file; the lookup is of the last depth-0 range's start + 1.
fn sweeps(g: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    let file = SymbFile::parse(bytes).unwrap();
    let mut scratch = vec![""; 1 << 20];
    let mut last = None;
    let mut it = file.records(&mut scratch);
    while let Some(r) = it.next().unwrap() {
        if let View::Range(r) = r {
            if r.depth == 0 {
                last = Some(r.va + 1);
            }
        }
    }
    let last = last.unwrap();
    let counts = file.validate(&mut scratch).unwrap();
    eprintln!(
        "symbfile bench file: {} ranges, {} return pads, {} bytes, {} string tables",
        counts.ranges,
        counts.return_pads,
        bytes.len(),
        counts.string_tables
    );
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("sweep_records", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            let mut it = file.records(&mut scratch);
            while let Some(r) = it.next().unwrap() {
                match r {
                    View::Range(r) => {
                        sum = sum.wrapping_add(r.va ^ r.func.len() as u64);
                        for row in r.line_table.iter() {
                            sum = sum.wrapping_add(u64::from(row.line));
                        }
                    }
                    View::ReturnPad(p) => {
                        for e in p.entries() {
                            sum = sum.wrapping_add(e.func.len() as u64);
                        }
                    }
                }
            }
            black_box(sum)
        })
    });
    g.bench_function("validate", |b| {
        b.iter(|| black_box(file.validate(&mut scratch).unwrap()))
    });
    g.bench_function("lookup_ranges", |b| {
        let mut out = [Range::EMPTY; 16];
        b.iter(|| {
            black_box(
                file.lookup_ranges(black_box(last), &mut scratch, &mut out)
                    .unwrap(),
            )
        })
    });
    g.bench_function("lookup_return_pad", |b| {
        b.iter(|| {
            black_box(
                file.lookup_return_pad(black_box(1), &mut scratch)
                    .unwrap()
                    .is_none(),
            )
        })
    });
    index(g, &file);
}

/// The index: its build, and lookups of random addresses inside range records.
fn index(g: &mut BenchmarkGroup<'_, WallTime>, file: &SymbFile<'_>) {
    let index = SymbfileIndex::new(*file).unwrap();
    eprintln!(
        "symbfile index: {} ranges, {} return pads, {} bytes",
        index.ranges(),
        index.return_pads(),
        index.heap_bytes()
    );
    g.bench_function("index_build", |b| {
        b.iter(|| black_box(SymbfileIndex::new(*file).unwrap().ranges()))
    });
    let (mut spans, mut functions) = (Vec::new(), Vec::new());
    let mut scratch = vec![""; 1 << 20];
    let mut it = file.records(&mut scratch);
    while let Some(r) = it.next().unwrap() {
        if let View::Range(r) = r {
            spans.push((r.va, r.length.max(1)));
            if r.depth == 0 {
                functions.push((r.va, r.length.max(1)));
            }
        }
    }
    let mut rng = Rng::new(7);
    let addrs: Vec<u64> = (0..65_536)
        .map(|_| {
            let (va, length) = spans[rng.below(spans.len() as u64) as usize];
            va.wrapping_add(rng.below(length))
        })
        .collect();
    g.throughput(Throughput::Elements(addrs.len() as u64));
    // The same lookups over 256 of the addresses, whose records and strings stay in the
    // caches: what decoding costs without waiting for memory.
    let cached: Vec<u64> = addrs
        .iter()
        .take(256)
        .copied()
        .cycle()
        .take(addrs.len())
        .collect();
    g.bench_function("index_lookup_cached", |b| {
        let mut out = [Range::EMPTY; 256];
        b.iter(|| {
            let mut sum = 0u64;
            for &addr in &cached {
                let n = index.lookup_ranges(addr, &mut out).unwrap();
                sum += n as u64;
            }
            black_box(sum)
        })
    });
    // Addresses uniform over the functions' bytes (as samples of code that runs evenly
    // would be): fewer inline frames per address than a random record's.
    let ends: Vec<u64> = functions
        .iter()
        .scan(0u64, |total, &(_, length)| {
            *total += length;
            Some(*total)
        })
        .collect();
    let total = ends.last().copied().unwrap_or(1);
    let uniform: Vec<u64> = (0..addrs.len())
        .map(|_| {
            let at = rng.below(total);
            let i = ends.partition_point(|&end| end <= at);
            let (va, length) = functions[i];
            va + (at - (ends[i] - length))
        })
        .collect();
    g.bench_function("index_lookup_uniform", |b| {
        let mut out = [Range::EMPTY; 256];
        b.iter(|| {
            let mut sum = 0u64;
            for &addr in &uniform {
                sum += index.lookup_ranges(addr, &mut out).unwrap() as u64;
            }
            black_box(sum)
        })
    });
    for (name, addrs) in [
        ("index_lookup_uniform_batched", &uniform),
        ("index_lookup_batched", &addrs),
    ] {
        g.bench_function(name, |b| {
            let mut out = [Range::EMPTY; 256];
            b.iter(|| {
                let mut sum = 0u64;
                index
                    .lookup_ranges_each(addrs, &mut out, |_, found, _| {
                        sum += found as u64;
                        Ok(())
                    })
                    .unwrap();
                black_box(sum)
            })
        });
    }
    g.bench_function("index_lookup_each", |b| {
        let mut out = [Range::EMPTY; 256];
        b.iter(|| {
            let mut sum = 0u64;
            for &addr in &addrs {
                let n = index.lookup_ranges(addr, &mut out).unwrap();
                if n == 0 {
                    sum += u64::from(index.lookup_return_pad(addr).unwrap().is_some());
                } else {
                    let inner = &out[n.min(out.len()) - 1];
                    sum += u64::from(inner.line_at(addr).unwrap_or(0)) + inner.func.len() as u64;
                }
            }
            black_box(sum)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
