//! Finding the answer in a solution, or in a reference written the same way: what Math-Verify's `parse`
//! reads (boxes, `Final Answer`, `answer:` lines, `$…$`/`\[…\]`/`\(…\)` blocks, numbers in prose), plus a
//! bare answer such as `-5` or `\frac{1}{2}` taken whole.
//!
//! Candidates are tried by priority (lowest first), and within a priority the one ending last first; the
//! first that parses is the answer. When none parses, the first candidate is kept for a textual comparison.
//!
//! | priority | form |
//! |---|---|
//! | 0 | `The final answer is X. I hope it is correct.` (Minerva) |
//! | 50 | the last `\boxed{}`/`\fbox{}`, with boxes just before it joined by `and`/`,`; `final answer … is X` |
//! | 100 | `answer:` and, within 50 characters, X |
//! | 200 | `answer` and, within 50 characters, X (or X after the last `=` within 100) |
//! | 250 | the whole text, when it holds no math block and parses as an answer (or is LaTeX) |
//! | 300 | the last math block (several joined by `and`/`or`/`,` are one answer), or the last number or expression |
//!
//! X is a math block (joined ones included) or a number or expression in prose ([`super::prose`]). Every
//! scan is linear in the text; at most [`MAX_TRIES`] candidates are parsed.

use super::blocks::{self, Block};
use super::choices::{
    self, another_letter_before, another_letter_follows, choice_label, labelled_line_above, labelled_option_after,
    labels_listed_before, NEGATED_WINDOW,
};
use super::completion::{self, MAX_LABEL_LINE};
use super::hedge;
use super::lexer::lex;
use super::limits::{MAX_ANSWER_BYTES, MAX_BARE_BOX};
use super::parser::parse;
use super::prose;
use super::sets;
use super::{letters, Targets};

/// Candidates parsed at most per text.
pub const MAX_TRIES: usize = 24;
/// Characters between `answer` and its math (Math-Verify's window).
const ANSWER_WINDOW: usize = 50;
/// Characters after `answer` searched for a last `=`.
const EQUALS_WINDOW: usize = 100;
/// Characters between `final answer` and its ` is`.
const FINAL_WINDOW: usize = 100;
/// Words that announce an answer (`answer:`, `答案：`, `Ответ:`), each followed by its value as `answer` is.
pub(super) const ANSWER_WORDS: &[&str] = &["answer", "答案", "Ответ", "ответ"];
/// Characters after `answer:` read as its paragraph (to a blank line).
const PARAGRAPH_CHARS: usize = 300;
/// Longest line after `answer:` read whole as a tuple or an equation (bytes).
const MAX_LINE_ANSWER: usize = 200;
/// Blank lines between an answer's label and its value on a line below.
const MAX_BLANK_LINES: usize = 1;

/// Where an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Minerva,
    Boxed,
    FinalAnswer,
    AnswerColon,
    AnswerWord,
    /// An answer tag's whole content (`<answer> 15 </answer>`).
    Tag,
    Whole,
    Block,
    Prose,
    /// A choice letter (`string` target) found by one of the anchors, at the start, or standing alone.
    Letter(u16),
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Minerva => "final answer, I hope",
            Source::Boxed => "boxed",
            Source::FinalAnswer => "final answer is",
            Source::AnswerColon => "answer:",
            Source::AnswerWord => "answer",
            Source::Tag => "answer tag",
            Source::Whole => "whole text",
            Source::Block => "math block",
            Source::Prose => "number in text",
            Source::Letter(_) => "choice letter",
        }
    }

    pub(super) fn priority(self) -> u16 {
        match self {
            Source::Minerva => 0,
            Source::Boxed | Source::FinalAnswer => 50,
            Source::AnswerColon => 100,
            Source::AnswerWord => 200,
            Source::Tag => 240,
            Source::Whole => 250,
            Source::Block | Source::Prose => 300,
            Source::Letter(priority) => priority,
        }
    }
}

/// A possible answer and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub text: String,
    pub source: Source,
    pub start: usize,
    pub end: usize,
}

/// For each `{` (by byte offset), the offset of its matching `}`: one pass with a stack.
fn matching_braces(s: &str) -> std::collections::HashMap<usize, usize> {
    let mut open = Vec::new();
    let mut pairs = std::collections::HashMap::new();
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'{' => open.push(i),
            b'}' => {
                if let Some(o) = open.pop() {
                    pairs.insert(o, i);
                }
            }
            _ => {}
        }
    }
    pairs
}

/// A box: where `\boxed` starts, where its argument ends, and the argument.
struct BoxArg<'a> {
    start: usize,
    end: usize,
    arg: &'a str,
}

/// The argument of the `\boxed`/`\fbox` command starting at `start` and ending at `s[after]`.
fn boxed_arg<'a>(
    s: &'a str,
    start: usize,
    after: usize,
    braces: &std::collections::HashMap<usize, usize>,
) -> Option<BoxArg<'a>> {
    let rest = &s[after..];
    // `\boxedx` is another command.
    if rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if trimmed.starts_with('{') {
        let open = s.len() - trimmed.len();
        let close = *braces.get(&open)?;
        return Some(BoxArg { start, end: close + 1, arg: s[open + 1..close].trim() });
    }
    if rest.starts_with([' ', '\t']) && !trimmed.is_empty() {
        // `\boxed 5$`: up to the closing `$` (or `\)`, `\]`) or the end of the line, within MAX_BARE_BOX bytes
        // (scanning to the line's end made `\boxed ` repeated quadratic). When another box starts before that,
        // the argument is its first word, so the text up to the next box is read as what stands between two boxes
        // (`\boxed 3 or \boxed 5` is two answers, as with braces; `Use \boxed to mark it: \boxed{5}` is 5).
        let window = &trimmed.as_bytes()[..trimmed.len().min(MAX_BARE_BOX + 1)];
        let close = window.windows(2).position(|w| w == b"\\)" || w == b"\\]");
        let len = window.iter().position(|&c| c == b'$' || c == b'\n').into_iter().chain(close).min();
        let mut len = match len {
            Some(len) => len,
            None if trimmed.len() <= MAX_BARE_BOX => trimmed.len(),
            None => return None,
        };
        if trimmed[..len].contains("\\boxed") || trimmed[..len].contains("\\fbox") {
            len = trimmed.find(char::is_whitespace).unwrap_or(len).min(len);
        }
        let arg = trimmed[..len].trim();
        let end = s.len() - trimmed.len() + len;
        let boxed = arg.contains("\\boxed") || arg.contains("\\fbox");
        return (!arg.is_empty() && !boxed).then_some(BoxArg { start, end, arg });
    }
    None
}

/// Words after which a later box replaces an earlier one (`\\boxed{10} and then \\boxed{42}`).
const SUPERSEDING: &[&str] = &[
    "then",
    "but",
    "so",
    "thus",
    "hence",
    "therefore",
    "instead",
    "actually",
    "wait",
    "correct",
    "corrected",
    "final",
    "wrong",
    "incorrect",
    "not",
];

/// Does the text between two boxes join them into one answer (as Math-Verify's box extraction does)? Close
/// boxes do (under 10 characters apart); boxes under 70 characters apart do when a separator (`and`, `or`,
/// `,`, `;`) stands between them and they differ (`\\boxed{(3, 3)} \\text{ for part (a) and } \\boxed{(1, 1)}`).
/// Unlike Math-Verify, a word that revises (`and then`, `but`, `so`) makes the later box the answer.
fn boxes_join(between: &str, earlier: &str, later: &str) -> bool {
    let words: Vec<String> = between
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    if words.iter().any(|w| SUPERSEDING.contains(&w.as_str())) {
        return false;
    }
    let chars = between.chars().count();
    if chars < 10 {
        return true;
    }
    let separator = between.contains([',', ';']) || words.iter().any(|w| w == "and" || w == "or");
    earlier != later && chars < 70 && separator
}

/// The last box, with the boxes just before it that join it (in order, repeated contents once).
fn last_boxes(s: &str) -> Option<Candidate> {
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for name in ["\\boxed", "\\fbox"] {
        starts.extend(s.match_indices(name).map(|(i, m)| (i, i + m.len())));
    }
    if starts.is_empty() {
        return None;
    }
    starts.sort_unstable();
    let braces = matching_braces(s);
    // Boxes inside another box's argument are part of it; the outer ones, last first.
    let mut outer: Vec<BoxArg<'_>> = Vec::new();
    for b in starts.iter().filter_map(|&(i, after)| boxed_arg(s, i, after, &braces)) {
        if outer.last().is_none_or(|earlier| b.start >= earlier.end) {
            outer.push(b);
        }
    }
    outer.reverse();
    let last = outer.first()?;
    // A percent sign right after a box is its answer's (`\\boxed{25}\\%` is `\\boxed{25\\%}`).
    let percent = |b: &BoxArg<'_>| {
        let rest = &s[b.end..];
        // Also past the math block's closing `$` (`$\\boxed{25}$%`).
        let trimmed = hedge::skip_spacing(hedge::skip_spacing(rest).trim_start_matches('$'));
        ["\\%", "%"].iter().find(|p| trimmed.starts_with(**p)).map_or(0, |p| rest.len() - trimmed.len() + p.len())
    };
    let text = |b: &BoxArg<'_>| if percent(b) > 0 { format!("{}\\%", b.arg) } else { b.arg.to_string() };
    let mut picked = vec![text(last)];
    let mut later = last;
    for b in outer.iter().skip(1) {
        if !boxes_join(&s[b.end + percent(b)..later.start], b.arg, later.arg) {
            break;
        }
        let t = text(b);
        if picked.last() != Some(&t) {
            picked.push(t);
        }
        later = b;
    }
    picked.reverse();
    let end = last.end + percent(last);
    Some(Candidate { text: picked.join(", "), source: Source::Boxed, start: later.start, end })
}

/// Occurrences of an anchor (`needle`, matched in any ASCII case), last first: within a priority the candidate
/// ending last is tried first and no more than [`MAX_TRIES`] are tried, so each anchor stops after that many
/// candidates. Read back from the end, one occurrence at a time (overlapping ones included).
fn last_first<'a>(s: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let (h, n) = (s.as_bytes(), needle.as_bytes());
    let (lower, upper) = n.first().map_or((0, 0), |b| (b.to_ascii_lowercase(), b.to_ascii_uppercase()));
    // Occurrences start before `end` (so they end within the text).
    let mut end = if n.is_empty() { 0 } else { h.len().saturating_sub(n.len() - 1) };
    std::iter::from_fn(move || {
        while let Some(i) = memchr::memrchr2(lower, upper, &h[..end]) {
            end = i;
            if h[i..i + n.len()].eq_ignore_ascii_case(n) {
                return Some(i);
            }
        }
        end = 0;
        None
    })
}

/// The byte offset `chars` characters after `from` (or the end).
fn advance(s: &str, from: usize, chars: usize) -> usize {
    s[from..].char_indices().nth(chars).map_or(s.len(), |(i, _)| from + i)
}

struct Text<'a> {
    s: &'a str,
    blocks: Vec<Block>,
    targets: Targets,
}

impl<'a> Text<'a> {
    /// The first math block starting in `[from, to]`, as a group with the blocks joined to it.
    fn block_in(&self, from: usize, to: usize) -> Option<blocks::Group> {
        let k = self.blocks.partition_point(|b| b.start < from);
        let b = self.blocks.get(k)?;
        (b.start <= to).then(|| blocks::group_from(self.s, &self.blocks, k))
    }

    /// Numbers and expressions in `s[from..to]` outside math blocks (a block that does not parse is not
    /// read again as the numbers inside it: `$F_n = \\sum_{k=0}^{n}$` holds no answer 0).
    fn prose(&self, from: usize, to: usize) -> Vec<prose::Found> {
        prose::scan(self.s, from, to).into_iter().filter(|f| !self.inside_block(f.start)).collect()
    }

    fn inside_block(&self, at: usize) -> bool {
        let k = self.blocks.partition_point(|b| b.end <= at);
        self.blocks.get(k).is_some_and(|b| b.start <= at)
    }

    /// [`Self::inside_block`] for offsets that mostly grow: `cursor` is where the previous one's search ended
    /// (the blocks are in order and do not overlap, so their ends grow).
    fn inside_block_from(&self, at: usize, cursor: &mut usize) -> bool {
        let mut k = *cursor;
        if k > 0 && self.blocks[k - 1].end > at {
            k = self.blocks.partition_point(|b| b.end <= at);
        }
        while k < self.blocks.len() && self.blocks[k].end <= at {
            k += 1;
        }
        *cursor = k;
        self.blocks.get(k).is_some_and(|b| b.start <= at)
    }

    /// X of the anchors: a block starting in `[from, to]`, else the first number or expression starting
    /// there.
    fn math_in(&self, from: usize, to: usize) -> Vec<(usize, usize, String)> {
        // The first math after the anchor: a block, unless a number comes before it (`Answer: 5. Where $x = 4$`
        // answers 5) or a paragraph ends first (the answer line is over).
        let block = self.block_in(from, to).filter(|g| !self.s[from..g.start].contains("\n\n"));
        // A box right after the anchor is its answer (read as a box): no block after it is.
        if self.s[from..].trim_start().starts_with("\\boxed") {
            return Vec::new();
        }
        let number_first = |g: &blocks::Group| {
            self.targets.expr && self.prose(from, g.start).first().is_some_and(|f| f.end <= g.start)
        };
        if let Some(g) = block.filter(|g| !number_first(g)) {
            if self.targets.latex {
                return vec![(g.start, g.end, g.text)];
            }
        }
        if !self.targets.expr {
            return Vec::new();
        }
        let found = self.prose(from, to + 1);
        let Some(first) = found.first().map(|f| f.start) else { return Vec::new() };
        found.into_iter().filter(|f| f.start == first).map(|f| (f.start, f.end, f.text)).collect()
    }

    /// Right after an anchor: `:`? and spaces, then X (the math must start there).
    fn math_right_after(&self, at: usize) -> Vec<(usize, usize, String)> {
        let rest = &self.s[at..];
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        let trimmed = rest.trim_start();
        let from = self.s.len() - trimmed.len();
        // A number needs the space before it; the scan looks from the last space on.
        let scan_from = if trimmed.len() < rest.len() { from - 1 } else { from };
        self.math_in(scan_from, from)
    }

    fn minerva(&self, out: &mut Vec<Candidate>) {
        let before = out.len();
        // The last few statements only: each reads on to its line's end, so a megabyte of `final answer is` without a
        // value after any would cost the square of its length (red team 22: 225 s).
        for at in last_first(self.s, "final answer is").take(2 * MAX_TRIES) {
            if out.len() - before >= MAX_TRIES {
                break;
            }
            for (start, end, text) in self.math_right_after(at + "final answer is".len()) {
                let tail = self.s[end..].trim_start_matches('.').trim_start();
                if tail.starts_with("I hope") {
                    out.push(Candidate { text, source: Source::Minerva, start, end });
                }
            }
        }
    }

    fn final_answer(&self, out: &mut Vec<Candidate>) {
        let before = out.len();
        for at in last_first(self.s, "final answer").take(2 * MAX_TRIES) {
            if out.len() - before >= MAX_TRIES {
                break;
            }
            let from = at + "final answer".len();
            let window = &self.s[from..advance(self.s, from, FINAL_WINDOW + 4)];
            // On the label's line: an `is` below it belongs to another sentence.
            let window = &window[..window.find('\n').unwrap_or(window.len())];
            // The first ` is` (after at least one space) within the window.
            let Some(is) = window.match_indices("is").map(|(i, _)| i).find(|&i| {
                window[..i].ends_with(char::is_whitespace)
                    && !window[i + 2..].starts_with(|c: char| c.is_ascii_alphanumeric())
            }) else {
                continue;
            };
            // `The final answer is: 2\\sqrt{3}` (MetaMath's colon): the value starts past it.
            let value_from = from + is + 2;
            let rest = &self.s[value_from..];
            let value_from =
                rest.trim_start_matches(' ').strip_prefix([':', '：']).map_or(value_from, |r| self.s.len() - r.len());
            // `The final answer is 2\\sqrt{3}.`: a line that is one expression is read whole.
            if let Some((start, end, text)) = self.line_value(value_from) {
                out.push(Candidate { text, source: Source::FinalAnswer, start, end });
                continue;
            }
            for (start, end, text) in self.math_right_after(value_from) {
                out.push(Candidate { text, source: Source::FinalAnswer, start, end });
            }
        }
    }

    fn answer(&self, out: &mut Vec<Candidate>) {
        let (mut colons, mut words) = (0, 0);
        let mut anchors: Vec<(usize, usize)> = Vec::new();
        for word in ANSWER_WORDS {
            anchors.extend(last_first(self.s, word).take(2 * MAX_TRIES).map(|at| (at, at + word.len())));
        }
        // GSM8K's `#### 72`: a line that is one value after the marker (not a Markdown heading, `#### 1. Setup`).
        let gsm8k = last_first(self.s, GSM8K_MARK)
            .take(2 * MAX_TRIES)
            .filter(|&at| !self.s[..at].ends_with('#') && gsm8k_value(&self.s[at + GSM8K_MARK.len()..]));
        anchors.extend(gsm8k.map(|at| (at, at + GSM8K_MARK.len())));
        anchors.sort_unstable_by(|a, b| b.cmp(a));
        for (at, from) in anchors {
            if colons >= MAX_TRIES && words >= MAX_TRIES {
                break;
            }
            // Markdown emphasis closing the label before its colon (`**Answer**: 5`, `*Answer*:`, `__Answer__:`).
            let emphasis = self.s[from..].len() - self.s[from..].trim_start_matches(['*', '_']).len();
            let from = if emphasis <= 3 && self.s[from + emphasis..].starts_with([':', '：']) {
                from + emphasis
            } else {
                from
            };
            // `Answer — 1/2`: a spaced dash after the label is its colon.
            let dash = {
                let rest = &self.s[from..];
                let spaced = rest.trim_start_matches(' ');
                ["— ", "– "]
                    .iter()
                    .find(|d| spaced.starts_with(*d) && spaced.len() < rest.len())
                    .map_or(0, |d| rest.len() - spaced.len() + d.len())
            };
            let colon_len = [":", "：", "】"].iter().find(|c| self.s[from..].starts_with(*c)).map_or(dash, |c| c.len());
            // A heading alone on its line (`**Final Answer**`, `## Answer`) labels the value below it.
            let colon = colon_len > 0 || self.s[at..].starts_with(GSM8K_MARK) || self.heading_at(at);
            let source = if colon { Source::AnswerColon } else { Source::AnswerWord };
            let count = if colon { &mut colons } else { &mut words };
            if *count >= MAX_TRIES {
                continue;
            }
            // A JSON field (`{"answer": "\\\\frac{1}{2}"}`): its string, decoded, is the answer.
            if let Some((start, end, text)) = super::records::string_field(self.s, at, from)
                // Words in it (`60 km/h`, `6th`, `12 per hour`) leave it to the prose reading.
                .filter(|(_, _, t)| {
                    self.targets.latex && !t.trim().is_empty() && self::words(t, 2).next().is_none() && parses(t.trim())
                })
            {
                *count += 1;
                out.push(Candidate { text: text.trim().to_owned(), source: Source::AnswerColon, start, end });
                continue;
            }
            let from = from + colon_len;
            // `The answer is 2x + 3.`: the rest of the line, an expression in one-letter variables, is read whole.
            if !colon {
                // Past the filler between `answer` and its value (`is`, `would be`, `is therefore`).
                let mut value_from = from;
                loop {
                    let rest = &self.s[value_from..];
                    let word_len = rest.trim_start().find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(0);
                    let skipped = rest.len() - rest.trim_start().len();
                    let word = &rest.trim_start()[..word_len];
                    if word.is_empty() || !STATING.contains(&word.to_ascii_lowercase().as_str()) {
                        break;
                    }
                    value_from += skipped + word_len;
                }
                // MetaMath's `The answer is: \\frac{3}{2}`: a colon after the words, then the value.
                let rest = &self.s[value_from..];
                if let Some(r) = rest.trim_start_matches(' ').strip_prefix([':', '：']) {
                    value_from = self.s.len() - r.len();
                }
                // `The answer is \\boxed{5}.`: the box is the answer, read as one; no number after it is.
                let value = self.s[value_from..].trim_start().trim_start_matches(['$', '*']);
                if value.starts_with("\\boxed") || value.starts_with("\\fbox") {
                    continue;
                }
                if let Some((start, end, text)) = self.line_value(value_from) {
                    *count += 1;
                    out.push(Candidate { text, source, start, end });
                    continue;
                }
            }
            // `Answer: (2, 4)`, `Answer: 5x - 7y + 11z + 4 = 0`: a line that is one answer is read whole.
            if colon {
                // A Chinese answer line is a sentence (`【答案】解方程 …，得到 $x=-2$。`): its result comes last.
                let sentence = self.s[at..].starts_with("答案");
                // The value may stand alone on the next line (`Answer:\n\\frac{3}{4}`).
                let line = self.whole_line(from).or_else(|| self.next_line(from).and_then(|n| self.whole_line(n)));
                if let Some((start, end, text)) =
                    line.or_else(|| sentence.then(|| self.last_group_in_paragraph(from)).flatten())
                {
                    *count += 1;
                    out.push(Candidate { text, source, start, end });
                    continue;
                }
            }
            // A value below the label starts on its line, past a list item's mark (`Answer:` / `1. 42`).
            let from = if colon { self.next_line(from).unwrap_or(from) } else { from };
            // In prose, the value after the last `=` within the window (`answer: x = 5 + 1 = 6`).
            // Within the answer's sentence: a check on the next line (`I verified: 5 × 2 = 10`) is not it.
            let eq_window = &self.s[from..advance(self.s, from, EQUALS_WINDOW)];
            let sentence_end = eq_window.find('\n').into_iter().chain(eq_window.find(". ")).chain(eq_window.find('。'));
            let eq_window = &eq_window[..sentence_end.min().unwrap_or(eq_window.len())];
            // A clause that gives a reason or a side fact after the value (`The answer is 121, since 5! = 120`,
            // `is 4 because 2x = 8`, `is 120 ways (5! = 120)`): its `=` does not state the answer.
            let lower = eq_window.to_ascii_lowercase();
            let aside = ASIDES
                .iter()
                .filter_map(|a| lower.find(a))
                .filter(|&i| !eq_window[..i].trim().is_empty())
                .min()
                .unwrap_or(eq_window.len());
            let eq_window = &eq_window[..aside];
            let after_eq = eq_window.rfind('=').map(|i| from + i + 1);
            let mut found = self.math_in(from, advance(self.s, from, ANSWER_WINDOW));
            // `Answer: y = 2x + 1`: an expression after the last `=` is read whole, to its line's end.
            let rhs = after_eq
                .filter(|&eq| self.block_in(from, eq).is_none())
                .and_then(|eq| self.whole_line(eq))
                .filter(|(_, _, t)| expression_line(t) || latex_line(t));
            if let Some(line) = rhs {
                found = vec![line];
            } else if let Some(eq) = after_eq {
                let blockless = self.block_in(from, eq).is_none();
                let value = self.prose(eq - 1, advance(self.s, eq, 4) + 1);
                if blockless && self.targets.expr {
                    if let Some(v) = value.into_iter().find(|v| !self.s[v.end..].trim_start().starts_with('=')) {
                        found = vec![(v.start, v.end, v.text)];
                    }
                }
            }
            *count += found.len();
            out.extend(found.into_iter().map(|(start, end, text)| Candidate { text, source, start, end }));
        }
    }

    /// The rest of the line from `from`, when it is a tuple, interval, equation or LaTeX expression that parses
    /// (without math delimiters or prose): `(2, 4)`, `[0, 1)`, `5x - 7y + 11z + 4 = 0`, `\\frac{3}{4}`.
    fn whole_line(&self, from: usize) -> Option<(usize, usize, String)> {
        let rest = &self.s[from..];
        self.whole_text(from, from + rest.find('\n').unwrap_or(rest.len()))
    }

    /// After an answer's words (`The answer is`, `The final answer is`), the rest of the line, or of its sentence,
    /// when it is one expression, a letter, a tuple or a LaTeX expression (`2x + 3`, `(1, 2)`, `2\\sqrt{3}`); an
    /// equation is read by the words that name it.
    fn line_value(&self, from: usize) -> Option<(usize, usize, String)> {
        let rest = &self.s[from..];
        let line_end = from + rest.find('\n').unwrap_or(rest.len());
        let sentence_end = self.s[from..line_end].find(". ").map(|i| from + i + 1);
        let shaped = |(_, _, t): &(usize, usize, String)| {
            expression_line(t) || lone_letter(t) || bracketed_list(t) || latex_line(t) || named_values(t)
        };
        let whole = self.whole_text(from, line_end).filter(shaped);
        // Up to an aside (`The answer is (1, 2), since x = 3.`): a comma before it ends the value.
        let lower = self.s[from..line_end].to_ascii_lowercase();
        let lead = |i: usize| self.s[from..from + i].trim().is_empty();
        let aside = ASIDES.iter().filter_map(|a| lower.find(a)).filter(|&i| !lead(i)).min().map(|i| {
            let head = self.s[from..from + i].trim_end();
            from + head.strip_suffix(',').unwrap_or(head).len()
        });
        whole.or_else(|| sentence_end.and_then(|end| self.whole_text(from, end)).filter(shaped)).or_else(|| {
            aside
                .and_then(|end| self.whole_text(from, end))
                .filter(|v| shaped(v) && v.2.contains(|c: char| c.is_ascii_digit()))
        })
    }

    /// Is the line holding `at` an answer's heading alone ([`completion::label_line`])?
    fn heading_at(&self, at: usize) -> bool {
        let start = self.s[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = self.s[at..].find('\n').map_or(self.s.len(), |i| at + i);
        end - start <= 2 * MAX_LABEL_LINE && completion::label_line(&self.s[start..end])
    }

    /// Where the next line with text starts, when nothing but markup and blank lines follow `from` on its line
    /// (`Answer:` / `\\frac{3}{4}`): at most [`MAX_BLANK_LINES`] blank lines between.
    fn next_line(&self, from: usize) -> Option<usize> {
        let rest = &self.s[from..];
        let text = rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_'));
        let gap = &rest[..rest.len() - text.len()];
        let breaks = gap.matches('\n').count();
        if text.is_empty() || breaks == 0 || breaks > MAX_BLANK_LINES + 1 {
            return None;
        }
        // A list item's mark is no part of the value (`Answer:` / `1. 42`).
        let line = &rest[gap.rfind('\n').map_or(0, |i| i + 1)..];
        Some(from + rest.len() - super::markup::unlisted(line).len())
    }

    /// `self.s[from..end]` as one answer, when it is a tuple, interval, equation or LaTeX expression that parses.
    fn whole_text(&self, from: usize, end: usize) -> Option<(usize, usize, String)> {
        let line = &self.s[from..end];
        // Markdown bold around the label or the answer (`**Answer:** (1, 2)`, `**Answer: B**`, `is **B**.`).
        let text = line.trim_start_matches(|c: char| c.is_whitespace() || c == '*');
        let start = from + (line.len() - text.len());
        let text = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '.'));
        let shaped = bracketed_list(text)
            || value_list(text)
            || named_values(text)
            || text.contains('=') && text.split('=').next().is_some_and(|lhs| lhs.trim().contains([' ', '+', '-']))
            || expression_line(text)
            || lone_letter(text)
            || latex_line(text);
        let plain = !text.contains(['$', '\\']) || latex_line(text);
        (shaped && plain && text.len() <= MAX_LINE_ANSWER && self.targets.latex && parses(text))
            .then(|| (start, start + text.len(), text.to_owned()))
    }

    /// After `answer:`, a sentence with several math blocks states its result last (`【答案】解方程 $x+2=0$，得到
    /// $x=-2$。`, `Answer: $a = 1$ or $a = -3$; since …, $a = 1$`): the last group of blocks in the paragraph,
    /// when the first starts within the anchor's window and more than one does.
    fn last_group_in_paragraph(&self, from: usize) -> Option<(usize, usize, String)> {
        if !self.targets.latex {
            return None;
        }
        let limit = advance(self.s, from, PARAGRAPH_CHARS);
        let end = self.s[from..limit].find("\n\n").map_or(limit, |i| from + i);
        let mut k = self.blocks.partition_point(|b| b.start < from);
        let mut groups = Vec::new();
        while k < self.blocks.len() && self.blocks[k].start < end && groups.len() < MAX_TRIES {
            let g = blocks::group_from(self.s, &self.blocks, k);
            k += 1;
            while k < self.blocks.len() && self.blocks[k].start < g.end {
                k += 1;
            }
            groups.push(g);
        }
        let first = groups.first()?.start;
        (groups.len() > 1 && first <= advance(self.s, from, ANSWER_WINDOW))
            .then(|| groups.pop())
            .flatten()
            .map(|g| (g.start, g.end, g.text))
    }

    fn plain(&self, out: &mut Vec<Candidate>) {
        if let Some(g) = blocks::last_group(self.s, &self.blocks).filter(|_| self.targets.latex) {
            out.push(Candidate { text: g.text, source: Source::Block, start: g.start, end: g.end });
        }
        if !self.targets.expr {
            return;
        }
        // The last expression and the number it starts with (the number if the expression does not parse);
        // matches are kept one start at a time, so a long text costs no memory per number.
        let mut last: Vec<prose::Found> = Vec::new();
        // Matches come left to right: the block that may hold each is found from the previous one on.
        let mut cursor = 0;
        prose::scan_each(self.s, 0, self.s.len(), |found| {
            if found.first().is_some_and(|f| !self.inside_block_from(f.start, &mut cursor)) {
                last = found;
            }
        });
        for f in last {
            out.push(Candidate { text: f.text, source: Source::Prose, start: f.start, end: f.end });
        }
    }
}

/// Every candidate answer of `text`, in the order they are tried.
pub fn candidates(text: &str, targets: Targets) -> Vec<Candidate> {
    let t = Text { s: text, blocks: blocks::blocks(text), targets };
    let mut out = Vec::new();
    if targets.latex || targets.expr {
        t.minerva(&mut out);
        t.final_answer(&mut out);
        t.answer(&mut out);
    }
    if targets.latex {
        out.extend(last_boxes(text));
    }
    if t.blocks.is_empty() {
        let answer = bare_answer(text.trim(), targets);
        out.extend(answer.map(|a| Candidate { text: a, source: Source::Whole, start: 0, end: text.len() }));
    }
    t.plain(&mut out);
    if targets.string || targets.answer_letters {
        letters::candidates(text, targets.choices, targets.string, &mut out);
    }
    out.sort_by_key(|c| (c.source.priority(), std::cmp::Reverse(c.end), c.start, c.source));
    // The same reading twice at one place; the same value at another place is kept (a check after a box that
    // arrives at its value again confirms it).
    out.dedup_by(|a, b| a.text == b.text && a.start == b.start);
    out
}

/// `whole` (a whole text or an answer tag's content, trimmed, without math blocks) as one bare answer: one
/// number in prose, read as prose reads it (`1000,99` has a decimal comma, `494,550` separators), or else the
/// text itself when it is LaTeX and not prose (kept for a textual comparison), or when it parses and holds
/// at most one word (`we get 9` would parse as a product of letters).
fn bare_answer(whole: &str, targets: Targets) -> Option<String> {
    if whole.is_empty() || whole.len() > MAX_ANSWER_BYTES || !blocks::blocks(whole).is_empty() {
        return None;
    }
    let number = prose::scan(whole, 0, whole.len()).into_iter().find(|f| f.start == 0 && f.end == whole.len());
    // Several bare numbers (`5 6`, `5\n6`) are several values: kept whole, for a textual comparison.
    let mut parts = whole.split_whitespace();
    let several = whole.split_whitespace().nth(1).is_some()
        && parts.all(|p| p.trim_end_matches([',', ';', '.']).parse::<f64>().is_ok());
    if several {
        return Some(whole.to_owned());
    }
    // Paragraphs are a solution, not one answer (`… 7 \\times 6 = 42.` / `Result: 42`).
    // A label and its value (`Total: 45`) is read by the value, not whole.
    let label = whole
        .split_once(':')
        .is_some_and(|(head, _)| !head.is_empty() && head.chars().all(|c| c.is_alphabetic() || c == ' '));
    if label {
        return None;
    }
    // An escaped dollar or percent sign is prose's too (`She pays \\$12.`): no LaTeX without another command.
    let commands = whole.match_indices('\\').any(|(i, _)| !whole[i + 1..].starts_with(['$', '%']));
    // A sentence (`So 3 \\times 2 = 6.`) is read whole only when it parses: else its prose numbers are read.
    let mut first = whole.chars();
    let sentence = first.next().is_some_and(char::is_uppercase) && first.next().is_some_and(char::is_lowercase);
    let latex = commands && !prose_like(whole) && !whole.contains("\n\n") && (!sentence || parses(whole));
    match number {
        Some(n) if targets.expr => Some(n.text),
        _ if targets.latex && (latex || words(whole, 2).nth(1).is_none() && parses(whole)) => Some(whole.to_owned()),
        _ => None,
    }
}

/// The words of `text` outside LaTeX commands with at least `letters` letters.
fn words(text: &str, letters: usize) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphabetic() && c != '\\')
        .filter(move |w| !w.starts_with('\\') && w.chars().count() >= letters)
}

/// Words of three or more letters outside LaTeX commands that make a text prose (a sentence or more), not a
/// bare LaTeX answer (`\text{Plane}` has one).
const PROSE_WORDS: usize = 6;

/// Is the text prose rather than one LaTeX answer: [`PROSE_WORDS`] or more words outside commands?
fn prose_like(text: &str) -> bool {
    words(text, 3).nth(PROSE_WORDS - 1).is_some()
}

/// Does an answer parse?
pub fn parses(answer: &str) -> bool {
    answer.len() <= MAX_ANSWER_BYTES && lex(answer).and_then(parse).and_then(sets::resolve).is_ok()
}

/// An answer found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub text: String,
    pub source: Source,
    /// Why the text does not assert it (a negation, bound or hedge around it, or a revision after it): such
    /// an answer scores 0.
    pub withdrawn: Option<&'static str>,
    /// With choice letters read: the letter labelling the answer on its line (`(B) 3`), which answers a
    /// multiple-choice reference.
    pub label: Option<char>,
}

/// The answer of `text`: the first candidate by priority decides where the answer is. Of the readings that
/// start there (an expression and the number it starts with), the first that parses is the answer; when none
/// parses, the candidate is kept whole for a textual comparison — it never falls back to a number inside it
/// or to a weaker candidate elsewhere (`\boxed{\text{not } 5}` is not 5).
pub fn find(text: &str, targets: Targets) -> Option<Found> {
    find_within(text, targets, 0..text.len(), false)
}

/// [`find`] with the answer taken from `text[span]` only, while the words around the span are still read for
/// hedges and revisions; `tag`: the span is an answer tag's content, which may be one bare answer
/// ([`Source::Tag`]).
pub fn find_within(text: &str, targets: Targets, span: std::ops::Range<usize>, tag: bool) -> Option<Found> {
    let everywhere = candidates(text, targets);
    let mut all = if span.end == text.len() { everywhere.clone() } else { candidates(&text[..span.end], targets) };
    all.retain(|c| c.start >= span.start && c.end <= span.end);
    if tag {
        let inner = &text[span.clone()];
        // A Markdown bullet before the tag's one answer (`<answer>\n- 23\n</answer>`) is a list mark, not a sign.
        let unbulleted = ["- ", "* ", "• "]
            .iter()
            .find_map(|b| inner.trim_start().strip_prefix(b))
            .filter(|r| !r.trim_end().contains('\n'));
        let inner = unbulleted.unwrap_or(inner);
        // Markdown bold around the one answer (`<answer>**\\frac{3}{4}**</answer>`) is markup.
        let inner = ["**", "__"]
            .iter()
            .find_map(|b| inner.trim_end().strip_suffix(b).and_then(|r| r.trim_start().strip_prefix(b)))
            .filter(|r| !r.contains(['*', '_']))
            .unwrap_or(inner);
        let whole = inner.trim();
        if let Some(answer) = bare_answer(whole, targets) {
            // `whole` is a part of `text`: its offset there.
            let start = whole.as_ptr() as usize - text.as_ptr() as usize;
            all.push(Candidate { text: answer, source: Source::Tag, start, end: start + whole.len() });
            all.sort_by_key(|c| (c.source.priority(), std::cmp::Reverse(c.end), c.start, c.source));
        }
    }
    let first = all.first()?;
    let same_place = |c: &&Candidate| c.source.priority() == first.source.priority() && c.start == first.start;
    let chosen = all.iter().filter(same_place).take(MAX_TRIES).find(|c| parses(&c.text)).unwrap_or(first);
    // Read past the same value said again (`\\boxed{\\frac14}, or 25%`): no second value, no revision.
    let restated =
        hedge::restatement_end(text, chosen.start, chosen.end).map(|end| Candidate { end, ..chosen.clone() });
    let past = restated.as_ref().unwrap_or(chosen);
    // Where a choice letter's option text ends (`C)620`): the words around it are read from there.
    let option_end = choices::option_end(text, chosen);
    let withdrawn = match chosen.source {
        // `~5` alone is approximately 5 (LaTeX's `~` is a space only inside math).
        Source::Whole | Source::Tag if text[chosen.start..].starts_with('~') => {
            Some("approximate (~ before the answer)")
        }
        // The whole text is the answer: nothing around it.
        Source::Whole => None,
        Source::Prose | Source::Block if stops_mid_sentence(text, chosen.end) => {
            Some("the text stops mid-sentence after it (truncated reasoning)")
        }
        // `Answer: ~43`, `Answer: TBD` after it: the text names a later place as its answer and that holds no value
        // read; a number before it is not the answer.
        Source::Prose | Source::Block if answer_label_after(text, chosen.end) => {
            Some("an answer label after it holds no value read (Answer: ~43)")
        }
        Source::Prose | Source::Block if in_open_display(text, chosen.start) => {
            Some("the text stops inside a display that never closes (truncated reasoning)")
        }
        _ if prose_number(text, chosen) && hedge::inside_bracket(text, chosen.start) => {
            Some("an argument inside brackets, not an answer")
        }
        _ if prose_number(text, chosen) && hedge::in_list(text, chosen.start) => {
            Some("one element of a tuple, interval or set, not the answer")
        }
        // `The answer is 5 = 6.`, `Answer: 5 => 6`: the value after an equation whose other side is another value.
        Source::Prose | Source::AnswerWord | Source::AnswerColon | Source::FinalAnswer | Source::Minerva
            if false_equation_before(text, chosen) =>
        {
            Some("a side of a false equation (5 = 6)")
        }
        // `y = 2x + 1`: the last term of an expression in a variable is not its value.
        Source::Prose if term_of_expression(text, chosen.start) => Some("a term of an expression, not a value"),
        // `The total cost is $48 + 24` and the text ends: a computation cut off before its result.
        Source::Prose if chosen.text.contains(['+', '*', '×']) && text[chosen.end..].trim().is_empty() => {
            Some("the text stops mid-computation (truncated reasoning)")
        }
        // `Step 1:`, `Case 2:`: a number that labels what comes after its colon.
        Source::Prose
            if text[chosen.end..].trim_start_matches(['*', '_']).starts_with([':', '：'])
                && words_before_label(text, chosen.start) =>
        {
            Some("the number of a label (Step 1:), not an answer")
        }
        Source::AnswerColon | Source::AnswerWord if hedge::doubtful_label(text, chosen.start) => {
            Some("labelled as something other than the answer (wrong answer: …)")
        }
        _ => hedge::around(text, chosen.start, option_end, chosen.source == Source::Boxed)
            // A box that restates the number before it (`= 72 \\boxed{72}`) is hedged by what hedges that number.
            .or_else(|| {
                let restated = (chosen.source == Source::Boxed)
                    .then(|| hedge::restated_number(text, chosen.start, chosen.end))
                    .flatten();
                restated.and_then(|(a, b)| hedge::around(text, a, b, false))
            })
            // The last of several values ending its sentence (`So the cost is 5, 6.`, `<answer>5 | 6</answer>`).
            .or_else(|| {
                (chosen.source != Source::Boxed
                    && hedge::listed_after_value(text, span.start, chosen.start, chosen.end))
                .then_some("one of several values (5, 6)")
            })
            .or_else(|| revised(text, &everywhere, past))
            .or_else(|| restated_differently(text, &everywhere, past))
            .or_else(|| valued_after_tag(text, chosen))
            .or_else(|| {
                // From the answer's line, or the line above when the answer is alone on its own (`I don't know.`
                // above `\\boxed{42}` or `- 42`).
                let mut line = text[..chosen.start].rfind('\n').map_or(0, |i| i + 1);
                let lead = super::markup::unlisted(text[line..chosen.start].trim_start());
                if lead.trim_matches(|c: char| c.is_whitespace() || matches!(c, '$' | '*' | '_')).is_empty() && line > 0
                {
                    line = text[..line - 1].trim_end().rfind('\n').map_or(0, |i| i + 1);
                }
                hedge::disowned(text, line).then_some("disowned (no answer, an example, disregard that)")
            })
            .or_else(|| closed_differently(text, &everywhere, past, targets))
            .or_else(|| super::conditions::conditioned_differently(text, past, targets))
            .or_else(|| super::records::several_in_record(text, chosen)),
    };
    // Read only where an answer is stated (a letter reference without `string`), a bare letter is no choice beside
    // another it offers (`B → C`, `B und C`) nor under a condition or a guess (`B when n is odd`, `B (60%)`).
    let strict = targets.answer_letters && !targets.string;
    // A label's option text is its own (`(C) Both A and B`); after a label, only marks may offer another letter.
    let option_text = text[..chosen.end].ends_with(')')
        && text[chosen.end..].trim_start().starts_with(|c: char| c.is_alphanumeric() || matches!(c, '$' | '\\'));
    let bare = strict && matches!(chosen.source, Source::Letter(_)) && option_end == chosen.end && !option_text;
    let letter = strict && matches!(chosen.source, Source::Letter(_));
    // A bare letter in an equation is a variable (`Answer: E = mc^2`).
    let equation = bare && text[chosen.end..].trim_start().starts_with(['=', '^', '_']);
    let doubted = equation
        || letter && choices::conditional_after(text, option_end)
        || strict && matches!(chosen.source, Source::Letter(_)) && choices::doubted_before(text, chosen.start);
    if doubted && withdrawn.is_none() {
        let (text, source) = (chosen.text.clone(), chosen.source);
        return Some(Found { text, source, withdrawn: Some("a choice under a condition or a guess"), label: None });
    }
    // Two letters chosen (`C, D`, `(C)/(D)`, `C and D`): no single choice.
    if matches!(chosen.source, Source::Letter(_))
        && withdrawn.is_none()
        && (another_letter_follows(text, option_end, targets.choices)
            || bare && choices::another_letter_offered(text, chosen.end, targets.choices, false)
            || letter && !bare && choices::another_letter_offered(text, option_end, targets.choices, true)
            || strict && choices::another_letter_offered_before(text, chosen.start, targets.choices)
            || another_letter_before(text, chosen.start, targets.choices)
            || (option_end > chosen.end || text[..chosen.end].ends_with(')'))
                && labelled_option_after(text, option_end, targets.choices)
            || labelled_line_above(text, chosen.start, targets.choices))
    {
        let (text, source) = (chosen.text.clone(), chosen.source);
        return Some(Found { text, source, withdrawn: Some("two choices"), label: None });
    }
    // A choice letter that the text negates (`réponse est C non A`, `B。不是 A`) is not the one chosen: the
    // next letter the text offers is read instead.
    // Only a letter negated where it stands: a letter revised later is not replaced by an earlier one.
    let negated = || hedge::around(text, chosen.start, option_end, false).is_some();
    if let (Source::Letter(priority), Some(_), true) = (chosen.source, withdrawn, negated()) {
        let mut end = chosen.start;
        for _ in 0..MAX_TRIES {
            let Some((start, stop)) = letters::last_before(text, end, targets.choices) else { break };
            // Only a letter just before it on its line (`C non A`), never one the reasoning ruled out earlier.
            if chosen.start - start > NEGATED_WINDOW || text[start..chosen.start].contains('\n') {
                break;
            }
            let letter = text[start..stop].trim_matches(|c: char| !c.is_ascii_uppercase()).to_owned();
            if letter != chosen.text && hedge::around(text, start, stop, false).is_none() {
                return Some(Found { text: letter, source: Source::Letter(priority), withdrawn: None, label: None });
            }
            end = start;
        }
    }
    // A label, unless another choice follows (`(A) 1 (B) 2` labels every option).
    let label = ((targets.string || targets.answer_letters) && !matches!(chosen.source, Source::Letter(_)))
        .then(|| choice_label(text, chosen.start, targets.choices))
        .flatten()
        .filter(|_| {
            !another_letter_follows(text, chosen.end, targets.choices)
                && !labelled_option_after(text, chosen.end, targets.choices)
                && !labels_listed_before(text, chosen.start, targets.choices)
        });
    Some(Found { text: chosen.text.clone(), source: chosen.source, withdrawn, label })
}

/// Is there an answer label after `from`: a line (or the rest of `from`'s line) that starts with `Answer:`,
/// `Final answer:`, `**Answer**:`, `Final result:`, `【答案】`, `Ответ:` or `####`, or an `answer is` before a
/// relation or approximation sign (`The answer is ≈43`)?
fn answer_label_after(text: &str, from: usize) -> bool {
    let lower = text[from..].to_ascii_lowercase();
    // A bound or approximation instead of a value: the relations `hedge` reads before a value, and `~ < > ±`.
    let signed = completion::ANSWER_LEADS.iter().any(|lead| {
        lower.match_indices(lead).any(|(i, _)| {
            let rest = lower[i + lead.len()..].trim_start_matches([' ', '$', '*', ':']);
            let command =
                rest.strip_prefix('\\').map(|r| &r[..r.len() - r.trim_start_matches(char::is_alphabetic).len()]);
            rest.starts_with(['~', '<', '>', '±'])
                || PLACEHOLDERS.iter().any(|p| rest.starts_with(p))
                || rest.chars().next().is_some_and(hedge::bounding_symbol)
                || command.is_some_and(|name| name == "pm" || hedge::bounding_command(name))
        })
    });
    if signed {
        return true;
    }
    let markup = |c: char| c.is_whitespace() || matches!(c, '#' | '*' | '_' | '>' | '【' | '.' | ',' | ';');
    text[from..].split('\n').any(|line| {
        // GSM8K's mark before a value, not a Markdown heading (`#### Step 2`).
        let gsm8k = line
            .trim_start_matches(|c: char| c.is_whitespace() || c == '>')
            .strip_prefix(GSM8K_MARK)
            .is_some_and(|r| !r.starts_with('#') && !r.trim_start().starts_with(char::is_alphabetic));
        let line = line.trim_start_matches(markup);
        let head = &line[..hedge::floor_boundary(line, line.len().min(24))];
        let lower = head.to_lowercase();
        gsm8k
            || completion::LABEL_LINES.iter().any(|l| {
                lower.strip_prefix(l).is_some_and(|r| {
                    let r = r.trim_start_matches(['*', '_', ' ']);
                    // `Answer: see above` points back to the value: it is the answer.
                    let rest = r.get(r.chars().next().map_or(0, char::len_utf8)..).unwrap_or("").trim_start();
                    r.starts_with([':', '：', '】']) && !POINTING_BACK.iter().any(|p| rest.starts_with(p))
                })
            })
    })
}

/// What, after an answer's label, points back to the value given before it (`Answer: see above`).
const POINTING_BACK: &[&str] =
    &["see above", "(see above)", "as above", "above", "as computed above", "as shown above"];

/// What stands for an answer not given (`The answer is ???`, `[insert answer]`, `...`, `TBD`), lowercase.
const PLACEHOLDERS: &[&str] = &[
    "?",
    "？",
    "[",
    "...",
    "…",
    "—",
    "–",
    "__",
    "\\text{?}",
    "\\ldots",
    "\\dots",
    "tbd",
    "to be determined",
    "unknown",
    "n/a",
    "see below",
    "not determined",
    "undetermined",
    "pending",
];

/// Does the answer at `start` lie in a display opened before it that the text never closes (`\\[ … = 1.5
/// \\times 14 = 21` and the text ends): a computation cut off, not an answer?
fn in_open_display(text: &str, start: usize) -> bool {
    let before = &text[..start];
    // `\\[2pt]` is a line break in an environment, not a display.
    let opener = |o: &str| before.rmatch_indices(o).map(|(at, _)| at).find(|&at| !before[..at].ends_with('\\'));
    let open = |o: &str, c: &str| opener(o).is_some_and(|at| !text[at..].contains(c));
    open("\\[", "\\]") || open("\\(", "\\)") || before.matches("$$").count() % 2 == 1 && !text[start..].contains("$$")
}

/// Words no sentence ends on: articles, prepositions, conjunctions, auxiliaries.
const OPEN_ENDINGS: &[&str] = &[
    "a", "an", "the", "of", "on", "in", "to", "for", "with", "by", "from", "at", "into", "than", "as", "and", "or",
    "but", "because", "that", "which", "whose", "is", "are", "was", "were", "be", "will", "would", "can", "could",
    "should", "must", "has", "have", "had", "not", "if", "then", "we", "our", "their", "his", "her", "its",
];
/// Phrases that end a sentence though their last word is in [`OPEN_ENDINGS`].
const CLOSED_PHRASES: &[&str] = &["so on", "and on", "or not", "if not", "later on", "as well"];

/// Does the text after an answer found without any marker stop mid-sentence: go on into a new clause and stop
/// (`3*4 = 12, so we need to multiply by`), or stop on a word no sentence ends on (`James collects 50 tins on`,
/// `16% of the ads are not`)? That is reasoning cut off, its last number no answer. A final sentence without a
/// full stop (`So she has 14 apples`) does not.
fn stops_mid_sentence(text: &str, end: usize) -> bool {
    let tail = text[end..].trim_end_matches(|c: char| c.is_whitespace() || c == '*');
    // A clause opened and never written (`… = 59.\n\nTherefore,`).
    if tail.ends_with([',', '，']) {
        return true;
    }
    if !tail.ends_with(|c: char| c.is_alphabetic()) {
        return false;
    }
    let words: Vec<&str> = tail.rsplit(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()).take(2).collect();
    let last = words.first().map(|w| w.to_ascii_lowercase()).unwrap_or_default();
    let phrase = words.iter().rev().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join(" ");
    // A capital `A` at the end names a choice or a point (`which is option A`), not the article.
    let label = words.first().is_some_and(|w| *w == "A");
    if OPEN_ENDINGS.contains(&last.as_str()) && !label && !CLOSED_PHRASES.contains(&phrase.as_str()) {
        return true;
    }
    let Some(mark) = tail.rfind([',', ';', '.', ':']) else { return false };
    tail[mark + 1..].split_whitespace().nth(1).is_some()
}

/// Is the number at `start` a term after an operator whose other side is a variable (`2x + 1`, `x^2 - 5`,
/// `(a+b) * 3`)? A word before the operator is prose (`is - 5`).
fn term_of_expression(text: &str, start: usize) -> bool {
    let before = text[..start].trim_end_matches(' ');
    let Some(op) = before.chars().next_back().filter(|c| matches!(c, '+' | '-' | '*' | '/' | '^' | '_' | '×')) else {
        return false;
    };
    let left = before[..before.len() - op.len_utf8()].trim_end_matches(' ');
    let mut back = left.chars().rev();
    match back.next() {
        Some(')' | '}') => true,
        Some(c) if c.is_ascii_alphabetic() => back.next().is_none_or(|p| !p.is_alphabetic()),
        _ => false,
    }
}

/// Is the number at `start` preceded on its line by one word only (`Step 1:`, `**Case 2**:`, `Part 3:`)?
fn words_before_label(text: &str, start: usize) -> bool {
    let line = &text[text[..start].rfind('\n').map_or(0, |i| i + 1)..start];
    let line = line.trim_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '#' | '_'));
    !line.is_empty() && line.chars().all(char::is_alphabetic)
}

/// Is the answer a number or expression read from prose (not a box or a math block)?
fn prose_number(text: &str, c: &Candidate) -> bool {
    let at = &text[c.start..];
    !matches!(c.source, Source::Boxed | Source::Whole | Source::Tag | Source::Block | Source::Letter(_))
        && !at.starts_with(['$', '\\'])
}

/// Is the answer revised after it? When the answer is stated again after the last revision word, it stands
/// (`Wait, let me verify: 5·2 = 10. So the answer is indeed 5.`); otherwise a different value after the first
/// revision word revises it (`\\boxed{5}. Wait, it is 6.`), and so does a disavowal (`\\boxed{5}. That is
/// wrong.`, `I'm not sure`). A check that confirms it (`Let me verify: 48+24=72. Correct.`), a negated
/// disavowal (`I made no mistakes`) or a wrong thing that is not the answer (`a wrong approach would be to
/// subtract`) does not.
fn revised(text: &str, all: &[Candidate], chosen: &Candidate) -> Option<&'static str> {
    let revisions = hedge::revisions_after(text, chosen.end);
    let (first, last) = (revisions.first?, revisions.last?);
    let same = |c: &Candidate| parses(&c.text) && super::math_equal(&c.text, &chosen.text).equal;
    // The same value again, and not hedged where it is written (`Wait, I think it's 6 or 5` restates nothing).
    let again = |c: &Candidate| same(c) && hedge::around(text, c.start, c.end, c.source == Source::Boxed).is_none();
    // A choice letter is revised by another letter only, and restated by the same letter anywhere after the
    // revision (`(C) Plane. Wait, … z = c is a plane … the only correct option is (C) Plane.`).
    let letter = |c: &Candidate| matches!(c.source, Source::Letter(_));
    let chose_letter = letter(chosen);
    let restated = all
        .iter()
        .filter(|c| c.start >= last && (stated(text, last, c) || chose_letter && letter(c)))
        .take(MAX_RESTATED)
        .any(&again);
    if restated {
        return None;
    }
    let different = all
        .iter()
        .filter(|c| c.start >= first && c.start >= chosen.end && letter(c) == chose_letter)
        .take(MAX_RESTATED)
        .any(|c| parses(&c.text) && !same(c));
    // A revising word alone stands only when the check it opens confirms the answer (`Correct.`, or it arrives
    // at the same value: `Actually, let me recompute: 8 \\times 9 = 72.`).
    let agreeing = all.iter().filter(|c| c.start >= first).take(MAX_RESTATED).any(&again);
    let confirmed = agreeing || hedge::confirms(text, first);
    // `Note: If the problem intended degrees instead, the answer would differ.`: `instead` (or `otherwise`,
    // `rather`, `alternatively`) in a sentence of a case, with no value after it, is a remark on another reading.
    let remark = {
        let word_start = text[..first].trim_end_matches(char::is_alphabetic).len();
        let word = text[word_start..first].to_ascii_lowercase();
        let (opening, closing) = sentence_around(text, word_start, first);
        matches!(word.as_str(), "instead" | "otherwise" | "rather" | "alternatively")
            && hedge::words_of(opening)
                .iter()
                .chain(&hedge::words_of(closing))
                .any(|w| CASE_WORDS.contains(&w.as_str()))
    };
    (different || revisions.disavowed || !confirmed && !remark).then_some("revised after the answer")
}

/// Is `c` an answer stated after `from`: `final answer is X`, `answer: X`, a box, or `answer is X` with only
/// [`STATING`] words between?
fn stated(text: &str, from: usize, c: &Candidate) -> bool {
    match c.source {
        Source::Minerva | Source::FinalAnswer | Source::AnswerColon | Source::Boxed => true,
        // A letter after `answer:`, a choosing phrase or a foreign answer word.
        Source::Letter(priority) => priority <= 200,
        Source::AnswerWord => {
            let before = &text[from..c.start];
            // The last `answer` in any ASCII case, read back from the candidate (no lower-case copy of the text).
            let Some(at) = before.as_bytes().windows("answer".len()).rposition(|w| w.eq_ignore_ascii_case(b"answer"))
            else {
                return false;
            };
            before[at + "answer".len()..]
                .split(|ch: char| !ch.is_ascii_alphabetic())
                .filter(|w| !w.is_empty())
                .all(|w| STATING.contains(&w.to_ascii_lowercase().as_str()))
        }
        _ => false,
    }
}

/// Marks and words that open an aside after an answer's value: a reason, a side fact, a bracket.
const ASIDES: &[&str] = &[
    ": ",
    " at ",
    " by ",
    " in ",
    " via ",
    " per ",
    " once ",
    " after ",
    " to ",
    " since ",
    " because ",
    " as ",
    " where ",
    " given ",
    " with ",
    " for ",
    " when ",
    " if ",
    "; ",
    " — ",
    "(",
    "[",
    ", and ",
    " and ",
    ", so ",
    ", which ",
];

/// Statements after the answer compared with it at most.
const MAX_RESTATED: usize = 4;

/// Filler between `answer` and a value that states it (`the answer is actually 6`); other words (`check this
/// answer by plugging in 2`) make the value something else.
const STATING: &[&str] = &[
    "is",
    "was",
    "would",
    "should",
    "must",
    "be",
    "actually",
    "really",
    "then",
    "therefore",
    "thus",
    "so",
    "equals",
    "now",
];

/// Does the text after the answer state a different one (`\boxed{5}. The answer is 6.`)? An answer stated twice
/// with two values is no answer. Only statements are read: `final answer is X`, `answer: X`, and `answer is X`
/// with nothing but [`STATING`] words between.
fn restated_differently(text: &str, all: &[Candidate], chosen: &Candidate) -> Option<&'static str> {
    // A few suffice (the answer is restated once or twice); each comparison spends the call's budget. A later
    // box is another answer after a tag or an anchor (`<answer>4</answer> \\boxed{5}`); after a box it is
    // where the boxes end (the last box is the one chosen).
    let later: Vec<&Candidate> = all
        .iter()
        .filter(|c| {
            c.start >= chosen.end
                && (c.source != Source::Boxed || chosen.source != Source::Boxed)
                && stated(text, chosen.end, c)
        })
        .take(MAX_RESTATED)
        .collect();
    let differs = |c: &Candidate| parses(&c.text) && !super::math_equal(&c.text, &chosen.text).equal;
    if !later.iter().any(|c| differs(c)) {
        return None;
    }
    // `Note: if the empty set were included, the answer would be 11. Since the problem asks for nonempty subsets, the
    // answer is 10.`, `… the answer would be 3, but it asks for days.`: each other answer is a case's, in a sentence
    // with a condition, and the answer is stated again last or the case turned back after it.
    let last_same = later.len() < MAX_RESTATED && later.iter().max_by_key(|c| c.start).is_some_and(|c| !differs(c));
    let set_aside = later.iter().filter(|c| differs(c)).all(|c| {
        let (opening, closing) = sentence_around(text, c.start, c.end);
        let conditional = hedge::words_of(opening).iter().any(|w| CASE_WORDS.contains(&w.as_str()));
        let turned = hedge::words_of(closing).iter().any(|w| matches!(w.as_str(), "but" | "however"));
        conditional && (last_same || turned)
    });
    (!set_aside).then_some("a different answer stated after it")
}

/// Words of a sentence that make its answer a case's (`If …, the answer would be 11`).
const CASE_WORDS: &[&str] = &["if", "would", "were", "had", "unless", "suppose", "supposing"];
/// Longest part of a sentence read on each side of an answer in it (bytes).
const SENTENCE_SIDE: usize = 200;

/// The sentence around `text[start..end]`: its part before `start` and its part after `end` (each up to a full stop,
/// a line break or [`SENTENCE_SIDE`] bytes).
fn sentence_around(text: &str, start: usize, end: usize) -> (&str, &str) {
    let before = hedge::window_before(text, start, SENTENCE_SIDE);
    let before = &before[before.rfind(['.', '\n', '!', '?']).map_or(0, |i| i + 1)..];
    let after = hedge::window_after(text, end, SENTENCE_SIDE);
    (before, &after[..after.find(['.', '\n', '!', '?']).unwrap_or(after.len())])
}

/// Is `text` an expression written in plain text with an operator and one-letter variables only (`2x + 3`,
/// `x^2 - 1`, `3a+2b`): no word (`5 or 6`, `2 dozen`) and no lone scaled number (`5k`)?
fn expression_line(text: &str) -> bool {
    let letters = |w: &str| w.chars().filter(char::is_ascii_alphabetic).count();
    let operator = text.trim_start_matches(['-', '+']).contains(['+', '-', '*', '/', '^']);
    operator
        && text.chars().all(|c| c.is_ascii_alphanumeric() || " +-*/^().".contains(c))
        && text.chars().any(|c| c.is_ascii_alphabetic())
        && text.split(|c: char| !c.is_ascii_alphabetic()).all(|w| w.len() <= 1)
        && text.split_whitespace().all(|w| letters(w) <= 2)
}

/// GSM8K's answer marker (`#### 72`), as verl's `gsm8k` scorer reads it.
pub(super) const GSM8K_MARK: &str = "####";

/// Is the line that starts `rest` (after `####`) one value: a number, sign, currency, bracket, command or
/// variable first, and no word (`#### 72`, `#### $1,234`, `#### [3, 7)`, `#### x^2+2x+1`; a heading `#### 1.
/// Setup` is not)?
fn gsm8k_value(rest: &str) -> bool {
    let line = rest[..rest.find('\n').unwrap_or(rest.len())].trim();
    line.starts_with(|c: char| c.is_ascii_alphanumeric() || "-−$([{\\.".contains(c)) && words(line, 2).next().is_none()
}

/// Is `text` one LaTeX expression written without math delimiters (`\\frac{3}{4}`, `2\\sqrt{3}`, `\\pi`,
/// `2^{10}`): a command or a braced group, no box or math block, and no word outside command names (`\\frac{1}{2}
/// and` is not one answer)?
fn latex_line(text: &str) -> bool {
    text.contains(['\\', '{'])
        && !text.contains(['$', '\n'])
        && !text.ends_with([',', ';', ':', '\\'])
        && !text.starts_with("\\boxed")
        && !text.starts_with("\\fbox")
        && words(text, 2).next().is_none()
        && blocks::blocks(text).is_empty()
}

/// Is `text` a bare list of values, a comma and a space between them (`1, 2, 3`, `-1, \\frac{1}{2}`), no word? Read
/// whole, it answers a question asking for all values (a number with thousands separators has no space: `1,234`).
fn value_list(text: &str) -> bool {
    let parts: Vec<&str> = text.split(", ").collect();
    parts.len() >= 2
        && words(text, 2).next().is_none()
        && parts.iter().all(|p| {
            let p = p.trim();
            !p.is_empty()
                && !p.contains(',')
                && p.trim_start_matches(['-', '−']).starts_with(|c: char| c.is_ascii_digit() || c == '\\')
        })
}

/// Is `text` several values each named by one variable (`x = 3, y = 4`, `a=2 and b=5`): a solution of a system,
/// read whole as a tuple is, never by its last coordinate?
fn named_values(text: &str) -> bool {
    let joined = text.replace(", and ", ", ").replace(" and ", ", ");
    let parts: Vec<&str> = joined.split(',').collect();
    parts.len() >= 2 && parts.iter().all(|p| named_value(p).is_some())
}

/// `x = 3` (a one-variable name, a value with no word): the value.
fn named_value(part: &str) -> Option<&str> {
    let (name, value) = part.split_once('=')?;
    let name = name.trim();
    let value = value.trim();
    let named = name.len() <= 6
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '{' | '}'))
        && name.chars().filter(char::is_ascii_alphabetic).count() <= 2;
    (named && !value.is_empty() && !value.contains('=') && words(value, 2).next().is_none()).then_some(value)
}

/// Is `text` a tuple, a list or an interval (`(2, 4)`, `[1, 1, 1]`, `[0, 1)`)?
fn bracketed_list(text: &str) -> bool {
    text.starts_with(['(', '[']) && text.ends_with([')', ']']) && text.contains(',')
}

/// Is `text` one letter, the whole of an answer line (`Answer: x`, `【答案】A`, `The answer is (b)`): a variable,
/// a point's name or an option.
fn lone_letter(text: &str) -> bool {
    let letter = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(text);
    letter.len() == 1 && letter.bytes().all(|b| b.is_ascii_alphabetic())
}

/// Does a value follow the answer tag on its line (`<answer>4</answer> = 5`, `<answer>4</answer> 5`)? The tags
/// are spaces here, so the text after the content is read as it continues.
fn valued_after_tag(text: &str, chosen: &Candidate) -> Option<&'static str> {
    if chosen.source != Source::Tag {
        return None;
    }
    let line = text[chosen.end..].split('\n').next().unwrap_or("").trim_start().trim_start_matches(['$', '(']);
    let equation = line.strip_prefix('=').is_some_and(|r| !r.starts_with('='));
    // The same value restated after the tag (`<answer>5</answer> (5 apples)`) is no other value.
    let number = &line[..line.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(line.len())];
    let restated = !number.is_empty() && super::math_equal(number.trim_end_matches('.'), &chosen.text).equal;
    (equation || !restated && line.starts_with(|c: char| c.is_ascii_digit()))
        .then_some("a value written on after the answer tag")
}

/// Does the text close on a different value: is its last math block after the answer's sentence, stating a value
/// ([`super::equiv::states_a_value`]: `$5$`, `$x = 5$`, not `$4 \\times 5 = 20$` or `$n$`) that is not the
/// answer (`\\boxed{4}. Sorry, it's $5$.`, `\\boxed{4}\n\nTherefore $x = 5$`)? A reader takes the last value
/// stated as the answer, whatever words lead to it.
fn closed_differently(text: &str, all: &[Candidate], chosen: &Candidate, targets: Targets) -> Option<&'static str> {
    // A box in math of its own (`$\\boxed{5}$`, `\\[\\boxed{5}\\]`): the text after that math is read again, since
    // the blocks on either side of a blank line are read as one list (`$\\boxed{5}$` then `$6$`).
    let closing = text[chosen.end..].trim_start_matches([' ', '\t']);
    let after_math = ["$$", "$", "\\]", "\\)"].iter().find(|d| closing.starts_with(**d)).map(|d| {
        let from = text.len() - closing.len() + d.len();
        candidates(&text[from..], targets).into_iter().map(move |c| Candidate {
            start: c.start + from,
            end: c.end + from,
            ..c
        })
    });
    // The last value of the text, in a block or in prose (another reading may hold it: `it is $5$` is also read
    // after `answer … is`).
    let last = all
        .iter()
        .cloned()
        .chain(after_math.into_iter().flatten())
        .filter(|c| c.start >= chosen.end && matches!(c.source, Source::Block | Source::Prose | Source::AnswerWord))
        .max_by_key(|c| c.start)?;
    let last = &last;
    let between = &text[chosen.end..last.start];
    // A new sentence, or closing words alone between them (`\\boxed{5} Therefore 6.`).
    let lead: Vec<String> = hedge::words_of(between);
    let new_sentence = chosen.source == Source::Tag
        || between.contains(['.', '!', '?', ';', '\n', '。'])
        || !lead.is_empty() && lead.len() <= CLOSING_WORDS && lead.iter().all(|w| CLOSING_LEAD.contains(&w.as_str()));
    // A named value (`$x = 5$`) restates the answer only under the answer's own name (`x = \\boxed{4}` … `x = 5`):
    // otherwise it is usually another quantity (`Thus $b = 5$.`, `We assumed $n = 2$.`).
    // An answer stated without naming what it is (`\\boxed{4}`, `The answer is \\boxed{4}`) is restated by any
    // name (`Therefore $x = 5$`).
    let named = last.text.contains('=');
    (new_sentence
        && closing_statement(text, chosen.end, last.start, last.end)
        && super::equiv::states_a_value(&last.text)
        && !super::math_equal(&last.text, &chosen.text).equal
        && (!named || same_name(text, chosen, &last.text) || generic_answer(text, chosen)))
    .then_some("a different value stated after it")
}

/// Is `text[start..end]` a closing statement about the answer: nothing but punctuation and markup after it, not in
/// brackets, and only [`CLOSING_LEAD`] words before it in its sentence (`However, it's $5$.`, `Sorry, it's 5.`,
/// `No: 5.`, `The correct value is 5.`)? A word naming another quantity (`The median is $4$.`, `In grams:
/// 2500.`, `Check: both sides equal $10$.`) makes it an explanation, which keeps the answer.
fn closing_statement(text: &str, answer_end: usize, start: usize, end: usize) -> bool {
    let after = text[end..].trim_start_matches(|c: char| c.is_whitespace() || "$.!*_`\\])}".contains(c));
    // Past the mark, whatever its width (`。` is three bytes).
    let line_start = text[..start]
        .char_indices()
        .rev()
        .find(|&(_, c)| matches!(c, '.' | '!' | '?' | ';' | '\n' | '。' | '('))
        .map_or(0, |(i, c)| i + c.len_utf8())
        .max(answer_end);
    let opened = text[..start].rfind('(').is_some_and(|i| !text[i..start].contains(')'));
    let lead = text[line_start..start].to_lowercase().replace(['’', '`'], "'");
    let words: Vec<&str> = lead.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect();
    after.is_empty() && !opened && words.len() <= CLOSING_WORDS && words.iter().all(|w| CLOSING_LEAD.contains(w))
}

/// Words before a closing value at most.
const CLOSING_WORDS: usize = 5;
/// The words that may lead a closing value: connectives, interjections, and words that name the answer itself.
const CLOSING_LEAD: &[&str] = &[
    "however",
    "so",
    "therefore",
    "thus",
    "hence",
    "actually",
    "instead",
    "rather",
    "then",
    "no",
    "nope",
    "sorry",
    "hmm",
    "oh",
    "oops",
    "wait",
    "well",
    "it",
    "it's",
    "its",
    "is",
    "was",
    "be",
    "should",
    "that",
    "that's",
    "the",
    "a",
    "make",
    "i",
    "mean",
    "meant",
    "final",
    "result",
    "answer",
    "correct",
    "true",
    "real",
    "right",
    "value",
    "number",
    "solution",
    "really",
    "double",
    "checking",
    "rechecking",
];

/// Words whose operand the number after them is (`50% of 12`, `3 times 2`, `12 divided by 4`).
const OPERAND_WORDS: &[&str] = &[
    "of", "times", "by", "plus", "minus", "over", "from", "at", "per", "and", "x", "than", "to", "into", "with", "mod",
    "modulo",
];

/// Does an equation end right before the answer whose other side is a different value (`5 = 6`, `5 => 6`,
/// `5 := 6`; not `5 + 1 = 6`, `x = 6`)? The side is the math between the equals sign and a word, a label's colon
/// or the text's start; a side cut short by anything else is no side.
fn false_equation_before(text: &str, chosen: &Candidate) -> bool {
    let head = text[..chosen.start].trim_end_matches([' ', '$', '{']);
    let head = head.strip_suffix("\\boxed").unwrap_or(head).trim_end();
    let marks = ["===>", "==>", "=>", "-->", "->", "::=", "=::", "=:", ":=", "==", "=?", "=!", "~=", "="];
    let Some(head) = marks.iter().find_map(|e| head.strip_suffix(e)) else { return false };
    let head = &head[hedge::floor_boundary(head, head.len().saturating_sub(64))..];
    // The math before it: digits, operators, brackets and LaTeX commands (`\\frac{1}{2}`), back to a word.
    let bytes = head.as_bytes();
    let mut start = head.len();
    while start > 0 {
        let c = bytes[start - 1];
        if c.is_ascii_digit() || b" +-*/^().{}\\$".contains(&c) {
            start -= 1;
        } else if c.is_ascii_alphabetic() {
            let run = head[..start].bytes().rev().take_while(u8::is_ascii_alphabetic).count();
            if start > run && bytes[start - run - 1] == b'\\' {
                start -= run + 1;
            } else {
                break;
            }
        } else {
            break;
        }
    }
    let side = head[start..].trim().trim_matches('$').trim();
    // The whole side: a word, a label's colon or the text's start before it, not a mark the scan does not read
    // (`1,250 + 1,250 = 2,500`, `35 · 4 = 140`, `√16 = 4` have a longer side).
    let bounded = head[..start]
        .trim_end()
        .chars()
        .next_back()
        // An `=` before it chains the equation (`x = 12 = 13`: 12 is said to be 13).
        .is_none_or(|c| c.is_alphabetic() || matches!(c, ':' | '：' | '#' | '*' | '>' | '='));
    // A value alone, not a computation (whose slip is no second answer: `12 + 43 = 74`), and not the operand of a
    // word before it (`50% of 12 = 6`, `3 times 2 = 6`, `17 mod 5 = 2`).
    let chained = head[..start].trim_end().ends_with('=');
    let operand =
        !chained && hedge::words_of(&head[..start]).last().is_some_and(|w| OPERAND_WORDS.contains(&w.as_str()));
    if !bounded
        || operand
        || !side.contains(|c: char| c.is_ascii_digit())
        || side.contains(['+', '*', '/', '^', '\\', '('])
        || side.get(1..).is_some_and(|r| r.contains(['-', '−']))
    {
        return false;
    }
    match (super::equiv::real_value(side), super::equiv::real_value(&chosen.text)) {
        (Some(a), Some(b)) => (a - b).abs() > 1e-9 * a.abs().max(b.abs()).max(1.0),
        _ => false,
    }
}

/// Is the answer stated without naming what it is: only [`CLOSING_LEAD`] words (`The answer is`, `So`) before it in
/// its sentence?
fn generic_answer(text: &str, chosen: &Candidate) -> bool {
    let head = &text[..chosen.start];
    // `a = \\boxed{2}` names it.
    if head
        .trim_end()
        .trim_end_matches(['$', '{', ' '])
        .trim_end()
        .trim_end_matches("\\boxed")
        .trim_end()
        .ends_with('=')
    {
        return false;
    }
    let from = head
        .char_indices()
        .rev()
        .find(|&(_, c)| matches!(c, '.' | '!' | '?' | ';' | '\n' | '。'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let lead = head[from..].to_lowercase();
    lead.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .all(|w| CLOSING_LEAD.contains(&w) || matches!(w, "boxed" | "we" | "get" | "have" | "obtain" | "find" | "our"))
}

/// Is the closing named value (`x = 5`) under the name the answer was given (`x = \\boxed{4}`, `$x = 4$`)?
fn same_name(text: &str, chosen: &Candidate, last: &str) -> bool {
    let Some((lhs, _)) = last.split_once('=') else { return false };
    let closing = lhs.trim().trim_start_matches('$').trim();
    let before = text[..chosen.start].trim_end().trim_end_matches(['$', '{']).trim_end();
    let before = before.strip_suffix("\\boxed").unwrap_or(before).trim_end();
    let Some(lhs) = before.strip_suffix('=') else { return false };
    let answer_name = lhs.trim_end().rsplit(|c: char| c.is_whitespace() || c == '$').next().unwrap_or("");
    !answer_name.is_empty() && answer_name == closing
}

/// The answer of `text` and where it came from, when it is asserted ([`find`]).
pub fn extract(text: &str, targets: Targets) -> Option<(String, Source)> {
    find(text, targets).filter(|f| f.withdrawn.is_none()).map(|f| (f.text, f.source))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(s: &str) -> Option<String> {
        extract(s, Targets::default()).map(|(a, _)| a)
    }

    #[test]
    fn boxes() {
        assert_eq!(
            answer("so \\boxed{1} then much later after some more words \\boxed{\\frac{1}{2}}"),
            Some("\\frac{1}{2}".into())
        );
        // Boxes a little apart, with a separator between them, are one answer (`x = 1` or `x = 2`).
        assert_eq!(answer("\\boxed{1}, or after some words, \\boxed{2}"), Some("1, 2".into()));
        assert_eq!(answer("\\boxed{1}, but after checking, \\boxed{2}"), Some("2".into()));
        assert_eq!(answer("$\\boxed 5$ done"), Some("5".into()));
        assert_eq!(answer("Use \\boxed to mark it. The answer is \\boxed{5}"), Some("5".into()));
        assert_eq!(answer("\\boxed 3 then. The answer is \\boxed{5}"), Some("5".into()));
        assert_eq!(answer("It is either \\boxed 3 or \\boxed 5"), answer("It is either \\boxed{3} or \\boxed{5}"));
        assert_eq!(answer("\\boxed 7 \\quad\\text{or}\\quad \\boxed{9}"), Some("7, 9".into()));
        assert_eq!(answer("The answer is \\(\\boxed 5\\)."), Some("5".into()));
        assert_eq!(answer(&format!("\\boxed {}", "1".repeat(MAX_BARE_BOX))), Some("1".repeat(MAX_BARE_BOX)));
        assert_ne!(answer(&format!("\\boxed {}", "1".repeat(MAX_BARE_BOX + 1))), Some("1".repeat(MAX_BARE_BOX + 1)));
        assert_eq!(answer("\\boxed{7} \\boxed{unclosed"), Some("7".into()));
        assert_eq!(answer("\\boxed{(2, 2)} \\text{ and } \\boxed{(6, 2)}"), Some("(2, 2), (6, 2)".into()));
        assert_eq!(answer("$\\boxed{1}$, $\\boxed{2}$ or $\\boxed{3}$"), Some("1, 2, 3".into()));
        assert_eq!(answer("\\boxed{10} and then \\boxed{42}"), Some("42".into()));
        assert_eq!(answer("\\boxed{\\boxed{3}}"), Some("\\boxed{3}".into()));
        assert_eq!(answer("\\boxedx{1}"), Some("\\boxedx{1}".into()));
        // A percent sign after a box is its answer's.
        assert_eq!(answer("So \\boxed{25}\\% of them."), Some("25\\%".into()));
        assert_eq!(answer("\\boxed{25} % and \\boxed{30}%"), Some("25\\%, 30\\%".into()));
    }

    #[test]
    fn withdrawn_answers() {
        let found = |s: &str| find(s, Targets::default()).expect("an answer");
        assert!(found("\\boxed{5}. The answer is 6.").withdrawn.is_some());
        assert!(found("\\boxed{5}. The answer is 5.").withdrawn.is_none());
        // A box that is the first part of a ratio or a time is not the answer, through spacing, `\\colon`, a
        // look-alike colon or a math block; a computation after the colon explains it.
        for s in [
            "The answer is \\boxed{3}:45.",
            "\\boxed{3}\\,:\\, 45",
            "$\\boxed{2}$ \\colon 1",
            "$3$:45",
            "45:\\boxed{3}",
            "\\boxed{3}:{45}",
            "\\boxed{3}:\\frac45",
            "\\boxed{3}:45 \\times 1",
            "\\boxed{3}:4 = 6:8",
            "$45$:$\\boxed{3}$",
            "45 :\\boxed{3}",
            "\\boxed{3}:\\mathbf{45}",
            "\\boxed{1}\\kern1pt2",
        ] {
            assert!(found(s).withdrawn.is_some(), "{s}");
        }
        for s in [
            "The answer is \\boxed{5}: 2 + 3 = 5.",
            "$\\boxed{12}$: 3 × 4 = 12.",
            "$\\boxed{12}$: 3 × 4.",
            "(B) \\boxed{3}",
            "Step 2: \\boxed{5}",
            "Case 3:\\boxed{3}",
            "In 2024,\\boxed{5}",
        ] {
            assert!(found(s).withdrawn.is_none(), "{s}");
        }
        // A number against the box, or a fraction the box completes, makes it part of something larger.
        for s in [
            "2\\,\\boxed{1}",
            "2\\!\\!\\boxed{1}",
            "2\\hspace{1pt}\\boxed{1}",
            "(-1)\\boxed{5}",
            "x\\boxed{5}",
            "5,\\boxed{12}",
            "\\frac{3}\\boxed{5}",
            "\\boxed{3}\\;/45",
            "\\boxed{2}‰",
            // Inside a floor, a ceiling, an absolute value or a norm.
            "\\lfloor\\boxed{5.5}\\rfloor",
            "$\\left\\lceil \\boxed{5.5} \\right\\rceil$",
            "|\\boxed{-5}|",
            "\\left| \\boxed{-5} \\right|",
            "\\|\\boxed{5}\\|",
            // Joined to a second value that is a fraction or a decimal, not a computation.
            "Answer: 1/2 · 3/2",
            "Answer: 2.5 → 3.5",
        ] {
            assert!(found(s).withdrawn.is_some(), "{s}");
        }
        for s in ["| Answer | \\boxed{5} |", "Answer: 12 → 3 rows of 4"] {
            assert!(found(s).withdrawn.is_none(), "{s}");
        }
        // A LaTeX expression that is the rest of the answer's line is read whole, not as its first number.
        assert_eq!(found("The answer is 2-1\\div3").text, "2-1\\div3");
        // Through spacing commands, Unicode operators and delimiters, words that operate on it, a factor in
        // brackets against it, a sign after words on its line, an operator that ends the text.
        for s in [
            "$x = -\\,\\boxed{7}$",
            "$x = -{}\\boxed{7}$",
            "±\\boxed{7}",
            "—\\boxed{7}",
            "$5 – \\boxed{7}$",
            "$\\lfloor\\,\\boxed{3.7}\\,\\rfloor$",
            "⌊\\boxed{3.7}⌋",
            "$|\\,\\boxed{-3}\\,|$",
            "$f(\\,\\boxed{2}\\,)$",
            "$\\log\\,\\boxed{8}$",
            "$2 \\times\\,\\boxed{7}$",
            "$5 · \\boxed{7}$",
            "$5 \\ast \\boxed{7}$",
            "$\\boxed{2}(3)$",
            "$\\boxed{7}\\,i$",
            "$\\boxed{7}$ divided by 3",
            "The quotient is $\\boxed{12}$ remainder 3.",
            "Answer: 12 +",
        ] {
            assert!(found(s).withdrawn.is_some(), "{s}");
        }
        // A dash and a space after a stating word or a colon sign the number: -7, not 7 (U+2212 is folded to `-`
        // before the answer is looked for).
        for s in ["The answer is - 7.", "Answer: - 7"] {
            assert_eq!((found(s).text.as_str(), found(s).withdrawn), ("-7", None), "{s}");
        }
        for s in [
            "Answer:\n- 7",
            "Final Answer - 42",
            "The answer – \\boxed{7}",
            "The answer is \\boxed{12} (twelve).",
            "$\\boxed{7}$ is it",
        ] {
            assert!(found(s).withdrawn.is_none(), "{s}");
        }
        assert_eq!(found("The answer is $\\boxed{25}$%.").text, "25\\%");
        assert!(found("\\boxed{5}. We can check this answer by plugging in 2 and 3.").withdrawn.is_none());
        assert!(found("\\boxed{5}. Wait, that is wrong.").withdrawn.is_some());
        assert!(found("The answer is not 5.").withdrawn.is_some());
        // Found by the red team on the final build: a box as an operand, text after it that takes it back,
        // look-alike negations, two choice letters.
        for s in
            ["\\boxed{5}+1", "-\\boxed{5}", "$\\frac{\\boxed{5}}{2}$", "1\\boxed{5}", "\\boxed{5}^2", "\\boxed{5}.5"]
        {
            assert!(found(s).withdrawn.is_some(), "{s}");
        }
        for s in
            ["\\boxed{5} (jk)", "\\boxed{5}, just kidding, it's 6.", "\\boxed{5} is a lower bound", "Answer: no es 5"]
        {
            assert!(found(s).withdrawn.is_some(), "{s}");
        }
        assert!(found("so $x \\equiv \\boxed{9} \\pmod{11}$").withdrawn.is_none());
        assert!(found("the area is \\(\\boxed{189}\\) square centimeters").withdrawn.is_none());
        let only_letters = Targets {
            latex: false,
            expr: false,
            string: true,
            answer_letters: false,
            choices: Targets::letters("ABCDE"),
        };
        for s in [
            "Answer: C, D",
            "Answer: C D",
            "Answer: (C) (D)",
            "Answer: C | D",
            "Answer: **C** D",
            "Answer: C – D",
            "Answer: C to D",
            "Answer: C\n\nD",
        ] {
            assert!(find(s, only_letters).is_some_and(|f| f.withdrawn == Some("two choices")), "{s}");
        }
        // (`I` after a letter is a word, not a second choice; `C, I think` doubts the answer.)
        for s in ["Answer: C", "Answer: C I checked each option", "Answer: (C) Paris", "Answer: C\nA check: it holds."]
        {
            assert!(find(s, only_letters).is_some_and(|f| f.withdrawn.is_none()), "{s}");
        }
        // An unparsed box is the answer, compared as text: never the number inside it.
        assert_eq!(answer("The answer is \\boxed{\\text{not } 5}"), Some("\\text{not } 5".into()));
        assert_eq!(answer("So \\boxed{\\foo{5}} is what we get"), Some("\\foo{5}".into()));
        assert!(found("So \\boxed{\\foo{5}}; the answer is 5").withdrawn.is_some());
    }

    #[test]
    fn a_text_that_closes_on_another_value() {
        let withdrawn = |s: &str| find(s, Targets::default()).is_some_and(|f| f.withdrawn.is_some());
        // Found by two red teams: the last value stated takes the answer back.
        for s in [
            "\\boxed{4}. However, it's $5$.",
            "\\boxed{4}. Sorry, it's 5.",
            "So $x = \\boxed{4}$.\n\nTherefore $x = 5$",
            "The final answer is $4$. I hope it is correct. No: $5$.",
            "<answer>4</answer> = 5",
            "Answer: 5.\n\nWhere $x = 4$.",
        ] {
            assert!(withdrawn(s) || answer(s).as_deref() != Some("4"), "{s}");
        }
        // Explanations after an answer are not a closing value (the second red team's honest outputs).
        for s in [
            "The answer is \\boxed{4}. Note that $x = -4$ is extraneous.",
            "\\boxed{4} meters, i.e. $400$ centimeters.",
            "So $n = \\boxed{4}$. For $n = 5$, the inequality fails.",
            "The area is \\boxed{4}. (The side length is $2$.)",
            "The answer is \\boxed{4}. This occurs when $x = 3$.",
            "So $x = \\boxed{4}$. Then $y = 2x - 1 = 7$.",
            "Answer: 4\n\nWe assumed $n=2$.",
            "The maximum value is \\boxed{4}, achieved when $x = 1$.",
            "The answer is \\boxed{4}, not 5.",
            "\\boxed{4}. Check: $4 \\times 5 = 20$.",
            // A third red team's explanations: another quantity named, a unit conversion, a check.
            "The mean is $\\boxed{4}$. The median is $3$.",
            "The mass is $\\boxed{4}$ kg. In grams: 4000.",
            "So the slope is $\\boxed{4}$.\n\nThus $b = 5$.",
            "So $x = \\boxed{4}$.\n\nCheck: both sides equal $10$.",
            "The answer is $\\boxed{4}$. We disregard $x=-5$ because a length must be positive.",
            "The answer is $\\boxed{4}$ (x = -2 is extraneous).",
            "Therefore, the final answer is $\\boxed{4}$. Let's double-check: $4 \\times 3 = 12$, which matches the total.",
        ] {
            assert!(find(s, Targets::default()).is_some_and(|f| f.withdrawn.is_none() && f.text.contains('4')), "{s}");
        }
    }

    #[test]
    fn labels_of_an_answer() {
        // Labels that pick rather than find withdraw the answer; labels that name what it is do not.
        for s in ["Candidate answer: \\boxed{4}", "My hunch: \\boxed{4}", "Draft: \\boxed{4}"] {
            assert!(find(s, Targets::default()).is_some_and(|f| f.withdrawn.is_some()), "{s}");
        }
        for s in ["Partial fraction decomposition: \\boxed{4}", "Final answer: \\boxed{4}", "Area: \\boxed{4}"] {
            assert_eq!(answer(s).as_deref(), Some("4"), "{s}");
        }
    }

    #[test]
    fn expression_lines() {
        // From MindSpeed-RL's grader tests: an expression after an anchor was read as its first number.
        assert_eq!(answer("Answer: 2x + 3"), Some("2x + 3".into()));
        assert_eq!(answer("The answer is 2x + 3."), Some("2x + 3".into()));
        assert_eq!(answer("So the answer is x^2 - 1"), Some("x^2 - 1".into()));
        assert!(find("The answer is 5 or 6", Targets::default()).is_some_and(|f| f.withdrawn.is_some()));
        assert!(find("Answer: 5k", Targets::default()).is_some_and(|f| f.withdrawn.is_some()));
        assert_eq!(answer("The answer is 12 apples."), Some("12".into()));
    }

    #[test]
    fn anchors() {
        assert_eq!(answer("Final Answer: The final answer is $12$. I hope it is correct."), Some("12".into()));
        assert_eq!(answer("work\nAnswer: 42.\n"), Some("42".into()));
        assert_eq!(answer("Final Answer: The largest $n$ is 34."), Some("34".into()));
        let later = "$\\boxed{200}$ so $10,200. Final Answer: The final answer is $10,455$. I hope it is correct.";
        // `$10,200. Final … is $` is a block (as a regular expression reads it too): the number after it counts.
        assert_eq!(answer(later), Some("10455".into()));
        assert_eq!(answer("The answer is $x = 5+5+1 = 11$."), Some("x = 5+5+1 = 11".into()));
        // One letter that is the whole answer line: a variable or a point (GAOKAO's `【答案】A<eoa>`).
        assert_eq!(answer("【答案】A"), Some("A".into()));
        assert_eq!(answer("so\nAnswer: x."), Some("x".into()));
        assert_eq!(answer("The answer is y"), Some("y".into()));
        assert_ne!(answer("The answer is a positive number, 5"), Some("a".into()));
        assert_eq!(answer("The answer is (b)."), Some("(b)".into()));
        assert_eq!(answer("**Answer:** B"), Some("B".into()));
        assert_eq!(answer("**Answer: B**"), Some("B".into()));
        assert_eq!(answer("The final answer is **B**."), Some("B".into()));
        // A tuple, a list or an interval that is the rest of the line (TheoremQA's `The answer is [1, 1, 1].`).
        assert_eq!(answer("The answer is [1, 1, 1]."), Some("[1, 1, 1]".into()));
        assert_eq!(answer("so the answer is (2, 4)"), Some("(2, 4)".into()));
    }

    #[test]
    fn bare_answers_and_blocks() {
        assert_eq!(answer("-5"), Some("-5".into()));
        assert_eq!(answer("\\frac{1}{2}"), Some("\\frac{1}{2}".into()));
        assert_eq!(answer("Therefore $x \\geq 5$ is the solution."), Some("x \\geq 5".into()));
        assert_eq!(answer("$19, 46, and 82$"), Some("19, 46, and 82".into()));
        assert_eq!(answer("they are $1$, $2$ and $3$."), Some("1, 2, 3".into()));
        assert_eq!(answer("no answer here"), None);
        assert_eq!(answer("   "), None);
        assert_eq!(answer("we get 7 apples and then 12 pears"), Some("12".into()));
        // A block that does not parse is not read as the numbers inside it.
        assert_eq!(answer("$F_n = \\sum_{k=0}^{n} F_k$"), Some("F_n = \\sum_{k=0}^{n} F_k".into()));
        let latex = Targets { expr: false, ..Targets::default() };
        assert_eq!(extract("Answer $ \n 9 \n $", latex), None);
        assert_eq!(extract("Answer $ 9 $", latex).map(|(a, _)| a), Some("9".into()));
    }
}
