//! The symbolic math verifier (`verl_ext_core::mathverify`) for Python: all work with the GIL released.

use pyo3::prelude::*;
use verl_ext_core::mathverify;

use crate::errors::detached;

/// `(equal, reason)` for each (prediction, reference) pair.
#[pyfunction]
#[pyo3(signature = (predictions, references, num_threads=0))]
pub fn math_equal_batch(
    py: Python<'_>,
    predictions: Vec<String>,
    references: Vec<String>,
    num_threads: usize,
) -> PyResult<Vec<(bool, String)>> {
    detached(py, || {
        let pairs: Vec<(&str, &str)> =
            predictions.iter().map(String::as_str).zip(references.iter().map(String::as_str)).collect();
        mathverify::math_equal_batch(&pairs, num_threads).into_iter().map(|v| (v.equal, v.reason)).collect()
    })
}

/// `(score, extracted prediction or None, reason)` for each (solution, ground truth) pair.
#[pyfunction]
#[pyo3(signature = (solutions, ground_truths, num_threads=0))]
pub fn math_verify_batch(
    py: Python<'_>,
    solutions: Vec<String>,
    ground_truths: Vec<String>,
    num_threads: usize,
) -> PyResult<Vec<(f64, Option<String>, String)>> {
    detached(py, || {
        let pairs: Vec<(&str, &str)> =
            solutions.iter().map(String::as_str).zip(ground_truths.iter().map(String::as_str)).collect();
        mathverify::verify_batch(&pairs, num_threads).into_iter().map(|v| (v.score, v.prediction, v.reason)).collect()
    })
}
