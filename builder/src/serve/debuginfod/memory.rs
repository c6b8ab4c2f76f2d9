//! What the debuginfod fallback keeps between requests: the build IDs asked for, the
//! misses it remembers, and the fetches in flight.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lru::LruCache;

/// A GNU build ID as lower-case hex text, as debuginfod's URLs spell it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BuildId(String);

impl BuildId {
    /// Most hex digits taken: 64 bytes, over every note a linker writes (SHA-1's 20, a
    /// UUID's 16, xxHash's 8), still short enough for a URL and a log line.
    pub const MAX_DIGITS: usize = 128;

    /// Reads `text`: an even number of hex digits, 2 to [`Self::MAX_DIGITS`], either case.
    pub fn parse(text: &str) -> Option<BuildId> {
        let ok = (2..=Self::MAX_DIGITS).contains(&text.len())
            && text.len().is_multiple_of(2)
            && text.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then(|| BuildId(text.to_ascii_lowercase()))
    }

    /// From the bytes of an ELF's build-ID note.
    pub fn from_bytes(bytes: &[u8]) -> BuildId {
        BuildId(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The lower-case hex text.
    pub fn hex(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for BuildId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A miss being remembered: why, and for how much longer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Miss {
    /// What the servers answered, one clause per server.
    pub why: Arc<str>,
    /// Time left before the servers are asked again.
    pub left: Duration,
}

/// The build IDs no server had, each for a time to live. Bounded: past its capacity the
/// least recently remembered go first, so a client asking for made-up IDs costs memory
/// only up to the bound (and then the servers are asked again for the oldest).
pub struct MissMemory {
    ttl: Duration,
    entries: Mutex<LruCache<BuildId, (Instant, Arc<str>)>>,
}

impl MissMemory {
    /// Misses remembered at most: ~100 bytes each.
    pub const CAPACITY: usize = 100_000;

    /// A memory keeping each miss for `ttl` (zero: none kept), at most `capacity`.
    pub fn new(ttl: Duration, capacity: usize) -> MissMemory {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        MissMemory {
            ttl,
            entries: Mutex::new(LruCache::new(capacity)),
        }
    }

    /// The miss of `id` remembered at `now`, if any (an expired one is dropped).
    pub fn remembered(&self, id: &BuildId, now: Instant) -> Option<Miss> {
        let mut entries = lock(&self.entries);
        let &(until, ref why) = entries.peek(id)?;
        match until.checked_duration_since(now) {
            Some(left) if !left.is_zero() => Some(Miss {
                why: why.clone(),
                left,
            }),
            _ => {
                entries.pop(id);
                None
            }
        }
    }

    /// Remembers at `now` that no server had `id`, saying `why`.
    pub fn remember(&self, id: &BuildId, why: &str, now: Instant) {
        if self.ttl.is_zero() {
            return;
        }
        lock(&self.entries).put(id.clone(), (now + self.ttl, why.into()));
    }

    /// Misses held (expired ones included until asked for or pushed out).
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One async lock per build ID being fetched, so that requests for the same build ID at
/// once wait for the first one's fetch instead of each downloading the file.
#[derive(Default)]
pub struct Flights {
    locks: Mutex<HashMap<BuildId, Arc<tokio::sync::Mutex<()>>>>,
}

/// A place in the flight of one build ID: [`Flight::lock`] is its turn. The last one
/// dropped removes the build ID's lock, so the map holds only fetches in progress.
pub struct Flight<'f> {
    flights: &'f Flights,
    id: BuildId,
    /// Locked for the time of one fetch.
    pub lock: Arc<tokio::sync::Mutex<()>>,
}

impl Flights {
    /// Joins the flight of `id`, creating it when none is in progress.
    pub fn join(&self, id: &BuildId) -> Flight<'_> {
        let lock = lock(&self.locks).entry(id.clone()).or_default().clone();
        Flight {
            flights: self,
            id: id.clone(),
            lock,
        }
    }

    /// Build IDs with a flight in progress.
    pub fn len(&self) -> usize {
        lock(&self.locks).len()
    }

    /// Whether no flight is in progress.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        let mut locks = lock(&self.flights.locks);
        // Under the map's lock no one can join: two counts are the map's and ours.
        if Arc::strong_count(&self.lock) == 2 {
            locks.remove(&self.id);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> BuildId {
        BuildId::parse(text).unwrap()
    }

    #[test]
    fn build_ids_are_even_hex_and_kept_lower_case() {
        assert_eq!(id("CD8B79e6").hex(), "cd8b79e6");
        assert_eq!(BuildId::from_bytes(&[0xcd, 0x08]).hex(), "cd08");
        for bad in ["", "a", "abc", "xyz0", "0x12", "12 34", &"ab".repeat(65)] {
            assert_eq!(BuildId::parse(bad), None, "{bad:?}");
        }
        assert!(BuildId::parse(&"ab".repeat(64)).is_some());
    }

    #[test]
    fn a_miss_is_remembered_for_its_time_to_live_only() {
        let memory = MissMemory::new(Duration::from_secs(60), 10);
        let t0 = Instant::now();
        assert_eq!(memory.remembered(&id("aa"), t0), None);
        memory.remember(&id("aa"), "not found", t0);
        let miss = memory
            .remembered(&id("AA"), t0 + Duration::from_secs(20))
            .unwrap();
        assert_eq!(&*miss.why, "not found");
        assert_eq!(miss.left, Duration::from_secs(40));
        assert_eq!(memory.remembered(&id("bb"), t0), None);
        // At the end of its time it is gone, and dropped from the memory.
        assert_eq!(
            memory.remembered(&id("aa"), t0 + Duration::from_secs(60)),
            None
        );
        assert!(memory.is_empty());
    }

    #[test]
    fn remembering_again_restarts_the_time() {
        let memory = MissMemory::new(Duration::from_secs(60), 10);
        let t0 = Instant::now();
        memory.remember(&id("aa"), "first", t0);
        memory.remember(&id("aa"), "second", t0 + Duration::from_secs(50));
        let miss = memory
            .remembered(&id("aa"), t0 + Duration::from_secs(70))
            .unwrap();
        assert_eq!((&*miss.why, miss.left), ("second", Duration::from_secs(40)));
        assert_eq!(memory.len(), 1);
    }

    #[test]
    fn a_zero_time_to_live_remembers_nothing() {
        let memory = MissMemory::new(Duration::ZERO, 10);
        let t0 = Instant::now();
        memory.remember(&id("aa"), "not found", t0);
        assert_eq!(memory.remembered(&id("aa"), t0), None);
        assert!(memory.is_empty());
    }

    #[test]
    fn past_its_capacity_the_oldest_miss_goes_first() {
        let memory = MissMemory::new(Duration::from_secs(60), 2);
        let t0 = Instant::now();
        for text in ["aa", "bb", "cc"] {
            memory.remember(&id(text), text, t0);
        }
        assert_eq!(memory.len(), 2);
        assert_eq!(memory.remembered(&id("aa"), t0), None);
        assert!(memory.remembered(&id("bb"), t0).is_some());
        assert!(memory.remembered(&id("cc"), t0).is_some());
    }

    #[tokio::test]
    async fn one_flight_per_build_id_removed_by_the_last_to_leave() {
        let flights = Flights::default();
        let first = flights.join(&id("aa"));
        let second = flights.join(&id("AA"));
        let other = flights.join(&id("bb"));
        assert!(Arc::ptr_eq(&first.lock, &second.lock));
        assert!(!Arc::ptr_eq(&first.lock, &other.lock));
        assert_eq!(flights.len(), 2);

        let turn = first.lock.lock().await;
        assert!(
            second.lock.try_lock().is_err(),
            "the second waits for the first"
        );
        drop(turn);
        drop(first);
        assert_eq!(flights.len(), 2, "the second is still in the flight");
        let _turn = second.lock.try_lock().expect("its turn");
        drop(_turn);
        drop(second);
        drop(other);
        assert!(flights.is_empty());
    }
}
