//! Timing and memory measurement.
//!
//! Throughput: one untimed warm-up pass over the whole sample (so lazily built state such
//! as addr2line's parsed units exists before timing, as in a long-running profiler), then
//! timed passes until at least `min_seconds` have passed (at least three); the figure is
//! the median pass. Memory: each tool runs in its own child process, which reports its
//! peak resident set (`VmHWM` from `/proc/self/status`) after its last pass.

use std::time::{Duration, Instant};

/// The outcome of one tool on one workload, as a child process reports it.
#[derive(Clone, Debug, Default)]
pub struct Measurement {
    /// Median operations per second.
    pub per_second: f64,
    /// Operations that found something (an address resolved, a name found).
    pub resolved: u64,
    /// Frames (or matches) produced over one pass.
    pub frames: u64,
    /// Peak resident set of the child, KiB.
    pub peak_kib: u64,
    /// Time to open the input (parse, build the context) before the first lookup.
    pub open: Duration,
}

impl Measurement {
    /// A lookup tool's measurement (its peak RSS is filled in by the child at exit).
    pub fn lookups(per_second: f64, resolved: u64, frames: u64, open: Duration) -> Self {
        Measurement {
            per_second,
            resolved,
            frames,
            open,
            ..Measurement::default()
        }
    }

    /// One tab-separated line, the child-to-parent format.
    pub fn to_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}",
            self.per_second,
            self.resolved,
            self.frames,
            self.peak_kib,
            self.open.as_nanos()
        )
    }

    /// Parses [`to_line`](Self::to_line).
    pub fn from_line(line: &str) -> Option<Self> {
        let mut it = line.trim().split('\t');
        Some(Measurement {
            per_second: it.next()?.parse().ok()?,
            resolved: it.next()?.parse().ok()?,
            frames: it.next()?.parse().ok()?,
            peak_kib: it.next()?.parse().ok()?,
            open: Duration::from_nanos(it.next()?.parse().ok()?),
        })
    }
}

/// What one pass over the workload produced: (found, frames).
pub type PassCount = (u64, u64);

/// Runs `pass` (which processes `ops` operations) once to warm up, then repeatedly, and
/// returns the median operations per second and the counts of the last pass.
pub fn throughput(
    ops: usize,
    min_seconds: f64,
    mut pass: impl FnMut() -> PassCount,
) -> (f64, PassCount) {
    let mut counts = pass();
    let mut rates = Vec::new();
    let start = Instant::now();
    while rates.len() < 3 || start.elapsed().as_secs_f64() < min_seconds {
        let t = Instant::now();
        counts = std::hint::black_box(pass());
        let dt = t.elapsed().as_secs_f64().max(1e-9);
        rates.push(ops as f64 / dt);
        if rates.len() >= 1000 {
            break;
        }
    }
    rates.sort_by(f64::total_cmp);
    (rates[rates.len() / 2], counts)
}

/// This process's peak resident set in KiB (`VmHWM`), 0 if unknown.
pub fn peak_rss_kib() -> u64 {
    status_field("VmHWM:")
}

fn status_field(name: &str) -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Wall time, CPU time and peak resident set of a finished child command.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessCost {
    /// Wall-clock time.
    pub wall: Duration,
    /// User plus system CPU time.
    pub cpu: Duration,
    /// Peak resident set (`ru_maxrss`), KiB.
    pub peak_kib: u64,
}

/// Runs `command` to completion and reads its resource use with `wait4`.
pub fn run_measured(command: &mut std::process::Command) -> Result<ProcessCost, String> {
    let start = Instant::now();
    let child = command
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let pid = child.id() as libc_pid;
    let mut status = 0i32;
    let mut usage = RUsage::default();
    // SAFETY: wait4 writes into the two out-parameters, both valid and of the C layout.
    let r = unsafe { wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if r != pid {
        return Err(format!("{command:?}: wait4 failed"));
    }
    if status != 0 {
        return Err(format!("{command:?}: exit status {status:#x}"));
    }
    let tv = |t: TimeVal| Duration::from_micros((t.sec as u64) * 1_000_000 + t.usec as u64);
    Ok(ProcessCost {
        wall,
        cpu: tv(usage.utime) + tv(usage.stime),
        peak_kib: usage.maxrss as u64,
    })
}

#[allow(non_camel_case_types)]
type libc_pid = i32;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct TimeVal {
    sec: i64,
    usec: i64,
}

/// `struct rusage` of Linux on 64-bit targets.
#[repr(C)]
#[derive(Default)]
struct RUsage {
    utime: TimeVal,
    stime: TimeVal,
    maxrss: i64,
    rest: [i64; 13],
}

extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, rusage: *mut RUsage) -> i32;
}
