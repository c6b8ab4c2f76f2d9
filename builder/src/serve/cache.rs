//! The executables this instance has loaded from the store, kept in memory up to a size
//! bound and evicted least recently used first.
//!
//! An entry lives for at most [`Cache::MAX_AGE`] before it is read again, so a file
//! uploaded anew through another instance reaches this one in bounded time; uploads
//! through this instance drop the entry at once.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use lru::LruCache;

use crate::model::ReturnPad;
use crate::symbfile::fileid::FileId;

/// What symbolize requests of one executable read.
#[derive(Debug, Default)]
pub struct Entry {
    /// The ranges as a Lidia file (checked when loaded), when ranges were uploaded.
    pub lidia: Option<Bytes>,
    /// Return pads sorted by address, when return pads were uploaded.
    pub pads: Vec<ReturnPad>,
}

impl Entry {
    /// Bytes of memory it holds, roughly.
    pub fn size(&self) -> usize {
        let pads: usize = self
            .pads
            .iter()
            .map(|p| {
                std::mem::size_of::<ReturnPad>()
                    + p.frames
                        .iter()
                        .map(|f| {
                            std::mem::size_of_val(f)
                                + f.function.len()
                                + f.file.as_ref().map_or(0, String::len)
                        })
                        .sum::<usize>()
            })
            .sum();
        self.lidia.as_ref().map_or(0, Bytes::len) + pads
    }
}

/// Counts the cache keeps for `/metrics`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CacheStats {
    /// Entries.
    pub entries: usize,
    /// Their bytes.
    pub bytes: usize,
}

struct Slot {
    entry: Arc<Entry>,
    loaded: Instant,
    size: usize,
}

/// The cache.
pub struct Cache {
    limit: usize,
    inner: Mutex<(LruCache<FileId, Slot>, usize)>,
}

impl Cache {
    /// How long an entry is answered from memory before it is read from the store again.
    pub const MAX_AGE: Duration = Duration::from_secs(60);

    /// A cache holding up to `limit` bytes (one entry over the limit is still kept, so
    /// that the request that loaded it is answered).
    pub fn new(limit: usize) -> Self {
        Cache {
            limit,
            inner: Mutex::new((LruCache::unbounded(), 0)),
        }
    }

    /// The entry of `id`, when loaded and young enough.
    pub fn get(&self, id: FileId) -> Option<Arc<Entry>> {
        let mut inner = self.lock();
        let slot = inner.0.get(&id)?;
        if slot.loaded.elapsed() > Self::MAX_AGE {
            return None;
        }
        Some(slot.entry.clone())
    }

    /// Keeps `entry` for `id`, evicting the least recently used entries over the limit.
    pub fn insert(&self, id: FileId, entry: Arc<Entry>) {
        let size = entry.size();
        let mut guard = self.lock();
        let (lru, bytes) = &mut *guard;
        let slot = Slot {
            entry,
            loaded: Instant::now(),
            size,
        };
        if let Some(old) = lru.put(id, slot) {
            *bytes -= old.size;
        }
        *bytes += size;
        while *bytes > self.limit && lru.len() > 1 {
            match lru.pop_lru() {
                Some((_, old)) => *bytes -= old.size,
                None => break,
            }
        }
    }

    /// Drops the entry of `id` (its files changed).
    pub fn forget(&self, id: FileId) {
        let mut guard = self.lock();
        let (lru, bytes) = &mut *guard;
        if let Some(old) = lru.pop(&id) {
            *bytes -= old.size;
        }
    }

    /// Entries and bytes held.
    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.0.len(),
            bytes: inner.1,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (LruCache<FileId, Slot>, usize)> {
        // A panic while holding the lock cannot leave the map half-changed in a way
        // that matters here: take it anyway.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(len: usize) -> Arc<Entry> {
        Arc::new(Entry {
            lidia: Some(Bytes::from(vec![0; len])),
            pads: Vec::new(),
        })
    }

    #[test]
    fn the_least_recently_used_entry_goes_first() {
        let cache = Cache::new(250);
        let (a, b, c) = (FileId([1; 16]), FileId([2; 16]), FileId([3; 16]));
        cache.insert(a, entry(100));
        cache.insert(b, entry(100));
        assert!(cache.get(a).is_some()); // a is now the most recent
        cache.insert(c, entry(100));
        assert!(cache.get(b).is_none());
        assert!(cache.get(a).is_some() && cache.get(c).is_some());
        assert_eq!(cache.stats().bytes, 200);
        cache.forget(a);
        assert_eq!(cache.stats().entries, 1);
        // One entry over the limit stays.
        cache.insert(a, entry(1000));
        assert_eq!(cache.stats().entries, 1);
    }
}
