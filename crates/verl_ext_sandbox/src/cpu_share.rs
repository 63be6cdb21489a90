//! How one execution's process tree gets one fair CPU share, not one per process.
//!
//! Verdicts depend on wall time, so a program that forks 31 busy processes must not slow the correct
//! solution running next to it. The scheduler shares CPU fairly between *groups*:
//!
//! - **cgroup**: where per-execution cgroups are in use with the cpu controller ([`crate::cgroup`]),
//!   each execution's group has the default weight, the same for all. Cold starts only: a warm start
//!   (forked by a zygote) gets no cgroup, so it falls back to the next mechanism.
//! - **autogroup**: otherwise every execution starts in a session of its own (the child set-up's
//!   `setsid`, cold and warm alike) and seccomp refuses `setsid` to the program, so with
//!   `CONFIG_SCHED_AUTOGROUP` on (`kernel.sched_autogroup_enabled=1`) the whole tree is one autogroup
//!   with one share. Autogroups apply only to tasks in the root cpu cgroup: in a non-root one (a
//!   container with the cpu controller, or a systemd slice where the controller is enabled at the root)
//!   that group is shared by all executions. On cgroup v2 the task's cpu group is the nearest ancestor
//!   with the controller enabled, so every ancestor up to the (visible) root counts.
//! - **none**: processes compete one by one; a tree of `max_processes` busy processes takes that many
//!   shares. Lower `max_processes`, or enable autogroups or delegate the cpu controller.

use std::fs;
use std::path::Path;

use crate::cgroup;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuShare {
    Cgroup,
    Autogroup,
    /// Why neither applies.
    None(String),
}

/// How an execution was started: cgroups are created for cold starts only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    Cold,
    Warm,
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

/// The mechanism in force for executions started as `start` on this host (detected once per process).
pub fn cpu_share(start: Start) -> &'static CpuShare {
    static AUTOGROUP: std::sync::OnceLock<CpuShare> = std::sync::OnceLock::new();
    static COLD: std::sync::OnceLock<CpuShare> = std::sync::OnceLock::new();
    let autogroup = || AUTOGROUP.get_or_init(|| autogroup_or_none(&HostView::read()));
    match start {
        Start::Warm => autogroup(),
        Start::Cold if cgroup::support().cpu() => COLD.get_or_init(|| CpuShare::Cgroup),
        Start::Cold => autogroup(),
    }
}

/// What the detection reads from the host (fabricated in tests).
struct HostView<'a> {
    /// `/proc/sys/kernel/sched_autogroup_enabled` (`None`: no such file, no CONFIG_SCHED_AUTOGROUP).
    autogroup_enabled: Option<String>,
    /// `/proc/self/cgroup`.
    proc_cgroup: String,
    /// Where the cgroup v2 hierarchy is mounted, if it is.
    v2_mount: Option<std::borrow::Cow<'a, Path>>,
}

impl HostView<'static> {
    fn read() -> Self {
        HostView {
            autogroup_enabled: fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled").ok(),
            proc_cgroup: fs::read_to_string("/proc/self/cgroup").unwrap_or_default(),
            v2_mount: cgroup::cgroup_mounts()
                .into_iter()
                .find(|(_, fstype, _)| fstype == "cgroup2")
                .map(|(mount, _, _)| mount.into()),
        }
    }
}

fn autogroup_or_none(host: &HostView<'_>) -> CpuShare {
    match host.autogroup_enabled.as_deref().map(str::trim) {
        None => return CpuShare::None("the kernel has no autogroups (CONFIG_SCHED_AUTOGROUP)".into()),
        Some(v) if v != "1" => return CpuShare::None("kernel.sched_autogroup_enabled=0".into()),
        Some(_) => {}
    }
    match cpu_cgroup_is_root(host) {
        Ok(()) => CpuShare::Autogroup,
        Err(why) => CpuShare::None(why),
    }
}

/// Autogroups apply only to tasks in the root task group: is this process's cpu cgroup the root?
fn cpu_cgroup_is_root(host: &HostView<'_>) -> Result<(), String> {
    if let Some(path) = cgroup::own_path_in(&host.proc_cgroup, "cpu") {
        // cgroup v1 with a cpu hierarchy (alone or as "cpu,cpuacct").
        return if path == "/" {
            Ok(())
        } else {
            Err(format!("this process is in the v1 cpu cgroup {path}, where autogroups do not apply"))
        };
    }
    // cgroup v2 (or no cpu controller at all). The task's cpu group is the nearest ancestor with the
    // controller enabled: a non-root group with it enabled lists it in `cgroup.controllers` and has
    // `cpu.weight`. The visible root may be a namespace's (a container's) non-root group: only `cpu.weight`
    // tells, as the real root has none.
    let (Some(mount), Some(path)) = (host.v2_mount.as_deref(), cgroup::own_path_in(&host.proc_cgroup, "")) else {
        return Ok(());
    };
    let own = mount.join(path.trim_start_matches('/'));
    for dir in own.ancestors().take_while(|d| d.starts_with(mount)) {
        let enabled = dir != mount
            && fs::read_to_string(dir.join("cgroup.controllers"))
                .is_ok_and(|c| c.split_whitespace().any(|w| w == "cpu"));
        if enabled || dir.join("cpu.weight").exists() {
            let group = Path::new("/").join(dir.strip_prefix(mount).unwrap_or(dir));
            return Err(format!(
                "this process's cpu cgroup is {} (cgroup v2), where autogroups do not apply",
                group.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fabricated cgroup v2 tree: `dirs` (relative paths) with the given files.
    fn tree(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("verl-ext-cpu-share-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for (file, content) in files {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        fs::create_dir_all(&root).unwrap();
        root
    }

    fn share(enabled: Option<&str>, proc_cgroup: &str, v2: Option<&Path>) -> CpuShare {
        autogroup_or_none(&HostView {
            autogroup_enabled: enabled.map(str::to_owned),
            proc_cgroup: proc_cgroup.into(),
            v2_mount: v2.map(Into::into),
        })
    }

    #[test]
    fn kernel_switches() {
        assert!(matches!(share(None, "0::/\n", None), CpuShare::None(w) if w.contains("CONFIG_SCHED_AUTOGROUP")));
        assert!(matches!(share(Some("0\n"), "0::/\n", None), CpuShare::None(w) if w.contains("enabled=0")));
        assert_eq!(share(Some("1\n"), "0::/\n", None), CpuShare::Autogroup);
    }

    #[test]
    fn cgroup_v1_cpu_hierarchies() {
        let root = "9:name=systemd:/\n4:memory:/x\n2:cpuacct:/\n1:cpu:/\n0::/\n";
        assert_eq!(share(Some("1"), root, None), CpuShare::Autogroup);
        for nested in ["3:cpu,cpuacct:/docker/abc\n0::/\n", "1:cpu:/user.slice\n2:cpuacct:/\n"] {
            assert!(
                matches!(share(Some("1"), nested, None), CpuShare::None(w) if w.contains("v1 cpu cgroup")),
                "{nested}"
            );
        }
    }

    #[test]
    fn cgroup_v2_counts_every_ancestor() {
        // systemd: cpu enabled at the root, so user.slice is a cpu group; below it the controller is off.
        let systemd = tree(
            "systemd",
            &[
                ("cgroup.controllers", "cpuset cpu io memory pids\n"),
                ("cgroup.subtree_control", "cpu memory pids\n"),
                ("user.slice/cgroup.controllers", "cpu memory pids\n"),
                ("user.slice/cpu.weight", "100\n"),
                ("user.slice/cgroup.subtree_control", "memory pids\n"),
                ("user.slice/user-1000.slice/session-1.scope/cgroup.controllers", "memory pids\n"),
            ],
        );
        let inside = "0::/user.slice/user-1000.slice/session-1.scope\n";
        let got = share(Some("1"), inside, Some(&systemd));
        assert!(matches!(&got, CpuShare::None(w) if w.contains("/user.slice ")), "{got:?}");
        // The same process directly in the root group: autogroups apply.
        assert_eq!(share(Some("1"), "0::/\n", Some(&systemd)), CpuShare::Autogroup);

        // No cpu controller anywhere below the root.
        let plain = tree(
            "plain",
            &[
                ("cgroup.controllers", "cpu memory pids\n"),
                ("cgroup.subtree_control", "memory pids\n"),
                ("a/cgroup.controllers", "memory pids\n"),
                ("a/b/cgroup.controllers", "memory pids\n"),
            ],
        );
        assert_eq!(share(Some("1"), "0::/a/b\n", Some(&plain)), CpuShare::Autogroup);

        // A container's cgroup namespace: its root is a non-root group of the host, with the controller.
        let container = tree("container", &[("cgroup.controllers", "cpu memory pids\n"), ("cpu.weight", "100\n")]);
        assert!(
            matches!(share(Some("1"), "0::/\n", Some(&container)), CpuShare::None(w) if w.contains("cgroup is / "))
        );
        for dir in [systemd, plain, container] {
            let _ = fs::remove_dir_all(dir);
        }
    }
}
