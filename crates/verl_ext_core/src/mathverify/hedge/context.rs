//! The text around a value: context and clause windows, spacing and markup at their ends, relations and
//! bounding symbols before a value.

use super::*;
use crate::mathverify::lexer::SPACING_COMMANDS;

/// At most `bytes` of `s` before `at` (from a character boundary).
pub(in crate::mathverify) fn window_before(s: &str, at: usize, bytes: usize) -> &str {
    &s[floor_boundary(s, at.saturating_sub(bytes))..at]
}

/// At most `bytes` of `s` after `at` (to a character boundary).
pub(in crate::mathverify) fn window_after(s: &str, at: usize, bytes: usize) -> &str {
    &s[at..floor_boundary(s, s.len().min(at.saturating_add(bytes)))]
}

/// At most [`CONTEXT_BYTES`] of `s` before `at` (from a character boundary).
pub(super) fn context_before(s: &str, at: usize) -> &str {
    window_before(s, at, CONTEXT_BYTES)
}

/// At most [`CONTEXT_BYTES`] of `s` after `at` (to a character boundary).
pub(super) fn context_after(s: &str, at: usize) -> &str {
    window_after(s, at, CONTEXT_BYTES)
}

/// The clause before `at`: back to a clause mark or line break, at most [`CONTEXT_BYTES`].
pub(super) fn clause_before(s: &str, at: usize) -> &str {
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
pub(super) fn soft_break(text: &str, i: usize) -> bool {
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
pub(super) fn clause_after(s: &str, at: usize) -> &str {
    let window = context_after(s, at);
    let cut = window
        .char_indices()
        .find(|&(i, c)| is_clause_mark(c) && c != ',' && c != '?' && !soft_break(window, i))
        .map_or(window.len(), |(i, _)| i);
    &window[..cut]
}

pub(super) fn is_clause_mark(c: char) -> bool {
    matches!(c, ',' | ';' | '.' | '!' | '?' | '\n' | ':')
}

/// LaTeX spacing commands and `\mathrel`: markup between a value and what bounds it.
pub(super) fn spacing() -> impl Iterator<Item = &'static str> {
    SPACING_COMMANDS.iter().copied().chain(["\\mathrel"])
}

/// Commands and groups that print nothing (`\\text{}`, `{}`, `\\mathstrut`).
pub(super) const EMPTY_LAYOUT: &[&str] =
    &["{}", "\\relax", "\\text{}", "{\\,}", "\\thinspace", "\\enspace", "\\negthinspace", "\\mathstrut", "\\strut"];

/// Spacing commands followed by a dimension (`\\kern1pt`, `\\mkern2mu`) or a group (`\\hspace{1pt}`).
pub(super) const DIMENSION_COMMANDS: &[&str] = &["\\hspace", "\\kern", "\\mkern", "\\hskip", "\\mskip", "\\mspace"];

/// `text` past a spacing command with its dimension (`\\kern1pt`, `\\mkern2mu`, `\\hspace{1pt}`), if it starts
/// with one.
pub(super) fn skip_dimension(text: &str) -> &str {
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
pub(super) fn trim_spacing_commands_end(text: &str) -> &str {
    let mut t = text;
    while let Some(next) = spacing().chain(EMPTY_LAYOUT.iter().copied()).find_map(|c| t.strip_suffix(c)) {
        t = next;
    }
    t
}

/// `text` without its trailing spaces, spacing commands and empty groups (`2\\!\\!`, `2\\hspace{1pt}`, `2{\\,}`).
pub(super) fn trim_spacing_end(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_end_matches(invisible);
        let next = spacing().chain(EMPTY_LAYOUT.iter().copied()).find_map(|c| next.strip_suffix(c)).unwrap_or(next);
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
pub(super) fn skip_spacing_commands(text: &str) -> &str {
    let mut t = text;
    while let Some(next) = spacing().chain(EMPTY_LAYOUT.iter().copied()).find_map(|c| t.strip_prefix(c)) {
        t = next;
    }
    t
}

/// `text` past spaces, invisible characters and spacing commands (`\\,`, `\\;`, `\\quad`), on its line.
pub fn skip_spacing(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_start_matches(invisible);
        let next = spacing().chain(EMPTY_LAYOUT.iter().copied()).find_map(|c| next.strip_prefix(c)).unwrap_or(next);
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
pub(super) fn ratio_after(after: &str, value: &str) -> bool {
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
pub(super) fn computes(line: &str, value: &str) -> bool {
    let line = &line[..floor_boundary(line, line.len().min(64))];
    let cut = [", ", ". ", ";", "$"].iter().filter_map(|m| line.find(m)).min().unwrap_or(line.len());
    let expr = line[..cut].trim().trim_end_matches('.');
    let operator =
        expr.contains(['+', '-', '×', '*', '·', '/', '÷', '−']) || expr.contains("\\times") || expr.contains("\\cdot");
    operator && super::super::equiv::judge_within_budget(expr, value, &super::super::Options::default()).equal
}

/// The value of an answer span for [`ratio_after`]: a box's argument, a math block's inside, or prose.
pub(super) fn answer_value(span: &str) -> &str {
    let t = span.trim().trim_matches('$');
    let t = ["\\boxed", "\\fbox"].iter().find_map(|c| t.strip_prefix(c)).unwrap_or(t).trim_start();
    t.strip_prefix('{').and_then(|r| r.strip_suffix('}')).unwrap_or(t).trim()
}

/// `text` without trailing spaces, `$`, braces and math delimiters.
pub(super) fn strip_markup_end(text: &str) -> &str {
    let mut t = text;
    loop {
        // `≈ \\$43`, `≈ £43`: a currency sign belongs to the amount (read before `$` is taken for a delimiter).
        let next = crate::mathverify::lexer::before_currency(t.trim_end());
        let next = next.trim_end().trim_end_matches(['$', '{', '(', '[']);
        let next = next.strip_suffix("\\(").or_else(|| next.strip_suffix("\\[")).unwrap_or(next);
        let next = next.strip_suffix("\\left").unwrap_or(next);
        let next = next.strip_suffix("**").unwrap_or(next);
        let next = spacing().find_map(|c| next.strip_suffix(c)).unwrap_or(next);
        let next = strip_layout_end(next);
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

/// Commands that only lay out (`\\phantom{0}`, `\\hspace{1cm}`, `\\kern1em`, `\\displaystyle`, `\\tag{1}`,
/// `\\label{eq}`, a line break `\\\\`, an alignment `&`, an empty group `{}`), stripped from the end of `text` once.
pub(super) fn strip_layout_end(text: &str) -> &str {
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
pub(super) const LAYOUT: &[&str] = &[
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

pub(super) fn strip_markup_start(text: &str) -> &str {
    let mut t = text;
    loop {
        let next = t.trim_start().trim_start_matches(['$', '}', ')', ']']);
        let next = next.strip_prefix("\\)").or_else(|| next.strip_prefix("\\]")).unwrap_or(next);
        let next = next.strip_prefix("**").unwrap_or(next);
        let next = spacing().chain(TEXT_GROUPS.iter().copied()).find_map(|c| next.strip_prefix(c)).unwrap_or(next);
        if next.len() == t.len() {
            return t;
        }
        t = next;
    }
}

pub(super) fn ends_with_relation(before: &str) -> bool {
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
pub(in crate::mathverify) fn bounding_symbol(c: char) -> bool {
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
pub(super) fn trailing_command(text: &str) -> Option<(&str, &str)> {
    let name_len = text.len() - text.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len();
    let head = text[..text.len() - name_len].strip_suffix('\\')?;
    (name_len > 0).then(|| (&text[text.len() - name_len..], head))
}

/// A relation command that bounds or denies (`\lneqq`, `\gneq`, `\nsim`, `\ncong`, `\nleqslant`, `\succeq`,
/// `\preceq`, `\subset`, `\supseteq`, `\lesssim`): a negated relation (`\n…`) or one of the order, subset
/// and precedence families, by the roots of their names (LaTeX and amssymb name them so).
pub(in crate::mathverify) fn bounding_command(name: &str) -> bool {
    const ROOTS: &[&str] =
        &["leq", "geq", "neq", "less", "gtr", "succ", "prec", "subset", "supset", "sim", "approx", "cong"];
    const WHOLE: &[&str] = &["le", "ge", "ne", "lt", "gt", "ll", "gg", "lll", "ggg", "lneq", "gneq", "nless", "ngtr"];
    let bounding = |n: &str| WHOLE.contains(&n) || ROOTS.iter().any(|r| n.contains(r));
    // `\nmid`, `\nsim`, `\nleq`: a negation of a relation (the root test keeps `\nu`, `\nabla` out).
    bounding(name) || name.strip_prefix('n').is_some_and(|n| bounding(n) || matches!(n, "mid" | "parallel" | "equiv"))
}
