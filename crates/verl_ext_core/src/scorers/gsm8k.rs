//! Port of `verl.utils.reward_score.gsm8k` (strict `#### <number>` extraction).

use std::sync::LazyLock;

use regex::Regex;

use crate::text::last_chars;

/// verl only looks at the tail of the solution (`_SOLUTION_CLIP_CHARS`).
const SOLUTION_CLIP_CHARS: usize = 300;

/// verl's pattern is `#### (\-?[0-9\.\,]+)`; the group is the match minus this fixed prefix.
const MARKER: &str = "#### ";
static STRICT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"#### -?[0-9.,]+").expect("valid regex"));

thread_local! {
    // Per-thread clone: a shared `Regex` contends on its scratch-space pool (see math_dapo).
    static LOCAL_STRICT: Regex = STRICT.clone();
}

/// `extract_solution(solution_str, method="strict")`: the last `#### <number>` with commas removed.
pub fn extract_solution(solution: &str) -> Option<String> {
    let tail = last_chars(solution, SOLUTION_CLIP_CHARS);
    let last = LOCAL_STRICT.with(|re| re.find_iter(tail).last().map(|m| m.as_str()[MARKER.len()..].to_owned()))?;
    Some(last.replace([',', '$'], ""))
}

/// `compute_score(solution_str, ground_truth)` with verl's defaults (score 1.0, format score 0.0).
///
/// `ground_truth` is `None` when the Python value is not a string: it can never equal the extracted
/// text, exactly as `answer == ground_truth` is false in verl.
pub fn compute_score(solution: &str, ground_truth: Option<&str>) -> f64 {
    match (extract_solution(solution), ground_truth) {
        (Some(answer), Some(gt)) if answer == gt => 1.0,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_last_marked_answer_without_commas() {
        assert_eq!(extract_solution("#### 1\nso #### -1,234.5"), Some("-1234.5".into()));
        assert_eq!(compute_score("work... #### 72", Some("72")), 1.0);
        assert_eq!(compute_score("#### 72", Some("72.0")), 0.0);
        assert_eq!(compute_score("#### 72", None), 0.0);
    }

    #[test]
    fn needs_a_number_after_the_marker() {
        assert_eq!(extract_solution("#### -x"), None);
        assert_eq!(extract_solution("####5"), None);
        assert_eq!(extract_solution("##### 5"), Some("5".into()));
    }

    #[test]
    fn only_the_last_300_characters_count() {
        let s = format!("#### 5{}", "é".repeat(300));
        assert_eq!(extract_solution(&s), None);
        let s = format!("#### 5{}", "é".repeat(294));
        assert_eq!(extract_solution(&s), Some("5".into()));
    }
}
