//! symblob's readers on the workload: Lidia (every frame with file and line, or the
//! innermost function name only) and ksym-bin (name, offset and size; name → address).

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use symblob::ksym::{KsymBlob, Ksyms, NameIndex, Symbol, TextRanges};
use symblob::lidia::{Frames, LidiaFile, Str};

use crate::measure::{throughput, Measurement};
use crate::sample::text_ranges;

/// Maps a file read-only.
pub fn map(path: &Path) -> Result<memmap2::Mmap, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // SAFETY: the file is only read, and nothing in this process writes to it.
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("{}: {e}", path.display()))
}

/// Lidia, every frame: function, file and line of the innermost frame and of each caller
/// it was inlined into. With `batched`, through `LidiaFile::lookup_each` (the searches of
/// eight addresses overlapped) over all addresses of a pass.
pub fn lidia_frames(
    lidia: &Path,
    addrs: &[u64],
    secs: f64,
    batched: bool,
) -> Result<Measurement, String> {
    let bytes = map(lidia)?;
    let t = Instant::now();
    let file = LidiaFile::parse(&bytes).map_err(|e| format!("{}: {e}", lidia.display()))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut frames, mut acc) = (0u64, 0u64, 0u64);
        let mut consume = |lookup: Frames<'_>| {
            let mut any = false;
            for f in lookup {
                any = true;
                frames += 1;
                acc = acc.wrapping_add(f.line + f.function.len() as u64 + f.file.len() as u64);
            }
            found += u64::from(any);
        };
        if batched {
            file.lookup_each(addrs, |_, lookup| consume(lookup));
        } else {
            for &a in addrs {
                consume(file.lookup(a));
            }
        }
        black_box(acc);
        (found, frames)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// Lidia, the innermost function name only. With `batched`, through
/// `LidiaFile::lookup_function_each`.
pub fn lidia_names(
    lidia: &Path,
    addrs: &[u64],
    secs: f64,
    batched: bool,
) -> Result<Measurement, String> {
    let bytes = map(lidia)?;
    let t = Instant::now();
    let file = LidiaFile::parse(&bytes).map_err(|e| format!("{}: {e}", lidia.display()))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut acc) = (0u64, 0u64);
        let mut consume = |name: Option<Str<'_>>| {
            if let Some(name) = name {
                found += 1;
                acc = acc.wrapping_add(name.len() as u64);
            }
        };
        if batched {
            file.lookup_function_each(addrs, |_, name| consume(name));
        } else {
            for &a in addrs {
                consume(file.lookup_function(a));
            }
        }
        black_box(acc);
        (found, found)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// ksym-bin, address → `name+off/size`, bounded by the ELF's executable sections. With
/// `batched`, through `Ksyms::lookup_address_each`.
pub fn ksym_addresses(
    ksym: &Path,
    elf: &Path,
    addrs: &[u64],
    secs: f64,
    batched: bool,
) -> Result<Measurement, String> {
    let bytes = map(ksym)?;
    let ranges = text_ranges(elf)?;
    let t = Instant::now();
    // The O(1) open a kernel uses for the table its own build embedded; `parse` adds the
    // O(N) entry checks (BENCHMARKS.md quotes both).
    let blob = KsymBlob::parse_trusted(&bytes).map_err(|e| format!("{}: {e}", ksym.display()))?;
    let open = t.elapsed();
    let text = TextRanges::new(&ranges).map_err(|e| format!("text ranges: {e}"))?;
    let ksyms = Ksyms::new(blob, text);
    let (per_second, (resolved, frames)) = throughput(addrs.len(), secs, || {
        let (mut found, mut acc) = (0u64, 0u64);
        let mut consume = |sym: Option<Symbol<'_>>| {
            if let Some(sym) = sym {
                found += 1;
                acc = acc.wrapping_add(sym.offset);
            }
        };
        if batched {
            ksyms.lookup_address_each(addrs, |_, sym| consume(sym));
        } else {
            for &a in addrs {
                consume(ksyms.lookup_address(a));
            }
        }
        black_box(acc);
        (found, found)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// ksym-bin, name → lowest address. With `indexed`, through the optional [`NameIndex`]
/// (16 bytes per symbol of our memory, built at open: its build time counts in `open`, its
/// memory in the peak RSS); without, by `KsymBlob::lookup_name` on the blob alone.
pub fn ksym_names(
    ksym: &Path,
    names: &[String],
    secs: f64,
    indexed: bool,
) -> Result<Measurement, String> {
    let bytes = map(ksym)?;
    let t = Instant::now();
    let blob = KsymBlob::parse(&bytes).map_err(|e| format!("{}: {e}", ksym.display()))?;
    let words_needed = if indexed {
        NameIndex::words_needed(blob.len())
    } else {
        0
    };
    let mut words = vec![0u64; words_needed];
    let index = indexed
        .then(|| NameIndex::build(blob, &mut words))
        .transpose()
        .map_err(|e| format!("{}: {e}", ksym.display()))?;
    let open = t.elapsed();
    let (per_second, (resolved, frames)) = throughput(names.len(), secs, || {
        let (mut found, mut acc) = (0u64, 0u64);
        for name in names {
            let addr = match &index {
                Some(index) => index.lookup_name(name.as_bytes()),
                None => blob.lookup_name(name.as_bytes()),
            };
            if let Some(addr) = addr {
                found += 1;
                acc = acc.wrapping_add(addr);
            }
        }
        black_box(acc);
        (found, found)
    });
    Ok(Measurement::lookups(per_second, resolved, frames, open))
}

/// How many ranges a Lidia lookup examines: for each address, the ranges the backward
/// walk from the last range at or below it visits before it stops (the format's cost
/// model: the walk ends at the first depth-0 range). Prints the mean and percentiles.
pub fn lidia_walk(lidia: &Path, addrs: &[u64]) -> Result<(), String> {
    let bytes = map(lidia)?;
    let file = LidiaFile::parse(&bytes).map_err(|e| format!("{}: {e}", lidia.display()))?;
    let vas: Vec<u64> = file.ranges().map(|r| r.va).collect();
    let mut steps: Vec<u64> = addrs
        .iter()
        .map(|&a| {
            let mut i = vas.partition_point(|&v| v <= a);
            let mut n = 0;
            while i > 0 {
                i -= 1;
                n += 1;
                match file.range(i) {
                    Some(r) if r.depth != 0 => {}
                    _ => break,
                }
            }
            n
        })
        .collect();
    steps.sort_unstable();
    let mean = steps.iter().sum::<u64>() as f64 / steps.len().max(1) as f64;
    let pct = |p: usize| steps.get(steps.len() * p / 100).copied().unwrap_or(0);
    println!(
        "{} ranges; ranges examined per lookup: mean {mean:.1}, median {}, p90 {}, p99 {}, max {}",
        file.len(),
        pct(50),
        pct(90),
        pct(99),
        steps.last().copied().unwrap_or(0)
    );
    Ok(())
}
