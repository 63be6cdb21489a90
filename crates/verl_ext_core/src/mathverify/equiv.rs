//! Equivalence of two parsed answers.
//!
//! - Numbers: exact rational / square-root arithmetic when both sides allow it (`0.5 = 1/2`,
//!   `\sqrt{27} = 3\sqrt3`, `0.333 != 1/3`); otherwise complex floating point at relative tolerance
//!   [`REL_TOL`] (so `6.28 != 2\pi`). `p\%` equals `p/100` and also `p`.
//! - Expressions with variables: equal values at [`SAMPLE_POINTS`] fixed pseudo-random points (at least
//!   half of them defined on both sides, all defined ones agreeing at 1e-7).
//! - `x = 3` equals `3` (an equation whose one side is a lone variable stands for its other side);
//!   two equations are equal when their lone-variable sides match or their differences are equal up to sign.
//! - Inequalities and `x \in S` become intervals: `x \ge 3` = `[3, \infty)`, `3 < x` = `x > 3`.
//! - Intervals compare ends and open/closed marks; unions are order-free; sets (`\{\}`) and bare lists
//!   (`1, 2`; `x=1, x=2`) are order-free, tuples and matrices ordered; a one-element set equals its element.
//! - Multiple choice: a reference that is a single letter A-E (optionally in parentheses or `\text{}`)
//!   matches a prediction that starts with that letter (`(C)`, `C)`, `C. 12`, `\textbf{(C)}`).

use super::exact;
use super::lexer::lex;
use super::limits::{MAX_ANSWER_BYTES, REL_TOL, SAMPLE_POINTS};
use super::numeric::{self, C};
use super::parser::{parse, Constant, Node, Rel};
use super::{Failure, Verdict};

/// Pairs compared order-free at most; larger collections are compared in order.
const MAX_UNORDERED_PAIRS: usize = 4096;
/// Tolerance for expressions with variables (more rounding than a single value).
const SAMPLED_TOL: f64 = 1e-7;

fn verdict(equal: bool, reason: impl Into<String>) -> Verdict {
    Verdict { equal, reason: reason.into() }
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace() && *c != '$').collect()
}

/// Strip `\text{}`-style wrappers, braces, `$`, spaces and one pair of parentheses around a choice letter.
fn choice_text(s: &str) -> String {
    let mut t = squeeze(s);
    for w in ["\\textbf", "\\text", "\\mathrm", "\\mathbf", "\\textrm", "\\mbox"] {
        t = t.replace(w, "");
    }
    t.chars().filter(|c| !matches!(c, '{' | '}')).collect()
}

/// The letter of a multiple-choice reference: `C`, `(C)`, `\text{(C)}`.
fn reference_choice(s: &str) -> Option<char> {
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
    match chars.next() {
        None | Some(')' | '.' | ':' | ',') => Some(c),
        _ => None,
    }
}

fn parsed(s: &str) -> Result<Node, Failure> {
    parse(lex(s)?)
}

/// Compare a prediction with a reference (both raw answer strings).
pub fn judge(prediction: &str, reference: &str) -> Verdict {
    let (p, r) = (prediction.trim(), reference.trim());
    if p.is_empty() {
        return verdict(false, "empty prediction");
    }
    if p.len() > MAX_ANSWER_BYTES || r.len() > MAX_ANSWER_BYTES {
        return verdict(false, "answer longer than the limit");
    }
    if squeeze(p) == squeeze(r) {
        return verdict(true, "identical");
    }
    if let Some(letter) = reference_choice(r) {
        let got = predicted_choice(p);
        return verdict(got == Some(letter), format!("multiple choice {letter}, predicted {got:?}"));
    }
    let reference = match parsed(r) {
        Ok(n) => n,
        Err(e) => return verdict(false, format!("reference {e}")),
    };
    let prediction = match parsed(p) {
        Ok(n) => n,
        Err(e) => return verdict(false, format!("prediction {e}")),
    };
    let equal = eq(&prediction, &reference);
    verdict(equal, if equal { "equivalent" } else { "not equivalent" })
}

/// The other side of `x = value` (a lone variable not used on the other side).
fn equation_value(n: &Node) -> Option<&Node> {
    let Node::Relation(sides, ops) = n else { return None };
    if ops.as_slice() != [Rel::Eq] {
        return None;
    }
    let lone = |var: &Node, other: &Node| {
        let Node::Var(name) = var else { return false };
        let mut vars = Vec::new();
        numeric::variables(other, &mut vars);
        !vars.contains(name)
    };
    if lone(&sides[0], &sides[1]) {
        Some(&sides[1])
    } else if lone(&sides[1], &sides[0]) {
        Some(&sides[0])
    } else {
        None
    }
}

/// An interval with its ends (`None` ends are the infinities).
struct Interval<'a> {
    lo: Option<&'a Node>,
    lo_closed: bool,
    hi: Option<&'a Node>,
    hi_closed: bool,
}

fn is_infinite(n: &Node) -> Option<bool> {
    match n {
        Node::Const(Constant::Infinity) => Some(true),
        Node::Neg(x) if matches!(**x, Node::Const(Constant::Infinity)) => Some(false),
        _ => None,
    }
}

fn end(n: &Node) -> Option<&Node> {
    is_infinite(n).is_none().then_some(n)
}

fn bracket_interval(n: &Node) -> Option<Interval<'_>> {
    let Node::Bracket(open, items, close) = n else { return None };
    if items.len() != 2 || !matches!(open, '(' | '[') || !matches!(close, ')' | ']') {
        return None;
    }
    Some(Interval { lo: end(&items[0]), lo_closed: *open == '[', hi: end(&items[1]), hi_closed: *close == ']' })
}

/// One-variable inequalities (`x > 3`, `1 < x \le 2`, `x \in (1,2)`) as intervals.
fn relation_intervals(n: &Node) -> Option<Vec<Interval<'_>>> {
    let Node::Relation(sides, ops) = n else { return None };
    let is_var = |k: usize| matches!(sides[k], Node::Var(_));
    match (sides.len(), ops.as_slice()) {
        (2, [Rel::In]) if is_var(0) => intervals(&sides[1]),
        (2, [op]) if is_var(0) || is_var(1) => {
            let (value, op) = if is_var(0) { (&sides[1], *op) } else { (&sides[0], op.flipped()) };
            Some(vec![match op {
                Rel::Gt | Rel::Ge => Interval { lo: Some(value), lo_closed: op == Rel::Ge, hi: None, hi_closed: false },
                Rel::Lt | Rel::Le => Interval { lo: None, lo_closed: false, hi: Some(value), hi_closed: op == Rel::Le },
                _ => return None,
            }])
        }
        (3, [a, b]) if is_var(1) => {
            let lower = |r: Rel| matches!(r, Rel::Lt | Rel::Le);
            let (lo, lo_op, hi, hi_op) = if lower(*a) && lower(*b) {
                (&sides[0], *a, &sides[2], *b)
            } else if !lower(*a) && !lower(*b) && matches!(a, Rel::Gt | Rel::Ge) && matches!(b, Rel::Gt | Rel::Ge) {
                (&sides[2], b.flipped(), &sides[0], a.flipped())
            } else {
                return None;
            };
            Some(vec![Interval { lo: end(lo), lo_closed: lo_op == Rel::Le, hi: end(hi), hi_closed: hi_op == Rel::Le }])
        }
        _ => None,
    }
}

fn intervals(n: &Node) -> Option<Vec<Interval<'_>>> {
    match n {
        Node::Union(parts) => parts.iter().map(bracket_interval).collect(),
        Node::Bracket(..) => Some(vec![bracket_interval(n)?]),
        Node::Relation(..) => relation_intervals(n),
        _ => None,
    }
}

fn same_end(a: Option<&Node>, b: Option<&Node>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => scalar_eq(x, y),
        _ => false,
    }
}

fn intervals_eq(a: &[Interval<'_>], b: &[Interval<'_>]) -> bool {
    let same = |x: &Interval<'_>, y: &Interval<'_>| {
        x.lo_closed == y.lo_closed && x.hi_closed == y.hi_closed && same_end(x.lo, y.lo) && same_end(x.hi, y.hi)
    };
    a.len() == b.len()
        && a.iter().all(|x| b.iter().any(|y| same(x, y)))
        && b.iter().all(|y| a.iter().any(|x| same(x, y)))
}

/// The members of an order-free collection: a set, a bare list (of values or `x = v`), or `a \pm b`.
fn members(n: &Node) -> Option<Vec<Node>> {
    let item = |x: &Node| equation_value(x).unwrap_or(x).clone();
    match n {
        Node::Set(xs) | Node::List(xs) => Some(xs.iter().map(item).collect()),
        Node::PlusMinus(a, b) => Some(vec![
            Node::Add(vec![(**a).clone(), (**b).clone()]),
            Node::Add(vec![(**a).clone(), Node::Neg(b.clone())]),
        ]),
        _ => None,
    }
}

fn unordered_eq(a: &[Node], b: &[Node]) -> bool {
    if a.len() * b.len() > MAX_UNORDERED_PAIRS {
        return ordered_eq(a, b);
    }
    a.iter().all(|x| b.iter().any(|y| eq(x, y))) && b.iter().all(|y| a.iter().any(|x| eq(x, y)))
}

fn ordered_eq(a: &[Node], b: &[Node]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y))
}

fn relations_eq(a: &Node, b: &Node) -> bool {
    if let (Some(x), Some(y)) = (relation_intervals(a), relation_intervals(b)) {
        return intervals_eq(&x, &y);
    }
    let (Node::Relation(sa, oa), Node::Relation(sb, ob)) = (a, b) else { return false };
    if oa.as_slice() == [Rel::Eq] && ob.as_slice() == [Rel::Eq] {
        if let (Some(va), Some(vb)) = (equation_value(a), equation_value(b)) {
            return scalar_eq(va, vb) && lone_var(a) == lone_var(b);
        }
        // Same solution set: the differences agree up to sign.
        let diff = |s: &[Node]| Node::Add(vec![s[0].clone(), Node::Neg(Box::new(s[1].clone()))]);
        let (da, db) = (diff(sa), diff(sb));
        return scalar_eq(&da, &db) || scalar_eq(&da, &Node::Neg(Box::new(db.clone())));
    }
    let forward = oa == ob && ordered_eq(sa, sb);
    let flipped: Vec<Rel> = oa.iter().rev().map(|r| r.flipped()).collect();
    let backward = flipped == *ob && sa.iter().rev().zip(sb).all(|(x, y)| eq(x, y)) && sa.len() == sb.len();
    forward || backward
}

fn sa_or(n: &Node) -> &[Node] {
    match n {
        Node::Relation(s, _) => s,
        _ => &[],
    }
}

fn lone_var(n: &Node) -> Option<&str> {
    let value = equation_value(n)?;
    sa_or(n).iter().find(|s| !std::ptr::eq(*s, value)).and_then(|s| match s {
        Node::Var(v) => Some(v.as_str()),
        _ => None,
    })
}

/// Structural and numeric equality of a prediction `a` and a reference `b`.
pub fn eq(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Relation(..), Node::Relation(..)) => relations_eq(a, b),
        (Node::Relation(..), _) | (_, Node::Relation(..)) => {
            let (rel, other) = if matches!(a, Node::Relation(..)) { (a, b) } else { (b, a) };
            if let Some(v) = equation_value(rel) {
                return eq(v, other);
            }
            match (relation_intervals(rel), intervals(other)) {
                (Some(x), Some(y)) => intervals_eq(&x, &y),
                _ => false,
            }
        }
        (Node::Union(_), _) | (_, Node::Union(_)) => match (intervals(a), intervals(b)) {
            (Some(x), Some(y)) => intervals_eq(&x, &y),
            _ => false,
        },
        (Node::Bracket(oa, xa, ca), Node::Bracket(ob, xb, cb)) => oa == ob && ca == cb && ordered_eq(xa, xb),
        (Node::List(xs), Node::Bracket('(', ys, ')')) | (Node::Bracket('(', xs, ')'), Node::List(ys)) => {
            ordered_eq(xs, ys)
        }
        (Node::Matrix(ra), Node::Matrix(rb)) => {
            ra.len() == rb.len() && ra.iter().zip(rb).all(|(x, y)| ordered_eq(x, y))
        }
        (Node::Text(x), Node::Text(y)) => x == y,
        _ => match (members(a), members(b)) {
            (Some(x), Some(y)) => unordered_eq(&x, &y),
            (Some(x), None) if x.len() == 1 => eq(&x[0], b),
            (None, Some(y)) if y.len() == 1 => eq(a, &y[0]),
            (None, None) => scalar_eq(a, b),
            _ => false,
        },
    }
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

/// `p\%` stands for `p/100` and for `p`.
fn percent_forms(n: &Node) -> Vec<&Node> {
    match n {
        Node::Percent(inner) => vec![n, inner],
        _ => vec![n],
    }
}

fn scalar_eq(a: &Node, b: &Node) -> bool {
    if !is_scalar(a) || !is_scalar(b) {
        return false;
    }
    percent_forms(a).into_iter().any(|x| percent_forms(b).into_iter().any(|y| value_eq(x, y)))
}

fn close(x: C, y: C, tol: f64) -> bool {
    if x.re.is_infinite() || y.re.is_infinite() {
        return x.re == y.re && x.im.abs() < tol && y.im.abs() < tol;
    }
    let scale = x.abs().max(y.abs());
    let diff = C { re: x.re - y.re, im: x.im - y.im }.abs();
    diff <= tol * scale || diff <= 1e-12
}

/// A fixed pseudo-random point in [0.35, 2.65] for variable `name` at sample `k` (SplitMix64).
fn sample(name: &str, k: usize) -> f64 {
    let mut z =
        name.bytes().fold(0x9E37_79B9_7F4A_7C15u64 ^ k as u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    0.35 + 2.3 * ((z >> 11) as f64 / (1u64 << 53) as f64)
}

fn value_eq(a: &Node, b: &Node) -> bool {
    if let (Some(x), Some(y)) = (exact::eval(a), exact::eval(b)) {
        return x == y;
    }
    let mut vars = Vec::new();
    numeric::variables(a, &mut vars);
    numeric::variables(b, &mut vars);
    if vars.is_empty() {
        return match (numeric::eval(a, &|_| None), numeric::eval(b, &|_| None)) {
            (Some(x), Some(y)) => close(x, y, REL_TOL),
            _ => false,
        };
    }
    let mut defined = 0;
    for k in 0..SAMPLE_POINTS {
        let at = |name: &str| Some(sample(name, k));
        match (numeric::eval(a, &at), numeric::eval(b, &at)) {
            (Some(x), Some(y)) if x.finite() && y.finite() => {
                if !close(x, y, SAMPLED_TOL) {
                    return false;
                }
                defined += 1;
            }
            (Some(_), None) | (None, Some(_)) => return false,
            _ => {}
        }
    }
    defined * 2 >= SAMPLE_POINTS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yes(p: &str, r: &str) {
        assert!(judge(p, r).equal, "{p:?} should equal {r:?}: {:?}", judge(p, r));
    }

    fn no(p: &str, r: &str) {
        assert!(!judge(p, r).equal, "{p:?} should not equal {r:?}");
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
    fn structures() {
        yes("3 < x", "x > 3");
        yes("x \\geq 3", "[3, \\infty)");
        no("x > 3", "[3, \\infty)");
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
