//! Choice letters as options are listed and chosen: a label's option text (`C)620`, `(C) $562\pi$`), a label
//! before a value (`(B) 3`), and the marks and words that list several options or join two letters (`A)5 B)6`,
//! `C) 7` above `D) 8`, `C ou D`, `A. B. C.`). The letters themselves are found in [`super::letters`].

use super::extract::{Candidate, Source};

/// Does another choice's label (`(C)`, `C)`) follow on the line after `end`?
fn labelled_later(text: &str, end: usize, choices: u32) -> bool {
    let line = &text[end..text[end..].find('\n').map_or(text.len(), |i| end + i)];
    line.char_indices().any(|(i, c)| {
        c.is_ascii_uppercase()
            && choices >> (c as u8 - b'A') & 1 == 1
            && line[i + 1..].starts_with(')')
            && line[..i].chars().last().is_none_or(|p| p == '(' || !p.is_alphanumeric())
    })
}

/// Does another choice's label follow an option's text ending at `end`, on its line or opening the next
/// (`A)5 B)6 C)7`, `C) 7` above `D) 8`): the options listed, not one chosen?
pub(super) fn labelled_option_after(text: &str, end: usize, choices: u32) -> bool {
    let next_line = text[end..].split('\n').skip(1).map(str::trim).find(|l| !l.is_empty());
    let labelled = |l: &str| {
        let l = super::markup::unlisted(l).trim_start_matches(['(', '*']);
        let mut chars = l.chars();
        chars.next().is_some_and(|c| c.is_ascii_uppercase() && choices >> (c as u8 - b'A') & 1 == 1)
            && chars.next() == Some(')')
    };
    // Another label denied on the line keeps this one (`(C), not (B)`).
    let line = &text[end..text[end..].find('\n').map_or(text.len(), |i| end + i)];
    labelled_later(text, end, choices) && !denies(line) || next_line.is_some_and(labelled)
}

/// Is the label before a value at `start` one of several options listed: another choice's label earlier on its
/// line (`Candidates: (C) 620, (D) 640`), or on the line above when the label opens its line (`C) 620` above
/// `D) 640`, also as list items)?
pub(super) fn labels_listed_before(text: &str, start: usize, choices: u32) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let head = &text[line_start..start];
    let labels = head
        .char_indices()
        .filter(|&(i, c)| {
            c.is_ascii_uppercase()
                && choices >> (c as u8 - b'A') & 1 == 1
                && head[i + 1..].starts_with(')')
                && head[..i].chars().last().is_none_or(|p| p == '(' || !p.is_alphanumeric())
        })
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    if labels.len() > 1 {
        return true;
    }
    let Some(&label) = labels.first() else { return false };
    labelled_line_above(text, line_start + label, choices)
}

/// Does the label at `start` open its line right below a line that opens with another choice's label (`D)8`
/// above `E)9`): the last of the options listed? A blank line between ends the list.
pub(super) fn labelled_line_above(text: &str, start: usize, choices: u32) -> bool {
    fn bare(l: &str) -> &str {
        let l = l.trim_start_matches(|c: char| c.is_whitespace() || c == '|');
        super::markup::unlisted(l).trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '(' | '*'))
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if line_start == 0 || !bare(&text[line_start..start]).is_empty() {
        return false;
    }
    let above = &text[..line_start - 1];
    let mut chars = bare(&above[above.rfind('\n').map_or(0, |i| i + 1)..]).chars();
    let letter = chars.next().filter(|c| c.is_ascii_uppercase() && choices >> (*c as u8 - b'A') & 1 == 1);
    letter.is_some_and(|c| !text[start..].starts_with(c)) && chars.next() == Some(')')
}

/// The choice letter written as a label right before `text[start..]` on its line (`(B) 3`, `B) 3`), if any.
pub(super) fn choice_label(text: &str, start: usize, choices: u32) -> Option<char> {
    // `(B) 3`, `(B): 3`, `**(B)** 3`, `B) Rs. 1680` (a currency before the value is part of it).
    let before = super::lexer::before_currency(&text[..start]).trim_end_matches([' ', '\t']);
    let before = before.strip_suffix(':').unwrap_or(before).trim_end_matches('*');
    let inner = before.strip_suffix(')')?;
    let letter = inner.chars().last().filter(|&c| c.is_ascii_uppercase() && choices >> (c as u8 - b'A') & 1 == 1)?;
    let rest = &inner[..inner.len() - 1];
    let rest = rest.strip_suffix('(').unwrap_or(rest);
    rest.chars().last().is_none_or(|c| c.is_whitespace() || matches!(c, ':' | '*')).then_some(letter)
}

/// Bytes before a negated choice letter where the letter it is set against may stand (`réponse est C non A`).
pub(super) const NEGATED_WINDOW: usize = 24;

/// Where the answer at `chosen` ends for the words around it: a choice letter ends past the option's text
/// written with it (`C)620`, `(B)Rs.5`, `(C) $562\pi$`, `C, 667`), which is its content, not another value.
pub(super) fn option_end(text: &str, chosen: &Candidate) -> usize {
    if !matches!(chosen.source, Source::Letter(_)) {
        return chosen.end;
    }
    let rest = &text[chosen.end..];
    let label = text[..chosen.end].ends_with(')');
    // A label's text follows it or a space; a bare letter's a comma, colon or dash (`C, 667`, `D: 555 hours`).
    let lead = if label {
        past_spacing(rest)
    } else {
        match [", ", ": ", " - ", " \u{2014} "].iter().find_map(|p| rest.strip_prefix(p)) {
            Some(r) => r.trim_start_matches([' ', '\t']),
            None => return chosen.end,
        }
    };
    // A value is the option's text (`C) 12`, `(A) -476`, `(C) \(5\sqrt3\)`); a word is not (`C) maybe`).
    let value = lead.starts_with(|c: char| c.is_ascii_digit() || c == '$')
        || ["\\(", "\\[", "\\frac", "\\sqrt"].iter().any(|p| lead.starts_with(p))
        || lead.strip_prefix('-').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    // A mark that joins another option is no option text (`(C)=(D)`, `C)/D)`).
    if lead.starts_with(['=', '~', '/', '|', '&', ';', ',', '\u{21d4}', '\u{2194}']) {
        return chosen.end;
    }
    let skipped = match (value, label) {
        (true, _) => rest.len() - lead.len(),
        (false, true) => 0,
        (false, false) => return chosen.end,
    };
    let (start, rest) = (chosen.end + skipped, &rest[skipped..]);
    // Another label against it is no option text (`(C)(D)`).
    let b = rest.as_bytes();
    if b.len() >= 3 && b[0] == b'(' && b[1].is_ascii_uppercase() && b[2] == b')' {
        return start;
    }
    // Up to a space or a mark that joins another option (`C)7/D)8`, `C)7,D)8`; not `87/94`, `E)1,900`).
    let labelled = |r: &str| {
        let r = r.trim_start_matches('(').as_bytes();
        r.first().is_some_and(u8::is_ascii_uppercase) && r.get(1) == Some(&b')')
    };
    let joins = |(i, c): (usize, char)| {
        c.is_whitespace()
            || matches!(c, '|' | '&' | ';' | '?' | '!')
            || c == '\\' && past_spacing(&rest[i..]).len() < rest.len() - i
            || !c.is_ascii() && !c.is_alphanumeric()
            || c == '/' && labelled(&rest[i + 1..])
            || c == ',' && !rest[i + 1..].starts_with(|d: char| d.is_ascii_digit())
    };
    let run = rest.char_indices().find(|&p| joins(p)).map_or(rest.len(), |(i, _)| i);
    start + rest[..run].trim_end_matches(['.', ',', ';', ':', '\'', '"', '*']).len()
}

/// Does another choice letter follow right after a letter, joined to it (`, D`, `/(D)`, ` & D`, ` or D`), or
/// beside it on its line (`C D`, `(C) (D)`, `C | D`, `C – D`, `C to D`, `**C** D`)? A full stop ends the
/// choice (`A. B is not valid` chooses A).
/// Words and marks that join two choice letters, in the languages models answer in (`C ou D`, `C oder D`,
/// `C или D`, `C 或 D`, `C vs D`).
const LETTER_JOINS: &[&str] = &[
    "and ",
    "or ",
    "ou ",
    "o ",
    "oder ",
    "oppure ",
    "ovvero ",
    "veya ",
    "yoksa ",
    "atau ",
    "hoặc ",
    "eller ",
    "lub ",
    "albo ",
    "nebo ",
    "vagy ",
    "tai ",
    "of ",
    "\u{438}\u{43b}\u{438} ",
    "\u{6216}\u{8005}",
    "\u{8fd8}\u{662f}",
    "\u{6216}",
    "\u{307e}\u{305f}\u{306f}",
    "\u{304b}\u{3082}",
    "\u{3082}\u{3057}\u{304f}\u{306f}",
    "\u{b610}\u{b294} ",
    "\u{c544}\u{b2c8}\u{ba74} ",
    "\u{6cc}\u{627} ",
    "\u{623}\u{648} ",
    "\u{92f}\u{93e} ",
    "vs. ",
    "vs ",
    "versus ",
    ",",
    "/",
    "&",
    ";",
    "|",
    "~",
    "=",
    "\u{21d4}",
    "\u{2194}",
];

/// Bytes of a gloss in brackets after a letter read past for another letter joined to it.
const GLOSS_BYTES: usize = 24;

/// LaTeX spacing commands, read as spaces between a letter and what follows it (`(C)\\,\\, 或 D`).
const SPACING: &[&str] = &["\\quad", "\\qquad", "\\,", "\\;", "\\:", "\\!", "\\ ", "~"];

/// `s` past its leading spaces and LaTeX spacing commands.
fn past_spacing(mut s: &str) -> &str {
    loop {
        let t = s.trim_start_matches([' ', '\t']);
        match SPACING.iter().find_map(|c| t.strip_prefix(c)) {
            Some(rest) => s = rest,
            None => return t,
        }
    }
}

pub(super) fn another_letter_follows(text: &str, end: usize, choices: u32) -> bool {
    let standalone = |r: &str| {
        let mut chars = r.chars();
        chars.next().is_some_and(|c| c.is_ascii_uppercase() && choices & (1 << (c as u32 - 'A' as u32)) != 0)
            && chars.next().is_none_or(|c| !c.is_ascii_alphanumeric())
    };
    let rest = past_spacing(&text[end..]).trim_start_matches([' ', ')', '.', '*', ':']);
    // Past a short gloss in brackets (`C (70%) / D (30%)`).
    let rest = rest
        .strip_prefix('(')
        .and_then(|r| r.get(..r.len().min(GLOSS_BYTES)).and_then(|g| g.find(')')).map(|i| r[i + 1..].trim_start()))
        .unwrap_or(rest);
    // Letters each closed by a full stop or a bracket, one after another: options listed (`A. B. C. D.`).
    let mut next = rest.chars();
    if next.next().is_some_and(|c| c.is_ascii_uppercase() && choices >> (c as u8 - b'A') & 1 == 1)
        && matches!(next.next(), Some('.' | ')'))
        && next.next().is_none_or(char::is_whitespace)
    {
        return true;
    }
    let joined = LETTER_JOINS.iter().find_map(|j| rest.strip_prefix(j));
    if joined.is_some_and(|r| standalone(r.trim_start_matches([' ', '(', '*']))) {
        return true;
    }
    let layout = [' ', '\t', '(', ')', '*', '|', '-', '–', '—'];
    let beside = text[end..].trim_start_matches(layout);
    let beside = ["to ", "vs ", "through "].iter().find_map(|w| beside.strip_prefix(w)).unwrap_or(beside);
    if beside.len() < text.len() - end && standalone(beside.trim_start_matches(layout)) {
        return true;
    }
    // The next line holding nothing but another letter (`C` then `D` below it).
    let mut lines = text[end..].lines().skip(1).map(str::trim).filter(|l| !l.is_empty());
    lines.next().is_some_and(|l| {
        let l = l.trim_matches(['(', ')', '*', '.', ' ']);
        l.len() == 1 && standalone(l)
    })
}

/// Is the letter at `start` joined to another choice letter before it (`C and D`, `C, D`, `(C) or (D)`)?
pub(super) fn another_letter_before(text: &str, start: usize, choices: u32) -> bool {
    let head = text[..start].trim_end_matches([' ', '(', '*', '[']);
    // A joining word stands alone (`C o D`; not the end of `Co`).
    let joined = |j: &&str| {
        let word = j.trim_end();
        head.strip_suffix(word).filter(|h| !word.starts_with(char::is_alphabetic) || h.ends_with(' '))
    };
    let Some(head) = LETTER_JOINS.iter().find_map(joined) else {
        return false;
    };
    let head = head.trim_end_matches([' ', ')', '*', ']']);
    let mut last = head.chars().rev();
    let letter = last.next().is_some_and(|c| c.is_ascii_uppercase() && choices & (1 << (c as u32 - 'A' as u32)) != 0);
    letter && last.next().is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// Bytes before a letter a phrase chooses read for another letter offered beside it.
const OFFER_WINDOW: usize = 24;
/// Bytes of a stated letter's line read for another letter offered after it.
const OFFER_LINE: usize = 200;
/// Words between two letters that explain or deny the second rather than offer it (`C because B fails`, `C, not
/// B`, `C rather than B`).
const NOT_OFFERING: &[&str] = &[
    "because",
    "doesn't",
    "don't",
    "isn't",
    "can't",
    "cannot",
    "won't",
    "wouldn't",
    "never",
    "neither",
    "nor",
    "since",
    "not",
    "non",
    "no",
    "rather",
    "than",
    "unlike",
    "instead",
    "wrong",
    "incorrect",
    "exclude",
    "excludes",
    "excluding",
    "except",
    "over",
    "beats",
    "while",
    "whereas",
    "nicht",
    "pas",
    "не",
    "不是",
];
/// Words after a stated letter, in its clause, that make it an answer under a condition or a guess (`B when n
/// is odd`, `B (sonst C)`, `B (60%)`).
const CONDITIONAL_AFTER: &[&str] = &[
    "when",
    "if",
    "unless",
    "otherwise",
    "else",
    "assuming",
    "si",
    "sinon",
    "wenn",
    "falls",
    "sonst",
    "если",
    "иначе",
    "уверен",
    "точно",
    "%",
    "est.",
    "\u{5426}\u{5219}",
    "\u{65f6}",
    "\u{5982}\u{679c}",
    "\u{82e5}",
    "\u{4e0d}\u{786e}\u{5b9a}",
];

/// Does `between` (the text between two letters) explain or deny the second ([`NOT_OFFERING`]; CJK words are
/// read inside their run of characters: `B。不是 A`)?
fn denies(between: &str) -> bool {
    let words = super::hedge::words_of(between);
    NOT_OFFERING.iter().any(|w| if w.is_ascii() { words.iter().any(|x| x == w) } else { between.contains(w) })
}

/// Words after a letter that reject it (`and A is not`, `while (B) is incorrect`).
const REJECTED_AFTER: &[&str] = &[
    " is not",
    " isn't",
    " is wrong",
    " is incorrect",
    " fails",
    " does not",
    " doesn't",
    " cannot",
    " can't",
    " can be ruled out",
    " can be eliminated",
    " is a distractor",
    " is a trap",
    " is ruled out",
    " is eliminated",
    " are not",
    " are wrong",
    " are incorrect",
    ") is not",
    ") is wrong",
    ") is incorrect",
];

/// Is there a choice letter at `i` with no letter or digit of its own script against it (`B、C`, `BかC`, `(and C)`,
/// `\\text{oder}\\ C`)? Wider than [`super::letters::letter_at`]: here it only has to be another letter offered.
fn loose_letter(text: &str, i: usize, choices: u32) -> bool {
    let b = text.as_bytes();
    b[i].is_ascii_uppercase()
        && choices >> (b[i] - b'A') & 1 == 1
        && !text[..i].ends_with(|c: char| c.is_ascii_alphanumeric())
        && !text[i + 1..].starts_with(|c: char| c.is_ascii_alphanumeric())
}

/// Is another choice letter offered after a stated letter on its line, joined by anything but an explanation or
/// a denial (`B → C`, `B und C`, `B then C`, `(C) y (D)`, `C … D`, `B, but C also works`, `B \\lor C`)? After a
/// label with an option's text only another label counts (`(C) Both A and B` is one option); a letter after a
/// capitalised word names something (`Plan B`).
pub(super) fn another_letter_offered(text: &str, end: usize, choices: u32, labelled: bool) -> bool {
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let stop = line_end.min(end + OFFER_LINE);
    for i in end..stop {
        if !text.is_char_boundary(i) || !loose_letter(text, i, choices) {
            continue;
        }
        if labelled && !text[i + 1..].starts_with([')', '.', '\u{ff09}']) {
            continue;
        }
        let mut between = text[end..i].replace("...", " ").replace('\u{2026}', " ");
        for command in SPACING {
            between = between.replace(command, " ");
        }
        if between.contains(". ") || between.contains(['!', '?', ';', '\u{3002}']) || denies(&between) {
            return false;
        }
        // A letter rejected right after it is no offer (`C is correct and A is not`).
        let rejected = {
            let after = text[i + 1..].to_ascii_lowercase();
            REJECTED_AFTER.iter().any(|r| after.starts_with(r))
        };
        if rejected {
            continue;
        }
        let named = between.trim_end().rsplit(' ').next().is_some_and(|w| {
            w.len() > 1 && w.starts_with(|c: char| c.is_uppercase()) && w.chars().skip(1).all(char::is_lowercase)
        });
        if !named {
            return true;
        }
    }
    false
}

/// Words of a guess on a stated letter's line (`C. (I think)`, `C sans doute`, `C (50/50)`, `C (低信心)`).
const GUESSES: &[&str] = &[
    "i think",
    "i guess",
    "my guess",
    "not sure",
    "unsure",
    "maybe",
    "perhaps",
    "probably",
    "tentative",
    "probability",
    "chance",
    "sans doute",
    "peut-\u{ea}tre",
    "quiz\u{e1}s",
    "vielleicht",
    "\u{43d}\u{430}\u{432}\u{435}\u{440}\u{43d}\u{43e}",
    "\u{53ef}\u{80fd}",
    "\u{4e5f}\u{8bb8}",
    "\u{4fe1}\u{5fc3}",
    "\u{305f}\u{3076}\u{3093}",
    "\u{c544}\u{b9c8}",
    "50/50",
    "\u{1f914}",
    "assuming",
];

/// Marks of a guess anywhere on a stated letter's line (`C. (60%)`, `C. (?)`, `C. ¿?`).
const LINE_GUESSES: &[&str] = &["%)", "(?)", "\u{bf}?", "?)"];

/// Bytes of a sentence after a stated letter read as a condition on it (`C. if x>0`).
const CONDITION_BYTES: usize = 32;

/// Does the line after a stated letter guess at it, or its clause (to a full stop) make it conditional?
pub(super) fn conditional_after(text: &str, end: usize) -> bool {
    let rest = &text[end..];
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let line = &line[..line.len().min(OFFER_LINE)];
    let line = &line[..(0..=line.len()).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0)];
    let lower_line = line.to_lowercase();
    // A guess anywhere on the line (`C. (I think)`, `C sans doute`, `C (50/50)`).
    if GUESSES.iter().chain(LINE_GUESSES).any(|g| lower_line.contains(g)) {
        return true;
    }
    // A short sentence after it that is a condition (`C. if x>0`).
    if let Some(next) = line.split_once(". ").map(|(_, n)| n.trim()).filter(|n| n.len() <= CONDITION_BYTES) {
        let lower = next.to_lowercase();
        if ["if ", "when ", "unless ", "si ", "wenn "].iter().any(|w| lower.starts_with(w)) {
            return true;
        }
    }
    let clause = &line[..[". ", ".\n"].iter().filter_map(|m| line.find(m)).min().unwrap_or(line.len())];
    let clause = &clause[..clause.find(" because").unwrap_or(clause.len())];
    let lower = clause.to_lowercase();
    clause.trim_start_matches([')', '*', ' ']).starts_with('?')
        || CONDITIONAL_AFTER.iter().any(|w| {
            lower.match_indices(w).any(|(i, _)| {
                let alpha = w.starts_with(|c: char| c.is_alphabetic() && c.is_ascii());
                !alpha
                    || !lower[..i].ends_with(char::is_alphanumeric)
                        && !lower[i + w.len()..].starts_with(char::is_alphanumeric)
            })
        })
}

/// Is another choice letter offered within a few bytes before a letter that a phrase after it chooses, on its
/// line (`Option B → C is correct`, `B ∨ C is the right choice`)?
pub(super) fn another_letter_offered_before(text: &str, start: usize, choices: u32) -> bool {
    // Also across one line break (`Option B` above `C is correct`).
    let from = start.saturating_sub(OFFER_WINDOW);
    (from..start).any(|i| {
        text.is_char_boundary(i) && loose_letter(text, i, choices) && {
            let between = &text[i + 1..start];
            // A sentence's end or an answer's label between: the letter is stated after it (`Wait, C.` above
            // `**Answer: B**`).
            !between.contains(". ")
                && !between.contains(".\n")
                && !between.contains(':')
                && !between.to_ascii_lowercase().contains("answer")
                && between.matches('\n').count() <= 1
                && !denies(between)
        }
    })
}

/// Words before a letter that a phrase chooses, in its sentence, that make it a guess or conditional (`I think B is
/// the right choice`, `Option if n is odd then B is correct`).
const DOUBTED_BEFORE: &[&str] =
    &["i think", "if ", "not sure", "maybe", "perhaps", "probably", "guess", "unsure", "?", "\u{1f914}"];

/// Bytes before a chosen letter read for a doubt or a condition.
const DOUBT_WINDOW: usize = 48;

/// Does the sentence before a chosen letter at `start`, near it, doubt it or make it conditional?
pub(super) fn doubted_before(text: &str, start: usize) -> bool {
    let head = &text[..start];
    if head.trim_end_matches([' ', '(', '*']).ends_with(['?', '\u{ff1f}', '\u{1f914}']) {
        return true;
    }
    let near = (start.saturating_sub(DOUBT_WINDOW)..=start).find(|&i| head.is_char_boundary(i)).unwrap_or(start);
    let from = [". ", "\n", "! ", "? "].iter().filter_map(|m| head.rfind(m).map(|i| i + m.len())).max().unwrap_or(0);
    let from = from.max(near);
    let sentence = head[from..].to_lowercase();
    DOUBTED_BEFORE.iter().chain(GUESSES).any(|w| sentence.contains(w))
}

#[cfg(test)]
mod tests {
    use super::super::Targets;
    use super::*;

    #[test]
    fn choice_labels() {
        let abcde = Targets::letters("ABCDE");
        let label = |s: &str| choice_label(s, s.rfind('3').expect("a 3"), abcde);
        assert_eq!(label("The answer is (B) 3."), Some('B'));
        assert_eq!(label("Answer: B) 3"), Some('B'));
        assert_eq!(label("**Answer:** (D)3"), Some('D'));
        assert_eq!(label("so f(B) 3"), None);
        assert_eq!(label("The answer is (F) 3."), None);
        assert_eq!(label("The answer is (B)\n3"), None);
        assert_eq!(label("The answer is **(B)** 3"), Some('B'));
        assert_eq!(label("The answer is (B): 3"), Some('B'));
        assert_eq!(label("The answer is B) Rs. 3"), Some('B'));
        assert_eq!(label("The answer is (C) \\$3"), Some('C'));
    }
}
