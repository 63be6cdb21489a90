//! Labels before an answer (`Wrong answer:`, `Lower bound:`, `Maybe:`, `Number of rejected items:`): which set
//! the value after them aside, bound or doubt it, and which only name what is counted.

use super::*;

/// Words that, before `answer`, make what follows it something other than the answer (`Wrong answer: 5`,
/// `"wrong_answer": "9"`, `tentative answer: 5`), besides those of [`LABEL_DOUBTS`], which doubt a value in any label.
pub(super) const DOUBTFUL_LABELS: &[&str] = &[
    "wrong",
    "incorrect",
    "alternative",
    "alternate",
    "other",
    "previous",
    "old",
    "initial",
    "tentative",
    "approximate",
    "estimated",
    "possible",
    "candidate",
    "guessed",
    "not",
    "no",
    "false",
    "bad",
    "example",
    "sample",
    "unverified",
    "likely",
    // Only with `answer` (`Partial fraction decomposition:` names a method).
    "partial",
    "backup",
    "fallback",
    "secondary",
    "superseded",
    "trap",
];

/// Is the answer at `start` labelled as something else: the last `answer` (`答案`, `ответ`) within the context
/// before it is preceded by a word of [`DOUBTFUL_LABELS`] (through spaces, `_`, quotes and `*`)?
pub fn doubtful_label(s: &str, start: usize) -> bool {
    let window = context_before(s, start);
    let lower = window.to_lowercase();
    if lower.len() != window.len() {
        // Case folding changed byte lengths: read the lowered text alone (offsets are not needed past here).
        return doubtful_in(&lower);
    }
    doubtful_in(&lower)
}

/// Does `word` before `answer` make it something other than the answer?
fn doubtful_word(word: &str) -> bool {
    DOUBTFUL_LABELS.contains(&word) || LABEL_DOUBTS.contains(&word)
}

/// [`doubtful_label`] on lower-case text.
pub(super) fn doubtful_in(lower: &str) -> bool {
    let Some(at) = super::super::extract::ANSWER_WORDS.iter().filter_map(|a| lower.rfind(a)).max() else {
        return false;
    };
    let head = lower[..at].trim_end_matches([' ', '_', '"', '\'', '*', '-']);
    // A count of wrong answers is a count (`Number of wrong answers: 42`).
    let line = &head[head.rfind(['\n', '.', ':']).map_or(0, |i| i + 1)..];
    if tally_label(&words_of(line)) {
        return false;
    }
    if ["错误", "错的", "不正确", "可能的", "大概"].iter().any(|w| head.ends_with(w)) {
        return true;
    }
    let word = head.rsplit(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    doubtful_word(word) || ["неверный", "неправильный", "примерный", "возможный"].contains(&word)
}

/// Adverbs that, opening the sentence of an answer, hedge all of it (`Approximately, the answer is 5`).
pub(super) const SENTENCE_HEDGES: &[&str] =
    &["approximately", "roughly", "probably", "maybe", "perhaps", "possibly", "presumably", "likely", "hypothetically"];
/// Words of a label before a colon that make what follows it a bound or a guess (`Lower bound: 5`, `My best
/// guess: 5`, `Estimate: 5`).
pub(super) const BOUND_LABELS: &[&str] = &[
    // Abbreviated (`Answer (approx.): 5`) and figurative (`Ballpark: 5`, `Shot in the dark: 5`).
    "approx",
    "appr",
    "rounded",
    "ballpark",
    "dark",
    "limb",
    "bound",
    "estimate",
    "estimated",
    "approximate",
    "approximately",
    "approximation",
    "rough",
    "roughly",
    "guess",
    "wrong",
    "incorrect",
    "tentative",
    "possible",
    "alternative",
    // A value picked rather than found (`My hunch: 5`, `Random pick: 5`, `Wild guess: 5`).
    "hunch",
    "pick",
    "random",
    "shot",
    "bet",
    "not",
    "rejected",
    "draft",
    "falsche",
    "incorrecta",
    "fausse",
    "candidate",
    "provisional",
    "preliminary",
    "incomplete",
    "unverified",
    "hypothesis",
    "conjecture",
    "feeling",
];

/// Words ending a clause of their own that bounds or doubts what the sentence then says (`At least, 5`, `I
/// guess, 5`, `Not sure, but the answer is 5`).
pub(super) const DOUBTING_CLAUSES: &[&[&str]] =
    &[&["i", "guess"], &["my", "guess"], &["not", "sure"], &["unsure"], &["no", "idea"], &["not", "certain"]];

/// Words at the end of `words` that bound the value after them (`at least`, `at most`, `at best`, `at minimum`, `at a
/// maximum`, `at the very least`, `as many as`): how many, if they do.
pub(super) fn bound_phrase_end(words: &[String]) -> Option<usize> {
    let w: Vec<&str> = words.iter().rev().take(4).map(String::as_str).collect();
    match w.as_slice() {
        ["least" | "most" | "minimum" | "maximum" | "best" | "worst", "at", ..] => Some(2),
        // `as many as 5`, `as much as 5`, `as few as 5`, `as little as 5`.
        ["as", "many" | "much" | "few" | "little" | "high" | "low", "as", ..] => Some(3),
        ["least" | "most" | "minimum" | "maximum", "a" | "the", "at", ..] => Some(3),
        ["least" | "most", "very", "the", "at", ..] => Some(4),
        _ => None,
    }
}

/// Is the answer at `start` hedged by its sentence: a sentence opening with a word of [`SENTENCE_HEDGES`] or with
/// a clause that only bounds or doubts (`At least, …`, `I guess, …`), or a label of [`BOUND_LABELS`] before a
/// colon on its line?
pub(super) fn hedged_sentence(s: &str, start: usize) -> Option<&'static str> {
    let window = context_before(s, start);
    let opens = window.char_indices().rev().find(|&(_, c)| matches!(c, '.' | '!' | '?' | '\n' | '。'));
    let sentence = &window[opens.map_or(0, |(i, c)| i + c.len_utf8())..];
    let opening = words_of(sentence);
    // `Roughly speaking, …` is a manner of speaking, not a hedge on the value.
    let idiom = opening.get(1).is_some_and(|w| w == "speaking");
    if !idiom && opening.first().is_some_and(|w| SENTENCE_HEDGES.contains(&w.as_str())) {
        return Some("hedged (the sentence opens with a hedge)");
    }
    // The sentence's first clause, when a comma ends it a few words before the answer: nothing but a bound or
    // a doubt (`At least, the answer is 5`; `At minimum, we need two colors, so 5` bounds something else).
    let comma = sentence.char_indices().find(|&(_, c)| matches!(c, ',' | '，'));
    if let Some((comma, _)) = comma.filter(|&(i, c)| words_of(&sentence[i + c.len_utf8()..]).len() <= 4) {
        let opening = words_of(&sentence[..comma]);
        let doubting = DOUBTING_CLAUSES.iter().any(|c| opening.iter().map(String::as_str).eq(c.iter().copied()))
            || opening.len() <= 3 && opening.iter().rev().take(2).map(String::as_str).eq(["sure", "not"]);
        if doubting || bound_phrase_end(&opening).is_some_and(|n| n == opening.len()) {
            return Some("hedged (the sentence opens with a bound or a doubt)");
        }
    }
    let mut line = &window[window.rfind('\n').map_or(0, |i| i + 1)..];
    // An answer alone on its line (a display, a box) is labelled by a line before it that ends in a colon
    // (`Lower bound:` then `\boxed{23}`).
    let lead = super::super::markup::unlisted(line.trim_start())
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '$' | '*'));
    // So does a Markdown heading (`### Answer (approximately)` then `42`).
    let mut heading = false;
    if lead.trim_start_matches("\\[").trim_start_matches("\\(").trim().is_empty() {
        let above = window[..window.len() - line.len()].trim_end();
        let previous = &above[above.rfind('\n').map_or(0, |i| i + 1)..];
        // A line without end punctuation labels it too (`Rejected` / `5`): its sentence goes on into the answer.
        // So does one trailing off (`Guess...`).
        let trailing = previous.trim_end_matches(['*', '_']);
        let open = trailing.ends_with("...")
            || trailing.ends_with('…')
            || !trailing.ends_with(|c: char| {
                is_clause_mark(c) || matches!(c, '。' | '！' | '？' | '$' | '}' | ']' | ':' | '：')
            });
        heading = previous.trim_start().starts_with('#') || open && !previous.trim().is_empty();
        if heading || previous.trim_end_matches('*').ends_with([':', '：']) {
            line = previous;
        }
    }
    // The label and where it ends in its line (its colon, or the line's end).
    let (label, colon) = match line.rfind([':', '：']) {
        Some(i) => (&line[..i], i),
        // A heading, or the last clause of a line that runs on into the answer (`… at most 10, so` / `\\boxed{5}`).
        None if heading => (&line[line.rfind([',', ';']).map_or(0, |i| i + 1)..], line.len()),
        None => return None,
    };
    // A label is read in the answer's own sentence: a sentence end after its colon (`Lower bound: 4. … the answer
    // is 4`) or before it (`It takes at least 4 moves. Answer: 4`) leaves the words of another sentence.
    // A sentence ends at `。` or at `.`/`!`/`?` before a space (not `approx.)` or `3.5`).
    // Not the full stop of an abbreviation (`Approx. answer:`).
    let abbreviation = |t: &str, i: usize| {
        let word = t[..i].rsplit(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
        BOUND_ABBREVIATIONS.contains(&word.to_ascii_lowercase().as_str())
    };
    let ends = |t: &str| {
        t.char_indices()
            .filter(|&(i, c)| {
                c == '。'
                    || matches!(c, '.' | '!' | '?')
                        && t[i + 1..].starts_with(char::is_whitespace)
                        && !(c == '.' && abbreviation(t, i))
            })
            .map(|(i, c)| i + c.len_utf8())
            .next_back()
    };
    let colon_end = colon + line[colon..].chars().next().map_or(0, char::len_utf8);
    if ends(&line[colon_end..]).is_some() {
        return None;
    }
    let label = &label[ends(label).unwrap_or(0)..];
    let words = words_of(label);
    // `Attempt 1: \\boxed{5}`, `Example: 5`: a label ending so, with the value right after its colon (`Example 3:
    // The answer is 42` labels a worked example, whose answer is stated).
    let right_after = words_of(&line[colon..]).is_empty();
    let last_word = words.last().map(String::as_str);
    // `least`/`most` bound as `at least`/`at most` (`At most: 5`), not in a name (`Least common multiple: 60`,
    // `Most likely value: 5`).
    let at_bound = words.windows(2).rev().take(2).any(|p| p[0] == "at" && matches!(p[1].as_str(), "least" | "most"));
    let counted = counted_label(&words);
    if at_bound
        || words.iter().enumerate().rev().take(3).any(|(k, w)| {
            // A count of what is set aside or wrong is a count (`Count of incorrect submissions: 42`).
            let described = counted && w == "not" || tallied(&words, k);
            BOUND_LABELS.contains(&w.as_str()) && !described
        })
        || right_after && last_word.is_some_and(|w| matches!(w, "attempt" | "try" | "example"))
    {
        return Some("a bound or a guess (labelled so)");
    }
    if !right_after {
        return None;
    }
    // A question mark in the label (`Answer?:`), a confidence given (`Answer (50% sure):`), or a hedge in another
    // language (`Vielleicht:`, `Примерно:`, `大约：`).
    let confidence = label.contains('%')
        && words.iter().any(|w| matches!(w.as_str(), "sure" | "confident" | "certain"))
        || words.windows(2).any(|p| {
            matches!(p[0].as_str(), "low" | "little" | "limited" | "moderate" | "medium" | "some")
                && matches!(p[1].as_str(), "confidence" | "certainty")
        });
    if label.contains(QUESTION_MARKS) || confidence {
        return Some("negated or hedged (a label before the answer)");
    }
    hedged_label(&words).or_else(|| foreign_hedge(label, ""))
}

/// Words of [`NEAR_CUES`] that end ordinary labels before a colon (`Adding them up:`, `As shown below:`): its first 15.
pub(super) const LABEL_WORDS: &[&str] = NEAR_CUES.split_at(15).0;

/// Words that, in a label right before the answer, doubt or disown it (`Uncertain:`, `Invalid:`).
pub(super) const LABEL_DOUBTS: &[&str] = &[
    "uncertain",
    "unsure",
    "unclear",
    "probable",
    "fake",
    "invalid",
    "dummy",
    "hypothetical",
    "placeholder",
    "bogus",
    // A value set aside or not final (`Rejected:`, `Ruled out:`, `Intermediate result:`, `A common mistake is:`).
    "rejected",
    "excluded",
    "exclude",
    "ruled",
    "discarded",
    "ignore",
    "eliminated",
    "erratum",
    "counterexample",
    "mistake",
    "typo",
    "scratch",
    "intermediate",
    "draft",
    "previously",
    "earlier",
    "instead",
    "often",
    "sanity",
    "herring",
    "distractor",
    "subtotal",
    "crossed",
    "superseded",
    "extraneous",
    "mauvaise",
    "fausse",
    "zła",
    "błędna",
    "aproximada",
    "aproximado",
    "approximative",
    "falsche",
    "ungefähre",
    "incorrecta",
    "errónea",
    "erroneous",
    "dubious",
    "unconfirmed",
    "retracted",
    "hedged",
    "wrong",
    "incorrect",
];

/// Nouns that open a subject naming what is counted or measured, in which a negation describes the things
/// counted (`the number of cases that do not work is 0`), not the value.
pub(super) const COUNTED_HEADS: &[&str] = &[
    // The first five count (see [`TALLIES`]); the rest measure.
    "number",
    "count",
    "total",
    "amount",
    "sum",
    "probability",
    "fraction",
    "percentage",
    "proportion",
    "ratio",
    "size",
    "area",
    "length",
    "value",
    "cost",
    "price",
];
/// Heads of [`COUNTED_HEADS`] that count (`number`, `count`, `total`, `amount`, `sum`).
pub(super) const TALLIES: &[&str] = COUNTED_HEADS.split_at(5).0;

/// Does a label count things (`Number of rejected items:`)? What it counts may be set aside; the count is not.
pub(super) fn tally_label(words: &[String]) -> bool {
    words.iter().take(3).any(|w| TALLIES.contains(&w.as_str()))
}

/// Does the word at `k` of a label describe what a count before it counts (`Count of incorrect submissions`), rather
/// than doubt the count (`Wrong count`, `Incorrect total`)?
pub(super) fn tallied(words: &[String], k: usize) -> bool {
    words.iter().take(3).position(|w| TALLIES.contains(&w.as_str())).is_some_and(|t| t < k)
}

/// Does a label name what is counted or measured (`Number of integers not divisible by 3`), not the answer?
pub(super) fn counted_label(words: &[String]) -> bool {
    words.iter().take(3).any(|w| COUNTED_HEADS.contains(&w.as_str()))
        && !words.iter().any(|w| matches!(w.as_str(), "answer" | "result"))
}

/// Does a label with the answer right after its colon (`The answer cannot be: 5`, `Maybe:` above `\boxed{5}`)
/// negate, bound or doubt it, as the same words before the value would (`The answer cannot be 5`)? A negation
/// in a label naming what is counted describes the things counted (`Number of integers not divisible by 3: 5`).
pub(super) fn hedged_label(words: &[String]) -> Option<&'static str> {
    // What is counted is described in the label, and its relations with it (`Number of integers divisible by 3:`).
    let counted = counted_label(words);
    let negated = !counted && words.iter().any(|w| NEGATIONS.contains(&w.as_str()))
        || words.iter().enumerate().any(|(k, w)| LABEL_DOUBTS.contains(&w.as_str()) && !tallied(words, k));
    // `Probable answer:`, `Fake answer:`: the answer named as something else.
    let named =
        words.windows(2).any(|p| matches!(p[1].as_str(), "answer" | "solution" | "result") && doubtful_word(&p[0]));
    // `Most likely value:` names the mode, not a doubt.
    let doubted = words.iter().enumerate().any(|(k, w)| {
        let naming = w == "likely" && k > 0 && matches!(words[k - 1].as_str(), "most" | "least" | "more" | "less");
        !naming && (CLAUSE_DOUBTS.contains(&w.as_str()) || SENTENCE_HEDGES.contains(&w.as_str()))
    });
    if negated || doubted || named {
        return Some("negated or hedged (a label before the answer)");
    }
    // Words that end ordinary labels too (`Adding them up:`, `As shown below:`, `Carrying over:`) bound nothing there,
    // unless after a copula (`The answer is below:`).
    let copula = |k: usize| k > 0 && matches!(words[k - 1].as_str(), "is" | "are" | "be" | "was");
    let near = words
        .iter()
        .enumerate()
        .rev()
        .take(NEAR_WORDS + 1)
        .any(|(k, w)| NEAR_CUES.contains(&w.as_str()) && (!LABEL_WORDS.contains(&w.as_str()) || copula(k)));
    (!counted && (near || bound_phrase_end(words).is_some()))
        .then_some("bounded or approximate (a label before the answer)")
}
