//! What isolation this host allows, checked by trying it (for fail-closed refusal and `doctor`).

use std::time::Duration;

use crate::cpu_share::Start;
use crate::{run, ExecRequest, SandboxConfig};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// A trial execution in all namespaces, with mounts, rlimits and seccomp, succeeded.
    pub full_isolation: bool,
    /// Why not, when it did not.
    pub error: Option<String>,
    pub seccomp: bool,
    pub landlock_abi: Option<u32>,
    /// Per-execution memory/pids cgroups, or why not.
    pub cgroups: String,
    /// How an execution's process tree gets one CPU share ([`crate::cpu_share`]): cold starts, warm starts.
    pub cpu_share: String,
    pub cpu_share_warm: String,
    /// How `memory_mb` is accounted: per process (RLIMIT_AS) or per execution (its cgroup).
    pub memory: String,
    /// What becomes of `memfd_create`.
    pub memfd: String,
    /// The socket families a program may create.
    pub socket_families: Vec<&'static str>,
}

/// How `memory_mb` is accounted with cgroup `support` (see the crate's docs).
pub fn memory_accounting(support: &crate::cgroup::Support) -> String {
    const OOM: &str = "sandboxed processes have oom_score_adj 1000, so the OOM killer picks them before the trainer";
    match support {
        crate::cgroup::Support::Unavailable(_) => format!(
            "per process: RLIMIT_AS of memory_mb on each process, not their sum (an execution may hold up to \
             memory_mb x max_processes); {OOM}"
        ),
        _ => format!(
            "per execution (cold starts): cgroup memory.max of memory_mb on the sum of the tree, and RLIMIT_AS of \
             memory_mb per process; {OOM}"
        ),
    }
}

/// Probe by running `/bin/true`-like program `argv` (absolute path) in a full sandbox.
pub fn probe(argv: Vec<String>, read_only_paths: Vec<std::path::PathBuf>) -> Capabilities {
    let seccomp = crate::seccomp::filters().is_ok();
    let cfg = SandboxConfig {
        timeout: Duration::from_secs(10),
        read_only_paths: SandboxConfig::default().read_only_paths.into_iter().chain(read_only_paths).collect(),
        ..SandboxConfig::default()
    };
    let req = ExecRequest { argv, env: vec![], stdin: vec![], payload: vec![], channel_limit: None };
    let (full_isolation, error) = match run(&req, &cfg) {
        Ok(r) if r.exit_code == Some(0) => (true, None),
        Ok(r) => {
            (false, Some(format!("trial program ended with {:?}: {}", r.status, String::from_utf8_lossy(&r.stderr))))
        }
        Err(e) => (false, Some(e.to_string())),
    };
    Capabilities {
        full_isolation,
        error,
        seccomp,
        landlock_abi: crate::landlock::abi(),
        cgroups: match crate::cgroup::support() {
            s @ crate::cgroup::Support::Unavailable(_) => s.describe(),
            s => format!("{} (cold starts only; warm starts get no cgroup)", s.describe()),
        },
        memory: memory_accounting(crate::cgroup::support()),
        cpu_share: crate::cpu_share::cpu_share(Start::Cold).describe(),
        cpu_share_warm: crate::cpu_share::cpu_share(Start::Warm).describe(),
        memfd: if seccomp { "denied (seccomp, EPERM): file-backed memory goes to the capped /tmp" } else { "allowed" }
            .into(),
        socket_families: if seccomp { crate::seccomp::socket_families().collect() } else { vec!["all"] },
    }
}

#[cfg(test)]
mod tests {
    use crate::cgroup::Support;

    #[test]
    fn memory_accounting_names_the_bound_in_force() {
        let off = super::memory_accounting(&Support::Unavailable("off".into()));
        assert!(off.starts_with("per process: RLIMIT_AS") && off.contains("memory_mb x max_processes"), "{off}");
        let on = super::memory_accounting(&Support::V2 { dir: "/sys/fs/cgroup/x".into(), cpu: false });
        assert!(on.starts_with("per execution (cold starts): cgroup"), "{on}");
        assert!(off.contains("oom_score_adj 1000") && on.contains("oom_score_adj 1000"));
    }
}
