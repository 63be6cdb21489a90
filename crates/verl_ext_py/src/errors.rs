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

/// Run `f` with the GIL released; a panic becomes `verl_ext.exceptions.InternalError`.
pub fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    result.map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        exception(py, "InternalError", format!("verl-ext core panicked (please report): {what}"))
    })
}
