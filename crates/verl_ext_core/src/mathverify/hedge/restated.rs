//! The same value said again after an answer (`\boxed{\frac14}, or 25%`, `0.25 (i.e. 1/4)`, `\boxed{12\pi}
//! square units, approximately 37.70`): a restatement, not a second value, so what hedges the answer is read
//! past it.

use super::*;

/// Words that restate a value exactly, after a comma or bracket or not (`, or 25%`, `(i.e. 1/4)`, `= 0.25`, `，即 0.25`).
const RESTATING_LEADS: &[&str] = &[
    "or",
    "i.e.,",
    "i.e.",
    "ie",
    "that is,",
    "that is",
    "which is",
    "which equals",
    "which simplifies to",
    "which gives",
    "equivalently",
    "in other words",
    "namely",
    "aka",
    "a.k.a.",
    "so",
    "=",
    "equals",
    "，即",
    "即",
    "то есть",
    "c'est-à-dire",
    "es decir",
    "つまり",
    "d.h.",
    "das heißt",
];
/// Words and signs that give an approximation of it (`, approximately 37.70`, `(≈ 0.33)`).
const APPROXIMATING_LEADS: &[&str] = &["approximately", "approx.", "about", "roughly", "around", "≈", "\\approx", "~"];
/// Bytes read past the answer for a restatement.
const WINDOW: usize = 80;

/// A value said again after the answer: where it ends, whether it is the answer's value (for an approximating
/// lead, a decimal that rounds or truncates it), and whether it stands alone (its clause ends after it).
struct Restatement {
    end: usize,
    same: bool,
    alone: bool,
    /// Offered as an alternative (`or`) rather than as the same value.
    alternative: bool,
}

/// The value said again after the answer at `s[start..end]`, if any: an optional unit (`square units`), a comma
/// or an opening bracket if any, a restating or approximating lead, a value, then a closing bracket if one
/// opened.
fn restatement(s: &str, start: usize, end: usize) -> Option<Restatement> {
    if end - start > super::super::limits::MAX_ANSWER_BYTES {
        return None;
    }
    let window = window_after(s, end, WINDOW);
    let mut t = window.trim_start_matches(['$', '*', ' ']);
    // Unit words between (`\\boxed{12\\pi} square units, approximately 37.70`).
    loop {
        let n = t.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(t.len());
        if n == 0 || !super::super::lexer::is_unit(&t[..n]) {
            break;
        }
        t = t[n..].trim_start_matches(' ');
    }
    let bracket = t.starts_with(['(', '[']);
    let t = t.strip_prefix([',', '(', '[']).map_or(t, str::trim_start);
    let lower = t[..floor_boundary(t, t.len().min(24))].to_lowercase();
    // A lead ending in a letter ends its word (`or 25%`, not `order`).
    let lead = |leads: &[&str]| {
        leads
            .iter()
            .find(|l| {
                lower.starts_with(**l)
                    && t.is_char_boundary(l.len())
                    && !(l.ends_with(|c: char| c.is_alphabetic())
                        && t[l.len()..].starts_with(|c: char| c.is_alphabetic()))
            })
            .map(|l| l.len())
    };
    let (len, exact) = match lead(RESTATING_LEADS) {
        Some(n) => (n, true),
        None => (lead(APPROXIMATING_LEADS)?, false),
    };
    let alternative = lower.starts_with("or");
    // `t` is a suffix of the window, which ends before `s` may: its offset in `s` is from the window's start.
    let at = end + (window.len() - t.len()) + len;
    let from = at + (s[at..].len() - s[at..].trim_start_matches([' ', '$']).len());
    let answer = answer_value(&s[start..end]);
    let same = |text: &str| {
        if exact {
            super::super::equiv::judge_within_budget(text, answer, &super::super::Options::default()).equal
        } else {
            rounds(answer, text)
        }
    };
    // The readings that start right there (an expression, the number it starts with).
    let found: Vec<_> = super::super::prose::scan(s, from, floor_boundary(s, (from + 40).min(s.len())))
        .into_iter()
        .take_while(|f| f.start == from)
        .collect();
    // The equal reading, else the plain number (an expression reading may run into the closing bracket).
    let equal = found.iter().position(|f| same(&f.text));
    let value = match equal {
        Some(k) => &found[k],
        None => found.last()?,
    };
    let rest = s[value.end..].trim_start_matches(['$', '*', ' ']);
    let (end, rest) = if bracket {
        let rest = rest.strip_prefix([')', ']'])?;
        (s.len() - rest.len(), rest)
    } else {
        (value.end, rest)
    };
    // Alone: its clause ends after it, and it is no quantity in other units (`12, which is 1 dozen`, `90 minutes,
    // which is 1.5 hours`).
    let scaled = value.text.contains('*') || value.text.contains("\\text{");
    let alone = !scaled && (rest.is_empty() || rest.starts_with(['.', ',', ';', ':', '!', '?', '\n', ')', '。', '，']));
    Some(Restatement { end, same: equal.is_some(), alone, alternative })
}

/// Where a restatement of the answer at `s[start..end]` (the same value said again) ends, when one follows it.
pub fn restatement_end(s: &str, start: usize, end: usize) -> Option<usize> {
    restatement(s, start, end).filter(|r| r.same).map(|r| r.end)
}

/// Is the answer at `s[start..end]` followed by another value given as the same (`\\boxed{72}, which is 73.`,
/// `\\boxed{5} = 6.`, `72 (i.e. 73)`)? Then it is no single answer. (`5 or 6` is read where alternatives are.)
pub(super) fn restated_otherwise(s: &str, start: usize, end: usize) -> bool {
    restatement(s, start, end).is_some_and(|r| !r.same && r.alone && !r.alternative)
}

/// Is `approximation` (a decimal with `d` places) the value of `answer` rounded or truncated to `d` places?
fn rounds(answer: &str, approximation: &str) -> bool {
    let places = approximation.split_once('.').map_or(0, |(_, f)| f.bytes().take_while(u8::is_ascii_digit).count());
    let (Some(v), Some(a)) = (super::super::equiv::real_value(answer), super::super::equiv::real_value(approximation))
    else {
        return false;
    };
    let unit = 10f64.powi(-(places as i32));
    let slack = 1e-9 * unit;
    let rounded = (v - a).abs() <= 0.5 * unit + slack;
    let truncated = v.signum() == a.signum() && (-slack..unit - slack).contains(&(v.abs() - a.abs()));
    places > 0 && (rounded || truncated)
}

/// Restatements read back from one answer at most (`1/4 or 0.25 or 25%`).
const MAX_CHAIN: usize = 4;

/// Where the first statement of the value at `s[start..end]` starts, when it restates one just before it (`1/4 or
/// 0.25`, `1/4, i.e. 0.25`): that earlier value, then a restating lead, then this one.
pub(super) fn restated_from(s: &str, start: usize, end: usize) -> Option<usize> {
    let (mut first, mut at, mut until) = (None, start, end);
    for _ in 0..MAX_CHAIN {
        // The last number before it in its sentence, within the window.
        let from = floor_boundary(s, at.saturating_sub(WINDOW));
        let from = s[from..at].rfind(['\n', ';', '!', '?']).map_or(from, |i| from + i + 1);
        // Its readings (an expression, the number it starts with), the longest first.
        let found = super::super::prose::scan(s, from, at);
        let last = found.iter().filter(|f| f.end <= at).map(|f| f.start).max();
        let earlier = found
            .iter()
            .filter(|f| Some(f.start) == last && f.end <= at)
            .find(|f| restatement_end(s, f.start, f.end).is_some_and(|e| e >= until))
            .map(|f| (f.start, f.end))
            // Or a math block before it (`$\\frac{1}{4}$, or 25%`).
            .or_else(|| {
                block_before(s, from, at).filter(|&(a, b)| restatement_end(s, a, b).is_some_and(|e| e >= until))
            });
        let Some((earlier_start, earlier_end)) = earlier else { break };
        first = Some(earlier_start);
        (at, until) = (earlier_start, earlier_end);
    }
    first
}

/// The content of the `$…$` block that ends last in `s[from..at]` with no digit after it (`$\\frac{1}{4}$, or 25%`).
fn block_before(s: &str, from: usize, at: usize) -> Option<(usize, usize)> {
    let head = &s[from..at];
    let close = head.rfind('$')?;
    let open = head[..close].rfind('$')?;
    let inner = head[open + 1..close].trim();
    (!inner.is_empty() && !head[close..].contains(|c: char| c.is_ascii_digit()))
        .then(|| (from + open + 1, from + close))
}
