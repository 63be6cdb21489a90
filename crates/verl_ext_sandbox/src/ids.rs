//! Host uid/gid slots: which host ids an execution's root maps to, and the id maps that say so.

use std::sync::Mutex;

use rustix::process::{getegid, geteuid};

use crate::SandboxError;

/// First host uid/gid of the per-execution ids used when we run as root (an unused high range).
const SLOT_ID_BASE: u32 = 0x6000_0000;
/// Host ids handed out (one per cold execution, a range per zygote); when all are taken, the last is shared.
const SLOTS: usize = 65536;
/// Host ids a zygote holds for its executions (beside its own): more concurrent executions than this on
/// one zygote share the zygote's id. A zygote serves about eight cores' worth of executions.
pub const ZYGOTE_EXECUTION_IDS: u32 = 128;
static SLOT_USED: Mutex<Vec<bool>> = Mutex::new(Vec::new());

/// Host uids/gids for one execution or zygote (`count` consecutive ids from `uid`/`gid`), released when
/// dropped (after its processes are reaped).
///
/// As root, every execution runs as its own unprivileged host uid, so the kernel's per-user counts
/// (RLIMIT_NPROC, descriptors in flight, pipe buffers) bound each sandbox separately and host files owned
/// by real users stay out of reach. An unprivileged caller can only map its own ids; then all executions
/// share them (see [`crate::limits::nproc_limit`]).
pub struct HostIds {
    pub uid: u32,
    pub gid: u32,
    pub count: u32,
    slots: Option<(usize, usize)>,
}

impl HostIds {
    /// One id (a cold execution).
    pub fn acquire() -> Self {
        Self::acquire_range(1)
    }

    /// `count` consecutive ids as root (a zygote: its own, then its executions'); the caller's single
    /// id otherwise.
    pub fn acquire_range(count: usize) -> Self {
        let (uid, gid) = (geteuid().as_raw(), getegid().as_raw());
        if uid != 0 {
            return Self { uid, gid, count: 1, slots: None };
        }
        let count = count.clamp(1, SLOTS);
        let mut used = SLOT_USED.lock().unwrap_or_else(|p| p.into_inner());
        if used.is_empty() {
            used.resize(SLOTS, false);
        }
        let (first, count) = match used.windows(count).position(|w| w.iter().all(|u| !u)) {
            Some(first) => (first, count),
            None => (SLOTS - 1, 1),
        };
        used[first..first + count].iter_mut().for_each(|u| *u = true);
        let id = SLOT_ID_BASE + first as u32;
        Self { uid: id, gid: id, count: count as u32, slots: Some((first, count)) }
    }

    /// Whether these are the caller's own ids, shared by all its executions.
    pub fn shared(&self) -> bool {
        self.slots.is_none()
    }
}

impl Drop for HostIds {
    fn drop(&mut self) {
        if let Some((first, count)) = self.slots {
            SLOT_USED.lock().unwrap_or_else(|p| p.into_inner())[first..first + count]
                .iter_mut()
                .for_each(|u| *u = false);
        }
    }
}

/// Map `inner` and the ids after it (the ids the child may take on inside its user namespace) to `ids`
/// for the child `pid`.
pub fn write_id_maps(pid: libc::pid_t, ids: &HostIds, inner: libc::uid_t) -> Result<(), SandboxError> {
    // As root we may keep setgroups allowed, so the child can drop host root's supplementary groups.
    if !geteuid().is_root() {
        write_proc(pid, "setgroups", "deny")?;
    }
    write_proc(pid, "uid_map", &format!("{inner} {} {}\n", ids.uid, ids.count))?;
    write_proc(pid, "gid_map", &format!("{inner} {} {}\n", ids.gid, ids.count))
}

fn write_proc(pid: libc::pid_t, file: &str, text: &str) -> Result<(), SandboxError> {
    std::fs::write(format!("/proc/{pid}/{file}"), text)
        .map_err(|e| SandboxError::Setup(format!("writing /proc/<child>/{file}: {e}")))
}

/// The ids (inside the zygote's user namespace) a zygote's executions take on: the rest of its range, one
/// per live execution, handed out in turn and free again once the execution is reaped.
pub struct ExecutionIds {
    first: u32,
    used: Vec<bool>,
    next: usize,
}

impl ExecutionIds {
    /// `count` ids from `first`; `None` if there are none.
    pub fn new(first: u32, count: u32) -> Option<Self> {
        (count > 0).then(|| Self { first, used: vec![false; count as usize], next: 0 })
    }

    /// The ids after `own` in a `uid_map` (`inside outside count` lines) that names `own`; `None` if
    /// `own` is its only id.
    pub fn after(own: u32, uid_map: &str) -> Option<Self> {
        let count = uid_map.lines().find_map(|line| {
            let mut f = line.split_whitespace().map(|x| x.parse::<u32>().ok());
            match (f.next()??, f.next()??, f.next()??) {
                (inside, _, count) if inside == own => Some(count),
                _ => None,
            }
        })?;
        Self::new(own.checked_add(1)?, count.saturating_sub(1))
    }

    /// A free id, or (all taken) `None`: then the execution shares the zygote's.
    pub fn take(&mut self) -> Option<u32> {
        let n = self.used.len();
        let i = (0..n).map(|k| (self.next + k) % n).find(|&i| !self.used[i])?;
        self.used[i] = true;
        self.next = (i + 1) % n;
        Some(self.first + i as u32)
    }

    pub fn release(&mut self, id: u32) {
        if let Some(u) = id.checked_sub(self.first).and_then(|i| self.used.get_mut(i as usize)) {
            *u = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_ids_are_handed_out_in_turn() {
        let mut ids = ExecutionIds::after(1000, "      1000  1610612736        4\n").unwrap();
        let a = ids.take().unwrap();
        assert_eq!(a, 1001);
        ids.release(a);
        // A freed id comes back only after the others have had their turn.
        assert_eq!((ids.take(), ids.take(), ids.take()), (Some(1002), Some(1003), Some(1001)));
        assert_eq!(ids.take(), None);
        ids.release(1003);
        ids.release(7); // not ours: ignored
        assert_eq!((ids.take(), ids.take()), (Some(1003), None));
    }

    #[test]
    fn a_single_id_has_no_execution_ids() {
        assert!(ExecutionIds::after(1000, "1000 1000 1\n").is_none());
        assert!(ExecutionIds::after(1000, "0 0 4294967295\n").is_none());
        assert!(ExecutionIds::after(1000, "garbage\n").is_none());
    }
}
