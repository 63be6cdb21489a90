//! Numbers and arithmetic written in prose, outside any math block: `1,234.5`, `12,5` (decimal comma),
//! `.5`, `40 percent`, `$100`, `3/4`, `2 * (3 + 4)`. A match starts at the text's start or after a space,
//! `=` or `**`, as a word would; `XDY2K` holds no number.

use super::lexer::MULTIPLIERS;
use super::unicode::currency_sign;

/// A number or expression found in prose: its span and its text normalised for the lexer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Longest expression read in prose (characters).
const MAX_EXPRESSION_CHARS: usize = 200;
const OPERATORS: &[char] = &['+', '-', '*', '×', '/', '^', '(', ')', '÷'];

fn expr_char(c: char) -> bool {
    c.is_ascii_digit() || c == '.' || c == ' ' || OPERATORS.contains(&c)
}

/// May a number start at byte `i` (after the start, whitespace, `=`, an opening quote, or `**` that follows
/// one of those)?
fn may_start(s: &str, i: usize) -> bool {
    let before = &s[..i];
    // After Markdown emphasis: bold, italic or both (`**42**`, `*42*`, `_42_`, `***42***`).
    let before = ["***", "**", "*", "__", "_"].iter().find_map(|m| before.strip_suffix(m)).unwrap_or(before);
    // After CJK text and its punctuation too, which put no space before a number (`比例为13/28`, `答案：180`),
    // and inside a quoted value (`"answer": "9"`).
    // After a label's colon (`answer:180`, `答案:180`), not a ratio's or a time's (`3:2`, `12:30`).
    let labelled = before.strip_suffix(':').is_some_and(|b| b.ends_with(|c: char| c.is_alphabetic()));
    // A single quote opens a quoted value after a space (`is '9'`), not inside a word (`don't`).
    let quoted = before.strip_suffix('\'').is_some_and(|b| b.is_empty() || b.ends_with(char::is_whitespace));
    before.is_empty()
        || labelled
        || quoted
        || before.ends_with(|c: char| {
            c.is_whitespace()
                || matches!(c, '=' | '"' | '“' | '‘' | '「')
                || super::hedge::is_cjk(c)
                || cjk_punctuation(c)
        })
}

/// `negative ` (any case of its first letter) before a digit, read as a minus sign: its length, or 0.
fn negative_len(t: &str) -> usize {
    let word = ["negative ", "Negative "].iter().find(|w| t.starts_with(**w));
    word.filter(|w| t[w.len()..].starts_with(|c: char| c.is_ascii_digit())).map_or(0, |w| w.len())
}

/// CJK punctuation and fullwidth forms (`：`, `】`, `，`).
fn cjk_punctuation(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303f}' | '\u{ff01}'..='\u{ff0f}' | '\u{ff1a}'..='\u{ff20}')
}

fn digits_len(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// A percent sign or word after a number: its length.
fn percent_len(rest: &str) -> usize {
    let trimmed = rest.trim_start();
    let skipped = rest.len() - trimmed.len();
    for word in ["%", "percentage", "Percentage", "percent", "Percent", "pct", "Pct"] {
        if let Some(after) = trimmed.strip_prefix(word) {
            if !after.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return skipped + word.len();
            }
        }
    }
    0
}

/// A ratio or a time going on from a number (`3:2`, `1:2:3`, `12:30`, `2 : 1`): its length, its parts pushed
/// onto `text` after `:`. Read whole, `3:45` is not its first part (`3`) alone.
fn ratio_len(rest: &str, text: &mut String) -> usize {
    let mut len = 0;
    loop {
        let r = &rest[len..];
        let sep = [":", " : "].iter().find(|sep| r.starts_with(**sep)).map_or(0, |sep| sep.len());
        let lead = digits_len(&r[sep..]);
        if sep == 0 || lead == 0 {
            return len;
        }
        let part = &r[sep..];
        let frac = part[lead..].strip_prefix('.').map_or(0, digits_len);
        let n = if frac > 0 { lead + 1 + frac } else { lead };
        text.push(':');
        text.push_str(&part[..n]);
        len += sep + n;
    }
}

/// `AM`/`PM` (any case, with or without dots) after a time, before a non-letter: its length and `am`/`pm`.
pub(super) fn half_day_len(rest: &str) -> Option<(usize, &'static str)> {
    let r = rest.strip_prefix(' ').unwrap_or(rest);
    let lower = r.get(..r.len().min(4))?.to_ascii_lowercase();
    let (half, n) =
        ["am", "pm", "a.m.", "p.m."].iter().filter(|h| lower.starts_with(**h)).map(|h| (h, h.len())).next_back()?;
    let ends = !r[n..].starts_with(|c: char| c.is_alphanumeric());
    ends.then(|| (rest.len() - r.len() + n, if half.starts_with('a') { "am" } else { "pm" }))
}

/// A physical unit after a number and one space (`5 cm`, `3 hours`, `24 m^2`, `24 m²`) as `\text{cm}` with its power:
/// not `in` (a preposition more often than inches), `square`/`cubic` (the unit comes after them), nor the first word
/// of a compound unit (`60 miles per hour`, `5 m/s`).
fn unit_after(rest: &str) -> Option<String> {
    let r = rest.strip_prefix(' ')?;
    let word_len = r.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(r.len());
    let word = &r[..word_len];
    let modifier = ["in", "square", "sq", "cubic"].iter().any(|w| word.eq_ignore_ascii_case(w));
    if word.is_empty() || modifier || super::lexer::canonical_unit(word).is_none() {
        return None;
    }
    let after = &r[word_len..];
    let (power, after) =
        super::lexer::square_or_cube(after).map_or((String::new(), after), |(n, k)| (format!("^{k}"), &after[n..]));
    let compound =
        after.starts_with('/') || after.trim_start().get(..4).is_some_and(|w| w.eq_ignore_ascii_case("per "));
    let ends = !after.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '^' | '{'));
    (ends && !compound).then(|| format!("\\text{{{word}}}{power}"))
}

/// Units written together with a smaller one after them (`4 hours 30 minutes`), and how many of the smaller make one.
const COMPOUND_UNITS: &[(&[&str], &[&str], u32)] = &[
    (&["hours", "hour", "hrs", "hr", "h"], &["minutes", "minute", "mins", "min"], 60),
    (&["minutes", "minute", "mins", "min"], &["seconds", "second", "secs", "sec", "s"], 60),
    (&["days", "day"], &["hours", "hour", "hrs", "hr"], 24),
    (&["dollars", "dollar"], &["cents", "cent"], 100),
    (&["feet", "foot", "ft"], &["inches", "inch"], 12),
    (&["pounds", "pound", "lbs", "lb"], &["ounces", "ounce", "oz"], 16),
];

/// After a number: a unit and a smaller one with its own number (`4 hours 30 minutes`, `12 dollars and 50 cents`):
/// the length read, the smaller number, how many of it make one larger unit, and the larger unit as `\text{…}`.
/// The smaller number is less than that many (`2 hours 90 minutes` is no one quantity).
fn compound_after(rest: &str) -> Option<(usize, String, u32, String)> {
    let r = rest.strip_prefix(' ')?;
    let word = |s: &str| s.find(|c: char| !c.is_ascii_alphabetic()).map_or(s, |n| &s[..n]).to_owned();
    let large = word(r);
    let &(_, smalls, factor) =
        COMPOUND_UNITS.iter().find(|(l, _, _)| l.contains(&large.to_ascii_lowercase().as_str()))?;
    let mut after = &r[large.len()..];
    after = after.strip_prefix(',').unwrap_or(after);
    after = after.strip_prefix(" and").unwrap_or(after);
    let after = after.strip_prefix(' ')?;
    let n = digits_len(after);
    let small = word(after.get(n..)?.strip_prefix(' ')?);
    let value: u32 = after[..n].parse().ok()?;
    let end = after[n + 1 + small.len()..].chars().next();
    let ends = !end.is_some_and(|c| c.is_alphanumeric() || matches!(c, '/' | '^' | '_'));
    (n > 0 && value < factor && ends && smalls.contains(&small.to_ascii_lowercase().as_str())).then(|| {
        let len = rest.len() - after.len() + n + 1 + small.len();
        (len, after[..n].to_owned(), factor, format!("\\text{{{large}}}"))
    })
}

/// A proper fraction after a whole number and one space, making a mixed number (`1 1/2` is `3/2`, as
/// `1\\frac{1}{2}` is): its length and the number's text in LaTeX. Not when more arithmetic follows
/// (`1 1/2 + 3`), nor an improper fraction (`2 3/2` is two values).
fn mixed_len(whole: &str, rest: &str) -> Option<(usize, String)> {
    // `1\\frac{1}{2}` written in prose, or `1 \\frac{1}{2}`.
    let lead = rest.trim_start_matches(' ');
    let latex = ["\\frac{", "\\dfrac{", "\\tfrac{"].iter().find_map(|c| lead.strip_prefix(c));
    // `1\\frac12`: one digit each, without braces.
    let short = ["\\frac", "\\dfrac", "\\tfrac"].iter().find_map(|c| lead.strip_prefix(c)).filter(|r| {
        r.len() >= 2
            && r.as_bytes()[..2].iter().all(u8::is_ascii_digit)
            && !r[2..].starts_with(|c: char| c.is_ascii_digit())
    });
    if let Some(r) = short {
        let (n, d) = (&r[..1], &r[1..2]);
        let after = r[2..].trim_start_matches(' ');
        let bold_end = after.strip_prefix("**").is_some();
        let more = after.starts_with(|c: char| c.is_ascii_digit() || c == '^' || c == '/') && !bold_end;
        return (n < d && n != "0" && !more)
            .then(|| (rest.len() - r.len() + 2, format!("{whole}\\frac{{{n}}}{{{d}}}")));
    }
    let (skip, frac, num, den) = if let Some(r) = latex {
        let num = digits_len(r);
        let den = r.get(num + 2..).map_or(0, digits_len);
        if num == 0 || den == 0 || !r[num..].starts_with("}{") || r.as_bytes().get(num + 2 + den) != Some(&b'}') {
            return None;
        }
        (rest.len() - r.len(), r, num, den)
    } else {
        let frac = rest.strip_prefix(' ')?;
        let num = digits_len(frac);
        let den = frac.get(num + 1..).map_or(0, digits_len);
        if num == 0 || den == 0 || frac.as_bytes()[num] != b'/' {
            return None;
        }
        (1, frac, num, den)
    };
    let close = usize::from(latex.is_some());
    let len = skip + num + 1 + usize::from(latex.is_some()) + den + close;
    // A closing bold after it is markup (`**1 1/2**`).
    let after = frac[num + 1 + close + den + close..].trim_start_matches(' ');
    let after = after.strip_prefix("**").filter(|r| !r.starts_with(|c: char| c.is_ascii_digit())).unwrap_or(after);
    let (n, d) = (&frac[..num], &frac[num + 1 + close..num + 1 + close + den]);
    let proper = n.parse::<u64>().ok()? < d.parse::<u64>().ok()?;
    // A bracket opens more arithmetic only around a number (`1 1/2 (3)`, not `1 1/2 (cups)`).
    let number = |r: &str| r.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    let more = after.starts_with(|c: char| c.is_ascii_digit() || OPERATORS.contains(&c) && !matches!(c, '(' | ')'))
        || after.strip_prefix(['(', '.']).is_some_and(number);
    (proper && !more).then(|| (len, format!("{whole}\\frac{{{n}}}{{{d}}}")))
}

/// A multiplier word after a number (`12 million`): its length and the factor.
fn multiplier_len(rest: &str) -> Option<(usize, &'static str)> {
    let trimmed = rest.trim_start_matches(' ');
    let skipped = rest.len() - trimmed.len();
    for &(word, _, factor) in MULTIPLIERS.iter().filter(|(_, op, _)| *op == '*') {
        // After a space, in any case (`5 Mrd`); a Chinese scale also against the number (`5万`).
        let cjk = !word.is_ascii();
        if skipped == 0 && !cjk {
            continue;
        }
        if let Some(after) =
            trimmed.get(..word.len()).filter(|p| p.eq_ignore_ascii_case(word)).map(|_| &trimmed[word.len()..])
        {
            if cjk || !after.starts_with(|c: char| c.is_alphabetic()) {
                return Some((skipped + word.len(), factor));
            }
        }
    }
    None
}

/// A number at the start of `t`: its length and its value's text (separators removed, `.` as the point).
fn number(t: &str) -> Option<(usize, String)> {
    let neg = usize::from(t.starts_with('-'));
    let body = &t[neg..];
    let lead = digits_len(body);
    let mut text = String::from(if neg == 1 { "-" } else { "" });
    let mut len;
    if lead == 0 {
        // `.5`
        let frac = body.strip_prefix('.').map_or(0, digits_len);
        if neg == 1 || frac == 0 {
            return None;
        }
        text.push_str(&body[..1 + frac]);
        return Some((1 + frac, text));
    }
    text.push_str(&body[..lead]);
    len = lead;
    // Thousands: 1,234,567 or 1 234 567 (a first group of one to three digits, not starting with 0).
    let mut grouped = false;
    let groupable = lead <= 3 && !body.starts_with('0');
    if groupable {
        // LaTeX writes the separator `{,}` (`1{,}000`) so that no space follows the comma.
        while let Some(sep) = [",", " ", "{,}"].iter().find(|sep| body[len..].starts_with(**sep)) {
            let next = &body[len + sep.len()..];
            if digits_len(next) != 3 {
                break;
            }
            text.push_str(&next[..3]);
            len += sep.len() + 3;
            grouped = true;
        }
    }
    // A decimal part: `.5`, or after a comma `12,5` (not a group of three, which was a separator).
    if let Some(sep @ (b'.' | b',')) = body.as_bytes().get(len).copied() {
        let frac = digits_len(&body[len + 1..]);
        if frac > 0 && !(sep == b',' && (grouped || groupable && frac == 3)) {
            text.push('.');
            text.push_str(&body[len + 1..len + 1 + frac]);
            len += 1 + frac;
        }
    }
    // A repeating part in brackets right after a point (`2.(6)`, `0.[3]`): part of the number, as the lexer reads it.
    if let Some(r) = body[len..].strip_prefix('.').filter(|_| !text.contains('.')) {
        let close = match r.as_bytes().first() {
            Some(b'(') => Some(')'),
            Some(b'[') => Some(']'),
            _ => None,
        };
        // (The bracket is one byte: `r[1..]` is a char boundary only then.)
        let period = close.map_or(0, |_| digits_len(&r[1..]));
        if close.is_some_and(|c| period > 0 && r[1 + period..].starts_with(c)) {
            text.push_str(&body[len..len + 3 + period]);
            len += 3 + period;
        }
    }
    Some((neg + len, text))
}

/// An arithmetic expression at the start of `t` (it has an operator after its first digit): `Ok(length)`;
/// else `Err(n)`: no expression starts in the first `n` bytes either (they hold no operator). `bold`: Markdown
/// bold opens right before `t`, so the first `**` in it closes the bold rather than raising to a power.
fn expression(t: &str, bold: bool) -> Result<usize, usize> {
    let skip = t.len() - t.trim_start_matches(['-', '(']).len();
    if skip > 3 || !t[skip..].starts_with(|c: char| c.is_ascii_digit()) {
        return Err(0);
    }
    // Capped, so a long run of digits and spaces is not read again from each of its numbers.
    let mut run = t.len();
    for (k, (i, c)) in t.char_indices().enumerate() {
        if !expr_char(c) || k == MAX_EXPRESSION_CHARS {
            run = i;
            break;
        }
    }
    // Markdown bold is not a power: a `**` that closes a bold opened before, or that is spaced on one side only
    // (`2 **3**`, `12 **1/2**`), ends the expression; `2**3` and `2 ** 3` are powers.
    let markup = t[..run].match_indices("**").map(|(i, _)| i).find(|&i| {
        let after = &t[i + 2..run];
        bold || t[..i].ends_with(' ') != after.starts_with(' ') || after.trim_start().is_empty()
    });
    let run = markup.unwrap_or(run);
    // A bracket after a space and a complete expression opens a remark on it, not a factor (`3/4 (simplified)`,
    // `7/4 (1.75)`; `2 * (3 + 4)` is one expression).
    let remark = t[skip..run]
        .match_indices(" (")
        .map(|(i, _)| skip + i)
        .find(|&i| t[..i].trim_end().ends_with(|c: char| c.is_ascii_digit() || c == ')'));
    let run = remark.unwrap_or(run);
    // Not a sentence's full stop or a closing `**` (bold).
    let body = t[..run].trim_end_matches([' ', '.', '*']);
    let has_operator = body[skip..].trim_start_matches(|c: char| c.is_ascii_digit()).contains(OPERATORS);
    if has_operator && body.len() > skip + 1 {
        Ok(body.len())
    } else {
        // With no operator in the (capped) run, none of the numbers in it starts an expression.
        Err(if has_operator { 0 } else { run })
    }
}

/// What starts at byte `i`: an expression and/or a number (each with its end), longest first; and how far
/// no expression can start (see [`expression`]).
fn at(s: &str, i: usize, expressions: bool) -> (Vec<Found>, usize) {
    // `negative 5` is -5: the word is its sign.
    let negative = negative_len(&s[i..]);
    if negative > 0 {
        let (mut found, plain) = at(s, i + negative, expressions);
        for f in &mut found {
            f.start = i;
            f.text.insert(0, '-');
        }
        return (found, plain);
    }
    // `The answer is - 7`, `Answer: − 7`: a dash, one space and a number after a stating word or a colon is its sign.
    if s[i..].strip_prefix("- ").is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())) {
        // What the dash follows on its line, within a few words (a long line is not scanned back each time).
        let near = super::hedge::window_before(s, i, 64);
        let line = &near[near.rfind('\n').map_or(0, |k| k + 1)..];
        if !line.trim().is_empty() && super::hedge::signs(line) {
            let (mut found, plain) = at(s, i + 2, expressions);
            for f in &mut found {
                f.start = i;
                f.text.insert(0, '-');
            }
            return (found, plain);
        }
    }
    let mut t = &s[i..];
    let mut start = i;
    // A currency sign, also LaTeX's escaped dollar (`\\$18`).
    let sign = t.len() - super::lexer::after_currency(t).len();
    t = &t[sign..];
    start += sign;
    let mut out = Vec::new();
    let mut plain = 0;
    if expressions {
        match expression(t, s[..i].ends_with("**")) {
            Ok(len) => {
                let text = t[..len].replace('×', "*").replace('÷', "/");
                out.push(Found { start, end: start + len, text });
            }
            Err(n) => plain = start + n,
        }
    }
    // A mixed number is one number: not the expression `1 1/2` (a product), `1` with a value beside it, nor
    // (`1 100/101`) a thousands group.
    let unsigned = t.strip_prefix('-').unwrap_or(t);
    let whole = t.len() - unsigned.len() + digits_len(unsigned);
    let mixed = if whole > t.len() - unsigned.len() { mixed_len(&t[..whole], &t[whole..]) } else { None };
    if mixed.is_some() {
        out.clear();
    }
    let read = match mixed {
        Some((n, text)) => Some((whole + n, text, true)),
        None => number(t).map(|(len, text)| (len, text, false)),
    };
    if let Some((len, mut text, is_mixed)) = read {
        let ratio = if is_mixed { 0 } else { ratio_len(&t[len..], &mut text) };
        if ratio > 0 {
            // A time's half of the day is part of it (`3:45 PM` is not `3:45 AM`).
            let half = half_day_len(&t[len + ratio..]).map_or(0, |(n, half)| {
                text.push(' ');
                text.push_str(half);
                n
            });
            let end = start + len + ratio + half;
            if out.first().is_none_or(|e| e.end != end) {
                out.push(Found { start, end, text });
            }
            return (out, plain);
        }
        // `0.333...` in prose repeats its block as in math (`3.14...` is left as written).
        let repeats = (!is_mixed)
            .then(|| text.split_once('.'))
            .flatten()
            .filter(|(_, frac)| super::lexer::repeated_block(frac).is_some())
            .and_then(|_| super::lexer::ELLIPSES.iter().find(|e| t[len..].starts_with(**e)));
        if let Some(ellipsis) = repeats {
            let end = start + len + ellipsis.len();
            out.push(Found { start, end, text: format!("{text}\\ldots") });
            return (out, plain);
        }
        let pct = percent_len(&t[len..]);
        if pct > 0 {
            text.push('%');
        }
        // `12 million` is 12000000 (`5 thousand` is never 5).
        let scale = if pct == 0 { multiplier_len(&t[len..]) } else { None };
        let extra = scale.map_or(0, |(n, factor)| {
            text.push('*');
            text.push_str(factor);
            n
        });
        // `14π`: π written against the number is a factor of it.
        let pi = if pct == 0 && extra == 0 && t[len..].starts_with('π') {
            text.push_str("\\pi");
            'π'.len_utf8()
        } else {
            0
        };
        // `1 km` is not `1 m`: a unit word right after the number goes with it, to be compared with the
        // reference's (the span stays the number's, so the words after it are read as before).
        let mut group_len = 0;
        if pct == 0 && extra == 0 && pi == 0 {
            // An hour and its half of the day (`7 AM`) is a time.
            if let Some((_, half)) = half_day_len(&t[len..]).filter(|_| !text.contains(['.', '/'])) {
                text.push(' ');
                text.push_str(half);
            } else if let Some((n, smaller, factor, unit)) = compound_after(&t[len..]) {
                // `4 hours 30 minutes`, `12 dollars and 50 cents`: one quantity in the larger unit, its span over both.
                text = format!("({text} + {smaller}/{factor}) {unit}");
                group_len = n;
            } else if let Some(unit) = unit_after(&t[len..]) {
                text.push(' ');
                text.push_str(&unit);
            } else if let Some(cent) = ["¢", "￠", "\\textcent", "\\cent"]
                .into_iter()
                .find(|c| t[len..].starts_with(c) && !t[len + c.len()..].starts_with(|c: char| c.is_ascii_alphabetic()))
            {
                // `45¢` is 45 cents.
                text.push_str(cent);
                group_len = cent.len();
            } else if let Some((n, group)) = super::lexer::unit_group_after(&t[len..]) {
                // `7\\,\\mathrm{kN}`, `12\\mathrm{~cm}`: a LaTeX unit group, read with the number and part of its
                // span (its `~` is no range).
                text.push(' ');
                text.push_str(&group);
                group_len = n;
            }
        }
        let end = start + len + pct + extra + pi + group_len;
        if out.first().is_none_or(|e| e.end != end) {
            out.push(Found { start, end, text });
        }
    }
    (out, plain)
}

/// Every number and expression in `s[from..to]`, left to right; after a match the scan goes on at its end.
pub fn scan(s: &str, from: usize, to: usize) -> Vec<Found> {
    let mut out = Vec::new();
    scan_each(s, from, to, |found| out.extend(found));
    out
}

/// [`scan`], handing each start's matches to `f` instead of collecting them all.
pub fn scan_each(s: &str, from: usize, to: usize, mut f: impl FnMut(Vec<Found>)) {
    let mut i = from;
    let mut plain_until = 0;
    while i < to.min(s.len()) {
        let c = s[i..].chars().next().unwrap_or(' ');
        let starts = c.is_ascii_digit()
            || matches!(c, '-' | '(' | '.')
            || currency_sign(c)
            || (c == '\\' || c.is_ascii_uppercase()) && super::lexer::after_currency(&s[i..]).len() < s.len() - i
            || matches!(c, 'n' | 'N') && negative_len(&s[i..]) > 0;
        if starts && may_start(s, i) {
            let (found, plain) = at(s, i, i >= plain_until);
            plain_until = plain_until.max(plain);
            if let Some(end) = found.iter().map(|f| f.end).max() {
                f(found);
                i = end.max(i + c.len_utf8());
                continue;
            }
        }
        i += c.len_utf8();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        scan(s, 0, s.len()).into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(texts("it is 1,234,567."), vec!["1234567"]);
        assert_eq!(texts("about 1000,99 units"), vec!["1000.99"]);
        assert_eq!(texts("x .5 and -3"), vec![".5", "-3"]);
        assert_eq!(texts("is negative 5 and Negative 2.5, not negative x"), vec!["-5", "-2.5"]);
        assert_eq!(texts("costs $100"), vec!["100"]);
        assert_eq!(texts("40 percent of"), vec!["40%"]);
        assert_eq!(texts("Answer: 12 million"), vec!["12*1000000"]);
        assert_eq!(texts("XDY2K"), Vec::<String>::new());
        assert_eq!(texts("**42**"), vec!["42"]);
        assert_eq!(texts("is *42*, _7_ and ***9***; x_2"), vec!["42", "7", "9"]);
        // LaTeX's escaped dollar and its `{,}` group separator, written in prose.
        assert_eq!(texts("pays \\$1,250 in all"), vec!["1250"]);
        assert_eq!(texts("it is 1{,}000{,}000."), vec!["1000000"]);
        // A ratio or a time is one value, never its first part.
        // With its half of the day (`3:45 PM` is not `3:45 AM`), not a word that starts so.
        assert_eq!(texts("Answer: 3:45 pm"), vec!["3:45 pm"]);
        assert_eq!(texts("at 1:58 A.M. and 3:45PM, 3:45 amazing"), vec!["1:58 am", "3:45 pm", "3:45"]);
        assert_eq!(texts("is 1:2:3."), vec!["1:2:3"]);
        assert_eq!(texts("is 2 : 1.5 and 3: 4"), vec!["2:1.5", "3", "4"]);
        // A mixed number is one value; an improper fraction or more arithmetic after it is not one.
        assert_eq!(
            texts("needs 1 1/2 cups, -2 3/4 or 12 5/16."),
            vec!["1\\frac{1}{2}", "-2\\frac{3}{4}", "12\\frac{5}{16}"]
        );
        assert_eq!(texts("is 2 3/2"), vec!["2 3/2", "2"]);
        assert_eq!(texts("is 12 1/2%"), vec!["12\\frac{1}{2}%"]);
        assert_eq!(texts("is 1 100/101"), vec!["1\\frac{100}{101}"]);
        assert_eq!(texts("is 1\\frac{1}{2} and **2 3/4**."), vec!["1\\frac{1}{2}", "2\\frac{3}{4}"]);
        assert_eq!(texts("is 1\\tfrac12 (cups) or -2 3/4 (done)"), vec!["1\\frac{1}{2}", "-2\\frac{3}{4}"]);
    }

    #[test]
    fn expressions() {
        assert_eq!(texts("so 3/4."), vec!["3/4", "3"]);
        assert_eq!(texts("= 2 × (3 + 4) apples"), vec!["2 * (3 + 4)", "2"]);
    }

    #[test]
    fn long_runs_are_scanned_once() {
        let s = "1 ".repeat(100_000);
        let start = std::time::Instant::now();
        assert!(!scan(&s, 0, s.len()).is_empty());
        assert!(start.elapsed().as_secs() < 5);
    }
}
