//! Equivalence of two parsed answers.
//!
//! - Numbers: exact rational / square-root arithmetic when both sides allow it (`0.5 = 1/2`,
//!   `\sqrt{27} = 3\sqrt3`, `0.333 != 1/3`); otherwise high precision with no tolerance ([`super::hp`]:
//!   `6.28 != 2\pi`, `e^{-30} != 0`). `p\%` equals `p/100` and also `p`. Every comparison works within a
//!   budget ([`super::budget`]); over it, the answers are not equal.
//! - Expressions with variables: equal values at [`SAMPLE_POINTS`] fixed pseudo-random points (at least
//!   half of them defined on both sides, all defined ones agreeing at 1e-7).
//! - An equation stands for its answer: the other side of a naming side (`x = 3`, `y = 2x+1`, `f(x) = ...`,
//!   `(x, y) = (1, 2)`), else its last side (`5+5+1 = 11`, `a+2z = 101`); `x=1, y=2` compares by name; other
//!   equations are equal when their differences are equal up to a factor.
//! - One-variable inequalities, `x \ne a` and `x \in S` become intervals: `x \ge 3` = `[3, \infty)`,
//!   `3 < x` = `x > 3`, and linear ones are solved (`-x > -1` = `x < 1`, as Math-Verify's tests require).
//! - Restating the problem is not solving it: an unsolved equation (`3x+7 = 19`, `|x| = 4`) does not equal a
//!   value or a solved one (`x = 4`, `4`), though it has that solution.
//! - Intervals compare ends and open/closed marks; unions are order-free; sets (`\{\}`) and bare lists
//!   (`1, 2`; `x=1, x=2`) are order-free, tuples and matrices ordered; a one-element set equals its element.
//! - Multiple choice: a reference that is a single letter A-E (optionally in parentheses or `\text{}`)
//!   matches a prediction that starts with that letter (`(C)`, `C)`, `C. 12`, `\textbf{(C)}`).

use std::borrow::Cow;
use std::sync::LazyLock;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;

use super::budget;
use super::clock;
use super::exact::{self, Surd};
use super::hp;
use super::lexer::{self, canonical_unit, lex, lex_with_units, with_power, WRAPPERS};
use super::limits::{MAX_ANSWER_BYTES, SAMPLE_POINTS};
use super::numeric::{self, C};
use super::parser::{int, parse, size, substitute, Constant, Func, Node, Op, Rel};
use super::sets;
use super::{Failure, Options, Verdict};

/// Names read as functions in `f(x) = ...`.
const FUNCTION_NAMES: &[&str] = &["f", "g", "h", "p", "q", "F", "G", "H", "P", "Q"];
/// Pairs compared order-free at most; larger collections are compared in order.
const MAX_UNORDERED_PAIRS: usize = 4096;
/// Work units (about ns) of one structural comparison and one comparison of values, beyond their arithmetic
/// (tree walks, floating-point evaluations): what makes comparing 64 items with 64 others pair by pair cost.
const EQ_COST: u64 = 50;
const VALUE_COST: u64 = 500;
/// Tolerance for expressions with variables (more rounding than a single value).
const SAMPLED_TOL: f64 = 1e-7;

fn verdict(equal: bool, reason: impl Into<String>) -> Verdict {
    Verdict { equal, reason: reason.into() }
}

fn squeeze(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut spaced = false;
    for c in s.chars().filter(|c| *c != '$') {
        if c.is_whitespace() {
            spaced = true;
            continue;
        }
        // Digits apart stay apart: `4 2` is two numbers, not 42 (a thousands group is read by the lexer).
        if spaced && c.is_ascii_digit() && out.ends_with(|d: char| d.is_ascii_digit()) {
            out.push(' ');
        }
        spaced = false;
        out.push(c);
    }
    out
}

/// `\name` of every wrapper, longest first, so `\textbf` is not left as `bf` by `\text`; built once.
static COMMANDS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut commands: Vec<String> = WRAPPERS.iter().chain(&["left", "right"]).map(|c| format!("\\{c}")).collect();
    commands.sort_by_key(|c| std::cmp::Reverse(c.len()));
    commands
});

/// An answer in words (`\\text{No solution}`, `infinitely many`): its words in lower case, when it is several words
/// of letters only, one of three letters or more (so no product of variables, `a b`, and no point's name, `ABC`).
fn words_answer(s: &str) -> Option<Vec<String>> {
    let mut t = drop_colours(&super::unicode::fold(s)).into_owned();
    for c in COMMANDS.iter() {
        if t.contains(c.as_str()) {
            t = t.replace(c.as_str(), " ");
        }
    }
    let words: Vec<String> = t
        .split(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | '$' | '~'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let letters = words.iter().all(|w| w.chars().all(char::is_alphabetic));
    (words.len() >= 2 && letters && words.iter().any(|w| w.chars().count() >= 3)).then_some(words)
}

/// Strip the lexer's `\text{}`-style wrappers, `\left`/`\right`, braces, `$` and spaces.
fn choice_text(s: &str) -> String {
    let mut t = squeeze(&drop_colours(&super::unicode::fold(s)));
    for c in COMMANDS.iter() {
        if t.contains(c.as_str()) {
            t = t.replace(c.as_str(), "");
        }
    }
    t.chars().filter(|c| !matches!(c, '{' | '}')).collect()
}

/// `s` without `\color{..}`/`\textcolor{..}`/`\colorbox{..}` and their colour (the lexer drops them too).
fn drop_colours(s: &str) -> Cow<'_, str> {
    if !s.contains("color") {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("color") {
        let command = ["\\text", "\\"].iter().find(|c| rest[..i].ends_with(*c));
        let Some(command) = command else {
            out.push_str(&rest[..i + 5]);
            rest = &rest[i + 5..];
            continue;
        };
        out.push_str(&rest[..i - command.len()]);
        let after = rest[i..].trim_start_matches(|c: char| c.is_ascii_alphabetic()).trim_start();
        // The colour: `{red}`, or `[rgb]{1,0,0}`.
        let after = after.strip_prefix('[').map_or(after, |a| a.split_once(']').map_or("", |(_, b)| b)).trim_start();
        rest = after.strip_prefix('{').map_or(after, |a| a.split_once('}').map_or("", |(_, b)| b));
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The letter of a multiple-choice reference: `C`, `(C)`, `\text{(C)}`.
pub(crate) fn reference_choice(s: &str) -> Option<char> {
    let t = choice_text(s);
    let inner = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')).unwrap_or(&t);
    let mut chars = inner.chars();
    match (chars.next(), chars.next()) {
        (Some(c @ 'A'..='E'), None) => Some(c),
        _ => None,
    }
}

/// The letter a prediction chooses: `C`, `(C)`, `C)`, `C.`, `C: 12`, `(C) 12`.
fn predicted_choice(s: &str) -> Option<char> {
    let t = choice_text(s);
    let t = t.strip_prefix('(').unwrap_or(&t);
    let mut chars = t.chars();
    let c = chars.next().filter(|c| ('A'..='E').contains(c))?;
    let rest: String = match chars.next() {
        None => return Some(c),
        Some(')' | '.' | ':') => chars.collect(),
        _ => return None,
    };
    // `C, D` and `(C) and (D)` choose several options: no single choice.
    let another = rest.char_indices().any(|(i, x)| {
        ('A'..='E').contains(&x)
            && !rest[..i].chars().last().is_some_and(|p| p.is_ascii_alphabetic())
            && !rest[i + 1..].chars().next().is_some_and(|n| n.is_ascii_alphabetic())
    });
    (!another && !hedged_choice(s, c)).then_some(c)
}

/// Does the text after the chosen letter offer another (`C. or D.`, `C) 12 or D) 14`, `C) \\quad D)`, `C. ABCDE`)
/// or take it back (`C. \\text{wrong}`, `C. \\text{Not C}`)? Read as words, with commands and braces as spaces
/// ([`choice_text`] squeezes them together, so `or D` would read `orD`).
fn hedged_choice(s: &str, letter: char) -> bool {
    let folded = super::unicode::fold(s);
    let mut spaced = String::with_capacity(folded.len());
    let mut chars = folded.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == '\\' {
            while chars.peek().is_some_and(char::is_ascii_alphabetic) {
                chars.next();
            }
            spaced.push(' ');
        } else {
            spaced.push(if ch.is_alphanumeric() { ch } else { ' ' });
        }
    }
    let mut words = spaced.split_whitespace().skip_while(|w| *w != letter.to_string());
    words.next();
    words.any(|w| {
        let lower = w.to_ascii_lowercase();
        w.chars().all(|x| ('A'..='E').contains(&x))
            || ["or", "nor", "not", "wrong", "incorrect", "either", "maybe", "probably", "possibly"]
                .contains(&lower.as_str())
    })
}

/// Does `text` apply a conventional function name ([`FUNCTION_NAMES`]) that is not a variable of the reference
/// (`known`): the name standing alone (no letter or backslash before it), then `(` or `^{-1}(`?
fn applies_unknown_function(text: &str, known: &[String], reference: &str) -> bool {
    let bytes = text.as_bytes();
    text.char_indices().any(|(i, c)| {
        let name = &text[i..i + c.len_utf8()];
        FUNCTION_NAMES.contains(&name)
            && !known.iter().any(|k| k == name)
            && !applies_unknown_function(reference, &[], "")
            && (i == 0 || !(bytes[i - 1].is_ascii_alphabetic() || bytes[i - 1] == b'\\'))
            && {
                let rest = text[i + 1..].trim_start();
                let rest = rest.strip_prefix("^{-1}").or_else(|| rest.strip_prefix("^{- 1}")).unwrap_or(rest);
                // `f(0)`, `f\\left(0\\right)`, `f{\\left(x\\right)}`.
                let rest = rest.trim_start();
                rest.starts_with('(')
                    || rest.starts_with("\\left(")
                    || rest.starts_with("{\\left(")
                    || rest.starts_with("{(")
            }
    })
}

/// Does `block` state a value: an expression without variables or relations (`5`, `\\frac{3}{4}`), or a name
/// given one (`x = 5`)? A computation (`4 \\times 5 = 20`), a bare name (`n`), a condition (`x > 0`) or an
/// expression in variables states none.
pub fn states_a_value(block: &str) -> bool {
    let Ok((n, _)) = parsed(block, false) else { return false };
    match &n {
        Node::Relation(..) => constant_solution(&n),
        _ => vars_of(&n).is_empty(),
    }
}

/// The answer's tree and the physical units it names. A reference that does not parse is read after its last
/// `=` (Math-Verify's fallback: `1 = \\zzz = x = 0` is 0), unless that splits a list (`a=1, b=\\zzz`); a
/// prediction that does not parse is never read from a part of itself.
fn parsed(s: &str, reference: bool) -> Result<(Node, Vec<String>), Failure> {
    let read = |toks| parse(toks).and_then(sets::resolve);
    let whole = lex_with_units(s).and_then(|(toks, units)| Ok((read(toks)?, units)));
    if reference && whole.is_err() && !s.contains([',', ';']) {
        let last = s.rfind('=').filter(|&i| !s[..i].ends_with(['\\', '<', '>', '!']));
        if let Some(i) = last.filter(|&i| i > 0) {
            if let Ok(n) = lex_with_units(&s[i + 1..]).and_then(|(toks, units)| Ok((read(toks)?, units))) {
                return Ok(n);
            }
        }
    }
    whole
}

/// A number times a one-letter unit, or its square or cube (`24 m`, `-24 m^2`, `\\frac12 s`): the number and the
/// unit. With `named` (the other side names its units), also a product and quotient of units written bare,
/// each a unit symbol with an integer power (`5 N`, `9.8 m/s^2`, `3 J \\cdot s`): the units as the lexer notes
/// them (`s^-2` below a fraction bar).
fn measured(n: &Node, named: bool) -> Option<(Node, Vec<String>)> {
    if let Node::Neg(inner) = n {
        return measured(inner, named).map(|(number, units)| (Node::Neg(Box::new(number)), units));
    }
    let constant = |f: &Node| vars_of(f).is_empty() && is_scalar(f);
    // Unit factors: `(symbol, power)`, none if a factor is anything else.
    let unit_factors = |factors: &[Node], sign: i64| -> Option<Vec<(String, i64)>> {
        factors
            .iter()
            .map(|f| {
                let (v, k) = match f {
                    Node::Var(v) => (v, 1),
                    Node::Pow(base, exp) => match (&**base, integer(exp)) {
                        (Node::Var(v), Some(k)) => (v, k),
                        _ => return None,
                    },
                    _ => return None,
                };
                let unit = if named {
                    canonical_unit(v)
                } else {
                    matches!(v.as_str(), "m" | "g" | "s" | "h" | "l").then(|| canonical_unit(v)).flatten()
                }?;
                Some((unit.to_owned(), sign * k))
            })
            .collect()
    };
    let (numerator, denominator) = match n {
        Node::Div(a, b) => (&**a, Some(&**b)),
        _ => (n, None),
    };
    let factors = match numerator {
        Node::Mul(factors) => factors.as_slice(),
        one => std::slice::from_ref(one),
    };
    let count = factors.iter().take_while(|f| constant(f)).count();
    let (number, units) = factors.split_at(count);
    let mut units = unit_factors(units, 1)?;
    if let Some(below) = denominator {
        let below = match below {
            Node::Mul(factors) => factors.as_slice(),
            one => std::slice::from_ref(one),
        };
        units.extend(unit_factors(below, -1)?);
    }
    // Without named units: one unit, alone or squared or cubed; or a rate of one over time (`5 m/s`, `9.8 m/s^2`).
    let plain = units.len() == 1 && matches!(units[0].1, 1..=3) && denominator.is_none()
        || units.len() == 2
            && units[0].1 == 1
            && matches!(units[1].1, -2..=-1)
            && ["s", "h"].contains(&units[1].0.as_str());
    if number.is_empty() || units.is_empty() || !named && !plain {
        return None;
    }
    let number = if number.len() == 1 { number[0].clone() } else { Node::Mul(number.to_vec()) };
    Some((number, units.into_iter().map(|(u, k)| with_power(&u, k)).collect()))
}

/// Units as one product: each unit once with the sum of its powers (`s^-1 s^-1` is `s^-2`), none with power 0,
/// sorted. A power that is no integer keeps the unit apart, as written.
fn unit_product(units: &[String]) -> Vec<String> {
    let mut powers: std::collections::BTreeMap<&str, i64> = std::collections::BTreeMap::new();
    let mut other = Vec::new();
    for u in units {
        match u.split_once('^').map_or(Some((u.as_str(), 1)), |(n, p)| p.parse().ok().map(|p| (n, p))) {
            Some((name, p)) => *powers.entry(name).or_insert(0) += p,
            None => other.push(u.clone()),
        }
    }
    let mut out: Vec<String> =
        powers.into_iter().filter(|&(_, p)| p != 0).map(|(name, p)| with_power(name, p)).collect();
    out.extend(other);
    out.sort_unstable();
    out
}

/// An integer exponent (`2`, `-1`).
fn integer(n: &Node) -> Option<i64> {
    match n {
        Node::Num(k) if k.is_integer() => k.to_integer().to_i64(),
        Node::Neg(inner) => integer(inner).map(|k| -k),
        _ => None,
    }
}

/// A predicted chain of equalities that states something false (`5 = 6`, `x = 3+3 = 2`): two sides without
/// variables that differ. Such a statement is no answer, whatever its last side.
fn false_chain(n: &Node, o: &Options) -> bool {
    let Some(sides) = equality_sides(n) else { return false };
    let constant: Vec<&Node> = sides.iter().filter(|s| is_scalar(s) && vars_of(s).is_empty()).collect();
    constant.windows(2).any(|w| !value_eq(w[0], w[1], o))
}

/// What [`holds`] does at a node: stop, the node is what is looked for; pass over it and what it holds; or look
/// inside.
enum Visit {
    Found,
    Skip,
    Inside,
}

/// Does some node of `n` answer [`Visit::Found`] to `visit` (read without recursion, so no depth is too deep)?
fn holds(n: &Node, visit: impl Fn(&Node) -> Visit) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        match visit(x) {
            Visit::Found => return true,
            Visit::Skip => {}
            Visit::Inside => match x {
                Node::Apply(_, xs) | Node::Add(xs) | Node::Mul(xs) => stack.extend(xs),
                Node::Neg(a) | Node::Func(_, a) | Node::Factorial(a) | Node::Percent(a) => stack.push(a),
                Node::Div(a, b) | Node::Pow(a, b) | Node::Root(a, b) | Node::Log(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                _ => {}
            },
        }
    }
    false
}

/// Does `n` hold a piecewise function (min, max, floor, ceiling, sign, absolute value, mod) of variables,
/// whose pieces sampling at a few points may not reach? Not when each argument is a plain expression whose
/// variables cancel (`|2y - y - y|` is 0 wherever it is sampled, as any expression without pieces).
fn piecewise(n: &Node) -> bool {
    holds(n, |x| match x {
        Node::Apply(Op::Min | Op::Max | Op::Floor | Op::Ceil | Op::Sgn | Op::Mod, args) => {
            if args.iter().all(cancels) {
                Visit::Skip
            } else {
                Visit::Found
            }
        }
        Node::Func(Func::Abs, arg) => {
            if cancels(arg) {
                Visit::Skip
            } else {
                Visit::Found
            }
        }
        _ => Visit::Inside,
    })
}

/// Does `n` hold an even root or a power with an even denominator of an expression in variables (`\\sqrt{(x-3)^2}`
/// is `|x - 3|`)? Sampling then takes the wide round too, past the corners near the usual points.
fn rooted(n: &Node) -> bool {
    let even_denominator = |e: &Node| match e {
        Node::Num(q) => q.denom() % 2u32 == BigInt::from(0),
        Node::Div(_, d) => integer(d).is_some_and(|d| d % 2 == 0),
        _ => false,
    };
    holds(n, |x| match x {
        Node::Root(k, arg) if integer(k).is_some_and(|k| k % 2 == 0) && !vars_of(arg).is_empty() => Visit::Found,
        Node::Pow(base, exp) if even_denominator(exp) && !vars_of(base).is_empty() => Visit::Found,
        _ => Visit::Inside,
    })
}

/// Is `n` free of pieces and of variables, or of pieces and constant at every sample point (its variables
/// cancel)?
fn cancels(n: &Node) -> bool {
    let vars = vars_of(n);
    if vars.is_empty() {
        return !piecewise(n);
    }
    if piecewise(n) {
        return false;
    }
    let mut first = None;
    for k in 0..SAMPLE_POINTS {
        let Some(v) = numeric::eval(n, &|name| Some(sample(name, k))).filter(|v| v.finite()) else { return false };
        match first {
            None => first = Some(v),
            Some(f) if close(f, v, SAMPLED_TOL) => {}
            Some(_) => return false,
        }
    }
    true
}

/// Relative distance within which `a \\approx b` is an approximation (`x = 1/3 \\approx 0.33` is).
const APPROXIMATION: f64 = 0.05;

/// Does the prediction write `a \\approx b`, with `a` alone before it, with two numbers that are not close (`\\boxed{5 \\approx 6}`)? The
/// value before `\\approx` is the answer, so a far "approximation" would let it carry a second value.
fn sloppy_approximation(p: &str) -> bool {
    let text = p.replace('≈', "\\approx");
    let marks = ["\\approx", "\\simeq", "\\doteq"];
    let value = |t: &str| {
        let n = lex(t).and_then(parse).ok()?;
        vars_of(&n).is_empty().then(|| numeric::eval(&n, &|_| None)).flatten()
    };
    let mut rest = text.as_str();
    while let Some((i, mark)) = marks.iter().filter_map(|m| rest.find(m).map(|i| (i, *m))).min() {
        let (before, after) = (&rest[..i], &rest[i + mark.len()..]);
        // `x = 1/3 \\approx 1.3` states x = 1/3 (Math-Verify's reading): only a bare `5 \\approx 6` is checked.
        if before.contains(['=', '<', '>']) {
            rest = after;
            continue;
        }
        let left = before;
        let cut = marks.iter().filter_map(|m| after.find(m)).chain(after.find(['=', '<', '>'])).min();
        let right = &after[..cut.unwrap_or(after.len())];
        if let (Some(x), Some(y)) = (value(left), value(right)) {
            let scale = x.abs().max(y.abs());
            if (C { re: x.re - y.re, im: x.im - y.im }).abs() > APPROXIMATION * scale {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Does the answer `s` start with a currency sign or code (`\\$5`, `-£5`, `USD 5`)? The lexer drops them.
fn money(s: &str) -> bool {
    let s = s.trim_start();
    let t = if s.starts_with("\\$") { s } else { s.trim_start_matches(['-', '{', '$', ' ']) };
    lexer::after_currency(t).len() < t.len()
}

/// Is `n` a percentage (`5\\%`, `-5\\%`)?
fn percentage(n: &Node) -> bool {
    match n {
        Node::Percent(_) => true,
        Node::Neg(x) => matches!(**x, Node::Percent(_)),
        _ => false,
    }
}

fn equality_sides(n: &Node) -> Option<&[Node]> {
    match n {
        Node::Relation(sides, ops) if !ops.is_empty() && ops.iter().all(|r| *r == Rel::Eq) => Some(sides),
        _ => None,
    }
}

/// Compare a prediction with a reference (both raw answer strings).
pub fn judge(prediction: &str, reference: &str, o: &Options) -> Verdict {
    let _budget = budget::start();
    let verdict = judge_within_budget(prediction, reference, o);
    if budget::exhausted() {
        return Verdict { equal: false, reason: "over a limit: work budget (too much arithmetic to decide)".into() };
    }
    verdict
}

pub(crate) fn judge_within_budget(prediction: &str, reference: &str, o: &Options) -> Verdict {
    let (p, r) = (prediction.trim(), reference.trim());
    if p.len() > MAX_ANSWER_BYTES || r.len() > MAX_ANSWER_BYTES {
        return verdict(false, "answer longer than the limit");
    }
    // An answer with nothing left once `$`, spaces, braces and wrappers are gone (`$`, `{}`, `\text{}`)
    // equals nothing, on either side: otherwise `$` would be "identical" to an empty reference.
    if choice_text(p).is_empty() {
        return verdict(false, "empty prediction");
    }
    if choice_text(r).is_empty() {
        return verdict(false, "empty reference");
    }
    if squeeze(p) == squeeze(r) {
        return verdict(true, "identical");
    }
    // The same words in another case (`\\text{no solution}` for `\\text{No solution}`).
    if words_answer(p).is_some_and(|w| Some(w) == words_answer(r)) {
        return verdict(true, "the same words");
    }
    // Two clock times compare as times of day (`3:45` is not `1:15` as a ratio would make it).
    match (clock::clock(&choice_text(p)), clock::clock(&choice_text(r))) {
        (Some(got), Some(want)) => {
            let equal = got.same_time(&want);
            return verdict(equal, if equal { "the same time of day" } else { "another time of day" });
        }
        // `3:45 PM` is a time, not the ratio 3/45 (nor `0:45 AM` the number 0).
        (Some(c), None) | (None, Some(c)) if c.half_written() => {
            return verdict(false, "a time of day and a number");
        }
        _ => {}
    }
    if let Some(letter) = reference_choice(r) {
        let got = predicted_choice(p);
        return verdict(got == Some(letter), format!("multiple choice {letter}, predicted {got:?}"));
    }
    // `(A) = 42`, `\\textbf{(A)}\\ 12`: a choice's label before a value answers the letter only, as it does a letter
    // reference; read as the value too, it would pay the letter of one option beside the value of another.
    if predicted_choice(p).is_some() && choice_text(p).trim_start_matches('(').chars().nth(1) == Some(')') {
        return verdict(false, "a choice's label and a value: the letter is the answer");
    }
    let (mut reference, mut reference_units) = match parsed(r, true) {
        Ok(n) => n,
        Err(e) => return verdict(false, format!("reference {e}")),
    };
    let (mut prediction, mut units) = match parsed(p, false) {
        Ok(n) => n,
        Err(e) => return verdict(false, format!("prediction {e}")),
    };
    // `24 m^2` for the constant 24: a number and a one-letter unit, not a product with a variable; so is a
    // reference `24 m^2` against a number given with its unit (`24 \text{ m}^2`), never against a bare number.
    // With units named on one side (`9.8 \\mathrm{~m/s^2}`), the other's bare unit symbols are units too (`9.8 m/s^2`).
    if vars_of(&reference).is_empty() && is_scalar(&reference) {
        if let Some(measure) = measured(&prediction, !reference_units.is_empty()) {
            (prediction, units) = measure;
        }
    } else if !units.is_empty() && vars_of(&prediction).is_empty() && is_scalar(&prediction) {
        if let Some(measure) = measured(&reference, true) {
            (reference, reference_units) = measure;
        }
    }
    // `45¢` against `\\$0.45`: cents are hundredths of the currency written on the other side, never whole units of
    // it (`45¢` is no `\\$45`).
    let cents = |u: &[String]| u.iter().any(|x| x == "cent");
    let whole_money =
        |u: &[String], raw: &str| money(raw) || u.iter().any(|x| lexer::CURRENCY_UNITS.contains(&x.as_str()));
    let hundredth =
        |n: &Node| Node::Div(Box::new(n.clone()), Box::new(Node::Num(BigRational::from_integer(100.into()))));
    if cents(&units) && whole_money(&reference_units, r) {
        let equal = value_eq(&hundredth(&prediction), &reference, o);
        return verdict(
            equal,
            if equal { "equivalent (cents as hundredths)" } else { "not equivalent (cents as hundredths)" },
        );
    }
    if cents(&reference_units) && whole_money(&units, p) {
        let equal = value_eq(&prediction, &hundredth(&reference), o);
        return verdict(
            equal,
            if equal { "equivalent (cents as hundredths)" } else { "not equivalent (cents as hundredths)" },
        );
    }
    // The same units in another order or grouping (`m \\cdot kg` is `kg \\cdot m`, `m/s/s` is `m/s^2`).
    let (units, reference_units) = (unit_product(&units), unit_product(&reference_units));
    if !units.is_empty() && !reference_units.is_empty() && units != reference_units {
        return verdict(false, format!("different units ({} vs {})", units.join(" "), reference_units.join(" ")));
    }
    // `5\\%` is no `\\$5` nor `5 cm`: a percentage is a unit of its own against a value given with one.
    if percentage(&prediction) && (!reference_units.is_empty() || money(r))
        || percentage(&reference) && (!units.is_empty() || money(p))
    {
        return verdict(false, "a percentage against a value with a unit");
    }
    // A constant asked for: a piecewise expression in variables is not it, even where sampling cannot tell
    // (`\\max(5, x)` is 5 only for x <= 5).
    if is_scalar(&prediction)
        && is_scalar(&reference)
        && vars_of(&reference).is_empty()
        && !vars_of(&prediction).is_empty()
        && piecewise(&prediction)
    {
        return verdict(false, "an expression in variables for a constant");
    }
    if sloppy_approximation(p) {
        return verdict(false, "an approximation that is not close (5 \\approx 6)");
    }
    // `p(0)` for 0: a value of a function the reference does not know, however it parses (here p·0, which
    // vanishes).
    if !matches!(prediction, Node::Relation(..)) && applies_unknown_function(p, &vars_of(&reference), r) {
        return verdict(false, "a value of an undefined function (f(5))");
    }
    if false_chain(&prediction, o) {
        return verdict(false, "a false equation (two different values set equal)");
    }
    if !o.strict {
        prediction = rename_like(&prediction, &reference);
    }
    let (prediction, reference) = (scaled_matrix(prediction), scaled_matrix(reference));
    if let Some(gold) = float_repr(r) {
        let value = (is_scalar(&prediction) && vars_of(&prediction).is_empty()).then(|| real_f64(&prediction));
        if value.flatten().is_some_and(|x| ulps_close(x, gold)) {
            return verdict(true, "equal at the reference's float precision");
        }
    }
    let equal = eq(&prediction, &reference, o);
    verdict(equal, if equal { "equivalent" } else { "not equivalent" })
}

fn vars_of(n: &Node) -> Vec<String> {
    let mut vars = Vec::new();
    numeric::variables(n, &mut vars);
    vars
}

/// Non-strict comparison: the prediction's variables renamed to the reference's, matched in sorted order
/// (`f(y) = y^2` against `f(x) = x^2`), when both have as many.
fn rename_like(prediction: &Node, reference: &Node) -> Node {
    let (mut from, mut to) = (vars_of(prediction), vars_of(reference));
    if from.len() != to.len() || from == to {
        return prediction.clone();
    }
    from.sort();
    to.sort();
    map_vars(prediction, &|name| from.iter().position(|f| f == name).map(|k| to[k].clone()))
}

/// `n` with each variable `v` replaced by `Var(f(v))` where `f` gives a name.
fn map_vars(n: &Node, f: &dyn Fn(&str) -> Option<String>) -> Node {
    let m = |x: &Node| map_vars(x, f);
    let b = |x: &Node| Box::new(m(x));
    let all = |xs: &[Node]| xs.iter().map(m).collect::<Vec<_>>();
    match n {
        Node::Var(name) => Node::Var(f(name).unwrap_or_else(|| name.clone())),
        Node::Add(xs) => Node::Add(all(xs)),
        Node::Mul(xs) => Node::Mul(all(xs)),
        Node::Set(xs) => Node::Set(all(xs)),
        Node::List(xs) => Node::List(all(xs)),
        Node::Union(xs) => Node::Union(all(xs)),
        Node::Bracket(o, xs, c) => Node::Bracket(*o, all(xs), *c),
        Node::Relation(xs, ops) => Node::Relation(all(xs), ops.clone()),
        Node::Matrix(rows) => Node::Matrix(rows.iter().map(|r| all(r)).collect()),
        Node::Neg(x) => Node::Neg(b(x)),
        Node::Func(g, x) => Node::Func(*g, b(x)),
        Node::Apply(op, xs) => Node::Apply(*op, all(xs)),
        Node::Factorial(x) => Node::Factorial(b(x)),
        Node::Percent(x) => Node::Percent(b(x)),
        Node::Div(x, y) => Node::Div(b(x), b(y)),
        Node::Pow(x, y) => Node::Pow(b(x), b(y)),
        Node::Root(x, y) => Node::Root(b(x), b(y)),
        Node::Log(x, y) => Node::Log(b(x), b(y)),
        Node::PlusMinus(x, y) => Node::PlusMinus(b(x), b(y)),
        Node::SetOp(op, x, y) => Node::SetOp(*op, b(x), b(y)),
        Node::Big { product, index, bounds, body } => Node::Big {
            product: *product,
            index: index.clone(),
            bounds: Box::new((m(&bounds.0), m(&bounds.1))),
            body: if f(index).is_some() { body.clone() } else { b(body) },
        },
        Node::Num(_) | Node::Decimal(_) | Node::Const(_) | Node::Text(_) => n.clone(),
    }
}

/// Is `n` made of names only: variables, and products, quotients, ratios, absolute values and argument
/// lists of them (`x`, `AB`, `|AB|`, `\frac{NO}{BO}`, `V_1:V_2`, `f(x)`, `(x, y)`)?
fn only_names(n: &Node) -> bool {
    match n {
        Node::Var(_) => true,
        Node::Mul(xs) => xs.iter().all(only_names),
        Node::Div(a, b) => only_names(a) && only_names(b),
        Node::Func(Func::Abs, x) => only_names(x),
        Node::Bracket('(', xs, ')') => xs.iter().all(only_names),
        _ => false,
    }
}

/// A variable an inequality bounds: `x`, or function notation `f(x)` (not `|x|`, `xy` or `x/y`, whose
/// solution sets differ from the bounds written).
fn interval_variable(n: &Node) -> bool {
    match n {
        Node::Var(_) => true,
        Node::Mul(factors) => matches!(factors.as_slice(),
            [Node::Var(f), Node::Var(_) | Node::Bracket('(', ..)] if FUNCTION_NAMES.contains(&f.as_str())),
        _ => false,
    }
}

/// Does `side` only name the answer given by `other`? Names none of whose variables `other` uses
/// (`y = 2x+1`, `|AB| = 4`, `(x, y) = (1, 2)`), or function notation (`f(x) = x^2`).
fn names_answer(side: &Node, other: &Node) -> bool {
    if !only_names(side) {
        return false;
    }
    let used = vars_of(other);
    let free = |name: &String| !used.contains(name);
    if vars_of(side).iter().all(free) {
        return true;
    }
    // `f(x)` parses as the product f·x: a conventional function name, free, applied to variables.
    match side {
        Node::Mul(factors) => {
            match factors.split_first() {
                Some((Node::Var(f), args)) => {
                    FUNCTION_NAMES.contains(&f.as_str()) && free(f) && args.iter().all(|a| {
                        matches!(a, Node::Var(_))
                            || matches!(a, Node::Bracket('(', xs, ')') if xs.iter().all(|x| matches!(x, Node::Var(_))))
                    })
                }
                _ => false,
            }
        }
        _ => false,
    }
}

fn difference(lhs: &Node, rhs: &Node) -> Node {
    Node::Add(vec![lhs.clone(), Node::Neg(Box::new(rhs.clone()))])
}

/// `lhs - rhs = m·v + c` in its only variable `v`, exactly (m != 0): `(v, m, root)` with root `-c/m`.
fn linear(lhs: &Node, rhs: &Node) -> Option<(String, Surd, Node)> {
    let mut vars = vars_of(lhs);
    numeric::variables(rhs, &mut vars);
    let [v] = vars.as_slice() else { return None };
    let diff = difference(lhs, rhs);
    let at = |t: i64| exact::eval(&substitute(&diff, &|name| (name == v).then(|| int(t))));
    let (f0, f1) = (at(0)?, at(1)?);
    let m = f1.add(&f0.neg())?;
    if m.is_zero() {
        return None;
    }
    // Linear: f(t) = f(0) + t·m at two more points.
    for t in [2, -3] {
        let expected = f0.add(&m.mul(&Surd::rational(BigRational::from_integer(BigInt::from(t))))?)?;
        if at(t)? != expected {
            return None;
        }
    }
    let root = f0.neg().mul(&m.inv()?)?.to_node();
    Some((v.clone(), m, root))
}

/// The two ends of an equation, a chain of equalities included (`x = 5+5+1 = 11` is `x = 11`).
fn equation(n: &Node) -> Option<(&Node, &Node)> {
    let Node::Relation(sides, ops) = n else { return None };
    (!ops.is_empty() && ops.iter().all(|r| *r == Rel::Eq)).then(|| (&sides[0], &sides[sides.len() - 1]))
}

/// A name for what an equation's side names (`x`, `AB`, `f(x)`): its tree, written out.
fn name_of(side: &Node) -> String {
    format!("{side:?}")
}

/// What an equation says the answer is, with the name it gives it: the other side of a naming side (see
/// [`names_answer`]). An equation to solve (`2x = 6`) says nothing: solving it is the task.
fn solution(n: &Node) -> Option<(Option<String>, Node)> {
    let (lhs, rhs) = equation(n)?;
    for (name, value) in [(lhs, rhs), (rhs, lhs)] {
        if names_answer(name, value) {
            return Some((Some(name_of(name)), value.clone()));
        }
    }
    None
}

/// Does the equation give a name a value without variables (`x = 4`, `(x, y) = (1, 2)`)?
fn constant_solution(n: &Node) -> bool {
    solution(n).is_some_and(|(_, v)| vars_of(&v).is_empty())
}

/// The value a predicted equation gives: its solution, else its last side (`5+5+1 = 11` and `a+2z = 101`, the
/// value of what was asked, give 11 and 101; `3x+7 = 19` gives 19, not its root).
fn predicted_value(n: &Node) -> Option<Node> {
    solution(n).map(|(_, v)| v).or_else(|| equation(n).map(|(_, last)| last.clone()))
}

/// An interval with its ends (`None` ends are the infinities).
struct Interval {
    lo: Option<Node>,
    lo_closed: bool,
    hi: Option<Node>,
    hi_closed: bool,
}

/// An interval end: `None` for `\infty` and `-\infty`.
fn end(n: &Node) -> Option<Node> {
    let infinity = |x: &Node| matches!(x, Node::Const(Constant::Infinity));
    let infinite = infinity(n) || matches!(n, Node::Neg(x) if infinity(x));
    (!infinite).then(|| n.clone())
}

fn bracket_interval(n: &Node) -> Option<Interval> {
    let Node::Bracket(open, items, close) = n else { return None };
    if items.len() != 2 || !matches!(open, '(' | '[') || !matches!(close, ')' | ']') {
        return None;
    }
    Some(Interval { lo: end(&items[0]), lo_closed: *open == '[', hi: end(&items[1]), hi_closed: *close == ']' })
}

fn half_line(value: Node, op: Rel) -> Option<Vec<Interval>> {
    let below = |closed| Interval { lo: None, lo_closed: false, hi: Some(value.clone()), hi_closed: closed };
    let above = |closed| Interval { lo: Some(value.clone()), lo_closed: closed, hi: None, hi_closed: false };
    Some(match op {
        Rel::Gt | Rel::Ge => vec![above(op == Rel::Ge)],
        Rel::Lt | Rel::Le => vec![below(op == Rel::Le)],
        Rel::Ne => vec![below(false), above(false)],
        _ => return None,
    })
}

/// One-variable inequalities (`x > 3`, `2x \le 6`, `1 < x \le 2`, `0 < f(x) < 1`, `x \ne 3`) as intervals.
fn relation_intervals(n: &Node) -> Option<Vec<Interval>> {
    let Node::Relation(sides, ops) = n else { return None };
    match (sides.len(), ops.as_slice()) {
        (2, [op]) if !matches!(op, Rel::Eq | Rel::In) => {
            // A name on one side and a constant on the other (`f(x) > 0`), or m·v + c (op) 0.
            for (k, op) in [(0, *op), (1, op.flipped())] {
                if interval_variable(&sides[k]) && vars_of(&sides[1 - k]).is_empty() {
                    return half_line(sides[1 - k].clone(), op);
                }
            }
            let (_, m, root) = linear(&sides[0], &sides[1])?;
            half_line(root, if m.to_f64() < 0.0 { op.flipped() } else { *op })
        }
        (3, [a, b])
            if interval_variable(&sides[1])
                || matches!(&sides[1], Node::Func(Func::Abs, x) if matches!(**x, Node::Var(_))) =>
        {
            let lower = |r: Rel| matches!(r, Rel::Lt | Rel::Le);
            let upper = |r: Rel| matches!(r, Rel::Gt | Rel::Ge);
            let (lo, lo_op, hi, hi_op) = if lower(*a) && lower(*b) {
                (&sides[0], *a, &sides[2], *b)
            } else if upper(*a) && upper(*b) {
                (&sides[2], b.flipped(), &sides[0], a.flipped())
            } else {
                return None;
            };
            let (lo_closed, hi_closed) = (lo_op == Rel::Le, hi_op == Rel::Le);
            if !matches!(sides[1], Node::Func(Func::Abs, _)) {
                return Some(vec![Interval { lo: end(lo), lo_closed, hi: end(hi), hi_closed }]);
            }
            // `a <= |z| <= b` with 0 <= a: z in [-b, -a] or [a, b].
            let nonnegative = numeric::eval(lo, &|_| None).is_some_and(|v| v.is_real() && v.re >= 0.0);
            if !nonnegative || end(hi).is_none() {
                return None;
            }
            let neg = |x: &Node| Some(Node::Neg(Box::new(x.clone())));
            Some(vec![
                Interval { lo: neg(hi), lo_closed: hi_closed, hi: neg(lo), hi_closed: lo_closed },
                Interval { lo: end(lo), lo_closed, hi: end(hi), hi_closed },
            ])
        }
        _ => None,
    }
}

fn intervals(n: &Node) -> Option<Vec<Interval>> {
    match n {
        // `\{0\} \cup [1, 2]`: a set's points are closed intervals of one point.
        Node::Union(parts) => {
            let mut out = Vec::new();
            for p in parts {
                match p {
                    Node::Set(points) => out.extend(points.iter().map(|x| Interval {
                        lo: end(x),
                        lo_closed: true,
                        hi: end(x),
                        hi_closed: true,
                    })),
                    _ => out.push(bracket_interval(p)?),
                }
            }
            Some(out)
        }
        Node::Bracket(..) => Some(vec![bracket_interval(n)?]),
        Node::Relation(..) => relation_intervals(n),
        _ => None,
    }
}

fn same_end(a: Option<&Node>, b: Option<&Node>, o: &Options) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => scalar_eq(x, y, o),
        _ => false,
    }
}

fn intervals_eq(a: &[Interval], b: &[Interval], o: &Options) -> bool {
    let same = |x: &Interval, y: &Interval| {
        x.lo_closed == y.lo_closed
            && x.hi_closed == y.hi_closed
            && same_end(x.lo.as_ref(), y.lo.as_ref(), o)
            && same_end(x.hi.as_ref(), y.hi.as_ref(), o)
    };
    a.len() == b.len()
        && a.iter().all(|x| b.iter().any(|y| same(x, y)))
        && b.iter().all(|y| a.iter().any(|x| same(x, y)))
}

/// The members of an order-free collection: a set, a bare list (of values or `x = v`), or `a \pm b`.
fn members(n: &Node) -> Option<Vec<Node>> {
    let item = |x: &Node| solution(x).map_or_else(|| x.clone(), |(_, v)| v);
    match n {
        Node::Set(xs) | Node::List(xs) => Some(xs.iter().map(item).collect()),
        Node::PlusMinus(a, b) => Some(vec![
            Node::Add(vec![(**a).clone(), (**b).clone()]),
            Node::Add(vec![(**a).clone(), Node::Neg(b.clone())]),
        ]),
        _ => None,
    }
}

fn unordered_eq(a: &[Node], b: &[Node], o: &Options) -> bool {
    if a.len() * b.len() > MAX_UNORDERED_PAIRS {
        return ordered_eq(a, b, o);
    }
    a.iter().all(|x| b.iter().any(|y| eq(x, y, o))) && b.iter().all(|y| a.iter().any(|x| eq(x, y, o)))
}

fn ordered_eq(a: &[Node], b: &[Node], o: &Options) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y, o))
}

/// Two equations with the same solutions: `lhs - rhs` of one is a nonzero constant times the other's
/// (`4x+8y-6=0` and `2x+4y-3=0`; `y = -\frac12x+\frac34` and `2x+4y-3=0`; a conic and its multiple).
fn proportional(a: &Node, b: &Node) -> bool {
    let mut vars = vars_of(a);
    numeric::variables(b, &mut vars);
    if vars.is_empty() {
        return false;
    }
    let (mut ratio, mut defined) = (None::<C>, 0);
    for k in 0..SAMPLE_POINTS {
        let at = |name: &str| Some(sample(name, k));
        let (Some(x), Some(y)) = (numeric::eval(a, &at), numeric::eval(b, &at)) else { continue };
        if !x.finite() || !y.finite() {
            continue;
        }
        let (zx, zy) = (x.abs() <= 1e-12, y.abs() <= 1e-12);
        if zx || zy {
            if zx != zy {
                return false;
            }
            continue;
        }
        let Some(r) = x.checked_div(y) else { return false };
        match ratio {
            Some(first) if !close(first, r, SAMPLED_TOL) => return false,
            Some(_) => {}
            None => ratio = Some(r),
        }
        defined += 1;
    }
    defined * 2 >= SAMPLE_POINTS
}

fn relations_eq(a: &Node, b: &Node, o: &Options) -> bool {
    if let Some(same) = super::functions::congruences_eq(a, b, &|x, y| eq(x, y, o)) {
        return same;
    }
    // Linear inequalities compare by their solution sets, solved or not (`-x > -1` = `x < 1`, as Math-Verify's
    // and lighteval's tests require).
    if let (Some(x), Some(y)) = (relation_intervals(a), relation_intervals(b)) {
        // Strict: the same variable is bounded (`t > 3` is not `x > 3`).
        let same_variable = !o.strict || vars_of(a) == vars_of(b);
        return same_variable && intervals_eq(&x, &y, o);
    }
    if let (Some((la, ra)), Some((lb, rb))) = (equation(a), equation(b)) {
        if let (Some((na, va)), Some((nb, vb))) = (solution(a), solution(b)) {
            if na == nb || !o.strict {
                return eq(&va, &vb, o);
            }
        }
        // `x = 4` is answered by a value, not by the equation it solves (`3x+7 = 19`, `|x| = 4`).
        if constant_solution(a) != constant_solution(b) {
            return false;
        }
        // Same solution set: the differences agree up to a nonzero factor.
        return proportional(&difference(la, ra), &difference(lb, rb));
    }
    let (Node::Relation(sa, oa), Node::Relation(sb, ob)) = (a, b) else { return false };
    let forward = oa == ob && ordered_eq(sa, sb, o);
    let flipped: Vec<Rel> = oa.iter().rev().map(|r| r.flipped()).collect();
    let backward = flipped == *ob && sa.len() == sb.len() && sa.iter().rev().zip(sb).all(|(x, y)| eq(x, y, o));
    forward || backward
}

/// `x=1, y=2`: the values by name, when every item is an equation naming a distinct name.
fn named_values(n: &Node) -> Option<Vec<(String, Node)>> {
    let Node::List(items) = n else { return None };
    let mut out: Vec<(String, Node)> = Vec::new();
    for item in items {
        let (Some(name), value) = solution(item)? else { return None };
        if out.iter().any(|(seen, _)| *seen == name) {
            return None; // `x=1, x=2`: solutions of one variable, a set
        }
        out.push((name, value));
    }
    Some(out)
}

/// `x=2, x=3` (or `x=2 \\text{ or } x=3`): two or more values of one name, as the set of them.
fn one_variable_set(n: &Node) -> Option<Node> {
    let Node::List(items) = n else { return None };
    let mut name = None;
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        let (Some(this), value) = solution(item)? else { return None };
        if name.get_or_insert_with(|| this.clone()) != &this {
            return None;
        }
        values.push(value);
    }
    (values.len() >= 2).then_some(Node::Set(values))
}

/// Where a name sorts among the names of a point (`x` before `y`, `x_2` before `x_10`): a Latin letter with an
/// optional numeric subscript; other names (`lambda`) have no place.
fn name_place(item: &Node) -> Option<(char, bool, u64)> {
    let (lhs, rhs) = equation(item)?;
    let (name, _) = [(lhs, rhs), (rhs, lhs)].into_iter().find(|(name, value)| names_answer(name, value))?;
    let Node::Var(name) = name else { return None };
    let mut chars = name.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    let rest = chars.as_str();
    let subscript = match rest.strip_prefix('_') {
        None if rest.is_empty() => 0,
        Some(digits) if !digits.is_empty() && digits.len() <= 9 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse().ok()?
        }
        _ => return None,
    };
    Some((letter.to_ascii_lowercase(), letter.is_ascii_uppercase(), subscript))
}

/// `(y, x) = (3, 4)` as the equations `x = 4, y = 3` in the order of their names, when a bracket of distinct
/// one-letter names (see [`name_place`]) not in that order equals a bracket of as many values (else it stays a
/// tuple equation).
fn tuple_equations(n: &Node) -> Option<Node> {
    let (lhs, rhs) = equation(n)?;
    let (Node::Bracket('(', names, ')'), Node::Bracket('(', values, ')')) = (lhs, rhs) else { return None };
    if names.len() != values.len() || names.len() < 2 || !names.iter().all(|x| matches!(x, Node::Var(_))) {
        return None;
    }
    let items: Vec<Node> =
        names.iter().zip(values).map(|(x, v)| Node::Relation(vec![x.clone(), v.clone()], vec![Rel::Eq])).collect();
    in_name_order(&Node::List(items))
}

/// `y=1, x=2`: the equations in the order of their names, when each names a distinct letter (see [`name_place`])
/// and they are not written in that order already.
fn in_name_order(n: &Node) -> Option<Node> {
    let Node::List(items) = n else { return None };
    named_values(n)?;
    let mut placed: Vec<((char, bool, u64), &Node)> =
        items.iter().map(|item| name_place(item).map(|p| (p, item))).collect::<Option<_>>()?;
    if placed.windows(2).all(|w| w[0].0 <= w[1].0) {
        return None;
    }
    placed.sort_by_key(|(p, _)| *p);
    Some(Node::List(placed.into_iter().map(|(_, item)| item.clone()).collect()))
}

/// A union of finite sets as one set (`\{1,3\} \cup \{2,4\}` is `\{1,2,3,4\}`).
fn set_union(n: &Node) -> Option<Node> {
    let Node::Union(parts) = n else { return None };
    let mut members = Vec::new();
    for p in parts {
        // `{1,2} \\cup {2,3}`: bare braces around a list are a set here.
        let (Node::Set(xs) | Node::List(xs)) = p else { return None };
        members.extend(xs.iter().cloned());
    }
    Some(Node::Set(members))
}

/// `x \in S` stands for S.
fn membership(n: &Node) -> Option<&Node> {
    match n {
        Node::Relation(sides, ops) if ops.as_slice() == [Rel::In] && only_names(&sides[0]) => Some(&sides[1]),
        _ => None,
    }
}

/// `\\theta \\begin{matrix}a & b\\end{matrix}`: a product of scalars and one matrix, as the matrix of the
/// products (entries with variables cannot be computed exactly, so this is written out instead).
fn scaled_matrix(n: Node) -> Node {
    let Node::Mul(factors) = &n else { return n };
    let matrices = factors.iter().filter(|f| matches!(f, Node::Matrix(_))).count();
    if matrices != 1 || factors.iter().any(matrix_arithmetic) {
        return n;
    }
    let scalars: Vec<Node> = factors.iter().filter(|f| !matches!(f, Node::Matrix(_))).cloned().collect();
    let Some(Node::Matrix(rows)) = factors.iter().find(|f| matches!(f, Node::Matrix(_))) else { return n };
    let scale = |entry: &Node| Node::Mul(scalars.iter().cloned().chain(std::iter::once(entry.clone())).collect());
    Node::Matrix(rows.iter().map(|r| r.iter().map(scale).collect()).collect())
}

/// Largest matrix dimension computed with (sums and products of matrices).
const MAX_MATRIX_DIM: usize = 8;

type Exact = Vec<Vec<Surd>>;

/// Is `n` arithmetic on matrices (`A + B`, `2A`, `AB`, `-A`) rather than one matrix?
fn matrix_arithmetic(n: &Node) -> bool {
    let has = |x: &Node| matches!(x, Node::Matrix(_)) || matrix_arithmetic(x);
    match n {
        Node::Add(xs) | Node::Mul(xs) => xs.iter().any(has),
        Node::Neg(x) => has(x),
        _ => false,
    }
}

/// The exact entries of a matrix expression whose entries are numbers (`None` otherwise, or when shapes
/// do not match or exceed [`MAX_MATRIX_DIM`]). A scalar is a 1x1 value with `scalar = true`.
fn matrix_exact(n: &Node) -> Option<(Exact, bool)> {
    let dims_ok =
        |m: &Exact| m.len() <= MAX_MATRIX_DIM && m.iter().all(|r| r.len() == m[0].len() && r.len() <= MAX_MATRIX_DIM);
    match n {
        Node::Matrix(rows) => {
            let m: Exact =
                rows.iter().map(|r| r.iter().map(exact::eval).collect::<Option<Vec<_>>>()).collect::<Option<_>>()?;
            dims_ok(&m).then_some((m, false))
        }
        Node::Neg(x) => {
            let (m, scalar) = matrix_exact(x)?;
            Some((m.iter().map(|r| r.iter().map(Surd::neg).collect()).collect(), scalar))
        }
        Node::Add(xs) => {
            let mut acc: Option<(Exact, bool)> = None;
            for x in xs {
                let (m, scalar) = matrix_exact(x)?;
                acc = Some(match acc {
                    None => (m, scalar),
                    Some((a, sa)) => {
                        if sa != scalar || a.len() != m.len() || a[0].len() != m[0].len() {
                            return None;
                        }
                        let sum = a
                            .iter()
                            .zip(&m)
                            .map(|(r, q)| r.iter().zip(q).map(|(x, y)| x.add(y)).collect())
                            .collect::<Option<_>>()?;
                        (sum, sa)
                    }
                });
            }
            acc
        }
        Node::Mul(xs) => {
            let mut acc: Option<(Exact, bool)> = None;
            for x in xs {
                let (m, scalar) = matrix_exact(x)?;
                acc = Some(match acc {
                    None => (m, scalar),
                    Some((a, sa)) => (matrix_product(&a, sa, &m, scalar)?, sa && scalar),
                });
            }
            acc
        }
        _ => exact::eval(n).map(|v| (vec![vec![v]], true)),
    }
}

fn matrix_product(a: &Exact, a_scalar: bool, b: &Exact, b_scalar: bool) -> Option<Exact> {
    let scale = |k: &Surd, m: &Exact| m.iter().map(|r| r.iter().map(|x| k.mul(x)).collect()).collect::<Option<Exact>>();
    match (a_scalar, b_scalar) {
        (true, _) => scale(&a[0][0], b),
        (_, true) => scale(&b[0][0], a),
        _ => {
            if a[0].len() != b.len() {
                return None;
            }
            (0..a.len())
                .map(|i| {
                    (0..b[0].len())
                        .map(|j| {
                            (0..b.len())
                                .try_fold(Surd::rational(BigRational::from_integer(BigInt::from(0))), |acc, k| {
                                    acc.add(&a[i][k].mul(&b[k][j])?)
                                })
                        })
                        .collect()
                })
                .collect()
        }
    }
}

/// Structural and numeric equality of a prediction `a` and a reference `b`.
pub fn eq(a: &Node, b: &Node, o: &Options) -> bool {
    if !budget::charge(EQ_COST) {
        return false;
    }
    if matrix_arithmetic(a) || matrix_arithmetic(b) {
        return matches!((matrix_exact(a), matrix_exact(b)), (Some((x, false)), Some((y, false))) if x == y);
    }
    if let (Some(x), Some(y)) = (named_values(a), named_values(b)) {
        if x.len() == y.len() && x.iter().all(|(n, v)| y.iter().any(|(m, w)| n == m && eq(v, w, o))) {
            return true;
        }
        if !o.strict {
            return ordered_eq(
                &x.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
                &y.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
                o,
            );
        }
        return false;
    }
    // `x=2 or x=3`, `x=2, x=3`: the solutions of one variable are a set, never a point (`x=2, y=3`) or an interval.
    if let Some(set) = one_variable_set(a) {
        return named_values(b).is_none() && eq(&set, b, o);
    }
    if let Some(set) = one_variable_set(b) {
        return named_values(a).is_none() && eq(a, &set, o);
    }
    // `(y, x) = (3, 4)`: the equations `y = 3, x = 4`, so its names decide the order too.
    if let Some(list) = tuple_equations(a) {
        return eq(&list, b, o);
    }
    if let Some(list) = tuple_equations(b) {
        return eq(a, &list, o);
    }
    // `y=1, x=2` against an unnamed `(2, 1)`: the values in the order of their names, not as written.
    if let Some(sorted) = in_name_order(a) {
        return eq(&sorted, b, o);
    }
    if let Some(sorted) = in_name_order(b) {
        return eq(a, &sorted, o);
    }
    if let Some(set) = membership(a) {
        return eq(set, b, o);
    }
    if let Some(set) = membership(b) {
        return eq(a, set, o);
    }
    match (a, b) {
        (Node::Relation(..), Node::Relation(..)) => relations_eq(a, b, o),
        (Node::Relation(..), _) => {
            // A predicted equation gives its value; a predicted inequality is a set only when allowed.
            if let Some(v) = predicted_value(a) {
                return eq(&v, b, o);
            }
            o.allow_set_relation_comp
                && matches!((relation_intervals(a), intervals(b)), (Some(x), Some(y)) if intervals_eq(&x, &y, o))
        }
        (_, Node::Relation(..)) => {
            if let Some((_, v)) = solution(b) {
                return eq(a, &v, o);
            }
            matches!((intervals(a), relation_intervals(b)), (Some(x), Some(y)) if intervals_eq(&x, &y, o))
        }
        (Node::Union(_), _) | (_, Node::Union(_)) if set_union(a).is_some() || set_union(b).is_some() => {
            match (set_union(a), set_union(b)) {
                (Some(x), Some(y)) => eq(&x, &y, o),
                (Some(x), None) => eq(&x, b, o),
                (None, Some(y)) => eq(a, &y, o),
                (None, None) => false,
            }
        }
        (Node::Union(_), _) | (_, Node::Union(_)) => match (intervals(a), intervals(b)) {
            (Some(x), Some(y)) => intervals_eq(&x, &y, o),
            _ => false,
        },
        (Node::Bracket(oa, xa, ca), Node::Bracket(ob, xb, cb)) => oa == ob && ca == cb && ordered_eq(xa, xb, o),
        (Node::List(xs), Node::Bracket('(', ys, ')')) | (Node::Bracket('(', xs, ')'), Node::List(ys)) => {
            ordered_eq(xs, ys, o)
        }
        (Node::Set(xs), Node::Bracket('(', ys, ')')) | (Node::Bracket('(', xs, ')'), Node::Set(ys)) if !o.strict => {
            ordered_eq(xs, ys, o)
        }
        (Node::Matrix(ra), Node::Matrix(rb)) => {
            ra.len() == rb.len() && ra.iter().zip(rb).all(|(x, y)| ordered_eq(x, y, o))
        }
        (Node::Text(x), Node::Text(y)) => x == y,
        (
            Node::Big { product: pa, index: ia, bounds: ba, body: xa },
            Node::Big { product: pb, index: ib, bounds: bb, body: xb },
        ) if pa == pb => {
            // Same operator, bounds and body (the index renamed): `\sum_{k=0}^{n-1} F_k F_{n-k-1}` in any order
            // of factors. Sums with numbers for bounds are also compared by value below.
            let renamed = map_vars(xb, &|v| (v == ib).then(|| ia.clone()));
            (scalar_eq(&ba.0, &bb.0, o) && scalar_eq(&ba.1, &bb.1, o) && value_eq(xa, &renamed, o))
                || scalar_eq(a, b, o)
        }
        _ => match (members(a), members(b)) {
            (Some(x), Some(y)) => unordered_eq(&x, &y, o),
            (Some(x), None) if x.len() == 1 => eq(&x[0], b, o),
            (None, Some(y)) if y.len() == 1 => eq(a, &y[0], o),
            (None, None) => scalar_eq(a, b, o),
            _ => false,
        },
    }
}

/// Significant digits of a reference that is a printed binary float (Python's `repr(2/3)` is
/// `0.6666666666666666`: 16; shortest round-trip forms of doubles that are not short decimals have 15 to 17).
const FLOAT_REPR_DIGITS: std::ops::RangeInclusive<usize> = 15..=17;
/// How far, in units in the last place of the reference, a value may be from a float-repr reference.
const FLOAT_REPR_ULPS: f64 = 2.0;

/// The value of a reference written as a printed binary float (SVAMP- and ASDiv-style datasets store golds
/// as `repr(float)`): a decimal of [`FLOAT_REPR_DIGITS`] significant digits that is the shortest round-trip
/// form of its double. Such a reference means that double, not the decimal's exact value, so the prediction
/// is compared at its precision: `2/3` and `0.6666666666666667` equal `0.6666666666666666`, `0.67` does not.
fn float_repr(reference: &str) -> Option<f64> {
    let t = reference.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    let (int, frac) = digits.split_once('.')?;
    if int.is_empty() || frac.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let lead = int.trim_start_matches('0');
    let significant = lead.len() + if lead.is_empty() { frac.trim_start_matches('0').len() } else { frac.len() };
    let value: f64 = t.parse().ok()?;
    // Rust prints the shortest string that round-trips, as Python's repr does (for these magnitudes).
    (FLOAT_REPR_DIGITS.contains(&significant) && value.is_finite() && value != 0.0 && format!("{value}") == t)
        .then_some(value)
}

/// A constant's value as the nearest double, when it is real.
/// The real value of an answer written as `text` (`12\\pi`, `\\frac14`), when it has one.
pub fn real_value(text: &str) -> Option<f64> {
    if text.len() > MAX_ANSWER_BYTES {
        return None;
    }
    let (n, _) = parsed(text, false).ok()?;
    vars_of(&n).is_empty().then(|| real_f64(&n)).flatten()
}

fn real_f64(n: &Node) -> Option<f64> {
    if let Some(q) = exact::eval(n).and_then(|s| s.as_rational()) {
        return q.to_f64();
    }
    // Exactly real: a tiny imaginary part (`2/3 + 10^{-20}i`) is not a real number.
    numeric::eval(n, &|_| None).filter(|c| c.im == 0.0).map(|c| c.re)
}

/// Is `x` within [`FLOAT_REPR_ULPS`] units in the last place of `gold`?
fn ulps_close(x: f64, gold: f64) -> bool {
    x.is_finite() && (x - gold).abs() <= FLOAT_REPR_ULPS * f64::EPSILON * gold.abs()
}

fn is_scalar(n: &Node) -> bool {
    !matches!(
        n,
        Node::Bracket(..)
            | Node::Set(_)
            | Node::List(_)
            | Node::Union(_)
            | Node::Matrix(_)
            | Node::Relation(..)
            | Node::Text(_)
            | Node::PlusMinus(..)
    )
}

/// `p\%` against a plain value `v`: `p/100` always (`50\% = 0.5`, `150\% = 1.5`), and `p` itself only where
/// `v` is a percentage number (`|v| >= 1`: GSM8K's `50` for "what percent…?"), never where `v` is a fraction
/// below one: `0.5\%` equals `0.005`, not `1/2`. A value whose size is unknown (with variables) may be either.
fn percent_reading<'a>(percent: &'a Node, inner: &'a Node, other: &Node) -> Vec<&'a Node> {
    match numeric::eval(other, &|_| None).filter(|c| c.is_real()) {
        Some(v) if v.re.abs() < 1.0 => vec![percent],
        _ => vec![percent, inner],
    }
}

fn scalar_eq(a: &Node, b: &Node, o: &Options) -> bool {
    if !is_scalar(a) || !is_scalar(b) {
        return false;
    }
    match (a, b) {
        (Node::Percent(x), Node::Percent(y)) => value_eq(x, y, o),
        (Node::Percent(x), _) => percent_reading(a, x, b).into_iter().any(|x| value_eq(x, b, o)),
        (_, Node::Percent(y)) => percent_reading(b, y, a).into_iter().any(|y| value_eq(a, y, o)),
        _ => value_eq(a, b, o),
    }
}

/// The larger magnitude of `x` and `y`, and their distance: what every closeness test weighs.
fn scale_and_diff(x: C, y: C) -> (f64, f64) {
    (x.abs().max(y.abs()), C { re: x.re - y.re, im: x.im - y.im }.abs())
}

fn close(x: C, y: C, tol: f64) -> bool {
    if x.re.is_infinite() || y.re.is_infinite() {
        return x.re == y.re && x.im.abs() < tol && y.im.abs() < tol;
    }
    let (scale, diff) = scale_and_diff(x, y);
    diff <= tol * scale || diff <= 1e-12
}

/// Close only by the absolute tolerance of [`close`]: both nonzero, and relatively far apart.
fn tiny_apart(x: C, y: C) -> bool {
    let (scale, diff) = scale_and_diff(x, y);
    x.abs() != 0.0 && y.abs() != 0.0 && diff > SAMPLED_TOL * scale
}

/// Plainly different in floating point: more than 1e-6 apart relatively (absolutely below 1), and not so large
/// that rounding could be the cause (`\sin\pi` is 1e-16 in floating point: not plainly different from 0). Everything else goes to high precision.
fn apart(x: C, y: C) -> bool {
    let (scale, diff) = scale_and_diff(x, y);
    scale < 1e150 && diff > 1e-6 * scale.max(1.0)
}

/// A fixed pseudo-random point for variable `name` at sample `k` (SplitMix64): |x| in [0.35, 2.65], negative
/// at odd `k`, so `|x|` and `x` (or `\sqrt{x^2}` and `x`) differ.
fn sample(name: &str, k: usize) -> f64 {
    if k >= 4 * SAMPLE_POINTS {
        // The far round (piecewise functions only): 1024 times the first, |x| up to ~2700, past the corners of
        // `|x - 100|` that the others do not reach.
        return 1024.0 * sample(name, k - 4 * SAMPLE_POINTS);
    }
    if k >= 3 * SAMPLE_POINTS {
        // The wide round (piecewise functions only): eight times the first, |x| up to ~21.
        return 8.0 * sample(name, k - 3 * SAMPLE_POINTS);
    }
    if k >= 2 * SAMPLE_POINTS {
        // The third round: above 1, by 1 + |x| (a multiple of 1/1024 still).
        return 1.0 + sample(name, k - 2 * SAMPLE_POINTS).abs();
    }
    if k >= SAMPLE_POINTS {
        // The second round: a quarter of the first (still a multiple of 1/4096, exact as a float).
        return sample(name, k - SAMPLE_POINTS) / 4.0;
    }
    let mut z =
        name.bytes().fold(0x9E37_79B9_7F4A_7C15u64 ^ k as u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    // A multiple of 1/1024, so the exact comparison and the floating-point one use the same point.
    let magnitude = ((0.35 + 2.3 * ((z >> 11) as f64 / (1u64 << 53) as f64)) * 1024.0).round() / 1024.0;
    if k % 2 == 1 {
        -magnitude
    } else {
        magnitude
    }
}

/// Rounds of [`SAMPLE_POINTS`] points each ([`sample`]): the next is tried while fewer than half are defined.
const SAMPLE_ROUNDS: usize = 3;

/// Most nodes (both sides) compared exactly at the sample points.
const EXACT_SAMPLING_NODES: usize = 160;
/// Largest integer power computed exactly at the sample points.
const EXACT_SAMPLING_POWER: u64 = 64;

/// Are all powers in `n` small integers or not integers at all (`x^{9999}` is left to floating point)?
fn small_powers(n: &Node) -> bool {
    let ok = |x: &Node| small_powers(x);
    match n {
        Node::Pow(b, e) => {
            let big = exact::eval(e)
                .and_then(|v| v.as_rational())
                .is_some_and(|q| q.is_integer() && q.to_integer().magnitude() > &EXACT_SAMPLING_POWER.into());
            !big && ok(b) && ok(e)
        }
        Node::Neg(x) | Node::Func(_, x) | Node::Factorial(x) | Node::Percent(x) => ok(x),
        Node::Div(x, y) | Node::Root(x, y) | Node::Log(x, y) | Node::PlusMinus(x, y) => ok(x) && ok(y),
        Node::Add(xs) | Node::Mul(xs) => xs.iter().all(ok),
        _ => true,
    }
}

/// [`sample`] as an exact rational (a multiple of 1/1024; the float it stands for is exactly this value).
fn sample_rational(name: &str, k: usize) -> BigRational {
    BigRational::new(BigInt::from((sample(name, k) * 4096.0).round() as i64), BigInt::from(4096))
}

/// [`sample`] moved within 1/1500 of 1 (`1 + x/4096`, exact as a float): where large powers stay in range.
fn near_one_sample(name: &str, k: usize) -> f64 {
    1.0 + sample(name, k) / 4096.0
}

/// [`near_one_sample`] as an exact rational.
fn near_one_rational(name: &str, k: usize) -> BigRational {
    BigRational::from_integer(BigInt::from(1))
        + sample_rational(name, k) / BigRational::from_integer(BigInt::from(4096))
}

/// A number written as a decimal (possibly negated or a percentage): where `float_rounding` applies.
fn is_decimal(n: &Node) -> bool {
    match n {
        Node::Decimal(_) => true,
        Node::Neg(x) | Node::Percent(x) => is_decimal(x),
        _ => false,
    }
}

/// `q` rounded to `places` decimals, ties to even (as Python's and SymPy's `round`).
fn round_rational(q: &BigRational, places: u32) -> BigInt {
    let scaled = q * BigRational::from_integer(num_traits::pow(BigInt::from(10), places as usize));
    let floor = scaled.floor();
    let frac = &scaled - &floor;
    let half = BigRational::new(BigInt::from(1), BigInt::from(2));
    let up = frac > half || (frac == half && floor.to_integer() % 2 != BigInt::from(0));
    floor.to_integer() + if up { 1 } else { 0 }
}

/// Equal once both are rounded to `places` decimals (exactly when both are exact, else in floating point).
fn rounded_eq(a: &Node, b: &Node, places: u32) -> bool {
    if let (Some(x), Some(y)) =
        (exact::eval(a).and_then(|s| s.as_rational()), exact::eval(b).and_then(|s| s.as_rational()))
    {
        return round_rational(&x, places) == round_rational(&y, places);
    }
    let (Some(x), Some(y)) = (numeric::eval(a, &|_| None), numeric::eval(b, &|_| None)) else { return false };
    if !x.is_real() || !y.is_real() {
        return false;
    }
    if places > 12 {
        return hp::equal(a, b, &|_| None).unwrap_or(false);
    }
    let scale = 10f64.powi(places as i32);
    (x.re * scale).round() == (y.re * scale).round()
}

fn value_eq(a: &Node, b: &Node, o: &Options) -> bool {
    if let Some(places) = o.float_rounding {
        if (is_decimal(a) || is_decimal(b))
            && vars_of(a).is_empty()
            && vars_of(b).is_empty()
            && rounded_eq(a, b, places)
        {
            return true;
        }
    }
    if !budget::charge(VALUE_COST) {
        return false;
    }
    // The same base to the same power, however large (`2^{2^{20}}` = `2^{1048576}`, beyond any arithmetic).
    if let (Node::Pow(x, e), Node::Pow(y, f)) = (a, b) {
        if value_eq(x, y, o) && value_eq(e, f, o) {
            return true;
        }
    }
    let (ea, eb) = (exact::eval(a), exact::eval(b));
    if let (Some(x), Some(y)) = (&ea, &eb) {
        return x == y;
    }
    let mut vars = vars_of(a);
    numeric::variables(b, &mut vars);
    if vars.is_empty() {
        // Floating point rejects what is plainly apart and decides infinities; everything else — a value near
        // another, an exact value against an approximate one — is decided in high precision (no tolerance:
        // `e^{-30} != 0`, `\pi + 10^{-12} != \pi`, `\sin\frac{\pi}{6} = \frac12`).
        let (Some(x), Some(y)) = (numeric::eval(a, &|_| None), numeric::eval(b, &|_| None)) else {
            return hp::equal(a, b, &|_| None).unwrap_or(false);
        };
        if !x.finite() || !y.finite() {
            return close(x, y, SAMPLED_TOL);
        }
        if apart(x, y) {
            return false;
        }
        return hp::equal(a, b, &|_| None).unwrap_or(false);
    }
    // Exact arithmetic at the points only for small trees with small powers (its numbers grow with both).
    let small = small_powers(a) && small_powers(b);
    let cheap = size(a, EXACT_SAMPLING_NODES) + size(b, EXACT_SAMPLING_NODES) < EXACT_SAMPLING_NODES && small;
    // A large integer power (`x^{100000}`) is 0 or infinite in floating point at the usual points, where `x^{100000}`
    // and `x^{100001}` would look alike: its points are taken within 1/1500 of 1, where it stays in range.
    let near_one = !small;
    let mut defined = 0;
    // Then, while fewer than half were defined, the same points scaled into (-1, 1) (`\\arcsin a`,
    // `\\artanh a`), then moved above 1 (`\\operatorname{arcosh} a`, `\\ln(a - 1)`).
    // A piecewise function (min, max, floor, …) may agree with a smooth one on the first round alone
    // (`\\max(x^2, 0.1)` and `x^2` for |x| >= 0.35): then every round is tried, the wide one included.
    let pieces = piecewise(a) || piecewise(b);
    let roots = rooted(a) || rooted(b);
    // Piecewise: the wide and the far round; an even root: the wide one.
    let rounds = if pieces {
        SAMPLE_ROUNDS + 2
    } else if roots {
        SAMPLE_ROUNDS + 1
    } else {
        SAMPLE_ROUNDS
    };
    // High precision computes variable-free parts (`\\frac{1}{2}\\sqrt{2}`, `\\pi`) once, not at each point (the
    // memo of their values is made when high precision is first needed).
    let mut memo = None;
    let mut last_round = 0;
    let wide_start = SAMPLE_ROUNDS * SAMPLE_POINTS;
    let mut jumped = false;
    for k in 0..rounds * SAMPLE_POINTS {
        // Enough defined: done, or (an even root) on to the wide round alone.
        if k % SAMPLE_POINTS == 0 && k > 0 && defined * 2 >= SAMPLE_POINTS && !pieces && !jumped {
            if roots && k <= wide_start {
                jumped = true;
            } else {
                break;
            }
        }
        if jumped && k < wide_start {
            continue;
        }
        if k < wide_start {
            last_round = k / SAMPLE_POINTS;
        }
        // Exactly at a rational point where both sides allow it (so `10^8 x + 1` differs from `10^8 x`
        // however large the values), else in floating point.
        let rational = |name: &str| if near_one { near_one_rational(name, k) } else { sample_rational(name, k) };
        let point = |name: &str| vars.iter().any(|v| v == name).then(|| Node::Num(rational(name)));
        let exactly = || Some((exact::eval(&substitute(a, &point))?, exact::eval(&substitute(b, &point))?));
        if let Some((x, y)) = cheap.then(exactly).flatten() {
            if x != y {
                return false;
            }
            defined += 1;
            continue;
        }
        let at = |name: &str| Some(if near_one { near_one_sample(name, k) } else { sample(name, k) });
        match (numeric::eval(a, &at), numeric::eval(b, &at)) {
            (Some(x), Some(y)) if x.finite() && y.finite() => {
                if !close(x, y, SAMPLED_TOL) {
                    return false;
                }
                // The wide round of an even root looks for a sign the usual points miss (`\\sqrt{(x-3)^2}` and
                // `3 - x`): floating point tells that, and high precision there would spend the budget.
                if roots && !pieces && k >= wide_start {
                    defined += 1;
                    continue;
                }
                // Close in floating point: decided in high precision at the same (exact) point, so
                // `\sin x + 10^{-12}` is not `\sin x`; a value high precision cannot compute keeps this verdict.
                let exact_point = |name: &str| vars.iter().any(|v| v == name).then(|| rational(name));
                match hp::equal_at(a, b, &exact_point, memo.get_or_insert_with(|| hp::Memo::new(a, b))) {
                    Some(false) => return false,
                    // Close only because both are tiny (`e^{-1000x^2}` and `e^{-2000x^2}`, 1e-53 and 1e-107) and high
                    // precision cannot say: this point decides nothing.
                    None if tiny_apart(x, y) => continue,
                    _ => {}
                }
                defined += 1;
            }
            (Some(_), None) | (None, Some(_)) => return false,
            _ => {}
        }
    }
    let rounds = rounds.min(1 + last_round);
    defined * 2 >= SAMPLE_POINTS && !off_grid_apart(a, b, &vars, rounds, &mut memo)
}

/// Points of each round checked off the grid ([`off_grid_apart`]).
const OFF_GRID_POINTS: usize = 2;
/// Off the sample grid by this much: 1/1409 (a prime denominator, so no multiple of 1/1024 is near it).
const OFF_GRID_DENOMINATOR: i64 = 1409;

/// Do `a` and `b` differ at a point just off the grid of the first `rounds` rounds? The grid's points are
/// multiples of 1/1024, where `\\sin(1024\\pi x)` vanishes. Values that floating point finds close pass (the
/// grid decided those); others are decided in high precision at the exact point, or, where it cannot
/// compute them, by whether floating point finds them plainly apart.
fn off_grid_apart<'t>(
    a: &'t Node,
    b: &'t Node,
    vars: &[String],
    rounds: usize,
    memo: &mut Option<hp::Memo<'t>>,
) -> bool {
    // Two points a round (one of each sign in the first two): any one catches what vanishes on the grid.
    (0..rounds * SAMPLE_POINTS).filter(|k| k % SAMPLE_POINTS < OFF_GRID_POINTS).any(|k| {
        let offset = BigRational::new(BigInt::from(1), BigInt::from(OFF_GRID_DENOMINATOR));
        let at = |name: &str| Some(sample(name, k) + 1.0 / OFF_GRID_DENOMINATOR as f64);
        match (numeric::eval(a, &at), numeric::eval(b, &at)) {
            (Some(x), Some(y)) if x.finite() && y.finite() && !close(x, y, SAMPLED_TOL) => {
                let exact_point =
                    |name: &str| vars.iter().any(|v| v == name).then(|| sample_rational(name, k) + &offset);
                match hp::equal_at(a, b, &exact_point, memo.get_or_insert_with(|| hp::Memo::new(a, b))) {
                    Some(same) => !same,
                    None => apart(x, y),
                }
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yes(p: &str, r: &str) {
        let o = Options::default();
        assert!(judge(p, r, &o).equal, "{p:?} should equal {r:?}: {:?}", judge(p, r, &o));
    }

    fn no(p: &str, r: &str) {
        assert!(!judge(p, r, &Options::default()).equal, "{p:?} should not equal {r:?}");
    }

    #[test]
    fn one_choice_with_its_text() {
        // Found by a red team: hedges inside one box read as the first letter.
        for p in
            ["C. or D.", "C) 12 or D) 14", "C. \\text{wrong}", "C. \\text{Not C, it is D}", "C) \\quad D)", "C. ABCDE"]
        {
            no(p, "C");
        }
        for p in [
            "C",
            "C. 12",
            "(C) 12",
            "\\textbf{(C)}\\ 12",
            "C: Plane",
            "\\text{(C) } \\frac{1}{2}",
            "C) salt and pepper",
        ] {
            yes(p, "C");
        }
    }

    #[test]
    fn values_of_undefined_functions_are_not_answers() {
        // Found by the hostile suite's generator at g = 0: `p(0)` parsed as p·0.
        for p in ["p(0)", "f(0)", "g^{-1}(0)", "Q\\left(0\\right)"] {
            no(p, "0");
        }
        yes("f(x) = x^2", "x^2");
        yes("p(x) = 2x", "2x");
        yes("f(2)", "f(2)");
        // A function the reference applies is known (latex2sympy2_extended's tests).
        yes("1-f(x)", "1 - f{\\left(x \\right)}");
    }

    #[test]
    fn restating_the_problem_is_not_solving_it() {
        // Found by a red team: the equation asked to be solved was credited with its root.
        for (p, r) in [("3x+7=19", "x=4"), ("3x+7=19", "4"), ("2x = 8", "4"), ("|x| = 4", "x=4"), ("x^2 = 16", "x = 4")]
        {
            no(p, r);
            no(r, p);
        }
        // Inequalities are compared by their solution sets, as Math-Verify's own tests require (`-x > -1` = `x < 1`).
        yes("-x > -1", "x < 1");
        no("2x > 6", "(3, \\infty)");
        yes("x = 4", "4");
        yes("4 = x", "x = 4");
        yes("2x > 6", "4x > 12");
        yes("2x+4y=6", "x+2y=3");
        yes("a+2z = 101", "101");
    }

    #[test]
    fn an_answer_empty_after_cleaning_equals_nothing() {
        // Found by the Python suite's symmetry property: `$` was "identical" to an empty reference.
        for (p, r) in [("$", ""), ("", "$"), ("$ $", "{}"), ("\\text{}", "\\text{}"), ("{}", "{}"), ("", "")] {
            no(p, r);
        }
        no("$", "5");
        no("5", "$");
    }

    #[test]
    fn the_issue_examples() {
        yes("0.5", "\\frac12");
        yes("1/2", "\\frac12");
        yes("3\\sqrt3", "\\sqrt{27}");
        yes("(1,2]", "(1,2]");
        no("[1,2]", "(1,2]");
        yes("\\{3,2,1\\}", "\\{1,2,3\\}");
        yes("30", "30^\\circ");
        yes("x=3", "3");
        yes("25\\%", "\\frac14");
        no("0.33", "\\frac{1}{3}");
        no("6.28", "2\\pi");
        no("\\{1,2\\}", "(1,2)");
    }

    #[test]
    fn mixed_numbers_with_a_percent_sign() {
        // The sign is the whole number's, as the sign before it is.
        yes("12\\frac{1}{2}\\%", "\\frac18");
        yes("-2\\frac{1}{2}\\%", "-0.025");
        no("12\\frac{1}{2}\\%", "6\\%");
        no("\\frac{1}{2}\\%", "0.5");
    }

    /// Each example of issue 14's equivalence classes.
    #[test]
    fn issue_14_classes() {
        // Real roots: `\sqrt[3]{x}` is x^{1/3} on the real branch.
        yes("\\sqrt[3]{x}", "x^{1/3}");
        yes("x^{2/3}", "\\sqrt[3]{x^2}");
        no("x^{1/3}", "\\sqrt[3]{x^2}");
        // Equations up to a nonzero factor.
        yes("4x+8y-6=0", "2x+4y-3=0");
        yes("y=-\\frac12x+\\frac34", "2x+4y-3=0");
        yes("\\frac{x^2}{4}+y^2=1", "x^2+4y^2=4");
        no("x^2+4y^2=4", "x^2+4y^2=1");
        no("x+y=1", "x-y=1");
        // Thousands with negative space; lists with "and"/"or".
        yes("32,\\! 349", "32349");
        yes("19, 46, \\text{ and } 82", "\\{19, 46, 82\\}");
        yes("1,2, or 3", "1, 2, 3");
        // Ratios and named sides.
        yes("7:32", "\\frac{7}{32}");
        yes("S_{MBCN}:S=7:32", "7:32");
        yes("V_1:V_2=11:21", "\\frac{11}{21}");
        yes("|AB|=1", "1");
        yes("\\frac{NO}{BO}=\\frac{1}{2}", "\\frac12");
        yes("AB=4,CD=5", "4, 5");
        yes("(0,1)", "0<f(x)<1");
        // Percent words, a trailing label, approximations, chains, doubled backslashes.
        yes("10\\text{pct}", "10\\%");
        yes("5\\text{ dozen}", "60");
        no("5\\text{ dozen}", "5");
        yes("x \\approx 5", "5");
        yes("x = 5+5+1 = 11", "11");
        yes("\\\\frac{1}{2}", "0.5");
        // Found by the red team: |x| bounds are not x bounds, ratios of three parts are not numbers.
        no("x < 3", "|x| < 3");
        no("(-\\infty, 3)", "|x| < 3");
        no("6:4:10", "3:4:5");
        no("t > 3", "x > 3");
        no("1 < y < 2", "1 < x < 2");
        yes("3 < x", "x > 3");
        no("3:20", "3:4:5");
        yes("3:4:5", "3:4:5");
        // A reference that does not parse is read after its last `=`; a parsed chain stays an equation.
        yes("0", "1 = \\zzz = x = 0");
        no("101", "a+2z = 2z + a = 101");
        yes("a+2z = 2z + a = 101", "101");
        yes("\\{1,2,3,4\\}", "\\{1,3\\} \\cup \\{2,4\\}");
        yes("β + 3", "\\beta + 3");
        // Sums and products: by value with numbers for bounds, else by bounds and body.
        yes("\\sum_{k=1}^{10} k", "55");
        yes("\\prod_{k=1}^{5} k", "5!");
        yes("\\sum_{k=0}^{n-1} F_k F_{n-k-1}", "\\sum_{k=0}^{n-1} F_{n-k-1} F_k");
        yes("\\sum_{j=1}^{n} j^2", "\\sum_{k=1}^{n} k^2");
        no("\\sum_{k=0}^{n-2} F_k F_{n-k-2}", "\\sum_{k=0}^{n-1} F_k F_{n-k-1}");
        no("\\sum_{k=1}^{n} k^2", "\\sum_{k=1}^{n} k");
        assert!(parsed("\\sum_{k=1}^{99} \\sum_{j=1}^{99} jk", true).is_err());
        // Named groups against tuples.
        yes("p=5,q=2;p=7,q=2", "(5,2),(7,2)");
        no("p=5,q=2;p=7,q=3", "(5,2),(7,2)");
    }

    /// Issue 23: multipliers and units change the value; a false equation is no answer.
    #[test]
    fn multipliers_units_and_false_equations() {
        yes("5 \\text{ thousand}", "5000");
        no("5 \\text{ thousand}", "5");
        yes("2.5 million", "2500000");
        yes("3 \\text{ hundred}", "300");
        yes("5 \\text{ squared}", "25");
        no("5 \\text{ squared}", "5");
        yes("2 \\text{ cubed}", "8");
        no("5 \\text{ or more}", "5");
        no("\\text{at least } 5", "5");
        no("5\\text{ cm}", "5\\text{ m}");
        yes("5\\text{ cm}", "5");
        yes("5\\text{ cm}", "5\\text{ centimeters}");
        no("5\\text{ cm}^2", "5\\text{ cm}");
        yes("5\\text{ cm}^2", "5\\text{ square centimeters}");
        yes("12 \\text{ people}", "12 \\text{ students}");
        no("5\\phantom{0}", "0");
        yes("5\\phantom{0}", "5");
        no("5 = 6", "6");
        no("5 \\approx 6", "5");
        no("\\max(5, x)", "5");
        yes("x - x + 5", "5");
        yes("\\arcsin(a)", "\\operatorname{asin}{\\left(a \\right)}");
        no("\\arcsin(a)", "\\arccos(a)");
        yes("2^{2^{20}}", "2^{1048576}");
        yes("0.\\overline{3}", "\\frac13");
        yes("0.1\\overline{6}", "\\frac16");
        no("0.\\overline{3}", "0.3");
        yes("\\text{The answer is } 5", "5");
        yes("\\text{exactly } 12", "12");
        no("\\text{not } 12", "12");
        no("2^{2^{20}}", "2^{1048577}");
        yes("\\sum_{k=1}^{1000} \\frac{1}{k(k+1)}", "\\frac{1000}{1001}");
        yes("x = \\frac13 \\approx 1.3", "\\frac13");
        yes("{1,2} \\cup {2,3}", "\\{1,2,3\\}");
        no("f(0)", "0");
        no("f^{-1}(0)", "0");
        yes("f(x) = x^2", "x^2");
        yes("g(3) = 7", "7");
        yes("p(1-p)", "p - p^2");
        yes("x = \\frac13 \\approx 0.33", "\\frac13");
        no("5 \\text{ rad}", "5^\\circ");
        yes("30^\\circ", "30 \\text{ degrees}");
        no("7 \\text{ N}", "7 \\text{ J}");
        no("100 \\text{ kW}", "100 \\text{ W}");
        // latex2sympy2's notations.
        yes("x_0", "x_{0}");
        yes("x^2_{i,j}", "x_{i,j}^{2}");
        yes("\\lambda_2", "\\lambda_{2}");
        yes("h_\\theta + 1", "h_{\\theta} + 1");
        yes("\\mleft\\lbrack1+2\\mright\\rbrack\\mleft\\lbrack3-4\\mright\\rbrack", "-3");
        yes("\\mleft\\{1+2\\mright\\}\\mleft\\{3-4\\mright\\}", "-3");
        yes("\\sin\\left\\lgroup\\theta \\right\\rgroup", "\\sin{\\left(\\theta \\right)}");
        yes("\\exponentialE \\times 3", "3 e");
        yes("(x + 1)!", "\\left(x + 1\\right)!");
        no("(x + 1)!", "x!");
        yes(
            "\\theta\\begin{matrix}1 & 2\\\\ 3 & 4\\end{matrix}",
            "\\begin{matrix}\\theta & 2\\theta\\\\ 3\\theta & 4\\theta\\end{matrix}",
        );
        no("\\theta\\begin{matrix}1 & 2\\end{matrix}", "\\begin{matrix}\\theta & 3\\theta\\end{matrix}");
        no("5 = 6", "5");
        no("x = 3+3 = 2", "2");
        yes("x = 5+5+1 = 11", "11");
        // A prediction is not read after its last `=`; a reference is.
        no("\\zzz = 0", "0");
    }

    #[test]
    fn sampling_off_the_grid_and_above_one() {
        // Zero on the sample grid (multiples of 1/1024) only.
        no("5 + \\sin(1024\\pi x)", "5");
        no("x + \\sin(2048\\pi x)", "x");
        no("\\left|\\sin(1024\\pi y)\\right| + 5", "5");
        no("5000 + \\sin(1024\\pi x)", "5000");
        no("5 + 10^{-4}\\sin(1024\\pi x)", "5");
        no("1000x + \\sin(1024\\pi x)", "1000x");
        // Piecewise against smooth: every round, a wide one too.
        no("\\lfloor 1024 x \\rfloor", "1024x");
        no("\\max(x^2, 0.1)", "x^2");
        no("\\min(|x|, 2.7)", "|x|");
        yes("|x|", "\\sqrt{x^2}");
        yes("\\max(x, -x)", "|x|");
        // Ill-conditioned but equal: exact on the grid, and off it within the loose bound.
        yes("(x + 10^{6})^2 - 10^{12} - 2 \\cdot 10^{6} x", "x^2");
        // Defined only above 1.
        yes("\\ln(a - 1) + \\sqrt{a - 1}", "\\sqrt{a - 1} + \\ln(a - 1)");
        no("\\ln(a - 1)", "\\ln(a + 1)");
    }

    #[test]
    fn variable_free_parts_are_computed_once_across_the_sample_points() {
        // Found by the Python suite's reserialisation property: the roots and π were computed in high precision
        // at each sample point, and the sixth point found the work budget spent ("over a limit").
        let sum = |terms: &[&str]| terms.concat().trim_start_matches('+').to_owned();
        let (x, root, pi) = ("+\\frac{1}{2}x", "+\\frac{1}{2}\\sqrt{2}", "+\\frac{1025}{32}\\pi");
        let a = sum(&[x, root, root, root, pi]);
        let b = sum(&[root, root, x, pi, root]);
        yes(&a, &b);
        yes(&b, &a);
        yes(&a, &sum(&[x, "+\\frac{3}{2}\\sqrt{2}", pi]));
        no(&a, &sum(&[x, "+\\frac{3}{2}\\sqrt{3}", pi]));
        no(&a, &sum(&[root, root, x, pi, "+\\frac{1}{3}\\sqrt{2}"]));
        // More roots, two variables, other coefficients.
        let terms = ["-\\frac{997}{61}\\sqrt{2}", "+\\frac{13}{7}y", "+\\frac{997}{61}\\sqrt{3}", x];
        let c = sum(&[&terms.repeat(3)[..], &[pi]].concat());
        let d = sum(&[&[pi], &terms.iter().rev().copied().collect::<Vec<_>>().repeat(3)[..]].concat());
        yes(&c, &d);
        no(&(c + "+10^{-30}"), &d);
    }

    #[test]
    fn units_of_the_same_kind_with_other_prefixes_differ() {
        for (a, b) in [
            ("5\\text{ s}", "5\\text{ ms}"),
            ("5\\text{ N}", "5\\text{ kN}"),
            ("5\\text{ V}", "5\\text{ mV}"),
            ("5\\text{ mol}", "5\\text{ mmol}"),
            ("5\\text{ kB}", "5\\text{ bytes}"),
            ("5\\text{ bytes}", "5\\text{ bits}"),
            ("5\\text{ dollars}", "5\\text{ cents}"),
        ] {
            no(a, b);
        }
        yes("5\\text{ ms}", "5\\text{ milliseconds}");
        yes("5\\text{ ms}", "5");
        // Capitals name points: `MN` is a segment, never a unit.
        yes("MN", "MN");
        no("MN = 5", "MN = 6");
    }

    #[test]
    fn options() {
        let o = |float_rounding, strict, allow_set_relation_comp| Options {
            float_rounding,
            strict,
            allow_set_relation_comp,
            ..Options::default()
        };
        no("0.333333", "\\frac13");
        assert!(judge("0.333333", "\\frac13", &o(Some(6), true, false)).equal);
        assert!(!judge("0.333333", "\\frac13", &o(Some(7), true, false)).equal);
        assert!(judge("33.33\\%", "\\frac13", &o(Some(2), true, false)).equal);
        assert!(judge("0.3", "\\frac13", &o(Some(1), true, false)).equal);
        assert!(!judge("0.3", "\\frac13", &o(Some(2), true, false)).equal);
        // Rounding applies to decimals only: two fractions stay exact.
        assert!(!judge("\\frac{333}{1000}", "\\frac13", &o(Some(2), true, false)).equal);
        no("f(y)=y^2", "f(x)=x^2");
        assert!(judge("f(y)=y^2", "f(x)=x^2", &o(None, false, false)).equal);
        no("(1,2)", "\\{1,2\\}");
        assert!(judge("\\{1,2\\}", "(1,2)", &o(None, false, false)).equal);
    }

    #[test]
    fn structures() {
        yes("3 < x", "x > 3");
        // A predicted inequality is a set only with `allow_set_relation_comp`, as in Math-Verify.
        no("x \\geq 3", "[3, \\infty)");
        yes("[3, \\infty)", "x \\geq 3");
        let sets = Options { allow_set_relation_comp: true, ..Options::default() };
        assert!(judge("x \\geq 3", "[3, \\infty)", &sets).equal);
        assert!(!judge("x > 3", "[3, \\infty)", &sets).equal);
        yes("(x+1)^2", "x^2+2x+1");
        no("2x", "2y");
        yes("\\sin^2 x + \\cos^2 x", "1");
        yes("x=1, x=2", "\\{1, 2\\}");
        yes("(C)", "C");
        yes("\\textbf{(C)} 12", "C");
        no("D", "C");
        yes("\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}", "\\begin{bmatrix}1 & 2\\\\ 3 & 4\\end{bmatrix}");
        no("\\begin{pmatrix}1&3\\\\2&4\\end{pmatrix}", "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}");
        yes("1,000,000", "1000000");
        yes("\\$1,000.00", "1000");
        no("10^{20}+1", "10^{20}");
        no("1e-9", "0");
    }
}
