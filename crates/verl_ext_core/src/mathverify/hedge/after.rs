//! What right after a value changes it: operator and scale words (`5 times two`, `5 thousand`), uncommitted
//! or doubted words (`5 or so`, `5?`), a value that goes on (`5,000`, `5\\pi`) or has company (`5, 6`).

use super::*;
use crate::mathverify::lexer::{after_currency, before_currency};

/// Words that name a number after an operator word (`5 times two`, `5 over ten`).
pub(super) const NUMBER_NAMES: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
    "hundred", "thousand", "half",
];
/// Fractions after `and a` that make a mixed number (`5 and a half`).
pub(super) const FRACTION_WORDS: &[&str] = &["half", "third", "quarter", "fourth", "fifth", "sixth", "eighth", "tenth"];
/// Scales after a value that make it a fraction of itself (`5 hundredths`).
pub(super) const FRACTION_SCALES: &[&str] = &[
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
pub(super) const CHANGING_WORDS: &[&str] =
    &["factorial", "doubled", "tripled", "halved", "quadrupled", "pi", "gross", "bps", "permille", "sqrt", "π"];

/// Do the words right after a value go on computing with it (`5 times 2`, `5 over 2`, `5 divided by 2`, `5 to
/// the 2nd power`, `5 and a half`, `5 and 3/4`, `5 point 5`, `5 hundredths`)? The value is then another one.
/// An operator word without a number after it is prose (`5 times.`, `5 times as many`, `5 over the weekend`).
pub(super) fn operated_after(after: &str) -> bool {
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
        "times" | "over" | "plus" | "minus" | "point" | "x" | "less" => number(1),
        // Not a congruence's modulus in brackets (`5 (mod 7)`).
        "mod" | "modulo" => number(1) && !after.trim_start().starts_with('('),
        "basis" => word(1) == "points",
        // `k` in lower case (a capital after a space is kelvin: `300 K`).
        "k" => after.trim_start().starts_with('k'),
        w if w != "k" && crate::mathverify::lexer::scales_value(w) => true,
        "divided" | "multiplied" | "raised" => matches!(word(1), "by" | "to") && (number(2) || word(2) == "the"),
        "choose" => number(1),
        "percent" | "%" | "per" => {
            matches!(word(1), "of" | "cent") && (number(2) || word(1) == "cent" && word(2) == "of")
                || word(0) == "per" && word(1) == "mille"
        }
        "to" => word(1) == "the" && (number(2) || ordinal(2)),
        "and" => {
            matches!(word(1), "a" | "one") && FRACTION_WORDS.contains(&word(2)) || number(1) && word(1).contains('/')
        }
        "in" => word(1) == "base" && number(2),
        w => FRACTION_SCALES.contains(&w) || CHANGING_WORDS.contains(&w),
    }
}

/// Word sequences that, right after an answer, leave it uncommitted: one of several (`etc.`, `among others`,
/// `one possibility`), a guess (`I think`, `for now`, `to be checked`), or a claim only of likelihood (`is likely`).
pub(super) const UNCOMMITTED_AFTER: &[&[&str]] = &[
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
    &["and", "change"],
    &["ballpark"],
    &["draft"],
    &["ignore"],
    &["tentative"],
    &["tentatively"],
    &["roughly"],
    &["i", "think"],
    &["i", "reckon"],
    &["i'd", "say"],
    &["id", "say"],
    &["presumably"],
    &["coin", "flip"],
    &["gut", "feeling"],
    &["don't", "quote", "me"],
    &["dont", "quote", "me"],
    &["vermutlich"],
    &["probablement"],
    &["probabilmente"],
    &["provavelmente"],
    &["probablemente"],
];
/// Words that, after `is` following an answer, claim only its likelihood (`5 is likely`, `5 is a guess`).
pub(super) const LIKELIHOOD: &[&str] = &[
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
pub(super) fn doubted_after(words: &[String]) -> bool {
    let starts = |p: &&[&str]| p.len() <= words.len() && p.iter().zip(words).all(|(a, b)| a == b);
    let copula = words.first().is_some_and(|w| matches!(w.as_str(), "is" | "seems" | "looks" | "appears"));
    UNCOMMITTED_AFTER.iter().any(starts)
        || copula && words.iter().skip(1).take(2).any(|w| LIKELIHOOD.contains(&w.as_str()))
}

/// Marks that, right after an answer (or opening a bracket after it), question or doubt it.
pub(super) const DOUBT_MARKS: &[char] = &[
    '?', '❌', '✗', '✘', '×', '✕', '🤷', '👎', '🚫', '😅', '🙃', '🤔', '⚠', '±', '‽', '⁇', '⁈', '⁉', '﹖', '⸮', '؟',
    '¿', '？', '❓', '❔', '🤞', '😬', '🎲', '😕', '🫤', '🙈', '🤨', '¯',
];

/// Question marks and their look-alikes (not an opening `¿`, which starts the next sentence).
pub(super) const QUESTION_MARKS: &[char] = &['?', '‽', '⁇', '⁈', '⁉', '﹖', '⸮', '؟', '？', '❓', '❔'];

/// Abbreviations that approximate or bound the value after them (`approx. 5`, `ca. 5`, `est. \\boxed{5}`); their
/// full stop would otherwise end the clause read before the answer.
pub(super) const BOUND_ABBREVIATIONS: &[&str] = &["approx", "appr", "aprox", "apprx", "ca", "est", "abt", "min", "max"];

/// Does `before` (the text right before an answer) end with an abbreviation of [`BOUND_ABBREVIATIONS`] and its
/// full stop, through spaces, `$`, spacing commands and a text group (`$\\text{approx.}\\,\\boxed{5}$`)?
pub(super) fn abbreviated_bound(before: &str) -> bool {
    let t = strip_markup_end(before).trim_end_matches(['}', ' ', '$', '~']);
    let t = spacing().find_map(|c| t.strip_suffix(c)).unwrap_or(t).trim_end_matches(['}', ' ', '$', '~']);
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
pub(super) fn questioned(past: &str) -> bool {
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

/// Does `after` (what follows an answer) restate it as a decimal approximation (`\\boxed{\\frac56} \\approx 0.833`,
/// `2\\sqrt2 ≈ 2.83`)? The answer is then the exact value written before it, not a bound.
pub(super) fn approximated(after: &str) -> bool {
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
pub(super) const FACTOR_COMMANDS: &[&str] = &[
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
pub(super) const ATTACHED_WORDS: &[&str] =
    &["k", "M", "MM", "B", "bn", "mn", "mil", "i", "j", "x", "y", "z", "n", "t", "e", "E", "lakh", "crore"];

/// Does the value at `s[start..end]` go on past its end (a digit group `5,000`, an exponent `5e3`, a factor
/// `5\\pi` or `5k` written against it, a factorial), or come after a sign the reader applies to it (`−5`), or
/// is it one of several (`5, 6`, `5 and 6`)? Then it is not the value stated.
pub(super) fn continued(s: &str, start: usize, end: usize) -> Option<&'static str> {
    // A value in quotes (`"answer": "5" > 6`): what follows the closing quote follows the value.
    let quote = s[end..].chars().next().filter(|&c| matches!(c, '"' | '”') && s[..start].ends_with(['"', '“']));
    let end = end + quote.map_or(0, char::len_utf8);
    let after = s[end..].trim_start_matches(['$', '}']);
    // Against the value or past the marks that close its math or emphasis (`$\\boxed{5}$K`, `**5**K`).
    let tight = ["$", "\\]", "\\)", "**", "*"].iter().find_map(|c| s[end..].strip_prefix(c)).unwrap_or(&s[end..]);
    // Written against the value, before any space: a word of ATTACHED_WORDS, then no further letter.
    let attached = ATTACHED_WORDS.iter().any(|w| match tight.strip_prefix(w) {
        // `e`/`E` only as an exponent (`5e3`, `5E-2`).
        Some(r) if !r.starts_with(|c: char| c.is_alphabetic()) => {
            !matches!(*w, "e" | "E") || r.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        }
        _ => false,
    });
    // A capital `K` is kelvin after a number (`300K`), thousands after an amount of money (`$2.5K`).
    let money = crate::mathverify::lexer::before_currency(&s[..start]).len() < start;
    let thousands = money && tight.strip_prefix('K').is_some_and(|r| !r.starts_with(char::is_alphabetic));
    // (`$\\boxed{5}$!` is punctuation after the math, not a factorial.)
    if attached || thousands || s[end..].starts_with('!') && !s[end..].starts_with("!=") {
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
    if bracketed_other(&s[end..], answer_value(&s[start..end])) {
        return Some("another value in brackets after it (42 (43?))");
    }
    if ratio_after(&s[end..], answer_value(&s[start..end])) {
        return Some("the first part of a ratio or a time (3:45)");
    }
    let command = after.trim_start().strip_prefix('\\').map(|r| {
        let n = r.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(r.len());
        &r[..n]
    });
    // `\\boxed{5} = 6`: a side of an equation, not the value stated.
    let equation =
        [":=", "==", "="].iter().find_map(|e| after.trim_start().strip_prefix(e)).is_some_and(|r| !r.starts_with('='));
    if equation && !s[..start].ends_with(char::is_alphanumeric) && s[start..].starts_with("\\boxed") {
        return Some("a side of an equation (\\boxed{5} = 6)");
    }
    // A unit group is no factor (`12\\mathrm{~cm}`, `5\\,\\text{kg}`); one letter in a text group is
    // (`5{\\rm i}`, `5\\operatorname{i}`).
    let unit = crate::mathverify::lexer::unit_group_after(&s[end..]).is_some();
    if !unit && (letter_group_after(after) || scale_group_after(after)) {
        return Some("a value written on past the answer (5k, 5e3, 5!)");
    }
    // A product's sign and a number after it (`\\boxed{2.5}·10^3`, `$2.5$ × 10^3`): the answer is a factor.
    if after
        .trim_start()
        .strip_prefix(['·', '×', '⋅', '÷', '*', '⨉', '✕', '∙'])
        .is_some_and(|r| r.trim_start().trim_start_matches(['$', '{']).starts_with(|c: char| c.is_ascii_digit()))
    {
        return Some("part of a larger expression (an operator after it)");
    }
    if !unit && command.is_some_and(|c| FACTOR_COMMANDS.contains(&c)) {
        return Some("a factor after the answer (\\boxed{5}\\pi)");
    }
    // An operator command after it (`2-1\\div 3`, `12 \\times 3`): the answer is an operand.
    if command.is_some_and(|c| {
        matches!(c, "div" | "times" | "cdot" | "pm" | "mp" | "frac" | "dfrac" | "tfrac" | "textsuperscript")
    }) {
        return Some("part of a larger expression (an operator after it)");
    }
    // A sign written against the value, or through spacing commands (`−\\boxed{5}`, `$-$5`, `-\\,\\boxed{5}`,
    // `±\\boxed{5}`). A minus after a space is a sign too where something precedes it on its line (`Answer: - 7`,
    // `is - 7`); at a line's start it is a list's dash.
    // `-Rs. 42`, `−€ 42`: the sign is before the amount's currency.
    let before = before_currency(s[..start].trim_end_matches(['$', '*']));
    let thin = trim_spacing_commands_end(before).trim_end_matches(['$', '*']);
    let sign = |t: &str| {
        t.ends_with(|c: char| MINUS_SIGNS.contains(&c) || matches!(c, '–' | '-' | '－' | '±' | '∓'))
            && !t.ends_with("--")
    };
    let spaced_minus = {
        // Through bold and a line break too (`Answer: **−** 7`, `Answer: −` above `\\boxed{7}`); any dash or minus
        // look-alike (`is – 7`, `Answer: ⁻ 7`).
        let t = before.trim_end_matches([' ', '\t', '\n', '*', '$']);
        let line = &t[t.rfind('\n').map_or(0, |i| i + 1)..];
        let dash = line
            .trim_end_matches('*')
            .chars()
            .next_back()
            .filter(|&c| MINUS_SIGNS.contains(&c) || matches!(c, '-' | '－' | '–' | '—' | '―' | '⁻'));
        let line = line.trim_end_matches('*');
        let lead = dash.map_or("", |d| line[..line.len() - d.len_utf8()].trim_end());
        line.len() < before.len() && dash.is_some() && !line.ends_with("--") && signs(lead)
    };
    if sign(thin) || spaced_minus {
        return Some("a sign before the answer");
    }
    if several_after(after) {
        return Some("one of several values");
    }
    beside(context_after(s, end))
}

/// `t` past the marks that close a value as written (`”`, `"`, `**`, `$`, `}`, `%`) and a gloss in brackets
/// without digits (`(five)`).
fn past_closers(t: &str) -> &str {
    let t = t.trim_start_matches(['$', '}', '"', '”', '’', '」', '*', '%']);
    let t = t.strip_prefix("\\%").unwrap_or(t);
    let gloss = t.trim_start().strip_prefix('(').and_then(|r| {
        let close = r.find(')').filter(|&i| i <= 16 && !r[..i].contains(|c: char| c.is_ascii_digit()))?;
        Some(&r[close + 1..])
    });
    gloss.unwrap_or(t)
}

/// The word right after a value, past its closing marks (`apples` in `5 apples, 6 apples`); not a word that joins
/// values ([`JOINERS`]: `and`, `vs`).
pub(super) fn noun_after(t: &str) -> Option<&str> {
    noun_and_rest(t).map(|(noun, _)| noun)
}

/// [`noun_after`] and the text after the noun.
fn noun_and_rest(t: &str) -> Option<(&str, &str)> {
    let t = past_closers(t).trim_start();
    let n = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
    (n > 0 && n <= 20 && !JOINERS.contains(&t[..n].to_lowercase().as_str())).then(|| t.split_at(n))
}

/// Does another value follow the text `after` a value as an item of a list, each written alike: `, 6`, `and 6`,
/// `; 6`, past closing marks and glosses (`“5”, “6”`, `**5**, **6**`, `5 (five); 6 (six)`), and past a word the
/// next value repeats (`5 apples, 6 apples`, `5 USD, 6 USD`)?
pub(super) fn several_after(after: &str) -> bool {
    let t = past_closers(after);
    let Some((noun, rest)) = noun_and_rest(t) else {
        return listed_next(t) || beside(t).is_some_and(|why| why.starts_with("one of several"));
    };
    if !listed_next(rest) {
        return false;
    }
    let r = rest.trim_start();
    let r = r.strip_prefix([',', ';']).unwrap_or(r).trim_start();
    let r = ["and ", "or "].iter().find_map(|w| r.strip_prefix(w)).unwrap_or(r).trim_start();
    let r = r.trim_start_matches(OPENING_MARKS);
    let digits = r.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(r.len());
    noun_after(&r[digits..]).is_some_and(|n| n.eq_ignore_ascii_case(noun))
}

/// Marks that open a value as written (`$`, `\\$`, `(`, quotes, bold).
const OPENING_MARKS: &[char] = &['$', '\\', '(', '"', '“', '「', '*'];

/// Does another value follow the text `after` a value as an item of a list (`, 6`, `and 6`, `or 6`, `, and 6`)?
/// More than one value where one is asked for.
pub(super) fn listed_next(after: &str) -> bool {
    let rest = after.trim_start();
    let (comma, rest) = rest.strip_prefix([',', ';']).map_or((false, rest), |r| (true, r.trim_start()));
    let next = ["and ", "or "].iter().find_map(|w| rest.strip_prefix(w)).or(comma.then_some(rest));
    next.is_some_and(|r| r.trim_start().trim_start_matches(OPENING_MARKS).starts_with(|c: char| c.is_ascii_digit()))
}

/// `t` past a unit word at its start (`dollars`, `cm`; not `in`, a preposition more often) and the layout after it.
pub(super) fn past_unit_word(t: &str) -> &str {
    let n = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
    let word = &t[..n];
    if n > 0 && !word.eq_ignore_ascii_case("in") && crate::mathverify::lexer::canonical_unit(word).is_some() {
        // With its power (`cm^2`, `m²`).
        let r = &t[n..];
        let r = crate::mathverify::lexer::square_or_cube(r).map_or(r, |(n, _)| &r[n..]);
        skip_inline_layout(r)
    } else {
        t
    }
}

/// Does a text group that scales the value follow (`\\text{M}`, `\\;\\text{million}`, `\\text{ and a half}`, through
/// spacing)?
fn scale_group_after(after: &str) -> bool {
    let t = spacing().chain(["~"]).fold(after.trim_start(), |t, c| t.strip_prefix(c).unwrap_or(t)).trim_start();
    let Some(body) = ["\\text{", "\\textrm{", "\\mathrm{", "\\mbox{", "\\textbf{", "\\operatorname{"]
        .iter()
        .find_map(|g| t.strip_prefix(g))
    else {
        return false;
    };
    let body = &body[..floor_boundary(body, body.len().min(40))];
    let Some(close) = body.find('}') else { return false };
    let inner = body[..close].trim_matches([' ', '~']);
    inner.split_whitespace().next().is_some_and(crate::mathverify::lexer::scales_value) || operated_after(inner)
}

/// Does a group holding one letter follow (`{\\rm i}`, `\\operatorname{i}`, `\\text{e}`, through spacing)?
fn letter_group_after(after: &str) -> bool {
    let t = spacing().chain(["~"]).fold(after.trim_start(), |t, c| t.strip_prefix(c).unwrap_or(t)).trim_start();
    let (t, braced) = t.strip_prefix('{').map_or((t, false), |r| (r, true));
    let Some(r) = t.strip_prefix('\\') else { return false };
    let n = r.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(r.len());
    let switch = braced && matches!(&r[..n], "rm" | "bf" | "it" | "sf" | "tt" | "mathrm" | "mathbf");
    let group = matches!(
        &r[..n],
        "text"
            | "textrm"
            | "textbf"
            | "textit"
            | "operatorname"
            | "mathrm"
            | "mathbf"
            | "mathit"
            | "mathsf"
            | "boldsymbol"
    );
    let body = &r[n..];
    let body = if switch {
        body
    } else if group {
        body.strip_prefix('{').unwrap_or("")
    } else {
        ""
    };
    let body = body.trim_start_matches([' ', '~']);
    // One letter, then only spaces to the group's end.
    let mut letters = body.chars();
    letters.next().is_some_and(|c| c.is_ascii_alphabetic())
        && letters.as_str().trim_start_matches([' ', '~']).starts_with('}')
}

/// Does a dash after `lead` (the text before it on its line) sign the value after it? A colon, a bracket, `=`, a
/// cell's bar or a stating word make it a sign (`Answer: - 7`, `is - 7`); after a noun it separates (`Answer - 42`,
/// `The result - 42 apples`).
pub fn signs(lead: &str) -> bool {
    let lead = lead.trim_end().trim_end_matches(['*', '_']).trim_end();
    let stating = lead.rsplit(|c: char| !c.is_alphabetic()).next().is_some_and(|w| {
        matches!(w.to_lowercase().as_str(), "is" | "be" | "was" | "are" | "equals" | "gives" | "get" | "becomes")
    });
    lead.ends_with([':', '：', '】', '=', '|', '(', '[']) || stating
}

/// Does `after` open with a bracket holding nothing but another number (`42 (43)`, `42 [43]`, `42 (43?)`,
/// `\\boxed{42} (-43)`)?
/// A bracket restating the value (`12 (12.0)`) or explaining it (`120 (5!)`, `12 (twelve)`) does not count.
pub(super) fn bracketed_other(after: &str, value: &str) -> bool {
    // Also in a text group (`\\boxed{42}\\text{ (43?)}`).
    let t = after.trim_start_matches(['$', ' ']);
    let t = TEXT_GROUPS.iter().find_map(|g| t.strip_prefix(g)).unwrap_or(t).trim_start_matches([' ', '~']);
    let Some((inner, closer)) = t.strip_prefix('(').map(|r| (r, ')')).or_else(|| t.strip_prefix('[').map(|r| (r, ']')))
    else {
        return false;
    };
    let Some(close) = inner.find(closer).filter(|&i| i <= 24) else { return false };
    let content = inner[..close].trim().trim_end_matches('?').trim_end();
    let digits = after_currency(content.strip_prefix('-').unwrap_or(content));
    let number = !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b',' | b'/'));
    // A numeric answer only (`\\boxed{B} (3)` names an option's value).
    number
        && super::super::equiv::real_value(value).is_some()
        && !super::super::equiv::judge_within_budget(content, value, &super::super::Options::default()).equal
}

/// Words that, between two values, offer both or span a range (`5 to 6`, `5 vs 6`, `5 (also 6)`, `5 up to 6`,
/// `5 bis 6`, `5 или 6`), in the languages whose other hedges are read too and a few more.
pub(super) const JOINERS: &[&str] = &[
    "to",
    "through",
    "thru",
    "till",
    "until",
    "vs",
    "versus",
    "also",
    "and",
    "or",
    "up",
    "else",
    "then",
    "alt",
    "resp",
    "but",
    "becomes",
    "plus",
    "bis",
    "und",
    "oder",
    "et",
    "ou",
    "y",
    "e",
    "o",
    "en",
    "al",
    "hasta",
    "tot",
    "til",
    "eller",
    "lub",
    "nebo",
    "sau",
    "veya",
    "vagy",
    "до",
    "и",
    "или",
    "або",
    "和",
    "或",
    "还是",
    "到",
    "至",
    "か",
    "أو",
    // More words for `or` (Italian, Polish, Indonesian, Vietnamese, Icelandic, Latvian, Croatian, Ukrainian, Spanish,
    // Turkish, Estonian, Lithuanian, Slovene, Persian and Urdu, Hindi, Bengali, Tamil, Hebrew, Korean, Thai, Japanese,
    // German `bzw.`) and for `but`.
    "oppure",
    "albo",
    "atau",
    "hoặc",
    "hay",
    "tai",
    "eða",
    "vai",
    "ili",
    "чи",
    "либо",
    "ó",
    "ya",
    "yahut",
    "või",
    "arba",
    "ali",
    "یا",
    "या",
    "বা",
    "அல்லது",
    "או",
    "또는",
    "혹은",
    "หรือ",
    "または",
    "もしくは",
    "あるいは",
    "bzw",
    "beziehungsweise",
    "anders",
    "ama",
    "aber",
    "mais",
    "pero",
    "но",
    "但",
    "但是",
    "也可能是",
    "也可能",
    "可能是",
    "也许是",
    "或许是",
    "或是",
    "或者是",
    "otherwise",
    "instead",
    "alias",
    "i",
];
/// Words that may stand second between two values, after a joining word (`o bien 6`, `или же 6`, `hoặc là 6`,
/// `instead of 6`, `ya da 6`).
pub(super) const JOINER_FILLERS: &[&str] = &[
    "bien",
    "auch",
    "anche",
    "também",
    "też",
    "sogar",
    "da",
    "же",
    "là",
    "of",
    "even",
    "peut-être",
    "forse",
    "quizás",
    "quizá",
    "belki",
    "vielleicht",
    "maybe",
    "perhaps",
    "possibly",
    "probably",
    "może",
    "talvez",
    "mungkin",
    "có",
    "lẽ",
    "아마",
    "たぶん",
    "多分",
];
/// Marks between two values that [`beside`]'s one-symbol rule does not cover: several characters, or
/// punctuation that otherwise ends what is said of the answer (`5 -> 6`, `5, 6`, `5; 6`, `5 ... 6`).
pub(super) const JOINING_MARKS: &[&str] = &["-->", "->", "==>", "=>", "...", ",", ";", "::"];
/// Characters that, after an answer, end or bracket what is said of it rather than join another value to it
/// (`5. 6 people`, `5 (6 ways)`, `5: 6`); `=` has its own rule (`\\boxed{5} = 6`, and a chain `2+3 = 5`).
pub(super) const NOT_JOINING: &str = ".,;:!?)]([\"'“”‘’¿¡=";
/// Commands that start a value (`5 to \\frac{1}{2}`).
pub(super) const VALUE_COMMANDS: &[&str] = &["\\frac", "\\dfrac", "\\tfrac", "\\sqrt", "\\pi", "\\infty"];
/// Text commands whose group may hold what stands between two values (`5 \\text{ to } 6`) or after a value
/// (`\\boxed{5}\\text{?}`).
pub(super) const TEXT_GROUPS: &[&str] = &[
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
/// Layout commands, beyond [`spacing`], that may stand between two values on one line.
pub(super) const INLINE_LAYOUT: &[&str] = &[
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
pub(super) const LAYOUT_WITH_ARGUMENT: &[&str] = &[
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
pub(super) const NOTE_GROUPS: &[&str] = &["\\tag{", "\\tag*{", "\\label{", "\\footnote{"];

/// Characters that lay out without showing: spaces of every width, joiners and marks (a value hidden behind
/// them is beside the answer all the same).
pub(super) fn invisible(c: char) -> bool {
    c.is_whitespace() && c != '\n' || c == '\u{2800}' || super::super::unicode::ignorable(c)
}

/// `text` past what may stand between two values on one line: spaces, tabs and invisible characters (not a
/// line break), math delimiters, braces, bold, an alignment `&`, a bar, spacing and layout commands and text
/// groups' openings.
pub(super) fn skip_inline_layout(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_start_matches(|c: char| invisible(c) || matches!(c, '$' | '{' | '}' | '*' | '&' | '|'));
        let next = next.strip_prefix("\\(").or_else(|| next.strip_prefix("\\)")).unwrap_or(next);
        let next = spacing()
            .chain(TEXT_GROUPS.iter().copied())
            .chain(INLINE_LAYOUT.iter().copied())
            .find_map(|c| next.strip_prefix(c))
            .unwrap_or(next);
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
pub(super) fn beside(after: &str) -> Option<&'static str> {
    let digit = |t: &str| {
        let t = t.trim_start_matches(['-', '+', '−']).trim_start_matches([' ', '{']);
        // `5 - \$6`, `£5 to £6`: a currency sign belongs to the amount after it.
        let t = after_currency(t).trim_start_matches(['-', '+', '−', ' ', '{']);
        t.starts_with(|c: char| c.is_ascii_digit() || ('０'..='９').contains(&c))
            || VALUE_COMMANDS
                .iter()
                .any(|c| t.strip_prefix(c).is_some_and(|r| !r.starts_with(|ch: char| ch.is_ascii_alphabetic())))
    };
    // `42 dollars to 43 dollars`, `42 cm or 43 cm`: the value's unit word is part of it.
    let mut t = past_unit_word(skip_inline_layout(after));
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
        // The rest of its sentence (`50. I hope it is correct.` explains nothing).
        let line = &r[..floor_boundary(r, r.find('\n').unwrap_or(r.len()).min(48))];
        let line = &line[..line.find(". ").unwrap_or(line.len())];
        // Numbers outside braces (a second `\\frac{3}{2}` is one value, not a computation); `3/2`, `3.5`, `3,500`
        // and `4:15` are one number each.
        let (mut depth, mut numbers, mut in_number) = (0usize, 0usize, false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            let digit = depth == 0 && c.is_ascii_digit();
            let joins =
                in_number && matches!(c, '/' | '.' | ',' | ':') && chars.peek().is_some_and(char::is_ascii_digit);
            numbers += usize::from(digit && !in_number);
            in_number = digit || joins;
        }
        numbers > 1 || words_of(line).iter().any(|w| w.chars().count() >= 2)
    };
    // (A currency code before the second value is part of it: `USD 42/USD 43`.)
    if operand.is_some_and(|r| digit(skip_inline_layout(r)) && !explained(after_currency(skip_inline_layout(r)))) {
        return Some("one of several values, or part of a larger expression (joined to it)");
    }
    // Up to two joining words (`up to`, `(also 6)`, `(alt. 6)`), each followed by layout; the second may be a
    // filler (`o bien 6`, `или же 6`, `instead of 6`).
    t = t.trim_start_matches(['}', '$', '(', '[', '，', '、', ' ']);
    for k in 0..3 {
        let (n, word, folded) = leading_word(t);
        let known = |w: &str| JOINERS.contains(&w) || k > 0 && JOINER_FILLERS.contains(&w);
        if n == 0 || !(known(&word) || known(&folded)) {
            return None;
        }
        t = skip_inline_layout(t[n..].trim_start_matches('.'));
        if digit(t) {
            return Some("one of several values or a range (joined to it)");
        }
    }
    None
}

/// The word that starts `t`: its length in bytes, lower-cased, and also with look-alike letters read as Latin ones
/// ([`latin`]: Cyrillic `о`, circled `ⓞⓡ`). Single letters spaced or hyphenated apart are one word (`O R`, `o-r`).
fn leading_word(t: &str) -> (usize, String, String) {
    let mut n = t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len());
    // A hyphenated word is one (`peut-être`).
    while t[..n].chars().count() > 1 && t[n..].starts_with('-') && t[n + 1..].starts_with(char::is_alphabetic) {
        n += 1 + t[n + 1..].find(|c: char| !c.is_alphabetic()).unwrap_or(t.len() - n - 1);
    }
    if t[..n].chars().count() == 1 {
        // `O R 6`, `o-r 6`: letters one apart.
        let b = t.as_bytes();
        while b.get(n).is_some_and(|&c| c == b' ' || c == b'-') {
            let Some(next) = t[n + 1..].chars().next().filter(|c| c.is_alphabetic()) else { break };
            let end = n + 1 + next.len_utf8();
            if t[end..].starts_with(char::is_alphabetic) {
                break;
            }
            n = end;
        }
    }
    // Hyphens stay in a hyphenated word (`peut-être`), not between spaced letters (`o-r`).
    let hyphenated = t[..n].split('-').next().is_some_and(|first| first.chars().count() > 1);
    let word: String =
        t[..n].chars().filter(|&c| c.is_alphabetic() || hyphenated && c == '-').flat_map(char::to_lowercase).collect();
    let folded = word.chars().map(latin).collect();
    (n, word, folded)
}
