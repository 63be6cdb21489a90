//! Per-execution cgroups (memory and pids limits, and a CPU share) where the host lets us create them.
//!
//! RLIMIT_AS bounds one process's address space, RLIMIT_NPROC the number of processes; neither bounds
//! the *sum* of memory of a process tree. A cgroup does. We look for the memory and pids controllers of
//! the calling process's own cgroup (v2 with both enabled for children, or v1 hierarchies), create one
//! group per execution below it, and remove it once the execution's processes are gone. Where the cpu
//! controller is there too, the group also gives the execution's tree one CPU share (the default weight:
//! every execution the same). Without them, executions run on rlimits only (and an autogroup for CPU,
//! see [`crate::cpu_share`]), which `probe` and `verl-ext doctor` report.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// cgroup v2: one directory with `memory.max`, `pids.max`, `memory.events` (and `cpu.weight` if `cpu`).
    V2 { dir: PathBuf, cpu: bool },
    /// cgroup v1: the memory and pids hierarchies of this process, and its cpu hierarchy if writable.
    V1 { memory: PathBuf, pids: PathBuf, cpu: Option<PathBuf> },
    /// Why not.
    Unavailable(String),
}

impl Support {
    /// Whether each execution's group has a CPU share of its own.
    pub fn cpu(&self) -> bool {
        match self {
            Support::V2 { cpu, .. } => *cpu,
            Support::V1 { cpu, .. } => cpu.is_some(),
            Support::Unavailable(_) => false,
        }
    }
}

impl Support {
    pub fn describe(&self) -> String {
        match self {
            Support::V2 { dir, cpu } => {
                format!("cgroup v2 memory+pids{} under {}", if *cpu { "+cpu" } else { "" }, dir.display())
            }
            Support::V1 { memory, pids, cpu } => format!(
                "cgroup v1 memory under {}, pids under {}{}",
                memory.display(),
                pids.display(),
                cpu.as_ref().map_or(String::new(), |c| format!(", cpu under {}", c.display()))
            ),
            // Not asked for is not "unavailable": say it is off and how to turn it on.
            Support::Unavailable(why) if why.starts_with(OFF) => format!("{why}; rlimits only"),
            Support::Unavailable(why) => format!("unavailable ({why}); rlimits only"),
        }
    }
}

/// (mount point, fstype, super options) of every cgroup mount.
pub(crate) fn cgroup_mounts() -> Vec<(PathBuf, String, String)> {
    let Ok(info) = fs::read_to_string("/proc/self/mountinfo") else { return vec![] };
    info.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let mount_point = left.split_whitespace().nth(4)?;
            let mut r = right.split_whitespace();
            let fstype = r.next()?;
            let super_opts = r.nth(1).unwrap_or("");
            fstype.starts_with("cgroup").then(|| (PathBuf::from(mount_point), fstype.to_owned(), super_opts.to_owned()))
        })
        .collect()
}

/// This process's path in the hierarchy holding `controller` ("" for v2).
pub(crate) fn own_path(controller: &str) -> Option<String> {
    own_path_in(&fs::read_to_string("/proc/self/cgroup").ok()?, controller)
}

/// The path in the hierarchy holding `controller` ("" for v2) in `text`, a `/proc/<pid>/cgroup`.
pub(crate) fn own_path_in(text: &str, controller: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let hit = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        hit.then(|| path.to_owned())
    })
}

fn joined(mount: &Path, path: &str) -> PathBuf {
    mount.join(path.trim_start_matches('/'))
}

/// Can we create (and remove) a child group here?
fn writable(dir: &Path) -> Result<(), String> {
    let probe = dir.join(format!("verl-ext-probe-{}", std::process::id()));
    fs::create_dir(&probe).map_err(|e| format!("cannot create a group in {}: {e}", dir.display()))?;
    let _ = fs::remove_dir(&probe);
    Ok(())
}

/// How [`Support::Unavailable`] starts when cgroups were not asked for.
const OFF: &str = "off";

fn detect() -> Support {
    // Opt-in for now: with them on, executions were seen to stall until their deadline while the calling
    // process had live forked multiprocessing servers (prime_code's managers); under investigation.
    if std::env::var("VERL_EXT_SANDBOX_CGROUPS").as_deref() != Ok("1") {
        return Support::Unavailable(format!("{OFF} (opt in with VERL_EXT_SANDBOX_CGROUPS=1, experimental)"));
    }
    let mounts = cgroup_mounts();
    if let Some((mount, _, _)) = mounts.iter().find(|(_, t, _)| t == "cgroup2") {
        if let Some(path) = own_path("") {
            let dir = joined(mount, &path);
            let enabled = fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
            let words: Vec<&str> = enabled.split_whitespace().collect();
            if words.contains(&"memory") && words.contains(&"pids") && writable(&dir).is_ok() {
                return Support::V2 { cpu: words.contains(&"cpu"), dir };
            }
        }
    }
    let v1 = |controller: &str| -> Result<PathBuf, String> {
        let (mount, _, _) = mounts
            .iter()
            .find(|(_, t, opts)| t == "cgroup" && opts.split(',').any(|o| o == controller))
            .ok_or_else(|| format!("no {controller} controller mounted"))?;
        let path = own_path(controller).ok_or_else(|| format!("not in a {controller} cgroup"))?;
        let dir = joined(mount, &path);
        writable(&dir)?;
        Ok(dir)
    };
    match (v1("memory"), v1("pids")) {
        (Ok(memory), Ok(pids)) => Support::V1 { memory, pids, cpu: v1("cpu").ok() },
        (Err(e), _) | (_, Err(e)) => Support::Unavailable(if mounts.iter().any(|(_, t, _)| t == "cgroup2") {
            format!("cgroup v2 without memory+pids delegated to this process's group; v1: {e}")
        } else {
            e
        }),
    }
}

/// What this host supports (detected once per process).
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(detect)
}

/// One execution's group(s); removed on drop (once its processes are gone).
pub struct Group {
    dirs: Vec<PathBuf>,
    oom_file: PathBuf,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl Group {
    /// Create a group limited to `memory_bytes` and `pids` processes; None where unsupported.
    pub fn create(memory_bytes: u64, pids: u64) -> Result<Option<Self>, String> {
        let name = format!("verl-ext-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let write = |path: PathBuf, value: String| {
            fs::write(&path, &value).map_err(|e| format!("writing {} to {}: {e}", value.trim(), path.display()))
        };
        let group = match support() {
            Support::Unavailable(_) => return Ok(None),
            Support::V2 { dir: base, .. } => {
                let dir = base.join(&name);
                fs::create_dir(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
                let g = Group { dirs: vec![dir.clone()], oom_file: dir.join("memory.events") };
                write(dir.join("memory.max"), memory_bytes.to_string())?;
                let _ = write(dir.join("memory.swap.max"), "0".into());
                write(dir.join("pids.max"), pids.to_string())?;
                g
            }
            Support::V1 { memory, pids: pids_root, cpu } => {
                let (mdir, pdir) = (memory.join(&name), pids_root.join(&name));
                fs::create_dir(&mdir).map_err(|e| format!("creating {}: {e}", mdir.display()))?;
                let mut g = Group { dirs: vec![mdir.clone()], oom_file: mdir.join("memory.oom_control") };
                fs::create_dir(&pdir).map_err(|e| format!("creating {}: {e}", pdir.display()))?;
                g.dirs.push(pdir.clone());
                write(mdir.join("memory.limit_in_bytes"), memory_bytes.to_string())?;
                write(pdir.join("pids.max"), pids.to_string())?;
                if let Some(cpu) = cpu {
                    // The default cpu.shares: every execution's group weighs the same.
                    let cdir = cpu.join(&name);
                    fs::create_dir(&cdir).map_err(|e| format!("creating {}: {e}", cdir.display()))?;
                    g.dirs.push(cdir);
                }
                g
            }
        };
        Ok(Some(group))
    }

    /// Move `pid` (not yet running user code) into the group; its descendants follow.
    pub fn attach(&self, pid: libc::pid_t) -> Result<(), String> {
        for dir in &self.dirs {
            let procs = dir.join("cgroup.procs");
            fs::write(&procs, pid.to_string()).map_err(|e| format!("writing {}: {e}", procs.display()))?;
        }
        Ok(())
    }

    /// Whether the kernel's OOM killer killed a process of this group.
    pub fn oom_killed(&self) -> bool {
        fs::read_to_string(&self.oom_file)
            .ok()
            .and_then(|text| {
                text.lines().find_map(|l| l.strip_prefix("oom_kill ").and_then(|n| n.trim().parse::<u64>().ok()))
            })
            .is_some_and(|n| n > 0)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        for dir in &self.dirs {
            // The last processes may still be exiting: retry briefly.
            for _ in 0..50 {
                if fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_not_called_unavailable() {
        let off = Support::Unavailable(format!("{OFF} (opt in with VERL_EXT_SANDBOX_CGROUPS=1, experimental)"));
        assert_eq!(off.describe(), "off (opt in with VERL_EXT_SANDBOX_CGROUPS=1, experimental); rlimits only");
        let missing = Support::Unavailable("no writable cgroup".into());
        assert_eq!(missing.describe(), "unavailable (no writable cgroup); rlimits only");
    }
}
