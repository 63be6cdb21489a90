//! Answers under conditions: another value offered for another case or another reading of the question, after the
//! answer (`\\boxed{42}. If inclusive: 43.`, `(43 in the alternate reading)`, `though 43 is possible`) or as one of
//! two answers each under its own condition (`If exclusive: \\boxed{42}. If inclusive: \\boxed{43}.`). Whichever case
//! the reference holds, such a text offers both: a reward that credits it teaches the policy to hedge.

use super::extract::{candidates, parses, Candidate, Source};
use super::hedge::{floor_boundary, words_of};
use super::Targets;

/// How much of a consequence is read for its values (bytes).
const CONSEQUENCE: usize = 400;
/// Clauses with a condition and a digit or command in their consequence read after the answer, at most: past that
/// many, the text offers too many cases to say which it answers.
const MAX_CASES: usize = 64;
/// Clauses with a condition and a box or an answer's words read before the answer, at most.
const MAX_EARLIER: usize = 16;
/// Clauses after a case read for the answer kept (`If we count the empty set, we get 4; the problem asks for
/// nonempty subsets, so 3.`).
const TURN_CLAUSES: usize = 3;
/// Words that say what the question asks, which keeps the answer over a case set aside.
const ASKED: &[&str] =
    &["asks", "asked", "specifies", "specified", "states", "stated", "says", "allows", "requires", "wants", "excluded"];
/// Words after `but` that leave the case open (`but who knows`, `but I think`, `but it may ask for days`).
const DOUBT_AFTER_TURN: &[&str] = &[
    "who", "knows", "think", "guess", "may", "might", "maybe", "perhaps", "either", "now", "unsure", "sure",
    "probably", "possibly", "could", "go",
];
/// Words that leave the reading open (`It depends on what the question asks`, `The question states neither`).
const UNDECIDED: &[&str] =
    &["depends", "depend", "unclear", "ambiguous", "either", "neither", "whichever", "both", "unsure", "unspecified"];
/// Values compared in one clause, at most.
const MAX_VALUES: usize = 4;

/// Words that open a clause stating a condition (`If inclusive, 43`, `Assuming n is odd: 43`).
const CONDITIONS: &[&str] = &[
    "if",
    "when",
    "whenever",
    "unless",
    "otherwise",
    "else",
    "assuming",
    "supposing",
    "provided",
    "alternatively",
    "depending",
    "had",
];
/// Words that open a clause that is all consequence (`otherwise 43`); after [`CONDITIONS`] a condition comes first,
/// and the value after its comma, colon or `then` is the consequence (`if x = 0, y = 5`: 5, not 0).
const OPENERS_WITHOUT_CONDITION: &[&str] = &[
    "otherwise",
    "else",
    "alternatively",
    "failing",
    "sinon",
    "sonst",
    "andernfalls",
    "altrimenti",
    "否则",
    "不然",
    "иначе",
    "senão",
    // `Or 43.` in other languages, opening a sentence after the answer (English `Or` is a revision).
    "oder",
    "ou",
    "oppure",
    "или",
    "或者",
];
/// `other`, `alternate`, … before one of [`READINGS`]: another reading of the question (`43 under the other
/// convention`, `Alternative interpretation: 43`).
const OTHER: &[&str] = &["other", "another", "alternate", "alternative", "different", "second"];
const READINGS: &[&str] = &[
    "interpretation",
    "interpretations",
    "reading",
    "readings",
    "convention",
    "conventions",
    "definition",
    "definitions",
    "assumption",
    "assumptions",
    "case",
    "cases",
    "scenario",
];
/// Readings named by one word, a value beside which is that reading's (`43 inclusive`).
const NAMED_READINGS: &[&str] = &["inclusive", "exclusive", "inclusively", "exclusively", "inclusion", "exclusion"];
/// Labels of another pick (`Runner-up: 43`), in English and a few other languages.
const ALTERNATE_LABELS: &[&str] = &[
    "runner-up",
    "runner up",
    "second choice",
    "second pick",
    "second guess",
    "plan b",
    "alternate",
    "alternate answer",
    "alternative answer",
    "other answer",
    "second answer",
    "backup answer",
    "alt",
    "alternativ",
    "alternativa",
    "respuesta alternativa",
    "réponse alternative",
    "alternative antwort",
];
/// Words that accept another value (`43 is also possible`, `though 43 works`), with one of [`ALSO`].
const ACCEPTING: &[&str] = &[
    "possible",
    "valid",
    "acceptable",
    "works",
    "work",
    "admissible",
    "correct",
    "defensible",
    "accepted",
    "fine",
    "arguable",
    "plausible",
    "reasonable",
    "legitimate",
    "viable",
    "likely",
];
const ALSO: &[&str] = &["also", "though", "although", "too", "equally", "alternatively"];
/// Words in a condition that make it a reading of the question rather than a case of its data.
const READING_WORDS: &[&str] = &[
    "inclusive",
    "exclusive",
    "inclusively",
    "exclusively",
    "interpretation",
    "interpreted",
    "interpret",
    "reading",
    "read",
    "meant",
    "means",
    "mean",
    "intended",
    "question",
    "problem",
    "asks",
    "asked",
    "convention",
    "count",
    "counts",
    "counted",
    "counting",
    "includes",
    "include",
    "included",
    "including",
    "excluded",
    "exclude",
];
/// Words after `if` that offer more rather than state a case (`If you'd like`, `if needed`).
const OFFERS: &[&str] = &["you", "you'd", "youd", "needed", "desired", "necessary", "interested", "required", "anyone"];
/// Words a consequence that only states a value is made of (`it would be 43`, `then the answer is 43`).
const FILLER: &[&str] = &[
    "then", "it", "it's", "its", "is", "would", "will", "be", "becomes", "become", "the", "a", "an", "answer", "we",
    "get", "gets", "gives", "give", "obtain", "yields", "count", "total", "result", "value", "number", "that", "this",
    "there", "are", "was", "were", "has", "have", "instead", "equals", "equal", "to", "so", "also", "final", "of",
];
/// Words besides [`FILLER`] a consequence may hold and still only state a value (a unit or a noun: `43 days`).
const MAX_OTHER_WORDS: usize = 1;
/// Words that may come before the value accepted (`also 43 is a possible answer`, `though 43 works`).
const SUBJECT_LEAD: &[&str] = &[
    "also", "though", "although", "but", "and", "or", "the", "value", "answer", "a", "an", "however", "still", "yet",
    "equally", "arguably", "perhaps", "maybe", "possibly", "note", "nb",
];
/// Verbs that attribute a value to someone else (`some would say 43`, `the key may give 43`), with one of
/// [`ATTRIBUTED`] before the value.
const SAYING: &[&str] =
    &["say", "says", "said", "argue", "argues", "claim", "claims", "give", "gives", "list", "lists", "answer", "put"];
const ATTRIBUTED: &[&str] =
    &["some", "others", "sources", "source", "key", "official", "textbook", "book", "people", "someone", "many"];
/// Labels that give a bare value after the answer a place of its own (`NB: 43`, `[^1]: 43`): another pick when
/// nothing but the value follows them.
const ASIDE_LABELS: &[&str] = &["nb", "n.b.", "note", "ps", "p.s.", "footnote", "aside", "fyi", "[^1]", "[1]", "*"];
/// Words that refuse the other reading or value (`not consistent`, `would be wrong`).
const REFUSING: &[&str] = &[
    "not",
    "no",
    "never",
    "neither",
    "nor",
    "inconsistent",
    "wrong",
    "incorrect",
    "invalid",
    "mistake",
    "mistakenly",
    "wrongly",
    "error",
    "erroneously",
    "incorrectly",
    "forget",
    "forgetting",
    "forgot",
    "trap",
    "pitfall",
    "forgets",
    "miss",
    "misses",
    "missing",
    "overlook",
    "overlooks",
    "ignore",
    "ignores",
    "ignoring",
    "overcount",
    "overcounts",
    "undercount",
    "undercounts",
    "fails",
    "flawed",
];

/// The clauses of `text[from..to]` (between sentence marks, semicolons, line breaks, brackets and dashes), as byte
/// ranges of `text`; a full stop between digits is a decimal point.
fn clauses(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = from;
    let bytes = text.as_bytes();
    for (i, c) in text[from..to].char_indices() {
        let at = from + i;
        let mark = match c {
            '.' => !bytes.get(at + 1).is_some_and(u8::is_ascii_digit),
            // Not a factorial (`3! = 6`).
            '!' => !text[..at].ends_with(|p: char| p.is_ascii_digit() || matches!(p, ')' | '}' | '!')),
            '?' | ';' | '\n' | '(' | ')' | '—' | '。' | '；' => true,
            _ => false,
        };
        if mark {
            if text[start..at].trim().len() > 1 {
                out.push((start, at));
            }
            start = at + c.len_utf8();
        }
    }
    if text[start..to].trim().len() > 1 {
        out.push((start, to));
    }
    out
}

/// Does the word `w` (lower case) open a case: a condition ([`CONDITIONS`]) or another case
/// ([`OPENERS_WITHOUT_CONDITION`])?
fn opens_case(w: &str) -> bool {
    CONDITIONS.contains(&w) || OPENERS_WITHOUT_CONDITION.contains(&w)
}

/// The numbers `s` writes, as written: digits joined by single `.` or `,` between digits (`1,043`, `2.5`).
fn numbers(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !b[i].is_ascii_digit() {
            i += 1;
        }
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit() || matches!(b[i], b'.' | b',') && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
        }
        // Digits and the ASCII marks between them are whole characters, so both ends are boundaries.
        (i > start).then(|| &s[start..i])
    })
}

/// How many numbers `s` writes (`1,043` and `2.5` are one each).
fn numbers_in(s: &str) -> usize {
    numbers(s).count()
}

/// Where the consequence of the clause `text[start..end]` starts, when the clause offers a value for another case or
/// reading: after a condition's comma, colon, arrow or `then`; the whole clause for another reading or an accepted
/// alternative.
fn consequence(text: &str, start: usize, end: usize) -> Option<usize> {
    let clause = &text[start..end];
    let words = words_of(clause);
    // Chinese words are read a character each: `否则` is `否`, `则`.
    let pair = words.get(1).map(|second| format!("{}{second}", words[0]));
    let first = match pair.as_deref() {
        Some(p) if opens_case(p) => p,
        _ => words.first()?.as_str(),
    };
    let in_case = words.len() > 1 && first == "in" && words[1] == "case";
    if opens_case(first) || in_case {
        // `43 if inclusive`: the value first, then its condition.
        if clause.trim_start().starts_with(|c: char| c.is_ascii_digit()) && !OPENERS_WITHOUT_CONDITION.contains(&first)
        {
            let at = clause.to_ascii_lowercase().find(first).unwrap_or(0);
            let condition = &clause[at..];
            let reads = words_of(condition).iter().any(|w| READING_WORDS.contains(&w.as_str()));
            let instance = condition.contains(|c: char| c.is_ascii_digit() || c == '=');
            let turned = words.iter().any(|w| matches!(w.as_str(), "but" | "however" | "though"));
            return (reads && !instance && !turned && numbers_in(&clause[..at]) == 1).then_some(start);
        }
        let cut = if OPENERS_WITHOUT_CONDITION.contains(&first) {
            clause.to_ascii_lowercase().find(first).map_or(0, |i| i + first.len())
        } else {
            let lower = clause.to_ascii_lowercase();
            // Without a mark, the word before the value ends the condition (`If inclusive it'd be 43`: `be 43`).
            // A mark after the value (`If inclusive it'd be 43, and …`) is no end of the condition.
            let digit = clause.find(|c: char| c.is_ascii_digit() || c == '\\').unwrap_or(clause.len());
            [",", ":", "→", "=>", " then "]
                .iter()
                .filter_map(|m| lower.find(m).filter(|&i| i < digit).map(|i| i + m.len()))
                .min()
                .or_else(|| clause[..digit].trim_end().rfind(' ').filter(|&i| i > 0))?
        };
        let condition = &clause[..cut];
        // A case of the question's reading (`If inclusive`, `If the question asks for full buses`, `If we count the
        // empty set`), not of its data (`If all letters were distinct, there would be 120` explains the answer).
        let reads = OPENERS_WITHOUT_CONDITION.contains(&first)
            || first == "depending"
            || words_of(condition).iter().any(|w| READING_WORDS.contains(&w.as_str()));
        // `Otherwise written, 0.5`: the same value in another form.
        let restated =
            words.get(1).is_some_and(|w| matches!(w.as_str(), "written" | "stated" | "put" | "expressed" | "said"));
        if !reads || restated {
            return None;
        }
        // An instance or a check (`If x = 3, then 2(3) + 1 = 7`, `If we used 4 buses, …`, `when x = 1, y = 3`) or an
        // offer (`If you'd like, I can show 6 × 7`): no case of the question.
        let instance = condition.contains(|c: char| c.is_ascii_digit() || c == '=');
        let offer = words.get(1).is_some_and(|w| OFFERS.contains(&w.as_str()));
        // Turned back in the clause (`If order mattered, it would be 12, but it doesn't`; not `…, but who knows`).
        let turned = turns_back(&clause[cut..]);
        // Words up to a turn (`be 43, but who knows`: `be 43`).
        let rest = words_of(&clause[cut..]);
        let turn = rest.iter().position(|w| matches!(w.as_str(), "but" | "however" | "though")).unwrap_or(rest.len());
        let rest = &rest[..turn];
        // The consequence states a value and little else (`43`, `it would be 43`, `then \\boxed{43}`, `the count is
        // 43 days`), not a computation about other things (`5 boxes hold 60 apples, matching the total`).
        let wordy = rest.iter().filter(|w| w.chars().any(char::is_alphabetic) && !FILLER.contains(&w.as_str())).count();
        // A computation or a list (`6 + 4 = 10 and 6 - 4 = 2`, `2, 3, 5, 7, 11`) checks or lists; it offers no value.
        let consequence = &clause[cut..];
        let worked = consequence.contains(['=', '✓', '✔']) || numbers_in(consequence) > 1;
        return (!instance && !offer && !turned && !worked && wordy <= MAX_OTHER_WORDS).then_some(start + cut);
    }
    // `Inclusive: 43`, `43 if inclusive`, `the inclusive count is 43`: one value under a named reading.
    let wordy = words.iter().filter(|w| w.chars().any(char::is_alphabetic) && !FILLER.contains(&w.as_str())).count();
    // Not a record's field (`"inclusive": 1` is a flag; records are read in [`super::records`]).
    let named = words.iter().any(|w| NAMED_READINGS.contains(&w.as_str()))
        && numbers_in(clause) == 1
        && wordy <= 3
        && !clause.contains('"');
    // `Runner-up: 43`, `Second choice: 43`, `Respuesta alternativa: 43`: a label of another pick.
    let lower_clause = clause.trim_start().to_lowercase();
    // (The value may follow the label without a colon: `second choice 43`.)
    let label_start = lower_clause.trim_start_matches([',', '，', '—', '–', ' ']);
    let labelled = ALTERNATE_LABELS.iter().any(|l| {
        label_start.strip_prefix(l).is_some_and(|r| {
            let r = r.trim_start();
            r.starts_with(':') || r.starts_with(|c: char| c.is_ascii_digit())
        })
    }) && numbers_in(clause) == 1;
    let reading = named
        || labelled
        || words.windows(2).any(|w| OTHER.contains(&w[0].as_str()) && READINGS.contains(&w[1].as_str()));
    // `43 is also possible`, `though 43 works too`: one value, the subject of the words that accept it (not `a check
    // with 2 and 3 also works`, `also valid for n ≥ 2`).
    let lower = clause.to_ascii_lowercase();
    let accepting = ACCEPTING.iter().filter_map(|a| lower.find(a)).min();
    let digit = clause.find(|c: char| c.is_ascii_digit());
    let subject = match (digit, accepting) {
        (Some(d), Some(a)) => d < a && words_of(&clause[..d]).iter().all(|w| SUBJECT_LEAD.contains(&w.as_str())),
        _ => false,
    };
    let accepted = subject && numbers_in(clause) == 1 && words.iter().any(|w| ALSO.contains(&w.as_str()));
    // `some would say 43`, `the official key may say 43`, `(some sources say 43)`: one value someone else gives.
    let attributed = numbers_in(clause) == 1
        && digit.is_some_and(|d| {
            let before = words_of(&clause[..d]);
            before.iter().any(|w| ATTRIBUTED.contains(&w.as_str()))
                && before.iter().any(|w| SAYING.contains(&w.as_str()))
        });
    // `NB: 43`, `[^1]: 43`: a bare value under an aside's label.
    let aside = ASIDE_LABELS.iter().any(|l| {
        lower_clause.strip_prefix(l).and_then(|r| r.trim_start().strip_prefix(':')).is_some_and(|r| {
            let value = r.trim();
            numbers_in(value) == 1 && words_of(value).len() <= 1
        })
    });
    // `Other readings are not consistent with 3 sides`: a reading refused offers nothing.
    let refused = words.iter().any(|w| REFUSING.contains(&w.as_str()) || w.ends_with("n't"));
    // `Even though the book says 41, our computation is correct.`, `The textbook lists 16, but that includes the
    // empty set.`: a value conceded or turned back in the rest of its sentence is set aside.
    let conceded = (accepted || attributed) && conceded_in_sentence(text, start, end, &words);
    ((reading || accepted || attributed || aside) && !refused && !conceded).then_some(start)
}

/// Words that open a clause conceding what it says (`although 6 seems plausible, …`).
const CONCEDING: &[&str] = &["although", "though", "even", "while", "whereas", "despite", "granted", "albeit"];

/// Is the value in the clause `text[start..end]` (its words `words`) conceded by the rest of its sentence: past
/// the comma after the value, the clause opens with a conceding word and at least two words follow without doubt
/// (`Although 6 seems plausible, we must include Sunday`), or the sentence turns it back (`…, but that includes the
/// empty set`; not `…, but who knows`)?
fn conceded_in_sentence(text: &str, start: usize, end: usize, words: &[String]) -> bool {
    let clause = &text[start..end];
    let Some(digit) = clause.find(|c: char| c.is_ascii_digit()) else { return false };
    let Some(comma) = clause[digit..].find([',', '，']).map(|i| start + digit + i) else { return false };
    let after = &text[comma + 1..];
    let rest = &after[..after.find(['.', '!', '?', '\n', ';', '。']).unwrap_or(after.len())];
    let rest_words = words_of(rest);
    let opens = words.first().is_some_and(|w| CONCEDING.contains(&w.as_str()));
    let doubt = after[..rest.len()].contains('?')
        || after[rest.len()..].starts_with('?')
        || rest_words.iter().any(|w| DOUBT_AFTER_TURN.contains(&w.as_str()));
    opens && rest_words.len() >= 2 && !doubt || turns_back(rest)
}

/// Does the clause `text[from..to]` keep the answer after a case was set aside: by what the question asks (`the
/// problem asks for nonempty subsets`, `it is excluded here`, `not what's asked`), or by stating `answer` again and no
/// other value (`so 3`, `as stated, 18`, `the answer remains 18`)? Not under a condition of its own (`or 42 if
/// exclusive` offers a case again).
fn kept(text: &str, from: usize, to: usize, answer: &str, case_words: &[String], targets: Targets) -> bool {
    let words = words_of(&text[from..to]);
    // `— which is what's asked`, `The problem says inclusive`: the case taken up, not set aside.
    let case_again = words.first().is_some_and(|w| matches!(w.as_str(), "which" | "that" | "this"))
        || words.iter().any(|w| case_words.contains(w));
    if case_again || words.iter().any(|w| opens_case(w) || UNDECIDED.contains(&w.as_str())) {
        return false;
    }
    if words.iter().any(|w| ASKED.contains(&w.as_str())) {
        return true;
    }
    let values = value_candidates(text, from, to, targets);
    !values.is_empty() && values.iter().all(|c| parses(&c.text) && super::math_equal(&c.text, answer).equal)
}

/// Does `text` turn a case back with `but`, `however` or `though`, and no doubt after it (`but it asks for days`;
/// not `but who knows`, `but I'll go with 42 for now`, `but the problem may ask for days`, `but …?`)?
fn turns_back(text: &str) -> bool {
    let words = words_of(text);
    let Some(at) = words.iter().position(|w| matches!(w.as_str(), "but" | "however" | "though")) else { return false };
    // `But.` alone turns nothing back.
    words.len() > at + 1
        && !text.contains('?')
        && !words[at + 1..].iter().any(|w| DOUBT_AFTER_TURN.contains(&w.as_str()))
}

/// The values `text[from..to]` states (at most [`MAX_VALUES`]; not a choice letter, nor the whole text).
fn value_candidates(text: &str, from: usize, to: usize, targets: Targets) -> Vec<Candidate> {
    candidates(&text[from..to], targets)
        .into_iter()
        .filter(|c| !matches!(c.source, Source::Letter(_) | Source::Whole))
        .take(MAX_VALUES)
        .collect()
}

/// The values in `text[from..to]` other than `answer` (`boxes_only`: in a box or after an answer's words).
fn other_values(text: &str, from: usize, to: usize, answer: &str, boxes_only: bool, targets: Targets) -> Vec<String> {
    candidates(&text[from..to], targets)
        .into_iter()
        .filter(|c| !matches!(c.source, Source::Letter(_) | Source::Whole))
        .filter(|c| {
            !boxes_only
                || matches!(c.source, Source::Boxed | Source::AnswerColon | Source::AnswerWord | Source::FinalAnswer)
        })
        .take(MAX_VALUES)
        .filter(|c| {
            parses(&c.text) && super::equiv::states_a_value(&c.text) && !super::math_equal(&c.text, answer).equal
        })
        .map(|c| c.text)
        .collect()
}

/// Is `chosen` offered beside another value for another case or reading: a clause after it with a condition or
/// another reading and a different value in its consequence, or a condition opening its own clause while an answer
/// before it, under a condition of its own, holds a different value? Linear in the text: each clause's words are
/// read once, and values only in a bounded part of at most [`MAX_CASES`] consequences.
pub fn conditioned_differently(text: &str, chosen: &Candidate, targets: Targets) -> Option<&'static str> {
    if matches!(chosen.source, Source::Whole | Source::Letter(_)) {
        return None;
    }
    let mut cases = 0;
    let after = clauses(text, chosen.end, text.len());
    for (k, &(start, end)) in after.iter().enumerate() {
        let Some(from) = consequence(text, start, end) else { continue };
        let to = floor_boundary(text, end.min(from + CONSEQUENCE));
        if !text[from..to].contains(|c: char| c.is_ascii_digit() || c == '\\') {
            continue;
        }
        cases += 1;
        if cases > MAX_CASES {
            return Some("too many cases offered after it");
        }
        let others = other_values(text, from, to, &chosen.text, false, targets);
        if others.is_empty() {
            continue;
        }
        // `(If we count the empty set, it would be 10; but the problem asks for nonempty subsets.)`; not when the
        // clauses after it settle on the other value (`; the question asks for inclusive, so 43`).
        let window = &after[k + 1..after.len().min(k + 1 + TURN_CLAUSES)];
        let settled_other = window.iter().any(|&(s, e)| {
            // The other value written again, in whatever form the reader takes it (`42 (43)`).
            others.iter().any(|o| numbers(&text[s..e]).any(|n| n == o.as_str()))
                || value_candidates(text, s, e, targets)
                    .iter()
                    .any(|c| others.iter().any(|o| super::math_equal(&c.text, o).equal))
        });
        // The case's own reading words (`inclusive`): a clause after it that names them takes the case up again.
        let case_words: Vec<String> =
            words_of(&text[start..from]).into_iter().filter(|w| NAMED_READINGS.contains(&w.as_str())).collect();
        let turned_back = window.first().is_some_and(|&(s, e)| {
            let words = words_of(&text[s..e]);
            words.first().is_some_and(|w| matches!(w.as_str(), "but" | "however"))
                && turns_back(&text[s..e])
                && !words.iter().any(|w| case_words.contains(w))
        }) || window.iter().any(|&(s, e)| kept(text, s, e, &chosen.text, &case_words, targets));
        if settled_other || !turned_back {
            return Some("another value for another case or reading");
        }
    }
    // The answer's own clause opens with a condition (`If inclusive: \\boxed{43}`, `For odd n: \\boxed{43}`).
    let mut before = clauses(text, 0, chosen.start);
    let (own_start, _) = *before.last()?;
    // A box before the answer in its clause ends a clause of its own (`\\boxed{42} If inclusive, \\boxed{43}`).
    let own_start = after_last_box(text, own_start, chosen.start);
    let own = words_of(&text[own_start..chosen.start]);
    let labelled_case = own.first().is_some_and(|w| w == "for")
        && own.len() <= 5
        && text[own_start..chosen.start].trim_end().trim_end_matches(['$', '*', ' ']).ends_with(':');
    // The condition over the answer: opening its clause, or among the last words before it (`Answer: 2 If
    // exclusive, then \\boxed{3}`), where what comes before it in the clause is read as an earlier clause.
    let condition = if labelled_case { Some(own_start) } else { last_condition(text, own_start, chosen.start) };
    let condition = condition?;
    if let Some(last) = before.last_mut() {
        last.1 = condition;
    }
    // An answer before it with another value under a condition of its own (an answer corrected before a condition,
    // `I first got 10, but I forgot zeros. If we include them, the answer is \\boxed{11}`, offers no case).
    before
        .iter()
        .rev()
        .filter(|&&(start, end)| {
            let clause = &text[start..end];
            clause.contains("\\boxed") || clause.contains("####") || clause.to_ascii_lowercase().contains("answer")
        })
        .take(MAX_EARLIER)
        .any(|&(start, end)| {
            let words = words_of(&text[start..end]);
            let case = words.first().is_some_and(|w| opens_case(w) || w == "for");
            let to = floor_boundary(text, end.min(start + CONSEQUENCE));
            case && !other_values(text, start, to, &chosen.text, true, targets).is_empty()
        })
        .then_some("one of two answers for two cases")
}

/// Where the last word opening a case ([`opens_case`]) among the last few words of `text[from..to]` starts.
fn last_condition(text: &str, from: usize, to: usize) -> Option<usize> {
    const LAST_WORDS: usize = 8;
    let slice = &text[from..to];
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in slice.char_indices().chain(std::iter::once((slice.len(), ' '))) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, &slice[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    let last = words.len().saturating_sub(LAST_WORDS);
    words[last..].iter().rev().find(|(_, w)| opens_case(&w.to_lowercase())).map(|&(at, _)| from + at)
}

/// Where the text after the last box in `text[from..to]` starts (`from` when there is none).
fn after_last_box(text: &str, from: usize, to: usize) -> usize {
    let Some(at) = text[from..to].rfind("\\boxed") else { return from };
    let mut depth = 0usize;
    for (i, c) in text[from + at..to].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return from + at + i + 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_split_at_marks_not_decimal_points() {
        let t = "It is 3.5 here. If odd, 4; (other reading: 5)";
        let parts: Vec<&str> = clauses(t, 0, t.len()).into_iter().map(|(a, b)| t[a..b].trim()).collect();
        assert_eq!(parts, ["It is 3.5 here", "If odd, 4", "other reading: 5"]);
    }

    #[test]
    fn consequences_follow_the_condition() {
        fn at(t: &str) -> Option<&str> {
            consequence(t, 0, t.len()).map(|i| &t[i..])
        }
        assert_eq!(at("If x = 0, y = 5"), None);
        assert_eq!(at("If inclusive, it would be 43 days"), Some(" it would be 43 days"));
        assert_eq!(at("If we substitute back: 6 + 4 = 10"), None);
        assert_eq!(at("If we list them: 2, 3, 5"), None);
        assert_eq!(at("If you'd like, I can show 6 times 7"), None);
        assert_eq!(at("Assuming the pattern continues, the next terms would be 9"), None);
        assert!(numbers_in("1,043 and 2.5") == 2 && numbers_in("none") == 0);
        assert_eq!(
            numbers("1,043 and 2.5, then 7. Also 1..2 or ٣").collect::<Vec<_>>(),
            ["1,043", "2.5", "7", "1", "2"]
        );
        assert_eq!(at("if inclusive then 43"), Some("43"));
        assert_eq!(at("Otherwise 43"), Some(" 43"));
        assert_eq!(at("Note that if x = 0 it is undefined"), None);
        assert_eq!(at("43 is also possible"), Some("43 is also possible"));
        assert_eq!(at("43 is not possible either, though"), None);
        assert_eq!(at("the largest possible value"), None);
    }

    #[test]
    fn the_last_condition_among_the_last_words() {
        let t = "Answer: 2 If exclusive, then ";
        assert_eq!(last_condition(t, 0, t.len()), Some(10));
        assert_eq!(last_condition("So they have ", 0, 13), None);
        assert_eq!(after_last_box("\\boxed{4{2}} if", 0, 15), 12);
    }
}
