//! A symbolic math verifier: is a model's final answer equivalent to the reference answer?
//!
//! Text never reaches an evaluator: answers are tokenised ([`lexer`]), parsed into a tree with bounded
//! depth and size ([`parser`]), compared exactly where possible ([`exact`]: rationals and square roots)
//! and in high precision otherwise ([`hp`], no tolerance; expressions with
//! variables at [`limits::SAMPLE_POINTS`] fixed pseudo-random points). The rules for intervals, sets,
//! tuples, equations, percentages and multiple choice are in [`equiv`].
//!
//! The modules depend in one direction: **read** ([`unicode`], [`lexer`], [`parser`]: text to a tree; the parser
//! imports nothing but the lexer) → **evaluate** ([`sets`] computes set operations on the parsed tree, then
//! [`exact`], [`numeric`], [`hp`], [`functions`] give values) → **find and compare** ([`completion`],
//! [`blocks`], [`prose`], [`hedge`], [`extract`] find the answer in a solution; [`equiv`] compares two).

pub mod blocks;
pub mod budget;
pub mod choices;
pub mod clock;
pub mod completion;
pub mod conditions;
pub mod entities;
mod entities_table;
pub mod equiv;
pub mod exact;
pub mod extract;
pub mod functions;
pub mod hedge;
pub mod hp;
pub mod letters;
pub mod lexer;
pub mod markup;
pub mod numeric;
pub mod parser;
pub mod prose;
pub mod records;
pub mod sets;
pub mod unicode;

pub use extract::{extract, find, Found, Source};

/// What [`extract`] reads, as Math-Verify's extraction configurations: `latex` (boxes, math blocks, a bare
/// answer), `expr` (numbers and expressions in prose), `string` (choice letters in prose, those of
/// `choices`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Targets {
    pub latex: bool,
    pub expr: bool,
    pub string: bool,
    /// Choice letters where an answer is stated only (after `answer`, a choosing phrase, a foreign answer word,
    /// or a whole one-line text such as `D)15`), never the last letter anywhere: what a letter reference has
    /// read when `string` is not asked for.
    pub answer_letters: bool,
    /// The choice letters, a bit per capital letter (bit 0: `A`).
    pub choices: u32,
}

impl Targets {
    /// The bit set of the capital letters in `letters` (others are ignored).
    pub fn letters(letters: &str) -> u32 {
        letters.bytes().filter(u8::is_ascii_uppercase).fold(0, |acc, b| acc | 1 << (b - b'A'))
    }
}

impl Default for Targets {
    fn default() -> Self {
        Targets { latex: true, expr: true, string: false, answer_letters: false, choices: Targets::letters("ABCDE") }
    }
}

/// How answers are found and compared; the fields are named and mean what Math-Verify's options do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Decimal places to which an answer written as a decimal, and the value it is compared with, are rounded
    /// (`0.333 = 1/3` at 3). `None` (the default): decimals are exact, `0.333 != 1/3`.
    pub float_rounding: Option<u32>,
    /// Variables matter (`f(x) = x^2` differs from `f(y) = y^2`), and a set is not a tuple. When false,
    /// variables are matched by position and sets compare with tuples.
    pub strict: bool,
    /// A relation in the prediction may equal a set in the reference (`x > 1` against `(1, \infty)`). A
    /// relation in the reference always may.
    pub allow_set_relation_comp: bool,
    /// What [`verify`] reads in the solution and the ground truth.
    pub targets: Targets,
}

impl Default for Options {
    fn default() -> Self {
        Options { float_rounding: None, strict: true, allow_set_relation_comp: false, targets: Targets::default() }
    }
}

/// Largest `float_rounding` accepted.
pub const MAX_FLOAT_ROUNDING: u32 = 100;

/// Every bound that keeps the work per answer small, whatever the input.
pub mod limits {
    /// Longest answer compared (bytes); longer answers are "not equal" (reason: too long).
    pub const MAX_ANSWER_BYTES: usize = 4096;
    /// Tokens per answer.
    pub const MAX_TOKENS: usize = 2048;
    /// Bytes a brace-less box's argument (`\boxed 5$`: up to `$` or the line's end) may span; a longer one, or
    /// one that reaches another box, is no box (so each box is read in bounded time).
    pub const MAX_BARE_BOX: usize = 200;
    /// Digits in one number literal.
    pub const MAX_DIGITS: usize = 400;
    /// Parser recursion depth (each bracket level uses about four: ~30 nested brackets).
    pub const MAX_DEPTH: usize = 120;
    /// Nodes in one expression tree.
    pub const MAX_NODES: usize = 4096;
    /// Largest |exponent| computed exactly (decimal exponents and integer powers).
    pub const MAX_EXPONENT: u64 = 10_000;
    /// Largest numerator/denominator (bits) kept exact (`10^{10^4}`, `1000!`); larger values are compared in
    /// high precision. The work they cost is bounded by the comparison's budget ([`super::budget`]).
    pub const MAX_BITS: u64 = 1 << 16;
    /// Largest radicand factored exactly (trial division up to its square root: 10^5 steps; an answer of
    /// `MAX_ANSWER_BYTES` holds at most a few hundred radicals).
    pub const MAX_RADICAND: u64 = 10_000_000_000;
    /// Most square-root terms in one exact value (beyond: floating point), so products of sums of roots
    /// cannot grow without bound.
    pub const MAX_SURD_TERMS: usize = 64;
    /// Largest n for which n! is computed exactly (if it also fits `MAX_BITS`).
    pub const MAX_FACTORIAL: u64 = 1000;
    /// Longest chain of postfix `!`/`%` on one operand.
    pub const MAX_POSTFIX: usize = 8;
    /// Points at which expressions with variables are compared.
    pub const SAMPLE_POINTS: usize = 6;
    /// Most terms of a `\sum`/`\prod` computed, and most nodes visited computing one (terms × body size);
    /// sums do not nest and an answer has at most 4, so one evaluation visits at most 4 × `MAX_BIG_WORK`.
    pub const MAX_BIG_TERMS: usize = 1000;
    pub const MAX_BIG_WORK: usize = 20_000;
}

/// Why an answer could not be judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    Syntax(String),
    Unsupported(&'static str),
    TooLarge(&'static str),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Syntax(s) => write!(f, "cannot parse: {s}"),
            Failure::Unsupported(s) => write!(f, "unsupported: {s}"),
            Failure::TooLarge(s) => write!(f, "over a limit: {s}"),
        }
    }
}

/// A judgement and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub equal: bool,
    pub reason: String,
}

/// Is the bare answer `prediction` mathematically equivalent to `reference`? Never panics; malformed input
/// is "not equal".
pub fn math_equal(prediction: &str, reference: &str) -> Verdict {
    math_equal_with(prediction, reference, &Options::default())
}

/// [`math_equal`] with comparison options.
pub fn math_equal_with(prediction: &str, reference: &str, options: &Options) -> Verdict {
    let guarded = std::panic::catch_unwind(|| equiv::judge(prediction, reference, options));
    guarded.unwrap_or_else(|_| Verdict { equal: false, reason: "internal error".into() })
}

/// The outcome of verifying a whole solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub score: f64,
    pub prediction: Option<String>,
    pub reason: String,
}

/// Is `s` a bare list of integers joined by commas without spaces, its first of at most three digits, not all
/// groups of three after it (`-2,1`, `1,5`, `10,20`; not `1,000` or `1000,99`)?
fn comma_list(s: &str) -> bool {
    let mut parts = s.trim().split(',');
    let integer = |p: &str| {
        let d = p.strip_prefix('-').unwrap_or(p);
        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
    };
    if !parts.next().is_some_and(|p| integer(p) && p.trim_start_matches('-').len() <= 3) {
        return false;
    }
    let rest: Vec<&str> = parts.collect();
    !rest.is_empty() && rest.iter().all(|p| integer(p)) && !rest.iter().all(|p| p.len() == 3)
}

/// Find the answer of `solution` and of `ground_truth` alike ([`extract`]: boxes, `Final Answer`, `answer:`,
/// math blocks, numbers in prose, or a bare answer) and compare them.
pub fn verify(solution: &str, ground_truth: &str) -> Verification {
    verify_with(solution, ground_truth, &Options::default())
}

/// [`verify`] with comparison options.
pub fn verify_with(solution: &str, ground_truth: &str, options: &Options) -> Verification {
    // One budget for the whole call: the comparisons made while finding the answer and the final one.
    let _budget = budget::start();
    let guarded = std::panic::catch_unwind(|| {
        // Markup or a special token between two letters (`n<b></b>ot`, `at<|pad|>least`) is read both ways, as
        // nothing and as a space: the answer is credited only when both readings credit it.
        let (joined, split) = read(solution, ground_truth, options, true);
        if !split || joined.score == 0.0 {
            return joined;
        }
        let (spaced, _) = read(solution, ground_truth, options, false);
        if spaced.score == 0.0 {
            spaced
        } else {
            joined
        }
    });
    guarded.unwrap_or_else(|_| Verification { score: 0.0, prediction: None, reason: "internal error".into() })
}

/// What the solution is read for: `targets`, and its choice letters where an answer is stated when the ground
/// truth is one of them (`C`, `(C)`, `\\text{(C)}`): only a letter answers it, and the LaTeX and prose readings
/// miss one written against its option's text (`C)620`) or named by a choosing phrase (`The correct option is
/// (B).`). The last letter anywhere (`string`'s last resort) stays opt-in: in prose it is as often a point, a
/// unit or an option ruled out.
fn solution_targets(targets: Targets, ground_truth: &str) -> Targets {
    let letter = equiv::reference_choice(ground_truth.trim()).filter(|&c| targets.choices >> (c as u8 - b'A') & 1 == 1);
    Targets { answer_letters: !targets.string && letter.is_some(), ..targets }
}

/// [`verify_with`] with markup and special tokens between two letters read as nothing (`join`) or as a space;
/// and whether there were any.
fn read(solution: &str, ground_truth: &str, options: &Options, join: bool) -> (Verification, bool) {
    // Fullwidth digits, superscripts, invisible characters: folded before the answer is looked for, so
    // `１２` in prose is 12 and `no\u{200b}t` is "not".
    // HTML references (`&ge;`, `&#8805;`) render as the relation they name: decoded first, then folded.
    let solution = entities::decode(solution);
    let solution = unicode::fold(&solution);
    let (solution, token_split) = completion::strip_special_tokens(&solution, join);
    // Tags and comments as a page shows them: `<b>5</b>` is 5, `<\answer>` closes the answer.
    let (solution, markup_split) = markup::render(&solution, join);
    let split = token_split || markup_split;
    let no_answer = |why: &str| (Verification { score: 0.0, prediction: None, reason: why.into() }, split);
    let solution = match completion::without_idle_loop(&solution) {
        Ok(text) => text,
        Err(why) => return no_answer(why),
    };
    if completion::cut_at_answer(solution) {
        return no_answer("the text stops where its answer begins (cut off)");
    }
    // The R1-Zero template's answer is in the last `<answer>` tag; a reasoning model's follows `</think>`.
    let span = match completion::answer_span(solution) {
        Ok(span) => span,
        Err(why) => return no_answer(why),
    };
    if completion::drifts(&span.text[span.start..span.end]) {
        return no_answer(completion::DRIFTS);
    }
    let targets = solution_targets(options.targets, ground_truth);
    let Some(found) = extract::find_within(&span.text, targets, span.start..span.end, span.tag) else {
        return no_answer("no answer found");
    };
    let (answer, source) = (found.text, found.source);
    if let Some(why) = found.withdrawn {
        let reason = format!("{why} ({})", source.name());
        return (Verification { score: 0.0, prediction: Some(answer), reason }, split);
    }
    // The reference is trusted: its wording is not read for hedges (`between $\\boxed{12 \\text{ and } 13}$`).
    let Some(reference) = extract::find(ground_truth, options.targets) else {
        let reason = "no reference answer found".into();
        return (Verification { score: 0.0, prediction: Some(answer), reason }, split);
    };
    let reference = reference.text;
    // `(B) 3` answers with its label: a multiple-choice reference by the letter, no other (as a box holding both).
    let answer = match found.label {
        Some(letter) => format!("({letter}) {answer}"),
        None => answer,
    };
    let mut verdict = math_equal_with(&answer, &reference, options);
    // A reference that is a bare list without spaces (`-2,1`, `10,20`) is written as MATH writes lists and as
    // Math-Verify's tests write a decimal comma (`1,22` is 1.22): either reading is the reference.
    if !verdict.equal && comma_list(ground_truth) {
        let listed = math_equal_with(&answer, ground_truth.trim(), options);
        if listed.equal {
            verdict = listed;
        }
    }
    let verification = Verification {
        score: if verdict.equal { 1.0 } else { 0.0 },
        prediction: Some(answer),
        reason: format!("{} ({})", verdict.reason, source.name()),
    };
    (verification, split)
}

/// [`math_equal_with`] over pairs on `threads` worker threads (0: all cores), in order.
pub fn math_equal_batch(pairs: &[(&str, &str)], options: &Options, threads: usize) -> Vec<Verdict> {
    crate::parallel::map(pairs, threads, 8, |(p, r)| math_equal_with(p, r, options))
}

/// [`verify_with`] over (solution, ground truth) pairs on `threads` worker threads (0: all cores), in order.
pub fn verify_batch(pairs: &[(&str, &str)], options: &Options, threads: usize) -> Vec<Verification> {
    crate::parallel::map(pairs, threads, 8, |(s, g)| verify_with(s, g, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Crafted inputs finish on a thread with a 1 MB stack in this debug build (the release build needs under
    /// 128 KB at the depth limit; worker threads have 2 MB): no recursion an input can deepen at will.
    #[test]
    fn hostile_inputs_fit_a_small_stack() {
        // Each under MAX_ANSWER_BYTES, so it reaches the parser and the comparison.
        let inputs = vec![
            "(".repeat(1500) + "1" + &")".repeat(1500),
            "1*".repeat(2000) + "1",
            "1/".repeat(2000) + "1",
            "-".repeat(4000) + "1",
            "x^".repeat(2000) + "2",
            "2^".to_owned() + &"-".repeat(4000) + "2",
            "1".to_owned() + &"!".repeat(4000),
            "5".to_owned() + &"%".repeat(4000),
            "\\sqrt{".repeat(500) + "2" + &"}".repeat(500),
            "\\frac{".repeat(600),
            "10^{10^{10}}".to_owned(),
            "9".repeat(4000),
            (2..60).map(|p| format!("\\sqrt{{{p}}}")).collect::<Vec<_>>().join("+"),
        ];
        for s in &inputs {
            assert!(s.len() <= limits::MAX_ANSWER_BYTES, "{} bytes", s.len());
        }
        let handle = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || {
                inputs.iter().map(|s| math_equal(s, "1").equal || math_equal("1", s).equal).collect::<Vec<_>>()
            })
            .expect("spawn");
        assert!(handle.join().expect("no stack overflow").iter().all(|equal| !equal));
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    /// A red team's inputs: an answer early, a megabyte of prose after it, an anchor sentence at the end. The
    /// words after the answer are read for revisions in one pass (they were once collected, a string each, and
    /// every word folded the foreign cues again: ~0.5 µs a byte, 80 MB for 3 MB). The bound is loose; it
    /// catches a return to quadratic or per-word work, not noise.
    #[test]
    fn long_prose_after_an_early_answer_is_read_in_linear_time() {
        let inputs = [
            format!("So \\boxed{{1}}.{}\n\nThe answer is 1", " x".repeat(500_000)),
            format!("So \\boxed{{1}}.{}\n\nThe answer is 1", " é".repeat(500_000)),
            format!("\\boxed{{1}}{}\n\nThe answer is 1", " word".repeat(200_000)),
            format!("{}\n\nThe answer is 1", "$1$ ".repeat(250_000)),
        ];
        for s in &inputs {
            let start = std::time::Instant::now();
            let v = verify(s, "1");
            let took = start.elapsed();
            assert_eq!((v.score, v.prediction.as_deref()), (1.0, Some("1")), "{}", v.reason);
            if !cfg!(debug_assertions) {
                assert!(took.as_secs_f64() < 2.0, "{} bytes took {took:?}", s.len());
            }
        }
    }
}

#[cfg(test)]
mod functions_tests;
