//! `A \cap B` and `A \setminus B` of intervals, unions of intervals and finite sets of numbers, computed right
//! after parsing ([`resolve`], the step between parsing and comparing): `[1,3] \cap [2,4]` is read as `[2,3]`, `\mathbb{R} \setminus \{0\}` as
//! `(-\infty,0) \cup (0,\infty)`, and then compared as any interval or set is.
//!
//! Ends are compared exactly when both are exact ([`functions::compare`]), else in floating point when they
//! differ by more than [`FLOAT_MARGIN`]; ends that cannot be told apart (or a set of non-numbers) make the answer
//! unparsable rather than guessed.

use std::cmp::Ordering;

use super::exact::{self, Surd};
use super::functions;
use super::functions::FLOAT_MARGIN;
use super::limits::MAX_NODES;
use super::numeric;
use super::parser::{any_node, size, try_map_children, Constant, Node, SetOp};
use super::Failure;

/// Most intervals and points in one operand or result (the work is quadratic in it).
const MAX_PIECES: usize = 64;

/// A finite end or point: as written, exactly if possible, and approximately.
#[derive(Debug, Clone)]
struct Value {
    node: Node,
    exact: Option<Surd>,
    approx: f64,
}

#[derive(Debug, Clone)]
enum Bound {
    NegInf,
    At(Value),
    PosInf,
}

/// An interval, or a point (equal closed ends). Infinite ends are open.
#[derive(Debug, Clone)]
struct Piece {
    lo: Bound,
    lo_closed: bool,
    hi: Bound,
    hi_closed: bool,
}

fn unsupported() -> Failure {
    Failure::Unsupported("a set operation on something other than intervals or sets of numbers")
}

fn value(n: &Node) -> Result<Value, Failure> {
    let approx = numeric::eval(n, &|_| None).filter(|c| c.is_real() && c.re.is_finite()).ok_or_else(unsupported)?;
    Ok(Value { node: n.clone(), exact: exact::eval(n), approx: approx.re })
}

fn bound(n: &Node) -> Result<Bound, Failure> {
    let infinity = |x: &Node| matches!(x, Node::Const(Constant::Infinity));
    Ok(match n {
        x if infinity(x) => Bound::PosInf,
        Node::Neg(x) if infinity(x) => Bound::NegInf,
        _ => Bound::At(value(n)?),
    })
}

fn compare_values(a: &Value, b: &Value) -> Result<Ordering, Failure> {
    // Plainly apart in floating point: ordered without exact arithmetic (a sort of 64 ends compares
    // thousands of pairs).
    let scale = a.approx.abs().max(b.approx.abs()).max(1.0);
    if (a.approx - b.approx).abs() > FLOAT_MARGIN * scale {
        return Ok(a.approx.total_cmp(&b.approx));
    }
    if let (Some(x), Some(y)) = (&a.exact, &b.exact) {
        return functions::compare(x, y).ok_or_else(unsupported);
    }
    if a.node == b.node {
        return Ok(Ordering::Equal);
    }
    Err(Failure::Unsupported("set ends too close to order"))
}

fn compare(a: &Bound, b: &Bound) -> Result<Ordering, Failure> {
    Ok(match (a, b) {
        (Bound::NegInf, Bound::NegInf) | (Bound::PosInf, Bound::PosInf) => Ordering::Equal,
        (Bound::NegInf, _) | (_, Bound::PosInf) => Ordering::Less,
        (_, Bound::NegInf) | (Bound::PosInf, _) => Ordering::Greater,
        (Bound::At(x), Bound::At(y)) => compare_values(x, y)?,
    })
}

impl Piece {
    fn new(lo: Bound, lo_closed: bool, hi: Bound, hi_closed: bool) -> Piece {
        let lo_closed = lo_closed && matches!(lo, Bound::At(_));
        let hi_closed = hi_closed && matches!(hi, Bound::At(_));
        Piece { lo, lo_closed, hi, hi_closed }
    }

    fn is_empty(&self) -> Result<bool, Failure> {
        Ok(match compare(&self.lo, &self.hi)? {
            Ordering::Less => false,
            Ordering::Equal => !(self.lo_closed && self.hi_closed),
            Ordering::Greater => true,
        })
    }

    fn is_point(&self) -> bool {
        self.lo_closed && self.hi_closed && matches!(compare(&self.lo, &self.hi), Ok(Ordering::Equal))
    }
}

/// The pieces of an interval, a union of intervals and sets, or a finite set.
fn pieces(n: &Node) -> Result<Vec<Piece>, Failure> {
    let parts = match n {
        Node::Union(parts) => parts.as_slice(),
        _ => std::slice::from_ref(n),
    };
    let mut out = Vec::new();
    for part in parts {
        match part {
            Node::Bracket(open @ ('(' | '['), ends, close @ (')' | ']')) if ends.len() == 2 => {
                let p = Piece::new(bound(&ends[0])?, *open == '[', bound(&ends[1])?, *close == ']');
                if !p.is_empty()? {
                    out.push(p);
                }
            }
            // `{1,2} \\cap {2,3}`: bare braces around a list are a set here.
            Node::Set(xs) | Node::List(xs) => {
                for x in xs {
                    let v = Bound::At(value(x)?);
                    out.push(Piece::new(v.clone(), true, v, true));
                }
            }
            _ => return Err(unsupported()),
        }
        if out.len() > MAX_PIECES {
            return Err(Failure::TooLarge("set with too many parts"));
        }
    }
    Ok(out)
}

/// Does `a` start before `b` (a closed end before an open one at the same point)?
fn starts_before(a: &Piece, b: &Piece) -> Result<bool, Failure> {
    Ok(match compare(&a.lo, &b.lo)? {
        Ordering::Less => true,
        Ordering::Equal => a.lo_closed && !b.lo_closed,
        Ordering::Greater => false,
    })
}

/// Sorted by start, overlapping and touching pieces merged: one canonical form.
fn normalise(mut pieces: Vec<Piece>) -> Result<Vec<Piece>, Failure> {
    if pieces.len() > MAX_PIECES {
        return Err(Failure::TooLarge("set with too many parts"));
    }
    // Selection by start: comparisons may fail, which a library sort cannot report.
    let mut sorted = Vec::with_capacity(pieces.len());
    while !pieces.is_empty() {
        let mut first = 0;
        for i in 1..pieces.len() {
            if starts_before(&pieces[i], &pieces[first])? {
                first = i;
            }
        }
        sorted.push(pieces.swap_remove(first));
    }
    let mut out: Vec<Piece> = Vec::with_capacity(sorted.len());
    for p in sorted {
        if let Some(last) = out.last_mut() {
            let order = compare(&p.lo, &last.hi)?;
            if order == Ordering::Less || order == Ordering::Equal && (p.lo_closed || last.hi_closed) {
                match compare(&p.hi, &last.hi)? {
                    Ordering::Greater => (last.hi, last.hi_closed) = (p.hi, p.hi_closed),
                    Ordering::Equal => last.hi_closed |= p.hi_closed,
                    Ordering::Less => {}
                }
                continue;
            }
        }
        out.push(p);
    }
    Ok(out)
}

fn intersect(a: &[Piece], b: &[Piece]) -> Result<Vec<Piece>, Failure> {
    let mut out = Vec::new();
    for p in a {
        for q in b {
            let (lo, lo_closed) = match compare(&p.lo, &q.lo)? {
                Ordering::Greater => (&p.lo, p.lo_closed),
                Ordering::Less => (&q.lo, q.lo_closed),
                Ordering::Equal => (&p.lo, p.lo_closed && q.lo_closed),
            };
            let (hi, hi_closed) = match compare(&p.hi, &q.hi)? {
                Ordering::Less => (&p.hi, p.hi_closed),
                Ordering::Greater => (&q.hi, q.hi_closed),
                Ordering::Equal => (&p.hi, p.hi_closed && q.hi_closed),
            };
            let piece = Piece::new(lo.clone(), lo_closed, hi.clone(), hi_closed);
            if !piece.is_empty()? {
                out.push(piece);
            }
        }
    }
    normalise(out)
}

/// The complement of normalised pieces: the gaps between them.
fn complement(a: &[Piece]) -> Result<Vec<Piece>, Failure> {
    let mut out = Vec::new();
    let (mut lo, mut lo_closed) = (Bound::NegInf, false);
    for p in a {
        let gap = Piece::new(lo, lo_closed, p.lo.clone(), !p.lo_closed);
        if !gap.is_empty()? {
            out.push(gap);
        }
        (lo, lo_closed) = (p.hi.clone(), !p.hi_closed);
    }
    let last = Piece::new(lo, lo_closed, Bound::PosInf, false);
    if !last.is_empty()? {
        out.push(last);
    }
    Ok(out)
}

fn bound_node(b: &Bound) -> Node {
    match b {
        Bound::NegInf => Node::Neg(Box::new(Node::Const(Constant::Infinity))),
        Bound::At(v) => v.node.clone(),
        Bound::PosInf => Node::Const(Constant::Infinity),
    }
}

/// The pieces as the parser writes sets: `\{\}` when empty, a finite set of points, an interval, or a union.
fn to_node(pieces: &[Piece]) -> Node {
    if pieces.iter().all(Piece::is_point) {
        return Node::Set(pieces.iter().map(|p| bound_node(&p.lo)).collect());
    }
    let mut parts: Vec<Node> = pieces
        .iter()
        .map(|p| {
            if p.is_point() {
                Node::Set(vec![bound_node(&p.lo)])
            } else {
                let (open, close) = (if p.lo_closed { '[' } else { '(' }, if p.hi_closed { ']' } else { ')' });
                Node::Bracket(open, vec![bound_node(&p.lo), bound_node(&p.hi)], close)
            }
        })
        .collect();
    if parts.len() == 1 {
        return parts.remove(0);
    }
    Node::Union(parts)
}

/// `a ∩ b` or `a \ b`, as a set the comparison knows; an error when either is not a set of numbers. Not
/// inlined: the parser's frames stay small.
#[inline(never)]
pub fn combine(op: SetOp, a: &Node, b: &Node) -> Result<Node, Failure> {
    let (x, y) = (normalise(pieces(a)?)?, normalise(pieces(b)?)?);
    let result = match op {
        SetOp::Intersection => intersect(&x, &y)?,
        SetOp::Difference => intersect(&x, &complement(&y)?)?,
    };
    Ok(to_node(&result))
}

/// The union of `parts`, merged (`{1,2} \cup [0,3]` is `[0,3]`); an error when a part is not a set of numbers.
#[inline(never)]
pub fn union(parts: &[Node]) -> Result<Node, Failure> {
    let mut all = Vec::new();
    for p in parts {
        all.extend(pieces(p)?);
        if all.len() > MAX_PIECES {
            return Err(Failure::TooLarge("set with too many parts"));
        }
    }
    Ok(to_node(&normalise(all)?))
}

/// The parsed tree with its set operations computed ([`combine`], left to right as written) and its unions of
/// intervals and sets of numbers merged into one canonical form (`{1,2} \cup [0,3]` is `[0,3]`; a union of
/// anything else stays as written). An operation on something other than intervals or sets of numbers, or a
/// result over the node limit, is a failure: the answer does not parse.
pub fn resolve(node: Node) -> Result<Node, Failure> {
    // Most answers hold no set operation: one cheap walk, and the tree is returned as it is.
    if !any_node(&node, &|n| matches!(n, Node::SetOp(..) | Node::Union(_))) {
        return Ok(node);
    }
    resolve_tree(node)
}

fn resolve_tree(node: Node) -> Result<Node, Failure> {
    match node {
        Node::SetOp(..) => {
            // The parser builds `A \cap B \setminus C` as a chain leaning left, as long as the text makes it:
            // its spine is walked in a loop, not by recursion.
            let mut operands = Vec::new();
            let mut left = node;
            while let Node::SetOp(op, a, b) = left {
                operands.push((op, *b));
                left = *a;
            }
            let mut acc = resolve_tree(left)?;
            for (op, b) in operands.into_iter().rev() {
                acc = within_limit(combine(op, &acc, &resolve_tree(b)?)?)?;
            }
            Ok(acc)
        }
        Node::Union(parts) => {
            let parts = parts.into_iter().map(resolve_tree).collect::<Result<Vec<_>, _>>()?;
            within_limit(union(&parts).unwrap_or(Node::Union(parts)))
        }
        other => try_map_children(other, &mut resolve_tree),
    }
}

/// A computed set, unless it is over the node limit (it holds copies of its operands' ends).
fn within_limit(n: Node) -> Result<Node, Failure> {
    if size(&n, MAX_NODES + 1) > MAX_NODES {
        return Err(Failure::TooLarge("expression too large"));
    }
    Ok(n)
}
