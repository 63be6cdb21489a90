//! Finding the final answer in a model's solution.
//!
//! Priorities (first that matches wins):
//! 1. the last `\boxed{...}` or `\fbox{...}` with balanced braces (or `\boxed x`, up to `$` or the line's end);
//! 2. Minerva's `Final Answer: The final answer is X. I hope it is correct.`;
//! 3. the last line containing `Answer:` (case-insensitive), text after it.

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

/// For each `{` (by byte offset), the offset of its matching `}`: one pass with a stack, so finding the
/// argument of every `\boxed{` in a long solution stays linear.
fn matching_braces(s: &str) -> std::collections::HashMap<usize, usize> {
    let mut open = Vec::new();
    let mut pairs = std::collections::HashMap::new();
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'{' => open.push(i),
            b'}' => {
                if let Some(o) = open.pop() {
                    pairs.insert(o, i);
                }
            }
            _ => {}
        }
    }
    pairs
}

/// The argument of the `\boxed`/`\fbox` command ending at `s[after]`.
fn boxed_arg<'a>(s: &'a str, after: usize, braces: &std::collections::HashMap<usize, usize>) -> Option<&'a str> {
    let rest = &s[after..];
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if trimmed.starts_with('{') {
        let open = s.len() - trimmed.len();
        return braces.get(&open).map(|&close| &s[open + 1..close]);
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
    if starts.is_empty() {
        return None;
    }
    starts.sort_unstable();
    let braces = matching_braces(s);
    starts.into_iter().rev().find_map(|(_, after)| {
        // `\boxedx` is another command, not \boxed.
        let next = s[after..].chars().next();
        if next.is_some_and(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        boxed_arg(s, after, &braces)
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

/// The final answer of `solution` and where it was found (linear in the solution's length).
pub fn extract(solution: &str) -> Option<(&str, Source)> {
    last_boxed(solution)
        .map(|a| (a, Source::Boxed))
        .or_else(|| minerva(solution).map(|a| (a, Source::Minerva)))
        .or_else(|| answer_line(solution).map(|a| (a, Source::AnswerLine)))
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
