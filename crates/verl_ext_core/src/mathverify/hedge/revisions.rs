//! Revisions after an answer (`\\boxed{5}. Wait, that's wrong`, `I'm not sure`), confirmations and disowning
//! words: what after a value withdraws it, and what only checks it.

use super::*;

/// Words after an answer that disavow it on their own (`\\boxed{5}. That's wrong.`, `I'm not sure`), unless
/// negated (`I made no mistakes`) or, for `wrong`/`incorrect`, naming something else (`a wrong approach
/// would be to subtract`).
pub(super) const DISAVOWALS: &[&str] = &[
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
    "nein",
];
/// Words after an answer that announce a revision: they withdraw it only when a different value follows
/// (`\\boxed{5}. Wait, it is 6.`), not when the check confirms it (`Wait, let me verify: 48+24=72. Correct.`).
pub(super) const REVISING: &[&str] = &[
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
    "corrected",
    "amended",
    "amend",
    "recomputed",
    "recalculated",
    "recalculation",
    "rechecked",
    "alternative",
    "backup",
    "fallback",
];
/// Interjections that, opening a sentence and set off by punctuation, take back what came before
/// (`\\boxed{5}. Hmm, it's 6.`); not otherwise (`Oh well.`). `No,` and `Sorry,` open honest remarks too (`No, other
/// values do not work.`, `Sorry, I should have said …`): a value they lead to is read as a closing value.
pub(super) const INTERJECTIONS: &[&str] = &["oh", "nah", "hmm", "hmmm", "whoops", "argh", "ugh"];
/// Nouns after `confidence` that make it a statistic (`95% confidence interval`), not a doubt.
pub(super) const STATISTIC_NOUNS: &[&str] = &[
    "interval",
    "intervals",
    "level",
    "levels",
    "coefficient",
    "band",
    "region",
    "point",
    "bound",
    "bounds",
    "limit",
    "limits",
];
/// Two-word disavowals (`not sure`, `not correct`), the second word's end marking them.
pub(super) const DISAVOWAL_PAIRS: &[(&str, &str)] = &[
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
    // `Confidence: low`, `(low confidence)`.
    ("low", "confidence"),
    ("medium", "confidence"),
    ("moderate", "confidence"),
    ("limited", "confidence"),
    ("confidence", "low"),
    ("confidence", "medium"),
    ("confidence", "moderate"),
    ("low", "certainty"),
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
pub(super) const REVISING_PAIRS: &[(&str, &str)] = &[
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
pub(super) const NEGATORS: &[&str] =
    &["no", "not", "never", "without", "nothing", "none", "nor", "neither", "dont", "didnt", "doesnt", "isnt", "wasnt"];
/// How far back a negator reaches.
pub(super) const NEGATION_WORDS: usize = 3;
/// Nouns after `wrong`/`incorrect` that name a way of working (`a wrong approach would be to subtract`), not the
/// value found; any other noun there (`the wrong answer`, `the wrong number`) is the answer disavowed.
pub(super) const METHOD_NOUNS: &[&str] = &[
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

/// Does `word` look like a plural noun (`answers`, `options`), not a function word ending in `s` (`this`, `was`)?
pub(super) fn plural_noun(word: &str) -> bool {
    word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !["this", "thus", "does", "always", "perhaps", "unless", "yes", "its", "has", "was", "is", "as", "us"]
            .contains(&word)
}

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
pub(super) const WINDOW: usize = NEGATION_WORDS + 2;

/// Marks word `k` of `rest` (the text after `end`) in `out` when it is a revision word; `window` holds words
/// `base..base + window.len()`, from `k - NEGATION_WORDS` (or the first) to `k + 1` (or the last).
pub(super) fn revision_at(
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
    // So does one before a plural noun (`12 wrong answers`): the things counted.
    let elsewhere = || {
        matches!(w, "wrong" | "incorrect")
            && next.is_some_and(|(_, n)| METHOD_NOUNS.contains(&n.as_str()) || plural_noun(n))
            && !marked(k, k + 1)
    };
    // `Alternative approach:`, `Backup check:`: another way to the answer, not another answer.
    let another_method = || {
        matches!(w, "alternative" | "backup" | "fallback")
            && next.is_some_and(|(_, n)| {
                METHOD_NOUNS.contains(&n.as_str())
                    || matches!(n.as_str(), "solution" | "check" | "verification" | "proof" | "derivation")
            })
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
    // `I am 30% sure`, `(40% confidence)`, `Confidence: 40%`: any confidence short of 100% doubts the answer.
    let short_of_full = |digits: &str| digits.parse::<f64>().is_ok_and(|v| v < 100.0);
    // A `95% confidence interval` is a statistic, not a doubt.
    let statistic =
        matches!(w, "confidence" | "certainty") && next.is_some_and(|(_, n)| STATISTIC_NOUNS.contains(&n.as_str()));
    let partly = !statistic
        && matches!(w, "sure" | "confident" | "certain" | "confidence" | "certainty")
        && rest[..start_of(k)].trim_end().strip_suffix('%').is_some_and(|n| {
            let digits = n.trim_end();
            short_of_full(&digits[digits.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').len()..])
        })
        || matches!(w, "confidence" | "certainty") && {
            let after = rest[at..].trim_start_matches([':', '=', ' ', '*', '~']);
            let n = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').len();
            n > 0 && after[n..].trim_start().starts_with('%') && short_of_full(&after[..n])
        };
    if pair_with(DISAVOWAL_PAIRS)
        || negated_approval
        || partly
        || DISAVOWALS.contains(&w) && !negated() && !elsewhere()
        || cues.disavowals.iter().any(|c| c.starts(w))
    {
        mark(true);
    } else if REVISING.contains(&w) && !another_method()
        || pair_with(REVISING_PAIRS)
        || alternative
        || cues.revising.iter().any(|c| c.starts(w))
    {
        mark(false);
    }
}

/// Chinese and Russian disavowals (a CJK character is a word of its own, so the first character is matched;
/// Russian words are matched by their start, read through the same letter folding as all words).
pub(super) const FOREIGN_DISAVOWALS: &[&str] = &[
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
pub(super) const FOREIGN_REVISING: &[&str] = &["等", "应", "подожд", "нет"];

/// A cue of [`FOREIGN_DISAVOWALS`] or [`FOREIGN_REVISING`] as [`words_of`] reads words: words are read through
/// [`latin`], which folds some Cyrillic letters, so the cue is folded the same way, written in lower case and
/// with a capital.
pub(super) struct FoldedCue {
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
pub(super) struct RevisionCues {
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

pub(super) fn revision_cues() -> &'static RevisionCues {
    static CUES: std::sync::OnceLock<RevisionCues> = std::sync::OnceLock::new();
    CUES.get_or_init(|| {
        // The word judged in each test of `revision_at`: a pair's second word, a negated approval, a disavowal, a
        // revising word, an alternative.
        let mut words: Vec<&'static str> = DISAVOWAL_PAIRS.iter().chain(REVISING_PAIRS).map(|&(_, b)| b).collect();
        words.extend(["right", "correct", "or", "sure", "confident", "certain", "confidence", "certainty"]);
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
pub(super) const CONFIRMING: &[&str] = &[
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
pub(super) const DISOWNING: &[&str] = &[
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
