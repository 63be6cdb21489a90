//! The verdict: a status from how PID 1 ended and what the parent collected (never from what the
//! program printed).

use crate::io::{Collected, KillReason};
use crate::{ExecResult, Status, MEMORY_EXIT_CODE};

/// The verdict from what was collected and how PID 1 ended (`exit`: wait status and CPU ms, when
/// known; otherwise it was killed, is still being torn down, and this is its CPU time so far).
pub fn verdict(collected: Collected, exit: Result<(libc::c_int, f64), f64>, oom: bool, wall_ms: f64) -> ExecResult {
    let (exit_code, signal, cpu_ms) = match exit {
        Ok((status, cpu_ms)) if libc::WIFEXITED(status) => (Some(libc::WEXITSTATUS(status)), None, cpu_ms),
        Ok((status, cpu_ms)) if libc::WIFSIGNALED(status) => (None, Some(libc::WTERMSIG(status)), cpu_ms),
        Ok((_, cpu_ms)) => (None, None, cpu_ms),
        Err(cpu_so_far) => (None, Some(libc::SIGKILL), cpu_so_far),
    };
    let status = match collected.killed_for {
        Some(KillReason::Deadline) => Status::Timeout,
        Some(KillReason::Output) => Status::OutputLimit,
        // Replaced by `SandboxError::Cancelled` for the whole batch (limiter::run_each).
        Some(KillReason::Cancelled) => Status::Killed,
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
        channel_overflow: collected.channel_overflow,
        wall_ms,
        cpu_ms,
    }
}
