//! The same value said again after an answer (`\boxed{\frac14}, or 25%`, `0.25 (i.e. 1/4)`, `\boxed{12\pi}
//! square units, approximately 37.70`): a restatement, not a second value, so what hedges the answer is read
//! past it.

use super::*;

/// Words that restate a value exactly after a comma or bracket (`, or 25%`, `(i.e. 1/4)`).
const RESTATING_LEADS: &[&str] = &["or", "i.e.,", "i.e.", "ie", "that is,", "that is", "which is", "equivalently"];
/// Words and signs that give an approximation of it (`, approximately 37.70`, `(≈ 0.33)`).
const APPROXIMATING_LEADS: &[&str] = &["approximately", "approx.", "about", "roughly", "around", "≈", "\\approx", "~"];
/// Bytes read past the answer for a restatement.
const WINDOW: usize = 80;

/// Where a restatement of the answer at `s[start..end]` ends, when one follows it: an optional unit (`square
/// units`), a comma or an opening bracket if any, a restating lead and a value equal to the answer (for an approximating
/// lead, a decimal that rounds or truncates it), then a closing bracket if one opened.
pub fn restatement_end(s: &str, start: usize, end: usize) -> Option<usize> {
    if end - start > super::super::limits::MAX_ANSWER_BYTES {
        return None;
    }
    let window = &s[end..floor_boundary(s, (end + WINDOW).min(s.len()))];
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
    let lower = t[..floor_boundary(t, t.len().min(16))].to_ascii_lowercase();
    // A lead ending in a letter ends its word (`or 25%`, not `order`).
    let lead = |leads: &[&str]| {
        leads
            .iter()
            .find(|l| {
                lower.starts_with(**l)
                    && !(l.ends_with(|c: char| c.is_ascii_alphabetic())
                        && t[l.len()..].starts_with(|c: char| c.is_ascii_alphabetic()))
            })
            .map(|l| l.len())
    };
    let (len, exact) = match lead(RESTATING_LEADS) {
        Some(n) => (n, true),
        None => (lead(APPROXIMATING_LEADS)?, false),
    };
    let at = s.len() - t.len() + len;
    let from = at + (s[at..].len() - s[at..].trim_start_matches([' ', '$']).len());
    let answer = answer_value(&s[start..end]);
    let same = |text: &str| {
        if exact {
            super::super::equiv::judge_within_budget(text, answer, &super::super::Options::default()).equal
        } else {
            rounds(answer, text)
        }
    };
    // The readings that start right there (an expression, the number it starts with): the first equal one.
    let found = super::super::prose::scan(s, from, floor_boundary(s, (from + 40).min(s.len())))
        .into_iter()
        .take_while(|f| f.start == from)
        .find(|f| same(&f.text))?;
    if !bracket {
        return Some(found.end);
    }
    let closed = s[found.end..].trim_start_matches(['$', ' ']).strip_prefix([')', ']']);
    closed.map(|rest| s.len() - rest.len())
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
        let Some(last) = found.iter().filter(|f| f.end <= at).map(|f| f.start).max() else { break };
        let earlier = found
            .iter()
            .filter(|f| f.start == last && f.end <= at)
            .find(|f| restatement_end(s, f.start, f.end).is_some_and(|e| e >= until));
        let Some(earlier) = earlier else { break };
        first = Some(earlier.start);
        (at, until) = (earlier.start, earlier.end);
    }
    first
}
