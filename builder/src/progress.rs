//! Progress of long builds, reported to the caller: the library draws nothing.

use std::fmt;
use std::sync::Arc;

/// A callback told how far a long build is, as `(done, total)` units of work (for a
/// DWARF build: compilation units). It may be called from several threads at once, in
/// any order of `done`; [`Progress::default`] reports nothing. The `symblob` command line
/// draws a progress bar from it.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Fn(u64, u64) + Send + Sync>>);

impl Progress {
    /// Reports through `callback`.
    pub fn new(callback: impl Fn(u64, u64) + Send + Sync + 'static) -> Self {
        Progress(Some(Arc::new(callback)))
    }

    /// Tells the callback that `done` of `total` units are finished.
    pub(crate) fn report(&self, done: u64, total: u64) {
        if let Some(callback) = &self.0 {
            callback(done, total);
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(callback)"
        } else {
            "Progress(none)"
        })
    }
}
