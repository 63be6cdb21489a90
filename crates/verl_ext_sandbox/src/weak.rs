//! The opt-in weaker mode (`rlimits-only`), for hosts that cannot give the full sandbox (e.g. an
//! unprivileged container without user namespaces). A program runs as a plain child of the trainer:
//! its own session and process group, a fresh private directory as working directory (removed
//! afterwards), a scrubbed environment, rlimits, `no_new_privs` and the seccomp allow-list where the
//! kernel has seccomp. The parent keeps the deadline (pidfd) and the output caps, kills the whole
//! process group at the end, and still decides the verdict.
//!
//! What it does NOT give: a private file-system view (the program can read whatever the trainer's
//! user can), network isolation, a PID namespace (a daemon that leaves the process group survives),
//! per-execution process limits (RLIMIT_NPROC counts the trainer's user) and Landlock.

use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use rustix::process::{kill_process_group, pidfd_open, Pid, PidfdFlags, Signal};

use crate::limits::{self, SpawnLimits};
use crate::{io, seccomp, verdict, ExecRequest, ExecResult, SandboxConfig, SandboxError};

/// A private directory under the host's temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> Result<Self, SandboxError> {
        use std::os::unix::fs::DirBuilderExt;
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);

        // The trainer's pid in the name: whose directory it is, for cleanup checks on a shared host. mkdir
        // never reuses an existing path (nor follows a planted link): on a name taken already, try another.
        let mut last = None;
        for _ in 0..16 {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("verl-ext-weak-{}-{n}-{nanos:08x}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(Self(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(SandboxError::Setup(format!("creating {}: {e}", dir.display()))),
            }
        }
        Err(SandboxError::Setup(format!("no fresh private directory in the temp dir: {last:?}")))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// SIGKILL to the execution's own process group (its leader is our child, not yet reaped).
fn kill_group(pgid: Pid) {
    let _ = kill_process_group(pgid, Signal::KILL);
}

/// Run one program in the weaker mode and collect its outcome.
pub fn run_weak(req: &ExecRequest, cfg: &SandboxConfig) -> Result<ExecResult, SandboxError> {
    cfg.validate()?;
    let argv0 = req.argv.first().ok_or_else(|| SandboxError::Invalid("empty argv".into()))?;
    let ([stdin_r, out_w, err_w, chan_w, pay_r], ends) = io::execution_pipes()?;
    let scratch = Scratch::create()?;
    let filters = seccomp::filters().ok();
    let limits = SpawnLimits::from_config(cfg, limits::nproc_limit_shared(cfg)).rlimits();
    let (chan_fd, pay_fd) = (chan_w.as_raw_fd(), pay_r.as_raw_fd());
    let mut cmd = Command::new(argv0);
    cmd.args(&req.argv[1..])
        .env_clear()
        .envs(req.env.iter().map(|(k, v)| (k, v)))
        .env("HOME", &scratch.0)
        .env("TMPDIR", &scratch.0)
        .current_dir(&scratch.0)
        .stdin(Stdio::from(stdin_r))
        .stdout(Stdio::from(out_w))
        .stderr(Stdio::from(err_w));
    // SAFETY: only async-signal-safe raw syscalls run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let fail = || Err(std::io::Error::last_os_error());
            // At most nice 0: not the raised priority of the watcher thread that forked us (setup::Step::ResetPriority).
            if libc::setsid() < 0 || crate::setup::lower_to_nice_zero() < 0 {
                return fail();
            }
            // Best effort (the host's /proc is writable here, so the program may lower it again, down to 0):
            // the OOM killer's first choice, as in the full sandbox.
            let fd = libc::open(c"/proc/self/oom_score_adj".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd >= 0 {
                libc::write(fd, crate::child::OOM_SCORE_ADJ.as_ptr().cast(), crate::child::OOM_SCORE_ADJ.len());
                libc::close(fd);
            }
            let chan = libc::fcntl(chan_fd, libc::F_DUPFD, 100);
            let pay = libc::fcntl(pay_fd, libc::F_DUPFD, 100);
            if chan < 0 || pay < 0 || libc::dup2(chan, 3) < 0 || libc::dup2(pay, 4) < 0 {
                return fail();
            }
            for &(resource, limit) in &limits {
                let rl = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                if libc::setrlimit(resource, &rl) < 0 {
                    return fail();
                }
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 {
                return fail();
            }
            if let Some(filters) = &filters {
                for f in filters {
                    if seccompiler::apply_filter(f).is_err() {
                        return fail();
                    }
                }
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| SandboxError::Setup(format!("starting {argv0}: {e}")))?;
    drop(cmd); // closes our copies of the child's stdio ends
    drop((chan_w, pay_r));
    let pid = Pid::from_child(&child);
    let pidfd = match pidfd_open(pid, PidfdFlags::empty()) {
        Ok(fd) => fd,
        Err(e) => {
            kill_group(pid);
            let _ = child.wait();
            return Err(SandboxError::Setup(format!("pidfd_open: {}", std::io::Error::from(e))));
        }
    };
    let collected = io::watch(&pidfd, ends, None, req, cfg, start);
    // Whatever the program left in its process group goes with it.
    kill_group(pid);
    let cpu_ms = io::cpu_ms_of_pidfd(&pidfd); // still readable while it is a zombie
    let status = child.wait().map_err(|e| SandboxError::Setup(format!("wait: {e}")))?;
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    drop(scratch);
    Ok(verdict::verdict(collected, Ok((status.into_raw(), cpu_ms)), false, wall_ms))
}
