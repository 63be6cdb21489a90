//! Functions of integers and of order: floor, ceiling, sign, `\gcd`, `\operatorname{lcm}`, `\min`, `\max`,
//! `\bmod`, `\binom`, `n!!` and `\frac{n!}{k!}`, exactly on [`Surd`]s ([`exact`]) and in floating point
//! ([`numeric`]); and when two congruences are the same ([`congruences_eq`]).
//!
//! Exact work is bounded: every integer kept is at most [`MAX_BITS`] bits, checked as products grow, and
//! products have at most [`MAX_FACTORIAL`] factors. A floor that floating point cannot decide (a value within
//! [`FLOAT_MARGIN`] of an integer) is undefined rather than guessed: a wrong floor would be a false positive.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::budget;
use super::exact::{self, Surd};
use super::limits::{MAX_BITS, MAX_FACTORIAL};
use super::numeric::C;
use super::parser::{Node, Op, Rel};

/// How near (relatively) to a boundary a floating-point value is too near to decide a floor, a sign or an
/// interval end: there the answer is undefined rather than guessed (a wrong guess is a false positive).
pub const FLOAT_MARGIN: f64 = 1e-9;

/// Bits of precision, beyond the coefficients' own, tried in turn to put a sum of square roots between two
/// rationals with the same floor (see [`floor`]).
const FLOOR_PRECISION: [u64; 3] = [32, 256, 2048];
/// 2^53: floating-point values at least this large are not known to the unit.
const F64_EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// Work units per (words)² of one gcd or lcm step (see [`exact`]).
const GCD_COST: u64 = 12;

fn fits(n: &BigInt) -> bool {
    n.bits() <= MAX_BITS
}

fn integer(s: &Surd) -> Option<BigInt> {
    let q = s.as_rational()?;
    q.is_integer().then(|| q.to_integer())
}

fn from_integer(n: BigInt) -> Option<Surd> {
    fits(&n).then(|| Surd::rational(BigRational::from_integer(n)))
}

/// Integers `lo <= s·2^bits <= hi`: each square root bounded by an integer square root, each term rounded
/// outwards (integer arithmetic throughout: no fractions to reduce).
fn bounds(s: &Surd, bits: u64) -> (BigInt, BigInt) {
    let (mut lo, mut hi) = (BigInt::zero(), BigInt::zero());
    for (r, q) in s.terms() {
        // root <= √r · 2^bits <= root + 1 (equal to root when r is 1)
        let root = if r == 1 { BigInt::one() << bits } else { (BigInt::from(r) << (2 * bits)).sqrt() };
        let exact = r == 1;
        let (n, d) = (q.numer(), q.denom());
        let (a, b) = (n * &root, n * (root + u8::from(!exact)));
        let (below, above) = if n.is_negative() { (b, a) } else { (a, b) };
        lo += below.div_floor(d);
        hi += above.div_ceil(d);
    }
    (lo, hi)
}

/// ⌊s⌋, exactly. A value with square roots is irrational (roots of distinct square-free numbers are
/// independent over the rationals), so it is never an integer and enough precision separates it from the
/// nearest one; if [`FLOOR_PRECISION`] is not enough, None.
pub fn floor(s: &Surd) -> Option<BigInt> {
    if let Some(q) = s.as_rational() {
        return Some(q.floor().to_integer());
    }
    // Each term's error is |q|·2^-bits: its coefficient's magnitude plus the extra bits leaves 2^-extra.
    let magnitude = s.terms().map(|(_, q)| q.numer().bits().saturating_sub(q.denom().bits())).max().unwrap_or(0);
    FLOOR_PRECISION.iter().find_map(|extra| {
        let bits = magnitude + extra;
        let (lo, hi) = bounds(s, bits);
        let (a, b) = (lo >> bits, hi >> bits);
        (a == b).then_some(a)
    })
}

/// The sign of `s` (-1, 0 or 1), exactly: zero only when it has no terms, as its form is canonical.
pub fn sign(s: &Surd) -> Option<i8> {
    if s.is_zero() {
        return Some(0);
    }
    Some(if floor(s)?.is_negative() { -1 } else { 1 })
}

/// `a` against `b`, exactly.
pub fn compare(a: &Surd, b: &Surd) -> Option<Ordering> {
    Some(sign(&a.add(&b.neg())?)?.cmp(&0))
}

/// The exact value of `op` applied to exact arguments, when it has one: integer functions need integers
/// (`\gcd(1.5, 3)` is undefined here), the binomial an integer `k`.
pub fn exact(op: Op, args: &[Surd]) -> Option<Surd> {
    match (op, args) {
        (Op::Floor, [x]) => from_integer(floor(x)?),
        (Op::Ceil, [x]) => from_integer(-floor(&x.neg())?),
        (Op::Sgn, [x]) => from_integer(BigInt::from(sign(x)?)),
        (Op::Min | Op::Max, [first, rest @ ..]) => {
            let keep = if op == Op::Min { Ordering::Less } else { Ordering::Greater };
            let mut best = first;
            for x in rest {
                if compare(x, best)? == keep {
                    best = x;
                }
            }
            Some(best.clone())
        }
        (Op::Gcd | Op::Lcm, [first, rest @ ..]) => {
            let mut acc = integer(first)?.abs();
            for x in rest {
                let x = integer(x)?;
                // A gcd of w-word integers costs ~8·w² ns here (a binary gcd); an lcm adds a product and a division.
                let w = budget::words(acc.bits().max(x.bits()));
                if !budget::charge_exact(GCD_COST.saturating_mul(w * w)) {
                    return None;
                }
                acc = if op == Op::Gcd { acc.gcd(&x) } else { acc.lcm(&x) };
                if !fits(&acc) {
                    return None;
                }
            }
            from_integer(acc)
        }
        // The sign of the modulus, as Python's `%` and SymPy's `Mod`: `-3 \bmod 5` is 2, `0.41 \bmod 2` is 0.41,
        // `\frac{13}{2} \bmod 2` is `\frac12` (a - m⌊a/m⌋ for any real a and m ≠ 0).
        (Op::Mod, [a, m]) => {
            if let (Some(a), Some(m)) = (integer(a), integer(m)) {
                return (!m.is_zero()).then(|| a.mod_floor(&m)).and_then(from_integer);
            }
            if m.is_zero() {
                return None;
            }
            let quotient = from_integer(floor(&a.mul(&m.inv()?)?)?)?;
            a.add(&m.mul(&quotient)?.neg())
        }
        (Op::Binom, [n, k]) => binomial(&n.as_rational()?, &integer(k)?).map(Surd::rational),
        (Op::DoubleFactorial, [n]) => double_factorial(&integer(n)?),
        _ => None,
    }
}

/// ∏ of `terms` (integers), None as soon as it no longer fits [`MAX_BITS`].
fn product(terms: impl Iterator<Item = BigInt>) -> Option<BigInt> {
    let mut acc = BigInt::one();
    for t in terms {
        acc *= t;
        if !fits(&acc) {
            return None;
        }
    }
    Some(acc)
}

/// C(n, k) by the product formula n(n-1)…(n-k+1)/k! (no factorial of n is computed): for any rational n
/// (a polynomial in n, so `\binom{n}{2}` = `\frac{n(n-1)}{2}`), 0 for an integer `0 <= n < k`, and C(n, n-k)
/// when that has fewer factors. At most [`MAX_FACTORIAL`] factors.
fn binomial(n: &BigRational, k: &BigInt) -> Option<BigRational> {
    let natural = n.is_integer() && !n.is_negative();
    let mut k = k.clone();
    if natural {
        let n = n.to_integer();
        if k.is_negative() || k > n {
            return Some(BigRational::zero());
        }
        k = k.clone().min(n - k);
    }
    let k = k.to_u64().filter(|&k| k <= MAX_FACTORIAL)?;
    if natural {
        // Each partial product C(n-k+i, i) is an integer: exact division as we go.
        let n = n.to_integer();
        let mut acc = BigInt::one();
        for i in 1..=k {
            acc = acc * (&n - k + i) / i;
            if !fits(&acc) {
                return None;
            }
        }
        return Some(BigRational::from_integer(acc));
    }
    let mut acc = BigRational::one();
    for i in 0..k {
        acc = acc * (n - BigRational::from_integer(i.into())) / BigRational::from_integer((i + 1).into());
        if !fits(acc.numer()) || !fits(acc.denom()) {
            return None;
        }
    }
    Some(acc)
}

/// n!! = n(n-2)(n-4)…, for -1 <= n <= [`MAX_FACTORIAL`] (0!! = (-1)!! = 1).
fn double_factorial(n: &BigInt) -> Option<Surd> {
    let n = n.to_i64().filter(|n| (-1..=MAX_FACTORIAL as i64).contains(n))?;
    from_integer(product((1..=n).rev().step_by(2).map(BigInt::from))?)
}

/// `\frac{a!}{b!}` (both factorial nodes) as the product of the factors that do not cancel, so `\frac{2000!}{1998!}`
/// is 1999·2000 without either factorial; at most [`MAX_FACTORIAL`] factors.
pub fn factorial_quotient(a: &Node, b: &Node) -> Option<Surd> {
    let (Node::Factorial(a), Node::Factorial(b)) = (a, b) else { return None };
    let (a, b) = (integer(&exact::eval(a)?)?, integer(&exact::eval(b)?)?);
    if a.is_negative() || b.is_negative() {
        return None;
    }
    let (low, high) = if a >= b { (&b, &a) } else { (&a, &b) };
    let count = (high - low).to_u64().filter(|&c| c <= MAX_FACTORIAL)?;
    let p = product((1..=count).map(|i| low + i))?;
    let q = if a >= b { BigRational::from_integer(p) } else { BigRational::new(BigInt::one(), p) };
    Some(Surd::rational(q))
}

/// `x`, if floating point can tell which integers it lies between: not within [`FLOAT_MARGIN`] of one (where
/// it may be that integer), and small enough to be known to the unit.
fn clear_of_integers(x: f64) -> Option<f64> {
    let near = (x - x.round()).abs() <= FLOAT_MARGIN * x.abs().max(1.0);
    (x.abs() < F64_EXACT_INTEGERS && !near).then_some(x)
}

/// The floating-point value of `op` applied to `args` (real ones; None where undefined or undecidable).
/// Integer functions of integral values are computed exactly (the values, below 2^53, are exact integers).
pub fn numeric(op: Op, args: &[C]) -> Option<C> {
    let reals: Vec<f64> = args.iter().map(|c| c.is_real().then_some(c.re)).collect::<Option<_>>()?;
    let integral = |x: &f64| x.fract() == 0.0 && x.abs() < F64_EXACT_INTEGERS;
    let v = match (op, reals.as_slice()) {
        (Op::Floor, [x]) => clear_of_integers(*x)?.floor(),
        (Op::Ceil, [x]) => clear_of_integers(*x)?.ceil(),
        // Within the tolerance of zero the sign is unknown.
        (Op::Sgn, [x]) if x.abs() > FLOAT_MARGIN => x.signum(),
        (Op::Min, _) => reals.iter().copied().fold(f64::INFINITY, f64::min),
        (Op::Max, _) => reals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        (Op::Binom, [n, k]) if !integral(n) && integral(k) => binomial_f64(*n, *k)?,
        (Op::Gcd | Op::Lcm | Op::Mod | Op::Binom | Op::DoubleFactorial, _) if reals.iter().all(integral) => {
            let exact_args: Option<Vec<Surd>> =
                reals.iter().map(|&x| BigRational::from_float(x).map(Surd::rational)).collect();
            exact(op, &exact_args?)?.to_f64()
        }
        (Op::Mod, [a, m]) if *m != 0.0 => a - m * clear_of_integers(a / m)?.floor(),
        _ => return None,
    };
    v.is_finite().then_some(C::real(v))
}

/// C(n, k) for a real n and a natural k <= [`MAX_FACTORIAL`], by the product formula.
fn binomial_f64(n: f64, k: f64) -> Option<f64> {
    if k < 0.0 || k > MAX_FACTORIAL as f64 {
        return None;
    }
    Some((0..k as u64).fold(1.0, |acc, i| acc * (n - i as f64) / (i + 1) as f64))
}

/// `lhs \equiv r \pmod m`: the left side, the residue side `Mod(r, m)`, `r` and `m`.
fn congruence(n: &Node) -> Option<(&Node, &Node, &Node, &Node)> {
    let Node::Relation(sides, ops) = n else { return None };
    match (sides.as_slice(), ops.as_slice()) {
        ([lhs, side @ Node::Apply(Op::Mod, parts)], [Rel::Cong]) if parts.len() == 2 => {
            Some((lhs, side, &parts[0], &parts[1]))
        }
        _ => None,
    }
}

/// Congruences are the same when they relate the same left side, modulo the same modulus, to congruent
/// residues: `x \equiv 2 \pmod 5` = `x \equiv 7 \pmod 5` (each `Mod` side is the residue 2), but
/// `x \equiv 2 \pmod{10}` differs (another modulus is another set of x). A congruence equals nothing else,
/// a bare residue included (`2` does not say what it is the residue of). None when neither is one.
/// Residues written alike are congruent whatever they are (`x \equiv a \pmod n`, symbols included).
pub fn congruences_eq(a: &Node, b: &Node, eq: &dyn Fn(&Node, &Node) -> bool) -> Option<bool> {
    match (congruence(a), congruence(b)) {
        (None, None) => None,
        (Some((la, sa, ra, ma)), Some((lb, sb, rb, mb))) => {
            Some(eq(la, lb) && eq(ma, mb) && (eq(ra, rb) || eq(sa, sb)))
        }
        _ => Some(false),
    }
}
