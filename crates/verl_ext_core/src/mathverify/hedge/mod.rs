//! Is an answer found in a text asserted, or hedged? A reward that credits `the answer is not 5`, `at least
//! 5`, `5 or 6`, `x \geq 5` or `\boxed{5}. Wait, that's wrong…` for the reference 5 teaches a policy to hedge,
//! so the words around the answer are read: negations, bounds and alternatives right before or after it,
//! and a revision anywhere after it, withdraw it (the solution then has no answer and scores 0).
//!
//! Only the clause holding the answer is read before it (back to `,` `;` `.` `!` `?` or a line break, at most
//! [`BEFORE_WORDS`] words), so `Since x is not an integer, the answer is 5` keeps its answer. Every check is
//! linear in the text.

use super::lexer::MULTIPLIERS;
use super::unicode::MINUS_SIGNS;

mod after;
mod context;
mod expression;
mod foreign;
mod labels;
mod restated;
mod revisions;
mod words;
pub use after::signs;
use after::*;
pub use context::*;
pub use expression::*;
use foreign::*;
pub use labels::*;
pub use restated::restatement_end;
use restated::{restated_from, restated_otherwise};
pub use revisions::*;
pub use words::*;

/// Words read before an answer, within its clause.
const BEFORE_WORDS: usize = 8;
/// Words read after an answer, within its clause.
const AFTER_WORDS: usize = 3;
/// Bytes of context read on either side (the clause is cut there).
const CONTEXT_BYTES: usize = 120;

/// Negations: anywhere in the clause before a value they negate it (`not 5`, `isn't 7`, `either … 5`), except in
/// a subject naming what is counted (`the number of students who did not pass is 5`).
const NEGATIONS: &[&str] = &[
    "not",
    "isn't",
    "aren't",
    "wasn't",
    "isnt",
    "cannot",
    "can't",
    "never",
    "neither",
    "nor",
    "either",
    "unlike",
    "except",
    "besides",
    "wrong",
    "incorrect",
    // Other languages' plain negations (a CJK character is a word of its own).
    "non",
    "pas",
    "nicht",
    "kein",
    "不",
    "非",
    "没",
    "no",
    "nope",
    "não",
    "nao",
    "не",
    "niet",
    "nie",
    "ikke",
    "excluding",
    "false",
    "aint",
    "ain't",
    "is'nt",
    "wrongly",
    "mistakenly",
];
/// Doubts: anywhere in the clause before a value they hedge it (`I doubt it is 5`, `my guess is 5`).
const CLAUSE_DOUBTS: &[&str] = &[
    "unlikely",
    "likely",
    "hardly",
    "doubtful",
    "anything",
    "could",
    "might",
    "may",
    "doubt",
    "suppose",
    "supposing",
    "guess",
    "guessing",
    "estimate",
    "estimated",
    "estimating",
    "assume",
    "hypothetically",
    // A value picked rather than found (`My hunch: 5`, `Random pick: 5`).
    "hunch",
    "arbitrarily",
    "blindly",
    "idk",
    "hopefully",
    "supposedly",
    "allegedly",
    "guesstimate",
    "suspect",
    "conjecture",
    "conjectured",
];
/// Number words after `no` that make it part of a description (`no two girls adjacent`).
const NUMBER_WORDS: &[&str] =
    &["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "more", "fewer"];
/// Verbs that state the value after them (`is`, `equals`; `es`, `est`, `ist`, `é`): what comes before them names it.
const COPULAS: &[&str] =
    &["is", "are", "was", "were", "be", "equals", "equal", "es", "est", "ist", "sind", "son", "sont", "é"];

/// Words that bound or hedge the value right after them (`over 5`, `more than 5`, `about 5`, `maybe 5`).
const NEAR_CUES: &[&str] = &[
    // First the words that end ordinary labels too (`Adding them up:`, `As shown below:`): [`LABEL_WORDS`]. Scaling
    // words among them: the value after them is not the answer itself (`twice 5`; `half of 5` below).
    "over",
    "under",
    "above",
    "below",
    "up",
    "within",
    "twice",
    "thrice",
    "triple",
    "double",
    "negative",
    "minus",
    "like",
    "upwards",
    "excess",
    // Then the rest.
    "about",
    "around",
    "circa",
    "than",
    "exceed",
    "exceeds",
    "exceeding",
    "approximately",
    "approx",
    "roughly",
    "nearly",
    "almost",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "guess",
    "close",
    "near",
    "presumably",
    "capped",
    "bounded",
    "limited",
    "surpasses",
    "surpass",
    "ca",
    "ballpark",
    "beyond",
    "somewhat",
    "ish",
    // A relation in words (`different from 5`, `divisible by 5`, `short of 5`, `upper bound 5`).
    "different",
    "differs",
    "differ",
    "unequal",
    "distinct",
    "divisible",
    "short",
    "shy",
    "bound",
    "minimally",
    "maximally",
];
/// Words that, before `of`, relate the value after it to the answer (`a multiple of 5`, `half of 5`); alone
/// they are ordinary (`the least common multiple is 60`).
const OF_CUES: &[&str] = &[
    "square",
    "cube",
    "root",
    "third",
    "quarter",
    "fifth",
    "tenth",
    "percent",
    "triple",
    "power",
    "multiple",
    "multiples",
    "factor",
    "divisor",
    "half",
    "fraction",
    "part",
    "double",
    "twice",
    "minimum",
    "maximum",
    // `north of 5`, `on the order of 5`, `in the region of 5`.
    "region",
    "neighborhood",
    "neighbourhood",
    "vicinity",
    "north",
    "south",
    "order",
];
/// Words of [`NEAR_CUES`] reach this far back (`more than about 5`).
const NEAR_WORDS: usize = 2;
/// Verbs whose particle (`up`, `over`, `down`, `out`) is no bound on the value after it (`ends up with 12`, `adds up to
/// 12`, `handed over 12`, `the amount left over`).
const PHRASAL_HEADS: &[&str] = &[
    "left", "end", "ends", "ended", "ending", "add", "adds", "added", "adding", "sum", "sums", "summed", "pick",
    "picks", "picked", "give", "gives", "gave", "given", "make", "makes", "made", "take", "takes", "took", "taken",
    "use", "uses", "used", "hand", "hands", "handed", "turn", "turns", "turned", "carry", "carries", "carried", "pass",
    "passes", "passed", "come", "comes", "came", "tally", "tallies", "tallied", "total", "totals", "totaled",
    "totalled", "count", "counts", "counted", "fill", "fills", "filled", "pay", "pays", "paid", "split", "splits",
    "set", "sets", "show", "shows", "showed", "shown", "work", "works", "worked", "figure", "figured", "went", "goes",
    "go", "going", "gone", "wind", "winds", "wound", "sign", "signs", "signed", "stock", "stocked", "rack", "racked",
    "rounded", "round", "hand", "give", "brought", "bring", "brings", "saved", "save", "saves", "mark", "marked",
    "marks", "jumped", "shot", "rose", "ran", "runs", "run", "climbed", "moved", "moves", "goes",
];

/// Words after `could`/`might` that still doubt the value after them (`it could be`, `it might equal`).
const MODAL_DOUBTS: &[&str] = &[
    "be", "possibly", "perhaps", "also", "maybe", "probably", "well", "equal", "equals", "reach", "exceed", "total",
    "become", "give", "yield", "result", "come", "end", "turn", "work", "mean", "have", "get", "make",
];

/// Pronouns and conjunctions that open a clause of their own after a value (`5 I do not know`, `5 this is not
/// right`, `42, but I'm not sure`).
const CLAUSE_OPENERS: &[&str] = &[
    "i", "i'm", "we", "you", "he", "she", "it", "it's", "they", "this", "that", "which", "there", "one", "but", "and",
    "yet", "though", "although", "because", "since", "unless", "if", "while", "whereas", "however",
];
/// Words that bound, hedge or scale the value right before them (`5 or more`, `5 at most`, `5, maybe`,
/// `5 thousand`: a number in prose is read without the words after it, so these leave no answer).
const AFTER_CUES: &[&str] = &[
    "or",
    "nor",
    "not",
    "isn't",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "approximately",
    "approx",
    "roughly",
    "least",
    "most",
    "wrong",
    "incorrect",
    "no",
    "nope",
    "false",
    "ish",
    "guess",
    "bound",
    "estimated",
    "estimate",
    "tentative",
    "tentatively",
    "unsure",
    "uncertain",
    "unverified",
    "if",
    "unless",
    "assuming",
    "provided",
    "minimum",
    "maximum",
    "tops",
    "upwards",
    "onwards",
    // The value given and then struck (`\\boxed{5} (crossed out)`).
    "isnt",
    "crossed",
    "idk",
    "dunno",
    "tbd",
    "placeholder",
    "untested",
    "dubious",
    "sic",
    "todo",
    "upward",
    "almost",
    "depending",
    "tbc",
    "hypothesis",
    "pending",
    "draft",
    "unconfirmed",
    "probablemente",
    "rough",
    "hopefully",
    "barring",
    "wahrscheinlich",
    "probabilmente",
    "provavelmente",
];

/// Words that reject the value they follow directly (`\\boxed{5} fails.`, `\\boxed{5} is rejected`,
/// `\\boxed{5} doesn't satisfy …`); further on they are about something else (`since 3 doesn't work`,
/// `(x = -2 is extraneous)`).
const REJECTIONS: &[&str] = &[
    "fails",
    "fail",
    "failed",
    "doesn't",
    "doesnt",
    "rejected",
    "invalid",
    "extraneous",
    "impossible",
    "excluded",
    "discarded",
    "wrong",
    "incorrect",
];

/// Comparatives that, followed by `than`, make the value before them a bound (`5 more than`).
const COMPARATIVES: &[&str] = &["more", "less", "fewer", "greater", "smaller", "larger", "bigger", "higher", "lower"];

/// Words that say a quantity is required (`must score`, `needs to sell`): `at least`/`at most` after them
/// state the minimum or maximum asked for (`Jane must score at least 9 points`), not a bound of the answer.
const REQUIRING: &[&str] = &["must", "need", "needs", "needed", "require", "requires", "required", "ought"];
/// Verbs after which `at least X` bounds the value itself (`the answer must be at least 9`).
const BEING: &[&str] = &[
    "be",
    "is",
    "are",
    "was",
    "were",
    "been",
    "being",
    "equal",
    "equals",
    "answer",
    "it",
    "become",
    "becomes",
    "stay",
    "stays",
    "remain",
    "remains",
    "have",
    "has",
    "satisfy",
    "satisfies",
    "exceed",
    "exceeds",
    "total",
    "totals",
    "get",
    "reach",
    "reaches",
    "value",
    "number",
];

/// Do the clause's words before `at least`/`at most` (`words`) require an action of that amount: a word of
/// [`REQUIRING`] (or `has to`/`have to`), and a verb other than `be` just before the bound?
fn required(words: &[String]) -> bool {
    let requires = words.iter().any(|w| REQUIRING.contains(&w.as_str()))
        || words.windows(2).any(|p| matches!(p[0].as_str(), "has" | "have" | "had") && p[1] == "to");
    requires && words.last().is_some_and(|w| !BEING.contains(&w.as_str()) && !REQUIRING.contains(&w.as_str()))
}

/// Words after `or` that restate an answer rather than offer another (`5, or equivalently 10/2`).
const RESTATING: &[&str] = &["equivalently", "simply", "written", "expressed", "in"];

/// Relations that bound rather than state a value (`x \geq 5`, `> 5`, `\ne 5`, `\neg 5`, `≈ 5`), as written
/// just before or after an answer.
const RELATIONS: &[&str] = &[
    "\\geqslant",
    "\\leqslant",
    "\\approx",
    "\\lnot",
    "\\not=",
    "\\not =",
    "\\nless",
    "\\ngtr",
    "\\neq",
    "\\geq",
    "\\leq",
    "\\neg",
    "\\not",
    "\\sim",
    "\\ge",
    "\\le",
    "\\ne",
    "\\gt",
    "\\lt",
    ">",
    "<",
    "≥",
    "≤",
    "≠",
    "≈",
    "~",
    "!=",
    "¬",
    // Markdown strikethrough (`~~5~~`).
    "~~",
    ">=",
    "<=",
    "=<",
    "&gt;",
    "&lt;",
    "&ge;",
    "&le;",
    "&ne;",
    "\\geqq",
    "\\leqq",
    "\\ngeq",
    "\\nleq",
    "\\gtrsim",
    "\\lesssim",
    "\\gtrapprox",
    "\\lessapprox",
    "\\simeq",
    // `±43`: two values, not one.
    "\\pm",
    "\\mp",
    "±",
    "∓",
    "\\succ",
    "\\prec",
    "\\gg",
    "\\ll",
    "\\approxeq",
    "\\cong",
    "\\doteq",
    "\\eqsim",
    "\\thickapprox",
    "\\thicksim",
    "\\backsim",
    "\\notin",
    "\\propto",
    "\\nmid",
    "\\mid",
    "\\textgreater",
    "\\textless",
    "=/=",
    "<>",
    "≳",
    "≲",
    "⩾",
    "⩽",
    "≪",
    "≫",
    "≉",
    "≃",
    "≅",
    "≒",
    "∝",
    "∉",
    "∤",
    "∣",
    "&asymp;",
];

/// Words that, before a time, make it a bound (`before 3:45`, `by 3:45`, `shortly after 3:45`).
const TIME_BOUNDS: &[&str] = &["before", "after", "by", "until", "till", "til", "past", "since", "prior"];

/// Is the answer at `s[start..end]` a clock time with a bound on it: a word of [`TIME_BOUNDS`] right before it, or
/// `at the latest`/`at the earliest` (`at latest`) right after it?
fn time_bound(s: &str, start: usize, end: usize) -> bool {
    if end - start > 64 {
        return false;
    }
    let value: String = answer_value(&s[start..end]).chars().filter(|c| !c.is_whitespace()).collect();
    // An hour read from prose without its `AM`/`PM` (`7` of `7 AM`): with the half of the day after it.
    let rest = s[end..].trim_start_matches(' ');
    let half = super::prose::half_day_len(rest).map(|(_, half)| half);
    let timed =
        super::clock::clock(&value).is_some() || half.is_some_and(|h| super::clock::clock(&(value + h)).is_some());
    if !timed {
        return false;
    }
    let before = words_of(clause_before(s, start));
    let mut after = words_of(clause_after(s, end));
    if half.is_some() && after.first().is_some_and(|w| matches!(w.as_str(), "am" | "pm" | "a" | "p" | "m")) {
        after.retain(|w| !matches!(w.as_str(), "am" | "pm" | "a" | "p" | "m"));
    }
    // `at the latest`, `latest`, `(earliest)`, `and later`, `or earlier`, `± 5 minutes`.
    let bound_word =
        |w: &String| matches!(w.as_str(), "latest" | "earliest" | "soonest" | "later" | "earlier" | "sooner");
    let latest = after.iter().take(4).any(bound_word);
    let spread = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic() || matches!(c, '.' | ' ' | '}' | '$'));
    let spread = ["±", "\\pm", "+/-", "+-"].iter().any(|p| spread.starts_with(p));
    latest || spread || before.last().is_some_and(|w| TIME_BOUNDS.contains(&w.as_str()))
}

/// Does `hay` contain `needle` (lower-case ASCII) in any ASCII case? (`hay.to_ascii_lowercase().contains(needle)`
/// without the copy.)
fn contains_ignore_ascii_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else { return true };
    let upper = first.to_ascii_uppercase();
    let mut i = 0;
    while let Some(k) = memchr::memchr2(first, upper, &h[i..]) {
        let at = i + k;
        if h.len() - at < n.len() {
            return false;
        }
        if h[at..at + n.len()].eq_ignore_ascii_case(n) {
            return true;
        }
        i = at + 1;
    }
    false
}

/// Why the answer at `s[start..end]` is not asserted, if it is not: a cue or bounding relation in its clause
/// just before or after it. A box declares its answer, so `x = 1/5, or \boxed{20}\%` restates it; `4 or 5`
/// in prose offers two.
pub fn around(s: &str, start: usize, end: usize, boxed: bool) -> Option<&'static str> {
    // The same value said again (`\\boxed{\\frac14}, or 25%`, `1/4 or 0.25`) is read as part of the answer.
    let end = restatement_end(s, start, end).unwrap_or(end);
    let start = if boxed { start } else { restated_from(s, start, end).unwrap_or(start) };
    if restated_otherwise(s, start, end) {
        return Some("another value given as the answer after it (\\boxed{72}, which is 73)");
    }
    if boxed && inside_expression(s, start, end) {
        return Some("a box inside a larger expression (\\boxed{5}+1)");
    }
    if let Some(why) = continued(s, start, end) {
        return Some(why);
    }
    // A currency sign or code before the answer is part of it (`at least Rs. 42`, `about USD 42`).
    let start = crate::mathverify::lexer::before_currency(&s[..start]).len();
    let answer_text = &s[start..end];
    let before = clause_before(s, start);
    // A relation before the answer binds it across a line break (`x \geq` then `\boxed{5}` on the next line).
    if ends_with_relation(before) || ends_with_relation(context_before(s, start)) {
        return Some("a bound, not a value (relation before the answer)");
    }
    if let Some(why) = foreign_hedge(before, clause_after(s, end)) {
        return Some(why);
    }
    if let Some(why) = hedged_sentence(s, start) {
        return Some(why);
    }
    if time_bound(s, start, end) {
        return Some("a bound on a time (before 3:45, 3:45 at the latest)");
    }
    if abbreviated_bound(window_before(s, start, 24)) {
        return Some("bounded or approximate (an abbreviation before the answer)");
    }
    // The words since the previous number: a cue before that number is about it (`not 10 but 1,000.99`),
    // except in a range or a choice of two (`between 4 and 5`, `4 or 5`).
    let (earlier, since) = match before.rfind(|c: char| c.is_ascii_digit()) {
        Some(i) => (&before[..i], &before[i + 1..]),
        None => ("", before),
    };
    let near = words_of(since);
    match near.as_slice() {
        [w] if w == "or" && !boxed => return Some("one of several values (or)"),
        [w] if matches!(w.as_str(), "and" | "to") => {
            let head = words_of(earlier);
            // `3 to 4` is a range by itself; `3 and 4` only after `between`/`from`.
            if w == "to" || head.iter().rev().take(2).any(|w| matches!(w.as_str(), "between" | "from")) {
                return Some("a range, not a value");
            }
        }
        _ => {}
    }
    // Cues that are part of what the sentence names (`the number of non-negative solutions is`, `with no two girls
    // adjacent is`, `the most likely sum is`), not said of the value.
    // Where the sentence's subject ends: a copula as the last word before the answer (`… is 5`); and whether
    // that subject names what is counted or measured (`the number of …`, `the probability that …`).
    let subject_end = near.last().filter(|w| matches!(w.as_str(), "is" | "are" | "equals")).map(|_| near.len() - 1);
    // Its head noun among the first words (`the expected number of …`, `the unique value that …`).
    let counted_subject = near.iter().take(3).any(|w| COUNTED_HEADS.contains(&w.as_str()));
    let naming = |k: usize, w: &str| {
        let next = near.get(k + 1).map(String::as_str);
        let prev = k.checked_sub(1).and_then(|j| near.get(j)).map(String::as_str);
        // A cue in the subject of `… is 5` that does not name the answer (`the number of students who did
        // not pass is`), unlike `I don't think the answer is` or `it is not true that the answer is`.
        let in_subject = NEGATIONS.contains(&w)
            && subject_end.is_some_and(|end| k < end)
            && counted_subject
            && !near[..subject_end.unwrap_or(0)].iter().any(|w| matches!(w.as_str(), "answer" | "result"));
        in_subject
            || match w {
                "non" => k + 2 < near.len(),
                // `le nombre de pas est 42`: French `pas` after a determiner is a noun (steps), not a negation.
                "pas" => prev.is_some_and(|p| {
                    matches!(
                        p,
                        "de" | "des" | "du" | "le" | "les" | "un" | "ces" | "ses" | "mes" | "nos" | "vos" | "leurs"
                    )
                }),
                "no" => next.is_some_and(|n| NUMBER_WORDS.contains(&n)),
                "likely" => prev.is_some_and(|p| matches!(p, "most" | "least" | "more" | "less")),
                // `she could bake`, `he could buy`: what is possible, not a doubt (`it could be 12`, `it might equal
                // 12` doubt the value).
                "could" | "might" => next.is_some_and(|n| n.len() > 2 && !MODAL_DOUBTS.contains(&n)),
                // `may` doubts only as a modal (`it may be 12`); `In May, 12 …` names a month.
                // `may be written as`, `may be simplified to`: a form of the value, not a doubt.
                "may" => {
                    let participle =
                        near.get(k + 2).is_some_and(|p| p.len() > 3 && (p.ends_with("ed") || p.ends_with("en")));
                    !next.is_some_and(|n| MODAL_DOUBTS.contains(&n)) || next == Some("be") && participle
                }
                // `it's not hard to see that`, `in either case`, `either way`.
                "not" => next.is_some_and(|n| matches!(n, "hard" | "difficult")),
                "either" => next.is_some_and(|n| matches!(n, "case" | "way")),
                _ => false,
            }
    };
    let start = near.len().saturating_sub(BEFORE_WORDS);
    let mut clause = near.iter().enumerate().skip(start).filter(|&(k, w)| !naming(k, w)).map(|(_, w)| w);
    if clause.any(|w| NEGATIONS.contains(&w.as_str()) || CLAUSE_DOUBTS.contains(&w.as_str()) || w == "or" && !boxed) {
        return Some("negated or hedged (words before the answer)");
    }
    // `the amount left over is 3`, `the digits add up to 20`: the cue is not about the value.
    let named = near.last().is_some_and(|w| COPULAS.contains(&w.as_str()))
        || near.iter().rev().nth(1).is_some_and(|w| matches!(w.as_str(), "add" | "adds" | "sum" | "sums"));
    // `the amount left over`, `ends up with`, `adds up to`, `handed over`: a verb's particle, not a bound.
    let left_over = |k: usize| {
        matches!(near[k].as_str(), "over" | "up" | "down" | "out")
            && k > 0
            && PHRASAL_HEADS.contains(&near[k - 1].as_str())
    };
    let last: Vec<&str> = if named {
        Vec::new()
    } else {
        near.iter()
            .enumerate()
            .rev()
            .take(NEAR_WORDS)
            .filter(|&(k, _)| !left_over(k))
            .map(|(_, w)| w.as_str())
            .collect()
    };
    let related = matches!(last.as_slice(), ["of", w] if OF_CUES.contains(w));
    // `must score at least 9 points` states the minimum asked for; a box after `at least` bounds what it declares.
    let bound = !named && bound_phrase_end(&near).is_some_and(|n| boxed || !required(&near[..near.len() - n]));
    // `minimum 5`, `max 5` bound; `the minimum 5` names it.
    let extremum = matches!(last.as_slice(), [w, ..] if matches!(*w, "min" | "max" | "minimum" | "maximum")
            && strip_markup_end(before).to_ascii_lowercase().ends_with(w))
        && !matches!(last.get(1), Some(&("the" | "a" | "its" | "this" | "that")));
    if last.iter().any(|w| NEAR_CUES.contains(w)) || bound || related || extremum {
        return Some("bounded or approximate (words before the answer)");
    }
    let after = clause_after(s, end);
    let trimmed = strip_markup_start(after);
    let doubt = trimmed.trim_start_matches(['(', '[', '{', '«', '`', ' ']);
    // What follows the answer past its clause (which a decimal point or an ellipsis ends).
    let past = strip_markup_start(context_after(s, end));
    // `5…?`, `5...?`, `5 \\ldots?`, `5;?`: an ellipsis or a mark before the question mark.
    let mut trailing = past;
    loop {
        let next = trailing.trim_start_matches(['…', '.', ' ', ';', ':']);
        let next = ["\\ldots", "\\cdots", "\\dots"].iter().find_map(|c| next.strip_prefix(c)).unwrap_or(next);
        if next.len() == trailing.len() {
            break;
        }
        trailing = next;
    }
    // `5+` (5 or more), `5..6` (a range).
    let plus = trimmed.strip_prefix('+').is_some_and(|r| {
        !r.trim_start().starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '\\' | '(' | '$' | '{'))
    });
    let dots =
        past.strip_prefix("..").is_some_and(|r| r.trim_start_matches('.').starts_with(|c: char| c.is_ascii_digit()));
    if plus || dots {
        return Some("a bound or a range, not a value (5+, 5..6)");
    }
    if trimmed.starts_with('?')
        || trailing.starts_with(QUESTION_MARKS) && past.len() > trailing.len()
        || questioned(past)
        || doubt.starts_with(DOUBT_MARKS)
        || doubt.strip_prefix("\\pm").is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphabetic()))
        || RELATIONS.iter().any(|r| {
            // A command must end there (`\\pmod` is not `\\pm`, `\\left` not `\\le`).
            trimmed.strip_prefix(r).is_some_and(|rest| {
                !(r.starts_with('\\')
                    && r.ends_with(|c: char| c.is_ascii_alphabetic())
                    && rest.starts_with(|c: char| c.is_ascii_alphabetic()))
            })
        })
            // The clause ends at a decimal point, so the approximation is read past it.
            && !approximated(past)
    {
        return Some("a bound or a question, not a value (after the answer)");
    }
    let after_words = words_of(after);
    // `5 more than …` bounds; `7300 more bottles` (how many more?) is an ordinary answer, but a declared
    // answer with `more` and nothing after it (`\boxed{5} more`) is `5 or more`.
    let next: Vec<String> = words_of(trimmed.split(|c: char| c.is_ascii_digit()).next().unwrap_or(""));
    let comparative = next.first().is_some_and(|w| COMPARATIVES.contains(&w.as_str()))
        && (next.get(1).is_some_and(|w| w == "than") || boxed && next.len() == 1);
    if comparative {
        return Some("a bound, not a value (more/less after the answer)");
    }
    // `5 and more`, `5 and up`: a bound.
    if after_words.first().is_some_and(|w| w == "and")
        && after_words.get(1).is_some_and(|w| {
            matches!(
                w.as_str(),
                "more" | "up" | "above" | "higher" | "over" | "beyond" | "less" | "below" | "lower" | "fewer"
            )
        })
    {
        return Some("a bound, not a value (and more/less after the answer)");
    }
    // `\\boxed{4}, not 5`, `4 (not 5)`, `4 rather than 5`: another value denied, the answer kept.
    // Also past the noun the value counts (`\\boxed{7} boxes (not 13, which he already has)`); the value denied is
    // another one (`\\boxed{42} boxes, not 42` denies the answer).
    let contrast = {
        let t = trimmed.trim_start_matches([',', '(', ' ']);
        let noun = &t[..t.len() - t.trim_start_matches(char::is_alphabetic).len()];
        let counted = plural_noun(noun) || crate::mathverify::lexer::canonical_unit(noun).is_some();
        let past_noun = if counted { t[noun.len()..].trim_start_matches([',', '(', ' ']) } else { t };
        let digits = |v: &str| v.chars().filter(char::is_ascii_digit).collect::<String>();
        let answer = digits(answer_text);
        // A choice letter denies another letter (`C, not B`, `(C) rather than (B)`).
        let letter = |v: &str| {
            let v = v.trim_matches(['(', ')', '*']);
            (v.len() == 1 && v.as_bytes()[0].is_ascii_uppercase()).then_some(v.as_bytes()[0])
        };
        ["not ", "rather than "].iter().find_map(|c| past_noun.strip_prefix(c)).is_some_and(|r| {
            let r = r.trim_start_matches(['$', ' ', '\\', '(', '*']);
            let denied = &r[..r.len() - r.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').len()];
            let other_letter = letter(answer_text).is_some_and(|chosen| {
                let b = r.as_bytes();
                b.first().is_some_and(|&c| c.is_ascii_uppercase() && c != chosen)
                    && b.get(1).is_none_or(|c| !c.is_ascii_alphanumeric())
            });
            !denied.is_empty() && digits(denied) != answer || other_letter
        })
    };
    // `\\boxed{12} wrong answers`, `12 incorrect options`: an adjective of the things the value counts.
    let adjective =
        after_words.first().is_some_and(|w| matches!(w.as_str(), "wrong" | "incorrect" | "invalid" | "false"))
            && after_words.get(1).is_some_and(|n| plural_noun(n));
    let cue = |k: usize| {
        let w = after_words[k].as_str();
        // `5 (the maximum)`, `5 (minimum)` name the extremum asked for; `5 maximum` bounds. `60 (the least common
        // multiple of 12 and 15)` names what the value is.
        if matches!(w, "minimum" | "maximum")
            && (k > 0 && after_words[k - 1] == "the" || k == 0 && trimmed.starts_with('('))
            || matches!(w, "least" | "most")
                && k > 0
                && after_words[k - 1] == "the"
                && !(k > 1 && after_words[k - 2] == "at")
                && !after_words.get(k + 1).is_some_and(|n| matches!(n.as_str(), "likely" | "probable" | "plausible"))
        {
            return false;
        }
        // `\boxed{100} (assuming the fence is used on all four sides)`: a premise in words, with no value, variable or
        // doubt of its own (`\boxed{5} if $n$ is even` is a case; `assuming I made no error`, a doubt).
        if matches!(w, "assuming" | "provided") && premise(past, w) {
            return false;
        }
        if contrast && matches!(w, "not" | "rather" | "than") {
            return false;
        }
        if k == 0 && adjective {
            return false;
        }
        // `\\boxed{33} students did not pass`: a negation after the noun the value counts, and its verb, describes
        // the things counted (not after a copula or a pronoun: `5 is not`, `5 I do not know`).
        let first = after_words[0].as_str();
        if k >= 2
            && matches!(w, "not" | "isn't" | "no")
            && first.len() >= 3
            && !COPULAS.contains(&first)
            && !CLAUSE_OPENERS.contains(&first)
        {
            return false;
        }
        // `5 (or equivalently 10/2)` restates the answer.
        (AFTER_CUES.contains(&w) || MULTIPLIERS.iter().any(|(m, _, _)| *m == w))
            && !(w == "or" && after_words.get(k + 1).is_some_and(|n| RESTATING.contains(&n.as_str())))
    };
    if operated_after(trimmed) {
        return Some("a value changed by the words after it (5 times 2, 5 and a half)");
    }
    // The clause after a comma too (`5, I think`, `5, for now`).
    let next_clause = past
        .trim_start()
        .strip_prefix([',', '，', '、'])
        .map(|r| &r[..r.find(['.', ';', '!', '?', '\n', '。']).unwrap_or(r.len())]);
    if doubted_after(&after_words)
        || next_clause.is_some_and(|c| doubted_after(&words_of(c)) || foreign::foreign_doubt(c))
    {
        return Some("not committed (words after the answer)");
    }
    let first = after_words.first().map(String::as_str);
    let rejected = first.is_some_and(|w| REJECTIONS.contains(&w) && !adjective)
        || matches!(first, Some("is" | "was")) && after_words.get(1).is_some_and(|w| REJECTIONS.contains(&w.as_str()));
    if rejected || (0..after_words.len().min(AFTER_WORDS)).any(cue) {
        return Some("negated, bounded or hedged (words after the answer)");
    }
    None
}

/// Words that make a premise a doubt about the work (`assuming I made no error`, `provided my arithmetic is right`).
const DOUBTING: &[&str] = &[
    "i",
    "i'm",
    "im",
    "my",
    "me",
    "correct",
    "correctly",
    "right",
    "error",
    "errors",
    "mistake",
    "mistakes",
    "arithmetic",
    "calculation",
    "calculations",
    "computation",
    "computed",
    "wrong",
    "nothing",
    "missed",
    "typo",
    "typos",
];

/// Is the rest of the sentence after an answer (`past`), from the word `word` (`assuming`) on, a premise in words: at
/// least two words, none a one-letter variable or a doubt ([`DOUBTING`]), and no digit, math or relation?
fn premise(past: &str, word: &str) -> bool {
    let sentence = &past[..past.find(['.', '!', '?', '\n']).unwrap_or(past.len())];
    let Some(at) = sentence.to_ascii_lowercase().find(word) else { return false };
    let rest = &sentence[at + word.len()..];
    let words = words_of(rest);
    // A count of things is data (`assuming all 4 books are distinct`); a number alone is a value (`assuming 43`).
    let counts = rest.split(|c: char| !c.is_ascii_digit()).filter(|d| !d.is_empty()).count();
    let counted = rest.match_indices(|c: char| c.is_ascii_digit()).all(|(i, _)| {
        let after = rest[i..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        let next = words_of(after).into_iter().next().unwrap_or_default();
        let noun = !next.is_empty() && !AFTER_CUES.contains(&next.as_str()) && !CLAUSE_OPENERS.contains(&next.as_str());
        after.starts_with(' ') && after.trim_start().starts_with(|c: char| c.is_alphabetic()) && noun
            || after.starts_with(|c: char| c.is_ascii_digit() || c == '.')
    });
    words.len() >= 2
        && counts <= 1
        && (counts == 0 || counted)
        && !rest.contains(['$', '=', '\\', '<', '>', '≤', '≥', '≠'])
        && words.iter().all(|w| !DOUBTING.contains(&w.as_str()) && (w.chars().count() > 1 || w == "a"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hedged(s: &str, answer: &str) -> bool {
        let start = s.rfind(answer).expect("answer in text");
        around(s, start, start + answer.len(), answer.starts_with("\\boxed")).is_some()
    }

    #[test]
    fn label_words_are_the_head_of_the_near_cues() {
        assert_eq!(LABEL_WORDS.first(), Some(&"over"));
        assert_eq!(LABEL_WORDS.last(), Some(&"excess"));
        assert_eq!(TALLIES.last(), Some(&"sum"));
    }

    #[test]
    fn phrases_written_as_one_word() {
        for (word, parts) in [
            ("atleast", vec!["at", "least"]),
            ("upto", vec!["up", "to"]),
            ("closeto", vec!["close", "to"]),
            ("perhapsnot", vec!["perhaps", "not"]),
            ("definitelynot", vec!["definitely", "not"]),
            ("nomorethan", vec!["no", "more", "than"]),
            ("atleastmorethannot", vec!["at", "least", "more", "than", "not"]),
        ] {
            assert_eq!(glued(word), Some(parts), "{word}");
        }
        for word in ["nothing", "beat", "into", "island", "notation", "cannot", "nearest", "about", "maybe", "noon"] {
            assert_eq!(glued(word), None, "{word}");
        }
        assert_eq!(words_of("The answer is atmost 5"), ["the", "answer", "is", "at", "most"]);
    }

    #[test]
    fn cues_before_and_after() {
        assert!(hedged("the answer is not 5", "5"));
        assert!(hedged("the answer isn't 7", "7"));
        assert!(hedged("It is at least 5.", "5"));
        assert!(hedged("between 4 and 5", "5"));
        assert!(hedged("either 4 or 5", "5"));
        assert!(hedged("the answer is 5 or more", "5"));
        assert!(hedged("so $x \\geq \\boxed{5}$", "\\boxed{5}"));
        assert!(hedged("we get > 5", "5"));
        assert!(hedged("it is 5?", "5"));
        assert!(hedged("it is 5, or maybe 6", "5"));
        assert!(!hedged("Since x is not an integer, the answer is 5.", "5"));
        assert!(!hedged("The final answer is 5. I hope it is correct.", "5"));
        assert!(!hedged("so $x = \\boxed{5}$", "\\boxed{5}"));
        assert!(!hedged("x \\gets 5", "5"));
        // Markup and look-alike letters do not hide a word.
        assert!(hedged("the answer is \\text{n}\\text{ot } 5", "5"));
        assert!(hedged("the answer is nοt 5", "5"));
        assert!(hedged("the answer is no\u{200b}t 5", "5"));
        assert!(hedged("It is not true that the answer is 5", "5"));
        assert!(!hedged("the number is not 10 which is 1,000.99", "1,000.99"));
        assert!(!hedged("so $x=1/5$, or $\\boxed{20}$ percent", "\\boxed{20}"));
        assert!(!hedged("the angle between the lines is $\\boxed{90}$", "\\boxed{90}"));
        assert!(hedged("it is 4 or 5", "5"));
        assert!(hedged("it is more than 5", "5"));
        assert!(hedged("it is at most 5", "5"));
        assert!(hedged("the answer is 5 at most", "5"));
        assert!(hedged("The answer is 7 thousand.", "7"));
        assert!(inside_bracket("Answer: Eq(x, 5)", 14));
        assert!(!inside_bracket("Answer: f(5) = 3", 15));
        assert!(!inside_bracket("the answer is (35 + 70 = 105)", 25));
    }

    #[test]
    fn values_written_on_past_the_answer() {
        for (s, answer) in [
            ("The answer is $\\boxed{5}\\pi$.", "\\boxed{5}"),
            ("The answer is $\\boxed{5} \\bmod 3$.", "\\boxed{5}"),
            ("The answer is \\boxed{5}k.", "\\boxed{5}"),
            ("The answer is \\boxed{5},000.", "\\boxed{5}"),
            ("The answer is 5k.", "5"),
            ("The answer is 5e3.", "5"),
            ("The answer is 5!", "5"),
            ("The answer is 5M.", "5"),
            ("\\boxed{2}x", "\\boxed{2}"),
            ("The answer is −\\boxed{5}.", "\\boxed{5}"),
            ("Answer: 5, 6", "5"),
            ("The answer is 5 and 6.", "5"),
            ("\\boxed{5} (?)", "\\boxed{5}"),
            ("The answer is $\\boxed{5} = 6$.", "\\boxed{5}"),
            ("\\boxed{5} ❌", "\\boxed{5}"),
            ("\\boxed{5} if $n$ is even", "\\boxed{5}"),
            ("The answer is 5 (estimated).", "5"),
            ("The answer is twice \\boxed{5}.", "\\boxed{5}"),
            ("The answer is half of \\boxed{5}.", "\\boxed{5}"),
            ("The answer is a multiple of \\boxed{5}.", "\\boxed{5}"),
            ("I doubt the answer is \\boxed{5}.", "\\boxed{5}"),
            ("Suppose the answer is \\boxed{5}.", "\\boxed{5}"),
            // Another value beside it on its line, or joined to it as an alternative or a range.
            ("Answer: 5 6", "5"),
            ("The final answer is 5 6 7.", "5"),
            ("Answer: $5$ \\quad $6$", "5"),
            ("Answer: 5 | 6", "5"),
            ("Answer: 5 to 6", "5"),
            ("Answer: 5 to -6", "5"),
            ("Answer: $\\frac34$ to $\\frac56$", "\\frac34"),
            ("The answer is 5 – 6.", "5"),
            ("Answer: 5 up to 6", "5"),
            ("Answer: 5 (also 6)", "5"),
            ("Answer: 5 \\text{ to } 6", "5"),
            // A question mark in a text group, and bounds before the answer or opening its sentence.
            ("The answer is \\boxed{5}\\text{?}", "\\boxed{5}"),
            ("The answer is \\boxed{5}\\ \\textbf{(?)}", "\\boxed{5}"),
            ("The answer is at a minimum \\boxed{5}.", "\\boxed{5}"),
            ("The answer is at the very least 5.", "5"),
            ("At least, \\boxed{5}", "\\boxed{5}"),
            ("At minimum, the answer is 5.", "5"),
            ("I guess, \\boxed{5}", "\\boxed{5}"),
            // Doubts in the subject, negations of the answer itself, and approximations by another value.
            ("My guess is 5.", "5"),
            ("It is not true that the answer is 5.", "5"),
            ("The answer that is not certain is 5.", "5"),
            ("Answer: 5 maximum", "5"),
            ("The answer is $\\boxed{5} \\approx 6$.", "\\boxed{5}"),
            // Any one symbol or operator command between two values, hidden or wide layout between them, a range or
            // an alternative in another language.
            ("Answer: 5 • 6", "5"),
            ("Answer: 5 \\oplus 6", "5"),
            ("Answer: 5 ↔ 6", "5"),
            ("Answer: 5 -> 6", "5"),
            ("Answer: 5 \\| 6", "5"),
            ("Answer: 5 \\hfill 6", "5"),
            ("Answer: 5 \\hspace{1em} 6", "5"),
            ("Answer: 5\u{2062} 6", "5"),
            ("Answer: 5 bis 6", "5"),
            ("Answer: 5 или 6", "5"),
            ("Answer: 5 (alt. 6)", "5"),
            // Abbreviated, figurative and extremum bounds; question marks behind markup.
            ("The answer is approx. 5", "5"),
            ("The answer is ca. \\boxed{5}", "\\boxed{5}"),
            ("Answer (approx.): 5", "5"),
            ("Ballpark: \\boxed{5}", "\\boxed{5}"),
            ("The answer is minimum 5.", "5"),
            ("The answer is in the region of 5.", "5"),
            ("The answer is $\\boxed{5}^{?}$", "\\boxed{5}"),
            ("The answer is \\boxed{5}\\color{red}{?}", "\\boxed{5}"),
            ("The answer is $5\\tag{?}$", "5"),
            ("The answer is 5 ...?", "5"),
            ("At most: 5", "5"),
            ("Answer: 5 → 6", "5"),
            ("Answer: 5 — 6.", "5"),
            ("The answer is $\\frac{1}{2}$ – $\\frac{3}{2}$.", "\\frac{1}{2}"),
            ("Answer: 5\\hskip1em 6", "5"),
            ("Answer: 5\\mkern9mu 6", "5"),
        ] {
            assert!(hedged(s, answer), "{s}");
        }
        for (s, answer) in [
            ("so $x \\equiv \\boxed{9} \\pmod{11}$", "\\boxed{9}"),
            ("The answer is $\\boxed{5}$, since 2+3=5.", "\\boxed{5}"),
            ("The answer is \\boxed{5}th", "\\boxed{5}"),
            ("The answer is 5 - it is prime.", "5"),
            ("Answer — 5", "5"),
            ("It is 5, which is prime.", "5"),
            ("The least common multiple is 60.", "60"),
            ("The common difference is \\boxed{5}.", "\\boxed{5}"),
            ("The greatest common factor is 5.", "5"),
            ("If we add them we get 5.", "5"),
            ("We need 5 people.", "5"),
            ("At least one ball is red, so the answer is 5.", "5"),
            ("At minimum, we need two colors, so \\boxed{5}.", "\\boxed{5}"),
            ("The answer is 5 (from step 2).", "5"),
            ("Answer: 5\n\n3. Next, we check.", "5"),
            ("The answer is $5$. 6 is not possible.", "5"),
            ("The answer is \\boxed{5} \\text{ apples}", "\\boxed{5}"),
            ("The minimum number of moves is \\boxed{5}.", "\\boxed{5}"),
            // A negation describing what is counted, an idiom, the extremum named, an exact value approximated.
            ("The number of students who did not pass is 5.", "5"),
            ("The number of false statements is 5.", "5"),
            ("In either case the answer is 5.", "5"),
            ("It's not hard to see that the answer is 5.", "5"),
            ("The answer is 5 (the maximum).", "5"),
            ("The answer is $\\boxed{\\frac{5}{6}} \\approx 0.833$.", "\\boxed{\\frac{5}{6}}"),
            ("So $\\boxed{2\\sqrt2} ≈ 2.83$", "\\boxed{2\\sqrt2}"),
            ("So $x \\equiv \\boxed{4} \\pmod{7}$.", "\\boxed{4}"),
            ("The answer is 5 ✓ (checked).", "5"),
            ("The answer is \\boxed{5}. ¿Es correcto? Sí.", "\\boxed{5}"),
            ("We reach the minimum 5 at x = 1.", "5"),
            ("Answer: 5 (6 ways to get there are excluded)", "5"),
            // Names and headings that hold `least`/`minimum`, a bound in another sentence, an equation number, and
            // words explaining a value joined by a dash or an arrow (a second red team's honest cases).
            ("Least common multiple: 60", "60"),
            ("Most likely value: 5", "5"),
            ("Minimum value: $\\boxed{4}$", "\\boxed{4}"),
            ("Min = 4", "4"),
            ("It takes at least 4 moves. Answer: 4", "4"),
            ("Lower bound: 4. Upper bound: 4. Therefore the answer is \\boxed{4}.", "\\boxed{4}"),
            ("$$x = 3+4 = \\boxed{7} \\tag{1}$$", "\\boxed{7}"),
            ("Answer: $\\boxed{12}$ — 3 rows × 4 columns", "\\boxed{12}"),
            ("Answer: 12 → 3 rows of 4", "12"),
            ("Answer: 12 ← 3 × 4", "12"),
            ("The expected number of wrong answers is \\boxed{5}.", "\\boxed{5}"),
            ("The unique value that does not violate the constraints is \\boxed{5}.", "\\boxed{5}"),
            ("Answer: 5 (minimum)", "5"),
            ("Answer: 5\\hskip 2pt cm", "5"),
        ] {
            assert!(!hedged(s, answer), "{s}");
        }
    }

    #[test]
    fn revisions() {
        let disavowed = |t: &str| revisions_after(t, 9).disavowed;
        assert!(disavowed("\\boxed{5}. Wait, that's wrong; it is 6."));
        assert!(disavowed("\\boxed{5}. I am not sure."));
        assert!(disavowed("\\boxed{5}. Maybe."));
        assert!(disavowed("\\boxed{8}, but it might also be 9."));
        assert!(disavowed("\\boxed{5}. I think I made a mistake somewhere."));
        assert!(disavowed("\\boxed{5}. That is the wrong answer."));
        assert!(!disavowed("\\boxed{5}. I hope it is correct."));
        assert!(!disavowed("\\boxed{5}\n\nI made no mistakes."));
        assert!(!disavowed("\\boxed{5}. I didn't make any error."));
        assert!(!disavowed("\\boxed{5}. A wrong approach would be to subtract."));
        assert_eq!(revisions_after("\\boxed{5}", 9), Revisions::default());
        let wait = revisions_after("\\boxed{5}. Wait, let me check.", 9);
        assert!(wait.first.is_some() && !wait.disavowed);
    }

    #[test]
    fn one_pass_readings_hold_on_random_word_soups() {
        let marks =
            [" ", " ", " ", ", ", ". ", "; ", "\n", "\n\n", ": ", "! ", "? ", "'", "’", "{", "}", "=", "$", "*"];
        let words =
            "\\text{ \\boxed{5} 5 6 \u{200b} wait Wait WAIT wrong incorrect approach way no not n't isn didn't \
            cannot can be right correct sure or Or mistake error might also should meant to I i second thought never \
            mind actually net Нет нет неверно Неверно ошибка 错 等等 应该 подождите ο οr é checks out CHECKS ✓ \
            matches yes works ** x the answer is sorry Sorry hmm oh 30% 100% % confident confidence interval low 40";
        let pieces: Vec<&str> = marks.into_iter().chain(words.split_whitespace()).collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n
        };
        let (mut revised, mut disavowed, mut confirmed) = (0, 0, 0);
        for _ in 0..20_000 {
            let len = next(24);
            let text: String = (0..len).map(|_| pieces[next(pieces.len())]).collect();
            let end = floor_boundary(&text, next(text.len() + 1));
            let r = revisions_after(&text, end);
            // Offsets lie past the answer and inside the text, the first no later than the last, and a disavowal
            // is a revision; a text that ends at the answer has none.
            match (r.first, r.last) {
                (Some(f), Some(l)) => assert!(end < f && f <= l && l <= text.len(), "{text:?} at {end}: {r:?}"),
                (None, None) => assert!(!r.disavowed, "{text:?} at {end}: {r:?}"),
                _ => panic!("{text:?} at {end}: {r:?}"),
            }
            assert_eq!(revisions_after(&text, text.len()), Revisions::default());
            let c = confirms(&text, end);
            revised += usize::from(r.first.is_some());
            disavowed += usize::from(r.disavowed);
            confirmed += usize::from(c);
        }
        // The texts exercise every outcome.
        assert!(revised > 1000 && disavowed > 1000 && confirmed > 1000, "{revised} {disavowed} {confirmed}");
        assert!(20_000 - revised > 1000 && 20_000 - disavowed > 1000 && 20_000 - confirmed > 1000);
    }
}
