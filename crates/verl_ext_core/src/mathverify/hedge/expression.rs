//! Is a value part of something larger: an operand of an expression around a box, a restated number, an element
//! of a bracket or list?

use super::*;

/// Is the box at `s[start..end]` an operand of something around it (`\\boxed{5}+1`, `-\\boxed{5}`,
/// `\\frac{\\boxed{5}}{2}`, `\\boxed{5}^2`, `1\\boxed{5}`)? Then its content is not the value written.
pub(super) fn inside_expression(s: &str, start: usize, end: usize) -> bool {
    // Markdown bold around a box (`**Answer:** \\boxed{5}`, `**\\boxed{5}**`) is markup, not a product.
    let after = strip_bold_start(skip_spacing(s[end..].trim_start_matches([' ', '\t', '$'])));
    let after = skip_spacing(after.trim_start_matches([' ', '\t', '$']));
    // A degree sign is a unit (`\\boxed{5}^\\circ`), not a power.
    let degree = ["^\\circ", "^{\\circ}", "^°", "^{°}"].iter().any(|d| after.starts_with(d));
    // Past the math that holds the box (`$\\boxed{42}$!`), `!` is punctuation, not a factorial.
    let closed = ["$", "\\)", "\\]"].iter().any(|c| s[end..].trim_start_matches([' ', '\t']).starts_with(c));
    let exclaimed = closed && after.starts_with('!') && !after.starts_with("!=");
    let operator_after = !degree
        && !exclaimed
        && (after.starts_with([
            '+', '-', '*', '/', '^', '_', '!', '%', '‰', '\'', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '÷',
        ]) || ["\\times", "\\cdot", "\\div", "\\%", "\\pm", "\\mp", "\\cup", "\\cap", "\\setminus", "\\triangle",
            "\\sqcup", "\\uplus", "\\sqcap", "\\parallel", "\\uparrow", "\\vee", "\\wedge", "\\oplus", "\\otimes"]
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
pub(super) const OPERATOR_COMMANDS: &[&str] = &[
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
pub(super) const ENCLOSING_OPENERS: &[&str] =
    &["\\lfloor", "\\lceil", "\\lvert", "\\lVert", "\\vert", "\\Vert", "\\left|", "\\left\\|", "\\bigl|", "\\big|"];

/// Does `before` end in something a box written after it multiplies: a command of [`FACTOR_COMMANDS`]
/// (`\\pi\\boxed{2}`, `\\log\\boxed{72}`) or a group that is an argument (`\\sqrt{2}\\boxed{3}`, `x^{2}\\boxed{3}`),
/// not a `\\text{…}` label (`\\text{Answer: }\\boxed{5}`)?
pub(super) fn factor_before(before: &str) -> bool {
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

/// `text` without a leading Markdown bold marker (`**`, `__`).
pub(super) fn strip_bold_start(text: &str) -> &str {
    text.strip_prefix("**").or_else(|| text.strip_prefix("__")).unwrap_or(text)
}

/// `text` without a trailing Markdown bold marker (`**`, `__`).
pub(super) fn strip_bold_end(text: &str) -> &str {
    text.strip_suffix("**").or_else(|| text.strip_suffix("__")).unwrap_or(text)
}

/// The argument of the box spanning `s[start..end]` (`\\boxed{72}` -> `72`), or the span itself.
pub(super) fn boxed_content(s: &str, start: usize, end: usize) -> &str {
    let span = &s[start..end];
    match (span.find('{'), span.strip_suffix('}')) {
        (Some(open), Some(inner)) if open < inner.len() => &inner[open + 1..],
        _ => span,
    }
}

/// A number's text without spaces, braces and digit-group commas (`1,250` -> `1250`); a comma that is not a
/// group of three digits stays (`1,5` is not 15).
pub(super) fn number_text(text: &str) -> String {
    let t: String = text.chars().filter(|c| !matches!(c, ' ' | '{' | '}')).collect();
    let grouped = t.split(',').skip(1).all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
    if grouped {
        t.replace(',', "")
    } else {
        t
    }
}

/// The number that ends `text` (digits with `.`/`,` inside), normalised by [`number_text`].
pub(super) fn trailing_number(text: &str) -> Option<String> {
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

/// Months, whose day is followed by a comma and the year (`March 5, 2023`).
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// Is the value at `s[start..end]` the last of several values that end its sentence (`So the cost is 5, 6.`,
/// `is \\$5, \\$6`, `1, 2, and 6`, `5 | 6`, `5 → 6`)? The value before it on its line, read as the answer, would be
/// one of several (the same rules: [`listed_next`], [`beside`]), so this one is too. Not a date's year
/// (`March 5, 2023`), nor a value the sentence goes on about (`In 2023, 6 people came to the fair`).
pub fn listed_after_value(s: &str, from: usize, start: usize, end: usize) -> bool {
    // Not the same value said again (`$\\frac{1}{4}$, or 25%`).
    if restated_from(s, start, end).is_some() {
        return false;
    }
    // Its line, within the span the answer is read from (an answer tag's content: the reasoning before the tag is
    // not beside it).
    let window = context_before(s, start);
    let window = &window[window.len().saturating_sub(start.saturating_sub(from))..];
    let line = &window[window.rfind('\n').map_or(0, |i| i + 1)..];
    let Some(last) = line.rfind(|c: char| c.is_ascii_digit()) else { return false };
    let head = line[..last].trim_end_matches(|c: char| c.is_ascii_digit());
    if words_of(head).last().is_some_and(|w| MONTHS.contains(&w.as_str())) {
        return false;
    }
    // The value before is the last term of a computation whose result this one is (`12 + 8 → 20`).
    let operand = head.trim_end_matches([' ', '$', '\\']).trim_end_matches("**").trim_end_matches("__");
    if operand.ends_with(['+', '-', '*', '/', '×', '÷', '·', '−'])
        || ["\\times", "\\cdot", "\\div"].iter().any(|c| operand.ends_with(c))
    {
        return false;
    }
    // Only a few bytes between them: a joining mark or word (`5 vs. 6`, `5, and 6`), not a sentence.
    if line.len() - last > 24 {
        return false;
    }
    let after = &s[start - line.len() + last + 1..];
    // Nothing after it in its sentence but its unit, or the word the value before it has (`5 apples and 6
    // apples.`): else the sentence goes on about it.
    let tail = words_of(clause_after(s, end));
    let noun = noun_after(after);
    let unit = |w: &String| crate::mathverify::lexer::canonical_unit(w).is_some();
    let repeated = tail.len() == 1 && noun.is_some_and(|n| n.eq_ignore_ascii_case(&tail[0]));
    if !(tail.iter().all(unit) && noun.is_none() || repeated) {
        return false;
    }
    several_after(after)
}

/// The largest char boundary <= `i`.
pub(in crate::mathverify) fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
