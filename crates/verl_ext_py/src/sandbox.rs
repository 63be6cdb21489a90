//! Sandbox entry points of `verl_ext._core`.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use verl_ext_sandbox::warm::{self, ZygoteSpec};
use verl_ext_sandbox::{self as sandbox, probe, zygote, ExecRequest, SandboxConfig, SandboxError};

use crate::errors::{detached, exception, interruptible};

/// `(argv, env, stdin, payload)` as Python passes it.
type RequestTuple = (Vec<String>, Vec<(String, String)>, Vec<u8>, Vec<u8>);

fn sandbox_error(py: Python<'_>, e: &SandboxError) -> PyErr {
    let name = match e {
        SandboxError::Unsupported(_) => "SandboxUnavailableError",
        SandboxError::Setup(_) | SandboxError::Busy(_) => "SandboxError",
        SandboxError::Invalid(_) => "InvalidInputError",
        SandboxError::Cancelled => "SandboxCancelledError",
    };
    exception(py, name, e.to_string())
}

/// Run each request `(argv, env, stdin, payload)` in its own sandbox, in parallel, GIL released.
///
/// `start`: `"cold"` (a new process runs `argv`), `"warm"` (a zygote started as `argv` with `env`, the
/// same for every request and ending in `_zygote_serve(3)`, forks each execution; `mapped_paths` are
/// host directories `(host, inside)` it sees read-only at another place), or `"weak"` (the opt-in
/// mode without namespaces; see `weak.rs`).
///
/// `channel_limit` kills an execution that writes more on its result channel; `channel_limits` (one per
/// request) are the bytes kept of each: past them the channel is read and dropped, the run goes on, and
/// its `channel_overflow` says so.
///
/// Returns one dict per request (status, exit_code, signal, stdout, stderr, channel, channel_overflow,
/// wall_ms, cpu_ms),
/// or an exception instance (not raised) where the sandbox itself failed.
#[pyfunction]
#[pyo3(signature = (requests, *, timeout_s, memory_mb, output_limit, channel_limit, scratch_mb, max_processes,
                    max_open_files, max_file_mb, read_only_paths, num_threads=0, start="cold",
                    mapped_paths=Vec::new(), channel_limits=None, epoch=None))]
#[allow(clippy::too_many_arguments)]
pub fn sandbox_run_many<'py>(
    py: Python<'py>,
    requests: Vec<RequestTuple>,
    timeout_s: f64,
    memory_mb: u64,
    output_limit: usize,
    channel_limit: usize,
    scratch_mb: u64,
    max_processes: u64,
    max_open_files: u64,
    max_file_mb: u64,
    read_only_paths: Vec<PathBuf>,
    num_threads: usize,
    start: &str,
    mapped_paths: Vec<(PathBuf, PathBuf)>,
    channel_limits: Option<Vec<usize>>,
    epoch: Option<u64>,
) -> PyResult<Bound<'py, PyList>> {
    if !(timeout_s.is_finite() && timeout_s > 0.0 && timeout_s <= 3600.0) {
        return Err(exception(py, "InvalidInputError", format!("timeout_s must be in (0, 3600], got {timeout_s}")));
    }
    let cfg = SandboxConfig {
        timeout: Duration::from_secs_f64(timeout_s),
        memory_mb,
        output_limit,
        channel_limit,
        scratch_mb,
        max_processes,
        max_open_files,
        max_file_mb,
        read_only_paths: SandboxConfig::default().read_only_paths.into_iter().chain(read_only_paths).collect(),
        mapped_paths,
        // The cancel epoch of the scoring this batch belongs to (`sandbox_epoch()` when it began): a batch
        // that starts after a cancel of its scoring is cancelled at once instead of running.
        epoch: epoch.unwrap_or_else(sandbox::cancel_epoch),
    };
    if channel_limits.as_ref().is_some_and(|l| l.len() != requests.len()) {
        return Err(exception(py, "InvalidInputError", "channel_limits must have one limit per request".into()));
    }
    let limits = channel_limits.map_or_else(|| vec![None; requests.len()], |l| l.into_iter().map(Some).collect());
    let reqs: Vec<ExecRequest> = requests
        .into_iter()
        .zip(limits)
        .map(|((argv, env, stdin, payload), channel_limit)| ExecRequest { argv, env, stdin, payload, channel_limit })
        .collect();
    let out = match start {
        "cold" => interruptible(py, || sandbox::run_all(&reqs, &cfg, num_threads))?,
        "weak" => interruptible(py, || sandbox::run_all_weak(&reqs, &cfg, num_threads))?,
        "warm" => {
            let Some(first) = reqs.first() else { return Ok(PyList::empty(py)) };
            if reqs.iter().any(|r| r.argv != first.argv || r.env != first.env) {
                return Err(exception(py, "InvalidInputError", "warm requests must share argv and env".into()));
            }
            let spec = ZygoteSpec {
                argv: first.argv.clone(),
                env: first.env.clone(),
                read_only_paths: cfg.read_only_paths.clone(),
                mapped_paths: cfg.mapped_paths.clone(),
            };
            interruptible(py, || warm::run_all_warm(&spec, &reqs, &cfg, num_threads))?
        }
        other => {
            return Err(exception(py, "InvalidInputError", format!("start must be cold, warm or weak, got {other:?}")))
        }
    };
    let list = PyList::empty(py);
    for r in out {
        match r {
            Ok(r) => {
                let d = PyDict::new(py);
                d.set_item("status", r.status.as_str())?;
                d.set_item("exit_code", r.exit_code)?;
                d.set_item("signal", r.signal)?;
                d.set_item("stdout", PyBytes::new(py, &r.stdout))?;
                d.set_item("stderr", PyBytes::new(py, &r.stderr))?;
                d.set_item("channel", PyBytes::new(py, &r.channel))?;
                d.set_item("channel_overflow", r.channel_overflow)?;
                d.set_item("wall_ms", r.wall_ms)?;
                d.set_item("cpu_ms", r.cpu_ms)?;
                list.append(d)?;
            }
            Err(e) => list.append(sandbox_error(py, &e).into_value(py))?,
        }
    }
    Ok(list)
}

/// Cancel every sandbox batch running in this process: their executions are killed within 50 ms and each
/// reports `SandboxCancelledError`. Batches started afterwards run normally, unless `closing` (the process is
/// exiting): then every later batch is cancelled too.
#[pyfunction]
#[pyo3(signature = (closing = false))]
pub fn sandbox_cancel_running(closing: bool) {
    if closing {
        sandbox::close_batches();
    } else {
        sandbox::cancel_running();
    }
}

/// The current cancel epoch: pass it as `sandbox_run_many(epoch=...)` to every batch of one scoring, so
/// that a cancel while it runs also stops the batches it starts afterwards.
#[pyfunction]
pub fn sandbox_epoch() -> u64 {
    sandbox::cancel_epoch()
}

/// Stop all zygotes of this process (anything still running in them is killed).
#[pyfunction]
pub fn sandbox_shutdown(py: Python<'_>) -> PyResult<()> {
    detached(py, warm::shutdown)
}

/// Executions this process runs at once at most (twice `VERL_EXT_NUM_THREADS` or the cores).
#[pyfunction]
pub fn default_sandbox_threads() -> usize {
    sandbox::default_sandbox_threads()
}

/// Number of zygotes alive in this process.
#[pyfunction]
pub fn sandbox_live_zygotes() -> usize {
    warm::live_zygotes()
}

/// Inside a zygote only: serve spawn requests on descriptor `control` until the trainer closes it
/// (then the process exits). Returns in each forked execution, isolated and ready to run.
/// Raises `RuntimeError` (before serving) where the zygote's preconditions do not hold: more than one
/// thread, or `control` not a socket. (No `verl_ext.exceptions` here: a zygote loads only this module.)
#[pyfunction]
pub fn _zygote_serve(control: i32) -> PyResult<()> {
    // Called with the GIL held (not detached), as `serve` checks.
    zygote::Hooks::python().and_then(|hooks| zygote::serve(control, &hooks)).map_err(PyRuntimeError::new_err)
}

/// Try a full sandbox on this host with `argv`; returns what works.
#[pyfunction]
pub fn sandbox_probe<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    read_only_paths: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let caps = detached(py, || probe::probe(argv, read_only_paths))?;
    let d = PyDict::new(py);
    d.set_item("full_isolation", caps.full_isolation)?;
    d.set_item("error", caps.error)?;
    d.set_item("seccomp", caps.seccomp)?;
    d.set_item("landlock_abi", caps.landlock_abi)?;
    d.set_item("cgroups", caps.cgroups)?;
    d.set_item("cpu_share", caps.cpu_share)?;
    d.set_item("cpu_share_warm", caps.cpu_share_warm)?;
    d.set_item("memory", caps.memory)?;
    d.set_item("memfd", caps.memfd)?;
    d.set_item("socket_families", caps.socket_families)?;
    d.set_item("denied_syscalls", sandbox::seccomp::denied_syscalls().collect::<Vec<_>>())?;
    d.set_item("allowed_syscalls", sandbox::seccomp::allowed_syscalls().collect::<Vec<_>>())?;
    Ok(d)
}
