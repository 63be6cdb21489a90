//! Sandbox entry points of `verl_ext._core`.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use verl_ext_core::sandbox::warm::{self, ZygoteSpec};
use verl_ext_core::sandbox::{self, probe, zygote, ExecRequest, ExecResult, SandboxConfig, SandboxError};

use crate::errors::{detached, exception};

/// `(argv, env, stdin, payload)` as Python passes it.
type RequestTuple = (Vec<String>, Vec<(String, String)>, Vec<u8>, Vec<u8>);

fn sandbox_error(py: Python<'_>, e: &SandboxError) -> PyErr {
    let name = match e {
        SandboxError::Unsupported(_) => "SandboxUnavailableError",
        SandboxError::Setup(_) => "SandboxError",
        SandboxError::Invalid(_) => "InvalidInputError",
    };
    exception(py, name, e.to_string())
}

#[allow(clippy::too_many_arguments)]
fn config(
    py: Python<'_>,
    timeout_s: f64,
    memory_mb: u64,
    output_limit: usize,
    channel_limit: usize,
    scratch_mb: u64,
    max_processes: u64,
    max_open_files: u64,
    max_file_mb: u64,
    read_only_paths: Vec<PathBuf>,
) -> PyResult<SandboxConfig> {
    if !(timeout_s.is_finite() && timeout_s > 0.0 && timeout_s <= 3600.0) {
        return Err(exception(py, "InvalidInputError", format!("timeout_s must be in (0, 3600], got {timeout_s}")));
    }
    Ok(SandboxConfig {
        timeout: Duration::from_secs_f64(timeout_s),
        memory_mb,
        output_limit,
        channel_limit,
        scratch_mb,
        max_processes,
        max_open_files,
        max_file_mb,
        read_only_paths: SandboxConfig::default().read_only_paths.into_iter().chain(read_only_paths).collect(),
        mapped_paths: Vec::new(),
    })
}

fn results<'py>(py: Python<'py>, results: Vec<Result<ExecResult, SandboxError>>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for r in results {
        match r {
            Ok(r) => {
                let d = PyDict::new(py);
                d.set_item("status", r.status.as_str())?;
                d.set_item("exit_code", r.exit_code)?;
                d.set_item("signal", r.signal)?;
                d.set_item("stdout", PyBytes::new(py, &r.stdout))?;
                d.set_item("stderr", PyBytes::new(py, &r.stderr))?;
                d.set_item("channel", PyBytes::new(py, &r.channel))?;
                d.set_item("wall_ms", r.wall_ms)?;
                d.set_item("cpu_ms", r.cpu_ms)?;
                out.append(d)?;
            }
            Err(e) => out.append(sandbox_error(py, &e).into_value(py))?,
        }
    }
    Ok(out)
}

/// Run each request `(argv, env, stdin, payload)` in its own sandbox (cold start), in parallel, GIL
/// released.
///
/// Returns one dict per request (status, exit_code, signal, stdout, stderr, channel, wall_ms, cpu_ms),
/// or an exception instance (not raised) where the sandbox itself failed.
///
/// `weak=True` runs them in the opt-in weaker mode instead (no namespaces; see `weak.rs`).
#[pyfunction]
#[pyo3(signature = (requests, *, timeout_s, memory_mb, output_limit, channel_limit, scratch_mb, max_processes,
                    max_open_files, max_file_mb, read_only_paths, num_threads=0, weak=false))]
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
    weak: bool,
) -> PyResult<Bound<'py, PyList>> {
    let cfg = config(
        py,
        timeout_s,
        memory_mb,
        output_limit,
        channel_limit,
        scratch_mb,
        max_processes,
        max_open_files,
        max_file_mb,
        read_only_paths,
    )?;
    let reqs: Vec<ExecRequest> =
        requests.into_iter().map(|(argv, env, stdin, payload)| ExecRequest { argv, env, stdin, payload }).collect();
    let out = detached(py, || {
        if weak {
            sandbox::run_all_weak(&reqs, &cfg, num_threads)
        } else {
            sandbox::run_all(&reqs, &cfg, num_threads)
        }
    })?;
    results(py, out)
}

/// Like `sandbox_run_many`, but each request `(stdin, payload)` is forked by a warm zygote started
/// as `zygote_argv` (which must call `_zygote_serve(3)`) with `zygote_env`; `mapped_paths` are host
/// directories `(host, inside)` the zygote sees read-only at another place.
#[pyfunction]
#[pyo3(signature = (zygote_argv, zygote_env, requests, *, timeout_s, memory_mb, output_limit, channel_limit,
                    scratch_mb, max_processes, max_open_files, max_file_mb, read_only_paths, mapped_paths,
                    num_threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn sandbox_run_warm<'py>(
    py: Python<'py>,
    zygote_argv: Vec<String>,
    zygote_env: Vec<(String, String)>,
    requests: Vec<(Vec<u8>, Vec<u8>)>,
    timeout_s: f64,
    memory_mb: u64,
    output_limit: usize,
    channel_limit: usize,
    scratch_mb: u64,
    max_processes: u64,
    max_open_files: u64,
    max_file_mb: u64,
    read_only_paths: Vec<PathBuf>,
    mapped_paths: Vec<(PathBuf, PathBuf)>,
    num_threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let mut cfg = config(
        py,
        timeout_s,
        memory_mb,
        output_limit,
        channel_limit,
        scratch_mb,
        max_processes,
        max_open_files,
        max_file_mb,
        read_only_paths,
    )?;
    cfg.mapped_paths = mapped_paths;
    let spec = ZygoteSpec {
        argv: zygote_argv,
        env: zygote_env,
        read_only_paths: cfg.read_only_paths.clone(),
        mapped_paths: cfg.mapped_paths.clone(),
    };
    let reqs: Vec<ExecRequest> = requests
        .into_iter()
        .map(|(stdin, payload)| ExecRequest { argv: spec.argv.clone(), env: vec![], stdin, payload })
        .collect();
    let out = detached(py, || warm::run_all_warm(&spec, &reqs, &cfg, num_threads))?;
    results(py, out)
}

/// Stop all zygotes of this process (anything still running in them is killed).
#[pyfunction]
pub fn sandbox_shutdown(py: Python<'_>) -> PyResult<()> {
    detached(py, warm::shutdown)
}

/// Number of zygotes alive in this process.
#[pyfunction]
pub fn sandbox_live_zygotes() -> usize {
    warm::live_zygotes()
}

/// Inside a zygote only: serve spawn requests on descriptor `control` until the trainer closes it
/// (then the process exits). Returns in each forked execution, isolated and ready to run.
#[pyfunction]
pub fn _zygote_serve(control: i32) {
    let hooks = zygote::Hooks {
        before: pyo3::ffi::PyOS_BeforeFork,
        parent: pyo3::ffi::PyOS_AfterFork_Parent,
        child: pyo3::ffi::PyOS_AfterFork_Child,
    };
    // SAFETY: the zygote's interpreter is single-threaded and we hold the GIL (not detached).
    unsafe { zygote::serve(control, &hooks) }
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
    d.set_item("denied_syscalls", sandbox::seccomp::denied_syscalls().collect::<Vec<_>>())?;
    d.set_item("allowed_syscalls", sandbox::seccomp::allowed_syscalls().collect::<Vec<_>>())?;
    Ok(d)
}
