//! Stopping every batch of this process now (Ctrl-C in the trainer): a process-wide epoch. A batch notes the
//! epoch it starts in ([`crate::SandboxConfig::epoch`]); once [`cancel_running`] has moved it on, the batch
//! starts no further execution, kills those it runs at its next look (at most [`CHECK`] later) and reports
//! [`crate::SandboxError::Cancelled`] for every one of them: a stopped batch returns no verdicts.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

static EPOCH: AtomicU64 = AtomicU64::new(0);
/// Set once the process is closing (interpreter exit): every batch, running or new, is cancelled.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// How often a running execution looks whether its batch was cancelled: each look is a wake-up of the
/// trainer's thread watching it (at 50 ms, 0.65 ms of trainer CPU per execution-second, most of what a
/// program that sleeps to its time limit cost the trainer); 250 ms keeps a cancel well within its 1 s goal.
pub const CHECK: Duration = Duration::from_millis(250);

/// The epoch a batch starting now belongs to.
pub fn epoch() -> u64 {
    EPOCH.load(Ordering::SeqCst)
}

/// Has the batch of `epoch` been cancelled?
pub fn cancelled(epoch: u64) -> bool {
    CLOSED.load(Ordering::SeqCst) || EPOCH.load(Ordering::SeqCst) != epoch
}

/// Cancel every batch running in this process (batches started afterwards run normally).
pub fn cancel_running() {
    EPOCH.fetch_add(1, Ordering::SeqCst);
}

/// Cancel every batch, and every batch started from now on (the process is exiting: a thread pool would
/// otherwise start the next stage of its scoring as soon as the current one stops).
pub fn close() {
    CLOSED.store(true, Ordering::SeqCst);
    cancel_running();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_cancelled_once_the_epoch_moves_on() {
        let mine = epoch();
        assert!(!cancelled(mine));
        cancel_running();
        assert!(cancelled(mine));
        assert!(!cancelled(epoch()));
    }
}
