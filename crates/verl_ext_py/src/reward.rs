//! Reward scoring entry points of `verl_ext._core`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use verl_ext_core::{dispatch, CoreError, Sample, Score, Scorer, Value};

use crate::convert::{extract_text, to_py_str, Text};
use crate::errors::{core_error, detached};

/// A compiled format-reward tag structure (see `verl_ext.reward.FormatReward`).
#[pyclass(module = "verl_ext._core", frozen)]
pub struct FormatSpec {
    inner: verl_ext_core::FormatSpec,
}

#[pymethods]
impl FormatSpec {
    #[new]
    fn new(py: Python<'_>, tags: Vec<String>) -> PyResult<Self> {
        verl_ext_core::FormatSpec::new(&tags).map(|inner| Self { inner }).map_err(|e| core_error(py, &e))
    }

    #[getter]
    fn tags(&self) -> Vec<String> {
        self.inner.tags().to_vec()
    }

    /// 1.0 when `response` follows the tag structure, else 0.0.
    fn score(&self, py: Python<'_>, response: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(match extract_text(response)? {
            Some(t) => detached(py, || self.inner.score(&t.text))?,
            None => 0.0,
        })
    }

    fn __repr__(&self) -> String {
        format!("FormatSpec(tags={:?})", self.inner.tags())
    }
}

/// The verl module that scores `data_source` natively, or None.
#[pyfunction]
pub fn native_scorer(data_source: &str) -> Option<&'static str> {
    Scorer::for_data_source(data_source).map(Scorer::name)
}

/// Worker threads used when `num_threads=0`.
#[pyfunction]
pub fn default_num_threads() -> usize {
    verl_ext_core::parallel::default_threads()
}

enum Arg<'a> {
    Text(Text<'a>),
    NonText(String),
}

impl<'a> Arg<'a> {
    fn extract(obj: &'a Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(match extract_text(obj)? {
            Some(t) => Arg::Text(t),
            None => Arg::NonText(obj.get_type().name()?.to_string()),
        })
    }

    fn value(&self) -> Value<'_> {
        match self {
            Arg::Text(t) => Value::Text(&t.text),
            Arg::NonText(name) => Value::NonText { type_name: name },
        }
    }

    fn mapped(&self) -> bool {
        matches!(self, Arg::Text(Text { mapped: true, .. }))
    }
}

/// Score a batch with the GIL released.
///
/// Returns `(results, format_scores)`: each result is a float, math_dapo's dict, None (no native
/// scorer for the data source) or an exception instance (not raised) for that sample;
/// `format_scores` is None unless `format_spec` is given.
#[pyfunction]
#[pyo3(signature = (data_sources, solution_strs, ground_truths, format_spec=None, num_threads=0))]
pub fn score_batch<'py>(
    py: Python<'py>,
    data_sources: &Bound<'py, PyAny>,
    solution_strs: &Bound<'py, PyAny>,
    ground_truths: &Bound<'py, PyAny>,
    format_spec: Option<PyRef<'py, FormatSpec>>,
    num_threads: usize,
) -> PyResult<(Bound<'py, PyList>, Option<Vec<f64>>)> {
    let sources: Vec<Bound<'py, PyAny>> = data_sources.try_iter()?.collect::<PyResult<_>>()?;
    let solutions: Vec<Bound<'py, PyAny>> = solution_strs.try_iter()?.collect::<PyResult<_>>()?;
    let truths: Vec<Bound<'py, PyAny>> = ground_truths.try_iter()?.collect::<PyResult<_>>()?;
    if sources.len() != solutions.len() || sources.len() != truths.len() {
        let msg = format!(
            "data_sources, solution_strs and ground_truths must have the same length, got {}, {} and {}",
            sources.len(),
            solutions.len(),
            truths.len()
        );
        return Err(core_error(py, &CoreError::InvalidArgument(msg)));
    }
    let mut ds = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter().enumerate() {
        match extract_text(s)? {
            Some(t) => ds.push(t.text),
            None => {
                let got = s.get_type().name()?;
                let msg = format!("data_sources[{i}] must be a str, got {got}");
                return Err(crate::errors::exception(py, "InputTypeError", msg));
            }
        }
    }
    let sols = solutions.iter().map(Arg::extract).collect::<PyResult<Vec<_>>>()?;
    let gts = truths.iter().map(Arg::extract).collect::<PyResult<Vec<_>>>()?;
    let spec = format_spec.as_ref().map(|f| &f.inner);

    let scored = detached(py, || {
        let samples: Vec<Sample<'_>> = ds
            .iter()
            .zip(&sols)
            .zip(&gts)
            .map(|((d, s), g)| Sample { data_source: d, solution: s.value(), ground_truth: g.value() })
            .collect();
        dispatch::score_batch(&samples, spec, num_threads)
    })?;

    let results = PyList::empty(py);
    let mut formats = spec.map(|_| Vec::with_capacity(scored.len()));
    for (item, sol) in scored.into_iter().zip(&sols) {
        let value: Bound<'py, PyAny> = match item.outcome {
            Ok(None) => py.None().into_bound(py),
            Ok(Some(Score::Scalar(x))) => x.into_pyobject(py)?.into_any(),
            Ok(Some(Score::Dapo(d))) => {
                let dict = PyDict::new(py);
                dict.set_item("score", d.score)?;
                dict.set_item("acc", d.acc)?;
                dict.set_item("pred", to_py_str(py, &d.pred, sol.mapped())?)?;
                dict.into_any()
            }
            Err(e) => core_error(py, &e).into_value(py).into_bound(py).into_any(),
        };
        results.append(value)?;
        if let (Some(f), Some(x)) = (formats.as_mut(), item.format) {
            f.push(x);
        }
    }
    Ok((results, formats))
}
