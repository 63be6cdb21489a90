//! `verl_ext._core`: the compiled module. Only conversions, exceptions and GIL release live here;
//! all behaviour is in `verl_ext_core` and `verl_ext_sandbox` (where all `unsafe` code lives).
#![forbid(unsafe_code)]

mod convert;
mod errors;
mod mathverify;
mod reward;
mod sandbox;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<reward::FormatSpec>()?;
    m.add_function(wrap_pyfunction!(reward::score_batch, m)?)?;
    m.add_function(wrap_pyfunction!(reward::native_scorer, m)?)?;
    m.add_function(wrap_pyfunction!(reward::default_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(mathverify::math_equal_batch, m)?)?;
    m.add_function(wrap_pyfunction!(mathverify::math_verify_batch, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::sandbox_run_many, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::sandbox_probe, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::sandbox_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::sandbox_cancel_running, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::sandbox_epoch, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::default_sandbox_threads, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::sandbox_live_zygotes, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox::_zygote_serve, m)?)?;
    Ok(())
}
