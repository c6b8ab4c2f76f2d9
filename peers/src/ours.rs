//! symblob's readers on the workload: Lidia and GSYM (every frame with file and line),
//! Lidia's innermost function name only, and ksym-bin (name, offset and size; name →
//! address).

use std::fmt::Display;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use symblob::gsym::{GsymFile, Lookup, LookupIndex};
use symblob::ksym::{v2, KsymBlob, Ksyms, NameIndex, Symbol, TextRanges, Version};
use symblob::lidia::{Frames, LidiaFile, Str};

use crate::measure::{throughput, Measurement};
use crate::sample::text_ranges;

/// Maps a file read-only.
pub fn map(path: &Path) -> Result<memmap2::Mmap, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // SAFETY: the file is only read, and nothing in this process writes to it.
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("{}: {e}", path.display()))
}

/// An address workload: the addresses of a pass, the seconds of timed passes at least,
/// and whether a pass goes through the batched API (all addresses in one call).
#[derive(Clone, Copy)]
pub struct Workload<'a> {
    /// The addresses looked up in each pass.
    pub addrs: &'a [u64],
    /// Minimum seconds of timed passes.
    pub secs: f64,
    /// Through the batched API instead of one lookup per address.
    pub batched: bool,
}

impl Workload<'_> {
    /// Times passes: one address at a time through `one`, or with `batched` all of them
    /// through `each`; both count what they find in the pass's [`Tally`]. `open` is the
    /// time the input took to open.
    fn measure(
        self,
        open: Duration,
        one: impl Fn(&mut Tally, u64),
        each: impl Fn(&mut Tally, &[u64]),
    ) -> Measurement {
        let (per_second, (resolved, frames)) = throughput(self.addrs.len(), self.secs, || {
            let mut tally = Tally::default();
            if self.batched {
                each(&mut tally, self.addrs);
            } else {
                for &a in self.addrs {
                    one(&mut tally, a);
                }
            }
            black_box(tally.acc);
            (tally.found, tally.frames)
        });
        Measurement::lookups(per_second, resolved, frames, open)
    }
}

/// What the lookups of one pass found, and a sum of what they returned that keeps the
/// compiler from skipping the work.
#[derive(Default)]
struct Tally {
    found: u64,
    frames: u64,
    acc: u64,
}

impl Tally {
    /// A lookup's answer of one frame (a name, a symbol), summed as `value`, if it found
    /// one.
    fn one_frame(&mut self, value: Option<u64>) {
        if let Some(value) = value {
            self.found += 1;
            self.frames += 1;
            self.acc = self.acc.wrapping_add(value);
        }
    }

    /// A Lidia lookup's frames: it found something if it has any.
    fn frames(&mut self, lookup: Frames<'_>) {
        let mut any = false;
        for f in lookup {
            any = true;
            self.frames += 1;
            let value = f.line + f.function.len() as u64 + f.file.len() as u64;
            self.acc = self.acc.wrapping_add(value);
        }
        self.found += u64::from(any);
    }
}

/// `open` of the mapped bytes of `path`, timed; an error names the file.
fn timed_open<'b, T, E: Display>(
    path: &Path,
    bytes: &'b [u8],
    open: impl FnOnce(&'b [u8]) -> Result<T, E>,
) -> Result<(T, Duration), String> {
    let t = Instant::now();
    let opened = open(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((opened, t.elapsed()))
}

/// Lidia, every frame: function, file and line of the innermost frame and of each caller
/// it was inlined into. Batched through `LidiaFile::lookup_each` (the searches of eight
/// addresses overlapped).
pub fn lidia_frames(lidia: &Path, work: Workload<'_>) -> Result<Measurement, String> {
    let bytes = map(lidia)?;
    let (file, open) = timed_open(lidia, &bytes, LidiaFile::parse)?;
    Ok(work.measure(
        open,
        |tally, a| tally.frames(file.lookup(a)),
        |tally, addrs| file.lookup_each(addrs, |_, lookup| tally.frames(lookup)),
    ))
}

/// GSYM, every frame as `llvm-gsymutil --address` prints it (function, directory, file,
/// line), on the file `llvm-gsymutil --convert` wrote. `indexed`: through a `LookupIndex`
/// built when the file is opened (its build counts as the open); batched, through
/// `LookupIndex::lookup_each`, which sorts the pass's addresses in scratch words allocated
/// once (one per address) before it looks them up.
pub fn gsym_frames(gsym: &Path, work: Workload<'_>, indexed: bool) -> Result<Measurement, String> {
    let bytes = map(gsym)?;
    let (file, mut open) = timed_open(gsym, &bytes, GsymFile::parse)?;
    let t = Instant::now();
    let mut words = vec![
        0u64;
        if indexed {
            LookupIndex::words_needed(&file)
        } else {
            0
        }
    ];
    let index = match indexed {
        true => Some(
            LookupIndex::build(file, &mut words).map_err(|e| format!("{}: {e}", gsym.display()))?,
        ),
        false => None,
    };
    open += t.elapsed();
    let tally_frames = |tally: &mut Tally, found: Result<Option<&Lookup<'_>>, symblob::Error>| {
        let Ok(Some(lookup)) = found else {
            return;
        };
        tally.found += 1;
        for f in lookup.frames() {
            tally.frames += 1;
            let value = u64::from(f.line) + f.name.len() as u64 + f.base.len() as u64;
            tally.acc = tally.acc.wrapping_add(value + f.dir.len() as u64);
        }
    };
    let one = |tally: &mut Tally, a: u64| {
        let found = match &index {
            Some(index) => index.lookup(a),
            None => file.lookup(a),
        };
        tally_frames(tally, found.as_ref().map(Option::as_ref).map_err(|e| *e));
    };
    let order = std::cell::RefCell::new(vec![0u64; work.addrs.len()]);
    Ok(work.measure(open, one, |tally, addrs| match &index {
        Some(index) => {
            let order = &mut order.borrow_mut();
            index.lookup_each(addrs, order, |_, found| tally_frames(tally, found));
        }
        None => addrs.iter().for_each(|&a| one(tally, a)),
    }))
}

/// Lidia, the innermost function name only. Batched through
/// `LidiaFile::lookup_function_each`.
pub fn lidia_names(lidia: &Path, work: Workload<'_>) -> Result<Measurement, String> {
    let bytes = map(lidia)?;
    let (file, open) = timed_open(lidia, &bytes, LidiaFile::parse)?;
    let name_len = |name: Option<Str<'_>>| name.map(|n| n.len() as u64);
    Ok(work.measure(
        open,
        |tally, a| tally.one_frame(name_len(file.lookup_function(a))),
        |tally, addrs| {
            file.lookup_function_each(addrs, |_, name| tally.one_frame(name_len(name)));
        },
    ))
}

/// ksym-bin, address → `name+off/size`, bounded by the ELF's executable sections. Batched
/// through `Ksyms::lookup_address_each`. A v2 blob (told from its bytes) is read by the v2
/// reader, so that both versions run through the same harness.
pub fn ksym_addresses(ksym: &Path, elf: &Path, work: Workload<'_>) -> Result<Measurement, String> {
    let bytes = map(ksym)?;
    let ranges = text_ranges(elf)?;
    let text = TextRanges::new(&ranges).map_err(|e| format!("text ranges: {e}"))?;
    if Version::detect(&bytes) == Version::V2 {
        let (blob, open) = timed_open(ksym, &bytes, v2::Blob::open)?;
        let ksyms = v2::Ksyms::new(blob, text);
        let offset = |sym: Option<v2::Symbol<'_>>| sym.map(|s| s.offset);
        return Ok(work.measure(
            open,
            |tally, a| tally.one_frame(offset(ksyms.lookup_address(a))),
            |tally, addrs| ksyms.lookup_address_each(addrs, |_, sym| tally.one_frame(offset(sym))),
        ));
    }
    // The O(1) open a kernel uses for the table its own build embedded; `parse` adds the
    // O(N) entry checks (BENCHMARKS.md quotes both).
    let (blob, open) = timed_open(ksym, &bytes, KsymBlob::parse_trusted)?;
    let ksyms = Ksyms::new(blob, text);
    let offset = |sym: Option<Symbol<'_>>| sym.map(|s| s.offset);
    Ok(work.measure(
        open,
        |tally, a| tally.one_frame(offset(ksyms.lookup_address(a))),
        |tally, addrs| ksyms.lookup_address_each(addrs, |_, sym| tally.one_frame(offset(sym))),
    ))
}

/// ksym-bin, address → `name+off/size` printed into a reused buffer: the lookup and the
/// name, as a panic path or a profiler needs them (the address-only tools leave the name
/// undecoded, which favours v2, whose names are decoded when used).
pub fn ksym_formatted(ksym: &Path, elf: &Path, work: Workload<'_>) -> Result<Measurement, String> {
    use std::fmt::Write as _;
    /// Counts what is written: the formatting work without a buffer to manage.
    struct Count(u64);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.len() as u64;
            Ok(())
        }
    }
    let bytes = map(ksym)?;
    let ranges = text_ranges(elf)?;
    let text = TextRanges::new(&ranges).map_err(|e| format!("text ranges: {e}"))?;
    let printed = |shown: Option<&dyn std::fmt::Display>| {
        shown.map(|s| {
            let mut count = Count(0);
            let _ = write!(count, "{s}");
            count.0
        })
    };
    if Version::detect(&bytes) == Version::V2 {
        let (blob, open) = timed_open(ksym, &bytes, v2::Blob::open)?;
        let ksyms = v2::Ksyms::new(blob, text);
        return Ok(work.measure(
            open,
            |tally, a| {
                let sym = ksyms.lookup_address(a);
                tally.one_frame(printed(sym.as_ref().map(|s| s as &dyn std::fmt::Display)))
            },
            |_, _| unreachable!("formatted lookups are not batched"),
        ));
    }
    let (blob, open) = timed_open(ksym, &bytes, KsymBlob::parse_trusted)?;
    let ksyms = Ksyms::new(blob, text);
    Ok(work.measure(
        open,
        |tally, a| {
            let sym = ksyms.lookup_address(a);
            tally.one_frame(printed(sym.as_ref().map(|s| s as &dyn std::fmt::Display)))
        },
        |_, _| unreachable!("formatted lookups are not batched"),
    ))
}

/// ksym-bin, name → lowest address. With `indexed`, through the optional [`NameIndex`]
/// (16 bytes per symbol of our memory, built at open: its build time counts in `open`, its
/// memory in the peak RSS); without, by `lookup_name` on the blob alone (v1 or v2).
pub fn ksym_names(
    ksym: &Path,
    names: &[String],
    secs: f64,
    indexed: bool,
) -> Result<Measurement, String> {
    let bytes = map(ksym)?;
    let t = Instant::now();
    if Version::detect(&bytes) == Version::V2 {
        if indexed {
            return Err(format!("{}: v2 has no NameIndex", ksym.display()));
        }
        let blob = v2::Blob::parse(&bytes).map_err(|e| format!("{}: {e}", ksym.display()))?;
        let open = t.elapsed();
        return Ok(name_throughput(names, secs, open, |name| {
            blob.lookup_name(name)
        }));
    }
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
    Ok(name_throughput(names, secs, open, |name| match &index {
        Some(index) => index.lookup_name(name),
        None => blob.lookup_name(name),
    }))
}

/// Name lookups per second of `lookup` over `names`.
fn name_throughput(
    names: &[String],
    secs: f64,
    open: std::time::Duration,
    lookup: impl Fn(&[u8]) -> Option<u64>,
) -> Measurement {
    let (per_second, (resolved, frames)) = throughput(names.len(), secs, || {
        let (mut found, mut acc) = (0u64, 0u64);
        for name in names {
            if let Some(addr) = lookup(name.as_bytes()) {
                found += 1;
                acc = acc.wrapping_add(addr);
            }
        }
        black_box(acc);
        (found, found)
    });
    Measurement::lookups(per_second, resolved, frames, open)
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
