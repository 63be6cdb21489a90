//! The parent's side of an execution: feed stdin and the payload, read capped outputs, watch the
//! pidfd, and kill PID 1 (hence the whole PID namespace) at the deadline or on an output flood.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::pipe::{pipe_with, PipeFlags};
use rustix::process::{pidfd_send_signal, Signal};

use crate::SandboxError;

/// After PID 1 exits, how long to wait for the pipes to reach EOF. Its pidfd turns readable only once
/// the kernel has killed and reaped the whole namespace, so this only bounds a pathological delay.
const DRAIN_GRACE: Duration = Duration::from_millis(100);
const CHUNK: usize = 64 * 1024;
/// A wake-up that reads at least this much keeps reading at once; less, and the outputs pause.
const READ_IN_BULK: usize = 16 * 1024;
/// The first and the longest pause of the outputs after wake-ups that found little (see [`collect`]).
const READ_PAUSE_MIN: Duration = Duration::from_micros(500);
const READ_PAUSE_MAX: Duration = Duration::from_millis(100);

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

/// A close-on-exec pipe: (read end, write end).
pub fn pipe() -> Result<(OwnedFd, OwnedFd), SandboxError> {
    pipe_with(PipeFlags::CLOEXEC).map_err(|e| {
        SandboxError::busy_or(
            Some(e.raw_os_error()),
            format!("pipe2: {}", std::io::Error::from(e)),
            SandboxError::Setup,
        )
    })
}

/// The five pipes of one execution.
pub fn execution_pipes() -> Result<(ChildEnds, ParentEnds), SandboxError> {
    let (stdin_r, stdin_w) = pipe()?;
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    let (chan_r, chan_w) = pipe()?;
    let (pay_r, pay_w) = pipe()?;
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
        Caps { output: cfg.output_limit, channel: cfg.channel_limit, channel_kept: req.channel_limit },
        // A timeout past what Instant can hold waits "forever" (a year) rather than panicking.
        start.checked_add(cfg.timeout).unwrap_or_else(|| start + Duration::from_secs(365 * 86_400)),
        cfg.epoch,
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
    /// Past this many bytes on the result channel the execution is killed.
    pub channel: usize,
    /// Bytes of the result channel kept, when fewer: the rest is read and dropped (see `ExecRequest`).
    pub channel_kept: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillReason {
    Deadline,
    Output,
    /// The batch was cancelled ([`crate::cancel_running`]).
    Cancelled,
}

#[derive(Debug, Default)]
pub struct Collected {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub channel: Vec<u8>,
    /// The result channel brought more than its kept bytes (the rest was dropped).
    pub channel_overflow: bool,
    pub killed_for: Option<KillReason>,
    pub exited: bool,
    /// (step code, errno) reported by a child that failed before `execve`.
    pub setup_failure: Option<(i32, i32)>,
}

fn nonblocking(fd: &OwnedFd) {
    let _ = rustix::io::ioctl_fionbio(fd, true);
}

/// SIGKILL through the pidfd (it cannot hit a recycled pid); the process may be gone already.
pub fn kill(pidfd: &OwnedFd) {
    let _ = pidfd_send_signal(pidfd, Signal::KILL);
}

/// Block until `buf` is full or EOF; returns the bytes read.
pub fn read_full(fd: BorrowedFd<'_>, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        match rustix::io::read(fd, &mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(Errno::INTR) => continue,
            Err(_) => break,
        }
    }
    got
}

/// Wait up to `timeout` for `fd` to turn readable (or hang up).
pub fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration) -> bool {
    let mut pfd = [PollFd::from_borrowed_fd(fd, PollFlags::IN)];
    let timeout = Timespec::try_from(timeout).unwrap_or(Timespec { tv_sec: i64::MAX, tv_nsec: 0 });
    matches!(poll(&mut pfd, Some(&timeout)), Ok(n) if n > 0)
}

struct Writer<'a> {
    fd: Option<OwnedFd>,
    data: &'a [u8],
}

impl Writer<'_> {
    fn step(&mut self) {
        let Some(fd) = &self.fd else { return };
        if !self.data.is_empty() {
            match rustix::io::write(fd, &self.data[..self.data.len().min(CHUNK)]) {
                Ok(n) => self.data = &self.data[n..],
                Err(Errno::AGAIN | Errno::INTR) => {}
                Err(_) => {
                    self.fd = None; // the reader is gone (EPIPE): nothing more to deliver
                    return;
                }
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
    /// More than `cap` bytes: the execution is killed.
    cap: usize,
    /// Bytes kept (at most `cap`); past them bytes are read and dropped, and `dropped` is set.
    keep: usize,
    read: usize,
    dropped: bool,
}

impl Reader {
    fn new(fd: Option<OwnedFd>, cap: usize, keep: Option<usize>) -> Self {
        Reader { fd, buf: Vec::new(), cap, keep: keep.map_or(cap, |k| k.min(cap)), read: 0, dropped: false }
    }

    /// Read what is available into `chunk` (shared by the readers: zeroed once per execution, not per
    /// wake-up); true when the cap was exceeded. Adds the bytes read to `got`.
    fn step(&mut self, chunk: &mut [u8], got: &mut usize) -> bool {
        let Some(fd) = &self.fd else { return false };
        loop {
            match rustix::io::read(fd, &mut *chunk) {
                Ok(0) => {
                    self.fd = None;
                    return false;
                }
                Ok(n) => {
                    *got += n;
                    self.read = self.read.saturating_add(n);
                    let room = self.keep.saturating_sub(self.buf.len());
                    self.buf.extend_from_slice(&chunk[..n.min(room)]);
                    self.dropped |= n > room;
                    if self.read > self.cap {
                        self.fd = None;
                        return true;
                    }
                }
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return false,
                Err(_) => {
                    self.fd = None;
                    return false;
                }
            }
        }
    }
}

pub fn collect(pidfd: &OwnedFd, streams: Streams<'_>, caps: Caps, deadline: Instant, epoch: u64) -> Collected {
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
        Reader::new(Some(streams.stdout), caps.output, None),
        Reader::new(Some(streams.stderr), caps.output, None),
        Reader::new(Some(streams.channel), caps.channel, caps.channel_kept),
        Reader::new(streams.report, crate::child::FAILURE_LEN, None),
    ];
    let mut stop_at: Option<Instant> = None;
    let mut chunk = vec![0u8; CHUNK];
    // Output is read in bulk, not as it is written: after a wake-up that found little, the outputs are
    // left alone for a while (doubling up to READ_PAUSE_MAX) while the exit and stdin are still watched,
    // so a program that writes a byte at a time costs the trainer a few hundred wake-ups a second at most
    // instead of one per byte. A full pipe buffer is read at once.
    let mut pause = Duration::ZERO;
    let mut readers_at = Instant::now();
    loop {
        let now = Instant::now();
        if out.killed_for.is_none() && !out.exited && now >= deadline {
            kill(pidfd);
            out.killed_for = Some(KillReason::Deadline);
        }
        if out.killed_for.is_none() && crate::cancel::cancelled(epoch) {
            kill(pidfd);
            out.killed_for = Some(KillReason::Cancelled);
        }
        if out.killed_for.is_some() {
            // Killed: what is buffered now is all we keep; do not wait for the teardown.
            let mut got = 0;
            for r in &mut readers {
                r.step(&mut chunk, &mut got);
            }
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
        // Outputs are watched again once the pause is over (at once after the exit: drain everything).
        let watch_readers = out.exited || now >= readers_at;
        // Woken at least every CHECK to see whether the batch was cancelled.
        let mut until = stop_at.unwrap_or(deadline).max(now).min(now + crate::cancel::CHECK);
        if !watch_readers {
            until = until.min(readers_at);
        }
        // Rounded up: waking a little after `until` rather than spinning just before it.
        let timeout = Timespec::try_from(until - now + Duration::from_millis(1)).unwrap_or(Timespec::default());

        // (kind, index) of each ready descriptor: 0 writer, 1 reader, 2 pidfd.
        let ready: Vec<(u8, usize)> = {
            let mut pfds: Vec<PollFd<'_>> = Vec::with_capacity(7);
            let mut slots: Vec<(u8, usize)> = Vec::with_capacity(7);
            for (i, w) in writers.iter().enumerate() {
                if let Some(fd) = &w.fd {
                    pfds.push(PollFd::new(fd, PollFlags::OUT));
                    slots.push((0, i));
                }
            }
            for (i, r) in readers.iter().enumerate() {
                if let Some(fd) = r.fd.as_ref().filter(|_| watch_readers) {
                    pfds.push(PollFd::new(fd, PollFlags::IN));
                    slots.push((1, i));
                }
            }
            if !out.exited {
                pfds.push(PollFd::new(pidfd, PollFlags::IN));
                slots.push((2, 0));
            }
            match poll(&mut pfds, Some(&timeout)) {
                Ok(_) => {}
                Err(Errno::INTR) => continue,
                Err(_) => {
                    kill(pidfd);
                    out.killed_for.get_or_insert(KillReason::Deadline);
                    break;
                }
            }
            pfds.iter().zip(slots).filter(|(p, _)| !p.revents().is_empty()).map(|(_, slot)| slot).collect()
        };
        let mut got = 0;
        let mut woke_readers = false;
        for (kind, i) in ready {
            match kind {
                0 => writers[i].step(),
                1 => {
                    woke_readers = true;
                    if readers[i].step(&mut chunk, &mut got) && i < 3 && out.killed_for.is_none() && !out.exited {
                        kill(pidfd);
                        out.killed_for = Some(KillReason::Output);
                    }
                }
                _ => out.exited = true,
            }
        }
        if woke_readers {
            pause =
                if got >= READ_IN_BULK { Duration::ZERO } else { (pause * 2).clamp(READ_PAUSE_MIN, READ_PAUSE_MAX) };
            readers_at = Instant::now() + pause;
        }
    }
    let [stdout, stderr, channel, report] = readers;
    out.stdout = stdout.buf;
    out.stderr = stderr.buf;
    out.channel_overflow = channel.dropped;
    out.channel = channel.buf;
    out.setup_failure = crate::child::decode_failure(&report.buf);
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
    let hz = rustix::param::clock_ticks_per_second().max(1) as f64;
    (ticks(11) + ticks(12)) * 1e3 / hz
}

/// CPU time so far of the process behind `pidfd` (its pid is in the pidfd's fdinfo), in ms.
pub fn cpu_ms_of_pidfd(pidfd: &OwnedFd) -> f64 {
    use std::os::fd::AsRawFd;

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

/// `wait4` for its rusage (the execution's CPU time), which rustix's `waitpid` does not return.
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
        if !wait_readable(pidfd.as_fd(), TEARDOWN_WAIT) {
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
