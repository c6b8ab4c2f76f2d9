//! `GET /metrics`: Prometheus text exposition of requests, latencies, cache use and bytes
//! stored. The format is a few lines of text; a metrics crate would add a registry and
//! its dependencies for what these counters already do.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Duration;

use super::cache::CacheStats;

/// Upper bounds of the latency histogram, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
struct Histogram {
    /// Count per bucket (not cumulative), the last one for above every bound.
    buckets: [u64; BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

/// The service's counters.
#[derive(Default)]
pub struct Metrics {
    /// Requests by (endpoint, status).
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    /// Latency by endpoint.
    latency: Mutex<BTreeMap<&'static str, Histogram>>,
    cache_hits: AtomicU64,
    cache_misses: AtomicU64,
    bytes_stored: AtomicU64,
    parts_swept: AtomicU64,
    addresses: AtomicU64,
    /// Counts of the debuginfod fallback, by [`Fallback`] as index.
    fallback: [AtomicU64; Fallback::ALL.len()],
}

/// What one use of the debuginfod fallback ([`super::debuginfod`]) came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The servers were asked for a build ID.
    Fetch,
    /// A fetch found a debug file and its symbols were published.
    Hit,
    /// A fetch found nothing usable: the build ID is remembered as a miss.
    Miss,
    /// A fetch could not ask every server (unreachable, an error, too slow).
    Failure,
    /// A request was answered from the miss memory, without asking.
    RememberedMiss,
}

impl Fallback {
    const ALL: [Fallback; 5] = [
        Fallback::Fetch,
        Fallback::Hit,
        Fallback::Miss,
        Fallback::Failure,
        Fallback::RememberedMiss,
    ];

    /// The counter's name and help text.
    fn describe(self) -> (&'static str, &'static str) {
        match self {
            Fallback::Fetch => (
                "symblob_debuginfod_fetches_total",
                "Build IDs asked of the debuginfod servers.",
            ),
            Fallback::Hit => (
                "symblob_debuginfod_hits_total",
                "Fetches whose debug file was published.",
            ),
            Fallback::Miss => (
                "symblob_debuginfod_misses_total",
                "Fetches that found no usable debug file (remembered).",
            ),
            Fallback::Failure => (
                "symblob_debuginfod_failures_total",
                "Fetches that could not ask every server.",
            ),
            Fallback::RememberedMiss => (
                "symblob_debuginfod_remembered_misses_total",
                "Requests answered from the memory of misses.",
            ),
        }
    }
}

impl Metrics {
    /// Counts one answered request.
    pub fn request(&self, endpoint: &'static str, status: u16, took: Duration) {
        *lock(&self.requests).entry((endpoint, status)).or_default() += 1;
        let seconds = took.as_secs_f64();
        let mut latency = lock(&self.latency);
        let h = latency.entry(endpoint).or_default();
        let bucket = BUCKETS
            .iter()
            .position(|&b| seconds <= b)
            .unwrap_or(BUCKETS.len());
        h.buckets[bucket] += 1;
        h.sum += seconds;
        h.count += 1;
    }

    /// Counts an executable found in the cache.
    pub fn cache_hit(&self) {
        self.cache_hits.fetch_add(1, Relaxed);
    }

    /// Counts an executable read from the store.
    pub fn cache_miss(&self) {
        self.cache_misses.fetch_add(1, Relaxed);
    }

    /// Counts bytes written to the store.
    pub fn stored(&self, bytes: usize) {
        self.bytes_stored.fetch_add(bytes as u64, Relaxed);
    }

    /// Counts parts of uploads never completed, removed from the store.
    pub fn swept(&self, parts: usize) {
        self.parts_swept.fetch_add(parts as u64, Relaxed);
    }

    /// Counts addresses answered.
    pub fn answered(&self, addresses: usize) {
        self.addresses.fetch_add(addresses as u64, Relaxed);
    }

    /// Counts one event of the debuginfod fallback.
    pub fn fallback(&self, event: Fallback) {
        self.fallback[event as usize].fetch_add(1, Relaxed);
    }

    /// The exposition text; `listed` is the store's count of listed entries
    /// ([`super::store::Store::entries_listed`]).
    pub fn render(&self, cache: CacheStats, listed: u64) -> String {
        let mut out = String::new();
        let o = &mut out;
        let _ = writeln!(o, "# HELP symblob_requests_total Requests answered.");
        let _ = writeln!(o, "# TYPE symblob_requests_total counter");
        for ((endpoint, status), n) in lock(&self.requests).iter() {
            let _ = writeln!(
                o,
                "symblob_requests_total{{endpoint=\"{endpoint}\",status=\"{status}\"}} {n}"
            );
        }
        let _ = writeln!(
            o,
            "# HELP symblob_request_seconds Time to answer a request."
        );
        let _ = writeln!(o, "# TYPE symblob_request_seconds histogram");
        for (endpoint, h) in lock(&self.latency).iter() {
            let mut cumulative = 0;
            for (i, n) in h.buckets.iter().enumerate() {
                cumulative += n;
                let le = BUCKETS.get(i).map_or("+Inf".to_owned(), |b| b.to_string());
                let _ = writeln!(
                    o,
                    "symblob_request_seconds_bucket{{endpoint=\"{endpoint}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                o,
                "symblob_request_seconds_sum{{endpoint=\"{endpoint}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                o,
                "symblob_request_seconds_count{{endpoint=\"{endpoint}\"}} {}",
                h.count
            );
        }
        let counters = [
            (
                "symblob_cache_hits_total",
                "Executables found in the cache.",
                self.cache_hits.load(Relaxed),
            ),
            (
                "symblob_cache_misses_total",
                "Executables read from the store.",
                self.cache_misses.load(Relaxed),
            ),
            (
                "symblob_stored_bytes_total",
                "Bytes written to the store.",
                self.bytes_stored.load(Relaxed),
            ),
            (
                "symblob_addresses_total",
                "Addresses symbolized.",
                self.addresses.load(Relaxed),
            ),
            (
                "symblob_swept_parts_total",
                "Parts of uploads never completed, removed once stale.",
                self.parts_swept.load(Relaxed),
            ),
            (
                "symblob_store_listed_entries_total",
                "Objects and folders the store's listings returned.",
                listed,
            ),
        ];
        for (name, help, value) in counters {
            let _ = writeln!(o, "# HELP {name} {help}");
            let _ = writeln!(o, "# TYPE {name} counter");
            let _ = writeln!(o, "{name} {value}");
        }
        for event in Fallback::ALL {
            let (name, help) = event.describe();
            let value = self.fallback[event as usize].load(Relaxed);
            let _ = writeln!(o, "# HELP {name} {help}");
            let _ = writeln!(o, "# TYPE {name} counter");
            let _ = writeln!(o, "{name} {value}");
        }
        let gauges = [
            (
                "symblob_cache_entries",
                "Executables held in memory.",
                cache.entries,
            ),
            (
                "symblob_cache_bytes",
                "Bytes of the executables held in memory.",
                cache.bytes,
            ),
        ];
        for (name, help, value) in gauges {
            let _ = writeln!(o, "# HELP {name} {help}");
            let _ = writeln!(o, "# TYPE {name} gauge");
            let _ = writeln!(o, "{name} {value}");
        }
        out
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
