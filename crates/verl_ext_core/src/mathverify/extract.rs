//! Finding the final answer in a model's solution.
//!
//! Priorities (first that matches wins):
//! 1. the last `\boxed{...}` or `\fbox{...}` with balanced braces (or `\boxed x`, up to `$` or the line's end);
//! 2. Minerva's `Final Answer: The final answer is X. I hope it is correct.`;
//! 3. the last line containing `Answer:` (case-insensitive), text after it.

use super::limits::MAX_ANSWER_BYTES;

/// Where an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Boxed,
    Minerva,
    AnswerLine,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Boxed => "boxed",
            Source::Minerva => "final answer",
            Source::AnswerLine => "answer line",
        }
    }
}

/// The content of the brace group opening at `s[open]` (`{`), or None when it never closes.
fn brace_group(s: &str, open: usize) -> Option<&str> {
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[open + 1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The argument of the `\boxed`/`\fbox` command ending at `s[after]`.
fn boxed_arg(s: &str, after: usize) -> Option<&str> {
    let rest = &s[after..];
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if trimmed.starts_with('{') {
        return brace_group(s, s.len() - trimmed.len());
    }
    if rest.starts_with([' ', '\t']) && !trimmed.is_empty() {
        // `\boxed 5$`: up to the closing `$` or the end of the line.
        let end = trimmed.find(['$', '\n']).unwrap_or(trimmed.len());
        let arg = trimmed[..end].trim();
        return (!arg.is_empty()).then_some(arg);
    }
    None
}

fn last_boxed(s: &str) -> Option<&str> {
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for name in ["\\boxed", "\\fbox"] {
        starts.extend(s.match_indices(name).map(|(i, m)| (i, i + m.len())));
    }
    starts.sort_unstable();
    starts.into_iter().rev().find_map(|(_, after)| {
        // `\boxedx` is another command, not \boxed.
        let next = s[after..].chars().next();
        if next.is_some_and(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        boxed_arg(s, after)
    })
}

fn minerva(s: &str) -> Option<&str> {
    const LEAD: &str = "Final Answer: The final answer is";
    let start = s.rfind(LEAD)? + LEAD.len();
    let rest = &s[start..];
    let end = rest.find("I hope it is correct").unwrap_or(rest.len());
    let arg = rest[..end].trim().trim_end_matches('.').trim().trim_matches('$').trim();
    (!arg.is_empty()).then_some(arg)
}

fn answer_line(s: &str) -> Option<&str> {
    s.lines().rev().find_map(|line| {
        let lower = line.to_ascii_lowercase();
        let at = lower.rfind("answer:")?;
        let arg = line[at + "answer:".len()..].trim().trim_end_matches('.').trim().trim_matches('$').trim();
        (!arg.is_empty()).then_some(arg)
    })
}

/// The final answer of `solution` and where it was found; None when there is none or it is too long.
pub fn extract(solution: &str) -> Option<(&str, Source)> {
    let found = last_boxed(solution)
        .map(|a| (a, Source::Boxed))
        .or_else(|| minerva(solution).map(|a| (a, Source::Minerva)))
        .or_else(|| answer_line(solution).map(|a| (a, Source::AnswerLine)))?;
    (found.0.len() <= MAX_ANSWER_BYTES).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_and_forms() {
        assert_eq!(extract("so \\boxed{1} then \\boxed{\\frac{1}{2}}"), Some(("\\frac{1}{2}", Source::Boxed)));
        assert_eq!(extract("\\fbox{3} and \\boxed{4}"), Some(("4", Source::Boxed)));
        assert_eq!(extract("$\\boxed 5$ done"), Some(("5", Source::Boxed)));
        assert_eq!(extract("x \\boxed{a{b}c"), None);
        assert_eq!(extract("\\boxed{7} \\boxed{unclosed"), Some(("7", Source::Boxed)));
        assert_eq!(
            extract("Final Answer: The final answer is $12$. I hope it is correct."),
            Some(("12", Source::Minerva))
        );
        assert_eq!(extract("work\nAnswer: 42.\n"), Some(("42", Source::AnswerLine)));
        assert_eq!(extract("no answer here"), None);
        assert_eq!(extract("\\boxedx{1}"), None);
    }
}
