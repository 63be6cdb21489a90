//! Rayon thread pools, one per requested size, built once and reused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
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

/// `items.map(f)` in order on a pool of `threads` workers (0: [`default_threads`]), each worker taking
/// at least `min_len` items; one thread (or one item) runs inline on the caller's thread.
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, min_len: usize, f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if threads == 1 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    pool(threads).install(|| items.par_iter().with_min_len(min_len).map(f).collect())
}
