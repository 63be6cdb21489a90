//! The zygote: a pre-started interpreter inside the sandbox's read-only root that forks one isolated
//! child per execution, so an execution costs a `clone3` and a few mounts, not an interpreter start.
//!
//! The zygote runs in its own user, PID, mount, network, IPC and UTS namespaces, holding only
//! CAP_SETUID and CAP_SETGID in its own namespace (to clone each execution as an id of its own, see
//! [`ZYGOTE_ID`]), under a seccomp filter ([`crate::seccomp::zygote_filter`]); it never runs untrusted code. For
//! each request it clones a child into *fresh* user, PID, mount, network, IPC and UTS namespaces (the
//! new user namespace gives the child the capabilities for its own mounts and nothing outside). The
//! child runs the same set-up as a cold start (`setup`) on a warm plan (`plan::warm`):
//! it maps its own id, starts a session, places its pipes, mounts a fresh size-capped tmpfs at `/tmp`
//! and a fresh `/proc`, applies Landlock, sets rlimits, drops every capability, installs seccomp, and
//! returns to the interpreter, which runs the harness. The trainer gets the child's pidfd (to enforce
//! the deadline) and, once the zygote has reaped it, an exit record on a pipe of its own.
//!
//! Plain Rust: the only things of the interpreter it uses are CPython's fork hooks ([`Hooks::python`]),
//! looked up by name in the running process, as `os.fork` runs them.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

use rustix::event::{poll, PollFd, PollFlags};
use rustix::io::Errno;
use rustix::process::{pidfd_send_signal, Signal};
use seccompiler::BpfProgram;

use crate::child::{decode_failure, FAILURE_LEN, ZYGOTE_ID};
use crate::clone::{clone3, NAMESPACES};
use crate::ids::ExecutionIds;
use crate::io::pipe;
use crate::protocol::{self, ExitRecord, SpawnLimits, SpawnReply, SPAWN_FDS};
use crate::{plan, seccomp, setup};

/// The interpreter's fork hooks (`PyOS_BeforeFork`, `PyOS_AfterFork_Parent`, `PyOS_AfterFork_Child`), and
/// `PyGILState_Check` to tell whether the calling thread may run them.
pub struct Hooks {
    before: unsafe extern "C" fn(),
    parent: unsafe extern "C" fn(),
    child: unsafe extern "C" fn(),
    gil_held: unsafe extern "C" fn() -> libc::c_int,
}

impl Hooks {
    /// CPython's hooks, from the interpreter this process runs (an error where it runs none).
    pub fn python() -> Result<Self, String> {
        fn symbol(name: &std::ffi::CStr) -> Result<*mut libc::c_void, String> {
            // SAFETY: dlsym with a NUL-terminated name only looks the symbol up.
            let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
            if found.is_null() {
                Err(format!("{} not found: not in a Python interpreter", name.to_string_lossy()))
            } else {
                Ok(found)
            }
        }
        // SAFETY: CPython's stable ABI declares these as `void f(void)` and `int PyGILState_Check(void)`.
        unsafe {
            Ok(Hooks {
                before: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn()>(symbol(c"PyOS_BeforeFork")?),
                parent: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn()>(symbol(
                    c"PyOS_AfterFork_Parent",
                )?),
                child: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn()>(symbol(
                    c"PyOS_AfterFork_Child",
                )?),
                gil_held: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn() -> libc::c_int>(symbol(
                    c"PyGILState_Check",
                )?),
            })
        }
    }
}

/// Threads of this process (from `/proc/self/task`).
fn thread_count() -> Result<usize, String> {
    Ok(std::fs::read_dir("/proc/self/task").map_err(|e| format!("reading /proc/self/task: {e}"))?.count())
}

/// The ids the zygote may clone executions as, from its own `uid_map`, if it can take them on.
fn execution_ids() -> Option<ExecutionIds> {
    let map = std::fs::read_to_string("/proc/self/uid_map").ok()?;
    let ids = ExecutionIds::after(ZYGOTE_ID, &map)?;
    // SAFETY: plain id changes of this single-threaded process, undone at once.
    unsafe { become_id(ZYGOTE_ID + 1) && become_id(ZYGOTE_ID) }.then_some(ids)
}

/// Take on `id` as real, effective and saved uid and gid (with the zygote's CAP_SETUID/CAP_SETGID).
/// Raw system calls: libc's wrappers would signal threads the zygote does not have.
///
/// # Safety
/// Only in the single-threaded zygote.
unsafe fn become_id(id: libc::uid_t) -> bool {
    // SAFETY: raw setres[ug]id with plain integers.
    unsafe {
        libc::syscall(libc::SYS_setresgid, id, id, id) == 0 && libc::syscall(libc::SYS_setresuid, id, id, id) == 0
    }
}

/// An execution the zygote still has to reap.
struct Live {
    pid: libc::pid_t,
    /// Its id, if one of its own (free again once it is reaped).
    id: Option<libc::uid_t>,
    pidfd: OwnedFd,
    /// Where its exit record goes (the trainer holds the read end).
    status: OwnedFd,
    /// Set-up failures: (step, errno) written by the child before it runs anything.
    report: OwnedFd,
}

fn log(msg: &str) {
    let line = format!("verl-ext zygote: {msg}\n");
    let _ = rustix::io::write(rustix::stdio::stderr(), line.as_bytes());
}

fn exit_zygote(code: i32) -> ! {
    // The zygote is PID 1 of its namespace: exiting kills every execution still running in it.
    // SAFETY: plain exit, no unwinding through the interpreter.
    unsafe { libc::_exit(code) }
}

/// Serve spawn requests on `control` (a socket this process keeps open); exit when the trainer closes it.
/// Returns `Ok` only in a freshly isolated child, which must then run the execution (fds 0-4 are its
/// pipes) and exit. Refuses (before serving anything) unless the process is single-threaded (no other
/// thread may hold a lock across the clone), the calling thread holds the interpreter's lock (the hooks
/// run interpreter code), and `control` is a socket.
pub fn serve(control: RawFd, hooks: &Hooks) -> Result<(), String> {
    match thread_count()? {
        1 => {}
        n => return Err(format!("the zygote must be single-threaded, it has {n} threads")),
    }
    // SAFETY: PyGILState_Check only reads the calling thread's state.
    if unsafe { (hooks.gil_held)() } != 1 {
        return Err("the zygote must be served holding the interpreter's lock".into());
    }
    let stat = rustix::fs::fstat(
        // SAFETY: fstat of a descriptor number borrowed for this call only; EBADF if none is open.
        unsafe { BorrowedFd::borrow_raw(control) },
    )
    .map_err(|e| format!("control descriptor {control}: {}", std::io::Error::from(e)))?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::Socket {
        return Err(format!("control descriptor {control} is not a socket"));
    }
    // SAFETY: an open socket (checked above), which the zygote never closes while it serves.
    let control = unsafe { BorrowedFd::borrow_raw(control) };
    // SAFETY: the preconditions of `run` were checked above.
    unsafe { run(control, hooks) };
    Ok(())
}

/// The serving loop of [`serve`]; returns only in a forked execution.
///
/// # Safety
/// As checked by [`serve`]: single-threaded, with the interpreter's lock held, `control` open.
unsafe fn run(control: BorrowedFd<'_>, hooks: &Hooks) {
    // SAFETY: the caller (`serve`) checked this function's preconditions.
    unsafe {
        let filters = match seccomp::filters() {
            Ok(f) => f,
            Err(e) => {
                log(&format!("seccomp filters: {e}"));
                exit_zygote(1)
            }
        };
        let mut ids = execution_ids();
        let mut live: Vec<Live> = Vec::new();
        loop {
            let ready: Vec<bool> = {
                let mut pfds = Vec::with_capacity(live.len() + 1);
                pfds.push(PollFd::from_borrowed_fd(control, PollFlags::IN));
                pfds.extend(live.iter().map(|l| PollFd::new(&l.pidfd, PollFlags::IN)));
                match poll(&mut pfds, None) {
                    Ok(_) => {}
                    Err(Errno::INTR) => continue,
                    Err(e) => {
                        log(&format!("poll: {}", std::io::Error::from(e)));
                        exit_zygote(1);
                    }
                }
                pfds.iter().map(|p| !p.revents().is_empty()).collect()
            };
            let exited: Vec<usize> = (1..ready.len()).filter(|&i| ready[i]).map(|i| i - 1).collect();
            for i in exited.into_iter().rev() {
                let l = live.swap_remove(i);
                let id = l.id;
                report_exit(l);
                if let (Some(ids), Some(id)) = (ids.as_mut(), id) {
                    ids.release(id);
                }
            }
            if !ready[0] {
                continue;
            }
            let mut buf = [0u8; SpawnLimits::SIZE];
            let (n, fds) = match protocol::recv_with_fds(control, &mut buf) {
                Ok(got) => got,
                Err(e) => {
                    log(&format!("control socket: {e}"));
                    exit_zygote(1);
                }
            };
            if n == 0 {
                exit_zygote(0);
            }
            let (Some(limits), Ok(fds)) = (SpawnLimits::from_bytes(&buf[..n]), <[OwnedFd; SPAWN_FDS]>::try_from(fds))
            else {
                let _ = protocol::send_with_fds(control, &SpawnReply::Failed(libc::EINVAL).to_bytes(), &[]);
                continue;
            };
            if spawn(control, &limits, fds, &filters, hooks, ids.as_mut(), &mut live) {
                // The execution: the zygote's descriptors are closed already; forget their owners.
                std::mem::forget(live);
                return;
            }
        }
    }
}

/// Clone one execution. Returns true in the child (set up, ready to run), false in the zygote.
unsafe fn spawn(
    control: BorrowedFd<'_>,
    limits: &SpawnLimits,
    fds: [OwnedFd; SPAWN_FDS],
    filters: &[BpfProgram],
    hooks: &Hooks,
    ids: Option<&mut ExecutionIds>,
    live: &mut Vec<Live>,
) -> bool {
    // SAFETY: the zygote is single-threaded with the interpreter's lock held (checked by `serve`); the child only runs the set-up before returning to the interpreter.
    unsafe {
        let [stdin, stdout, stderr, channel, payload, status] = fds;
        let refuse = |errno: i32| {
            let _ = protocol::send_with_fds(control, &SpawnReply::Failed(errno).to_bytes(), &[]);
            false
        };
        let Ok((report_r, report_w)) = pipe() else { return refuse(libc::EMFILE) };
        let pipes =
            [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd(), channel.as_raw_fd(), payload.as_raw_fd()];
        // All ids taken (more executions at once than the zygote has ids): share the zygote's.
        let mut ids = ids;
        let id = ids.as_deref_mut().and_then(ExecutionIds::take);
        let release = |ids: Option<&mut ExecutionIds>| {
            if let (Some(ids), Some(id)) = (ids, id) {
                ids.release(id);
            }
        };
        let Ok(plan) = plan::warm(pipes, report_w.as_raw_fd(), limits, filters, id.unwrap_or(ZYGOTE_ID)) else {
            release(ids);
            return refuse(libc::EINVAL);
        };
        let mut pidfd: libc::c_int = -1;
        (hooks.before)();
        // Cloned as its id, the child's user namespace is owned by that id, and its root can map to it.
        let pid = if id.is_none_or(|id| become_id(id)) { clone3(NAMESPACES, &mut pidfd) } else { -1 };
        if pid == 0 {
            (hooks.child)();
            setup::apply(&plan);
            // Descriptors were closed by the set-up; make sure no destructor closes a reused number.
            std::mem::forget((stdin, stdout, stderr, channel, payload, status, report_r, report_w));
            return true;
        }
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
        if id.is_some() && !become_id(ZYGOTE_ID) {
            log("cannot take the zygote's own id back");
            exit_zygote(1);
        }
        (hooks.parent)();
        if pid < 0 {
            release(ids);
            return refuse(errno);
        }
        let pidfd = OwnedFd::from_raw_fd(pidfd);
        drop((stdin, stdout, stderr, channel, payload, report_w));
        if let Err(e) = protocol::send_with_fds(control, &SpawnReply::Started(pid as i32).to_bytes(), &[pidfd.as_fd()])
        {
            log(&format!("reply: {e}"));
            let _ = pidfd_send_signal(&pidfd, Signal::KILL);
        }
        live.push(Live { pid: pid as libc::pid_t, id, pidfd, status, report: report_r });
        false
    }
}

/// Reap an execution and send its exit record to the trainer (who may have stopped listening).
fn report_exit(l: Live) {
    let mut status = 0;
    // wait4 for the rusage (the execution's CPU time), which rustix's waitpid does not return.
    // SAFETY: zeroed rusage is a valid out-parameter; `l.pid` is our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above: a waitable child of ours and out-parameters of the kernel's layout.
    while unsafe { libc::wait4(l.pid, &mut status, 0, &mut usage) } < 0 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break;
        }
    }
    let mut failure = [0u8; FAILURE_LEN];
    // Nonblocking: the child wrote its whole report or nothing, and is gone.
    let _ = rustix::io::ioctl_fionbio(&l.report, true);
    let n = rustix::io::read(&l.report, &mut failure).unwrap_or(0);
    let (setup_step, setup_errno) = decode_failure(&failure[..n]).unwrap_or((-1, 0));
    let us = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64;
    let record =
        ExitRecord { wait_status: status, setup_step, setup_errno, cpu_us: us(usage.ru_utime) + us(usage.ru_stime) };
    // A record fits in an empty pipe; EPIPE (trainer gone) is ignored (SIGPIPE is ignored).
    let _ = rustix::io::ioctl_fionbio(&l.status, true);
    let _ = rustix::io::write(&l.status, &record.to_bytes());
}
