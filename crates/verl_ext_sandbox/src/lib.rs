//! Process sandbox for untrusted code: fresh user, PID, mount, network, IPC and UTS namespaces, a
//! read-only view of the interpreter, a size-capped private tmpfs as the only writable place, no
//! network, rlimits, `no_new_privs` and seccomp filters; the parent enforces the wall-clock deadline
//! through a pidfd and caps all output. Killing PID 1 of the namespace ends every process in it, and
//! the private mounts vanish with it, so nothing is left behind.
//!
//! Each execution's process tree gets one CPU share ([`cpu_share`]); memory it could hold outside its
//! limits (memfd), sockets outside the local and IP families, and state shared between concurrent
//! executions (file locks, inotify instances, syncing or evicting shared files) are refused ([`seccomp`]).
//!
//! Residual risk, by design: `/proc/self/mountinfo` inside shows, for each read-only bind, its path
//! within the host file system (the interpreter's prefix, and for warm starts the directory of the
//! verl-ext package, e.g. `/work/main/verl_ext` mounted at `/opt/verl-ext/verl_ext`), the host's block
//! device, file-system type and options, the size of the host's devtmpfs (about half its RAM) and the
//! host uid of the execution's slot. The kernel prints a bind mount's source path and superblock as
//! they are; hiding them would mean copying the interpreter into a tmpfs per zygote. Names, not
//! contents: nothing outside the read-only binds can be opened.

pub mod cgroup;
mod child;
pub mod cpu_share;
mod io;
pub mod landlock;
pub mod probe;
mod protocol;
pub mod seccomp;
pub mod warm;
pub mod weak;
pub mod zygote;

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use thiserror::Error;

pub use io::Collected;

/// Exit code the harness uses for a `MemoryError` (the address-space limit was hit).
pub const MEMORY_EXIT_CODE: i32 = 102;

#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum SandboxError {
    #[error("sandbox unavailable on this host: {0}")]
    Unsupported(String),
    #[error("sandbox set-up failed: {0}")]
    Setup(String),
    #[error("invalid sandbox request: {0}")]
    Invalid(String),
}

/// Limits and the file-system view of one execution.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub timeout: Duration,
    /// Address-space limit (RLIMIT_AS).
    pub memory_mb: u64,
    /// Bytes kept per output stream (stdout, stderr); more kills the execution (`output_limit`).
    pub output_limit: usize,
    /// Bytes accepted on the result channel (fd 3) before the execution is killed.
    pub channel_limit: usize,
    /// Size of the private tmpfs mounted at /tmp, the working directory and only writable place.
    pub scratch_mb: u64,
    /// RLIMIT_NPROC: processes and threads of the execution (see [`HostIds`]).
    pub max_processes: u64,
    pub max_open_files: u64,
    /// RLIMIT_FSIZE.
    pub max_file_mb: u64,
    /// Host paths visible read-only at the same place inside.
    pub read_only_paths: Vec<PathBuf>,
    /// Host directories visible read-only at another place inside: `(host, inside)`.
    pub mapped_paths: Vec<(PathBuf, PathBuf)>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
            memory_mb: 1024,
            output_limit: 64 * 1024,
            channel_limit: 16 * 1024 * 1024,
            scratch_mb: 64,
            max_processes: 32,
            max_open_files: 256,
            max_file_mb: 64,
            read_only_paths: ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"].iter().map(PathBuf::from).collect(),
            mapped_paths: Vec::new(),
        }
    }
}

/// A program to run (absolute path, arguments, environment) with its inputs.
#[derive(Debug, Clone)]
pub struct ExecRequest {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub stdin: Vec<u8>,
    /// Delivered on fd 4 (then EOF): how the harness gets code and test inputs.
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Timeout,
    MemoryLimit,
    RuntimeError,
    OutputLimit,
    Killed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Timeout => "timeout",
            Status::MemoryLimit => "memory_limit",
            Status::RuntimeError => "runtime_error",
            Status::OutputLimit => "output_limit",
            Status::Killed => "killed",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ExecResult {
    pub status: Status,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// What the program wrote on fd 3 (untrusted: the parent only compares it with what it expects).
    pub channel: Vec<u8>,
    pub wall_ms: f64,
    pub cpu_ms: f64,
}

fn cstring(s: impl AsRef<[u8]>) -> Result<CString, SandboxError> {
    CString::new(s.as_ref()).map_err(|_| SandboxError::Invalid("NUL byte in a path, argument or variable".into()))
}

fn pipe() -> Result<(OwnedFd, OwnedFd), SandboxError> {
    let mut fds = [0; 2];
    // SAFETY: valid out-array; the fds are owned right away.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(SandboxError::Setup(format!("pipe2: {}", std::io::Error::last_os_error())));
    }
    // SAFETY: freshly created descriptors.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Mount flags the kernel locks on a bind of `path` inside a user namespace: a remount must keep them.
fn locked_flags(path: &Path) -> Result<libc::c_ulong, SandboxError> {
    let c = cstring(path.as_os_str().as_bytes())?;
    // SAFETY: valid path and out-struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } < 0 {
        return Err(SandboxError::Setup(format!("statvfs {}: {}", path.display(), std::io::Error::last_os_error())));
    }
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    Ok(flags)
}

/// Directories to create under the stage for `target`, parents first, skipping ones already listed.
fn push_dirs(stage: &Path, target: &Path, dirs: &mut Vec<PathBuf>) {
    let mut acc = stage.to_path_buf();
    for comp in target.components().skip(1) {
        acc.push(comp);
        if !dirs.contains(&acc) {
            dirs.push(acc.clone());
        }
    }
}

const STAGE: &str = "/tmp";
const DEVICES: [&str; 4] = ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"];

/// First host uid/gid of the per-execution ids used when we run as root (an unused high range).
const SLOT_ID_BASE: u32 = 0x6000_0000;
/// Concurrent executions that get their own host uid (more share the last one).
const SLOTS: usize = 4096;
static SLOT_USED: std::sync::Mutex<Vec<bool>> = std::sync::Mutex::new(Vec::new());

/// A host uid/gid for one execution, released when dropped (after its processes are reaped).
///
/// As root, every execution runs as its own unprivileged host uid, so RLIMIT_NPROC (counted per host
/// user) bounds each sandbox separately and host files owned by real users stay out of reach. An
/// unprivileged caller can only map its own ids; then all executions share them (see `nproc_limit`).
pub struct HostIds {
    pub uid: u32,
    pub gid: u32,
    slot: Option<usize>,
}

impl HostIds {
    fn acquire() -> Self {
        // SAFETY: trivial getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
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

    fn shared(&self) -> bool {
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

/// RLIMIT_NPROC for an execution. With a host uid of its own, exactly `max_processes`; sharing the
/// caller's uid, the count includes every process and thread of that user (the trainer too), so the
/// limit is raised by a fixed allowance and only bounds runaway fork bombs.
fn nproc_limit(cfg: &SandboxConfig, ids: &HostIds) -> u64 {
    if ids.shared() {
        nproc_limit_shared(cfg)
    } else {
        cfg.max_processes
    }
}

/// RLIMIT_NPROC when the count includes every process of the caller's user.
fn nproc_limit_shared(cfg: &SandboxConfig) -> u64 {
    const SHARED_UID_ALLOWANCE: u64 = 4096;
    cfg.max_processes + SHARED_UID_ALLOWANCE
}

/// RLIMIT_NPROC of a warm execution. Since Linux 5.14 the count is kept per user namespace, and each
/// execution has its own, so the limit is exact; older kernels count per host uid, which all
/// executions of a zygote share, so there it only bounds runaway fork bombs (as in [`nproc_limit`]).
fn nproc_limit_per_userns(cfg: &SandboxConfig) -> u64 {
    static PER_USERNS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *PER_USERNS.get_or_init(|| kernel_at_least(5, 14)) {
        cfg.max_processes
    } else {
        nproc_limit_shared(cfg)
    }
}

fn kernel_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: zeroed utsname is a valid out-parameter.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut uts) } < 0 {
        return false;
    }
    // SAFETY: uname NUL-terminates the release.
    let release = unsafe { std::ffi::CStr::from_ptr(uts.release.as_ptr()) }.to_string_lossy();
    let mut parts = release.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (major, minor)
}

/// First descriptor number the child uses for bind sources (above the lifted pipes at 100+).
const BIND_SLOT_BASE: libc::c_int = 300;

/// What the sandboxed process is: a program (full limits and filters) or a zygote (no resource
/// limits of its own, a filter that still lets it create namespaces for its children).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Program,
    Zygote,
}

impl Role {
    /// A zygote is not root of its namespace: since Linux 5.12 a user namespace may map its parent's
    /// uid 0 only if its creator held CAP_SETFCAP, and the zygote holds no capability.
    fn inner_id(self) -> libc::uid_t {
        match self {
            Role::Program => 0,
            Role::Zygote => zygote::ZYGOTE_ID,
        }
    }
}

fn prepare(
    req: &ExecRequest,
    cfg: &SandboxConfig,
    ids: &HostIds,
    fds: [libc::c_int; 5],
    sync: libc::c_int,
    report: libc::c_int,
    role: Role,
) -> Result<child::Plan, SandboxError> {
    if req.argv.is_empty() || !req.argv[0].starts_with('/') {
        return Err(SandboxError::Invalid("argv[0] must be an absolute path".into()));
    }
    let stage = Path::new(STAGE);
    let mut dirs = Vec::new();
    let mut binds = Vec::new();
    let mut paths: Vec<PathBuf> = cfg.read_only_paths.iter().filter(|p| p.exists()).cloned().collect();
    paths.sort();
    paths.dedup();
    // A path below another one is visible through it already.
    let roots: Vec<PathBuf> =
        paths.iter().filter(|p| !paths.iter().any(|q| q != *p && p.starts_with(q))).cloned().collect();
    let mapped = cfg.mapped_paths.iter().map(|(host, inside)| (host, inside));
    for (path, inside) in roots.iter().map(|p| (p, p)).chain(mapped) {
        if !path.is_absolute() || !inside.is_absolute() {
            return Err(SandboxError::Invalid(format!("read-only path {} is not absolute", path.display())));
        }
        let is_link = std::fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false);
        let c = cstring(path.as_os_str().as_bytes())?;
        let target = stage.join(inside.strip_prefix("/").unwrap_or(inside));
        if is_link && path == inside {
            // e.g. /lib -> usr/lib on merged-/usr systems: recreate the link instead of binding.
            continue;
        }
        push_dirs(stage, inside, &mut dirs);
        let slot = BIND_SLOT_BASE + binds.len() as libc::c_int;
        binds.push(child::Bind {
            host_path: c,
            slot,
            source: cstring(format!("/proc/self/fd/{slot}"))?,
            target: cstring(target.as_os_str().as_bytes())?,
            remount_flags: libc::MS_REMOUNT
                | libc::MS_BIND
                | libc::MS_RDONLY
                | libc::MS_NOSUID
                | libc::MS_NODEV
                | locked_flags(path)?,
            read_only: true,
        });
    }
    let mut files = Vec::new();
    push_dirs(stage, Path::new("/dev"), &mut dirs);
    for dev in DEVICES.iter().filter(|d| Path::new(d).exists()) {
        let target = stage.join(dev.trim_start_matches('/'));
        files.push(cstring(target.as_os_str().as_bytes())?);
        let slot = BIND_SLOT_BASE + binds.len() as libc::c_int;
        binds.push(child::Bind {
            host_path: cstring(dev)?,
            slot,
            source: cstring(format!("/proc/self/fd/{slot}"))?,
            target: cstring(target.as_os_str().as_bytes())?,
            remount_flags: 0,
            read_only: false,
        });
    }
    for d in ["tmp", "proc", ".old"] {
        push_dirs(stage, &Path::new("/").join(d), &mut dirs);
    }
    // Symlinked top-level paths (merged /usr): recreate them as links inside.
    let mut links = Vec::new();
    for path in &roots {
        if let Ok(dest) = std::fs::read_link(path) {
            links.push((
                cstring(dest.as_os_str().as_bytes())?,
                cstring(stage.join(path.strip_prefix("/").unwrap_or(path)).as_os_str().as_bytes())?,
            ));
        }
    }

    let rlimits = match role {
        Role::Program => protocol::SpawnLimits::from_config(cfg, nproc_limit(cfg, ids)).rlimits().to_vec(),
        // Each execution sets its own limits; the zygote only must not dump core.
        Role::Zygote => vec![(libc::RLIMIT_CORE, 0), (libc::RLIMIT_MEMLOCK, 0)],
    };
    let argv: Vec<CString> = req.argv.iter().map(cstring).collect::<Result<_, _>>()?;
    let env: Vec<CString> = req.env.iter().map(|(k, v)| cstring(format!("{k}={v}"))).collect::<Result<_, _>>()?;
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut envp_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    envp_ptrs.push(std::ptr::null());
    let plan = child::Plan {
        stage: cstring(STAGE)?,
        stage_opts: cstring("size=1m,mode=0755")?,
        dirs: dirs.iter().map(|d| cstring(d.as_os_str().as_bytes())).collect::<Result<_, _>>()?,
        files,
        links,
        binds,
        scratch: cstring(format!("{STAGE}/tmp"))?,
        scratch_opts: cstring(format!("size={}m,mode=1777", cfg.scratch_mb.max(1)))?,
        old_root: cstring(format!("{STAGE}/.old"))?,
        old_root_after: cstring("/.old")?,
        proc_dir: cstring("/proc")?,
        workdir: cstring("/tmp")?,
        hostname: b"sandbox",
        inner_id: role.inner_id(),
        landlock: role == Role::Program,
        rlimits,
        _argv: argv,
        argv_ptrs,
        envp_ptrs,
        _env: env,
        filters: match role {
            Role::Program => seccomp::filters()?.into(),
            Role::Zygote => vec![seccomp::zygote_filter()?],
        },
        fds,
        sync,
        report,
    };
    Ok(plan)
}

/// `clone3` like fork (no stack), into `namespaces`, storing a pidfd; returns 0 in the child.
///
/// # Safety
/// As for fork: in a multi-threaded process the child may only make async-signal-safe calls.
unsafe fn clone3(namespaces: u64, pidfd: &mut libc::c_int) -> libc::c_long {
    let args = CloneArgs {
        flags: namespaces | libc::CLONE_PIDFD as u64,
        pidfd: pidfd as *mut libc::c_int as u64,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: 0,
        stack_size: 0,
        tls: 0,
        set_tid: 0,
        set_tid_size: 0,
        cgroup: 0,
    };
    libc::syscall(libc::SYS_clone3, &args as *const CloneArgs, std::mem::size_of::<CloneArgs>())
}

#[repr(C)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

const NAMESPACES: u64 = (libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS) as u64;

fn write_id_maps(pid: libc::pid_t, ids: &HostIds, inner: libc::uid_t) -> Result<(), SandboxError> {
    let (uid, gid) = (ids.uid, ids.gid);
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/{pid}/{file}"), text)
            .map_err(|e| SandboxError::Setup(format!("writing /proc/<child>/{file}: {e}")))
    };
    // As root we may keep setgroups allowed, so the child can drop host root's supplementary groups.
    // SAFETY: trivial getter.
    if unsafe { libc::geteuid() } != 0 {
        write("setgroups", "deny".into())?;
    }
    write("uid_map", format!("{inner} {uid} 1\n"))?;
    write("gid_map", format!("{inner} {gid} 1\n"))
}

/// Clone a child into fresh namespaces running `plan`, map its ids, put it in `group`, release it.
fn start_child(
    plan: &child::Plan,
    ids: &HostIds,
    group: Option<&cgroup::Group>,
    sync_w: OwnedFd,
) -> Result<(libc::pid_t, OwnedFd), SandboxError> {
    let mut pidfd: libc::c_int = -1;
    // SAFETY: the child only runs `child::enter`.
    let pid = unsafe { clone3(NAMESPACES, &mut pidfd) };
    if pid == 0 {
        // SAFETY: we are the child of clone3 and the plan is complete.
        unsafe { child::enter(plan) }
    }
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        return Err(SandboxError::Unsupported(format!("clone3 with new namespaces failed: {e}")));
    }
    let pid = pid as libc::pid_t;
    // SAFETY: the kernel stored a fresh pidfd.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let abort = |e: SandboxError| {
        // Set-up failures only: the child is a single process here.
        // SAFETY: our own child; pidfd_send_signal cannot hit a recycled pid.
        unsafe {
            libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), libc::SIGKILL, std::ptr::null::<u8>(), 0);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
        }
        Err(e)
    };
    if let Err(e) = write_id_maps(pid, ids, plan.inner_id).and_then(|()| match group {
        Some(g) => g.attach(pid).map_err(SandboxError::Setup),
        None => Ok(()),
    }) {
        return abort(e);
    }
    // SAFETY: writing one byte to our pipe.
    if unsafe { libc::write(sync_w.as_raw_fd(), b"1".as_ptr().cast(), 1) } != 1 {
        return abort(SandboxError::Setup("could not release the child".into()));
    }
    Ok((pid, pidfd))
}

/// Start a zygote (see [`zygote`]) running `req.argv` with `control` on its fd 3; returns its pid,
/// the read end of its stderr, and its host ids (to release once it is reaped).
fn launch_zygote(
    req: &ExecRequest,
    cfg: &SandboxConfig,
    control: OwnedFd,
) -> Result<(libc::pid_t, OwnedFd, HostIds), SandboxError> {
    let (stdin_r, stdin_w) = pipe()?;
    let (log_r, log_w) = pipe()?;
    let (pay_r, pay_w) = pipe()?;
    let (sync_r, sync_w) = pipe()?;
    let (report_r, report_w) = pipe()?;
    drop((stdin_w, pay_w));
    let ids = HostIds::acquire();
    let fds = [stdin_r.as_raw_fd(), log_w.as_raw_fd(), log_w.as_raw_fd(), control.as_raw_fd(), pay_r.as_raw_fd()];
    let plan = prepare(req, cfg, &ids, fds, sync_r.as_raw_fd(), report_w.as_raw_fd(), Role::Zygote)?;
    let (pid, _pidfd) = start_child(&plan, &ids, None, sync_w)?;
    drop((stdin_r, log_w, pay_r, sync_r, report_w, control));
    // The report pipe closes on execve (success) or carries the failed step.
    let mut buf = [0u8; 3];
    // SAFETY: blocking read into a valid buffer.
    let n = unsafe { libc::read(report_r.as_raw_fd(), buf.as_mut_ptr().cast(), 3) };
    if n == 3 {
        let mut status = 0;
        // SAFETY: our own child, which is exiting.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let name = child::STEPS.get(buf[0] as usize).copied().unwrap_or("unknown step");
        let errno = i32::from(buf[1]) | (i32::from(buf[2]) << 8);
        return Err(SandboxError::Setup(format!("zygote: {name}: {}", std::io::Error::from_raw_os_error(errno))));
    }
    Ok((pid, log_r, ids))
}

/// The verdict from what was collected and how PID 1 ended (`exit`: wait status and CPU ms, when
/// known; otherwise it was killed, is still being torn down, and this is its CPU time so far).
fn verdict(collected: Collected, exit: Result<(libc::c_int, f64), f64>, oom: bool, wall_ms: f64) -> ExecResult {
    let (exit_code, signal, cpu_ms) = match exit.map_err(Some) {
        Ok((status, cpu_ms)) if libc::WIFEXITED(status) => (Some(libc::WEXITSTATUS(status)), None, cpu_ms),
        Ok((status, cpu_ms)) if libc::WIFSIGNALED(status) => (None, Some(libc::WTERMSIG(status)), cpu_ms),
        Ok((_, cpu_ms)) => (None, None, cpu_ms),
        Err(cpu_so_far) => (None, Some(libc::SIGKILL), cpu_so_far.unwrap_or(0.0)),
    };
    let status = match collected.killed_for {
        Some(io::KillReason::Deadline) => Status::Timeout,
        Some(io::KillReason::Output) => Status::OutputLimit,
        None if oom => Status::MemoryLimit,
        None => match (exit_code, signal) {
            (Some(0), _) => Status::Ok,
            (Some(MEMORY_EXIT_CODE), _) => Status::MemoryLimit,
            (Some(_), _) => Status::RuntimeError,
            (None, Some(libc::SIGXCPU)) => Status::Timeout,
            _ => Status::Killed,
        },
    };
    ExecResult {
        status,
        exit_code,
        signal,
        stdout: collected.stdout,
        stderr: collected.stderr,
        channel: collected.channel,
        wall_ms,
        cpu_ms,
    }
}

/// Run one program in a fresh sandbox (a cold start: clone, set up, execve) and collect its outcome.
pub fn run(req: &ExecRequest, cfg: &SandboxConfig) -> Result<ExecResult, SandboxError> {
    let (child_ends, ends) = io::execution_pipes()?;
    let (sync_r, sync_w) = pipe()?;
    let (report_r, report_w) = pipe()?;
    let ids = HostIds::acquire();
    let group =
        cgroup::Group::create(cfg.memory_mb.saturating_mul(1 << 20), cfg.max_processes).map_err(SandboxError::Setup)?;
    let plan = prepare(
        req,
        cfg,
        &ids,
        child_ends.each_ref().map(|fd| fd.as_raw_fd()),
        sync_r.as_raw_fd(),
        report_w.as_raw_fd(),
        Role::Program,
    )?;
    let start = Instant::now();
    let (pid, pidfd) = start_child(&plan, &ids, group.as_ref(), sync_w)?;
    drop((child_ends, sync_r, report_w));
    let collected = io::watch(&pidfd, ends, Some(report_r), req, cfg, start);
    let oom_killed = |g: &Option<cgroup::Group>| g.as_ref().is_some_and(|g| g.oom_killed());
    let exited = collected.exited;
    let reaped = io::reap(pid, pidfd, exited, move |reaped_now| {
        // Runs once PID 1 is reaped (maybe on a background thread): the uid and the group are free again.
        let oom = reaped_now && oom_killed(&group);
        drop(ids);
        if let Some(g) = group {
            // Removing a memory cgroup waits for the kernel to offline it (~3 ms): not on the verdict's path.
            std::thread::spawn(move || drop(g));
        }
        oom
    });
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    drop(plan);

    if let Some(step) = collected.setup_failure {
        let name = child::STEPS.get(step.0 as usize).copied().unwrap_or("unknown step");
        return Err(SandboxError::Setup(format!("{name}: {}", std::io::Error::from_raw_os_error(step.1))));
    }
    let (exit, oom) = match reaped {
        io::Reaped::Now(status, cpu_ms, oom) => (Ok((status, cpu_ms)), oom),
        io::Reaped::Later(cpu_ms) => (Err(cpu_ms), false),
    };
    Ok(verdict(collected, exit, oom, wall_ms))
}

/// Watcher threads mostly sleep in poll(); when they wake for a deadline they compete with whatever
/// the program started. Where allowed (root), give them a slightly higher priority than the programs.
fn raise_watcher_priority() {
    // SAFETY: adjusts only the calling thread; failure (no CAP_SYS_NICE) is harmless.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, -5);
    }
}

/// Run `reqs` on `threads` worker threads of this call (0: [`default_sandbox_threads`]).
///
/// Not the shared Rayon pools: an execution mostly waits on its child, and concurrent callers (e.g.
/// reward workers) must not queue behind each other's executions.
pub fn run_all(reqs: &[ExecRequest], cfg: &SandboxConfig, threads: usize) -> Vec<Result<ExecResult, SandboxError>> {
    run_each(reqs, threads, |req| run(req, cfg))
}

/// [`run_all`] in the opt-in weaker mode ([`weak`]).
pub fn run_all_weak(
    reqs: &[ExecRequest],
    cfg: &SandboxConfig,
    threads: usize,
) -> Vec<Result<ExecResult, SandboxError>> {
    run_each(reqs, threads, |req| weak::run_weak(req, cfg))
}

/// Executions at a time by default: twice [`verl_ext_core::parallel::default_threads`]. A program that sleeps
/// or waits for its deadline holds a worker but no core, so one worker per core would leave cores
/// idle behind slow programs; CPU-bound ones just share the cores.
pub fn default_sandbox_threads() -> usize {
    verl_ext_core::parallel::default_threads() * 2
}

/// Executions running now in this process, across all callers (bounded by [`default_sandbox_threads`]:
/// concurrent reward workers or nested batches must not oversubscribe the cores, which would make
/// wall-clock deadlines fire on programs that would pass on an idle machine).
static RUNNING: (std::sync::Mutex<usize>, std::sync::Condvar) = (std::sync::Mutex::new(0), std::sync::Condvar::new());

struct Slot;

impl Slot {
    fn acquire() -> Self {
        let (lock, cv) = &RUNNING;
        let mut running = lock.lock().unwrap_or_else(|p| p.into_inner());
        while *running >= default_sandbox_threads() {
            running = cv.wait(running).unwrap_or_else(|p| p.into_inner());
        }
        *running += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let (lock, cv) = &RUNNING;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        cv.notify_one();
    }
}

fn run_each(
    reqs: &[ExecRequest],
    threads: usize,
    one: impl Fn(&ExecRequest) -> Result<ExecResult, SandboxError> + Sync,
) -> Vec<Result<ExecResult, SandboxError>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    let workers = if threads == 0 { default_sandbox_threads() } else { threads }.clamp(1, reqs.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<ExecResult, SandboxError>>>> = reqs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                raise_watcher_priority();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(req) = reqs.get(i) else { break };
                    let slot = Slot::acquire();
                    let result = one(req);
                    drop(slot);
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err(SandboxError::Setup("worker thread ended early".into())))
        })
        .collect()
}
