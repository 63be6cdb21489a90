//! Rayon thread pools, one per requested size, built once and reused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::{ThreadPool, ThreadPoolBuilder};

static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();

/// Number of threads used for `threads == 0`: `VERL_EXT_NUM_THREADS` if set, else all cores.
pub fn default_threads() -> usize {
    std::env::var("VERL_EXT_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A pool of `threads` workers (0: [`default_threads`]).
pub fn pool(threads: usize) -> Arc<ThreadPool> {
    let n = if threads == 0 { default_threads() } else { threads };
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut pools = pools.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    pools
        .entry(n)
        .or_insert_with(|| {
            Arc::new(
                ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("verl-ext-{i}"))
                    .build()
                    .expect("spawning rayon worker threads"),
            )
        })
        .clone()
}
