//! The trainer's side of warm starts: a pool of zygotes (see [`crate::zygote`]) per interpreter set-up,
//! and [`run_warm`], which asks one to fork an execution and then watches it like a cold one: it feeds
//! stdin and the payload, caps the outputs and kills the execution's PID 1 through its pidfd at the
//! deadline. The zygote reaps the execution and reports how it ended on a pipe of the execution's own.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};

use crate::io::{self, pipe};
use crate::protocol::{self, ExitRecord, SpawnLimits, SpawnReply};
use crate::setup::Step;
use crate::{limiter, limits, verdict, ExecRequest, ExecResult, SandboxConfig, SandboxError};

/// How long a spawn may wait for a zygote's reply (a fresh zygote imports its modules first).
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);
/// After an execution's PID 1 exited on its own, how long to wait for the zygote's exit record.
const RECORD_WAIT: Duration = Duration::from_secs(2);
/// After a kill, how long to wait for the record before answering without it (the kernel finishes
/// the teardown in the background; nothing there runs user code again).
const TEARDOWN_WAIT: Duration = Duration::from_millis(10);
/// Bytes of a zygote's own stderr kept for error messages.
const LOG_KEEP: usize = 8192;

/// How to start a zygote: the interpreter command (it must end up in `_zygote_serve(3)`), its
/// environment and the host paths it sees read-only.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ZygoteSpec {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub read_only_paths: Vec<PathBuf>,
    pub mapped_paths: Vec<(PathBuf, PathBuf)>,
}

struct Zygote {
    control: Mutex<OwnedFd>,
    dead: Arc<AtomicBool>,
    log: Arc<Mutex<Vec<u8>>>,
}

impl Zygote {
    fn log_text(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&log).trim().to_string()
    }

    fn start(spec: &ZygoteSpec, cfg: &SandboxConfig) -> Result<Arc<Self>, SandboxError> {
        let (ours, theirs) = socketpair(AddressFamily::UNIX, SocketType::SEQPACKET, SocketFlags::CLOEXEC, None)
            .map_err(|e| SandboxError::Setup(format!("socketpair: {}", std::io::Error::from(e))))?;
        let dead = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let req = ExecRequest {
            argv: spec.argv.clone(),
            env: spec.env.clone(),
            stdin: vec![],
            payload: vec![],
            channel_limit: None,
        };
        let zcfg = SandboxConfig {
            read_only_paths: spec.read_only_paths.clone(),
            mapped_paths: spec.mapped_paths.clone(),
            ..cfg.clone()
        };
        let (dead2, log2) = (dead.clone(), log.clone());
        // The zygote dies with the thread that cloned it (PR_SET_PDEATHSIG), so a keeper thread of its
        // own clones it, collects its log and reaps it when it ends.
        std::thread::Builder::new()
            .name("verl-ext-zygote".into())
            .spawn(move || {
                let started = crate::cold::launch_zygote(&req, &zcfg, theirs);
                let (pid, log_r, ids) = match started {
                    Ok(s) => s,
                    Err(e) => {
                        dead2.store(true, Ordering::SeqCst);
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                let _ = tx.send(Ok(()));
                let mut buf = [0u8; 4096];
                loop {
                    match rustix::io::read(&log_r, &mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            let mut log = log2.lock().unwrap_or_else(|p| p.into_inner());
                            log.extend_from_slice(&buf[..n]);
                            let excess = log.len().saturating_sub(LOG_KEEP);
                            log.drain(..excess);
                        }
                        Err(Errno::INTR) => {}
                        Err(_) => break,
                    }
                }
                dead2.store(true, Ordering::SeqCst);
                let _ = rustix::process::waitpid(
                    rustix::process::Pid::from_raw(pid),
                    rustix::process::WaitOptions::empty(),
                );
                drop(ids);
            })
            .map_err(|e| SandboxError::Setup(format!("zygote thread: {e}")))?;
        match rx.recv() {
            Ok(Ok(())) => Ok(Arc::new(Self { control: Mutex::new(ours), dead, log })),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SandboxError::Setup("zygote thread ended early".into())),
        }
    }

    /// Ask for one execution with the given child-side descriptors; returns its pidfd.
    fn spawn(&self, limits: &SpawnLimits, fds: &[BorrowedFd<'_>; protocol::SPAWN_FDS]) -> Result<OwnedFd, SpawnError> {
        let control = self.control.lock().unwrap_or_else(|p| p.into_inner());
        let sock = control.as_fd();
        protocol::send_with_fds(sock, &limits.to_bytes(), fds).map_err(|e| SpawnError::Gone(e.to_string()))?;
        if !io::wait_readable(sock, REPLY_TIMEOUT) {
            self.dead.store(true, Ordering::SeqCst);
            return Err(SpawnError::Gone("no reply from the zygote".into()));
        }
        let mut buf = [0u8; 8];
        let (n, mut got) = protocol::recv_with_fds(sock, &mut buf).map_err(|e| SpawnError::Gone(e.to_string()))?;
        match SpawnReply::from_bytes(&buf[..n]) {
            None => Err(SpawnError::Gone("the zygote closed its socket".into())),
            Some(SpawnReply::Failed(errno)) => Err(SpawnError::Failed(
                errno,
                format!("clone3 in the zygote: {}", std::io::Error::from_raw_os_error(errno)),
            )),
            Some(SpawnReply::Started(_)) => got.pop().ok_or_else(|| SpawnError::Gone("reply without a pidfd".into())),
        }
    }
}

enum SpawnError {
    /// The zygote is gone or wedged: start another.
    Gone(String),
    /// The clone failed (errno, message).
    Failed(i32, String),
}

struct Pool {
    spec: ZygoteSpec,
    zygotes: Vec<Arc<Zygote>>,
}

static POOLS: Mutex<Vec<Pool>> = Mutex::new(Vec::new());
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Zygotes per set-up: forking is serial in a zygote (~1 ms), so one serves several cores.
fn pool_size() -> usize {
    verl_ext_core::parallel::default_threads().div_ceil(8).max(1)
}

fn zygote_for(spec: &ZygoteSpec, cfg: &SandboxConfig) -> Result<Arc<Zygote>, SandboxError> {
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    let index = match pools.iter().position(|p| &p.spec == spec) {
        Some(i) => i,
        None => {
            pools.push(Pool { spec: spec.clone(), zygotes: Vec::new() });
            pools.len() - 1
        }
    };
    let pool = &mut pools[index];
    pool.zygotes.retain(|z| !z.dead.load(Ordering::SeqCst));
    let slot = NEXT.fetch_add(1, Ordering::Relaxed) % pool_size();
    if slot < pool.zygotes.len() {
        return Ok(pool.zygotes[slot].clone());
    }
    let z = Zygote::start(spec, cfg)?;
    pool.zygotes.push(z.clone());
    Ok(z)
}

/// Stop every zygote (they and anything still running in them are killed).
pub fn shutdown() {
    POOLS.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// Zygotes alive now (for `doctor` and tests).
pub fn live_zygotes() -> usize {
    let pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    pools.iter().flat_map(|p| &p.zygotes).filter(|z| !z.dead.load(Ordering::SeqCst)).count()
}

/// Run one execution (`stdin` and `payload` of `req`; its argv and env are the zygote's) on a zygote
/// started from `spec`.
pub fn run_warm(spec: &ZygoteSpec, req: &ExecRequest, cfg: &SandboxConfig) -> Result<ExecResult, SandboxError> {
    cfg.validate()?;
    let mut attempts = 0;
    loop {
        let zygote = zygote_for(spec, cfg)?;
        match run_on(&zygote, req, cfg) {
            Err(SpawnError::Gone(why)) => {
                zygote.dead.store(true, Ordering::SeqCst);
                attempts += 1;
                if attempts >= 2 {
                    let log = zygote.log_text();
                    return Err(SandboxError::Setup(format!(
                        "the sandbox's zygote failed ({why}){}",
                        if log.is_empty() { String::new() } else { format!("; its log: {log}") }
                    )));
                }
            }
            Err(SpawnError::Failed(errno, why)) => {
                return Err(SandboxError::busy_or(Some(errno), why, SandboxError::Unsupported))
            }
            Ok(r) => return r,
        }
    }
}

fn run_on(
    zygote: &Zygote,
    req: &ExecRequest,
    cfg: &SandboxConfig,
) -> Result<Result<ExecResult, SandboxError>, SpawnError> {
    let pipes = io::execution_pipes().and_then(|p| Ok((p, pipe()?)));
    let ((child_ends, ends), (st_r, st_w)) = match pipes {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let start = Instant::now();
    let [stdin_r, out_w, err_w, chan_w, pay_r] = child_ends.each_ref().map(|fd| fd.as_fd());
    let pidfd = zygote.spawn(
        &SpawnLimits::from_config(cfg, limits::nproc_limit_per_userns(cfg)),
        &[stdin_r, out_w, err_w, chan_w, pay_r, st_w.as_fd()],
    )?;
    drop((child_ends, st_w));
    let collected = io::watch(&pidfd, ends, None, req, cfg, start);
    let cpu_at_kill = (!collected.exited).then(|| {
        let cpu = io::cpu_ms_of_pidfd(&pidfd);
        io::kill(&pidfd);
        cpu
    });
    let record = read_record(&st_r, if collected.exited { RECORD_WAIT } else { TEARDOWN_WAIT });
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(rec) = record.filter(|r| r.setup_step >= 0) {
        return Ok(Err(SandboxError::Setup(Step::describe_failure(rec.setup_step, rec.setup_errno))));
    }
    let exit = record.map(|r| (r.wait_status, r.cpu_us as f64 / 1e3)).ok_or(cpu_at_kill.unwrap_or(0.0));
    Ok(Ok(verdict::verdict(collected, exit, false, wall_ms)))
}

fn read_record(fd: &OwnedFd, wait: Duration) -> Option<ExitRecord> {
    let deadline = Instant::now() + wait;
    let mut buf = [0u8; ExitRecord::SIZE];
    let mut got = 0;
    while got < buf.len() {
        if !io::wait_readable(fd.as_fd(), deadline.saturating_duration_since(Instant::now())) {
            return None;
        }
        match rustix::io::read(fd, &mut buf[got..]) {
            Ok(0) => return None,
            Ok(n) => got += n,
            Err(Errno::INTR) => {}
            Err(_) => return None,
        }
    }
    ExitRecord::from_bytes(&buf)
}

/// Run `reqs` on warm zygotes, `threads` at a time (0: [`crate::default_sandbox_threads`]).
pub fn run_all_warm(
    spec: &ZygoteSpec,
    reqs: &[ExecRequest],
    cfg: &SandboxConfig,
    threads: usize,
) -> Vec<Result<ExecResult, SandboxError>> {
    limiter::run_each(reqs, threads, cfg.epoch, |req| run_warm(spec, req, cfg))
}
