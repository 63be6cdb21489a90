//! Which scorer handles which data source, and batch scoring on worker threads.
//!
//! Mirrors the branches of `verl.utils.reward_score.default_compute_score` that verl-ext ports.

use crate::error::CoreError;
use crate::mathverify;
use crate::parallel;
use crate::scorers::format::FormatSpec;
use crate::scorers::math_dapo::{self, DapoScore};
use crate::scorers::{gsm8k, math_reward};

/// The verl scorer a data source dispatches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scorer {
    Gsm8k,
    MathReward,
    MathDapo,
    /// verl-ext's symbolic verifier (`crate::mathverify`), data source `math_verify`: not a verl scorer.
    MathVerify,
}

const MATH_REWARD_SOURCES: [&str; 3] =
    ["lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"];
const MATH_DAPO_SOURCES: [&str; 3] = ["math_dapo", "math", "math_dapo_reasoning"];

impl Scorer {
    /// The scorer verl's `default_compute_score` uses for `data_source`, if verl-ext ports it.
    pub fn for_data_source(data_source: &str) -> Option<Self> {
        if data_source == "openai/gsm8k" {
            Some(Self::Gsm8k)
        } else if MATH_REWARD_SOURCES.contains(&data_source) {
            Some(Self::MathReward)
        } else if MATH_DAPO_SOURCES.contains(&data_source) || data_source.starts_with("aime") {
            Some(Self::MathDapo)
        } else if data_source == "math_verify" {
            Some(Self::MathVerify)
        } else {
            None
        }
    }

    /// The verl module name (`verl.utils.reward_score.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gsm8k => "gsm8k",
            Self::MathReward => "math_reward",
            Self::MathDapo => "math_dapo",
            Self::MathVerify => "math_verify",
        }
    }
}

/// A Python argument as the core sees it: text, or the name of the non-string type it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    Text(&'a str),
    NonText { type_name: &'a str },
}

impl<'a> Value<'a> {
    fn text(self) -> Option<&'a str> {
        match self {
            Value::Text(s) => Some(s),
            Value::NonText { .. } => None,
        }
    }

    fn type_name(self) -> &'a str {
        match self {
            Value::Text(_) => "str",
            Value::NonText { type_name } => type_name,
        }
    }
}

/// One sample to score.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    pub data_source: &'a str,
    pub solution: Value<'a>,
    pub ground_truth: Value<'a>,
}

/// What verl's `default_compute_score` returns: a float, or math_dapo's dict (also the shape of
/// `math_verify`'s result, whose score is 1.0 or 0.0).
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    Scalar(f64),
    Dapo(DapoScore),
}

/// Outcome of one sample in a batch: `Ok(None)` when no ported scorer handles its data source.
pub type Outcome = Result<Option<Score>, CoreError>;

fn not_text(field: &'static str, sample: &Sample<'_>, value: Value<'_>) -> CoreError {
    CoreError::NotText { field, data_source: sample.data_source.to_owned(), got: value.type_name().to_owned() }
}

/// Score one sample exactly as verl does; non-string inputs behave as in verl (a score of 0 where
/// verl's comparison simply fails, an error where verl raises).
pub fn score(sample: &Sample<'_>) -> Outcome {
    let Some(scorer) = Scorer::for_data_source(sample.data_source) else {
        return Ok(None);
    };
    let gt = sample.ground_truth.text();
    let result = match scorer {
        Scorer::Gsm8k => {
            let solution = sample.solution.text().ok_or_else(|| not_text("solution_str", sample, sample.solution))?;
            Score::Scalar(gsm8k::compute_score(solution, gt))
        }
        // verl wraps math_reward in `try/except Exception`: a non-string solution scores 0.
        Scorer::MathReward => Score::Scalar(sample.solution.text().map_or(0.0, |s| math_reward::compute_score(s, gt))),
        Scorer::MathDapo => {
            let solution = sample.solution.text().ok_or_else(|| not_text("solution_str", sample, sample.solution))?;
            let gt = gt.ok_or_else(|| not_text("ground_truth", sample, sample.ground_truth))?;
            Score::Dapo(math_dapo::compute_score(solution, gt))
        }
        Scorer::MathVerify => {
            let solution = sample.solution.text().ok_or_else(|| not_text("solution_str", sample, sample.solution))?;
            let gt = gt.ok_or_else(|| not_text("ground_truth", sample, sample.ground_truth))?;
            let v = mathverify::verify(solution, gt);
            Score::Dapo(DapoScore { score: v.score, acc: v.score > 0.0, pred: v.prediction.unwrap_or_default() })
        }
    };
    Ok(Some(result))
}

/// One batch entry: the verl score and, when a format spec was given, the format score of the solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub outcome: Outcome,
    pub format: Option<f64>,
}

/// Score `samples` on `threads` worker threads (0: all cores). Order is preserved.
pub fn score_batch(samples: &[Sample<'_>], format: Option<&FormatSpec>, threads: usize) -> Vec<Scored> {
    let one = |s: &Sample<'_>| Scored {
        outcome: score(s),
        format: format.map(|spec| s.solution.text().map_or(0.0, |t| spec.score(t))),
    };
    parallel::map(samples, threads, 16, one)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample<'a>(ds: &'a str, sol: &'a str, gt: &'a str) -> Sample<'a> {
        Sample { data_source: ds, solution: Value::Text(sol), ground_truth: Value::Text(gt) }
    }

    #[test]
    fn dispatch_table_matches_verl() {
        assert_eq!(Scorer::for_data_source("openai/gsm8k"), Some(Scorer::Gsm8k));
        assert_eq!(Scorer::for_data_source("HuggingFaceH4/MATH-500"), Some(Scorer::MathReward));
        assert_eq!(Scorer::for_data_source("aime2024"), Some(Scorer::MathDapo));
        assert_eq!(Scorer::for_data_source("math"), Some(Scorer::MathDapo));
        assert_eq!(Scorer::for_data_source("numina_olympiads"), None);
        assert_eq!(Scorer::for_data_source("math_verify"), Some(Scorer::MathVerify));
        assert_eq!(Scorer::for_data_source("openai/gsm8k "), None);
    }

    #[test]
    fn non_text_inputs_follow_verl() {
        let nt = Value::NonText { type_name: "int" };
        let s = Sample { data_source: "openai/gsm8k", solution: Value::Text("#### 3"), ground_truth: nt };
        assert_eq!(score(&s), Ok(Some(Score::Scalar(0.0))));
        let s = Sample { data_source: "lighteval/MATH", solution: nt, ground_truth: Value::Text("3") };
        assert_eq!(score(&s), Ok(Some(Score::Scalar(0.0))));
        let s = Sample { data_source: "math_dapo", solution: Value::Text("Answer: 3"), ground_truth: nt };
        assert!(matches!(score(&s), Err(CoreError::NotText { field: "ground_truth", .. })));
        let s = Sample { data_source: "openai/gsm8k", solution: nt, ground_truth: Value::Text("3") };
        assert!(matches!(score(&s), Err(CoreError::NotText { field: "solution_str", .. })));
    }

    #[test]
    fn batch_is_ordered_and_thread_count_independent() {
        let sols: Vec<String> = (0..500).map(|i| format!("... #### {i}")).collect();
        let samples: Vec<Sample<'_>> = sols.iter().map(|s| sample("openai/gsm8k", s, "7")).collect();
        let one = score_batch(&samples, None, 1);
        let many = score_batch(&samples, None, 4);
        assert_eq!(one, many);
        assert_eq!(one[7].outcome, Ok(Some(Score::Scalar(1.0))));
        assert_eq!(one[8].outcome, Ok(Some(Score::Scalar(0.0))));
    }

    #[test]
    fn unknown_sources_are_left_to_the_caller() {
        let spec = FormatSpec::new(&["answer"]).unwrap();
        let out = score_batch(&[sample("my_source", "<answer>1</answer>", "1")], Some(&spec), 0);
        assert_eq!(out, vec![Scored { outcome: Ok(None), format: Some(1.0) }]);
    }
}
