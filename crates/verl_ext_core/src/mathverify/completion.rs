//! What a model's whole completion holds around its answer, read before the answer is looked for:
//!
//! - **Special tokens** (`<|im_end|>`, `<|eot_id|>`, `</s>`, `<eos>`, `<end_of_turn>`): a pipeline that decodes
//!   without skipping them leaves them after the answer; each becomes a line break, as the end of a turn is.
//! - **The R1-Zero answer tag** (`<think>…</think> <answer>…</answer>`): the answer is read in the last
//!   `<answer>` tag only (up to its `</answer>`, or to the end when a stop string cut the closing tag off), so
//!   the tag's brackets are never read as `<`/`>` relations and the reasoning before it is not mined.
//! - **A repetition loop at the end** (the same passage over and over until the length limit): a degenerate
//!   output has no answer, whatever number the loop repeats.
//!
//! Every scan is linear in the text.

use std::borrow::Cow;

/// Longest `<|…|>` token read as a special token (bytes between the bars); longer spans are text.
const MAX_TOKEN_NAME: usize = 48;
/// Other tokenizers' end-of-text and turn markers, written in angle brackets.
const NAMED_TOKENS: &[&str] = &[
    "</s>",
    "<s>",
    "<eos>",
    "<bos>",
    "<pad>",
    "<end_of_turn>",
    "<start_of_turn>",
    "<eot>",
    "<EOS>",
    "<BOS>",
    // GAOKAO-Bench's end of explanation / end of answer.
    "<eoe>",
    "<eoa>",
];

/// The text with special tokens replaced by line breaks; borrowed when it has none.
pub fn strip_special_tokens(s: &str) -> Cow<'_, str> {
    if !s.contains("<|") && !s.contains("<｜") && !NAMED_TOKENS.iter().any(|t| s.contains(t)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let at = &rest[lt..];
        let len = special_token_len(at);
        if len > 0 {
            out.push('\n');
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
        return if k > 0 && closed && name[..k].chars().all(token) { 1 + bar.len() + k + bar.len() + 1 } else { 0 };
    }
    NAMED_TOKENS.iter().find(|t| at.starts_with(*t)).map_or(0, |t| t.len())
}

/// The largest char boundary <= `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where the answer of a completion is read: the last `<answer>` tag's content ([`answer_tag`]); else what
/// follows the last `</think>` (the reasoning is not the answer); else the whole text. A `<think>` that is never
/// closed is reasoning cut off before any answer: `Err` with the reason.
pub fn answer_region(s: &str) -> Result<&str, &'static str> {
    if let Some(tag) = answer_tag(s) {
        return Ok(tag);
    }
    let lower = s.to_ascii_lowercase();
    if let Some(end) = lower.rfind("</think>") {
        return Ok(&s[end + "</think>".len()..]);
    }
    if lower.contains("<think>") {
        return Err("the reasoning never ends (<think> without </think>)");
    }
    Ok(s)
}

/// The content of the last `<answer>` tag (ASCII case-insensitive), up to its `</answer>` or the end of the
/// text; `None` when the text has no such tag.
pub fn answer_tag(s: &str) -> Option<&str> {
    const OPEN: &str = "<answer>";
    const CLOSE: &str = "</answer>";
    let lower = s.to_ascii_lowercase();
    let open = lower.rfind(OPEN)?;
    let from = open + OPEN.len();
    let to = lower[from..].find(CLOSE).map_or(s.len(), |i| from + i);
    Some(&s[from..to])
}

/// Shortest repeated tail that is a loop (bytes): a short echo (`5. 5.`) is not one.
pub const MIN_LOOP_BYTES: usize = 240;
/// Copies of the repeated passage a loop has at least.
pub const MIN_LOOP_COPIES: usize = 3;
/// Bytes of the end looked for earlier in the text: the period of a loop is the distance to an earlier copy.
const PROBE: usize = 24;
/// Earlier copies of the probe tried as a period (the nearest first); a loop's own period is among the first.
const MAX_PERIODS: usize = 8;

/// Does the text end in a repetition loop: the same passage at least [`MIN_LOOP_COPIES`] times in a row, over
/// at least [`MIN_LOOP_BYTES`], up to the last byte (trailing spaces aside)? A model that loops until its
/// length limit never states an answer.
pub fn ends_in_loop(s: &str) -> bool {
    let b = s.trim_end().as_bytes();
    let n = b.len();
    if n < MIN_LOOP_BYTES {
        return false;
    }
    let probe = &b[n - PROBE..];
    let mut end = n - 1;
    for _ in 0..MAX_PERIODS {
        // The nearest earlier copy of the probe ending before `end`.
        let Some(at) = rfind(&b[..end], probe) else { return false };
        let period = n - PROBE - at;
        let need = (period * MIN_LOOP_COPIES).max(MIN_LOOP_BYTES);
        if need <= n && (n - need..n - period).all(|i| b[i] == b[i + period]) {
            return true;
        }
        end = at + PROBE - 1;
    }
    false
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
    fn special_tokens_become_line_breaks() {
        assert_eq!(strip_special_tokens("14<|eot_id|>"), "14\n");
        assert_eq!(strip_special_tokens("so 5.</s>"), "so 5.\n");
        assert_eq!(strip_special_tokens("<|im_start|>assistant x<|im_end|>"), "\nassistant x\n");
        assert_eq!(strip_special_tokens("|x| < 2 and <|not a token|>"), "|x| < 2 and <|not a token|>");
        assert_eq!(strip_special_tokens("a <| b"), "a <| b");
        assert_eq!(strip_special_tokens("x = 2<｜end▁of▁sentence｜>"), "x = 2\n");
        assert_eq!(strip_special_tokens("【答案】 10 <eoa>"), "【答案】 10 \n");
        assert!(matches!(strip_special_tokens("x < 2"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_last_answer_tag_is_read() {
        assert_eq!(answer_tag("<think>a</think> <answer> 15 </answer>"), Some(" 15 "));
        assert_eq!(answer_tag("<answer>1</answer> then <ANSWER>2</ANSWER>"), Some("2"));
        assert_eq!(answer_tag("<think>x</think><answer> 4"), Some(" 4"));
        assert_eq!(answer_tag("no tag"), None);
    }

    #[test]
    fn the_answer_is_read_after_the_reasoning() {
        assert_eq!(answer_region("<think>it is 4</think> So \\boxed{5}."), Ok(" So \\boxed{5}."));
        assert_eq!(answer_region("<think>4</think><answer>5</answer>"), Ok("5"));
        assert!(answer_region("<think>so far 4 and").is_err());
        assert_eq!(answer_region("plain 5"), Ok("plain 5"));
    }

    #[test]
    fn loops_at_the_end_are_found() {
        let looped = "Let me think. ".to_owned() + &"The answer is 5. So we add 2 and 3. ".repeat(12);
        assert!(ends_in_loop(&looped));
        assert!(ends_in_loop(&("x".repeat(10) + &"0".repeat(500))));
        let honest = "We add the numbers: 2 + 3 = 5. Then we check: 5 - 3 = 2. ".repeat(2) + "The answer is 5.";
        assert!(!ends_in_loop(&honest));
        // A loop in the middle, then an answer: not a loop at the end.
        let middle = "ab ".repeat(200) + "\n\nSo the answer is \\boxed{7}.";
        assert!(!ends_in_loop(&middle));
    }
}
