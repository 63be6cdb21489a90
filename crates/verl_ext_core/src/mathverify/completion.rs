//! What a model's whole completion holds around its answer, read before the answer is looked for:
//!
//! - **Special tokens** (`<|im_end|>`, `<|eot_id|>`, `</s>`, `<eos>`, `<｜end▁of▁sentence｜>`): a pipeline that
//!   decodes without skipping them leaves them in. Generation ends at an end-of-sequence token, so the text is
//!   cut at the first one (a turn the model goes on to invent is not its answer); any other special token
//!   becomes a space, so it hides no word from the reading around the answer (`not<|x|>5` is `not 5`).
//! - **Where the answer may be** ([`answer_span`]): in the last `<answer>` tag after the reasoning, else after
//!   the last `</think>`, else anywhere. The tags become spaces of the same length, so the answer is found
//!   inside its span while the words around it — before the tag, after it — are still read for hedges and
//!   revisions (`at least <answer>5</answer>`, `<answer>5</answer> That is wrong.` earn nothing).
//! - **Degenerate endings**: a repetition loop up to the last byte ([`tail_loop`]; a loop of remarks alone is cut
//!   off instead, [`without_idle_loop`]), and a drift into a new question the model invents and answers after
//!   answering the one asked ([`drifts`]).
//!
//! Every scan is linear in the text.

use std::borrow::Cow;

use super::hedge::floor_boundary;

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
/// Other tokenizers' markers written in angle brackets, read as a space.
const NAMED_TOKENS: &[&str] = &["<s>", "<bos>", "<BOS>", "<pad>", "<start_of_turn>", "<eoe>"];

/// The text cut at its first end-of-sequence token, with other special tokens replaced by a space; borrowed
/// when it has none.
pub fn strip_special_tokens(s: &str) -> Cow<'_, str> {
    if !s.contains("<|") && !s.contains("<｜") && !END_TOKENS.iter().chain(NAMED_TOKENS).any(|t| s.contains(t)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let at = &rest[lt..];
        let len = special_token_len(at);
        if len > 0 && END_TOKENS.contains(&&at[..len]) {
            return Cow::Owned(out);
        }
        if len > 0 {
            out.push(' ');
            rest = &at[len..];
        } else {
            out.push('<');
            rest = &at[1..];
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
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
    END_TOKENS.iter().chain(NAMED_TOKENS).find(|t| at.starts_with(*t)).map_or(0, |t| t.len())
}

/// Where the answer of a completion is read, and the text it is read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span<'a> {
    /// The completion with its `<think>`, `</think>`, `<answer>` and `</answer>` tags replaced by spaces of
    /// the same length (offsets are kept).
    pub text: Cow<'a, str>,
    /// The byte range the answer must lie in.
    pub start: usize,
    pub end: usize,
    /// The range is the content of an `<answer>` tag (read whole when it is one bare answer).
    pub tag: bool,
}

/// Reasoning tags (`<think>`, and `<thinking>` as some models write it).
const THINK_OPEN: &[&str] = &["<think>", "<thinking>"];
const THINK_CLOSE: &[&str] = &["</think>", "</thinking>"];
const ANSWER_OPEN: &str = "<answer>";
const ANSWER_CLOSE: &str = "</answer>";

/// Where the answer of a completion is read: the last `<answer>` tag after the reasoning, up to its
/// `</answer>` or the end (a stop string often cuts the closing tag off); else what follows the last
/// `</think>`; else the whole text. A `<think>` without a `</think>` after it is reasoning cut off before any
/// answer, and a tag inside the reasoning is part of it: `Err` with the reason when nothing is left.
pub fn answer_span(s: &str) -> Result<Span<'_>, &'static str> {
    let lower = s.to_ascii_lowercase();
    let think_end = THINK_CLOSE.iter().filter_map(|t| lower.rfind(t).map(|i| i + t.len())).max();
    let think_open = THINK_OPEN.iter().filter_map(|t| lower.rfind(t)).max();
    if think_open.is_some_and(|open| think_end.is_none_or(|end| open > end)) {
        return Err("the reasoning never ends (<think> without </think>)");
    }
    let after_thinking = think_end.unwrap_or(0);
    let tag = lower.rfind(ANSWER_OPEN).filter(|&open| open >= after_thinking);
    let (start, end) = match tag {
        Some(open) => {
            let from = open + ANSWER_OPEN.len();
            (from, lower[from..].find(ANSWER_CLOSE).map_or(s.len(), |i| from + i))
        }
        None => (after_thinking, s.len()),
    };
    let has_tags = all_tags().any(|t| lower.contains(t));
    let text = if has_tags { Cow::Owned(blank_tags(s, &lower)) } else { Cow::Borrowed(s) };
    Ok(Span { text, start, end, tag: tag.is_some() })
}

/// Every reasoning and answer tag.
fn all_tags() -> impl Iterator<Item = &'static str> {
    THINK_OPEN.iter().chain(THINK_CLOSE).copied().chain([ANSWER_OPEN, ANSWER_CLOSE])
}

/// `s` with every think/answer tag replaced by as many spaces (`lower` is `s` in ASCII lower case).
fn blank_tags(s: &str, lower: &str) -> String {
    let mut out = s.as_bytes().to_vec();
    for tag in all_tags() {
        for (i, _) in lower.match_indices(tag) {
            out[i..i + tag.len()].fill(b' ');
        }
    }
    // Only ASCII bytes of ASCII tags were replaced by ASCII spaces.
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// Line starts that open a new question (`Question:`, `Problem 2:`, `Subproblem 40:`, `Human:`).
const DRIFT_MARKERS: &[&str] =
    &["question", "q:", "problem", "subproblem", "preamble:", "exercise", "human:", "user:", "### instruction"];
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
        let t = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '#' | '*'));
        let opens = DRIFT_MARKERS.iter().any(|m| {
            t.strip_prefix(m).is_some_and(|r| {
                m.ends_with(':')
                    || r.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ').starts_with([':', '.'])
            })
        });
        if opens {
            return STATEMENTS.iter().any(|m| lower[line_start..].contains(m));
        }
    }
    false
}

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

/// The text without a repetition loop that repeats no number and no answer statement (a closing remark
/// such as `[Note: double-check the calculations…]` over and over after the answer): the answer before it
/// stands. `Err` when the loop repeats a number or an answer (`The answer is 5.` over and over): a
/// degenerate output, no answer.
pub fn without_idle_loop(s: &str) -> Result<&str, &'static str> {
    let Some((start, period)) = tail_loop(s) else { return Ok(s) };
    let t = s.trim_end();
    let passage = &t.as_bytes()[t.len() - period..];
    let lower = passage.to_ascii_lowercase();
    let states = |w: &[u8]| lower.windows(w.len()).any(|x| x == w);
    if passage.iter().any(u8::is_ascii_digit) || states(b"boxed") || states(b"answer") {
        return Err("a repetition loop at the end");
    }
    let mut cut = start;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    Ok(&s[..cut])
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
        assert_eq!(strip_special_tokens("14<|eot_id|>"), "14");
        assert_eq!(strip_special_tokens("so 5.</s> and more"), "so 5.");
        assert_eq!(strip_special_tokens("<|im_start|>assistant x<|im_end|>\\boxed{6}"), " assistant x");
        assert_eq!(strip_special_tokens("not<|pad_x|>5"), "not 5");
        assert_eq!(strip_special_tokens("|x| < 2 and <|not a token|>"), "|x| < 2 and <|not a token|>");
        assert_eq!(strip_special_tokens("a <| b"), "a <| b");
        assert_eq!(strip_special_tokens("x = 2<｜end▁of▁sentence｜>"), "x = 2");
        assert_eq!(strip_special_tokens("【答案】 10 <eoa>"), "【答案】 10 ");
        assert!(matches!(strip_special_tokens("x < 2"), Cow::Borrowed(_)));
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
        assert!(span("<think>so far <answer>4</answer>").is_err());
        assert!(span("<thinking>so far 4").is_err());
        assert_eq!(span("<thinking>4</thinking> so 5"), Ok((" so 5".into(), false)));
        // The tags are blanked in place: what surrounds them is still there to read.
        let s = answer_span("at least <answer>5</answer>").unwrap();
        assert_eq!(s.text, "at least         5         ");
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
        assert_eq!(without_idle_loop(&remarks), Ok("So \\boxed{7}."));
        assert!(without_idle_loop(&looped).is_err());
        assert_eq!(without_idle_loop("plain \\boxed{7}"), Ok("plain \\boxed{7}"));
    }
}
