//! What a model's whole completion holds around its answer, read before the answer is looked for:
//!
//! - **Special tokens** (`<|im_end|>`, `<|eot_id|>`, `</s>`, `<eos>`, `<｜end▁of▁sentence｜>`): a pipeline that
//!   decodes without skipping them leaves them in. Generation ends at an end-of-sequence token, so the text is
//!   cut at the first one (a turn the model goes on to invent is not its answer); any other special token
//!   becomes a space, so it hides no word from the reading around the answer (`not<|x|>5` is `not 5`), or
//!   nothing between two letters, where it splits a word (`n<|pad|>ot` is "not").
//! - **Where the answer may be** ([`answer_span`]): in the last answer tag (`<answer>`, `<SOLUTION>`) after the
//!   reasoning, else after the last closing reasoning tag (`</think>`, `</reasoning>`, `<end_working_out>`),
//!   else anywhere. Tags become spaces of the same length, so the answer is found
//!   inside its span while the words around it — before the tag, after it — are still read for hedges and
//!   revisions (`at least <answer>5</answer>`, `<answer>5</answer> That is wrong.` earn nothing).
//! - **Degenerate endings**: a repetition loop up to the last byte ([`tail_loop`]; a loop of remarks alone is cut
//!   off instead, [`without_idle_loop`]), and a drift into a new question the model invents and answers after
//!   answering the one asked ([`drifts`]).
//!
//! Every scan is linear in the text.

use std::borrow::Cow;

use super::extract::GSM8K_MARK;
use super::hedge::floor_boundary;
use super::markup;

/// Longest `<|…|>` token read as a special token (bytes between the bars); longer spans are text.
const MAX_TOKEN_NAME: usize = 48;
/// Tokens that end generation: the text after the first one is not the model's answer.
const END_TOKENS: &[&str] = &[
    "<|im_end|>",
    "<|eot_id|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|end|>",
    "<|eom_id|>",
    "<｜end▁of▁sentence｜>",
    "</s>",
    "<eos>",
    "<EOS>",
    "<end_of_turn>",
    "<eot>",
    // GAOKAO-Bench's end of answer.
    "<eoa>",
];
/// Tokens that open a turn: after the completion's first words, the model has ended its own turn and invents the
/// next one (`<|im_start|>user`), so the text is cut there as at an end token; at its start they are a space.
const TURN_TOKENS: &[&str] =
    &["<|im_start|>", "<|user|>", "<|assistant|>", "<|system|>", "<|start_header_id|>", "<start_of_turn>"];
/// Other tokenizers' markers written in angle brackets, read as a space (Gemma's `<start_of_turn>` is in
/// [`TURN_TOKENS`]).
const NAMED_TOKENS: &[&str] = &["<s>", "<bos>", "<BOS>", "<pad>", "<eoe>"];

/// The text cut at its first end-of-sequence token, with other special tokens replaced by a space; borrowed
/// when it has none. A token between two letters splits a word (`n<|pad|>ot`) or separates two (`at<|pad|>least`):
/// `join` reads it as nothing, as a decoder skipping special tokens does, else as a space. The flag says whether
/// any token stood between two letters (the text then has two readings).
pub fn strip_special_tokens(s: &str, join: bool) -> (Cow<'_, str>, bool) {
    if !s.contains("<|") && !s.contains("<｜") && !angle_tokens().any(|t| s.contains(t)) {
        return (Cow::Borrowed(s), false);
    }
    let mut split = false;
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let (mut words, mut checked) = (false, 0);
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let at = &rest[lt..];
        let len = special_token_len(at);
        // Words before it: only what was written since the last token is looked at, so the scan stays linear.
        words |= !out[checked..].trim().is_empty();
        checked = out.len();
        let turn = words && TURN_TOKENS.contains(&&at[..len]);
        if len > 0 && (END_TOKENS.contains(&&at[..len]) || turn) {
            return (Cow::Owned(out), split);
        }
        if len > 0 && template_tag(&at[..len]) {
            out.push_str(&at[..len]);
            rest = &at[len..];
        } else if len > 0 {
            // Elsewhere a space: `not<|x|>5` is `not 5`.
            let between = out.ends_with(char::is_alphabetic) && at[len..].starts_with(char::is_alphabetic);
            split |= between;
            if !(between && join) {
                out.push(' ');
            }
            rest = &at[len..];
        } else {
            out.push('<');
            rest = &at[1..];
        }
    }
    out.push_str(rest);
    (Cow::Owned(out), split)
}

/// Is `token` one of the reasoning or answer tags that a template writes as a special token
/// (`<|begin_of_thought|>`)? It is kept for [`answer_span`] to read.
pub(super) fn template_tag(token: &str) -> bool {
    REASONING_TAGS.iter().chain(ANSWER_TAGS).any(|&(open, close)| token == open || token == close)
}

/// The length of the special token at the start of `at` (which starts with `<`), or 0.
fn special_token_len(at: &str) -> usize {
    // `<|name|>`, and DeepSeek's fullwidth-bar form `<｜end▁of▁sentence｜>`.
    for bar in ["|", "｜"] {
        let Some(name) = at.strip_prefix('<').and_then(|r| r.strip_prefix(bar)) else { continue };
        let window = &name[..floor_boundary(name, name.len().min(MAX_TOKEN_NAME * 3))];
        let Some(k) = window.find(bar) else { return 0 };
        // A name of token characters only (no spaces: `<|x| > 2` is math).
        let token = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '▁');
        let closed = name[k..].strip_prefix(bar).is_some_and(|r| r.starts_with('>'));
        // At least two characters (`<|x|>` may be `|x| < |x| > …` squeezed together).
        return if k > 1 && closed && name[..k].chars().all(token) { 1 + bar.len() + k + bar.len() + 1 } else { 0 };
    }
    angle_tokens().find(|t| at.starts_with(*t)).map_or(0, |t| t.len())
}

/// Every special token written in angle brackets without bars (`</s>`, `<pad>`, `<start_of_turn>`).
fn angle_tokens() -> impl Iterator<Item = &'static str> {
    END_TOKENS.iter().chain(NAMED_TOKENS).chain(TURN_TOKENS).copied().filter(|t| !t.starts_with("<|"))
}

/// Where the answer of a completion is read, and the text it is read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span<'a> {
    /// The completion with its reasoning and answer tags, and any other XML-like tag, replaced by spaces of the
    /// same length (offsets are kept).
    pub text: Cow<'a, str>,
    /// The byte range the answer must lie in.
    pub start: usize,
    pub end: usize,
    /// The range is the content of an answer tag (read whole when it is one bare answer).
    pub tag: bool,
}

/// Tag pairs (open, close) that hold reasoning, as templates write them: `<think>` (DeepSeek-R1 and the R1-Zero
/// template), `<thinking>`, `<reasoning>` (TRL's and Unsloth's GRPO examples), Unsloth's
/// `<start_working_out>`/`<end_working_out>`, and OpenThoughts' `<|begin_of_thought|>`/`<|end_of_thought|>`.
const REASONING_TAGS: &[(&str, &str)] = &[
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<reasoning>", "</reasoning>"),
    ("<start_working_out>", "<end_working_out>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
];
/// Tag pairs that hold the answer: `<answer>` (R1-Zero, TRL), `<solution>` (Unsloth writes `<SOLUTION>`) and
/// OpenThoughts' `<|begin_of_solution|>`.
const ANSWER_TAGS: &[(&str, &str)] =
    &[("<answer>", "</answer>"), ("<solution>", "</solution>"), ("<|begin_of_solution|>", "<|end_of_solution|>")];

/// Most bytes of text (trimmed) after the answer of a reasoning that an answer tag ends rather than its closing
/// tag (`<think>… <answer>18</answer>` and a stray word): more is reasoning going on after the tag.
const MAX_TAIL_AFTER_TAG: usize = 100;
/// Empty answer tags skipped from the end before the tag read is taken as the last (bounds the scan).
const MAX_EMPTY_TAGS: usize = 8;
const CUT_AT_ANSWER: &str = "the text stops where its answer begins (cut off)";
/// The reason given when the model drifts into a new question after its answer.
pub const DRIFTS: &str = "a drift into a new question after the answer";
const NEVER_ENDS: &str = "the reasoning never ends (a reasoning tag without its closing tag)";

/// Where the answer of a completion is read: the last answer tag after the reasoning, up to its closing tag or
/// the end (a stop string often cuts the closing tag off); else what follows the end of the reasoning; else the
/// whole text. The reasoning ends at its closing tag, or, where a model never writes one, at the first answer
/// tag after it (`<think>… <answer>18`, `<reasoning>… </answer> 96 pounds`) when little text follows the
/// answer. Reasoning cut off before any answer, and an answer tag inside the reasoning that goes on after it,
/// leave no answer: `Err` with the reason.
pub fn answer_span(s: &str) -> Result<Span<'_>, &'static str> {
    let lower = s.to_ascii_lowercase();
    // A reasoning tag closed again after a closed answer tag, with nothing after it (`<answer>5</answer></think>`),
    // is stray: the reasoning is read as if it were not there.
    let lowered = lower.as_str();
    let closers = |upto: usize| {
        REASONING_TAGS.iter().filter_map(|(_, t)| lowered[..upto].rfind(t).map(|i| (i, i + t.len()))).max()
    };
    let stray = closers(lower.len()).filter(|&(at, end)| {
        lower[end..].trim().is_empty() && ANSWER_TAGS.iter().any(|(_, close)| lower[..at].trim_end().ends_with(close))
    });
    let reasoning_end = stray.map_or(lower.len(), |(at, _)| at);
    let think_end = closers(reasoning_end).map(|(_, end)| end);
    let think_open = REASONING_TAGS.iter().filter_map(|(t, _)| lower[..reasoning_end].rfind(t)).max();
    let unclosed = think_open.filter(|&open| think_end.is_none_or(|end| open >= end));
    let after_thinking = match unclosed {
        None => think_end.unwrap_or(0),
        // The first answer tag after the open reasoning ends it: an opening one where it starts, a closing one
        // where it ends.
        Some(open) => {
            let first = ANSWER_TAGS
                .iter()
                .flat_map(|&(o, c)| [(o, 0), (c, c.len())])
                .filter_map(|(t, skip)| lower[open..].find(t).map(|i| open + i + skip))
                .min();
            first.ok_or(NEVER_ENDS)?
        }
    };
    // An empty answer tag (`The answer is 72. <SOLUTION></SOLUTION>`) is read as not written.
    let filled = |at: usize, open: &str, close: &str| {
        let inner = &lower[at + open.len()..];
        !inner[..inner.find(close).unwrap_or(inner.len())].trim().is_empty()
    };
    let tag = ANSWER_TAGS
        .iter()
        .filter_map(|&(open, close)| {
            let last = lower.rmatch_indices(open).map(|(at, _)| at).take_while(|&at| at >= after_thinking);
            last.take(MAX_EMPTY_TAGS).find(|&at| filled(at, open, close)).map(|at| (at, open, close))
        })
        .max();
    let (start, end, rest) = match tag {
        Some((at, open, close)) => {
            let from = at + open.len();
            // An opening tag written where the closing one was meant (`<answer>5<answer>`) ends the answer too.
            let end = [close, open].iter().filter_map(|t| lower[from..].find(t)).min().map_or(s.len(), |i| from + i);
            (from, end, (end + close.len()).min(reasoning_end))
        }
        None => (after_thinking, reasoning_end, after_thinking),
    };
    // A new question between an earlier answer tag and the last (`<answer>5</answer>`, `Human: …`, `<answer>6`).
    if let Some((at, _, close)) = tag {
        let earlier = lower[after_thinking..at].rfind(close).map(|i| after_thinking + i);
        if earlier.is_some_and(|e| lower[e..at].split_inclusive('\n').skip(1).any(opens_question)) {
            return Err(DRIFTS);
        }
    }
    if unclosed.is_some() && s[rest..].trim().len() > MAX_TAIL_AFTER_TAG {
        return Err(NEVER_ENDS);
    }
    // An answer tag opened last and cut off before anything was written in it (`… = 23 apples.\n\n<answer>`).
    let opened_empty = ANSWER_TAGS.iter().any(|&(open, close)| {
        lower.rfind(open).is_some_and(|at| {
            at >= after_thinking && lower[at + open.len()..].trim().is_empty() && tag.is_none_or(|(t, ..)| t >= at)
        }) && !lower.ends_with(close)
    });
    if opened_empty {
        return Err(CUT_AT_ANSWER);
    }
    let text = if lower.contains('<') { Cow::Owned(blank_tags(s, &lower)) } else { Cow::Borrowed(s) };
    Ok(Span { text, start, end, tag: tag.is_some() })
}

/// `s` with every tag replaced by as many spaces: the reasoning and answer tags (`<|…|>` ones included) and
/// any XML-like tag ([`markup::tag_len`]), so `</reasoning>` before an answer is no `>` bounding it.
fn blank_tags(s: &str, lower: &str) -> String {
    let mut out = s.as_bytes().to_vec();
    for tag in REASONING_TAGS.iter().chain(ANSWER_TAGS).flat_map(|&(open, close)| [open, close]) {
        for (i, _) in lower.match_indices(tag) {
            out[i..i + tag.len()].fill(b' ');
        }
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'<', &bytes[i..]) {
        let at = i + k;
        let len = markup::tag_len(&bytes[at..]).map_or(0, |(len, _)| len);
        out[at..at + len].fill(b' ');
        i = at + len.max(1);
    }
    // Only ASCII bytes of ASCII tags were replaced by ASCII spaces.
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// What a text cut off at its answer ends on, once trailing markup is dropped: an answer's label, or a
/// lead-in that a value must follow.
const ANSWER_LABELS: &[&str] = &["answer", "final result", "result", "final", "solution", "答案", "ответ"];
/// Longest heading read as an answer's label (`**Final Answer**`), bytes without its markup.
pub(super) const MAX_LABEL_LINE: usize = 40;
/// Lines that are an answer's heading alone (`**Final Answer**`, `## Answer`), and the words of an answer's
/// label before its colon (`Final answer:`).
pub(super) const LABEL_LINES: &[&str] =
    &["answer", "the answer", "final answer", "the final answer", "final result", "result", "答案", "ответ"];
/// Chinese lead-ins that a value must follow (`答案是`, `答案为`).
const CJK_LEADS: &[&str] = &["答案是", "答案为", "答案為", "结果是", "结果为"];
pub(super) const ANSWER_LEADS: &[&str] =
    &["answer is", "answers are", "answer would be", "answer will be", "answer should be", "result is", "solution is"];
/// Markup a text may end on after an answer's label: an opening delimiter or box.
const OPENERS: &[&str] = &["\\boxed", "\\fbox", "\\[", "\\(", "\\text", "\\textbf", "\\mathbf", "[", "("];

/// Does the text stop where its answer was to be written (`**Answer:**`, `So the answer is`, `#### `,
/// `**Final Answer**\n\\[\n\\boxed{`)? Reasoning cut off at its answer states none: the last number before
/// the label is not it. A label that ends a sentence (`so 42 is the answer`) is not cut off.
pub fn cut_at_answer(s: &str) -> bool {
    let mut t = s.trim_end();
    if t.ends_with(GSM8K_MARK) || in_open_box(t) {
        return true;
    }
    let mut marked = false;
    loop {
        let before = t.len();
        for opener in OPENERS {
            if let Some(rest) = t.strip_suffix(opener) {
                (t, marked) = (rest, true);
            }
        }
        // The first marks of a value or an equation (`Answer: -`, `Answer: x =`, an opening quote).
        let kept = t.trim_end_matches(|c: char| c.is_whitespace() || "*${=-−+`\"“'".contains(c));
        // `Answer: x =`: a variable and its `=` (not `**Answer: C**`, a choice given).
        let equals = t[kept.len()..].contains('=');
        let kept = match kept.strip_suffix(|c: char| c.is_ascii_alphabetic()) {
            Some(rest) if equals && rest.trim_end().ends_with([':', '：']) => rest.trim_end(),
            _ => kept,
        };
        marked |= kept.ends_with([':', '：']);
        t = kept.trim_end_matches([':', '：']);
        if t.len() == before {
            break;
        }
    }
    let tail = &t[floor_boundary(t, t.len().saturating_sub(24))..];
    let lower = tail.to_lowercase();
    let ends = |lead: &&str| lower.strip_suffix(lead).is_some_and(|head| !head.ends_with(char::is_alphanumeric));
    let heading = label_line(&t[t.rfind('\n').map_or(0, |i| i + 1)..]);
    // Chinese writes no space before its lead (`所以答案是`).
    let cjk_lead = CJK_LEADS.iter().any(|lead| t.ends_with(lead));
    ANSWER_LEADS.iter().any(ends) || marked && ANSWER_LABELS.iter().any(ends) || heading || cjk_lead
}

/// Does the text stop inside a box it opened last (`… the answer is $\\boxed{5`): the answer was being written?
fn in_open_box(t: &str) -> bool {
    let Some(at) = ["\\boxed{", "\\fbox{"].iter().filter_map(|b| t.rfind(b).map(|i| i + b.len())).max() else {
        return false;
    };
    let mut depth = 1usize;
    for c in t[at..].bytes() {
        match c {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return false;
        }
    }
    true
}

/// Is `line` an answer's heading alone, its value to come on the lines below (`**Final Answer**`, `## Answer`,
/// `Answer:`, `**Answer**:`)?
pub fn label_line(line: &str) -> bool {
    let markup = |c: char| c.is_whitespace() || matches!(c, '#' | '*' | '_');
    let line = line.trim_matches(markup);
    let line = line.strip_suffix([':', '：']).unwrap_or(line).trim_matches(markup);
    line.len() <= MAX_LABEL_LINE && LABEL_LINES.contains(&line.to_lowercase().as_str())
}

/// Line starts that open a new question (`Question:`, `Problem 2:`, `Subproblem 40:`), besides the
/// [`TURN_MARKERS`] that open a chat turn.
const QUESTION_MARKERS: &[&str] = &[
    "question",
    "q:",
    "q",
    "problem",
    "subproblem",
    "preamble:",
    "exercise",
    "example",
    "instruction:",
    "next question",
    "next problem",
    "new question",
    "new problem",
    "another question",
    "another problem",
    "follow-up:",
    "follow up:",
];
/// A chat role's name alone on its line: a turn the model invents.
const ROLE_LINES: &[&str] = &["user", "human", "assistant"];
/// Words that state an answer (`\boxed`, `final answer`, `answer:`, `answer is`).
const STATEMENTS: &[&str] = &["\\boxed", "\\fbox", "final answer", "answer:", "answer is"];

/// Does the model, after stating an answer, start a new question on a line of its own and answer that too?
/// Then the last answer is not the one asked for, and the first was not its last word: no answer.
pub fn drifts(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let Some(first) = STATEMENTS.iter().filter_map(|m| lower.find(m)).min() else { return false };
    let Some(rest) = lower.get(first..) else { return false };
    let mut offset = first;
    for (k, line) in rest.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += line.len();
        if k == 0 {
            continue;
        }
        if opens_question(line) {
            // In a turn the model invents for a user (`User: Are you sure?` then `No, it is 43.`), any number is
            // another answer.
            let rest = &lower[line_start..];
            return STATEMENTS.iter().any(|m| rest.contains(m))
                || opens_turn(line) && rest.contains(|c: char| c.is_ascii_digit());
        }
    }
    false
}

/// Does this line (lowercase) open a new question or turn: a marker with its number and a colon or point
/// (`Question 2:`, `Q2.`, `**Problem 3**`, `Example 2.`), a labelled one (`Human:`, `Next question:`,
/// `### Instruction:`, `[INST]`), or a chat role's name alone (`user`)?
fn opens_question(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '#' | '*'));
    QUESTION_MARKERS.iter().chain(TURN_MARKERS).any(|m| {
        t.strip_prefix(m).is_some_and(|r| {
            let numbered = r.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
            m.ends_with([':', ']'])
                || numbered.starts_with([':', '.', '*', ')'])
                // `Question 2` alone on its line.
                || r.starts_with(' ') && r.trim_start().starts_with(|c: char| c.is_ascii_digit()) && numbered.trim().is_empty()
        })
    }) || ROLE_LINES.contains(&t.trim_end_matches(|c: char| c.is_whitespace() || c == ':'))
}

/// Does this line (lowercase) open a chat turn (`User:`, `Human:`, `[INST]`, `Input:`, a role's name alone)?
fn opens_turn(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '#' | '*'));
    TURN_MARKERS.iter().any(|m| t.starts_with(m))
        || ROLE_LINES.contains(&t.trim_end_matches(|c: char| c.is_whitespace() || c == ':'))
}

/// Line starts that open a chat turn the model invents (`User:`, `[INST]`), a new question as well.
const TURN_MARKERS: &[&str] = &["human:", "user:", "[inst]", "input:", "prompt:", "gpt4 correct user:", "<human>:"];

/// Shortest repeated tail that is a loop (bytes): a short echo (`5. 5.`) is not one.
pub const MIN_LOOP_BYTES: usize = 240;
/// Copies of the repeated passage a loop has at least.
pub const MIN_LOOP_COPIES: usize = 3;
/// Bytes of the end looked for earlier in the text: the period of a loop is the distance to an earlier copy.
const PROBE: usize = 24;
/// Earlier copies of the probe tried as a period (the nearest first); a loop's own period is among the first.
const MAX_PERIODS: usize = 8;

/// Where a repetition loop at the end of the text starts, and its period (bytes), if it ends in one.
pub fn tail_loop(s: &str) -> Option<(usize, usize)> {
    let b = s.trim_end().as_bytes();
    let n = b.len();
    if n < MIN_LOOP_BYTES {
        return None;
    }
    let probe = &b[n - PROBE..];
    let mut end = n - 1;
    for _ in 0..MAX_PERIODS {
        // The nearest earlier copy of the probe ending before `end`.
        let at = rfind(&b[..end], probe)?;
        let period = n - PROBE - at;
        let need = (period * MIN_LOOP_COPIES).max(MIN_LOOP_BYTES);
        if need <= n && (n - need..n - period).all(|i| b[i] == b[i + period]) {
            let mut start = n - need;
            while start > 0 && b[start - 1] == b[start - 1 + period] {
                start -= 1;
            }
            return Some((start, period));
        }
        end = at + PROBE - 1;
    }
    None
}

/// The text with a repetition loop that repeats no number and no answer statement (a closing remark such as
/// `[Note: double-check the calculations…]` over and over after the answer) written once: the answer before
/// it is read as if the passage were said once, so a loop never cancels what one copy says of the answer (`Wait,
/// it is six.` or `not` over and over revises or negates it, as once). `Err` when the loop repeats a number or
/// an answer (`The answer is 5.` over and over): a degenerate output, no answer.
pub fn without_idle_loop(s: &str) -> Result<&str, &'static str> {
    let Some((start, period)) = tail_loop(s) else { return Ok(s) };
    let t = s.trim_end();
    let passage = &t.as_bytes()[t.len() - period..];
    let lower = passage.to_ascii_lowercase();
    let states = |w: &[u8]| lower.windows(w.len()).any(|x| x == w);
    if passage.iter().any(u8::is_ascii_digit) || states(b"boxed") || states(b"answer") {
        return Err("a repetition loop at the end");
    }
    // The copies end where the last one does: keep the loop's start up to the end of its first whole copy.
    let cut = start + (t.len() - start) % period + period;
    Ok(&s[..floor_boundary(s, cut.min(t.len()))])
}

/// The start of the last occurrence of `needle` in `hay`.
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if hay.len() < needle.len() {
        return None;
    }
    // A needle of PROBE bytes: at most PROBE × len comparisons.
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_tokens_end_the_text_or_become_spaces() {
        assert_eq!(strip_special_tokens("14<|eot_id|>", false).0, "14");
        assert_eq!(strip_special_tokens("so 5.</s> and more", false).0, "so 5.");
        assert_eq!(strip_special_tokens("<|im_start|>assistant x<|im_end|>\\boxed{6}", false).0, " assistant x");
        assert_eq!(strip_special_tokens("not<|pad_x|>5", false).0, "not 5");
        assert_eq!(strip_special_tokens("|x| < 2 and <|not a token|>", false).0, "|x| < 2 and <|not a token|>");
        assert_eq!(strip_special_tokens("a <| b", false).0, "a <| b");
        assert_eq!(strip_special_tokens("x = 2<｜end▁of▁sentence｜>", false).0, "x = 2");
        assert_eq!(strip_special_tokens("【答案】 10 <eoa>", false).0, "【答案】 10 ");
        assert!(matches!(strip_special_tokens("x < 2", false).0, Cow::Borrowed(_)));
        assert_eq!(strip_special_tokens("n<|pad|>ot at<|pad|>least", true), (Cow::Borrowed("not atleast"), true));
        assert_eq!(strip_special_tokens("n<|pad|>ot 5", false), (Cow::Borrowed("n ot 5"), true));
        assert_eq!(strip_special_tokens("x<|pad|> 5", true), (Cow::Borrowed("x  5"), false));
    }

    #[test]
    fn the_answer_span() {
        let span = |s| answer_span(s).map(|a| (a.text[a.start..a.end].to_owned(), a.tag));
        assert_eq!(span("<think>a</think> <answer> 15 </answer>"), Ok((" 15 ".into(), true)));
        assert_eq!(span("<answer>1</answer> then <ANSWER>2</ANSWER>"), Ok(("2".into(), true)));
        assert_eq!(span("<think>x</think><answer> 4"), Ok((" 4".into(), true)));
        assert_eq!(span("<think>it is 4</think> So \\boxed{5}."), Ok((" So \\boxed{5}.".into(), false)));
        assert_eq!(span("plain 5"), Ok(("plain 5".into(), false)));
        // A tag inside the reasoning is reasoning; a think never closed has no answer.
        assert_eq!(span("<think><answer>4</answer></think> so 5"), Ok((" so 5".into(), false)));
        assert!(span("<think>so far 4 and").is_err());
        // Reopened right where it closed: still open.
        assert!(span("<think>4</think><think>so 5").is_err());
        // A reasoning never closed ends at an answer tag after it, when little follows the answer.
        assert_eq!(span("<think>so far <answer>4</answer>"), Ok(("4".into(), true)));
        // An empty answer tag is read as not written.
        let empty = answer_span("The answer is 72. <SOLUTION></SOLUTION>").unwrap();
        assert_eq!((empty.text[empty.start..empty.end].trim(), empty.tag), ("The answer is 72.", false));
        assert_eq!(span("<answer>5</answer> <answer> </answer>"), Ok(("5".into(), true)));
        assert_eq!(span("<think>so 18.\n<answer>\nShe makes $18."), Ok(("\nShe makes $18.".into(), true)));
        assert_eq!(span("<reasoning>so 96.\n</answer>\n96 pounds"), Ok(("\n96 pounds".into(), false)));
        let going_on = format!("<think>maybe <answer>4</answer> {}", "then we check the other case. ".repeat(5));
        assert!(span(&going_on).is_err());
        let after_close = format!("<reasoning>x</answer>{}", "and 5 more. ".repeat(10));
        assert!(span(&after_close).is_err());
        assert!(span("<thinking>so far 4").is_err());
        assert_eq!(span("<thinking>4</thinking> so 5"), Ok((" so 5".into(), false)));
        // The tags are blanked in place: what surrounds them is still there to read.
        let s = answer_span("at least <answer>5</answer>").unwrap();
        assert_eq!(s.text, "at least         5         ");
        // Other templates' tags: TRL's `<reasoning>`, Unsloth's working-out and `<SOLUTION>`, OpenThoughts'.
        assert_eq!(span("<reasoning>x</reasoning>\n<answer>53</answer>"), Ok(("53".into(), true)));
        assert_eq!(span("a<end_working_out><SOLUTION>76</SOLUTION>"), Ok(("76".into(), true)));
        assert_eq!(span("<start_working_out>a<end_working_out> so 7"), Ok((" so 7".into(), false)));
        assert!(span("<reasoning>so far 4 and").is_err());
        assert!(span("So 40.\n\n<reasoning>\n1. Calculate").is_err());
        let thought = strip_special_tokens(
            "<|begin_of_thought|>4<|end_of_thought|><|begin_of_solution|>5<|end_of_solution|>",
            false,
        )
        .0;
        assert_eq!(span(&thought), Ok(("5".into(), true)));
        // Any XML-like tag is markup, blanked like the known ones; one letter between brackets may be math.
        let s = answer_span("x</reasoning>\n<answer>5</answer><br/></Final-Answer>").unwrap();
        assert_eq!(s.text.split_whitespace().collect::<Vec<_>>(), ["x", "5"]);
        assert!(answer_span("0<a>5 and a<bc>d").unwrap().text.contains("0<a>5 and a    d"));
        assert_eq!(answer_span("<answer><b>23</b></answer>").unwrap().text.trim(), "23");
        assert_eq!(answer_span(&markup::render("<answer>17 <!-- 23 --></answer>", true).0).unwrap().text.trim(), "17");
        assert_eq!(answer_span(&markup::render("so 17 <!-- 23", true).0).unwrap().text.trim(), "so 17");
        assert!(answer_span("x<y and y>2").unwrap().text.contains("x<y and y>2"));
    }

    #[test]
    fn texts_cut_off_at_their_answer() {
        for s in [
            "so she has 10 + 13 = 23 apples.\n\n**Answer:**",
            "= 23 apples.\n\nSo the answer is:",
            "= 23 apples.\n\nSo the answer is",
            "= 23.\n\n#### ",
            "= 23 apples.\n\n**Final Answer**\n\\[\n\\boxed{",
            "So 10 + 13 = 23. Hence the answer is $",
            "Final answer: \\boxed{",
            "所以 23。\n答案：",
            "17 + 42 = 59.\n\nAnswer: -",
            "17 + 42 = 59.\n\nAnswer: x =",
            "17 + 42 = 59.\n\n答案是",
            "17 + 42 = 59.\n\nSo the answer is `",
            "17 + 42 = 59.\n\nResult:",
            "$$17 + 42 = 59.$$\n\nTherefore the answer is $\\boxed{5",
            "the answer is \\boxed{\\frac{1}{2",
        ] {
            assert!(cut_at_answer(s), "{s:?}");
        }
        for s in [
            "So 42 is the answer",
            "Answer: 23",
            "The answer is 23.",
            "The final answer is $\\boxed{23}$",
            "23 answers",
            "Answer: x = 5",
            "**Answer: C**",
            "**Final Answer: B**",
            "The answer is \\boxed{5}",
            "x = 5, so the answer is 5 - that is all",
        ] {
            assert!(!cut_at_answer(s), "{s:?}");
        }
    }

    #[test]
    fn drift_into_a_new_question() {
        assert!(drifts("The answer is 6.\n\nQuestion: What is 2+3?\nAnswer: 5"));
        assert!(drifts("\\boxed{0.01}\n\nSubproblem 40: What is tau?\nSo $\\boxed{0.01}$"));
        assert!(drifts("So \\boxed{6}.\nProblem 2: What is 2+3? Solution: \\boxed{5}"));
        // A new question restated but not answered, or a question before any answer, is no drift.
        assert!(!drifts("The answer is 6.\n\nQuestion: What is 2+3?"));
        assert!(!drifts("Question: what is 2+3?\nThe answer is 5."));
        assert!(!drifts("The answer is \\boxed{5}.\nThe problem asks for 5, so it is right."));
    }

    #[test]
    fn loops_at_the_end_are_found() {
        let looped = "Let me think. ".to_owned() + &"The answer is 5. So we add 2 and 3. ".repeat(12);
        assert!(tail_loop(&looped).is_some());
        assert!(tail_loop(&("x".repeat(10) + &"0".repeat(500))).is_some());
        let honest = "We add the numbers: 2 + 3 = 5. Then we check: 5 - 3 = 2. ".repeat(2) + "The answer is 5.";
        assert!(tail_loop(&honest).is_none());
        // A loop in the middle, then an answer: not a loop at the end.
        let middle = "ab ".repeat(200) + "\n\nSo the answer is \\boxed{7}.";
        assert!(tail_loop(&middle).is_none());
        // A loop of remarks after the answer is cut off; a loop that repeats an answer is no answer.
        let remarks = "So \\boxed{7}. ".to_owned() + &"[Note: please double-check the reasoning.] ".repeat(10);
        assert_eq!(without_idle_loop(&remarks), Ok("So \\boxed{7}. [Note: please double-check the reasoning.]"));
        let revised = "So \\boxed{7}.".to_owned() + &" Wait, it is six.".repeat(20);
        assert_eq!(without_idle_loop(&revised), Ok("So \\boxed{7}. Wait, it is six."));
        assert!(without_idle_loop(&looped).is_err());
        assert_eq!(without_idle_loop("plain \\boxed{7}"), Ok("plain \\boxed{7}"));
    }
}
