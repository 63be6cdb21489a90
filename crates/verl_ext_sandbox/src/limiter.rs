//! How many executions run at once, and on which threads: a process-wide cap shared by all callers, and
//! one worker thread per concurrent execution of a batch.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::{weak, ExecRequest, ExecResult, SandboxConfig, SandboxError};

/// Watcher threads mostly sleep in poll(); when they wake for a deadline they compete with whatever
/// the program started. Where allowed (root), give them a slightly higher priority than the programs.
fn raise_watcher_priority() {
    // Adjusts only the calling thread; failure (no CAP_SYS_NICE) is harmless.
    let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), -5);
}

/// Run `reqs` on `threads` worker threads of this call (0: [`default_sandbox_threads`]).
///
/// Not the shared Rayon pools: an execution mostly waits on its child, and concurrent callers (e.g.
/// reward workers) must not queue behind each other's executions.
pub fn run_all(reqs: &[ExecRequest], cfg: &SandboxConfig, threads: usize) -> Vec<Result<ExecResult, SandboxError>> {
    run_each(reqs, threads, cfg.epoch, |req| crate::cold::run(req, cfg))
}

/// [`run_all`] in the opt-in weaker mode ([`weak`]).
pub fn run_all_weak(
    reqs: &[ExecRequest],
    cfg: &SandboxConfig,
    threads: usize,
) -> Vec<Result<ExecResult, SandboxError>> {
    run_each(reqs, threads, cfg.epoch, |req| weak::run_weak(req, cfg))
}

/// Executions at a time by default: twice [`verl_ext_core::parallel::default_threads`]. A program that sleeps
/// or waits for its deadline holds a worker but no core, so one worker per core would leave cores
/// idle behind slow programs; CPU-bound ones just share the cores.
pub fn default_sandbox_threads() -> usize {
    verl_ext_core::parallel::default_threads() * 2
}

/// Executions running now in this process, across all callers (bounded by [`default_sandbox_threads`]:
/// concurrent reward workers or nested batches must not oversubscribe the cores, which would make
/// wall-clock deadlines fire on programs that would pass on an idle machine).
static RUNNING: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

struct Slot;

impl Slot {
    fn acquire() -> Self {
        let (lock, cv) = &RUNNING;
        let mut running = lock.lock().unwrap_or_else(|p| p.into_inner());
        while *running >= default_sandbox_threads() {
            running = cv.wait(running).unwrap_or_else(|p| p.into_inner());
        }
        *running += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let (lock, cv) = &RUNNING;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        cv.notify_one();
    }
}

/// Waits before each new try of an execution the host was short of a resource for ([`SandboxError::Busy`]):
/// about half a second in all, then that execution's error stands (its sample scores 0; the batch goes on).
const BUSY_BACKOFF: [Duration; 4] =
    [Duration::from_millis(10), Duration::from_millis(40), Duration::from_millis(120), Duration::from_millis(320)];

fn with_retries(mut one: impl FnMut() -> Result<ExecResult, SandboxError>) -> Result<ExecResult, SandboxError> {
    let mut result = one();
    for wait in BUSY_BACKOFF {
        if !matches!(result, Err(SandboxError::Busy(_))) {
            break;
        }
        std::thread::sleep(wait);
        result = one();
    }
    result
}

/// Run `reqs` on `threads` workers; once the batch's `epoch` is cancelled, nothing more starts and every
/// execution reports [`SandboxError::Cancelled`] (a killed run's result is no verdict).
pub(crate) fn run_each(
    reqs: &[ExecRequest],
    threads: usize,
    epoch: u64,
    one: impl Fn(&ExecRequest) -> Result<ExecResult, SandboxError> + Sync,
) -> Vec<Result<ExecResult, SandboxError>> {
    let workers = if threads == 0 { default_sandbox_threads() } else { threads }.clamp(1, reqs.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<ExecResult, SandboxError>>>> = reqs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                raise_watcher_priority();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(req) = reqs.get(i) else { break };
                    if crate::cancel::cancelled(epoch) {
                        *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(Err(SandboxError::Cancelled));
                        continue;
                    }
                    let slot = Slot::acquire();
                    let result = with_retries(|| one(req));
                    drop(slot);
                    let result = if crate::cancel::cancelled(epoch) { Err(SandboxError::Cancelled) } else { result };
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err(SandboxError::Setup("worker thread ended early".into())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> ExecResult {
        ExecResult {
            status: crate::Status::Ok,
            exit_code: Some(0),
            signal: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            channel: Vec::new(),
            channel_overflow: false,
            wall_ms: 0.0,
            cpu_ms: 0.0,
        }
    }

    #[test]
    fn a_busy_host_is_retried_then_its_error_stands() {
        let mut tries = 0;
        let r = with_retries(|| {
            tries += 1;
            if tries < 3 {
                Err(SandboxError::Busy("EAGAIN".into()))
            } else {
                Ok(ok())
            }
        });
        assert!(r.is_ok() && tries == 3);
        let mut tries = 0;
        let r = with_retries(|| {
            tries += 1;
            Err(SandboxError::Busy("EMFILE".into()))
        });
        assert_eq!((r.unwrap_err(), tries), (SandboxError::Busy("EMFILE".into()), 1 + BUSY_BACKOFF.len()));
        // Other errors are not retried.
        let mut tries = 0;
        let _ = with_retries(|| {
            tries += 1;
            Err(SandboxError::Unsupported("no user namespaces".into()))
        });
        assert_eq!(tries, 1);
    }

    #[test]
    fn only_resource_errors_are_busy() {
        for errno in SandboxError::TRANSIENT_ERRNOS {
            assert!(matches!(
                SandboxError::busy_or(Some(errno), "x".into(), SandboxError::Unsupported),
                SandboxError::Busy(_)
            ));
        }
        for errno in [Some(libc::EPERM), Some(libc::EINVAL), None] {
            let e = SandboxError::busy_or(errno, "x".into(), SandboxError::Unsupported);
            assert!(matches!(e, SandboxError::Unsupported(_)));
        }
    }
}
