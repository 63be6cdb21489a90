//! Host uid/gid slots: which host ids an execution's root maps to, and the id maps that say so.

use std::sync::Mutex;

use rustix::process::{getegid, geteuid};

use crate::SandboxError;

/// First host uid/gid of the per-execution ids used when we run as root (an unused high range).
const SLOT_ID_BASE: u32 = 0x6000_0000;
/// Concurrent executions that get their own host uid (more share the last one).
const SLOTS: usize = 4096;
static SLOT_USED: Mutex<Vec<bool>> = Mutex::new(Vec::new());

/// A host uid/gid for one execution, released when dropped (after its processes are reaped).
///
/// As root, every execution runs as its own unprivileged host uid, so RLIMIT_NPROC (counted per host
/// user) bounds each sandbox separately and host files owned by real users stay out of reach. An
/// unprivileged caller can only map its own ids; then all executions share them (see
/// [`crate::limits::nproc_limit`]).
pub struct HostIds {
    pub uid: u32,
    pub gid: u32,
    slot: Option<usize>,
}

impl HostIds {
    pub fn acquire() -> Self {
        let (uid, gid) = (geteuid().as_raw(), getegid().as_raw());
        if uid != 0 {
            return Self { uid, gid, slot: None };
        }
        let mut used = SLOT_USED.lock().unwrap_or_else(|p| p.into_inner());
        if used.is_empty() {
            used.resize(SLOTS, false);
        }
        let slot = used.iter().position(|u| !u).unwrap_or(SLOTS - 1);
        used[slot] = true;
        let id = SLOT_ID_BASE + slot as u32;
        Self { uid: id, gid: id, slot: Some(slot) }
    }

    /// Whether these are the caller's own ids, shared by all its executions.
    pub fn shared(&self) -> bool {
        self.slot.is_none()
    }
}

impl Drop for HostIds {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            SLOT_USED.lock().unwrap_or_else(|p| p.into_inner())[slot] = false;
        }
    }
}

/// Map `inner` (the id the child takes on inside its user namespace) to `ids` for the child `pid`.
pub fn write_id_maps(pid: libc::pid_t, ids: &HostIds, inner: libc::uid_t) -> Result<(), SandboxError> {
    let (uid, gid) = (ids.uid, ids.gid);
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/{pid}/{file}"), text)
            .map_err(|e| SandboxError::Setup(format!("writing /proc/<child>/{file}: {e}")))
    };
    // As root we may keep setgroups allowed, so the child can drop host root's supplementary groups.
    if !geteuid().is_root() {
        write("setgroups", "deny".into())?;
    }
    write("uid_map", format!("{inner} {uid} 1\n"))?;
    write("gid_map", format!("{inner} {gid} 1\n"))
}
