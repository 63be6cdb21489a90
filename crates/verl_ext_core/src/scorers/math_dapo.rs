//! Port of `verl.utils.reward_score.math_dapo` (Minerva `Answer:` lines, then `\boxed{}`).

use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::text::{last_chars, py_isdigit, py_strip};

/// verl clips the solution to its last 300 characters before anything else.
const SOLUTION_CLIP_CHARS: usize = 300;
/// The strict-box fallback only looks at the last 100 characters of the (clipped) solution.
const BOX_WINDOW_CHARS: usize = 100;
/// What verl reports as the prediction when no `Answer:` line is found.
pub const INVALID: &str = "[INVALID]";

const SUBSTITUTIONS: [(&str, &str); 10] = [
    ("an ", ""),
    ("a ", ""),
    (".$", "$"),
    ("\\$", ""),
    ("\\ ", ""),
    (" ", ""),
    ("mbox", "text"),
    (",\\text{and}", ","),
    ("\\text{and}", ","),
    ("\\text{m}", "\\text{}"),
];

const REMOVED_EXPRESSIONS: &[&str] = &[
    "square",
    "ways",
    "integers",
    "dollars",
    "mph",
    "inches",
    "hours",
    "km",
    "units",
    "\\ldots",
    "sue",
    "points",
    "feet",
    "minutes",
    "digits",
    "cents",
    "degrees",
    "cm",
    "gm",
    "pounds",
    "meters",
    "meals",
    "edges",
    "students",
    "childrentickets",
    "multiples",
    "\\text{s}",
    "\\text{.}",
    "\\text{\ns}",
    "\\text{}^2",
    "\\text{}^3",
    "\\text{\n}",
    "\\text{}",
    "\\mathrm{th}",
    "^\\circ",
    "^{\\circ}",
    "\\;",
    ",\\!",
    "{,}",
    "\"",
    "\\dots",
];

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid regex")
}

// Python's `\s` is `str.isspace()`, which also covers U+001C..U+001F (Rust's `\s` does not).
static ANSWER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)Answer[\s\x1C-\x1F]*:[\s\x1C-\x1F]*([^\n]+)"));
static DOLLARS: LazyLock<Regex> = LazyLock::new(|| re(r"(.*?)(\$)(.*?)(\$)(.*)"));
static TEXT: LazyLock<Regex> = LazyLock::new(|| re(r"(\\text\{)(.*?)(\})"));
static TEXTBF: LazyLock<Regex> = LazyLock::new(|| re(r"(\\textbf\{)(.*?)(\})"));
static OVERLINE: LazyLock<Regex> = LazyLock::new(|| re(r"(\\overline\{)(.*?)(\})"));
static BOXED: LazyLock<Regex> = LazyLock::new(|| re(r"(\\boxed\{)(.*)(\})"));
static FRAC: LazyLock<Regex> = LazyLock::new(|| re(r"(frac)([^{])(.)"));
static SQRT: LazyLock<Regex> = LazyLock::new(|| re(r"(sqrt)([^{])"));

fn sub(re: &Regex, s: &str, f: impl Fn(&Captures<'_>) -> String) -> String {
    re.replace_all(s, |c: &Captures<'_>| f(c)).into_owned()
}

/// `normalize_final_answer`: verl's Minerva answer normalisation.
pub fn normalize_final_answer(answer: &str) -> String {
    let mut s = answer.rsplit('=').next().unwrap_or("").to_owned();
    for (before, after) in SUBSTITUTIONS {
        s = s.replace(before, after);
    }
    for expr in REMOVED_EXPRESSIONS {
        s = s.replace(expr, "");
    }
    s = sub(&DOLLARS, &s, |c| format!("${}$", &c[3]));
    s = sub(&TEXT, &s, |c| c[2].to_owned());
    s = sub(&TEXTBF, &s, |c| c[2].to_owned());
    s = sub(&OVERLINE, &s, |c| c[2].to_owned());
    s = sub(&BOXED, &s, |c| c[2].to_owned());
    s = sub(&FRAC, &s, |c| format!("frac{{{}}}{{{}}}", &c[2], &c[3]));
    s = sub(&SQRT, &s, |c| format!("sqrt{{{}}}", &c[2]));
    s = s.replace('$', "");
    let without_commas = s.replace(',', "");
    if py_isdigit(&without_commas) {
        s = without_commas;
    }
    py_strip(&s).to_owned()
}

/// `last_boxed_only_string` of math_dapo: only the `\boxed{` form.
fn last_boxed_only_string(s: &str) -> Option<&str> {
    let idx = s.rfind("\\boxed{")?;
    let mut open = 0i64;
    for (i, b) in s.bytes().enumerate().skip(idx) {
        match b {
            b'{' => open += 1,
            b'}' => {
                open -= 1;
                if open == 0 {
                    return Some(&s[idx..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `is_correct_minerva`: compares the normalised last `Answer:` line with the normalised truth.
fn is_correct_minerva(solution: &str, ground_truth: &str) -> (bool, String) {
    let extracted = ANSWER
        .captures_iter(solution)
        .last()
        .map(|c| c.get(1).map_or("", |m| m.as_str()).to_owned());
    let pred = normalize_final_answer(extracted.as_deref().unwrap_or(INVALID));
    (pred == normalize_final_answer(ground_truth), pred)
}

/// `is_correct_strict_box`: the last `\boxed{}` in the last 100 characters, compared raw.
fn strict_box(solution: &str, ground_truth: &str) -> Option<(bool, String)> {
    let boxed = last_boxed_only_string(last_chars(solution, BOX_WINDOW_CHARS))?;
    let inner = &boxed["\\boxed{".len()..boxed.len() - 1];
    Some((inner == ground_truth, inner.to_owned()))
}

/// The dict verl's `math_dapo.compute_score` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct DapoScore {
    /// 1.0 when correct, -1.0 otherwise.
    pub score: f64,
    pub acc: bool,
    pub pred: String,
}

/// `compute_score(solution_str, ground_truth)` with verl's defaults (`strict_box_verify=False`).
pub fn compute_score(solution: &str, ground_truth: &str) -> DapoScore {
    let solution = last_chars(solution, SOLUTION_CLIP_CHARS);
    let (mut correct, mut pred) = is_correct_minerva(solution, ground_truth);
    if pred == INVALID {
        if let Some((box_correct, box_pred)) = strict_box(solution, ground_truth) {
            (correct, pred) = (box_correct, box_pred);
        }
    }
    DapoScore {
        score: if correct { 1.0 } else { -1.0 },
        acc: correct,
        pred,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minerva_line_wins() {
        let r = compute_score("so\nAnswer: $\\frac{1}{2}$ \\boxed{3}", "\\frac{1}{2}");
        assert_eq!(
            r,
            DapoScore {
                score: 1.0,
                acc: true,
                pred: "\\frac{1}{2}".into()
            }
        );
    }

    #[test]
    fn falls_back_to_boxed_then_invalid() {
        assert_eq!(compute_score("... \\boxed{42}", "42").pred, "42");
        assert!(compute_score("... \\boxed{42}", "42").acc);
        assert_eq!(
            compute_score("nothing here", "42"),
            DapoScore {
                score: -1.0,
                acc: false,
                pred: INVALID.into()
            }
        );
    }

    #[test]
    fn normalisation() {
        assert_eq!(normalize_final_answer("x = 1,000 dollars"), "1000");
        assert_eq!(normalize_final_answer("\\text{(B)}"), "(B)");
        assert_eq!(normalize_final_answer("\\fracab"), "\\frac{a}{b}");
        assert_eq!(normalize_final_answer("\\sqrt2"), "\\sqrt{2}");
        assert_eq!(normalize_final_answer("  \u{1c}5\u{3000}"), "5");
    }

    #[test]
    fn answer_whitespace_is_pythons() {
        assert_eq!(compute_score("ANſWER\u{1f}:\n 7", "7").pred, "7");
    }
}
