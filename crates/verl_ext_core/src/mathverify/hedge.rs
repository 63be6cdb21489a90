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
    "over",
    "under",
    "above",
    "below",
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
    // Scaling words: the value after them is not the answer itself (`twice 5`; `half of 5` below).
    "twice",
    "thrice",
    "close",
    "near",
    "negative",
    "within",
    "up",
    "presumably",
    "capped",
    "bounded",
    "limited",
    "surpasses",
    "surpass",
    "ca",
    "ballpark",
    "beyond",
    "excess",
    "upwards",
    "triple",
    "double",
    "minus",
    "like",
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

/// Words that, before `answer`, make what follows it something other than the answer (`Wrong answer: 5`,
/// `"wrong_answer": "9"`, `tentative answer: 5`).
const DOUBTFUL_LABELS: &[&str] = &[
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
    "rejected",
    "probable",
    "fake",
    "example",
    "sample",
    "invalid",
    "dummy",
    "uncertain",
    "unverified",
    "hypothetical",
    "likely",
    // Only with `answer` (`Partial fraction decomposition:` names a method).
    "partial",
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

/// [`doubtful_label`] on lower-case text.
fn doubtful_in(lower: &str) -> bool {
    let Some(at) = super::extract::ANSWER_WORDS.iter().filter_map(|a| lower.rfind(a)).max() else { return false };
    let head = lower[..at].trim_end_matches([' ', '_', '"', '\'', '*', '-']);
    if ["错误", "错的", "不正确", "可能的", "大概"].iter().any(|w| head.ends_with(w)) {
        return true;
    }
    let word = head.rsplit(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    DOUBTFUL_LABELS.contains(&word) || ["неверный", "неправильный", "примерный", "возможный"].contains(&word)
}

/// Adverbs that, opening the sentence of an answer, hedge all of it (`Approximately, the answer is 5`).
const SENTENCE_HEDGES: &[&str] =
    &["approximately", "roughly", "probably", "maybe", "perhaps", "possibly", "presumably", "likely", "hypothetically"];
/// Words of a label before a colon that make what follows it a bound or a guess (`Lower bound: 5`, `My best
/// guess: 5`, `Estimate: 5`).
const BOUND_LABELS: &[&str] = &[
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
const DOUBTING_CLAUSES: &[&[&str]] =
    &[&["i", "guess"], &["my", "guess"], &["not", "sure"], &["unsure"], &["no", "idea"], &["not", "certain"]];

/// Words at the end of `words` that bound the value after them (`at least`, `at most`, `at minimum`, `at a
/// maximum`, `at the very least`): how many, if they do.
fn bound_phrase_end(words: &[String]) -> Option<usize> {
    let w: Vec<&str> = words.iter().rev().take(4).map(String::as_str).collect();
    match w.as_slice() {
        ["least" | "most" | "minimum" | "maximum", "at", ..] => Some(2),
        ["least" | "most" | "minimum" | "maximum", "a" | "the", "at", ..] => Some(3),
        ["least" | "most", "very", "the", "at", ..] => Some(4),
        _ => None,
    }
}

/// Is the answer at `start` hedged by its sentence: a sentence opening with a word of [`SENTENCE_HEDGES`] or with
/// a clause that only bounds or doubts (`At least, …`, `I guess, …`), or a label of [`BOUND_LABELS`] before a
/// colon on its line?
fn hedged_sentence(s: &str, start: usize) -> Option<&'static str> {
    let window = context_before(s, start);
    let opens = window.char_indices().rev().find(|&(_, c)| matches!(c, '.' | '!' | '?' | '\n' | '。'));
    let sentence = &window[opens.map_or(0, |(i, c)| i + c.len_utf8())..];
    if words_of(sentence).first().is_some_and(|w| SENTENCE_HEDGES.contains(&w.as_str())) {
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
    let lead = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '$' | '*'));
    // So does a Markdown heading (`### Answer (approximately)` then `42`).
    let mut heading = false;
    if lead.trim_start_matches("\\[").trim_start_matches("\\(").trim().is_empty() {
        let above = window[..window.len() - line.len()].trim_end();
        let previous = &above[above.rfind('\n').map_or(0, |i| i + 1)..];
        // A line without end punctuation labels it too (`Rejected` / `5`): its sentence goes on into the answer.
        let open = !previous.trim_end_matches(['*', '_']).ends_with(|c: char| {
            is_clause_mark(c) || matches!(c, '。' | '！' | '？' | '$' | '}' | ']' | ')' | ':' | '：')
        });
        heading = previous.trim_start().starts_with('#') || open && !previous.trim().is_empty();
        if heading || previous.trim_end_matches('*').ends_with([':', '：']) {
            line = previous;
        }
    }
    let label = match line.rfind([':', '：']) {
        Some(i) => &line[..i],
        // A heading, or the last clause of a line that runs on into the answer (`… at most 10, so` / `\\boxed{5}`).
        None if heading => &line[line.rfind([',', ';']).map_or(0, |i| i + 1)..],
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
    let colon = label.len();
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
        || words.iter().rev().take(3).any(|w| {
            let described =
                counted && w == "not" || tally_label(&words) && (w == "rejected" || LABEL_DOUBTS.contains(&w.as_str()));
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
    let confidence =
        label.contains('%') && words.iter().any(|w| matches!(w.as_str(), "sure" | "confident" | "certain"));
    if label.contains(QUESTION_MARKS) || confidence {
        return Some("negated or hedged (a label before the answer)");
    }
    hedged_label(&words).or_else(|| foreign_hedge(label, ""))
}

/// Words of [`NEAR_CUES`] that end ordinary labels before a colon (`Adding them up:`, `As shown below:`).
const LABEL_WORDS: &[&str] = &[
    "over", "under", "above", "below", "up", "within", "twice", "thrice", "triple", "double", "negative", "minus",
    "like", "upwards", "excess",
];

/// Words that, in a label right before the answer, doubt or disown it (`Uncertain:`, `Invalid:`).
const LABEL_DOUBTS: &[&str] = &[
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
];

/// Does a label count things (`Number of rejected items:`)? What it counts may be set aside; the count is not.
fn tally_label(words: &[String]) -> bool {
    words.iter().take(3).any(|w| matches!(w.as_str(), "number" | "count" | "total" | "amount" | "sum"))
}

/// Does a label name what is counted or measured (`Number of integers not divisible by 3`), not the answer?
fn counted_label(words: &[String]) -> bool {
    words.iter().take(3).any(|w| COUNTED_HEADS.contains(&w.as_str()))
        && !words.iter().any(|w| matches!(w.as_str(), "answer" | "result"))
}

/// Does a label with the answer right after its colon (`The answer cannot be: 5`, `Maybe:` above `\boxed{5}`)
/// negate, bound or doubt it, as the same words before the value would (`The answer cannot be 5`)? A negation
/// in a label naming what is counted describes the things counted (`Number of integers not divisible by 3: 5`).
fn hedged_label(words: &[String]) -> Option<&'static str> {
    // What is counted is described in the label, and its relations with it (`Number of integers divisible by 3:`).
    let counted = counted_label(words);
    let tally = tally_label(words);
    let negated = !counted && words.iter().any(|w| NEGATIONS.contains(&w.as_str()))
        || !tally && words.iter().any(|w| LABEL_DOUBTS.contains(&w.as_str()));
    // `Probable answer:`, `Fake answer:`: the answer named as something else.
    let named = words
        .windows(2)
        .any(|p| matches!(p[1].as_str(), "answer" | "solution" | "result") && DOUBTFUL_LABELS.contains(&p[0].as_str()));
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

/// Chinese words that bound or hedge the value right after them (`约180`, `至少180`, `180或181`'s `或`).
const CJK_BEFORE: &[&str] = &[
    "约",
    // Japanese and Korean "about".
    "約",
    "약",
    "大约",
    "大概",
    "至少",
    "最少",
    "至多",
    "最多",
    "不少于",
    "不多于",
    "不超过",
    "超过",
    "不到",
    "少于",
    "多于",
    "大于",
    "小于",
    "或",
    "或者",
    "可能",
    "也许",
    "将近",
    "接近",
    "近",
    // Japanese.
    "およそ",
    "たぶん",
    "多分",
    "おそらく",
    "少なくとも",
    "ほぼ",
];
/// Chinese words that bound or hedge the value right before them (`180左右`, `180多`, `180或181`).
const CJK_AFTER: &[&str] = &[
    "或",
    "左右",
    "以上",
    "以下",
    "多",
    "余",
    "上下",
    "附近",
    "吗",
    "？",
    "到",
    "至",
    "~",
    "之间",
    "不对",
    "错",
    // Japanese: `4未満`, `4くらい`, `4か5`, `違います`.
    "未満",
    "以内",
    "あたり",
    "くらい",
    "ぐらい",
    "程度",
    "前後",
    "超",
    "違",
    "間違",
    "例えば",
];
/// Russian words before a value that bound or hedge it (`около 5`, `не 5`, `не менее 5`).
const RU_BEFORE: &[&str] = &[
    "бы",
    "не",
    "около",
    "примерно",
    "приблизительно",
    "почти",
    "более",
    "менее",
    "больше",
    "меньше",
    "минимум",
    "максимум",
    "свыше",
    "или",
    "наверное",
    "возможно",
];
/// Russian words after a value that bound or hedge it (`5 или 6`, `5 примерно`).
const RU_AFTER: &[&str] = &["или", "примерно", "приблизительно", "с лишним", "и более", "и менее", "наверное", "ли"];
/// French, German, Spanish, Italian and Portuguese words before a value that bound or hedge it (`au moins 5`,
/// `vielleicht 5`), matched as the last word before it.
const EU_BEFORE: &[&str] = &[
    "około",
    "okolo",
    "vielleicht",
    "quizás",
    "quizá",
    "forse",
    "talvez",
    "environ",
    "ungefähr",
    "etwa",
    "aproximadamente",
    "mindestens",
    "höchstens",
    "moins",
    "menos",
    "almeno",
    "peut-être",
];
/// The same languages' words right after a value (`5 ou 6`, `5 oder mehr`, `5 environ`).
const EU_AFTER: &[&str] = &["plus", "mehr", "más", "mas", "moins", "weniger", "menos", "environ", "ungefähr", "etwa"];
/// Their words for `or`, which offer another value only before a number (`5 ou 6`; `12 o doce` restates it).
const EU_OR: &[&str] = &["ou", "oder", "o"];
/// Characters of the clause before a value in which a Chinese cue is looked for.
const CJK_WINDOW: usize = 4;

/// A Chinese or Russian hedge, bound or alternative right around a value (`before` ends at it, `after` starts
/// after it).
fn foreign_hedge(before: &str, after: &str) -> Option<&'static str> {
    let before = strip_markup_end(before);
    let tail: String = {
        let chars: Vec<char> = before.chars().rev().take(CJK_WINDOW).collect();
        chars.into_iter().rev().collect()
    };
    let after = strip_markup_start(after);
    // A cue longer than the window (`少なくとも`) right before the value.
    let ends = CJK_BEFORE.iter().any(|c| c.chars().count() > CJK_WINDOW && before.ends_with(c));
    if ends || CJK_BEFORE.iter().any(|c| tail.contains(c)) || CJK_AFTER.iter().any(|c| after.starts_with(c)) {
        return Some("bounded, hedged or one of several (Chinese words around the answer)");
    }
    let lower_before = before.to_lowercase();
    let last_word = lower_before.rsplit(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty()).unwrap_or("");
    let lower_after = after.to_lowercase();
    let first_words = lower_after.trim_start();
    let ru_after = RU_AFTER
        .iter()
        .any(|w| first_words.strip_prefix(w).is_some_and(|r| !r.starts_with(|c: char| c.is_alphabetic())));
    if RU_BEFORE.contains(&last_word) || ru_after {
        return Some("bounded, hedged or one of several (Russian words around the answer)");
    }
    let eu_last = if lower_before.trim_end().ends_with("peut-être") { "peut-être" } else { last_word };
    // Spanish and Portuguese "about" (`cerca de 5`, `alrededor de 5`).
    if ["cerca de", "alrededor de", "acerca de"].iter().any(|p| lower_before.trim_end().ends_with(p)) {
        return Some("bounded, hedged or one of several (French, German, Spanish, Italian or Portuguese words)");
    }
    let next_word = first_words.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    let or_number = EU_OR.contains(&next_word)
        && first_words[next_word.len()..].trim_start_matches([' ', '$']).starts_with(|c: char| c.is_ascii_digit());
    if EU_BEFORE.contains(&eu_last) || EU_AFTER.contains(&next_word) || or_number {
        return Some("bounded, hedged or one of several (French, German, Spanish, Italian or Portuguese words)");
    }
    None
}

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

/// Words after an answer that disavow it on their own (`\\boxed{5}. That's wrong.`, `I'm not sure`), unless
/// negated (`I made no mistakes`) or, for `wrong`/`incorrect`, naming something else (`a wrong approach
/// would be to subtract`).
const DISAVOWALS: &[&str] = &[
    "oops",
    "mistake",
    "mistaken",
    "mistakes",
    "wrong",
    "incorrect",
    "miscalculated",
    "miscalculation",
    "miscounted",
    "error",
    "unsure",
    "uncertain",
    "doubt",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "guessing",
    "guess",
    "kidding",
    "jk",
    "nope",
    "false",
    "lie",
    "bound",
    "nevermind",
    "erratum",
    "typo",
    "scratch",
    "retract",
    "contradicts",
    "contradiction",
    "impossible",
    "invalid",
    "messed",
    "nonsense",
    "idk",
    "dunno",
    "unverified",
    "bogus",
    "faux",
    "falsch",
    "incorrecto",
    "incorrecta",
    "errado",
    "guessed",
    "dubious",
];
/// Words after an answer that announce a revision: they withdraw it only when a different value follows
/// (`\\boxed{5}. Wait, it is 6.`), not when the check confirms it (`Wait, let me verify: 48+24=72. Correct.`).
const REVISING: &[&str] = &[
    "wait",
    "correction",
    "recalculate",
    "recalculating",
    "recompute",
    "reconsider",
    "reconsidering",
    "redo",
    "recheck",
    "rechecking",
    "rethink",
    "revise",
    "revised",
    "actually",
    "instead",
    "edit",
    "edited",
    "alternatively",
    "otherwise",
    "rather",
    "update",
    "updated",
];
/// Interjections that, opening a sentence and set off by punctuation, take back what came before
/// (`\\boxed{5}. Hmm, it's 6.`); not otherwise (`Oh well.`). `No,` and `Sorry,` open honest remarks too (`No, other
/// values do not work.`, `Sorry, I should have said …`): a value they lead to is read as a closing value.
const INTERJECTIONS: &[&str] = &["oh", "nah", "hmm", "hmmm", "whoops", "argh", "ugh"];
/// Two-word disavowals (`not sure`, `not correct`), the second word's end marking them.
const DISAVOWAL_PAIRS: &[(&str, &str)] = &[
    ("not", "sure"),
    ("not", "certain"),
    ("not", "confident"),
    ("not", "correct"),
    ("not", "right"),
    ("might", "be"),
    ("might", "also"),
    ("might", "have"),
    ("could", "be"),
    ("could", "also"),
    ("may", "be"),
    ("may", "have"),
    ("also", "possible"),
    ("never", "mind"),
    ("messed", "up"),
    ("my", "bad"),
    ("dont", "know"),
    ("don't", "know"),
    ("no", "idea"),
    ("no", "valid"),
    ("not", "verify"),
    ("cannot", "verify"),
    ("couldnt", "verify"),
    ("couldn't", "verify"),
    ("scrap", "that"),
    ("strike", "that"),
    ("ignore", "that"),
];
/// Two-word revisions (`no wait`, `should be`).
const REVISING_PAIRS: &[(&str, &str)] = &[
    ("no", "wait"),
    ("second", "thought"),
    ("should", "be"),
    ("meant", "to"),
    ("i", "meant"),
    ("i", "mean"),
    ("hold", "on"),
    ("not", "quite"),
    ("on", "reflection"),
    ("upon", "reflection"),
    ("upon", "review"),
    ("second", "thoughts"),
    ("hang", "on"),
    ("second", "try"),
    ("take", "two"),
];
/// Words that negate a disavowal within [`NEGATION_WORDS`] before it (`no mistakes`, `didn't make an error`).
const NEGATORS: &[&str] =
    &["no", "not", "never", "without", "nothing", "none", "nor", "neither", "dont", "didnt", "doesnt", "isnt", "wasnt"];
/// How far back a negator reaches.
const NEGATION_WORDS: usize = 3;
/// Nouns after `wrong`/`incorrect` that name a way of working (`a wrong approach would be to subtract`), not the
/// value found; any other noun there (`the wrong answer`, `the wrong number`) is the answer disavowed.
const METHOD_NOUNS: &[&str] = &[
    "approach",
    "approaches",
    "method",
    "methods",
    "way",
    "ways",
    "strategy",
    "strategies",
    "assumption",
    "assumptions",
    "interpretation",
    "interpretations",
    "path",
    "idea",
    "ideas",
    "formula",
    "formulas",
    "reasoning",
    "direction",
    "turn",
    "move",
    "moves",
    "option",
    "options",
    "choice",
    "choices",
];

/// The revision words after an answer, as [`revisions_after`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Revisions {
    /// Where the first revision word ends (a byte offset): a different value after it revises the answer.
    pub first: Option<usize>,
    /// Where the last one ends: the answer stated again after it stands.
    pub last: Option<usize>,
    /// A disavowal of the answer is among them.
    pub disavowed: bool,
}

/// The revision words of the text after `end` ([`DISAVOWALS`], [`REVISING`] and their pairs), negated
/// disavowals and `wrong`/`incorrect` naming something else left out.
///
/// One pass over the words with a window of the few words around each (a word is judged by the
/// [`NEGATION_WORDS`] before it and the one after it): linear in the text, with memory for the window only.
pub fn revisions_after(s: &str, end: usize) -> Revisions {
    let Some(rest) = s.get(end..) else { return Revisions::default() };
    let cues = revision_cues();
    let mut out = Revisions::default();
    // Words `base..base + window.len()` (each: where it ends, the word); their strings are reused.
    let mut window: std::collections::VecDeque<(usize, String)> = std::collections::VecDeque::with_capacity(WINDOW);
    let (mut base, mut count) = (0usize, 0usize);
    each_word(rest, |at, w| {
        let mut slot = if window.len() == WINDOW {
            base += 1;
            window.pop_front().unwrap_or_default()
        } else {
            (0, String::new())
        };
        slot.0 = at;
        slot.1.clear();
        slot.1.push_str(w);
        window.push_back(slot);
        count += 1;
        // Word `count - 2` is judged now that the word after it is known.
        if count >= 2 {
            revision_at(rest, end, &window, base, count - 2, cues, &mut out);
        }
        true
    });
    if count >= 1 {
        revision_at(rest, end, &window, base, count - 1, cues, &mut out);
    }
    out
}

/// Words [`revisions_after`] keeps: the [`NEGATION_WORDS`] before the word judged, that word, the one after.
const WINDOW: usize = NEGATION_WORDS + 2;

/// Marks word `k` of `rest` (the text after `end`) in `out` when it is a revision word; `window` holds words
/// `base..base + window.len()`, from `k - NEGATION_WORDS` (or the first) to `k + 1` (or the last).
fn revision_at(
    rest: &str,
    end: usize,
    window: &std::collections::VecDeque<(usize, String)>,
    base: usize,
    k: usize,
    cues: &RevisionCues,
    out: &mut Revisions,
) {
    let word = |j: usize| &window[j - base];
    let (at, w) = (word(k).0, word(k).1.as_str());
    if !cues.may_revise(w) {
        return;
    }
    let next = window.get(k + 1 - base);
    // Where word `k` starts (its end less its length; confusables fold to one byte, so at most that far).
    let start_of = |k: usize| floor_boundary(rest, word(k).0.saturating_sub(word(k).1.len()));
    // Is there a clause mark between the end of word `j` and the start of word `k`?
    let marked = |j: usize, k: usize| {
        rest.get(word(j).0..start_of(k).max(word(j).0)).is_some_and(|g| g.contains(is_clause_mark))
    };
    let pair_with = |pairs: &[(&str, &str)]| k > 0 && pairs.iter().any(|(a, b)| word(k - 1).1 == *a && w == *b);
    // A negator in the same clause, just before (`I made no mistakes`; not `No, that's wrong`).
    let negated = || {
        (k.saturating_sub(NEGATION_WORDS)..k).any(|j| {
            let n = word(j).1.as_str();
            (NEGATORS.contains(&n) || n.ends_with("n't")) && !marked(j, k)
        })
    };
    // `wrong`/`incorrect` naming a way of working (`a wrong approach would be to subtract`), not a value.
    let elsewhere = || {
        matches!(w, "wrong" | "incorrect")
            && next.is_some_and(|(_, n)| METHOD_NOUNS.contains(&n.as_str()))
            && !marked(k, k + 1)
    };
    // `isn't right`, `can't be correct`: a negated approval disavows.
    let negated_approval = matches!(w, "right" | "correct")
        && (k.saturating_sub(2)..k).any(|j| {
            let n = word(j).1.as_str();
            (NEGATORS.contains(&n) || n.ends_with("n't") || n == "cannot") && !marked(j, k)
        });
    // `… \\boxed{5}. Or 6.`: an alternative offered in a sentence of its own; `No, 6.`, `Sorry: 6`: a sentence
    // that opens with an interjection set off by punctuation.
    let opens = k == 0 || marked(k - 1, k);
    let alternative = w == "or" && opens
        || INTERJECTIONS.contains(&w)
            && opens
            && rest[at..].trim_start_matches(' ').starts_with([',', ':', '.', '!', ';']);
    let mut mark = |disavowal: bool| {
        out.first = Some(out.first.map_or(end + at, |f| f.min(end + at)));
        out.last = Some(out.last.map_or(end + at, |l| l.max(end + at)));
        out.disavowed |= disavowal;
    };
    // `I am 30% sure`: any confidence short of 100% doubts the answer.
    let partly = matches!(w, "sure" | "confident" | "certain")
        && rest[..start_of(k)].trim_end().strip_suffix('%').is_some_and(|n| {
            let digits = n.trim_end();
            let value = &digits[digits.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').len()..];
            value.parse::<f64>().is_ok_and(|v| v < 100.0)
        });
    if pair_with(DISAVOWAL_PAIRS)
        || negated_approval
        || partly
        || DISAVOWALS.contains(&w) && !negated() && !elsewhere()
        || cues.disavowals.iter().any(|c| c.starts(w))
    {
        mark(true);
    } else if REVISING.contains(&w)
        || pair_with(REVISING_PAIRS)
        || alternative
        || cues.revising.iter().any(|c| c.starts(w))
    {
        mark(false);
    }
}

/// Chinese and Russian disavowals (a CJK character is a word of its own, so the first character is matched;
/// Russian words are matched by their start, read through the same letter folding as all words).
const FOREIGN_DISAVOWALS: &[&str] = &[
    "错",
    "неверн",
    "ошибк",
    "ошибся",
    "неправильн",
    "errore",
    "sbagliat",
    "fout",
    "yanlış",
    "틀렸",
    "잘못",
    "غلط",
    "गलत",
];
/// Chinese and Russian revising words (`等等` "wait", `应该` "should be", `подождите` "wait").
const FOREIGN_REVISING: &[&str] = &["等", "应", "подожд", "нет"];

/// A cue of [`FOREIGN_DISAVOWALS`] or [`FOREIGN_REVISING`] as [`words_of`] reads words: words are read through
/// [`latin`], which folds some Cyrillic letters, so the cue is folded the same way, written in lower case and
/// with a capital.
struct FoldedCue {
    lower: String,
    capital: String,
}

impl FoldedCue {
    fn new(cue: &str) -> Self {
        let fold = |s: &mut dyn Iterator<Item = char>| s.map(|c| latin(c).to_ascii_lowercase()).collect::<String>();
        let lower = fold(&mut cue.chars());
        let mut chars = cue.chars();
        let capital = fold(&mut chars.next().into_iter().flat_map(char::to_uppercase).chain(chars));
        FoldedCue { lower, capital }
    }

    /// Does a word as [`words_of`] reads it start with the cue, written in either case?
    fn starts(&self, word: &str) -> bool {
        word.starts_with(&self.lower) || word.starts_with(&self.capital)
    }
}

/// The cues [`revisions_after`] reads, prepared once: the foreign ones folded, and every word a revision word
/// can be (sorted), so that other words are passed over at once.
struct RevisionCues {
    disavowals: Vec<FoldedCue>,
    revising: Vec<FoldedCue>,
    words: Vec<&'static str>,
    /// For each first byte, a bit per length (under 32) of the words of `words` with that first byte.
    lengths: [u32; 256],
    /// The first bytes of the folded foreign cues.
    foreign_first: [bool; 256],
}

impl RevisionCues {
    /// Can `word` be a revision word: one of [`RevisionCues::words`], or starting with a foreign cue?
    fn may_revise(&self, word: &str) -> bool {
        let Some(&first) = word.as_bytes().first() else { return false };
        let len = word.len();
        let exact =
            len < 32 && self.lengths[usize::from(first)] >> len & 1 == 1 && self.words.binary_search(&word).is_ok();
        exact
            || self.foreign_first[usize::from(first)]
                && self.disavowals.iter().chain(&self.revising).any(|c| c.starts(word))
    }
}

fn revision_cues() -> &'static RevisionCues {
    static CUES: std::sync::OnceLock<RevisionCues> = std::sync::OnceLock::new();
    CUES.get_or_init(|| {
        // The word judged in each test of `revision_at`: a pair's second word, a negated approval, a disavowal, a
        // revising word, an alternative.
        let mut words: Vec<&'static str> = DISAVOWAL_PAIRS.iter().chain(REVISING_PAIRS).map(|&(_, b)| b).collect();
        words.extend(["right", "correct", "or", "sure", "confident", "certain"]);
        words.extend(INTERJECTIONS);
        words.extend(DISAVOWALS.iter().chain(REVISING));
        words.sort_unstable();
        words.dedup();
        let mut lengths = [0u32; 256];
        for w in &words {
            assert!(!w.is_empty() && w.len() < 32, "{w}");
            lengths[usize::from(w.as_bytes()[0])] |= 1 << w.len();
        }
        let disavowals: Vec<FoldedCue> = FOREIGN_DISAVOWALS.iter().map(|c| FoldedCue::new(c)).collect();
        let revising: Vec<FoldedCue> = FOREIGN_REVISING.iter().map(|c| FoldedCue::new(c)).collect();
        let mut foreign_first = [false; 256];
        for c in disavowals.iter().chain(&revising) {
            for folded in [&c.lower, &c.capital] {
                // An empty cue starts every word.
                match folded.as_bytes().first() {
                    Some(&b) => foreign_first[usize::from(b)] = true,
                    None => foreign_first = [true; 256],
                }
            }
        }
        RevisionCues { disavowals, revising, words, lengths, foreign_first }
    })
}

/// Words that confirm a check when they end its clause (`Correct.`, `which matches.`, `✓`).
const CONFIRMING: &[&str] = &[
    "correct",
    "right",
    "matches",
    "match",
    "confirms",
    "confirmed",
    "verified",
    "consistent",
    "holds",
    "works",
    "yes",
];

/// Does the text from `from` confirm a check: a word of [`CONFIRMING`] ending its clause (`48+24=72. Correct.`),
/// `checks out`, or a check mark? (`the correct answer is six` does not: `correct` does not end the clause.)
pub fn confirms(s: &str, from: usize) -> bool {
    let Some(rest) = s.get(from..) else { return false };
    if rest.contains(['✓', '✔', '✅']) || contains_ignore_ascii_case(rest, "checks out") {
        return true;
    }
    let mut found = false;
    each_word(rest, |at, w| {
        found = CONFIRMING.contains(&w)
            && rest[at..]
                .trim_start_matches([' ', '*', '!'])
                .chars()
                .next()
                .is_none_or(|c| is_clause_mark(c) || c == '!');
        !found
    });
    found
}

/// Phrases that disown an answer wherever they follow its line's start (`I don't have an answer`, `Disregard
/// that.`, `Example of the format: \\boxed{5}`): whole phrases, so their words alone stay free for explanations
/// (`We disregard $x = -5$`, `Here is an example arrangement`).
const DISOWNING: &[&str] = &[
    "don't have an answer",
    "do not have an answer",
    "don't know the answer",
    "do not know the answer",
    "no valid answer",
    "not the answer",
    "cannot solve",
    "can't solve",
    "couldn't solve",
    "could not solve",
    "unable to solve",
    "just an example",
    "only an example",
    "example of the format",
    "format example",
    "disregard that",
    "disregard this",
    "disregard the above",
    "ignore the above",
    "not solved",
    "i don't know",
    "i do not know",
    "i give up",
    "unable to find",
    "unable to determine",
];

/// Does the text from `from` hold a phrase of [`DISOWNING`] (any ASCII case)?
pub fn disowned(s: &str, from: usize) -> bool {
    s.get(from..).is_some_and(|rest| DISOWNING.iter().any(|p| contains_ignore_ascii_case(rest, p)))
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
    if boxed && inside_expression(s, start, end) {
        return Some("a box inside a larger expression (\\boxed{5}+1)");
    }
    if let Some(why) = continued(s, start, end) {
        return Some(why);
    }
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
    if abbreviated_bound(&s[floor_boundary(s, start.saturating_sub(24))..start]) {
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
                "no" => next.is_some_and(|n| NUMBER_WORDS.contains(&n)),
                "likely" => prev.is_some_and(|p| matches!(p, "most" | "least" | "more" | "less")),
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
    let last: Vec<&str> =
        if named { Vec::new() } else { near.iter().rev().take(NEAR_WORDS).map(String::as_str).collect() };
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
        || RELATIONS.iter().any(|r| trimmed.starts_with(r))
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
    let contrast = {
        let t = trimmed.trim_start_matches([',', '(', ' ']);
        ["not ", "rather than "]
            .iter()
            .find_map(|c| t.strip_prefix(c))
            .is_some_and(|r| r.trim_start_matches(['$', ' ', '\\', '(']).starts_with(|c: char| c.is_ascii_digit()))
    };
    let cue = |k: usize| {
        let w = after_words[k].as_str();
        // `5 (the maximum)`, `5 (minimum)` name the extremum asked for; `5 maximum` bounds.
        if matches!(w, "minimum" | "maximum")
            && (k > 0 && after_words[k - 1] == "the" || k == 0 && trimmed.starts_with('('))
        {
            return false;
        }
        if contrast && matches!(w, "not" | "rather" | "than") {
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
        .strip_prefix([',', '，'])
        .map(|r| &r[..r.find(['.', ';', '!', '?', '\n']).unwrap_or(r.len())]);
    if doubted_after(&after_words) || next_clause.is_some_and(|c| doubted_after(&words_of(c))) {
        return Some("not committed (words after the answer)");
    }
    let first = after_words.first().map(String::as_str);
    let rejected = first.is_some_and(|w| REJECTIONS.contains(&w))
        || matches!(first, Some("is" | "was")) && after_words.get(1).is_some_and(|w| REJECTIONS.contains(&w.as_str()));
    if rejected || (0..after_words.len().min(AFTER_WORDS)).any(cue) {
        return Some("negated, bounded or hedged (words after the answer)");
    }
    None
}

/// Words that name a number after an operator word (`5 times two`, `5 over ten`).
const NUMBER_NAMES: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
    "hundred", "thousand", "half",
];
/// Fractions after `and a` that make a mixed number (`5 and a half`).
const FRACTION_WORDS: &[&str] = &["half", "third", "quarter", "fourth", "fifth", "sixth", "eighth", "tenth"];
/// Scales after a value that make it a fraction of itself (`5 hundredths`).
const FRACTION_SCALES: &[&str] = &[
    "tenths",
    "hundredths",
    "thousandths",
    "millionths",
    "halves",
    "thirds",
    "fourths",
    "fifths",
    "sixths",
    "sevenths",
    "eighths",
    "ninths",
];
/// Words right after a value that make another value of it (`5 factorial`, `\\boxed{5} doubled`, `5 pi`,
/// `5 gross`, `5 bps`).
const CHANGING_WORDS: &[&str] =
    &["factorial", "doubled", "tripled", "halved", "quadrupled", "pi", "gross", "bps", "permille"];

/// Do the words right after a value go on computing with it (`5 times 2`, `5 over 2`, `5 divided by 2`, `5 to
/// the 2nd power`, `5 and a half`, `5 and 3/4`, `5 point 5`, `5 hundredths`)? The value is then another one.
/// An operator word without a number after it is prose (`5 times.`, `5 times as many`, `5 over the weekend`).
fn operated_after(after: &str) -> bool {
    let t: Vec<String> = after
        .split_whitespace()
        .take(4)
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | '(' | ')' | '*')).to_lowercase())
        .collect();
    let word = |k: usize| t.get(k).map_or("", String::as_str);
    let number = |k: usize| {
        let w = word(k);
        w.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '\\' | '$')) || NUMBER_NAMES.contains(&w)
    };
    let ordinal = |k: usize| {
        let w = word(k);
        w.starts_with(|c: char| c.is_ascii_digit()) && w.ends_with(['d', 'h', 't'])
            || matches!(w, "second" | "third" | "fourth" | "fifth" | "power")
    };
    match word(0) {
        "times" | "over" | "plus" | "minus" | "point" | "x" => number(1),
        "divided" | "multiplied" | "raised" => matches!(word(1), "by" | "to") && (number(2) || word(2) == "the"),
        "choose" => number(1),
        "percent" | "%" | "per" => {
            matches!(word(1), "of" | "cent") && (number(2) || word(1) == "cent" && word(2) == "of")
        }
        "to" => word(1) == "the" && (number(2) || ordinal(2)),
        "and" => {
            matches!(word(1), "a" | "one") && FRACTION_WORDS.contains(&word(2)) || number(1) && word(1).contains('/')
        }
        w => FRACTION_SCALES.contains(&w) || CHANGING_WORDS.contains(&w),
    }
}

/// Word sequences that, right after an answer, leave it uncommitted: one of several (`etc.`, `among others`,
/// `one possibility`), a guess (`I think`, `for now`, `to be checked`), or a claim only of likelihood (`is likely`).
const UNCOMMITTED_AFTER: &[&[&str]] = &[
    &["etc"],
    &["and", "others"],
    &["among", "others"],
    &["and", "so", "on"],
    &["one", "possibility"],
    &["one", "option"],
    &["one", "of", "several"],
    &["partial"],
    &["partially"],
    &["sometimes"],
    &["in", "some", "cases"],
    &["for", "now"],
    &["i", "guess"],
    &["i", "suppose"],
    &["i", "hope"],
    &["to", "be", "checked"],
    &["to", "be", "verified"],
    &["to", "be", "confirmed"],
    &["max"],
    &["at", "max"],
    &["likely"],
    &["usually"],
    &["typically"],
    &["generally"],
    &["for", "example"],
    &["for", "instance"],
    &["so", "far"],
    &["or", "so"],
    &["at", "best"],
    &["at", "worst"],
];
/// Words that, after `is` following an answer, claim only its likelihood (`5 is likely`, `5 is a guess`).
const LIKELIHOOD: &[&str] = &[
    "likely",
    "possible",
    "possibly",
    "probable",
    "probably",
    "plausible",
    "approximate",
    "uncertain",
    "unclear",
    "tentative",
    "unconfirmed",
    "doubtful",
    "questionable",
    "guess",
    "estimate",
];

/// Do the words right after an answer leave it uncommitted ([`UNCOMMITTED_AFTER`], or `is`/`seems` and a word of
/// [`LIKELIHOOD`])?
fn doubted_after(words: &[String]) -> bool {
    let starts = |p: &&[&str]| p.len() <= words.len() && p.iter().zip(words).all(|(a, b)| a == b);
    let copula = words.first().is_some_and(|w| matches!(w.as_str(), "is" | "seems" | "looks" | "appears"));
    UNCOMMITTED_AFTER.iter().any(starts)
        || copula && words.iter().skip(1).take(2).any(|w| LIKELIHOOD.contains(&w.as_str()))
}

/// Marks that, right after an answer (or opening a bracket after it), question or doubt it.
const DOUBT_MARKS: &[char] = &[
    '?', '❌', '✗', '✘', '×', '✕', '🤷', '👎', '🚫', '😅', '🙃', '🤔', '⚠', '±', '‽', '⁇', '⁈', '⁉', '﹖', '⸮', '؟',
    '¿', '？', '❓', '❔', '🤞', '😬', '🎲', '😕', '🫤', '🙈', '🤨',
];

/// Question marks and their look-alikes (not an opening `¿`, which starts the next sentence).
const QUESTION_MARKS: &[char] = &['?', '‽', '⁇', '⁈', '⁉', '﹖', '⸮', '؟', '？', '❓', '❔'];

/// Abbreviations that approximate or bound the value after them (`approx. 5`, `ca. 5`, `est. \\boxed{5}`); their
/// full stop would otherwise end the clause read before the answer.
const BOUND_ABBREVIATIONS: &[&str] = &["approx", "appr", "aprox", "apprx", "ca", "est", "abt", "min", "max"];

/// Does `before` (the text right before an answer) end with an abbreviation of [`BOUND_ABBREVIATIONS`] and its
/// full stop, through spaces, `$`, spacing commands and a text group (`$\\text{approx.}\\,\\boxed{5}$`)?
fn abbreviated_bound(before: &str) -> bool {
    let t = strip_markup_end(before).trim_end_matches(['}', ' ', '$', '~']);
    let t = SPACING.iter().find_map(|c| t.strip_suffix(c)).unwrap_or(t).trim_end_matches(['}', ' ', '$', '~']);
    t.strip_suffix('.').is_some_and(|w| {
        let n = w.len() - w.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
        let word = &w[w.len() - n..];
        // A word of its own (`ca.`, not `Africa.`), not a sentence's end (`… is c. 5` is `circa`, `… in 5 BC. 5`
        // is not a word of the list).
        n > 0
            && BOUND_ABBREVIATIONS.iter().any(|a| word.eq_ignore_ascii_case(a))
            && !w[..w.len() - n].ends_with(|c: char| c.is_alphanumeric())
    })
}

/// Is the text after an answer, past layout, markup and empty or styling groups, a question mark (`5^{?}`,
/// `5\\;?`, `\\boxed{5}\\color{red}{?}`, `5\\tag{?}`, `5\\phantom{}?`)?
fn questioned(past: &str) -> bool {
    let line = &past[..floor_boundary(past, past.find('\n').unwrap_or(past.len()).min(64))];
    let noted = |i: usize| {
        NOTE_GROUPS
            .iter()
            .any(|g| line[i..].strip_prefix(g).is_some_and(|r| r.trim_start().starts_with(QUESTION_MARKS)))
    };
    if line.char_indices().any(|(i, c)| c == '\\' && noted(i)) {
        return true;
    }
    let mut t = past;
    loop {
        let next = skip_inline_layout(t).trim_start_matches(['^', '_', '(', '[']);
        let next = ["\\overset{", "\\underset{", "\\stackrel{", "\\label{", "\\textcolor{", "\\colorbox{"]
            .iter()
            .find_map(|c| next.strip_prefix(c))
            // `\\textcolor{red}{?}`: a colour, then the group.
            .map(|r| {
                if r.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    r.find('}').filter(|&i| i < 24).map_or(r, |i| &r[i + 1..])
                } else {
                    r
                }
            })
            .unwrap_or(next);
        if next.len() == t.len() {
            return t.starts_with(QUESTION_MARKS);
        }
        t = next;
    }
}

/// Nouns that open a subject naming what is counted or measured, in which a negation describes the things
/// counted (`the number of cases that do not work is 0`), not the value.
const COUNTED_HEADS: &[&str] = &[
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

/// Does `after` (what follows an answer) restate it as a decimal approximation (`\\boxed{\\frac56} \\approx 0.833`,
/// `2\\sqrt2 ≈ 2.83`)? The answer is then the exact value written before it, not a bound.
fn approximated(after: &str) -> bool {
    ["\\approx", "≈"].iter().find_map(|r| after.strip_prefix(r)).is_some_and(|r| {
        let r = r.trim_start_matches([' ', '\t', '{']).trim_start_matches(['-', '−']);
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        // A decimal, or a percent (`\\approx 83\\%`): the approximation of a value, not a second value.
        n > 0
            && (r[n..].starts_with('.') && r[n + 1..].starts_with(|c: char| c.is_ascii_digit())
                || r[n..].trim_start().starts_with(['%', '\\'])
                    && r[n..].trim_start().trim_start_matches('\\').starts_with('%'))
            || n == 0 && r.starts_with('.') && r[1..].starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Commands that, right after an answer, make it a factor of a larger value (`\\boxed{5}\\pi`, `5\\sqrt2`).
const FACTOR_COMMANDS: &[&str] = &[
    "pi",
    "sqrt",
    "frac",
    "dfrac",
    "tfrac",
    "bmod",
    "sin",
    "cos",
    "tan",
    "cot",
    "sec",
    "csc",
    "log",
    "ln",
    "exp",
    "infty",
    "binom",
    "choose",
    "over",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "theta",
    "lambda",
    "mu",
    "sigma",
    "phi",
    "omega",
    "tau",
    "rho",
    "epsilon",
    "varepsilon",
    "varphi",
    "psi",
    "eta",
    "kappa",
    "nu",
    "xi",
    "zeta",
    "chi",
    "mathrm",
    "mathbf",
    "operatorname",
    "left",
];

/// Letters that, written right against an answer, scale or change it (`5k`, `5M`, `5bn`, `5i`, `5x`, `5!`).
const ATTACHED_WORDS: &[&str] =
    &["k", "M", "B", "bn", "mn", "mil", "i", "j", "x", "y", "z", "n", "t", "e", "E", "lakh", "crore"];

/// Does the value at `s[start..end]` go on past its end (a digit group `5,000`, an exponent `5e3`, a factor
/// `5\\pi` or `5k` written against it, a factorial), or come after a sign the reader applies to it (`−5`), or
/// is it one of several (`5, 6`, `5 and 6`)? Then it is not the value stated.
fn continued(s: &str, start: usize, end: usize) -> Option<&'static str> {
    let after = s[end..].trim_start_matches(['$', '}']);
    let tight = &s[end..];
    // Written against the value, before any space: a word of ATTACHED_WORDS, then no further letter.
    let attached = ATTACHED_WORDS.iter().any(|w| match tight.strip_prefix(w) {
        // `e`/`E` only as an exponent (`5e3`, `5E-2`).
        Some(r) if !r.starts_with(|c: char| c.is_alphabetic()) => {
            !matches!(*w, "e" | "E") || r.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        }
        _ => false,
    });
    if attached || tight.starts_with('!') && !tight.starts_with("!=") {
        return Some("a value written on past the answer (5k, 5e3, 5!)");
    }
    let digit_group = after.strip_prefix([',', '\'', '_', '’']).is_some_and(|r| {
        r.len() >= 3
            && r.as_bytes()[..3].iter().all(u8::is_ascii_digit)
            && !r[3..].starts_with(|c: char| c.is_ascii_digit())
    });
    if digit_group {
        return Some("a value written on past the answer (5,000)");
    }
    if ratio_after(&s[end..], answer_value(&s[start..end])) {
        return Some("the first part of a ratio or a time (3:45)");
    }
    let command = after.trim_start().strip_prefix('\\').map(|r| {
        let n = r.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(r.len());
        &r[..n]
    });
    // `\\boxed{5} = 6`: a side of an equation, not the value stated.
    let equation = after.trim_start().strip_prefix('=').is_some_and(|r| !r.starts_with('='));
    if equation
        && start > 0
        && s[..start].ends_with(|c: char| !c.is_alphanumeric())
        && s[start..].starts_with("\\boxed")
    {
        return Some("a side of an equation (\\boxed{5} = 6)");
    }
    if command.is_some_and(|c| FACTOR_COMMANDS.contains(&c)) {
        return Some("a factor after the answer (\\boxed{5}\\pi)");
    }
    // An operator command after it (`2-1\\div 3`, `12 \\times 3`): the answer is an operand.
    if command.is_some_and(|c| matches!(c, "div" | "times" | "cdot" | "pm" | "mp" | "frac" | "dfrac" | "tfrac")) {
        return Some("part of a larger expression (an operator after it)");
    }
    // A sign written against the value, or through spacing commands (`−\\boxed{5}`, `$-$5`, `-\\,\\boxed{5}`,
    // `±\\boxed{5}`). A minus after a space is a sign too where something precedes it on its line (`Answer: - 7`,
    // `is - 7`); at a line's start it is a list's dash.
    let before = s[..start].trim_end_matches(['$', '*']);
    let thin = trim_spacing_commands_end(before).trim_end_matches(['$', '*']);
    let sign = |t: &str| {
        t.ends_with(|c: char| MINUS_SIGNS.contains(&c) || matches!(c, '–' | '-' | '－' | '±' | '∓'))
            && !t.ends_with("--")
    };
    let spaced_minus = {
        let t = before.trim_end_matches([' ', '\t']).trim_end_matches('$');
        let line = &t[t.rfind('\n').map_or(0, |i| i + 1)..];
        let dash = line.chars().next_back().filter(|&c| MINUS_SIGNS.contains(&c) || matches!(c, '-' | '－'));
        // What the dash follows: a colon, a bracket, `=`, a cell's bar or a stating word make it a sign; after a
        // noun it separates (`Answer - 42`, `The result - 42 apples`).
        let lead = dash.map_or("", |d| line[..line.len() - d.len_utf8()].trim_end());
        let stating = lead.rsplit(|c: char| !c.is_alphabetic()).next().is_some_and(|w| {
            matches!(w.to_lowercase().as_str(), "is" | "be" | "was" | "are" | "equals" | "gives" | "get" | "becomes")
        });
        line.len() < before.len()
            && dash.is_some()
            && !line.ends_with("--")
            && (lead.ends_with([':', '：', '】', '=', '|', '(', '[']) || stating)
    };
    if sign(thin) || spaced_minus {
        return Some("a sign before the answer");
    }
    // `5, 6` or `5 and 6`: more than one value where one is asked for.
    let rest = after.trim_start();
    let next = rest.strip_prefix(',').or_else(|| rest.strip_prefix("and ")).or_else(|| rest.strip_prefix("or "));
    if next.is_some_and(|r| {
        let r = r.trim_start().trim_start_matches(['$', '\\', '(']);
        r.starts_with(|c: char| c.is_ascii_digit())
    }) {
        return Some("one of several values");
    }
    beside(context_after(s, end))
}

/// Words that, between two values, offer both or span a range (`5 to 6`, `5 vs 6`, `5 (also 6)`, `5 up to 6`,
/// `5 bis 6`, `5 или 6`), in the languages whose other hedges are read too and a few more.
const JOINERS: &[&str] = &[
    "to", "through", "thru", "till", "until", "vs", "versus", "also", "and", "or", "up", "else", "then", "alt", "resp",
    "plus", "bis", "und", "oder", "et", "ou", "y", "e", "o", "en", "al", "hasta", "tot", "til", "eller", "lub", "nebo",
    "sau", "veya", "vagy", "до", "и", "или", "або", "和", "或", "还是", "到", "至", "か", "أو",
];
/// Marks between two values that [`beside`]'s one-symbol rule does not cover: several characters, or
/// punctuation that otherwise ends what is said of the answer (`5 -> 6`, `5, 6`, `5; 6`, `5 ... 6`).
const JOINING_MARKS: &[&str] = &["->", "=>", "...", ",", ";"];
/// Characters that, after an answer, end or bracket what is said of it rather than join another value to it
/// (`5. 6 people`, `5 (6 ways)`, `5: 6`); `=` has its own rule (`\\boxed{5} = 6`, and a chain `2+3 = 5`).
const NOT_JOINING: &str = ".,;:!?)]([\"'“”‘’¿¡=";
/// Commands that start a value (`5 to \\frac{1}{2}`).
const VALUE_COMMANDS: &[&str] = &["\\frac", "\\dfrac", "\\tfrac", "\\sqrt", "\\pi", "\\infty"];
/// Text commands whose group may hold what stands between two values (`5 \\text{ to } 6`) or after a value
/// (`\\boxed{5}\\text{?}`).
const TEXT_GROUPS: &[&str] = &[
    "\\text{",
    "\\textbf{",
    "\\textit{",
    "\\textrm{",
    "\\textsf{",
    "\\texttt{",
    "\\textup{",
    "\\textnormal{",
    "\\mathrm{",
    "\\mathbf{",
    "\\mathit{",
    "\\mathsf{",
    "\\mathtt{",
    "\\mbox{",
    "\\hbox{",
    "\\emph{",
    "\\underline{",
    "\\overset{",
    "\\underset{",
    "\\fbox{",
];
/// Layout commands, beyond [`SPACING`], that may stand between two values on one line.
const INLINE_LAYOUT: &[&str] = &[
    "\\hfill",
    "\\hfil",
    "\\enspace",
    "\\thinspace",
    "\\medspace",
    "\\thickspace",
    "\\>",
    "\\linebreak",
    "\\newline",
    "\\par",
    "\\cr",
    "\\\\",
    "&nbsp;",
];
/// Layout commands with an argument (`\\hspace{1em}`, `\\phantom{0}`, `\\color{red}`), skipped with it.
const LAYOUT_WITH_ARGUMENT: &[&str] = &[
    "\\hspace{",
    "\\hspace*{",
    "\\phantom{",
    "\\hphantom{",
    "\\vphantom{",
    "\\color{",
    "\\textcolor{",
    "\\tag{",
    "\\tag*{",
    "\\label{",
    "\\footnote{",
];
/// Groups that number or annotate an equation: skipped whole between values (`\\boxed{7} \\tag{1}`), but a question
/// mark in one questions the answer (`5\\tag{?}`).
const NOTE_GROUPS: &[&str] = &["\\tag{", "\\tag*{", "\\label{", "\\footnote{"];

/// Characters that lay out without showing: spaces of every width, joiners and marks (a value hidden behind
/// them is beside the answer all the same).
fn invisible(c: char) -> bool {
    c.is_whitespace() && c != '\n'
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2069}' | '\u{feff}' | '\u{00ad}' | '\u{034f}'
            | '\u{180e}' | '\u{2800}' | '\u{3164}' | '\u{115f}' | '\u{1160}' | '\u{ffa0}' | '\u{061c}'
            | '\u{202a}'..='\u{202e}')
}

/// `text` past what may stand between two values on one line: spaces, tabs and invisible characters (not a
/// line break), math delimiters, braces, bold, an alignment `&`, a bar, spacing and layout commands and text
/// groups' openings.
fn skip_inline_layout(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_start_matches(|c: char| invisible(c) || matches!(c, '$' | '{' | '}' | '*' | '&' | '|'));
        let next = next.strip_prefix("\\(").or_else(|| next.strip_prefix("\\)")).unwrap_or(next);
        let next =
            SPACING.iter().chain(TEXT_GROUPS).chain(INLINE_LAYOUT).find_map(|c| next.strip_prefix(c)).unwrap_or(next);
        // `\\kern1em`, `\\hskip 2pt`, `\\hspace{1em}`, `\\color{red}`: the command and its dimension or group.
        let dimensioned = skip_dimension(next);
        let next = if dimensioned.len() < next.len() {
            dimensioned
        } else {
            LAYOUT_WITH_ARGUMENT
                .iter()
                .find_map(|c| next.strip_prefix(c))
                .and_then(|r| r.find('}').filter(|&i| i < 40).map(|i| &r[i + 1..]))
                .unwrap_or(next)
        };
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

/// Is another value written beside the one that ends where `after` starts, on its line (`5 6`, `5 $6$`,
/// `5 \\quad 6`, `5 | 6`), or joined to it as an alternative, a range, a combination or a correction (`5 to 6`,
/// `5 – 6`, `5 up to 6`, `5 → 6`, `5 · 6`, `5、6`)?
fn beside(after: &str) -> Option<&'static str> {
    let digit = |t: &str| {
        let t = t.trim_start_matches(['-', '+', '−']).trim_start_matches([' ', '{']);
        t.starts_with(|c: char| c.is_ascii_digit() || ('０'..='９').contains(&c))
            || VALUE_COMMANDS
                .iter()
                .any(|c| t.strip_prefix(c).is_some_and(|r| !r.starts_with(|ch: char| ch.is_ascii_alphabetic())))
    };
    let mut t = skip_inline_layout(after);
    if digit(t) {
        return Some("one of several values (another written beside it)");
    }
    // An operator and then nothing (`Answer: 12 +`): the text stops inside an expression.
    if t.strip_prefix(['+', '-', '*', '/', '^', '=', '×', '÷', '−', '·']).is_some_and(|r| r.trim().is_empty()) {
        return Some("the text stops inside an expression");
    }
    if let Some(r) = JOINING_MARKS.iter().find_map(|m| t.strip_prefix(m)) {
        return digit(skip_inline_layout(r.trim_start_matches(['(', '['])))
            .then_some("one of several values or a range (joined to it)");
    }
    // Any one symbol or command between them joins them (`5 – 6`, `5 → 6`, `5 · 6`, `5 ⊕ 6`, `5 \\oplus 6`,
    // `5 ↔ 6`, `5、6`): a range, a list, an operation or a correction, never the value alone.
    // (`\\approx 0.83` after an exact value restates it: see `approximated`.)
    let operand = match t.strip_prefix('\\') {
        _ if approximated(t) => None,
        Some(r) => {
            let n = r.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(r.len());
            // `\\oplus`, or an escaped symbol (`\\|`, `\\{`); not a command with an argument (`\\pmod{7}` states the
            // modulus of a congruence) or a modulus (`\\mod 7`).
            let n = if n == 0 { r.chars().next().map_or(0, char::len_utf8) } else { n };
            let modulus = matches!(&r[..n], "pmod" | "mod" | "pod") || r[n..].trim_start().starts_with('{');
            (n > 0 && !modulus).then(|| &r[n..])
        }
        None => {
            t.chars().next().filter(|&c| !c.is_alphanumeric() && !NOT_JOINING.contains(c)).map(|c| &t[c.len_utf8()..])
        }
    };
    // Words or a computation after the second value explain the answer (`\\boxed{12} — 3 rows × 4 columns`,
    // `12 → 3 rows of 4`, `12 ← 3 × 4`): more than one number follows, or a word.
    let explained = |r: &str| {
        let line = &r[..floor_boundary(r, r.find('\n').unwrap_or(r.len()).min(48))];
        // Numbers outside braces (a second `\\frac{3}{2}` is one value, not a computation); `3/2`, `3.5` and
        // `3,500` are one number each.
        let (mut depth, mut numbers, mut in_number) = (0usize, 0usize, false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            let digit = depth == 0 && c.is_ascii_digit();
            let joins = in_number && matches!(c, '/' | '.' | ',') && chars.peek().is_some_and(char::is_ascii_digit);
            numbers += usize::from(digit && !in_number);
            in_number = digit || joins;
        }
        numbers > 1 || words_of(line).iter().any(|w| w.chars().count() >= 2)
    };
    if operand.is_some_and(|r| digit(skip_inline_layout(r)) && !explained(r)) {
        return Some("one of several values, or part of a larger expression (joined to it)");
    }
    // Up to two joining words (`up to`, `(also 6)`, `(alt. 6)`), each followed by layout.
    t = t.trim_start_matches(['(', '[']);
    for _ in 0..2 {
        let n = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
        if n == 0 || !JOINERS.contains(&t[..n].to_lowercase().as_str()) {
            return None;
        }
        t = skip_inline_layout(t[n..].trim_start_matches('.'));
        if digit(t) {
            return Some("one of several values or a range (joined to it)");
        }
    }
    None
}

/// Is the box at `s[start..end]` an operand of something around it (`\\boxed{5}+1`, `-\\boxed{5}`,
/// `\\frac{\\boxed{5}}{2}`, `\\boxed{5}^2`, `1\\boxed{5}`)? Then its content is not the value written.
fn inside_expression(s: &str, start: usize, end: usize) -> bool {
    // Markdown bold around a box (`**Answer:** \\boxed{5}`, `**\\boxed{5}**`) is markup, not a product.
    let after = strip_bold_start(skip_spacing(s[end..].trim_start_matches([' ', '\t', '$'])));
    let after = skip_spacing(after.trim_start_matches([' ', '\t', '$']));
    // A degree sign is a unit (`\\boxed{5}^\\circ`), not a power.
    let degree = ["^\\circ", "^{\\circ}", "^°", "^{°}"].iter().any(|d| after.starts_with(d));
    let operator_after = !degree
        && (after.starts_with([
            '+', '-', '*', '/', '^', '_', '!', '%', '‰', '\'', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '÷',
        ]) || ["\\times", "\\cdot", "\\div", "\\%", "\\pm", "\\mp"]
            .iter()
            .any(|c| after.strip_prefix(c).is_some_and(|r| !r.starts_with(|ch: char| ch.is_ascii_alphabetic())))
            || after.strip_prefix('.').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            || ratio_after(after, answer_value(&s[start..end]))
            || after.starts_with('}')
            || words_of(&after[..floor_boundary(after, after.len().min(12))])
                .first()
                .is_some_and(|w| match w.as_str() {
                    // With a number after them (`\\boxed{5} times 2`; `\\boxed{30} times.` counts).
                    "times" | "over" => operated_after(after),
                    w => matches!(
                        w,
                        "plus" | "minus" | "divided" | "multiplied" | "factorial" | "squared" | "cubed" | "remainder" | "negated"
                    ),
                }))
            // `\\boxed{3}{.}5`, `\\boxed{3}\\text{.}5`: a decimal point through a group.
            || ["{.}", "\\text{.}"].iter().any(|p| after.strip_prefix(p).is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())))
            // `\\boxed{3} and a half`: a fraction added to it.
            || ["and a half", "and one half", "and a quarter", "and three quarters", "and a third"]
                .iter()
                .any(|p| after.get(..p.len()).is_some_and(|a| a.eq_ignore_ascii_case(p)))
            // The imaginary unit or e against it: `\\boxed{5}i`, `\\boxed{5}\\mathrm{i}`.
            || skip_spacing_commands(&s[end..])
                .strip_prefix(['i', 'e', 'j'])
                .is_some_and(|r| !r.starts_with(|c: char| c.is_alphabetic()))
            // A bracket against it holds a factor (`\\boxed{2}(3)`); `\\boxed{12} (dozen)` is a note.
            || s[end..].strip_prefix('(').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
            || ["\\mathrm{i}", "\\text{i}", "\\mathrm{e}", "\\text{e}", "\\mathrm{j}"].iter().any(|p| after.starts_with(p));
    let spaced = s[..start].trim_end_matches('$').ends_with(char::is_whitespace);
    // Spacing commands between an operator and the box are spacing (`2\\times\\,\\boxed{7}`, `\\log\\,\\boxed{8}`).
    let before = strip_bold_end(trim_spacing_end(s[..start].trim_end_matches([' ', '\t', '$'])))
        .trim_end_matches([' ', '\t', '$']);
    // `\\(\\boxed{5}\\)` and `\\[\\boxed{5}\\]` are math delimiters, a box in a box is a box.
    let delimited = before.ends_with("\\(")
        || before.ends_with("\\[")
        || before.ends_with("\\boxed{")
        || before.ends_with("\\fbox{");
    // `0.\\boxed{5}` and `0. \\boxed{5}` continue a decimal; `= 72. \\boxed{72}` and `x = 3. \\boxed{14}` end a
    // sentence before the box.
    let decimal_point = before.strip_suffix('.').is_some_and(|b| {
        b.ends_with(|c: char| c.is_ascii_digit())
            && (!spaced || {
                // Only a zero integer part (`0. \\boxed{5}`) still reads as a decimal across a space.
                let lead = b.trim_end_matches('0');
                lead.is_empty() || lead.ends_with(|c: char| !c.is_ascii_digit() && c != '.')
            })
    });
    let restated = restated_number(s, start, end).is_some();
    // A number against the box through a spacing command (`2\\,\\boxed{1}`), a digit group's comma (`5,\\boxed{12}`),
    // or a one-argument fraction that the box completes (`\\frac{3}\\boxed{5}`).
    let tight = s[..start].trim_end_matches('$');
    let unspaced = trim_spacing_end(tight);
    let spaced_number = unspaced.len() < tight.len() && unspaced.ends_with(|c: char| c.is_ascii_digit());
    // A product or an argument written against the box: `(-1)\\boxed{5}`, `x\\boxed{5}`, `\\sqrt[3]\\boxed{5}`.
    let single_letter = |t: &str| {
        let mut rev = t.chars().rev();
        rev.next().is_some_and(|c| c.is_ascii_alphabetic())
            && !rev.next().is_some_and(|c| c.is_alphanumeric() || c == '\\')
    };
    let touching = !tight[unspaced.len()..].contains(char::is_whitespace);
    let against = touching && (unspaced.ends_with([')', ']']) || single_letter(unspaced));
    // A thousands group's lead (one to three digits) and its comma: `5,\\boxed{12}` (not `In 2024,\\boxed{5}`).
    let group_comma = tight.strip_suffix(',').is_some_and(|b| {
        let lead = b.len() - b.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        (1..=3).contains(&lead)
    });
    let near = &before[floor_boundary(before, before.len().saturating_sub(64))..];
    let fraction_argument = near
        .strip_suffix('}')
        .and_then(|b| b.rfind('{').map(|i| &b[..i]))
        .is_some_and(|b| ["\\frac", "\\dfrac", "\\tfrac", "\\binom"].iter().any(|c| b.ends_with(c)));
    // The second part of a ratio or a time: `45:\\boxed{3}`, `45 : \\boxed{3}`, `$45$:$\\boxed{3}$`; not a numbered
    // label's (`Step 2: \\boxed{5}`, `Case 3:\\boxed{3}`).
    let ratio_before = {
        let t = trim_spacing_end(tight).trim_end_matches(['$', '*', ' ']);
        let t = ["{:}", "\\text{:}", "\\colon", ":"].iter().find_map(|c| t.strip_suffix(c));
        t.map(|t| trim_spacing_end(t).trim_end_matches(['$', '*', ' '])).is_some_and(|b| {
            let lead = b.trim_end_matches(|c: char| c.is_ascii_digit());
            lead.len() < b.len() && !lead.trim_end().ends_with(|c: char| c.is_alphabetic())
        })
    };
    // Floor, ceiling, absolute value or a norm around the box (`\\lfloor\\boxed{5.5}\\rfloor`, `|\\boxed{-5}|`,
    // `\\left| \\boxed{-5} \\right|`): its value is not the box's. A bare bar counts only against the box on both
    // sides, as a Markdown table's cell (`| \\boxed{5} |`) is spaced.
    let enclosed = ENCLOSING_OPENERS.iter().any(|c| before.ends_with(c))
        || ["|", "\\|"]
            .iter()
            .any(|b| trim_spacing_commands_end(tight).ends_with(b) && skip_spacing_commands(&s[end..]).starts_with(b));
    // A dash against the box, or after a value, is a minus (`—\\boxed{7}`, `5 – \\boxed{7}`); after words it is
    // punctuation (`The answer – \\boxed{7}`).
    let dash = before.strip_suffix(['–', '—']).is_some_and(|b| {
        touching || b.trim_end().ends_with(|c: char| c.is_ascii_digit() || matches!(c, ')' | '}' | '$'))
    });
    let operator_before = !delimited
        && !restated
        && (before.ends_with([
            '+', '-', '*', '/', '^', '_', '{', '(', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '·', '•', '∙',
            '⋅', '×', '÷', '±', '∓', '−', '√', '∛', '⌊', '⌈', '‖',
        ]) || dash
            || ratio_before
            || against
            || spaced_number
            || group_comma
            || fraction_argument
            || decimal_point
            || enclosed
            || OPERATOR_COMMANDS.iter().any(|c| before.ends_with(c))
            || factor_before(before));
    operator_after || operator_before
}

/// Operator commands that make a box written after them an operand (`2\\times\\boxed{7}`, `3 \\oplus \\boxed{7}`).
const OPERATOR_COMMANDS: &[&str] = &[
    "\\times",
    "\\cdot",
    "\\div",
    "\\sqrt",
    "\\frac",
    "\\pm",
    "\\mp",
    "\\ast",
    "\\star",
    "\\circ",
    "\\bullet",
    "\\oplus",
    "\\ominus",
    "\\otimes",
    "\\odot",
    "\\cup",
    "\\cap",
    "\\setminus",
    "\\bmod",
    "\\wedge",
    "\\vee",
];

/// Openings of a floor, a ceiling, an absolute value or a norm, with or without `\\left`.
const ENCLOSING_OPENERS: &[&str] =
    &["\\lfloor", "\\lceil", "\\lvert", "\\lVert", "\\vert", "\\Vert", "\\left|", "\\left\\|", "\\bigl|", "\\big|"];

/// Does `before` end in something a box written after it multiplies: a command of [`FACTOR_COMMANDS`]
/// (`\\pi\\boxed{2}`, `\\log\\boxed{72}`) or a group that is an argument (`\\sqrt{2}\\boxed{3}`, `x^{2}\\boxed{3}`),
/// not a `\\text{…}` label (`\\text{Answer: }\\boxed{5}`)?
fn factor_before(before: &str) -> bool {
    if let Some(command) =
        before.rsplit('\\').next().filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_alphabetic()))
    {
        if before.len() > command.len() && FACTOR_COMMANDS.contains(&command) {
            return true;
        }
    }
    let Some(body) = before.strip_suffix('}') else { return false };
    // The group's opening brace, within the context read.
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in body.char_indices().rev().take(CONTEXT_BYTES) {
        match c {
            '}' => depth += 1,
            '{' if depth == 0 => {
                open = Some(i);
                break;
            }
            '{' => depth -= 1,
            _ => {}
        }
    }
    let Some(open) = open else { return false };
    let head = &body[..open];
    head.ends_with("\\sqrt") || head.ends_with('}') || head.ends_with('^') || head.ends_with('_') || head.ends_with(']')
}

/// The span of the number a box restates: the same value written just before it, after a space
/// (`= 72 \\boxed{72}`), so the box is no product with it. Hedges around that number hedge the answer too.
pub fn restated_number(s: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    // Bold markers only right against the box (`72 **\\boxed{72}**`; `72 ** \\boxed{72}` is a power).
    let head = s[..start].strip_suffix("**").unwrap_or(&s[..start]).trim_end_matches('$');
    if !head.ends_with(char::is_whitespace) {
        return None;
    }
    let before = head.trim_end_matches([' ', '\t', '$']);
    // The number ends a sentence or stands alone: `72, \\boxed{72}` is a list, `1{,}5` a digit group.
    let digits = before.strip_suffix('.').unwrap_or(before);
    let number = trailing_number(digits)?;
    let from = digits.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',').len();
    // What comes before the number leaves it a value of its own: not a sign, operator or bracket (`x = - 72`,
    // `3 \\times 72`, `(72`).
    let lead = s[..from].trim_end_matches([' ', '\t']);
    let operand = lead.ends_with(['-', '−', '+', '*', '/', '^', '(', '[', '{', '|', ',', '}', '_'])
        || ["\\times", "\\cdot", "\\div", "\\pm", "\\mp", "\\left"].iter().any(|c| lead.ends_with(c));
    (!operand && number == number_text(boxed_content(s, start, end))).then_some((from, digits.len()))
}

/// `text` without a leading Markdown bold marker (`**`).
fn strip_bold_start(text: &str) -> &str {
    text.strip_prefix("**").unwrap_or(text)
}

/// `text` without a trailing Markdown bold marker (`**`).
fn strip_bold_end(text: &str) -> &str {
    text.strip_suffix("**").unwrap_or(text)
}

/// The argument of the box spanning `s[start..end]` (`\\boxed{72}` -> `72`), or the span itself.
fn boxed_content(s: &str, start: usize, end: usize) -> &str {
    let span = &s[start..end];
    match (span.find('{'), span.strip_suffix('}')) {
        (Some(open), Some(inner)) if open < inner.len() => &inner[open + 1..],
        _ => span,
    }
}

/// A number's text without spaces, braces and digit-group commas (`1,250` -> `1250`); a comma that is not a
/// group of three digits stays (`1,5` is not 15).
fn number_text(text: &str) -> String {
    let t: String = text.chars().filter(|c| !matches!(c, ' ' | '{' | '}')).collect();
    let grouped = t.split(',').skip(1).all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
    if grouped {
        t.replace(',', "")
    } else {
        t
    }
}

/// The number that ends `text` (digits with `.`/`,` inside), normalised by [`number_text`].
fn trailing_number(text: &str) -> Option<String> {
    let start = text.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',').len();
    let tail = &text[start..];
    let tail = tail.trim_start_matches([',', '.']);
    (tail.starts_with(|c: char| c.is_ascii_digit())
        && !text[..start].ends_with(|c: char| c.is_alphanumeric() || matches!(c, '\\' | '^' | '_' | '/')))
    .then(|| number_text(tail.trim_end_matches(['.', ','])))
}

/// Is the number in prose at `start` inside a bracket opened before it in its line (`Answer: Eq(x, 5)`,
/// `\\foo{5}` in prose)? Then it is an argument of something, not an answer.
pub fn inside_bracket(s: &str, start: usize) -> bool {
    let mut depth = 0usize;
    let window = context_before(s, start);
    for (i, c) in window.char_indices().rev() {
        match c {
            '\n' => return false,
            ')' | ']' | '}' => depth += 1,
            // A bracket right after a name opens its arguments (`Eq(`, `\\foo{`); after a space it is an aside
            // (`the answer is (35 + 70 = 105)`).
            '(' | '[' | '{' if depth == 0 => {
                return window[..i].chars().next_back().is_some_and(|p| p.is_alphanumeric());
            }
            '(' | '[' | '{' => depth -= 1,
            _ => {}
        }
    }
    false
}

/// Is the number at `start` one element of a bracketed list on its line (`(1, 2)`, `[1, 2)`, `\\{1, 2\\}`,
/// `(-infinity, 2]`): a comma stands between it and the bracket that holds it? A coordinate or an endpoint is
/// not the answer.
pub fn in_list(s: &str, start: usize) -> bool {
    let window = context_before(s, start);
    let mut depth = 0usize;
    let mut comma = false;
    for (i, c) in window.char_indices().rev() {
        match c {
            '\n' => return false,
            ')' | ']' | '}' => depth += 1,
            // A list of values (`(1, 2`, `\\{-1, 2`), not a record of words (`{"answer": "9"`, `(so 3, 5`).
            '(' | '[' | '{' if depth == 0 => {
                let set = c != '{' || window[..i].ends_with('\\');
                let values = window[i + 1..].split(|c: char| !c.is_alphabetic()).all(|w| {
                    w.chars().count() <= 1 || matches!(w, "infty" | "infinity" | "inf" | "pi" | "sqrt" | "frac")
                });
                return comma && set && values && !window[i..].contains('"');
            }
            '(' | '[' | '{' => depth -= 1,
            ',' if depth == 0 => comma = true,
            _ => {}
        }
    }
    false
}

/// The largest char boundary <= `i`.
pub(super) fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// At most [`CONTEXT_BYTES`] of `s` before `at` (from a character boundary).
fn context_before(s: &str, at: usize) -> &str {
    &s[floor_boundary(s, at.saturating_sub(CONTEXT_BYTES))..at]
}

/// At most [`CONTEXT_BYTES`] of `s` after `at` (to a character boundary).
fn context_after(s: &str, at: usize) -> &str {
    &s[at..floor_boundary(s, s.len().min(at + CONTEXT_BYTES))]
}

/// The clause before `at`: back to a clause mark or line break, at most [`CONTEXT_BYTES`].
fn clause_before(s: &str, at: usize) -> &str {
    let window = context_before(s, at);
    let cut = window
        .char_indices()
        .rev()
        .find(|&(i, c)| is_clause_mark(c) && !soft_break(window, i))
        .map_or(0, |(i, c)| i + c.len_utf8());
    &window[cut..]
}

/// Is the line break at byte `i` of `text` inside a sentence (`The answer is not` / `5`): a single break after
/// a line that does not end in punctuation? A blank line, or a break after `.`/`:`/…, ends the clause.
fn soft_break(text: &str, i: usize) -> bool {
    if text.as_bytes()[i] != b'\n' {
        return false;
    }
    let before = text[..i].trim_end_matches([' ', '\t', '\r', '\n']);
    let after = &text[i + 1..];
    // A blank line ends the clause, unless the answer, a display or a box follows it (`The answer is
    // approximately` then `$$\boxed{5}$$`, or `**5**`): the sentence goes on in it.
    let display = || {
        let next = after.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_'));
        next.is_empty() || ["$", "\\[", "\\boxed", "\\("].iter().any(|d| next.starts_with(d))
    };
    !before.is_empty()
        && !before.ends_with(|c: char| is_clause_mark(c) || matches!(c, '。' | '！' | '？' | '$' | '}' | ']' | ')'))
        && (!after.trim_start_matches([' ', '\t', '\r']).starts_with('\n') || display())
}

/// The clause after `at`, to a clause mark or line break (a comma does not end it: `5, or 6`).
fn clause_after(s: &str, at: usize) -> &str {
    let window = context_after(s, at);
    let cut = window
        .char_indices()
        .find(|&(i, c)| is_clause_mark(c) && c != ',' && c != '?' && !soft_break(window, i))
        .map_or(window.len(), |(i, _)| i);
    &window[..cut]
}

fn is_clause_mark(c: char) -> bool {
    matches!(c, ',' | ';' | '.' | '!' | '?' | '\n' | ':')
}

/// LaTeX spacing commands, markup between a value and what bounds it.
const SPACING: &[&str] = &["\\qquad", "\\quad", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\mathrel"];

/// Commands and groups that print nothing (`\\text{}`, `{}`, `\\mathstrut`).
const EMPTY_LAYOUT: &[&str] =
    &["{}", "\\relax", "\\text{}", "{\\,}", "\\thinspace", "\\enspace", "\\negthinspace", "\\mathstrut", "\\strut"];

/// Spacing commands followed by a dimension (`\\kern1pt`, `\\mkern2mu`) or a group (`\\hspace{1pt}`).
const DIMENSION_COMMANDS: &[&str] = &["\\hspace", "\\kern", "\\mkern", "\\hskip", "\\mskip", "\\mspace"];

/// `text` past a spacing command with its dimension (`\\kern1pt`, `\\mkern2mu`, `\\hspace{1pt}`), if it starts
/// with one.
fn skip_dimension(text: &str) -> &str {
    let Some(r) = DIMENSION_COMMANDS.iter().find_map(|c| text.strip_prefix(c)) else { return text };
    let r = r.trim_start_matches('*').trim_start();
    if let Some(g) = r.strip_prefix('{') {
        return g.find('}').filter(|&i| i < 24).map_or(text, |i| &g[i + 1..]);
    }
    let n = r.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-'))).unwrap_or(r.len());
    let unit = r.get(n..n + 2).filter(|u| u.bytes().all(|b| b.is_ascii_lowercase())).map_or(0, str::len);
    if n > 0 {
        &r[n + unit..]
    } else {
        text
    }
}

/// `text` without its trailing spacing commands and empty groups (`-\\,`, `-\\!`, `-{}`), spaces kept.
fn trim_spacing_commands_end(text: &str) -> &str {
    let mut t = text;
    while let Some(next) = SPACING.iter().chain(EMPTY_LAYOUT).find_map(|c| t.strip_suffix(c)) {
        t = next;
    }
    t
}

/// `text` without its trailing spaces, spacing commands and empty groups (`2\\!\\!`, `2\\hspace{1pt}`, `2{\\,}`).
fn trim_spacing_end(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_end_matches(invisible);
        let next = SPACING.iter().chain(EMPTY_LAYOUT).find_map(|c| next.strip_suffix(c)).unwrap_or(next);
        // `\\hspace{1pt}`, `\\kern1pt`, `\\mkern2mu`: a command and its dimension.
        let tail = floor_boundary(next, next.len().saturating_sub(32));
        let next = DIMENSION_COMMANDS
            .iter()
            .find_map(|c| {
                let i = tail + next[tail..].rfind(c)?;
                let arg = next[i + c.len()..].trim_start_matches('*').trim();
                let group =
                    arg.strip_prefix('{').and_then(|a| a.strip_suffix('}')).is_some_and(|a| !a.contains(['{', '}']));
                let bare =
                    !arg.is_empty() && arg.chars().all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '.' | '-'));
                (group || bare).then_some(&next[..i])
            })
            .unwrap_or(next);
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

/// `text` past spacing commands and empty groups (`\\,`, `\\!`, `{}`), spaces kept.
fn skip_spacing_commands(text: &str) -> &str {
    let mut t = text;
    while let Some(next) = SPACING.iter().chain(EMPTY_LAYOUT).find_map(|c| t.strip_prefix(c)) {
        t = next;
    }
    t
}

/// `text` past spaces, invisible characters and spacing commands (`\\,`, `\\;`, `\\quad`), on its line.
pub fn skip_spacing(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_start_matches(invisible);
        let next = SPACING.iter().chain(EMPTY_LAYOUT).find_map(|c| next.strip_prefix(c)).unwrap_or(next);
        let next = skip_dimension(next);
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

/// Does a ratio's or a time's colon and a second operand follow the answer `value` (`: 45`, `:{45}`, `{:}45`,
/// `\\colon x`, `\\text{:}45`, through spacing, `$` and bold)? Then the value is the ratio's first part
/// (`\\boxed{3}: 45`, `$3$:45`), not an answer; only a computation that ends in the value explains it
/// (`\\boxed{5}: 2 + 3 = 5`).
fn ratio_after(after: &str, value: &str) -> bool {
    let t = skip_spacing(after.trim_start_matches(['$', '}', '*'])).trim_start_matches(['$', '*']);
    let colon = ["{:}", "\\text{:}", "\\colon", "\\mathbin{:}", ":"].iter().find_map(|c| t.strip_prefix(c));
    let Some(rest) = colon else { return false };
    let rest = skip_spacing(rest.trim_start_matches(['$', '*']));
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let mut operand = rest;
    loop {
        let next = skip_spacing(operand.trim_start_matches(['{', '(', '-', '−']));
        let next = ["\\text{", "\\mathrm{", "\\mathbf{", "\\textbf{", "\\frac", "\\dfrac", "\\tfrac", "\\sqrt"]
            .iter()
            .find_map(|c| next.strip_prefix(c))
            .unwrap_or(next);
        if next.len() == operand.len() {
            break;
        }
        operand = next;
    }
    let second = operand.starts_with(|c: char| c.is_ascii_digit())
        || operand.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && !operand[1..].starts_with(|c: char| c.is_ascii_alphabetic());
    let value = value.trim();
    let explained = !value.is_empty()
        && (line.rsplit_once('=').is_some_and(|(_, result)| {
            let result = result.trim_start_matches([' ', '$', '\\']).trim_start_matches("boxed{");
            result.starts_with(value) && !result[value.len()..].starts_with(|c: char| c.is_ascii_digit() || c == ':')
        }) || computes(line, value));
    second && !explained
}

/// Is the start of `line` (to its first `, `, `. `, `;` or `$`, at most 64 bytes) a computation whose value is
/// `value` (`3 × 4` after `\\boxed{12}:`, not `45 \\times 1` after `\\boxed{3}:`)?
fn computes(line: &str, value: &str) -> bool {
    let line = &line[..floor_boundary(line, line.len().min(64))];
    let cut = [", ", ". ", ";", "$"].iter().filter_map(|m| line.find(m)).min().unwrap_or(line.len());
    let expr = line[..cut].trim().trim_end_matches('.');
    let operator =
        expr.contains(['+', '-', '×', '*', '·', '/', '÷', '−']) || expr.contains("\\times") || expr.contains("\\cdot");
    operator && super::equiv::judge_within_budget(expr, value, &super::Options::default()).equal
}

/// The value of an answer span for [`ratio_after`]: a box's argument, a math block's inside, or prose.
fn answer_value(span: &str) -> &str {
    let t = span.trim().trim_matches('$');
    let t = ["\\boxed", "\\fbox"].iter().find_map(|c| t.strip_prefix(c)).unwrap_or(t).trim_start();
    t.strip_prefix('{').and_then(|r| r.strip_suffix('}')).unwrap_or(t).trim()
}

/// `text` without trailing spaces, `$`, braces and math delimiters.
fn strip_markup_end(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_end().trim_end_matches(['$', '{', '(', '[']);
        let next = next.strip_suffix("\\(").or_else(|| next.strip_suffix("\\[")).unwrap_or(next);
        let next = next.strip_suffix("\\left").unwrap_or(next);
        let next = next.strip_suffix("**").unwrap_or(next);
        let next = SPACING.iter().find_map(|c| next.strip_suffix(c)).unwrap_or(next);
        let next = strip_layout_end(next);
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

/// Commands that only lay out (`\\phantom{0}`, `\\hspace{1cm}`, `\\kern1em`, `\\displaystyle`, `\\tag{1}`,
/// `\\label{eq}`, a line break `\\\\`, an alignment `&`, an empty group `{}`), stripped from the end of `text` once.
fn strip_layout_end(text: &str) -> &str {
    let t = text.trim_end();
    if let Some(r) = t.strip_suffix("{}").or_else(|| t.strip_suffix('&')).or_else(|| t.strip_suffix("\\\\")) {
        return r;
    }
    // A command with an optional argument group at the end: `\\name{…}`, `\\name`, `\\kern1em`.
    let (head, group) = match t.strip_suffix('}').and_then(|r| r.rfind('{').map(|i| (&r[..i], &r[i + 1..]))) {
        Some((head, group)) if !group.contains(['{', '}']) => (head.trim_end(), true),
        _ => (t, false),
    };
    let unit = head.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    for candidate in [head, unit] {
        let name_len = candidate.len() - candidate.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
        let name = &candidate[candidate.len() - name_len..];
        if candidate[..candidate.len() - name_len].ends_with('\\') && LAYOUT.contains(&name) && (group || name_len > 0)
        {
            return &candidate[..candidate.len() - name_len - 1];
        }
    }
    text
}

/// Layout commands (see [`strip_layout_end`]).
const LAYOUT: &[&str] = &[
    "phantom",
    "hphantom",
    "vphantom",
    "hspace",
    "vspace",
    "kern",
    "mkern",
    "hskip",
    "displaystyle",
    "textstyle",
    "tag",
    "label",
    "nonumber",
    "notag",
    "quad",
    "qquad",
    "mathstrut",
    "strut",
];

fn strip_markup_start(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_start().trim_start_matches(['$', '}', ')', ']']);
        let next = next.strip_prefix("\\)").or_else(|| next.strip_prefix("\\]")).unwrap_or(next);
        let next = next.strip_prefix("**").unwrap_or(next);
        let next = SPACING.iter().chain(TEXT_GROUPS).find_map(|c| next.strip_prefix(c)).unwrap_or(next);
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

fn ends_with_relation(before: &str) -> bool {
    let t = strip_markup_end(before);
    // A relation wrapped in a group (`\\mathrel{<}`, `{\\leq}`): read what the group holds.
    if let Some(inner) = t.strip_suffix('}').and_then(|r| r.rfind('{').map(|i| &r[i + 1..])) {
        if !inner.is_empty() && !inner.contains(['{', '}']) && ends_with_relation(inner) {
            return true;
        }
    }
    // An arrow (`x => 72`, `x -> 72`) leads to the value; a struck-out earlier value (`~~5~~ \\boxed{6}`) is
    // not a relation.
    if t.ends_with("=>") || t.ends_with("->") {
        return false;
    }
    if t.ends_with("~~") {
        let line = &t[t.rfind('\n').map_or(0, |i| i + 1)..];
        if line.matches("~~").count() % 2 == 0 {
            return false;
        }
    }
    RELATIONS.iter().any(|r| {
        t.ends_with(r) && {
            // `\ge` must end the command (`\gets` is not `\ge`); symbols always do.
            let head = &t[..t.len() - r.len()];
            !head.ends_with('\\')
        }
    }) || t.chars().next_back().is_some_and(bounding_symbol)
        || trailing_command(t).is_some_and(|(name, head)| bounding_command(name) || head.ends_with("\\not"))
        || t.ends_with("/=")
}

/// A Unicode relation that bounds or denies a value rather than stating it: the order, subset, precedence and
/// similarity relations and their negations in the Mathematical Operators blocks (`≢ ≮ ≰ ≨ ⊂ ≺ ⪇ ⩽`), but not
/// `=`, `≡` (`x ≡ 9 (mod 11)` states a residue), membership (`x ∈ [1, 2]` states a set) or the operators.
fn bounding_symbol(c: char) -> bool {
    matches!(u32::from(c),
        0x223C..=0x223D | 0x2241..=0x2260 // ∼ ∽, ≁ … ≠ (similarity and approximation, their negations, ≠)
        | 0x22CD // ⋍
        | 0x2262..=0x228B // ≢, ≤ ≥ ≦ ≧ ≨ ≩ ≪ ≫ ≬ ≭ ≮ ≯ ≰ ≱ … ≺ ≻ … ⊀ ⊁ ⊂ ⊃ ⊄ ⊅ ⊆ ⊇ ⊈ ⊉ ⊊ ⊋
        | 0x228F..=0x2292 // ⊏ ⊐ ⊑ ⊒
        | 0x22B0..=0x22B1 // ⊰ ⊱
        | 0x22D6..=0x22ED // ⋖ ⋗ ⋘ ⋙ ⋚ ⋛ ⋜ ⋝ ⋞ ⋟ ⋠ … ⋭
        | 0x2A7D..=0x2AC6 // ⩽ ⩾ … ⪇ ⪈ ⪉ ⪊ … ⪯ ⪰ … ⫅ ⫆
    )
}

/// The LaTeX command `text` ends with (its name without the backslash) and the text before it.
fn trailing_command(text: &str) -> Option<(&str, &str)> {
    let name_len = text.len() - text.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    let head = text[..text.len() - name_len].strip_suffix('\\')?;
    (name_len > 0).then(|| (&text[text.len() - name_len..], head))
}

/// A relation command that bounds or denies (`\lneqq`, `\gneq`, `\nsim`, `\ncong`, `\nleqslant`, `\succeq`,
/// `\preceq`, `\subset`, `\supseteq`, `\lesssim`): a negated relation (`\n…`) or one of the order, subset
/// and precedence families, by the roots of their names (LaTeX and amssymb name them so).
fn bounding_command(name: &str) -> bool {
    const ROOTS: &[&str] =
        &["leq", "geq", "neq", "less", "gtr", "succ", "prec", "subset", "supset", "sim", "approx", "cong"];
    const WHOLE: &[&str] = &["le", "ge", "ne", "lt", "gt", "ll", "gg", "lll", "ggg", "lneq", "gneq", "nless", "ngtr"];
    let bounding = |n: &str| WHOLE.contains(&n) || ROOTS.iter().any(|r| n.contains(r));
    // `\nmid`, `\nsim`, `\nleq`: a negation of a relation (the root test keeps `\nu`, `\nabla` out).
    bounding(name) || name.strip_prefix('n').is_some_and(|n| bounding(n) || matches!(n, "mid" | "parallel" | "equiv"))
}

/// The words of `text` as a reader sees them, lower case: LaTeX command names and braces are skipped
/// without breaking a word (`\\text{n}\\text{ot}` reads `not`), and letters that look like Latin ones
/// (Greek `ο`, Cyrillic `о`, fullwidth `ｎ`) are read as those.
fn words_of(text: &str) -> Vec<String> {
    words_at(text).into_iter().map(|(_, w)| w).collect()
}

/// [`words_of`] with the byte offset where each word ends.
fn words_at(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    each_word(text, |at, w| {
        out.push((at, w.to_owned()));
        true
    });
    out
}

/// Words a hedging phrase is made of besides the cues themselves (`at least`, `no more than`, `not exactly`).
const PHRASE_WORDS: &[&str] = &[
    "at",
    "least",
    "most",
    "than",
    "to",
    "more",
    "less",
    "fewer",
    "greater",
    "smaller",
    "equal",
    "exactly",
    "quite",
    "sure",
    "is",
    "be",
    "definitely",
    "certainly",
    "really",
    "very",
];
/// Longest word tried as a phrase written without spaces (bytes).
const MAX_GLUED: usize = 30;

/// The words of a hedging phrase written as one word (`atleast`, `upto`, `perhapsnot`, `nomorethan`, or joined by
/// an invisible character a page does not show): words of at least two letters each, every one a cue or a word of
/// [`PHRASE_WORDS`], at least one a cue. `None` for a word that is one already, or is not such
/// a phrase (`nothing`, `beat`, `into`).
fn glued(word: &str) -> Option<Vec<&str>> {
    static WORDS: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    static CUES: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    let cues = CUES.get_or_init(|| {
        [NEGATIONS, NEAR_CUES, CLAUSE_DOUBTS, SENTENCE_HEDGES, &["least", "most", "than"]]
            .concat()
            .into_iter()
            .collect()
    });
    let words = WORDS.get_or_init(|| cues.iter().copied().chain(PHRASE_WORDS.iter().copied()).collect());
    if !(4..=MAX_GLUED).contains(&word.len()) || !word.bytes().all(|b| b.is_ascii_lowercase()) || words.contains(word) {
        return None;
    }
    // The segmentation into known words of two or more letters, by dynamic programming over the cut points.
    let n = word.len();
    let mut from: Vec<Option<usize>> = vec![None; n + 1];
    from[0] = Some(0);
    for end in 2..=n {
        from[end] = (0..=end - 2).rev().find(|&start| from[start].is_some() && words.contains(&word[start..end]));
    }
    from[n]?;
    let mut parts = Vec::new();
    let mut end = n;
    while end > 0 {
        let start = from[end]?;
        parts.push(&word[start..end]);
        end = start;
    }
    parts.reverse();
    (parts.len() > 1 && parts.iter().any(|p| cues.contains(p))).then_some(parts)
}

/// Calls `f` with each word of `text` as [`words_of`] reads it and the byte offset where it ends, in order,
/// until `f` returns false; the word is lent from one buffer (no allocation per word).
fn each_word(text: &str, mut f: impl FnMut(usize, &str) -> bool) {
    // A phrase written as one word (`atleast`) is read as its words.
    let mut f = |at: usize, w: &str| match glued(w) {
        Some(parts) => parts.iter().all(|p| f(at, p)),
        None => f(at, w),
    };
    let mut word = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                // A command name is markup: skipped, and it does not end the word around it.
                while chars.peek().is_some_and(|(_, n)| n.is_ascii_alphabetic()) {
                    chars.next();
                }
            }
            '{' | '}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{ad}' => {}
            c if is_cjk(c) => {
                if !word.is_empty() {
                    if !f(i, &word) {
                        return;
                    }
                    word.clear();
                }
                if !f(i + c.len_utf8(), c.encode_utf8(&mut [0; 4])) {
                    return;
                }
            }
            c if c.is_alphabetic() || (c == '\'' || c == '’') && !word.is_empty() => {
                word.push(if c == '’' { '\'' } else { latin(c).to_ascii_lowercase() });
            }
            _ => {
                if !word.is_empty() {
                    if !f(i, &word) {
                        return;
                    }
                    word.clear();
                }
            }
        }
    }
    if !word.is_empty() {
        f(text.len(), &word);
    }
}

/// A CJK ideograph or kana: a word by itself (these scripts do not put spaces between words).
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// The Latin letter a character is written to look like, if any (the common Greek and Cyrillic confusables
/// and fullwidth letters); else the character.
fn latin(c: char) -> char {
    match c {
        'ａ'..='ｚ' => char::from(b'a' + (c as u32 - 'ａ' as u32) as u8),
        'Ａ'..='Ｚ' => char::from(b'a' + (c as u32 - 'Ａ' as u32) as u8),
        'ο' | 'о' | 'Ο' | 'О' => 'o',
        'α' | 'а' | 'Α' | 'А' => 'a',
        'е' | 'Е' | 'ε' | 'Ε' => 'e',
        'і' | 'І' | 'ι' | 'Ι' => 'i',
        'ѕ' | 'Ѕ' => 's',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'η' | 'Η' | 'Н' | 'п' => 'n',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'с' | 'С' => 'c',
        'у' | 'У' => 'y',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        'ν' | 'Ν' => 'v',
        'κ' | 'Κ' | 'к' | 'К' => 'k',
        'м' | 'М' | 'Μ' => 'm',
        'в' | 'В' | 'Β' => 'b',
        'г' => 'r',
        'ԁ' => 'd',
        'һ' => 'h',
        'ӏ' => 'l',
        'ԛ' => 'q',
        'ԝ' => 'w',
        // Mathematical bold, italic, script, … letters (`𝐧𝐨𝐭`): 52 to an alphabet, capitals first.
        '\u{1D400}'..='\u{1D6A3}' => char::from(b'a' + ((c as u32 - 0x1D400) % 52 % 26) as u8),
        // Small capitals (`ɴᴏᴛ`).
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ɢ' => 'g',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴊ' => 'j',
        'ᴋ' => 'k',
        'ʟ' => 'l',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hedged(s: &str, answer: &str) -> bool {
        let start = s.rfind(answer).expect("answer in text");
        around(s, start, start + answer.len(), answer.starts_with("\\boxed")).is_some()
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

    // The one-pass readings against the word-vector ones they replace (as they were before it).
    fn reference_revisions_after(s: &str, end: usize) -> Revisions {
        let Some(rest) = s.get(end..) else { return Revisions::default() };
        let words = words_at(rest);
        let mut out = Revisions::default();
        let mut mark = |at: usize, disavowal: bool| {
            out.first = Some(out.first.map_or(end + at, |f| f.min(end + at)));
            out.last = Some(out.last.map_or(end + at, |l| l.max(end + at)));
            out.disavowed |= disavowal;
        };
        // Where word `k` starts (its end less its length; confusables fold to one byte, so at most that far).
        let start_of = |k: usize| floor_boundary(rest, words[k].0.saturating_sub(words[k].1.len()));
        // Is there a clause mark between the end of word `j` and the start of word `k`?
        let marked = |j: usize, k: usize| {
            rest.get(words[j].0..start_of(k).max(words[j].0)).is_some_and(|g| g.contains(is_clause_mark))
        };
        for (k, (at, w)) in words.iter().enumerate() {
            let w = w.as_str();
            let pair_with =
                |pairs: &[(&str, &str)]| k > 0 && pairs.iter().any(|(a, b)| words[k - 1].1 == *a && w == *b);
            // A negator in the same clause, just before (`I made no mistakes`; not `No, that's wrong`).
            let negated = || {
                (k.saturating_sub(NEGATION_WORDS)..k).any(|j| {
                    let n = words[j].1.as_str();
                    (NEGATORS.contains(&n) || n.ends_with("n't")) && !marked(j, k)
                })
            };
            // `wrong`/`incorrect` naming a way of working (`a wrong approach would be to subtract`), not a value.
            let elsewhere = || {
                matches!(w, "wrong" | "incorrect")
                    && words.get(k + 1).is_some_and(|(_, n)| METHOD_NOUNS.contains(&n.as_str()))
                    && !marked(k, k + 1)
            };
            // `isn't right`, `can't be correct`: a negated approval disavows.
            let negated_approval = matches!(w, "right" | "correct")
                && (k.saturating_sub(2)..k).any(|j| {
                    let n = words[j].1.as_str();
                    (NEGATORS.contains(&n) || n.ends_with("n't") || n == "cannot") && !marked(j, k)
                });
            // `… \\boxed{5}. Or 6.`, `No, 6.`: an alternative or an interjection opening a sentence.
            let opens = k == 0 || marked(k - 1, k);
            let alternative = w == "or" && opens
                || INTERJECTIONS.contains(&w)
                    && opens
                    && rest[*at..].trim_start_matches(' ').starts_with([',', ':', '.', '!', ';']);
            let partly = matches!(w, "sure" | "confident" | "certain")
                && rest[..start_of(k)].trim_end().strip_suffix('%').is_some_and(|n| {
                    let digits = n.trim_end();
                    let value = &digits[digits.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').len()..];
                    value.parse::<f64>().is_ok_and(|v| v < 100.0)
                });
            if pair_with(DISAVOWAL_PAIRS)
                || negated_approval
                || partly
                || DISAVOWALS.contains(&w) && !negated() && !elsewhere()
                || FOREIGN_DISAVOWALS.iter().any(|f| reference_starts_with_cue(w, f))
            {
                mark(*at, true);
            } else if REVISING.contains(&w)
                || pair_with(REVISING_PAIRS)
                || alternative
                || FOREIGN_REVISING.iter().any(|f| reference_starts_with_cue(w, f))
            {
                mark(*at, false);
            }
        }
        out
    }

    fn reference_starts_with_cue(word: &str, cue: &str) -> bool {
        let fold = |s: &mut dyn Iterator<Item = char>| s.map(|c| latin(c).to_ascii_lowercase()).collect::<String>();
        let lower = fold(&mut cue.chars());
        let mut chars = cue.chars();
        let capital = fold(&mut chars.next().into_iter().flat_map(char::to_uppercase).chain(chars));
        word.starts_with(&lower) || word.starts_with(&capital)
    }

    fn reference_confirms(s: &str, from: usize) -> bool {
        let Some(rest) = s.get(from..) else { return false };
        if rest.contains(['✓', '✔', '✅']) || rest.to_ascii_lowercase().contains("checks out") {
            return true;
        }
        let words = words_at(rest);
        words.iter().any(|(at, w)| {
            CONFIRMING.contains(&w.as_str())
                && rest[*at..]
                    .trim_start_matches([' ', '*', '!'])
                    .chars()
                    .next()
                    .is_none_or(|c| is_clause_mark(c) || c == '!')
        })
    }

    #[test]
    fn one_pass_readings_agree_with_the_word_vectors() {
        let marks =
            [" ", " ", " ", ", ", ". ", "; ", "\n", "\n\n", ": ", "! ", "? ", "'", "’", "{", "}", "=", "$", "*"];
        let words =
            "\\text{ \\boxed{5} 5 6 \u{200b} wait Wait WAIT wrong incorrect approach way no not n't isn didn't \
            cannot can be right correct sure or Or mistake error might also should meant to I i second thought never \
            mind actually net Нет нет неверно Неверно ошибка 错 等等 应该 подождите ο οr é checks out CHECKS ✓ \
            matches yes works ** x the answer is sorry Sorry hmm oh 30% 100% % confident";
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
            assert_eq!(revisions_after(&text, end), reference_revisions_after(&text, end), "{text:?} at {end}");
            assert_eq!(confirms(&text, end), reference_confirms(&text, end), "{text:?} at {end}");
            let r = reference_revisions_after(&text, end);
            revised += usize::from(r.first.is_some());
            disavowed += usize::from(r.disavowed);
            confirmed += usize::from(reference_confirms(&text, end));
        }
        // The texts exercise every outcome.
        assert!(revised > 1000 && disavowed > 1000 && confirmed > 1000, "{revised} {disavowed} {confirmed}");
        assert!(20_000 - revised > 1000 && 20_000 - disavowed > 1000 && 20_000 - confirmed > 1000);
    }
}
