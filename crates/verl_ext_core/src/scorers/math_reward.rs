//! Port of `verl.utils.reward_score.math_reward` (Hendrycks MATH string normalisation).
//!
//! verl's helpers raise Python exceptions on some inputs (an `assert`, an `IndexError`), and its
//! callers catch them: a failing `remove_boxed` scores 0, a failing `strip_string` falls back to raw
//! string equality. `Err(Raised)` marks exactly those places.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::text::{balanced_close, char_len, is_canonical_py_int, replace_in_place, rfind_with};

/// A Python exception inside verl's helper; the caller decides what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raised;

const BOXED_SPACE: &str = "\\boxed ";
const BOXED_LEN: usize = "\\boxed".len();
static BOXED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\\boxed"));
static FBOX: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\\fbox"));

/// `last_boxed_only_string`: the last `\boxed{...}` (or `\fbox{...}`) with balanced braces, or the
/// `\boxed x` form up to the next `$`.
pub fn last_boxed_only_string(s: &str) -> Option<String> {
    // "\boxed " occurrences are "\boxed" occurrences followed by a space: one pass finds the last of each.
    let (mut last_boxed, mut last_boxed_space) = (None, None);
    for pos in BOXED.find_iter(s.as_bytes()) {
        last_boxed = Some(pos);
        if s.as_bytes().get(pos + BOXED_LEN) == Some(&b' ') {
            last_boxed_space = Some(pos);
        }
    }
    if let Some(pos) = last_boxed_space {
        let tail = &s[pos + BOXED_SPACE.len()..];
        let answer = tail.split('$').next().unwrap_or("");
        return Some(format!("{BOXED_SPACE}{answer}"));
    }
    let idx = last_boxed.or_else(|| rfind_with(&FBOX, s))?;
    balanced_close(s, idx).map(|end| s[idx..=end].to_owned())
}

/// `remove_boxed`: strip `\boxed ` or `\boxed{` ... `}`; `\fbox{..}` and malformed boxes raise.
pub fn remove_boxed(s: &str) -> Result<&str, Raised> {
    if s.contains(BOXED_SPACE) {
        return s.strip_prefix(BOXED_SPACE).ok_or(Raised);
    }
    s.strip_prefix("\\boxed{").and_then(|t| t.strip_suffix('}')).ok_or(Raised)
}

fn remove_right_units(s: String) -> Result<String, Raised> {
    if !s.contains("\\text{ ") {
        return Ok(s);
    }
    let mut parts = s.split("\\text{ ");
    let (first, _second, rest) = (parts.next(), parts.next(), parts.next());
    match (first, rest) {
        (Some(first), None) => Ok(first.to_owned()),
        _ => Err(Raised),
    }
}

fn fix_sqrt(s: String) -> Result<String, Raised> {
    if !s.contains("\\sqrt") {
        return Ok(s);
    }
    let mut parts = s.split("\\sqrt");
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(parts.next().unwrap_or(""));
    for part in parts {
        let mut chars = part.chars();
        match chars.next() {
            None => return Err(Raised),
            Some('{') => {
                out.push_str("\\sqrt");
                out.push_str(part);
            }
            Some(a) => {
                out.push_str("\\sqrt{");
                out.push(a);
                out.push('}');
                out.push_str(chars.as_str());
            }
        }
    }
    Ok(out)
}

/// `\frac12` -> `\frac{1}{2}`, `\frac1{72}` -> `\frac{1}{72}`.
fn fix_fracs(s: String) -> Result<String, Raised> {
    let mut parts = s.split("\\frac");
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(parts.next().unwrap_or(""));
    for part in parts {
        out.push_str("\\frac");
        let mut chars = part.chars();
        let a = chars.next().ok_or(Raised)?;
        if a == '{' {
            out.push_str(part);
            continue;
        }
        let Some(b) = chars.next() else {
            // verl returns its input unchanged when a shorthand fraction is cut short.
            return Ok(s);
        };
        out.push('{');
        out.push(a);
        out.push('}');
        if b == '{' {
            out.push('{');
        } else {
            out.push('{');
            out.push(b);
            out.push('}');
        }
        out.push_str(chars.as_str());
    }
    Ok(out)
}

/// `a/b` with canonical integers -> `\frac{a}{b}`.
fn fix_a_slash_b(s: String) -> String {
    let mut parts = s.split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(a), Some(b), None) if is_canonical_py_int(a) && is_canonical_py_int(b) => {
            format!("\\frac{{{a}}}{{{b}}}")
        }
        _ => s,
    }
}

/// `strip_string`: verl's answer normalisation.
pub fn strip_string(s: &str) -> Result<String, Raised> {
    let mut s = s.to_owned();
    for (from, to) in [
        ("\n", ""),
        ("\\!", ""),
        ("\\\\", "\\"),
        ("tfrac", "frac"),
        ("dfrac", "frac"),
        ("\\left", ""),
        ("\\right", ""),
        ("^{\\circ}", ""),
        ("^\\circ", ""),
        ("\\$", ""),
    ] {
        replace_in_place(&mut s, from, to);
    }
    s = remove_right_units(s)?;
    for (from, to) in [("\\\\%", ""), ("\\%", ""), (" .", " 0."), ("{.", "{0.")] {
        replace_in_place(&mut s, from, to);
    }
    if s.is_empty() {
        return Ok(s);
    }
    if s.starts_with('.') {
        s.insert(0, '0');
    }
    {
        let mut parts = s.split('=');
        if let (Some(lhs), Some(rhs), None) = (parts.next(), parts.next(), parts.next()) {
            if char_len(lhs) <= 2 {
                s = rhs.to_owned();
            }
        }
    }
    s = fix_sqrt(s)?;
    replace_in_place(&mut s, " ", "");
    s = fix_fracs(s)?;
    if s == "0.5" {
        s = "\\frac{1}{2}".to_owned();
    }
    Ok(fix_a_slash_b(s))
}

/// `is_equiv(answer, ground_truth)`; `None` ground truth stands for any non-string Python value.
pub fn is_equiv(answer: &str, ground_truth: Option<&str>) -> bool {
    let Some(gt) = ground_truth else { return false };
    match (strip_string(answer), strip_string(gt)) {
        (Ok(a), Ok(b)) => a == b,
        _ => answer == gt,
    }
}

/// `compute_score(solution_str, ground_truth)`: 1.0 when the last boxed answer is equivalent.
pub fn compute_score(solution: &str, ground_truth: Option<&str>) -> f64 {
    let Some(boxed) = last_boxed_only_string(solution) else {
        return 0.0;
    };
    match remove_boxed(&boxed) {
        Ok(answer) if is_equiv(answer, ground_truth) => 1.0,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_forms() {
        assert_eq!(last_boxed_only_string("a \\boxed{\\frac{1}{2}} b").as_deref(), Some("\\boxed{\\frac{1}{2}}"));
        assert_eq!(last_boxed_only_string("so \\boxed 5$ done").as_deref(), Some("\\boxed 5"));
        assert_eq!(last_boxed_only_string("\\fbox{3}").as_deref(), Some("\\fbox{3}"));
        assert_eq!(last_boxed_only_string("\\boxed{3"), None);
        assert_eq!(remove_boxed("\\fbox{3}"), Err(Raised));
    }

    #[test]
    fn normalisation_matches_hendrycks() {
        assert_eq!(strip_string("\\dfrac12").unwrap(), "\\frac{1}{2}");
        assert_eq!(strip_string("0.5").unwrap(), "\\frac{1}{2}");
        assert_eq!(strip_string("3/4").unwrap(), "\\frac{3}{4}");
        assert_eq!(strip_string("x = 5").unwrap(), "5");
        assert_eq!(strip_string("\\sqrt3").unwrap(), "\\sqrt{3}");
        assert_eq!(strip_string("10\\%").unwrap(), "10");
        assert_eq!(strip_string("\\sqrt"), Err(Raised));
        assert_eq!(strip_string("5 \\text{ cm} \\text{ m}"), Err(Raised));
        assert_eq!(strip_string("\\frac1").unwrap(), "\\frac1");
    }

    #[test]
    fn failed_normalisation_falls_back_to_raw_equality() {
        assert!(is_equiv("\\sqrt", "\\sqrt".into()));
        assert!(!is_equiv("\\sqrt", "\\sqrt{}".into()));
        assert!(!is_equiv("5", None));
    }

    #[test]
    fn scores() {
        assert_eq!(compute_score("The answer is \\boxed{\\dfrac{1}{2}}.", Some("\\frac12")), 1.0);
        assert_eq!(compute_score("The answer is \\boxed{3}.", Some("4")), 0.0);
        assert_eq!(compute_score("no box", Some("4")), 0.0);
    }
}
