//! The limits policy: the rlimits of an execution, and how its process limit is counted.

use std::sync::OnceLock;

use crate::ids::HostIds;
use crate::SandboxConfig;

/// RLIMIT_SIGPENDING of an execution (see [`Limits::rlimits`]): ample for signals and a program's timers.
const SIGPENDING: libc::rlim_t = 1024;

/// Limits of one execution (rlimits and the scratch tmpfs size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnLimits {
    pub memory_bytes: u64,
    pub cpu_s: u64,
    pub file_bytes: u64,
    pub open_files: u64,
    pub processes: u64,
    pub scratch_mb: u64,
}

impl SpawnLimits {
    pub const SIZE: usize = 6 * 8;

    /// The limits of `cfg`, with `processes` as RLIMIT_NPROC (how it is counted depends on the start).
    pub fn from_config(cfg: &SandboxConfig, processes: u64) -> Self {
        Self {
            memory_bytes: cfg.memory_mb.saturating_mul(1 << 20),
            cpu_s: cfg.timeout.as_secs().saturating_add(2), // backstop only: the parent enforces the wall clock
            file_bytes: cfg.max_file_mb.saturating_mul(1 << 20),
            open_files: cfg.max_open_files,
            processes,
            scratch_mb: cfg.scratch_mb,
        }
    }

    pub fn to_bytes(self) -> [u8; Self::SIZE] {
        let mut out = [0u8; Self::SIZE];
        let fields = [self.memory_bytes, self.cpu_s, self.file_bytes, self.open_files, self.processes, self.scratch_mb];
        for (chunk, v) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(b: &[u8]) -> Option<Self> {
        if b.len() != Self::SIZE {
            return None;
        }
        let f = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        Some(Self {
            memory_bytes: f(0),
            cpu_s: f(1),
            file_bytes: f(2),
            open_files: f(3),
            processes: f(4),
            scratch_mb: f(5),
        })
    }

    /// The rlimits an execution runs under.
    pub fn rlimits(&self) -> [(libc::__rlimit_resource_t, libc::rlim_t); 11] {
        [
            (libc::RLIMIT_AS, self.memory_bytes),
            (libc::RLIMIT_CPU, self.cpu_s),
            (libc::RLIMIT_FSIZE, self.file_bytes),
            (libc::RLIMIT_NOFILE, self.open_files),
            (libc::RLIMIT_CORE, 0),
            (libc::RLIMIT_NPROC, self.processes),
            (libc::RLIMIT_MEMLOCK, 0),
            (libc::RLIMIT_MSGQUEUE, 0),
            // Queued signals and POSIX timers (each holds a queued signal): counted per user namespace, so a
            // small limit per execution keeps one execution's timers (kernel memory no other limit counts) from
            // using up the count the executions of a zygote share.
            (libc::RLIMIT_SIGPENDING, SIGPENDING),
            // No real-time policy (it would run ahead of every fair share) and no raised priority.
            (libc::RLIMIT_RTPRIO, 0),
            (libc::RLIMIT_NICE, 0),
        ]
    }
}

/// RLIMIT_NPROC for a cold start. With a host uid of its own, exactly `max_processes`; sharing the
/// caller's uid, the count includes every process and thread of that user (the trainer too), so the
/// limit is raised by a fixed allowance and only bounds runaway fork bombs.
pub fn nproc_limit(cfg: &SandboxConfig, ids: &HostIds) -> u64 {
    if ids.shared() {
        nproc_limit_shared(cfg)
    } else {
        cfg.max_processes
    }
}

/// RLIMIT_NPROC when the count includes every process of the caller's user.
pub fn nproc_limit_shared(cfg: &SandboxConfig) -> u64 {
    const SHARED_UID_ALLOWANCE: u64 = 4096;
    cfg.max_processes.saturating_add(SHARED_UID_ALLOWANCE)
}

/// RLIMIT_NPROC of a warm execution. Since Linux 5.14 the count is kept per user namespace, and each
/// execution has its own, so the limit is exact; older kernels count per host uid, which all
/// executions of a zygote share, so there it only bounds runaway fork bombs (as in [`nproc_limit`]).
pub fn nproc_limit_per_userns(cfg: &SandboxConfig) -> u64 {
    static PER_USERNS: OnceLock<bool> = OnceLock::new();
    if *PER_USERNS.get_or_init(|| kernel_at_least(5, 14)) {
        cfg.max_processes
    } else {
        nproc_limit_shared(cfg)
    }
}

fn kernel_at_least(major: u32, minor: u32) -> bool {
    let uname = rustix::system::uname();
    let release = uname.release().to_string_lossy();
    let mut parts = release.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (major, minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_limits_saturate() {
        let cfg = SandboxConfig {
            timeout: std::time::Duration::from_secs(u64::MAX),
            memory_mb: u64::MAX,
            max_processes: u64::MAX,
            max_file_mb: u64::MAX,
            ..SandboxConfig::default()
        };
        let l = SpawnLimits::from_config(&cfg, nproc_limit_shared(&cfg));
        assert_eq!((l.cpu_s, l.memory_bytes, l.processes, l.file_bytes), (u64::MAX, u64::MAX, u64::MAX, u64::MAX));
    }
}
