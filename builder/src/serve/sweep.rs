//! Parts of uploads that never complete are removed from the store once they are stale.
//!
//! A file's parts wait under `uploads/` until the last one arrives, and are removed when
//! the file is published. Two kinds stay behind: the parts of an upload its client gave
//! up, and a part sent again after its file was published (a client retrying a request
//! whose answer it lost). Every instance sweeps the store at start and then regularly: a
//! part older than the stale time ([`super::Limits::stale_parts`], 24 h unless set) is
//! removed. Removal is idempotent, so instances sweeping one bucket together do no harm;
//! a part written within the stale time is never touched, so an upload in progress is
//! safe. Only keys of the parts layout are removed: a store made in a folder that held
//! an `uploads` folder of its own keeps every file of it.

use std::sync::Arc;
use std::time::Duration;

use super::store::{in_parts_layout, StoreError, UPLOADS};
use super::upload::stale;
use super::State;

/// Removes the stale parts; returns how many it removed.
pub async fn sweep(state: &State) -> Result<usize, StoreError> {
    let mut removed = 0;
    for part in state.store.list(UPLOADS).await? {
        let components: Vec<&str> = part.name.split('/').collect();
        if components.len() == 4
            && in_parts_layout(&components)
            && stale(part.modified, state.limits.stale_parts)
        {
            state
                .store
                .delete(&format!("{UPLOADS}/{}", part.name))
                .await?;
            removed += 1;
        }
    }
    state.store.remove_empty_folders(UPLOADS).await;
    state.metrics.swept(removed);
    Ok(removed)
}

/// How long between sweeps: a quarter of the stale time, between 1 s and an hour.
pub fn interval(stale: Duration) -> Duration {
    (stale / 4).clamp(Duration::from_secs(1), Duration::from_secs(3600))
}

/// Sweeps now and then every [`interval`], logging what it removed or why it could
/// not, until the task is dropped.
pub async fn run(state: Arc<State>) {
    let mut ticks = tokio::time::interval(interval(state.limits.stale_parts));
    loop {
        ticks.tick().await;
        let line = match sweep(&state).await {
            Ok(0) => continue,
            Ok(removed) => serde_json::json!({ "swept": removed }),
            Err(e) => serde_json::json!({ "sweep_failed": e.to_string() }),
        };
        super::eprintln_quiet(&line.to_string());
    }
}
