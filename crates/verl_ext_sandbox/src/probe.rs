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
    /// What becomes of `memfd_create`.
    pub memfd: String,
    /// The socket families a program may create.
    pub socket_families: Vec<&'static str>,
}

/// Probe by running `/bin/true`-like program `argv` (absolute path) in a full sandbox.
pub fn probe(argv: Vec<String>, read_only_paths: Vec<std::path::PathBuf>) -> Capabilities {
    let seccomp = crate::seccomp::filters().is_ok();
    let cfg = SandboxConfig {
        timeout: Duration::from_secs(10),
        read_only_paths: SandboxConfig::default().read_only_paths.into_iter().chain(read_only_paths).collect(),
        ..SandboxConfig::default()
    };
    let req = ExecRequest { argv, env: vec![], stdin: vec![], payload: vec![] };
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
        cpu_share: crate::cpu_share::cpu_share(Start::Cold).describe(),
        cpu_share_warm: crate::cpu_share::cpu_share(Start::Warm).describe(),
        memfd: if seccomp { "denied (seccomp, EPERM): file-backed memory goes to the capped /tmp" } else { "allowed" }
            .into(),
        socket_families: if seccomp { crate::seccomp::socket_families().collect() } else { vec!["all"] },
    }
}
