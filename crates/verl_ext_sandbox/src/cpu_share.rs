//! How one execution's process tree gets one fair CPU share, not one per process.
//!
//! Verdicts depend on wall time, so a program that forks 31 busy processes must not slow the correct
//! solution running next to it. The scheduler shares CPU fairly between *groups*:
//!
//! - **cgroup**: where per-execution cgroups are in use with the cpu controller ([`crate::cgroup`]),
//!   each execution's group has the default weight, the same for all.
//! - **autogroup**: otherwise every execution starts in a session of its own (the child set-up's
//!   `setsid`, cold and warm alike) and seccomp refuses `setsid` to the program, so with
//!   `CONFIG_SCHED_AUTOGROUP` on (`kernel.sched_autogroup_enabled=1`) the whole tree is one autogroup
//!   with one share. Autogroups apply only to tasks in the root cpu cgroup: in a non-root one (a
//!   container with the cpu controller) the container's group is shared by all executions.
//! - **none**: processes compete one by one; a tree of `max_processes` busy processes takes that many
//!   shares. Lower `max_processes`, or enable autogroups or delegate the cpu controller.

use std::fs;

use crate::cgroup;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuShare {
    Cgroup,
    Autogroup,
    /// Why neither applies.
    None(String),
}

impl CpuShare {
    pub fn describe(&self) -> String {
        match self {
            CpuShare::Cgroup => "cgroup: one cpu group per execution, equal weights".into(),
            CpuShare::Autogroup => "autogroup: one session (scheduler autogroup) per execution, equal shares".into(),
            CpuShare::None(why) => format!("none ({why}): a process tree takes one share per busy process"),
        }
    }
}

/// The mechanism in force for cold starts with this host's cgroup support (detected once per process).
pub fn cpu_share() -> &'static CpuShare {
    static SHARE: std::sync::OnceLock<CpuShare> = std::sync::OnceLock::new();
    SHARE.get_or_init(|| detect(cgroup::support()))
}

fn detect(cgroups: &cgroup::Support) -> CpuShare {
    if cgroups.cpu() {
        return CpuShare::Cgroup;
    }
    match fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled").map(|s| s.trim().to_owned()) {
        Err(_) => return CpuShare::None("the kernel has no autogroups (CONFIG_SCHED_AUTOGROUP)".into()),
        Ok(v) if v != "1" => return CpuShare::None("kernel.sched_autogroup_enabled=0".into()),
        Ok(_) => {}
    }
    match cpu_cgroup_is_root() {
        Ok(()) => CpuShare::Autogroup,
        Err(why) => CpuShare::None(why),
    }
}

/// Autogroups apply only to tasks in the root task group: is this process's cpu cgroup the root?
fn cpu_cgroup_is_root() -> Result<(), String> {
    let text = fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("reading /proc/self/cgroup: {e}"))?;
    let entries: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            Some((controllers, path))
        })
        .collect();
    if let Some((_, path)) = entries.iter().find(|(c, _)| c.split(',').any(|c| c == "cpu")) {
        // cgroup v1 with a cpu hierarchy.
        return if *path == "/" {
            Ok(())
        } else {
            Err(format!("this process is in the v1 cpu cgroup {path}, where autogroups do not apply"))
        };
    }
    // cgroup v2 (or no cpu controller at all): a group with the cpu controller enabled has `cpu.weight`;
    // the root group has none, nor has a group the controller is not enabled for.
    match entries.iter().find(|(c, _)| c.is_empty()) {
        Some((_, path)) => {
            let mounts = cgroup::cgroup_mounts();
            let Some((mount, _, _)) = mounts.iter().find(|(_, fstype, _)| fstype == "cgroup2") else { return Ok(()) };
            if mount.join(path.trim_start_matches('/')).join("cpu.weight").exists() {
                Err(format!("this process's cgroup {path} has the cpu controller, where autogroups do not apply"))
            } else {
                Ok(())
            }
        }
        None => Ok(()),
    }
}
