//! Choice letters in prose (the `string` target, as Math-Verify's `StringExtractionConfig` reads them): a
//! letter of the choices (A-E by default) standing alone (after the start, a space or `**`; before `.`, `,`,
//! `:`, a space, `**` or the end; or as `(C)`), found after `final answer is`, after `answer:`/`answer`, at
//! the very start, or anywhere (the last).

use super::extract::{Candidate, Source};

/// Characters between `answer` and its letter.
const WINDOW: usize = 50;
/// Characters between `final answer` and its ` is`.
const FINAL_WINDOW: usize = 100;

/// Is there a standalone letter at byte `i`? Returns its end (after any closing `**`).
fn letter_at(b: &[u8], i: usize, choices: u32) -> Option<usize> {
    let c = *b.get(i)?;
    if !c.is_ascii_uppercase() || choices & (1 << (c - b'A')) == 0 {
        return None;
    }
    let before = &b[..i];
    let after = &b[i + 1..];
    // `(C)`, as choices are often written.
    if before.ends_with(b"(") && after.starts_with(b")") {
        let open = &before[..before.len() - 1];
        // Also in bold: `**(C)**`.
        let open = open.strip_suffix(b"**").unwrap_or(open);
        let bold = usize::from(after[1..].starts_with(b"**")) * 2;
        return (open.is_empty() || open.last().is_some_and(u8::is_ascii_whitespace)).then_some(i + 2 + bold);
    }
    let before = before.strip_suffix(b"**").unwrap_or(before);
    // `C)620`, `A) 4 1/3 km/h`, `'E)1,900'`: an option's label as AQuA writes it; a letter that closes a bracket
    // (`P(A \cup B)`, `f(x, B)`) names something else.
    if after.starts_with(b")") {
        let quoted = [&b"'"[..], b"\"", "\u{201c}".as_bytes(), "\u{2018}".as_bytes()];
        let open = quoted.iter().find_map(|q| before.strip_suffix(*q)).unwrap_or(before);
        let alone = open.is_empty() || open.last().is_some_and(u8::is_ascii_whitespace);
        let label = after.get(1).is_none_or(|c| !matches!(c, b'^' | b'_' | b'=' | b')' | b']' | b'}' | b'\''));
        return (alone && label && !in_open_bracket(before)).then_some(i + 2);
    }
    if !(before.is_empty() || before.last().is_some_and(u8::is_ascii_whitespace)) {
        return None;
    }
    let bold = usize::from(after.starts_with(b"**")) * 2;
    if c == b'A' && bold == 0 && sentence_start(before) && article(after) {
        return None;
    }
    match after.get(bold) {
        None => Some(i + 1 + bold),
        Some(c) if matches!(c, b'.' | b',' | b':') || c.is_ascii_whitespace() => Some(i + 1 + bold),
        // CJK text or fullwidth punctuation right after (`B。`, `B不是 A`): UTF-8 lead bytes of U+3000–U+9FFF
        // and U+FF00–U+FFEF.
        Some(0xE3..=0xE9 | 0xEF) => Some(i + 1 + bold),
        _ => None,
    }
}

/// Bytes read back along a line for an open bracket.
const BRACKET_WINDOW: usize = 256;

/// Does `before` leave a `(` open on its line (within [`BRACKET_WINDOW`] bytes)?
fn in_open_bracket(before: &[u8]) -> bool {
    let mut depth = 0usize;
    for &c in before.iter().rev().take(BRACKET_WINDOW) {
        match c {
            b'\n' => return false,
            b')' => depth += 1,
            b'(' if depth == 0 => return true,
            b'(' => depth -= 1,
            _ => {}
        }
    }
    false
}

/// Verbs and joiners that follow an option's letter (`A is correct`, `A and B`); any other lowercase word after
/// `A ` makes it the article (`A cylinder would have a fixed r`).
const AFTER_OPTION: &[&str] = &[
    "is",
    "was",
    "would",
    "could",
    "should",
    "must",
    "can",
    "cannot",
    "does",
    "seems",
    "appears",
    "and",
    "or",
    "only",
    "fits",
    "gives",
    "holds",
    "matches",
    "satisfies",
    "works",
];

/// Does a sentence start after `before` (the text's start, or a line break or `.`, `!`, `?` and spaces)?
fn sentence_start(before: &[u8]) -> bool {
    let trimmed = before.trim_ascii_end();
    trimmed.is_empty()
        || trimmed.ends_with(b".")
        || trimmed.ends_with(b"!")
        || trimmed.ends_with(b"?")
        || before.len() > trimmed.len() && before[trimmed.len()..].contains(&b'\n')
}

/// Is `after` (the text after a capital A at a sentence's start) the rest of a sentence that starts with the article `A`?
fn article(after: &[u8]) -> bool {
    let Some(rest) = after.strip_prefix(b" ") else { return false };
    let n = rest.iter().position(|b| !b.is_ascii_alphabetic()).unwrap_or(rest.len());
    let word = &rest[..n];
    word.first().is_some_and(u8::is_ascii_lowercase) && !AFTER_OPTION.iter().any(|w| w.as_bytes() == word)
}

/// The first standalone letter starting in `[from, to]`.
fn first_in(b: &[u8], from: usize, to: usize, choices: u32) -> Option<(usize, usize)> {
    (from..=to.min(b.len().saturating_sub(1))).find_map(|i| letter_at(b, i, choices).map(|end| (i, end)))
}

fn push(out: &mut Vec<Candidate>, b: &[u8], (start, end): (usize, usize), priority: u16) {
    let text = char::from(b[start]).to_string();
    out.push(Candidate { text, source: Source::Letter(priority), start, end });
}

fn find_all_ci<'a>(h: &'a [u8], n: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    (0..h.len().saturating_sub(n.len() - 1)).filter(move |&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// Add the letter candidates of `s` (priorities as Math-Verify's: 0, 50, 100, 200, 250, 300).
/// The last choice letter standing alone that starts before `end`: its span.
pub fn last_before(s: &str, end: usize, choices: u32) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    (0..end.min(b.len())).rev().find_map(|i| letter_at(b, i, choices).map(|e| (i, e)))
}

pub fn candidates(s: &str, choices: u32, out: &mut Vec<Candidate>) {
    let b = s.as_bytes();
    let skip_space = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    for at in find_all_ci(b, b"final answer is") {
        let from = skip_space(at + 15 + usize::from(b.get(at + 15) == Some(&b':')));
        if let Some(found @ (_, end)) = letter_at(b, from, choices).map(|end| (from, end)) {
            let rest = s[end..].trim_start_matches('.').trim_start();
            if rest.starts_with("I hope") {
                push(out, b, found, 0);
            }
        }
    }
    for at in find_all_ci(b, b"final answer") {
        let from = at + 12;
        let window = &b[from..(from + FINAL_WINDOW + 4).min(b.len())];
        let is = (1..window.len().saturating_sub(1))
            .find(|&i| window[i - 1].is_ascii_whitespace() && window[i..].starts_with(b"is"));
        if let Some(i) = is {
            let start = skip_space(from + i + 2 + usize::from(b.get(from + i + 2) == Some(&b':')));
            if let Some(end) = letter_at(b, start, choices) {
                push(out, b, (start, end), 50);
            }
        }
    }
    for at in find_all_ci(b, b"answer") {
        let colon = b.get(at + 6) == Some(&b':');
        let from = at + 6 + usize::from(colon);
        if let Some(found) = first_in(b, from, from + WINDOW, choices) {
            push(out, b, found, if colon { 100 } else { 200 });
        }
    }
    let start = if b.starts_with(b"**") { 2 } else { 0 };
    // An option label at the start (`D)15`) is the answer when it is the whole line of text; above more lines
    // it opens a list of options (`A) 60% - no.` then the reasoning).
    let listed = |end: usize| b[end - 1] == b')' && b[start] != b'(' && b[end..].contains(&b'\n');
    if let Some(end) = letter_at(b, start, choices).filter(|&end| !listed(end)) {
        push(out, b, (start, end), 250);
    }
    if let Some(found) = (0..b.len()).rev().find_map(|i| letter_at(b, i, choices).map(|end| (i, end))) {
        push(out, b, found, 300);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(s: &str) -> Option<String> {
        let mut out = Vec::new();
        candidates(s, super::super::Targets::letters("ABCDE"), &mut out);
        out.sort_by_key(|c| (c.source.priority(), std::cmp::Reverse(c.end)));
        out.first().map(|c| c.text.clone())
    }

    #[test]
    fn letters() {
        assert_eq!(best("The answer is A."), Some("A".into()));
        assert_eq!(best("A. Because B is not valid"), Some("A".into()));
        assert_eq!(best("Final answer is B"), Some("B".into()));
        assert_eq!(best("No valid answer here"), None);
        assert_eq!(best("I think **C** is right"), Some("C".into()));
        assert_eq!(best("XDY"), None);
        assert_eq!(best("The answer is (C)."), Some("C".into()));
        assert_eq!(best("f(C)"), None);
        // The article is no choice (Sky-T1's `A cylinder would have … the only correct option is (C) Plane.`).
        assert_eq!(best("A cylinder would have a fixed r, so the only correct option is (C) Plane."), Some("C".into()));
        assert_eq!(best("A is correct."), Some("A".into()));
        assert_eq!(best("The answer is A because B fails."), Some("A".into()));
        // AQuA's option labels (`C)620`), not a letter closing a bracket.
        assert_eq!(best("So, the correct answer is:\nC)620"), Some("C".into()));
        assert_eq!(best("The correct answer is B) Rs. 1680."), Some("B".into()));
        assert_eq!(best("So the correct answer is 'E)1,900'."), Some("E".into()));
        assert_eq!(best("D)15"), Some("D".into()));
        assert_eq!(best("A) 60% - no.\n\nR\u{e9}ponse : C"), Some("C".into()));
        assert_eq!(best("A)(a + b)(a - b)"), Some("A".into()));
        assert_eq!(best("We need P(A and B) and f(x, C)."), None);
        assert_eq!(best("so g(x) = (x + B)^2 holds"), None);
        assert_eq!(best("f(A)"), None);
        assert_eq!(best("xB) 5"), None);
        let mut out = Vec::new();
        candidates("The answer is U.", super::super::Targets::letters("U"), &mut out);
        assert_eq!(out.first().map(|c| c.text.as_str()), Some("U"));
    }
}
