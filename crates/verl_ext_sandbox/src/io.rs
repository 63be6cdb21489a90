//! The parent's side of an execution: feed stdin and the payload, read capped outputs, watch the
//! pidfd, and kill PID 1 (hence the whole PID namespace) at the deadline or on an output flood.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// After PID 1 exits, how long to wait for the pipes to reach EOF. Its pidfd turns readable only once
/// the kernel has killed and reaped the whole namespace, so this only bounds a pathological delay.
const DRAIN_GRACE: Duration = Duration::from_millis(100);
const CHUNK: usize = 64 * 1024;

/// The child's ends of an execution's pipes, in the order of its descriptors 0-4: stdin, stdout,
/// stderr, result channel, payload.
pub type ChildEnds = [OwnedFd; 5];

/// The trainer's ends of the same pipes.
pub struct ParentEnds {
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub channel: OwnedFd,
    pub payload: OwnedFd,
}

/// The five pipes of one execution.
pub fn execution_pipes() -> Result<(ChildEnds, ParentEnds), super::SandboxError> {
    let (stdin_r, stdin_w) = super::pipe()?;
    let (out_r, out_w) = super::pipe()?;
    let (err_r, err_w) = super::pipe()?;
    let (chan_r, chan_w) = super::pipe()?;
    let (pay_r, pay_w) = super::pipe()?;
    Ok((
        [stdin_r, out_w, err_w, chan_w, pay_r],
        ParentEnds { stdin: stdin_w, stdout: out_r, stderr: err_r, channel: chan_r, payload: pay_w },
    ))
}

/// [`collect`] for an execution of `req` under `cfg` that started at `start`.
pub fn watch(
    pidfd: &OwnedFd,
    ends: ParentEnds,
    report: Option<OwnedFd>,
    req: &super::ExecRequest,
    cfg: &super::SandboxConfig,
    start: Instant,
) -> Collected {
    collect(
        pidfd,
        Streams {
            stdin: (ends.stdin, &req.stdin),
            payload: (ends.payload, &req.payload),
            stdout: ends.stdout,
            stderr: ends.stderr,
            channel: ends.channel,
            report,
        },
        Caps { output: cfg.output_limit, channel: cfg.channel_limit },
        start + cfg.timeout,
    )
}

pub struct Streams<'a> {
    pub stdin: (OwnedFd, &'a [u8]),
    pub payload: (OwnedFd, &'a [u8]),
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub channel: OwnedFd,
    /// Set-up failures of a cold start (none for warm starts: the zygote reports those).
    pub report: Option<OwnedFd>,
}

pub struct Caps {
    pub output: usize,
    pub channel: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillReason {
    Deadline,
    Output,
}

#[derive(Debug, Default)]
pub struct Collected {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub channel: Vec<u8>,
    pub killed_for: Option<KillReason>,
    pub exited: bool,
    /// (step index, errno) reported by a child that failed before `execve`.
    pub setup_failure: Option<(u8, i32)>,
}

fn nonblocking(fd: &OwnedFd) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

pub fn kill(pidfd: &OwnedFd) {
    // SAFETY: signal through our pidfd; cannot hit a recycled pid.
    unsafe {
        libc::syscall(libc::SYS_pidfd_send_signal, pidfd.as_raw_fd(), libc::SIGKILL, std::ptr::null::<u8>(), 0);
    }
}

struct Writer<'a> {
    fd: Option<OwnedFd>,
    data: &'a [u8],
}

impl Writer<'_> {
    fn step(&mut self) {
        let Some(fd) = &self.fd else { return };
        if !self.data.is_empty() {
            // SAFETY: valid buffer and descriptor.
            let n = unsafe { libc::write(fd.as_raw_fd(), self.data.as_ptr().cast(), self.data.len().min(CHUNK)) };
            if n > 0 {
                self.data = &self.data[n as usize..];
            } else if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::WouldBlock {
                self.fd = None; // the reader is gone (EPIPE): nothing more to deliver
                return;
            }
        }
        if self.data.is_empty() {
            self.fd = None; // EOF for the child
        }
    }
}

struct Reader {
    fd: Option<OwnedFd>,
    buf: Vec<u8>,
    cap: usize,
}

impl Reader {
    /// Read what is available; true when the cap was exceeded.
    fn step(&mut self) -> bool {
        let Some(fd) = &self.fd else { return false };
        let mut chunk = [0u8; CHUNK];
        loop {
            // SAFETY: valid buffer and descriptor.
            let n = unsafe { libc::read(fd.as_raw_fd(), chunk.as_mut_ptr().cast(), chunk.len()) };
            if n > 0 {
                let n = n as usize;
                let room = self.cap.saturating_sub(self.buf.len());
                self.buf.extend_from_slice(&chunk[..n.min(room)]);
                if n > room {
                    self.fd = None;
                    return true;
                }
            } else {
                if n == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::WouldBlock {
                    self.fd = None;
                }
                return false;
            }
        }
    }
}

pub fn collect(pidfd: &OwnedFd, streams: Streams<'_>, caps: Caps, deadline: Instant) -> Collected {
    let mut out = Collected::default();
    for fd in [&streams.stdin.0, &streams.payload.0, &streams.stdout, &streams.stderr, &streams.channel]
        .into_iter()
        .chain(streams.report.as_ref())
    {
        nonblocking(fd);
    }
    let mut writers = [
        Writer { fd: Some(streams.stdin.0), data: streams.stdin.1 },
        Writer { fd: Some(streams.payload.0), data: streams.payload.1 },
    ];
    let mut readers = [
        Reader { fd: Some(streams.stdout), buf: Vec::new(), cap: caps.output },
        Reader { fd: Some(streams.stderr), buf: Vec::new(), cap: caps.output },
        Reader { fd: Some(streams.channel), buf: Vec::new(), cap: caps.channel },
        Reader { fd: streams.report, buf: Vec::new(), cap: 3 },
    ];
    let mut stop_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if out.killed_for.is_none() && !out.exited && now >= deadline {
            kill(pidfd);
            out.killed_for = Some(KillReason::Deadline);
        }
        if out.killed_for.is_some() {
            // Killed: what is buffered now is all we keep; do not wait for the teardown.
            for r in readers.iter_mut().take(3) {
                r.step();
            }
            readers[3].step();
            break;
        }
        if out.exited && stop_at.is_none() {
            stop_at = Some(now + DRAIN_GRACE);
        }
        if readers.iter().all(|r| r.fd.is_none()) && out.exited {
            break;
        }
        if stop_at.is_some_and(|t| now >= t) {
            break;
        }
        let until = stop_at.unwrap_or(deadline).max(now);
        let timeout_ms = (until - now).as_millis().min(i32::MAX as u128) as i32 + 1;

        let mut pfds: Vec<libc::pollfd> = Vec::with_capacity(7);
        let mut slots: Vec<(u8, usize)> = Vec::with_capacity(7); // (kind, index): 0 writer, 1 reader, 2 pidfd
        for (i, w) in writers.iter().enumerate() {
            if let Some(fd) = &w.fd {
                pfds.push(libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLOUT, revents: 0 });
                slots.push((0, i));
            }
        }
        for (i, r) in readers.iter().enumerate() {
            if let Some(fd) = &r.fd {
                pfds.push(libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 });
                slots.push((1, i));
            }
        }
        if !out.exited {
            pfds.push(libc::pollfd { fd: pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 });
            slots.push((2, 0));
        }
        // SAFETY: valid array of pollfd.
        let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            kill(pidfd);
            out.killed_for.get_or_insert(KillReason::Deadline);
            break;
        }
        for (pfd, &(kind, i)) in pfds.iter().zip(&slots) {
            if pfd.revents == 0 {
                continue;
            }
            match kind {
                0 => writers[i].step(),
                1 => {
                    if readers[i].step() && i < 3 && out.killed_for.is_none() && !out.exited {
                        kill(pidfd);
                        out.killed_for = Some(KillReason::Output);
                    }
                }
                _ => out.exited = true,
            }
        }
    }
    let [stdout, stderr, channel, report] = readers;
    out.stdout = stdout.buf;
    out.stderr = stderr.buf;
    out.channel = channel.buf;
    if report.buf.len() == 3 {
        out.setup_failure = Some((report.buf[0], i32::from(report.buf[1]) | (i32::from(report.buf[2]) << 8)));
    }
    out
}

/// After killing PID 1, how long to wait for the kernel to tear the namespace down before handing the
/// reaping to a background thread. Teardown takes ~4 ms per process here (a 64-process fork bomb:
/// ~250 ms); every process has SIGKILL pending by then and never runs user code again, so the verdict
/// does not wait for it.
const TEARDOWN_WAIT: Duration = Duration::from_millis(10);

/// CPU time (user + system) of a live or dying process, from `/proc/<pid>/stat`, in ms.
fn cpu_ms_from_proc(pid: libc::pid_t) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0.0 };
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
    let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: sysconf is always safe to call.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    (ticks(11) + ticks(12)) * 1e3 / hz
}

/// CPU time so far of the process behind `pidfd` (its pid is in the pidfd's fdinfo), in ms.
pub fn cpu_ms_of_pidfd(pidfd: &OwnedFd) -> f64 {
    let Ok(info) = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", pidfd.as_raw_fd())) else { return 0.0 };
    info.lines()
        .find_map(|l| l.strip_prefix("Pid:"))
        .and_then(|p| p.trim().parse::<libc::pid_t>().ok())
        .filter(|&p| p > 0)
        .map_or(0.0, cpu_ms_from_proc)
}

pub enum Reaped {
    /// Wait status, CPU time in ms, and what `on_reaped` returned.
    Now(libc::c_int, f64, bool),
    /// Killed and still being torn down: CPU time so far; a background thread reaps it.
    Later(f64),
}

fn wait4(pid: libc::pid_t) -> (libc::c_int, libc::rusage) {
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: our own child.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return (status, usage);
        }
    }
}

/// Reap PID 1, killing it first unless it already exited; `on_reaped(now)` runs right after (on a
/// background thread when the teardown outlasts [`TEARDOWN_WAIT`], then with `now == false`).
pub fn reap(
    pid: libc::pid_t,
    pidfd: OwnedFd,
    exited: bool,
    on_reaped: impl FnOnce(bool) -> bool + Send + 'static,
) -> Reaped {
    if !exited {
        kill(&pidfd);
        let mut pfd = libc::pollfd { fd: pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, TEARDOWN_WAIT.as_millis() as i32) } > 0;
        if !ready {
            let cpu = cpu_ms_from_proc(pid);
            std::thread::spawn(move || {
                wait4(pid);
                drop(pidfd);
                on_reaped(false);
            });
            return Reaped::Later(cpu);
        }
    }
    let (status, usage) = wait4(pid);
    let flag = on_reaped(true);
    let ms = |tv: libc::timeval| tv.tv_sec as f64 * 1e3 + tv.tv_usec as f64 / 1e3;
    Reaped::Now(status, ms(usage.ru_utime) + ms(usage.ru_stime), flag)
}
