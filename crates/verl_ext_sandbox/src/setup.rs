//! The sandboxed child's set-up: one ordered list of named steps ([`STEPS`]) that [`apply`] runs on a
//! [`Plan`], the same for cold starts (a child of the trainer that ends in `execve`) and warm starts (a
//! child of a zygote that returns to its interpreter). What differs is in the plan ([`crate::plan`]):
//! who writes the id maps, whether a new root is built (cold) or the zygote's is kept (warm), Landlock,
//! the rlimits and filters, and whether the last step execs.
//!
//! A cold start's parent may be multi-threaded (Python, Rayon), so the child only makes raw system calls
//! on memory prepared by the parent: no allocation, no locks, nothing that could be held by a thread that
//! does not exist in the child. Every failure reports the failing step's code (its [`Step`]) and errno on
//! the plan's report pipe (closed on exec or at the end) and ends the child.

use std::ffi::CString;
use std::ptr;

use crate::child::{encode_failure, FIRST_FREE_FD, OOM_SCORE_ADJ, REPORT_FD};
use crate::plan::{Ids, NewRoot, Plan};

/// The set-up steps, in the order `apply` runs them; `step as u8` is what a failing child reports.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Cold: wait until the parent has written the id maps (and die with the parent).
    WaitForIdMaps,
    /// Warm: write our own id maps (root inside is the id the zygote cloned us as).
    MapIds,
    /// `oom_score_adj` 1000, inherited by every process the execution forks: under host memory pressure
    /// the kernel's OOM killer picks sandboxed processes before the trainer (without a memory cgroup,
    /// `memory_mb` bounds each process, not their sum). The program cannot lower it: an unprivileged
    /// process may lower it only down to the last value a CAP_SYS_RESOURCE process set, and in any
    /// case the execution's `/proc` is mounted read-only ([`Plan::read_only_proc`]) and Landlock allows
    /// writes only below `/tmp`.
    RaiseOomScore,
    /// A session of its own: the scheduler's autogroup gives the whole tree one CPU share.
    NewSession,
    /// At most nice 0: a new process inherits the nice value of the thread that cloned it, and the trainer's
    /// watcher threads run at a raised priority (`limiter`); the program must not (RLIMIT_NICE then keeps it
    /// there). A lower priority (a trainer under `nice`, Ray's workers) stays: raising it needs CAP_SYS_NICE.
    ResetPriority,
    /// The pipes on descriptors 0-4, the report pipe on 5.
    PlacePipes,
    /// Keep 0-5; close everything else (the trainer's descriptors, other executions' pipes), so that
    /// from here on the child's own descriptors are numbered from [`FIRST_FREE_FD`] up.
    CloseInheritedFds,
    /// Cold: open the bind sources (on their planned descriptors) while we still have the caller's ids.
    OpenBindSources,
    /// Cold: take on the id root inside maps to.
    BecomeMappedUser,
    MakeMountsPrivate,
    /// Cold: a tmpfs as the new root, at the stage.
    MountRoot,
    /// Cold: directories and links of the new root.
    CreateDirectories,
    /// Cold: empty files to bind device nodes onto.
    CreateDeviceMountPoints,
    /// Cold: the read-only paths and devices.
    BindReadOnlyPaths,
    /// The size-capped tmpfs at /tmp.
    MountScratch,
    /// Cold: the stage becomes `/`.
    PivotRoot,
    /// A fresh `/proc` (cold: while the old root still shows one, as the kernel requires). A program's is
    /// read-only and holds only process directories (`subset=pid`): `loadavg`, `stat`, `meminfo`, `vmstat`,
    /// `pressure/`, `uptime`, `interrupts` and the like follow what neighbours do (their threads, pages,
    /// forks), a channel between executions no program needs.
    MountProc,
    /// A program's `/proc/sys` hidden under an empty read-only tmpfs where [`Step::MountProc`] could not
    /// leave it out (kernels before 5.8): its files are host-wide counters (`fs/file-nr`, `fs/inode-nr`,
    /// `fs/dentry-state` follow every neighbour's open files exactly), a channel between executions that no
    /// program needs.
    MaskProcSys,
    /// Cold: the old root goes.
    DetachOldRoot,
    /// Cold: the new root turns read-only.
    RemountRootReadOnly,
    /// The working directory is /tmp.
    EnterScratch,
    /// Landlock after the last mount (a Landlock domain may not change mounts).
    ApplyLandlock,
    SetHostname,
    SetResourceLimits,
    DropCapabilities,
    InstallSeccomp,
    /// Cold: `execve`; warm: close the report pipe and return to the interpreter.
    Run,
}

/// Every step, in order (each step's code is its index here).
pub const STEPS: [Step; 27] = [
    Step::WaitForIdMaps,
    Step::MapIds,
    Step::RaiseOomScore,
    Step::NewSession,
    Step::ResetPriority,
    Step::PlacePipes,
    Step::CloseInheritedFds,
    Step::OpenBindSources,
    Step::BecomeMappedUser,
    Step::MakeMountsPrivate,
    Step::MountRoot,
    Step::CreateDirectories,
    Step::CreateDeviceMountPoints,
    Step::BindReadOnlyPaths,
    Step::MountScratch,
    Step::PivotRoot,
    Step::MountProc,
    Step::MaskProcSys,
    Step::DetachOldRoot,
    Step::RemountRootReadOnly,
    Step::EnterScratch,
    Step::ApplyLandlock,
    Step::SetHostname,
    Step::SetResourceLimits,
    Step::DropCapabilities,
    Step::InstallSeccomp,
    Step::Run,
];

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::WaitForIdMaps => "wait for the uid/gid maps",
            Step::MapIds => "map the user and group ids",
            Step::RaiseOomScore => "raise oom_score_adj",
            Step::NewSession => "start a new session",
            Step::ResetPriority => "reset the scheduling priority",
            Step::PlacePipes => "move pipes into place",
            Step::CloseInheritedFds => "close inherited descriptors",
            Step::OpenBindSources => "open bind sources",
            Step::BecomeMappedUser => "become the mapped user",
            Step::MakeMountsPrivate => "make mounts private",
            Step::MountRoot => "mount the new root",
            Step::CreateDirectories => "create directories",
            Step::CreateDeviceMountPoints => "create device mount points",
            Step::BindReadOnlyPaths => "bind-mount read-only paths",
            Step::MountScratch => "mount the scratch tmpfs",
            Step::PivotRoot => "pivot_root",
            Step::MountProc => "mount /proc",
            Step::MaskProcSys => "hide /proc/sys",
            Step::DetachOldRoot => "detach the old root",
            Step::RemountRootReadOnly => "remount the root read-only",
            Step::EnterScratch => "enter the scratch directory",
            Step::ApplyLandlock => "apply Landlock",
            Step::SetHostname => "set the hostname",
            Step::SetResourceLimits => "set resource limits",
            Step::DropCapabilities => "drop capabilities",
            Step::InstallSeccomp => "install seccomp filters",
            Step::Run => "execve",
        }
    }

    /// "step: error" for a failure a child reported as `(code, errno)`.
    pub fn describe_failure(code: i32, errno: i32) -> String {
        let name = usize::try_from(code).ok().and_then(|i| STEPS.get(i)).map_or("unknown step", |s| s.name());
        format!("{name}: {}", std::io::Error::from_raw_os_error(errno))
    }

    /// Whether `plan` has this step to do.
    fn applies(self, plan: &Plan<'_>) -> bool {
        let cold = matches!(plan.ids, Ids::FromParent { .. });
        match self {
            Step::WaitForIdMaps | Step::BecomeMappedUser => cold,
            Step::MapIds => !cold,
            Step::OpenBindSources
            | Step::MountRoot
            | Step::CreateDirectories
            | Step::CreateDeviceMountPoints
            | Step::BindReadOnlyPaths
            | Step::PivotRoot
            | Step::DetachOldRoot
            | Step::RemountRootReadOnly => plan.new_root.is_some(),
            Step::ApplyLandlock => plan.landlock,
            Step::MaskProcSys => plan.read_only_proc,
            _ => true,
        }
    }
}

// prctl options and securebits (linux/prctl.h, linux/securebits.h); not all are in the libc crate.
const PR_CAPBSET_DROP: libc::c_int = 24;
const PR_SET_SECUREBITS: libc::c_int = 28;
const PR_CAP_AMBIENT: libc::c_int = 47;
const PR_CAP_AMBIENT_RAISE: libc::c_ulong = 2;
const PR_CAP_AMBIENT_CLEAR_ALL: libc::c_ulong = 4;
/// NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE, each with its lock bit (not KEEP_CAPS).
const SECUREBITS_LOCKED_DOWN: libc::c_ulong = 0b1110_1111;
const LAST_CAP: libc::c_ulong = 63;
const CAP_SETPCAP: u32 = 8;

/// Report `(step, errno)` on `report` and end the child.
unsafe fn fail(report: libc::c_int, step: Step) -> ! {
    // SAFETY: raw calls on our own report pipe, then _exit; the caller is a set-up child.
    unsafe {
        let msg = encode_failure(step as u8, *libc::__errno_location());
        libc::write(report, msg.as_ptr().cast(), msg.len());
        libc::_exit(127);
    }
}

/// A negative result of a raw call is a failure (errno says why).
type Done = Result<(), ()>;

fn ok(result: impl Into<i64>) -> Done {
    if result.into() < 0 {
        Err(())
    } else {
        Ok(())
    }
}

/// Run `plan`'s steps in order. Cold starts end in `execve` (or a reported failure); warm starts
/// return, set up, with the report pipe closed.
///
/// # Safety
/// Only in a freshly cloned child, with `plan` fully built before the clone.
pub unsafe fn apply(plan: &Plan<'_>) {
    // SAFETY: the caller guarantees a freshly cloned child and a complete plan.
    unsafe {
        let mut report = plan.report;
        for step in STEPS {
            if step.applies(plan) && run(step, plan, &mut report).is_err() {
                fail(report, step);
            }
        }
    }
}

unsafe fn run(step: Step, plan: &Plan<'_>, report: &mut libc::c_int) -> Done {
    // SAFETY: raw system calls of the set-up child on memory its plan prepared before the clone (see `apply`).
    unsafe {
        match step {
            Step::WaitForIdMaps => {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
                let Ids::FromParent { sync, .. } = plan.ids else { return Ok(()) };
                let mut byte = 0u8;
                if libc::read(sync, (&mut byte as *mut u8).cast(), 1) == 1 {
                    Ok(())
                } else {
                    Err(())
                }
            }
            Step::MapIds => {
                // Root inside maps to the id the zygote cloned us as: one id, our own.
                let Ids::Own { map } = &plan.ids else { return Ok(()) };
                // The zygote's change of ids left the process non-dumpable, and the `/proc` files of a
                // non-dumpable process belong to root: we could not open our own maps.
                ok(libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0))?;
                ok(write_file(c"/proc/self/setgroups", b"deny"))?;
                ok(write_file(c"/proc/self/uid_map", map.as_bytes()))?;
                ok(write_file(c"/proc/self/gid_map", map.as_bytes()))
            }
            Step::RaiseOomScore => ok(write_file(c"/proc/self/oom_score_adj", OOM_SCORE_ADJ)),
            Step::NewSession => ok(libc::syscall(libc::SYS_setsid)),
            Step::ResetPriority => ok(lower_to_nice_zero()),
            Step::OpenBindSources => {
                // They may lie under a directory only the caller can traverse (e.g. an interpreter below /root).
                // Only 0-5 are open now, so each lands on its planned slot (FIRST_FREE_FD + its index); should
                // one not, moving it there replaces nothing but a descriptor of this step.
                for bind in plan.new_root.iter().flat_map(|r| &r.binds) {
                    let fd = libc::open(bind.host_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                    ok(fd)?;
                    if fd != bind.slot {
                        ok(libc::dup3(fd, bind.slot, libc::O_CLOEXEC))?;
                        libc::close(fd);
                    }
                }
                Ok(())
            }
            Step::BecomeMappedUser => {
                let Ids::FromParent { inner_id: id, .. } = plan.ids else { return Ok(()) };
                // Host `nobody`-like slot ids when we were root, dropping supplementary groups where allowed;
                // files are then created and accessed as that host user. Raw syscalls, not libc's wrappers: in
                // a process that had threads, glibc's setxid wrappers signal every thread it knows of and take
                // its thread-list lock, which another thread may have held at the moment of the clone.
                libc::syscall(libc::SYS_setgroups, 0, ptr::null::<libc::gid_t>());
                ok(libc::syscall(libc::SYS_setresgid, id, id, id))?;
                ok(libc::syscall(libc::SYS_setresuid, id, id, id))
            }
            Step::PlacePipes => {
                // First lift every one above 0-5 (free numbers only: nothing is replaced), as they may sit there.
                let lifted_report = libc::fcntl(*report, libc::F_DUPFD_CLOEXEC, FIRST_FREE_FD);
                ok(lifted_report)?;
                *report = lifted_report;
                let mut lifted = [0; 5];
                for (i, &fd) in plan.fds.iter().enumerate() {
                    lifted[i] = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, FIRST_FREE_FD);
                    ok(lifted[i])?;
                }
                for (target, &fd) in lifted.iter().enumerate() {
                    ok(libc::dup2(fd, target as libc::c_int))?;
                }
                ok(libc::dup3(lifted_report, REPORT_FD, libc::O_CLOEXEC))?;
                *report = REPORT_FD;
                Ok(())
            }
            Step::CloseInheritedFds => ok(libc::syscall(libc::SYS_close_range, FIRST_FREE_FD as u32, u32::MAX, 0u32)),
            Step::MakeMountsPrivate => {
                ok(libc::mount(ptr::null(), c"/".as_ptr(), ptr::null(), libc::MS_REC | libc::MS_PRIVATE, ptr::null()))
            }
            Step::MountRoot => with_root(plan, |root| ok(mount_tmpfs(&root.stage, &root.stage_opts))),
            Step::CreateDirectories => with_root(plan, |root| {
                for dir in &root.dirs {
                    ok(libc::mkdir(dir.as_ptr(), 0o755))?;
                }
                for (dest, link) in &root.links {
                    ok(libc::symlink(dest.as_ptr(), link.as_ptr()))?;
                }
                Ok(())
            }),
            Step::CreateDeviceMountPoints => with_root(plan, |root| {
                for file in &root.files {
                    let fd = libc::open(file.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
                    ok(fd)?;
                    libc::close(fd);
                }
                Ok(())
            }),
            Step::BindReadOnlyPaths => with_root(plan, |root| {
                for bind in &root.binds {
                    let (source, target) = (bind.source.as_ptr(), bind.target.as_ptr());
                    ok(libc::mount(source, target, ptr::null(), libc::MS_BIND | libc::MS_REC, ptr::null()))?;
                    if bind.read_only {
                        ok(libc::mount(ptr::null(), target, ptr::null(), bind.remount_flags, ptr::null()))?;
                    }
                }
                Ok(())
            }),
            Step::MountScratch => ok(mount_tmpfs(&plan.scratch, &plan.scratch_opts)),
            Step::PivotRoot => with_root(plan, |root| {
                ok(libc::syscall(libc::SYS_pivot_root, root.stage.as_ptr(), root.old_root.as_ptr()))?;
                ok(libc::chdir(c"/".as_ptr()))
            }),
            Step::MountProc => {
                let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
                let proc = |flags, data: *const libc::c_char| {
                    libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, data.cast())
                };
                if !plan.read_only_proc {
                    return ok(proc(flags, ptr::null()));
                }
                // Only the processes' own directories: /proc's other files are host-wide counters.
                if proc(flags | libc::MS_RDONLY, c"subset=pid".as_ptr()) == 0 {
                    return Ok(());
                }
                // Kernels before 5.8 know no `subset`: the whole /proc, with /proc/sys hidden next.
                ok(proc(flags | libc::MS_RDONLY, ptr::null()))
            }
            Step::MaskProcSys => {
                let masked = libc::mount(
                    c"tmpfs".as_ptr(),
                    c"/proc/sys".as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
                    c"size=4k,nr_inodes=1,mode=0555".as_ptr().cast(),
                );
                // No /proc/sys at all: `subset=pid` took it with the rest.
                if masked < 0 && *libc::__errno_location() == libc::ENOENT {
                    Ok(())
                } else {
                    ok(masked)
                }
            }
            Step::DetachOldRoot => with_root(plan, |root| {
                ok(libc::umount2(root.old_root_after.as_ptr(), libc::MNT_DETACH))?;
                ok(libc::rmdir(root.old_root_after.as_ptr()))
            }),
            Step::RemountRootReadOnly => ok(libc::mount(
                ptr::null(),
                c"/".as_ptr(),
                ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                ptr::null(),
            )),
            Step::EnterScratch => ok(libc::chdir(c"/tmp".as_ptr())),
            // We hold CAP_SYS_ADMIN in our namespace, so no_new_privs is not needed yet.
            Step::ApplyLandlock => ok(crate::landlock::restrict_self()),
            Step::SetHostname => ok(libc::sethostname(c"sandbox".as_ptr(), "sandbox".len())),
            Step::SetResourceLimits => {
                for &(resource, limit) in &plan.rlimits {
                    let rl = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                    ok(libc::setrlimit(resource, &rl))?;
                }
                Ok(())
            }
            Step::DropCapabilities => ok(drop_capabilities(plan.kept_caps)),
            Step::InstallSeccomp => {
                for filter in plan.filters.iter() {
                    if seccompiler::apply_filter(filter).is_err() {
                        return Err(());
                    }
                }
                Ok(())
            }
            Step::Run => match &plan.exec {
                Some(exec) => {
                    libc::execve(exec.argv_ptrs[0], exec.argv_ptrs.as_ptr(), exec.envp_ptrs.as_ptr());
                    Err(())
                }
                None => {
                    libc::close(*report);
                    Ok(())
                }
            },
        }
    }
}

/// Nice 0 if the process runs at a raised priority (a negative nice value), else unchanged: lowering a
/// priority is always allowed. Returns a negative value on failure.
pub fn lower_to_nice_zero() -> libc::c_int {
    // SAFETY: getpriority/setpriority of the calling process with constant arguments; errno read right after.
    unsafe {
        *libc::__errno_location() = 0;
        let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
        if nice == -1 && *libc::__errno_location() != 0 {
            return -1;
        }
        if nice < 0 {
            libc::setpriority(libc::PRIO_PROCESS, 0, 0)
        } else {
            0
        }
    }
}

/// Run `f` on the plan's new root (the steps that use it apply only when there is one).
fn with_root(plan: &Plan<'_>, f: impl FnOnce(&NewRoot) -> Done) -> Done {
    plan.new_root.as_ref().map_or(Ok(()), f)
}

/// A size-capped tmpfs at `target` (no setuid binaries, no device nodes).
unsafe fn mount_tmpfs(target: &CString, options: &CString) -> libc::c_int {
    // SAFETY: NUL-terminated strings owned by the plan.
    unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        )
    }
}

unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> libc::c_int {
    // SAFETY: a NUL-terminated path and a buffer of `data.len()` bytes.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return -1;
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        if n == data.len() as isize {
            0
        } else {
            -1
        }
    }
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Leave no capability but `kept` behind, now or after any execve: root of a user namespace holds them
/// all there. Empties the bounding and ambient sets but for `kept`, raises `kept` as ambient (so that it
/// survives the zygote's execve), locks root's special treatment off (securebits), then leaves only
/// `kept` in the effective, permitted and inheritable sets. Returns a negative value on failure.
unsafe fn drop_capabilities(kept: u64) -> libc::c_long {
    // SAFETY: prctl/capset with constant arguments and stack buffers of the kernel's layout.
    unsafe {
        let capset = |caps: u64| {
            let header = CapHeader { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
            let (lo, hi) = (caps as u32, (caps >> 32) as u32);
            let data = [
                CapData { effective: lo, permitted: lo, inheritable: lo & kept as u32 },
                CapData { effective: hi, permitted: hi, inheritable: hi & (kept >> 32) as u32 },
            ];
            libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr())
        };
        for cap in (0..=LAST_CAP).filter(|&c| kept & (1 << c) == 0) {
            libc::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); // EINVAL past the kernel's last capability
        }
        // The kept ones go ambient (they must be permitted and inheritable) before the securebits forbid
        // raising any; CAP_SETPCAP stays effective until the securebits are set.
        if libc::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0
            || capset(kept | 1 << CAP_SETPCAP) < 0
            || (0..=LAST_CAP)
                .filter(|&c| kept & (1 << c) != 0)
                .any(|c| libc::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
            || libc::prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED_DOWN, 0, 0, 0) < 0
        {
            return -1;
        }
        capset(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_codes_are_their_positions() {
        for (i, step) in STEPS.iter().enumerate() {
            assert_eq!(*step as usize, i, "{step:?}");
        }
        assert_eq!(Step::describe_failure(Step::PivotRoot as i32, libc::EPERM).split(':').next(), Some("pivot_root"));
        assert!(Step::describe_failure(200, 1).starts_with("unknown step"));
        assert!(Step::describe_failure(-1, 1).starts_with("unknown step"));
    }

    #[test]
    fn failures_round_trip() {
        for (step, errno) in [(Step::WaitForIdMaps, 0), (Step::Run, libc::ENOENT), (Step::PivotRoot, 4095)] {
            let report = crate::child::encode_failure(step as u8, errno);
            assert_eq!(crate::child::decode_failure(&report), Some((step as i32, errno)));
        }
        assert_eq!(crate::child::decode_failure(&[1, 2]), None);
        assert_eq!(crate::child::decode_failure(&[1, 2, 3, 4]), None);
    }
}
