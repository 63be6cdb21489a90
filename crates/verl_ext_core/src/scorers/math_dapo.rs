//! Port of `verl.utils.reward_score.math_dapo` (Minerva `Answer:` lines, then `\boxed{}`).

use std::sync::LazyLock;

use regex::{Captures, Regex};

use memchr::memmem::Finder;

use crate::text::{balanced_close, last_chars, py_isdigit, py_strip, replace_in_place, rfind_with};

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

/// verl's regexes. Each thread uses its own clone: a shared `Regex` serialises its scratch-space pool
/// under a mutex, which costs more than the search itself on 300-character texts.
#[derive(Clone)]
struct Patterns {
    answer: Regex,
    dollars: Regex,
    text: Regex,
    textbf: Regex,
    overline: Regex,
    boxed: Regex,
    frac: Regex,
    sqrt: Regex,
}

static PATTERNS: LazyLock<Patterns> = LazyLock::new(|| Patterns {
    // Python's `\s` is `str.isspace()`, which also covers U+001C..U+001F (Rust's `\s` does not).
    answer: re(r"(?i)Answer[\s\x1C-\x1F]*:[\s\x1C-\x1F]*([^\n]+)"),
    dollars: re(r"(.*?)(\$)(.*?)(\$)(.*)"),
    text: re(r"(\\text\{)(.*?)(\})"),
    textbf: re(r"(\\textbf\{)(.*?)(\})"),
    overline: re(r"(\\overline\{)(.*?)(\})"),
    boxed: re(r"(\\boxed\{)(.*)(\})"),
    frac: re(r"(frac)([^{])(.)"),
    sqrt: re(r"(sqrt)([^{])"),
});

static BOXED_OPEN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\\boxed{"));

thread_local! {
    static LOCAL: Patterns = PATTERNS.clone();
}

/// `s = re.sub(pattern, f, s)`, skipped when the pattern's required literal is absent.
fn sub(re: &Regex, s: &mut String, needle: &str, f: impl Fn(&Captures<'_>) -> String) {
    if s.contains(needle) {
        *s = re.replace_all(s, |c: &Captures<'_>| f(c)).into_owned();
    }
}

/// `normalize_final_answer`: verl's Minerva answer normalisation.
pub fn normalize_final_answer(answer: &str) -> String {
    let mut s = answer.rsplit('=').next().unwrap_or("").to_owned();
    for (before, after) in SUBSTITUTIONS {
        replace_in_place(&mut s, before, after);
    }
    for expr in REMOVED_EXPRESSIONS {
        replace_in_place(&mut s, expr, "");
    }
    LOCAL.with(|p| {
        if s.matches('$').nth(1).is_some() {
            sub(&p.dollars, &mut s, "$", |c| format!("${}$", &c[3]));
        }
        sub(&p.text, &mut s, "\\text{", |c| c[2].to_owned());
        sub(&p.textbf, &mut s, "\\textbf{", |c| c[2].to_owned());
        sub(&p.overline, &mut s, "\\overline{", |c| c[2].to_owned());
        sub(&p.boxed, &mut s, "\\boxed{", |c| c[2].to_owned());
        sub(&p.frac, &mut s, "frac", |c| format!("frac{{{}}}{{{}}}", &c[2], &c[3]));
        sub(&p.sqrt, &mut s, "sqrt", |c| format!("sqrt{{{}}}", &c[2]));
    });
    replace_in_place(&mut s, "$", "");
    let without_commas = s.replace(',', "");
    if py_isdigit(&without_commas) {
        s = without_commas;
    }
    py_strip(&s).to_owned()
}

/// `last_boxed_only_string` of math_dapo: only the `\boxed{` form.
fn last_boxed_only_string(s: &str) -> Option<&str> {
    let idx = rfind_with(&BOXED_OPEN, s)?;
    balanced_close(s, idx).map(|end| &s[idx..=end])
}

/// `is_correct_minerva`: compares the normalised last `Answer:` line with the normalised truth.
fn is_correct_minerva(solution: &str, ground_truth: &str) -> (bool, String) {
    let extracted = LOCAL.with(|p| p.answer.captures_iter(solution).last().map(|c| c[1].to_owned()));
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
    DapoScore { score: if correct { 1.0 } else { -1.0 }, acc: correct, pred }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minerva_line_wins() {
        let r = compute_score("so\nAnswer: $\\frac{1}{2}$ \\boxed{3}", "\\frac{1}{2}");
        assert_eq!(r, DapoScore { score: 1.0, acc: true, pred: "\\frac{1}{2}".into() });
    }

    #[test]
    fn falls_back_to_boxed_then_invalid() {
        assert_eq!(compute_score("... \\boxed{42}", "42").pred, "42");
        assert!(compute_score("... \\boxed{42}", "42").acc);
        assert_eq!(compute_score("nothing here", "42"), DapoScore { score: -1.0, acc: false, pred: INVALID.into() });
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
