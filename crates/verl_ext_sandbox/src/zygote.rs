//! The zygote: a pre-started interpreter inside the sandbox's read-only root that forks one isolated
//! child per execution, so an execution costs a `clone3` and a few mounts, not an interpreter start.
//!
//! The zygote runs in its own user, PID, mount, network, IPC and UTS namespaces, without capabilities
//! and under a seccomp filter ([`super::seccomp::zygote_filter`]); it never runs untrusted code. For
//! each request it clones a child into *fresh* user, PID, mount, network, IPC and UTS namespaces (the
//! new user namespace gives the child the capabilities for its own mounts and nothing outside). The
//! child maps its ids, mounts a fresh size-capped tmpfs at `/tmp` and a fresh `/proc`, places its
//! pipes, sets rlimits, drops every capability, applies Landlock and seccomp, and returns to the
//! interpreter, which runs the harness. The trainer gets the child's pidfd (to enforce the deadline)
//! and, once the zygote has reaped it, an [`ExitRecord`] on a pipe of its own.
//!
//! Plain Rust, no Python: the interpreter's fork hooks come in as [`Hooks`].

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr;

use seccompiler::BpfProgram;

use super::child::{check, drop_capabilities, fail};
use super::landlock;
use super::protocol::{self, ExitRecord, SpawnLimits, SpawnReply, SPAWN_FDS};
use super::{clone3, seccomp, NAMESPACES};

/// The interpreter's fork hooks (`PyOS_BeforeFork`, `PyOS_AfterFork_Parent`, `PyOS_AfterFork_Child`).
pub struct Hooks {
    pub before: unsafe extern "C" fn(),
    pub parent: unsafe extern "C" fn(),
    pub child: unsafe extern "C" fn(),
}

/// Child set-up steps, in order; the index is what a failing child reports.
pub const STEPS: &[&str] = &[
    "map the user and group ids",
    "make mounts private",
    "mount the scratch tmpfs",
    "mount /proc",
    "enter the scratch directory",
    "set the hostname",
    "move pipes into place",
    "set resource limits",
    "drop capabilities",
    "apply Landlock",
    "install no_new_privs and seccomp filters",
    "start a new session",
];

/// The zygote's uid and gid inside its own user namespace (executions map it to their root).
pub const ZYGOTE_ID: libc::uid_t = 1000;

/// An execution the zygote still has to reap.
struct Live {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    /// Where its [`ExitRecord`] goes (the trainer holds the read end).
    status: OwnedFd,
    /// Set-up failures: (step, errno) written by the child before it runs anything.
    report: OwnedFd,
}

fn log(msg: &str) {
    let line = format!("verl-ext zygote: {msg}\n");
    // SAFETY: writing a valid buffer to stderr (the trainer's log pipe).
    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
}

fn exit_zygote(code: i32) -> ! {
    // The zygote is PID 1 of its namespace: exiting kills every execution still running in it.
    // SAFETY: plain exit, no unwinding through the interpreter.
    unsafe { libc::_exit(code) }
}

/// Serve spawn requests on `control`; exit when the trainer closes it. Returns only in a freshly
/// isolated child, which must then run the execution (fds 0-4 are its pipes) and exit.
///
/// # Safety
/// The calling process must be single-threaded (no other thread may hold a lock across the clone),
/// and the hooks must be callable here (for Python: with the GIL held).
pub unsafe fn serve(control: RawFd, hooks: &Hooks) {
    let filters = match seccomp::filters() {
        Ok(f) => f,
        Err(e) => {
            log(&format!("seccomp filters: {e}"));
            exit_zygote(1)
        }
    };
    let mut live: Vec<Live> = Vec::new();
    loop {
        let mut pfds = Vec::with_capacity(live.len() + 1);
        pfds.push(libc::pollfd { fd: control, events: libc::POLLIN, revents: 0 });
        pfds.extend(live.iter().map(|l| libc::pollfd { fd: l.pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 }));
        if libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, -1) < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            log(&format!("poll: {}", std::io::Error::last_os_error()));
            exit_zygote(1);
        }
        let exited: Vec<usize> = (1..pfds.len()).filter(|&i| pfds[i].revents != 0).map(|i| i - 1).collect();
        for i in exited.into_iter().rev() {
            report_exit(live.swap_remove(i));
        }
        if pfds[0].revents == 0 {
            continue;
        }
        let mut buf = [0u8; SpawnLimits::SIZE];
        let (n, fds) = match protocol::recv_with_fds(control, &mut buf, SPAWN_FDS) {
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
        if spawn(control, &limits, fds, &filters, hooks, &mut live) {
            // The execution: the zygote's descriptors are closed already; forget their owners.
            std::mem::forget(live);
            return;
        }
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: valid out-array; the descriptors are owned right away.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Clone one execution. Returns true in the child (set up, ready to run), false in the zygote.
unsafe fn spawn(
    control: RawFd,
    limits: &SpawnLimits,
    fds: [OwnedFd; SPAWN_FDS],
    filters: &[BpfProgram],
    hooks: &Hooks,
    live: &mut Vec<Live>,
) -> bool {
    let [stdin, stdout, stderr, channel, payload, status] = fds;
    let (report_r, report_w) = match pipe() {
        Ok(p) => p,
        Err(e) => {
            let _ = protocol::send_with_fds(
                control,
                &SpawnReply::Failed(e.raw_os_error().unwrap_or(libc::EIO)).to_bytes(),
                &[],
            );
            return false;
        }
    };
    let scratch_opts = format!("size={}m,mode=1777\0", limits.scratch_mb.max(1));
    let mut pidfd: libc::c_int = -1;
    (hooks.before)();
    let pid = clone3(NAMESPACES, &mut pidfd);
    if pid == 0 {
        (hooks.child)();
        let pipes =
            [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd(), channel.as_raw_fd(), payload.as_raw_fd()];
        isolate(pipes, report_w.as_raw_fd(), limits, &scratch_opts, filters);
        // Descriptors were closed by `isolate`; make sure no destructor closes a reused number.
        std::mem::forget((stdin, stdout, stderr, channel, payload, status, report_r, report_w));
        return true;
    }
    (hooks.parent)();
    if pid < 0 {
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
        let _ = protocol::send_with_fds(control, &SpawnReply::Failed(errno).to_bytes(), &[]);
        return false;
    }
    let pidfd = OwnedFd::from_raw_fd(pidfd);
    drop((stdin, stdout, stderr, channel, payload, report_w));
    if let Err(e) = protocol::send_with_fds(control, &SpawnReply::Started(pid as i32).to_bytes(), &[pidfd.as_raw_fd()])
    {
        log(&format!("reply: {e}"));
        libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), libc::SIGKILL, ptr::null::<u8>(), 0);
    }
    live.push(Live { pid: pid as libc::pid_t, pidfd, status, report: report_r });
    false
}

/// Reap an execution and send its [`ExitRecord`] to the trainer (who may have stopped listening).
fn report_exit(l: Live) {
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter; `l.pid` is our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    while unsafe { libc::wait4(l.pid, &mut status, 0, &mut usage) } < 0 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break;
        }
    }
    let mut failure = [0u8; 3];
    // SAFETY: nonblocking read into a valid buffer; the child wrote at most 3 bytes and is gone.
    let n = unsafe {
        libc::fcntl(l.report.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
        libc::read(l.report.as_raw_fd(), failure.as_mut_ptr().cast(), 3)
    };
    let us = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64;
    let record = ExitRecord {
        wait_status: status,
        setup_step: if n == 3 { i32::from(failure[0]) } else { -1 },
        setup_errno: if n == 3 { i32::from(failure[1]) | (i32::from(failure[2]) << 8) } else { 0 },
        cpu_us: us(usage.ru_utime) + us(usage.ru_stime),
    };
    let bytes = record.to_bytes();
    // SAFETY: a record fits in an empty pipe; EPIPE (trainer gone) is ignored (SIGPIPE is ignored).
    unsafe {
        libc::fcntl(l.status.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
        libc::write(l.status.as_raw_fd(), bytes.as_ptr().cast(), bytes.len());
    }
}

unsafe fn write_file(path: &CStr, data: &[u8]) -> libc::c_int {
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

/// The child's set-up, from full capabilities in its fresh namespaces down to a program that can
/// touch nothing but its pipes and its tmpfs. Failures are reported on `report` and end the child.
unsafe fn isolate(pipes: [RawFd; 5], report: RawFd, limits: &SpawnLimits, scratch_opts: &str, filters: &[BpfProgram]) {
    // Root inside maps to the zygote's id: one id, our own (ZYGOTE_ID).
    check!(report, 0, write_file(c"/proc/self/setgroups", b"deny"));
    check!(report, 0, write_file(c"/proc/self/uid_map", b"0 1000 1\n"));
    check!(report, 0, write_file(c"/proc/self/gid_map", b"0 1000 1\n"));
    // A session of its own: the scheduler's autogroup gives the execution's whole tree one CPU share.
    check!(report, 11, libc::syscall(libc::SYS_setsid));
    check!(
        report,
        1,
        libc::mount(ptr::null(), c"/".as_ptr(), ptr::null(), libc::MS_REC | libc::MS_PRIVATE, ptr::null())
    );
    check!(
        report,
        2,
        libc::mount(
            c"tmpfs".as_ptr(),
            c"/tmp".as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            scratch_opts.as_ptr().cast()
        )
    );
    // A fresh /proc over the zygote's: only this execution's processes are visible.
    check!(
        report,
        3,
        libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            ptr::null()
        )
    );
    check!(report, 4, libc::chdir(c"/tmp".as_ptr()));
    check!(report, 5, libc::sethostname(c"sandbox".as_ptr(), 7));
    // Landlock after our mounts (a Landlock domain may not change its mounts); allowed without
    // no_new_privs because we hold CAP_SYS_ADMIN in our namespace.
    check!(report, 9, landlock::restrict_self());

    // Lift the pipes (and the report pipe) above 0..=5, place them on 0..=4, close everything else.
    let report = libc::fcntl(report, libc::F_DUPFD_CLOEXEC, 100);
    if report < 0 {
        libc::_exit(127);
    }
    let mut lifted = [0; 5];
    for (i, &fd) in pipes.iter().enumerate() {
        lifted[i] = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 100);
        check!(report, 6, lifted[i]);
    }
    for (target, &fd) in lifted.iter().enumerate() {
        check!(report, 6, libc::dup2(fd, target as libc::c_int));
    }
    check!(report, 6, libc::dup2(report, 5));
    let report = 5;
    check!(report, 6, libc::syscall(libc::SYS_close_range, 6u32, u32::MAX, 0u32));

    for (resource, limit) in limits.rlimits() {
        let rl = libc::rlimit { rlim_cur: limit, rlim_max: limit };
        check!(report, 7, libc::setrlimit(resource, &rl));
    }
    check!(report, 8, drop_capabilities());
    for filter in filters {
        if seccompiler::apply_filter(filter).is_err() {
            fail(report, 10);
        }
    }
    libc::close(report);
}
