//! What callers pass and get back: limits and file-system view, a request, its result, the errors.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

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
    /// The host was short of a resource (descriptors, processes, memory) for one execution, after retries:
    /// that execution cannot be scored, the others can ([`SandboxError::busy_or`]).
    #[error("sandbox busy: {0}")]
    Busy(String),
    /// The batch was stopped ([`crate::cancel_running`]): the execution was not run, or was killed.
    #[error("sandbox batch cancelled (interrupted)")]
    Cancelled,
}

impl SandboxError {
    /// Errors of the host running short of something for a moment (descriptors, processes, memory).
    pub const TRANSIENT_ERRNOS: [i32; 4] = [libc::EAGAIN, libc::ENOMEM, libc::EMFILE, libc::ENFILE];

    /// [`SandboxError::Busy`] when `errno` is transient, else what `otherwise` makes of the message.
    pub fn busy_or(errno: Option<i32>, why: String, otherwise: fn(String) -> SandboxError) -> SandboxError {
        match errno {
            Some(e) if Self::TRANSIENT_ERRNOS.contains(&e) => SandboxError::Busy(why),
            _ => otherwise(why),
        }
    }
}

/// Limits and the file-system view of one execution.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub timeout: Duration,
    /// Address-space limit (RLIMIT_AS) of each process, not of the execution: without a per-execution
    /// cgroup (the default) an execution's processes may together hold up to `memory_mb` x `max_processes`.
    /// With `VERL_EXT_SANDBOX_CGROUPS=1` (cold starts) the execution's cgroup also caps their sum at
    /// `memory_mb`. Either way every sandboxed process has `oom_score_adj` 1000 ([`crate::Step`]).
    pub memory_mb: u64,
    /// Bytes kept per output stream (stdout, stderr); more kills the execution (`output_limit`).
    pub output_limit: usize,
    /// Bytes accepted on the result channel (fd 3) before the execution is killed. Keep it independent of
    /// anything the program must not learn (expected outputs): the moment of a kill is visible to it.
    pub channel_limit: usize,
    /// Size of the private tmpfs mounted at /tmp, the working directory and only writable place.
    pub scratch_mb: u64,
    /// RLIMIT_NPROC: processes and threads of the execution (see `ids::HostIds`).
    pub max_processes: u64,
    /// RLIMIT_NOFILE, at least [`MIN_OPEN_FILES`]. With `max_processes` it also bounds the socket buffers
    /// an execution can fill (see the crate's docs).
    pub max_open_files: u64,
    /// RLIMIT_FSIZE.
    pub max_file_mb: u64,
    /// Host paths visible read-only at the same place inside.
    pub read_only_paths: Vec<PathBuf>,
    /// Host directories visible read-only at another place inside: `(host, inside)`.
    pub mapped_paths: Vec<(PathBuf, PathBuf)>,
    /// The cancellation epoch the batch belongs to ([`crate::cancel_running`] stops it).
    pub epoch: u64,
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
            max_open_files: 64,
            max_file_mb: 64,
            read_only_paths: ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"].iter().map(PathBuf::from).collect(),
            mapped_paths: Vec::new(),
            epoch: crate::cancel::epoch(),
        }
    }
}

/// The lowest `max_open_files`: descriptors 0-5 are the execution's pipes and its set-up report, and an
/// interpreter opens a few more while starting.
pub const MIN_OPEN_FILES: u64 = 16;

impl SandboxConfig {
    /// Refuse limits no execution could start under (as [`SandboxError::Invalid`], naming the field).
    pub fn validate(&self) -> Result<(), SandboxError> {
        if self.max_open_files < MIN_OPEN_FILES {
            return Err(SandboxError::Invalid(format!(
                "max_open_files must be at least {MIN_OPEN_FILES} (descriptors 0-5 are the execution's own), got {}",
                self.max_open_files
            )));
        }
        Ok(())
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
    /// Bytes of the result channel kept for this execution, when fewer than the batch's
    /// (`SandboxConfig::channel_limit`): past them the channel is still read, its bytes dropped, and the
    /// result says so (`channel_overflow`); the run goes on as if nothing happened. A budget may come from
    /// expected outputs, so exceeding it must change nothing the program can see (a kill at that moment
    /// told a program the length of its hidden answer).
    pub channel_limit: Option<usize>,
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
    /// More than the execution's kept channel bytes ([`ExecRequest::channel_limit`]) came: `channel` is cut.
    pub channel_overflow: bool,
    pub wall_ms: f64,
    pub cpu_ms: f64,
}
