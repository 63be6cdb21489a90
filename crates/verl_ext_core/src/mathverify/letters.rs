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
pub(super) fn letter_at(b: &[u8], i: usize, choices: u32) -> Option<usize> {
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
    // Right after a label's colon too (`答案：C`, `答案:C` once folded; not the ratio `3:C`).
    let colon = before.ends_with("：".as_bytes())
        || before.strip_suffix(b":").is_some_and(|h| h.last().is_some_and(|c| !c.is_ascii_digit()));
    if !(before.is_empty() || before.last().is_some_and(u8::is_ascii_whitespace) || colon) {
        return None;
    }
    let bold = usize::from(after.starts_with(b"**")) * 2;
    if c == b'A' && bold == 0 && sentence_start(before) && article(after) {
        return None;
    }
    match after.get(bold) {
        None => Some(i + 1 + bold),
        // An initial is no choice (`E.g.`, `B.S.`, `D.C.`).
        Some(b'.') if after.get(bold + 1).is_some_and(u8::is_ascii_alphabetic) => None,
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

/// The last choice letter standing alone that starts before `end`: its span.
pub fn last_before(s: &str, end: usize, choices: u32) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    (0..end.min(b.len())).rev().find_map(|i| letter_at(b, i, choices).map(|e| (i, e)))
}

/// The answer word in the languages models answer multiple choice in (`Réponse : C`, `答案：C`), beside the
/// English `answer` Math-Verify reads.
const FOREIGN_ANSWER_WORDS: &[&str] = &[
    "réponse",
    "Réponse",
    "RÉPONSE",
    "respuesta",
    "Respuesta",
    "resposta",
    "Resposta",
    "risposta",
    "Risposta",
    "antwort",
    "Antwort",
    "ответ",
    "Ответ",
    "ОТВЕТ",
    "答案",
    "答え",
    "解答",
    "정답",
];
/// Words after a letter that rule its option out (`option A is a common trap`, `D) 550 min - no`).
const RULED_OUT_AFTER: &[&[u8]] = &[
    b" is a common trap",
    b" is a trap",
    b" is a distractor",
    b" is wrong",
    b" is incorrect",
    b" is not correct",
    b" is not the answer",
    b" can be eliminated",
    b" can be ruled out",
    b" is eliminated",
    b" is ruled out",
];
/// Words before a letter that rule its option out (`We can rule out C`).
const RULED_OUT_BEFORE: &[&[u8]] = &[b"rule out ", b"ruled out ", b"eliminate ", b"eliminates ", b"not "];

/// Does the text rule out the option of the letter at `start..end` where it names it?
fn ruled_out(b: &[u8], start: usize, end: usize) -> bool {
    let after = &b[end..];
    let before = b[..start].strip_suffix(b"(").unwrap_or(&b[..start]);
    let ends_ci = |n: &[u8]| before.len() >= n.len() && before[before.len() - n.len()..].eq_ignore_ascii_case(n);
    RULED_OUT_AFTER.iter().any(|w| after.len() >= w.len() && after[..w.len()].eq_ignore_ascii_case(w))
        || RULED_OUT_BEFORE.iter().any(|w| ends_ci(w))
}

/// Words that may stand between an answer word and its letter where letters are read only as stated answers
/// (`The answer is (C)`, `Answer: option C`, `The correct answer would be C`; not `Answer: 5 C`, `The answer is
/// wahrscheinlich C`).
const STATING_WORDS: &[&[u8]] = &[
    b"is",
    b"was",
    b"would",
    b"be",
    b"should",
    b"must",
    b"will",
    b"the",
    b"correct",
    b"right",
    b"best",
    b"final",
    b"option",
    b"choice",
    b"letter",
    b"therefore",
    b"thus",
    b"so",
    b"hence",
    b"then",
    b"here",
    b"clearly",
    b"est",
    b"es",
    b"ist",
    b"la",
    b"le",
    b"el",
    b"die",
    b"bonne",
    b"correcte",
    b"correcta",
    b"richtige",
];

/// Copulas after a CJK answer word (`答案是 B`, `答案为 B`, `答えは B`).
const CJK_STATING: &[char] = &['是', '为', '為', 'は', '：'];

/// Are the bytes between an answer word and a letter only marks and [`STATING_WORDS`]?
fn stating(between: &[u8]) -> bool {
    let text = String::from_utf8_lossy(between);
    text.split(|c: char| !c.is_alphanumeric() || CJK_STATING.contains(&c))
        .filter(|w| !w.is_empty())
        .all(|w| STATING_WORDS.iter().any(|s| s.eq_ignore_ascii_case(w.as_bytes())))
}

/// Words between `answer` and a letter that doubt it (`The answer is not sure, C.`).
const DOUBTS: &[&[u8]] = &[b"not ", b"unsure", b"maybe", b"perhaps", b"probably", b"guess", b"likely", b"unclear"];
/// Words of a letter's sentence that doubt it, read before the last letter of a text (`I'm not sure, C.`; not
/// `It is not A or B, so C.`).
const SENTENCE_DOUBTS: &[&[u8]] =
    &[b"not sure", b"unsure", b"maybe", b"perhaps", b"probably", b"guess", b"unclear", b"hmm"];

/// Bytes read back from a letter for the words of its sentence.
const SENTENCE_WINDOW: usize = 200;

/// Does `between` (the words from `answer` to a letter, or of `doubts`) doubt it?
fn doubted(between: &[u8], doubts: &[&[u8]]) -> bool {
    doubts.iter().any(|d| find_all_ci(between, d).next().is_some())
}

/// Words that name the option chosen before its letter (`The correct option is (C)`, `Correct choice: B`).
const CHOOSING: &[&[u8]] =
    &[b"option is", b"option:", b"choice is", b"choice:", b"option would be", b"choice would be"];
/// Words after a letter that choose it (`Hence, option (A) is correct.`, `C is the correct answer`).
const CHOSEN_AFTER: &[&[u8]] =
    &[b" is correct", b" is the correct", b" is the right", b" is right", b" is the answer", b" is the best"];
/// Characters between a word that names the option chosen and its letter.
const CHOOSING_WINDOW: usize = 12;

/// Add the letter candidates of `s` (priorities as Math-Verify's: 0, 50, 100, 200, 250, 300; a choosing phrase
/// or a foreign answer word as `answer`).
pub fn candidates(s: &str, choices: u32, anywhere: bool, out: &mut Vec<Candidate>) {
    let b = s.as_bytes();
    let mut found = Vec::new();
    read(s, choices, anywhere, &mut found);
    // Read only as stated answers, a letter is none that is the article (`The answer: A few remain`), an initial
    // (`E. coli`), one the text rules out or doubts after it on its line (`C is a trap.`, `C... hmm`).
    let stated = |c: &Candidate| {
        let after = &b[c.end..];
        let line = &after[..after.iter().position(|&x| x == b'\n').unwrap_or(after.len())];
        // A genus's initial before its species (`E. coli`, `B. anthracis`): a line's last one or two lowercase words.
        let initial = line.strip_prefix(b". ").is_some_and(|name| {
            let words: Vec<&[u8]> = name.split(|&x| x == b' ').filter(|w| !w.is_empty()).collect();
            (1..=2).contains(&words.len())
                && words.iter().all(|w| w.iter().all(|x| x.is_ascii_lowercase() || *x == b'.'))
        });
        !(b[c.start] == b'A' && article(after)
            || initial
            || ruled_out(b, c.start, c.end)
            || doubted(line, SENTENCE_DOUBTS))
    };
    out.extend(found.into_iter().filter(|c| anywhere || stated(c)));
}

/// The letter candidates of `s` (see [`candidates`]).
fn read(s: &str, choices: u32, anywhere: bool, out: &mut Vec<Candidate>) {
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
        let stated =
            |&(start, _): &(usize, usize)| !doubted(&b[from..start], DOUBTS) && (anywhere || stating(&b[from..start]));
        if let Some(found) = first_in(b, from, from + WINDOW, choices).filter(stated) {
            push(out, b, found, if colon { 100 } else { 200 });
        }
    }
    for word in FOREIGN_ANSWER_WORDS {
        for (at, _) in s.match_indices(word) {
            let after = s[at + word.len()..].trim_start_matches([' ', '*']);
            let colon = after.starts_with([':', '：']);
            let from = s.len() - after.len();
            let stated = |&(start, _): &(usize, usize)| anywhere || stating(&b[from..start]);
            if let Some(found) = first_in(b, from, from + WINDOW, choices).filter(stated) {
                push(out, b, found, if colon { 100 } else { 200 });
            }
        }
    }
    for cue in CHOOSING {
        for at in find_all_ci(b, cue) {
            let from = at + cue.len();
            let stated = |&(start, _): &(usize, usize)| anywhere || stating(&b[from..start]);
            if let Some(found) = first_in(b, from, from + CHOOSING_WINDOW, choices).filter(stated) {
                push(out, b, found, 200);
            }
        }
    }
    for cue in CHOSEN_AFTER {
        for at in find_all_ci(b, cue) {
            let before = (at.saturating_sub(4)..at).rev().find_map(|i| letter_at(b, i, choices).map(|e| (i, e)));
            if let Some(found) = before.filter(|&(_, end)| end == at) {
                push(out, b, found, 200);
            }
        }
    }
    let start = if b.starts_with(b"**") { 2 } else { 0 };
    // An option label at the start (`D)15`) is the answer when it is the whole line of text; above more lines
    // it opens a list of options (`A) 60% - no.` then the reasoning).
    // Where letters are read only as stated answers, a letter at the start is one only on a text of one line.
    let listed = |end: usize| {
        (!anywhere || b[end - 1] == b')' && b[start] != b'(') && b[end..].contains(&b'\n')
            || !anywhere && article(&b[end..])
    };
    if let Some(end) = letter_at(b, start, choices).filter(|&end| !listed(end)) {
        push(out, b, (start, end), 250);
    }
    if !anywhere {
        return;
    }
    // The last letter that the text does not rule out where it stands (`Note that option A is a common trap.`).
    // Nor one its sentence doubts (`The answer is not sure, C.`).
    let sentence = |i: usize| {
        let from = i.saturating_sub(SENTENCE_WINDOW);
        let head = &b[from..i];
        head.iter().rposition(|c| matches!(c, b'.' | b'!' | b'?' | b'\n')).map_or(head, |k| &head[k + 1..])
    };
    let standing = |i: usize| {
        letter_at(b, i, choices)
            .filter(|&end| !ruled_out(b, i, end) && !doubted(sentence(i), SENTENCE_DOUBTS))
            .map(|end| (i, end))
    };
    if let Some(found) = (0..b.len()).rev().find_map(standing) {
        push(out, b, found, 300);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(s: &str) -> Option<String> {
        let mut out = Vec::new();
        candidates(s, super::super::Targets::letters("ABCDE"), true, &mut out);
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
        // Choosing phrases and foreign answer words outrank a letter a remark names later.
        assert_eq!(best("The correct option is (A) Route C."), Some("A".into()));
        assert_eq!(best("Hence, option (A) is correct.\n\nNote that option D is a common trap."), Some("A".into()));
        assert_eq!(best("R\u{e9}ponse : A\n\nNote that option B is a common trap."), Some("A".into()));
        assert_eq!(best("\u{7b54}\u{6848}\u{ff1a}C"), Some("C".into()));
        assert_eq!(best("\u{7b54}\u{6848}:A\n\nNote that C is a trap."), Some("A".into()));
        assert_eq!(best("The ratio is 3:C"), None);
        assert_eq!(
            best("E)-897\n\nNote that option A is a common trap because it ignores the units."),
            Some("E".into())
        );
        assert_eq!(best("**B) 70%**\n\nWe can rule out C."), Some("B".into()));
        assert_eq!(best("The answer is not sure, C."), None);
        assert_eq!(best("It is not A or B, so C."), Some("C".into()));
        assert_eq!(best("The correct choice is B, Plan D."), Some("B".into()));
        assert_eq!(best("A)(a + b)(a - b)"), Some("A".into()));
        assert_eq!(best("We need P(A and B) and f(x, C)."), None);
        assert_eq!(best("so g(x) = (x + B)^2 holds"), None);
        assert_eq!(best("f(A)"), None);
        assert_eq!(best("xB) 5"), None);
        let mut out = Vec::new();
        candidates("The answer is U.", super::super::Targets::letters("U"), true, &mut out);
        assert_eq!(out.first().map(|c| c.text.as_str()), Some("U"));
    }
}
