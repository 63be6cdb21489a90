//! The sandboxed child between `clone3` and `execve`.
//!
//! The parent may be multi-threaded (Python, Rayon), so the child only makes raw system calls on
//! memory prepared by the parent: no allocation, no locks, nothing that could be held by a thread
//! that does not exist in the child. Every failure reports the failing step's index over `report`
//! (closed on exec) and exits.

use std::ffi::CString;
use std::ptr;

use seccompiler::BpfProgram;

/// A bind mount. The child opens `host_path` (`O_PATH`) into descriptor `slot` before the staging
/// tmpfs hides it, then binds `source` = `/proc/self/fd/<slot>`: a descriptor opened by the parent
/// would name a mount of the parent's namespace, which the kernel refuses to bind (EINVAL).
pub struct Bind {
    pub host_path: CString,
    pub slot: libc::c_int,
    pub source: CString,
    pub target: CString,
    /// Flags for the read-only remount, including those the kernel locks from the source mount.
    pub remount_flags: libc::c_ulong,
    pub read_only: bool,
}

/// Everything the child needs, prepared by the parent before `clone3`.
pub struct Plan {
    pub stage: CString,                 // mount point of the new root before pivot_root ("/tmp")
    pub stage_opts: CString,            // tmpfs options of the new root
    pub dirs: Vec<CString>,             // directories to create under the stage, parents first
    pub files: Vec<CString>,            // empty files to create (bind targets of device nodes)
    pub links: Vec<(CString, CString)>, // (destination, link) for symlinked top-level paths
    pub binds: Vec<Bind>,
    pub scratch: CString,        // <stage>/tmp
    pub scratch_opts: CString,   // size-capped tmpfs options of the scratch dir
    pub old_root: CString,       // <stage>/.old
    pub old_root_after: CString, // "/.old"
    pub proc_dir: CString,       // "/proc"
    pub workdir: CString,        // "/tmp"
    pub hostname: &'static [u8],
    /// The user and group id the process takes on inside its user namespace.
    pub inner_id: libc::uid_t,
    /// Apply Landlock (programs; a zygote's children apply their own).
    pub landlock: bool,
    pub rlimits: Vec<(libc::__rlimit_resource_t, libc::rlim_t)>,
    /// Owners of the strings `argv_ptrs`/`envp_ptrs` point into (kept alive, never read directly).
    pub _argv: Vec<CString>,
    pub argv_ptrs: Vec<*const libc::c_char>,
    pub envp_ptrs: Vec<*const libc::c_char>,
    pub _env: Vec<CString>,
    pub filters: Vec<BpfProgram>,
    /// Child ends of the pipes: stdin, stdout, stderr, result channel, payload.
    pub fds: [libc::c_int; 5],
    pub sync: libc::c_int,
    pub report: libc::c_int,
}

// SAFETY: the raw pointers point into `argv`/`env`, owned by the same Plan, which is only read.
unsafe impl Send for Plan {}
unsafe impl Sync for Plan {}

// prctl options and securebits (linux/prctl.h, linux/securebits.h); not all are in the libc crate.
const PR_CAPBSET_DROP: libc::c_int = 24;
const PR_SET_SECUREBITS: libc::c_int = 28;
const PR_CAP_AMBIENT: libc::c_int = 47;
const PR_CAP_AMBIENT_CLEAR_ALL: libc::c_ulong = 4;
/// NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE, each with its lock bit (not KEEP_CAPS).
const SECUREBITS_LOCKED_DOWN: libc::c_ulong = 0b1110_1111;
const LAST_CAP: libc::c_ulong = 63;

/// Steps, in order; the index is what the child reports on failure.
pub const STEPS: &[&str] = &[
    "wait for the uid/gid maps",
    "open bind sources and become the mapped user",
    "move pipes into place",
    "make mounts private",
    "mount the new root",
    "create directories",
    "create device mount points",
    "bind-mount read-only paths",
    "mount the scratch tmpfs",
    "pivot_root",
    "mount /proc (while the old root still shows one: the kernel requires it)",
    "detach the old root",
    "remount the root read-only",
    "enter the scratch directory and apply Landlock",
    "set the hostname",
    "set resource limits and drop capabilities",
    "close inherited descriptors",
    "install seccomp filters",
    "execve",
    "start a new session",
];

/// Report `(step, errno)` on `report` and end the child (shared with the zygote's children).
pub(crate) fn fail(report: libc::c_int, step: u8) -> ! {
    // SAFETY: plain syscalls on a valid buffer.
    unsafe {
        let errno = *libc::__errno_location();
        let msg = [step, (errno & 0xff) as u8, ((errno >> 8) & 0xff) as u8];
        libc::write(report, msg.as_ptr().cast(), msg.len());
        libc::_exit(127);
    }
}

/// `check!(report, step, call)`: a negative result of `call` fails the set-up at `step`.
macro_rules! check {
    ($report:expr, $step:expr, $call:expr) => {
        if ($call as i64) < 0 {
            $crate::child::fail($report, $step);
        }
    };
}
pub(crate) use check;

/// A size-capped tmpfs at `target` (no setuid binaries, no device nodes).
unsafe fn mount_tmpfs(target: &CString, options: &CString) -> libc::c_int {
    libc::mount(
        c"tmpfs".as_ptr(),
        target.as_ptr(),
        c"tmpfs".as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV,
        options.as_ptr().cast(),
    )
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

/// Leave no capability behind, now or after any execve: root of a user namespace holds them all
/// there. Empties the bounding and ambient sets, locks root's special treatment off (securebits),
/// then clears the effective, permitted and inheritable sets. Returns a negative value on failure.
///
/// # Safety
/// Plain syscalls; changes the calling thread's credentials.
pub unsafe fn drop_capabilities() -> libc::c_int {
    for cap in 0..=LAST_CAP {
        libc::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); // EINVAL past the kernel's last capability
    }
    if libc::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0
        || libc::prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED_DOWN, 0, 0, 0) < 0
    {
        return -1;
    }
    let header = CapHeader { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    let data = [CapData { effective: 0, permitted: 0, inheritable: 0 }; 2];
    libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr()) as libc::c_int
}

/// Runs in the child; never returns.
///
/// # Safety
/// Must be called only in the child of `clone3`, with a `plan` fully built by the parent.
pub unsafe fn enter(plan: &Plan) -> ! {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
    let mut byte = 0u8;
    if libc::read(plan.sync, (&mut byte as *mut u8).cast(), 1) != 1 {
        fail(plan.report, 0);
    }
    // A session of its own: the scheduler's autogroup gives the execution's whole tree one CPU share.
    check!(plan.report, 19, libc::syscall(libc::SYS_setsid));

    // Open bind sources while we still have the caller's ids: they may lie under a directory only
    // the caller can traverse (e.g. an interpreter below /root).
    for bind in &plan.binds {
        let fd = libc::open(bind.host_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        check!(plan.report, 1, fd);
        check!(plan.report, 1, libc::dup3(fd, bind.slot, libc::O_CLOEXEC));
        libc::close(fd);
    }
    // Take on the ids root inside maps to (host `nobody` when we were root), dropping supplementary
    // groups where allowed; files are then created and accessed as that host user.
    // Raw syscalls, not libc's wrappers: in a process that had threads, glibc's setxid wrappers
    // signal every thread it knows of and take its thread-list lock, which another thread may have
    // held at the moment of the clone: the child would wait forever.
    libc::syscall(libc::SYS_setgroups, 0, ptr::null::<libc::gid_t>());
    let id = plan.inner_id;
    check!(plan.report, 1, libc::syscall(libc::SYS_setresgid, id, id, id) as libc::c_int);
    check!(plan.report, 1, libc::syscall(libc::SYS_setresuid, id, id, id) as libc::c_int);

    // Pipes (and the report pipe) may sit on 0..=4 already: lift them above, then place them.
    let report = libc::fcntl(plan.report, libc::F_DUPFD_CLOEXEC, 100);
    check!(plan.report, 2, report);
    let mut lifted = [0; 5];
    for (i, &fd) in plan.fds.iter().enumerate() {
        lifted[i] = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 100);
        check!(report, 2, lifted[i]);
    }
    for (target, &fd) in lifted.iter().enumerate() {
        check!(report, 2, libc::dup2(fd, target as libc::c_int));
    }

    check!(
        report,
        3,
        libc::mount(ptr::null(), c"/".as_ptr(), ptr::null(), libc::MS_REC | libc::MS_PRIVATE, ptr::null())
    );
    check!(report, 4, mount_tmpfs(&plan.stage, &plan.stage_opts));
    for dir in &plan.dirs {
        check!(report, 5, libc::mkdir(dir.as_ptr(), 0o755));
    }
    for (dest, link) in &plan.links {
        check!(report, 5, libc::symlink(dest.as_ptr(), link.as_ptr()));
    }
    for file in &plan.files {
        let fd = libc::open(file.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
        check!(report, 6, fd);
        libc::close(fd);
    }
    for bind in &plan.binds {
        check!(
            report,
            7,
            libc::mount(
                bind.source.as_ptr(),
                bind.target.as_ptr(),
                ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                ptr::null()
            )
        );
        if bind.read_only {
            check!(
                report,
                7,
                libc::mount(ptr::null(), bind.target.as_ptr(), ptr::null(), bind.remount_flags, ptr::null())
            );
        }
    }
    check!(report, 8, mount_tmpfs(&plan.scratch, &plan.scratch_opts));
    check!(report, 9, libc::syscall(libc::SYS_pivot_root, plan.stage.as_ptr(), plan.old_root.as_ptr()) as libc::c_int);
    check!(report, 9, libc::chdir(c"/".as_ptr()));
    check!(
        report,
        10,
        libc::mount(
            c"proc".as_ptr(),
            plan.proc_dir.as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            ptr::null()
        )
    );
    check!(report, 11, libc::umount2(plan.old_root_after.as_ptr(), libc::MNT_DETACH));
    check!(report, 11, libc::rmdir(plan.old_root_after.as_ptr()));
    check!(
        report,
        12,
        libc::mount(
            ptr::null(),
            c"/".as_ptr(),
            ptr::null(),
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
            ptr::null()
        )
    );
    check!(report, 13, libc::chdir(plan.workdir.as_ptr()));
    // Landlock after the last mount (a Landlock domain may not change mounts); we hold CAP_SYS_ADMIN
    // in our namespace, so no_new_privs is not needed yet.
    // Not for a zygote: its children inherit the domain and must still write their id maps.
    if plan.landlock {
        check!(report, 13, crate::landlock::restrict_self() as libc::c_int);
    }
    check!(report, 14, libc::sethostname(plan.hostname.as_ptr().cast(), plan.hostname.len()));
    for &(resource, limit) in &plan.rlimits {
        let rl = libc::rlimit { rlim_cur: limit, rlim_max: limit };
        check!(report, 15, libc::setrlimit(resource, &rl));
    }
    check!(report, 15, drop_capabilities());
    // Keep 0..=4 and the report pipe (closed by exec); close everything else, e.g. other sandboxes' pipes.
    check!(report, 16, libc::dup2(report, 5));
    check!(report, 16, libc::fcntl(5, libc::F_SETFD, libc::FD_CLOEXEC));
    let report = 5;
    check!(report, 16, libc::syscall(libc::SYS_close_range, 6u32, u32::MAX, 0u32) as libc::c_int);
    for filter in &plan.filters {
        if seccompiler::apply_filter(filter).is_err() {
            fail(report, 17);
        }
    }
    libc::execve(plan.argv_ptrs[0], plan.argv_ptrs.as_ptr(), plan.envp_ptrs.as_ptr());
    fail(report, 18)
}
