//! Rust errors and panics -> the exception hierarchy of `verl_ext.exceptions`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use verl_ext_core::CoreError;

/// Instantiate `verl_ext.exceptions.<name>(message)` (not raised).
pub fn exception(py: Python<'_>, name: &str, message: String) -> PyErr {
    let made =
        py.import("verl_ext.exceptions").and_then(|m| m.getattr(name)).and_then(|cls| cls.call1((message.clone(),)));
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(import_error) => import_error,
    }
}

pub fn core_error(py: Python<'_>, err: &CoreError) -> PyErr {
    let name = match err {
        CoreError::NotText { .. } => "InputTypeError",
        CoreError::InvalidFormatSpec(_) | CoreError::InvalidArgument(_) => "InvalidInputError",
    };
    exception(py, name, err.to_string())
}

/// How often a thread waiting for a sandbox batch looks for a pending signal (Ctrl-C).
const SIGNAL_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// [`detached`], with signals handled while `f` runs: `f` runs on a thread of its own, and this thread looks for
/// a pending signal every [`SIGNAL_CHECK`]. When a Python signal handler raises (KeyboardInterrupt on Ctrl-C),
/// every sandbox batch of the process is cancelled (`verl_ext_sandbox::cancel_running`: its executions are
/// killed within 50 ms), `f` is waited for, and the exception is raised. Python runs signal handlers on the
/// main thread only; elsewhere this waits like [`detached`].
pub fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let done = (std::sync::Mutex::new(false), std::sync::Condvar::new());
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let result = catch_unwind(AssertUnwindSafe(f));
            *done.0.lock().unwrap_or_else(|p| p.into_inner()) = true;
            done.1.notify_all();
            result
        });
        loop {
            let finished = py.detach(|| {
                let guard = done.0.lock().unwrap_or_else(|p| p.into_inner());
                let (guard, _) =
                    done.1.wait_timeout_while(guard, SIGNAL_CHECK, |d| !*d).unwrap_or_else(|p| p.into_inner());
                *guard
            });
            if finished {
                break;
            }
            if let Err(interrupt) = py.check_signals() {
                verl_ext_sandbox::cancel_running();
                let _ = py.detach(|| worker.join());
                return Err(interrupt);
            }
        }
        Ok(py.detach(|| worker.join()).unwrap_or_else(Err))
    })?;
    outcome.map_err(|payload| panic_error(py, payload))
}

/// A caught panic as `verl_ext.exceptions.InternalError`.
fn panic_error(py: Python<'_>, payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    exception(py, "InternalError", format!("verl-ext core panicked (please report): {what}"))
}

/// Run `f` with the GIL released; a panic becomes `verl_ext.exceptions.InternalError`.
pub fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    result.map_err(|payload| panic_error(py, payload))
}
