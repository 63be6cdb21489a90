//! The symbolic math verifier (`verl_ext_core::mathverify`) for Python: all work with the GIL released.

use pyo3::prelude::*;
use verl_ext_core::mathverify::{self, Options, Targets};

use crate::errors::detached;

fn options(
    float_rounding: Option<u32>,
    strict: bool,
    allow_set_relation_comp: bool,
    extraction: &[String],
    choices: &str,
) -> Options {
    // Python checks the values; the cap here keeps the core's rounding bounded whatever a caller passes.
    let float_rounding = float_rounding.map(|d| d.min(mathverify::MAX_FLOAT_ROUNDING));
    let has = |t: &str| extraction.iter().any(|e| e == t);
    let targets = Targets {
        latex: has("latex"),
        expr: has("expr"),
        string: has("string"),
        answer_letters: false,
        choices: Targets::letters(choices),
    };
    Options { float_rounding, strict, allow_set_relation_comp, targets }
}

/// `(equal, reason)` for each (prediction, reference) pair.
#[pyfunction]
#[pyo3(signature = (predictions, references, num_threads=0, float_rounding=None, strict=true, allow_set_relation_comp=false))]
pub fn math_equal_batch(
    py: Python<'_>,
    predictions: Vec<String>,
    references: Vec<String>,
    num_threads: usize,
    float_rounding: Option<u32>,
    strict: bool,
    allow_set_relation_comp: bool,
) -> PyResult<Vec<(bool, String)>> {
    let opts = options(float_rounding, strict, allow_set_relation_comp, &[], "");
    detached(py, || {
        let pairs: Vec<(&str, &str)> =
            predictions.iter().map(String::as_str).zip(references.iter().map(String::as_str)).collect();
        mathverify::math_equal_batch(&pairs, &opts, num_threads).into_iter().map(|v| (v.equal, v.reason)).collect()
    })
}

/// `(score, extracted prediction or None, reason)` for each (solution, ground truth) pair.
#[pyfunction]
#[pyo3(signature = (solutions, ground_truths, num_threads=0, float_rounding=None, strict=true, allow_set_relation_comp=false, extraction=vec!["latex".to_owned(), "expr".to_owned()], choices="ABCDE".to_owned()))]
#[allow(clippy::too_many_arguments)]
pub fn math_verify_batch(
    py: Python<'_>,
    solutions: Vec<String>,
    ground_truths: Vec<String>,
    num_threads: usize,
    float_rounding: Option<u32>,
    strict: bool,
    allow_set_relation_comp: bool,
    extraction: Vec<String>,
    choices: String,
) -> PyResult<Vec<(f64, Option<String>, String)>> {
    let opts = options(float_rounding, strict, allow_set_relation_comp, &extraction, &choices);
    detached(py, || {
        let pairs: Vec<(&str, &str)> =
            solutions.iter().map(String::as_str).zip(ground_truths.iter().map(String::as_str)).collect();
        mathverify::verify_batch(&pairs, &opts, num_threads)
            .into_iter()
            .map(|v| (v.score, v.prediction, v.reason))
            .collect()
    })
}
