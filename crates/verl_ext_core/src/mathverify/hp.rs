//! Equality of values exact arithmetic cannot hold (π, e, logarithms, trigonometry, other roots, huge
//! powers), decided in high-precision floating point instead of at a tolerance: `e^{-30} != 0`,
//! `\pi + 10^{-12} != \pi`, `10^9\pi + 1 != 10^9\pi`, while `\sin\pi = 0` and `\ln e^2 = 2`.
//!
//! The precision is chosen from the answers themselves ([`need`]): the bits that any difference their
//! numbers can express needs to show (a literal's digits, a power's magnitude, `exp` of a large argument),
//! plus a margin. Both values are computed at that precision P and at 1.5P: equal when the difference is
//! within the rounding noise at both (the noise shrinks with the precision, a real difference does not);
//! otherwise not equal. Beyond [`MAX_PRECISION`] bits, or when the work budget runs out, nothing is decided
//! (the caller judges "not equal").

use std::cell::RefCell;
use std::marker::PhantomData;

use astro_float::{BigFloat, Consts, RoundingMode, Sign};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::ToPrimitive;

use super::budget;
use super::numeric;
use super::parser::{Constant, Func, Node, Op};

/// Bits of precision at most (the larger of the two evaluations): `(\sqrt2+\sqrt3+\sqrt5+\sqrt7)^{2000}`,
/// about 2^6000, is beyond it.
pub const MAX_PRECISION: usize = 8192;
/// Bits above [`need`] at the first evaluation.
const MARGIN: usize = 128;
/// The first evaluation's precision at least.
const MIN_PRECISION: usize = 192;
/// Bits of rounding noise allowed above the precision floor (operations, function conditioning).
const NOISE_BITS: i64 = 48;
/// Work units (nanoseconds, measured with astro-float 0.9 on this project's VM) of one operation per (P/64)²,
/// and the fixed part of each: a product ~2·w² + 100 ns; `exp`, `sin`, `cos` ~450·w²; `tan` ~900·w²;
/// `ln` and the inverse functions ~1600·w² (each + 40 µs).
const PRODUCT_COST: (u64, u64) = (2, 100);
const TRANSCENDENTAL_COST: (u64, u64) = (450, 40_000);
const TANGENT_COST: (u64, u64) = (900, 40_000);
const LOGARITHMIC_COST: (u64, u64) = (1600, 40_000);
/// Work units of one call of [`equal`] beyond its arithmetic.
const CALL_COST: u64 = 2_000;
/// Most variable-free parts a [`Memo`] keeps values of (two precisions each, at most [`MAX_PRECISION`] bits).
const MAX_MEMO_PARTS: usize = 64;
const RM: RoundingMode = RoundingMode::ToEven;

thread_local! {
    /// π, e and ln 2 at the precisions asked for, kept between calls on a thread.
    static CONSTS: RefCell<Option<Consts>> = const { RefCell::new(None) };
}

/// A complex value in high precision (imaginary part `None` when real).
#[derive(Clone)]
struct Cx {
    re: BigFloat,
    im: Option<BigFloat>,
}

/// One evaluation: the precision and the largest binary exponent of the values whose absolute rounding errors
/// reach the result (the scale of the rounding noise; see [`Eval::note`]).
struct Eval<'a> {
    p: usize,
    scale: i64,
    var: &'a dyn Fn(&str) -> Option<BigRational>,
    cc: &'a mut Consts,
    memo: Option<&'a mut Parts>,
}

/// The values of the variable-free parts of two expressions, kept while [`equal_at`] compares them at several
/// points: a part such as `\frac{1}{2}\sqrt{2}` or `\frac{1025}{32}\pi` in `\frac{1}{2}x + …` has the same
/// value at every point, so it is computed once at each precision instead of once at each point (a sum with a
/// few roots and π at the six sample points used to spend the whole work budget). A kept value is the one
/// evaluating the part again would give, and the scale of the rounding noise it noted is noted again: only the
/// repeated work and its charge are saved, so the verdicts are those without a memo wherever its budget suffices.
pub struct Memo<'t> {
    parts: Parts,
    trees: PhantomData<&'t Node>,
}

/// The parts of a [`Memo`] (the addresses of the largest variable-free subtrees that are not leaves, sorted)
/// and the values of each (one per precision: [`equal`] evaluates at two), with the largest exponent noted.
struct Parts {
    addresses: Vec<usize>,
    values: Vec<Vec<(usize, Cx, i64)>>,
}

impl<'t> Memo<'t> {
    /// A memo for comparing `a` with `b` (or their subtrees): it borrows them, so an address it keeps is one
    /// of their nodes for as long as it lives.
    pub fn new(a: &'t Node, b: &'t Node) -> Self {
        let mut addresses = Vec::new();
        for tree in [a, b] {
            if !depends(tree, &mut addresses) && !leaf(tree) && addresses.len() < MAX_MEMO_PARTS {
                addresses.push(address(tree));
            }
        }
        addresses.sort_unstable();
        let values = vec![Vec::new(); addresses.len()];
        Memo { parts: Parts { addresses, values }, trees: PhantomData }
    }
}

fn address(n: &Node) -> usize {
    std::ptr::from_ref(n) as usize
}

fn leaf(n: &Node) -> bool {
    matches!(n, Node::Num(_) | Node::Decimal(_) | Node::Const(_))
}

/// Does `n` depend on a variable (or is it a node this module does not evaluate part by part)? The largest
/// variable-free subtrees below a node that does, leaves aside, are added to `parts` (up to
/// [`MAX_MEMO_PARTS`]).
fn depends(n: &Node, parts: &mut Vec<usize>) -> bool {
    match n {
        Node::Var(_) => true,
        Node::Num(_) | Node::Decimal(_) | Node::Const(_) => false,
        Node::Neg(x) | Node::Func(_, x) | Node::Factorial(x) | Node::Percent(x) => any_depends([&**x], parts),
        Node::Div(a, b) | Node::Pow(a, b) | Node::Root(a, b) | Node::Log(a, b) => any_depends([&**a, &**b], parts),
        Node::Add(xs) | Node::Mul(xs) | Node::Apply(_, xs) => any_depends(xs, parts),
        _ => true,
    }
}

/// Does one of `children` depend on a variable? If so, those that do not (leaves aside) are parts.
fn any_depends<'n>(children: impl IntoIterator<Item = &'n Node>, parts: &mut Vec<usize>) -> bool {
    let start = parts.len();
    let mut any = false;
    for x in children {
        if depends(x, parts) {
            any = true;
        } else if !leaf(x) && parts.len() < MAX_MEMO_PARTS {
            parts.push(address(x));
        }
    }
    if !any {
        // None depends: these are not the largest variable-free subtrees (`n` is, or one above it).
        parts.truncate(start);
    }
    any
}

/// Are `a` and `b` (scalars, variables bound by `var`) equal? `None` when it cannot be decided here.
pub fn equal(a: &Node, b: &Node, var: &dyn Fn(&str) -> Option<BigRational>) -> Option<bool> {
    decide(a, b, var, None)
}

/// [`equal`] for `a` and `b` at one of several points, with the values of their variable-free parts kept in
/// `memo` (made for `a` and `b`) from one point to the next.
pub fn equal_at<'t>(
    a: &'t Node,
    b: &'t Node,
    var: &dyn Fn(&str) -> Option<BigRational>,
    memo: &mut Memo<'t>,
) -> Option<bool> {
    decide(a, b, var, Some(&mut memo.parts))
}

fn decide(a: &Node, b: &Node, var: &dyn Fn(&str) -> Option<BigRational>, mut memo: Option<&mut Parts>) -> Option<bool> {
    // The fixed cost of a decision (the bound, allocations, the constants' cache), measured ~2 µs.
    if !budget::charge(CALL_COST) {
        return None;
    }
    let bits = need(a)?.max(need(b)?);
    let p1 = ((bits as usize).saturating_add(MARGIN)).max(MIN_PRECISION).next_multiple_of(64);
    // The second evaluation at half as many bits again: real differences stay, rounding noise shrinks.
    let p2 = (p1 + p1 / 2).next_multiple_of(64);
    if p2 > MAX_PRECISION {
        return None;
    }
    CONSTS.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Consts::new().ok()?);
        }
        let cc = slot.as_mut()?;
        for p in [p1, p2] {
            if !within_noise(a, b, p, var, cc, memo.as_deref_mut())? {
                return Some(false);
            }
        }
        Some(true)
    })
}

/// Is `|a - b|` within the rounding noise at precision `p`?
fn within_noise(
    a: &Node,
    b: &Node,
    p: usize,
    var: &dyn Fn(&str) -> Option<BigRational>,
    cc: &mut Consts,
    memo: Option<&mut Parts>,
) -> Option<bool> {
    let mut ev = Eval { p, scale: i64::MIN, var, cc, memo };
    let (x, y) = (ev.eval(a)?, ev.eval(b)?);
    ev.note(&x);
    ev.note(&y);
    let floor = ev.scale.max(0) - p as i64 + NOISE_BITS;
    let small = |v: &BigFloat| v.is_zero() || v.exponent().is_some_and(|e| i64::from(e) <= floor);
    let re = x.re.sub(&y.re, p, RM);
    let im = match (&x.im, &y.im) {
        (None, None) => None,
        (Some(u), None) => Some(u.clone()),
        (None, Some(v)) => Some(v.neg()),
        (Some(u), Some(v)) => Some(u.sub(v, p, RM)),
    };
    if re.is_nan() || im.as_ref().is_some_and(BigFloat::is_nan) {
        return None;
    }
    Some(small(&re) && im.as_ref().is_none_or(small))
}

/// Bits a difference expressible with the numbers of `n` may need (see the module docs); `None` beyond
/// reason (a tower `10^{10^{10}}`) or for what is not a scalar.
pub fn need(n: &Node) -> Option<f64> {
    let bits = |q: &BigRational| (q.numer().bits() + q.denom().bits()) as f64;
    // The magnitude (|log2|) of a value known only in floating point: both ways for a constant (`(1/10)^{200}`
    // needs the bits of 10^{-200}); for an expression with variables only large values count (its value at
    // the placeholder point 1.5 may be 0 by accident: `(x - y)^2`).
    let log2_abs = |x: &Node| {
        let v = numeric::eval(x, &|_| Some(1.5))?.abs();
        let mut vars = Vec::new();
        numeric::variables(x, &mut vars);
        Some(if vars.is_empty() { v.max(1e-300).log2().abs() } else { v.max(1.0).log2() })
    };
    let v = match n {
        Node::Num(q) | Node::Decimal(q) => bits(q),
        Node::Const(Constant::Infinity) => return None,
        Node::Const(_) => 0.0,
        Node::Var(_) => 16.0,
        Node::Neg(x) => need(x)?,
        Node::Percent(x) => need(x)? + 7.0,
        Node::Add(xs) | Node::Mul(xs) => xs.iter().map(need).sum::<Option<f64>>()? + 4.0,
        Node::Div(a, b) | Node::Root(a, b) | Node::Log(a, b) => need(a)? + need(b)? + 4.0,
        Node::Pow(b, e) => {
            // `need(b)` once: twice per level made a chain of squares cost 2^depth (`((((2)^2)^2)...)^2`).
            let exponent = numeric::eval(e, &|_| Some(1.5))?.abs();
            let of_base = need(b)?;
            let base = log2_abs(b).unwrap_or(of_base).max(1.0);
            of_base + need(e)? + exponent * base + exponent.log2().max(0.0) + 4.0
        }
        Node::Func(f, x) => {
            // Large arguments need bits for their reduction (`\\sin 10^{400}`); small ones need none beyond their
            // own digits (`\\ln(x - y)` near 0 must not ask for a thousand bits).
            let magnitude = numeric::eval(x, &|_| Some(1.5)).map_or(0.0, |v| v.abs());
            let arg = magnitude.max(1.0).log2();
            let growth = match f {
                Func::Exp | Func::Sinh | Func::Cosh => magnitude * std::f64::consts::LOG2_E,
                _ => arg,
            };
            need(x)? + growth + 8.0
        }
        Node::Apply(_, args) => args.iter().map(need).sum::<Option<f64>>()? + 8.0,
        Node::Factorial(x) => {
            let k = numeric::eval(x, &|_| None).filter(|v| v.is_real())?.re;
            need(x)? + (k.max(1.0) * k.max(2.0).log2())
        }
        _ => return None,
    };
    v.is_finite().then_some(v)
}

/// A big integer in floating point, exactly (its words as the mantissa).
fn from_int(n: &BigInt) -> BigFloat {
    let (sign, digits) = n.to_u64_digits();
    if digits.is_empty() {
        return BigFloat::from_u64(0, 64);
    }
    let bits = digits.len() * 64;
    let s = if sign == num_bigint::Sign::Minus { Sign::Neg } else { Sign::Pos };
    BigFloat::from_words(&digits, s, i32::try_from(bits).unwrap_or(i32::MAX))
}

impl Eval<'_> {
    fn rational(&mut self, q: &BigRational) -> Option<Cx> {
        let w = budget::words(q.numer().bits()).max(budget::words(q.denom().bits())).max((self.p / 64) as u64);
        budget::charge(4 * w * w).then_some(())?;
        let v = from_int(q.numer()).div(&from_int(q.denom()), self.p, RM);
        self.real(v)
    }

    /// A value produced: its scale noted, NaN and infinities refused.
    fn real(&mut self, v: BigFloat) -> Option<Cx> {
        self.cx(Cx { re: v, im: None })
    }

    fn cx(&mut self, v: Cx) -> Option<Cx> {
        let finite = std::iter::once(&v.re).chain(v.im.as_ref()).all(|part| !part.is_nan() && !part.is_inf());
        finite.then_some(v)
    }

    /// Note a value whose absolute rounding error carries into the result: the terms of a sum, the arguments
    /// of functions, the values compared. (Products and quotients carry relative errors: `10^{-200}` computed
    /// as 1/10^200 is exact to its own scale, not to 10^200's.)
    fn note(&mut self, v: &Cx) {
        for part in std::iter::once(&v.re).chain(v.im.as_ref()) {
            if let Some(e) = part.exponent().filter(|_| !part.is_zero()) {
                self.scale = self.scale.max(i64::from(e));
            }
        }
    }

    /// Charge one operation at this precision (`transcendental`: a series, not a product).
    fn charge(&self, transcendental: bool) -> Option<()> {
        self.charge_as(if transcendental { TRANSCENDENTAL_COST } else { PRODUCT_COST }, 0)
    }

    /// Charge one operation of cost `(per w², fixed)` at this precision plus `extra_bits` (the argument
    /// reduction of a periodic function works with the argument's own bits: `\\tan(\\pi^{3000})` needs ~5000 more).
    fn charge_as(&self, (per, fixed): (u64, u64), extra_bits: u64) -> Option<()> {
        let w = (self.p as u64 + extra_bits) / 64 + 1;
        budget::charge(per.saturating_mul(w * w).saturating_add(fixed)).then_some(())
    }

    /// The value of `n`: kept in the memo when `n` is one of its parts.
    fn eval(&mut self, n: &Node) -> Option<Cx> {
        let p = self.p;
        let Some(part) = self.memo.as_deref().and_then(|m| m.addresses.binary_search(&address(n)).ok()) else {
            return self.compute(n);
        };
        if let Some((_, v, scale)) = self.memo.as_deref().and_then(|m| m.values[part].iter().find(|e| e.0 == p)) {
            self.scale = self.scale.max(*scale);
            return Some(v.clone());
        }
        // The part's own noted scale, apart from the rest's, to note again wherever its value is reused.
        let outer = std::mem::replace(&mut self.scale, i64::MIN);
        let v = self.compute(n);
        let scale = std::mem::replace(&mut self.scale, outer);
        self.scale = self.scale.max(scale);
        if let (Some(v), Some(memo)) = (&v, self.memo.as_deref_mut()) {
            memo.values[part].push((p, v.clone(), scale));
        }
        v
    }

    fn compute(&mut self, n: &Node) -> Option<Cx> {
        let p = self.p;
        match n {
            Node::Num(q) | Node::Decimal(q) => self.rational(q),
            Node::Const(Constant::Pi) => {
                let v = self.cc.pi(p, RM);
                self.real(v)
            }
            Node::Const(Constant::E) => {
                let v = self.cc.e(p, RM);
                self.real(v)
            }
            Node::Const(Constant::I) => {
                let one = BigFloat::from_u64(1, p);
                self.cx(Cx { re: BigFloat::from_u64(0, p), im: Some(one) })
            }
            Node::Const(Constant::Infinity) => None,
            Node::Var(name) => {
                let q = (self.var)(name)?;
                self.rational(&q)
            }
            Node::Neg(x) => {
                let v = self.eval(x)?;
                Some(Cx { re: v.re.neg(), im: v.im.map(|i| i.neg()) })
            }
            Node::Percent(x) => {
                let v = self.eval(x)?;
                let hundred = BigFloat::from_u64(100, p);
                self.div(&v, &Cx { re: hundred, im: None })
            }
            Node::Add(xs) => {
                let mut acc = Cx { re: BigFloat::from_u64(0, p), im: None };
                for x in xs {
                    let v = self.eval(x)?;
                    self.note(&v);
                    self.charge(false)?;
                    acc = Cx { re: acc.re.add(&v.re, p, RM), im: add_im(&acc.im, &v.im, p) };
                    acc = self.cx(acc)?;
                }
                self.note(&acc);
                Some(acc)
            }
            Node::Mul(xs) => {
                let mut acc = Cx { re: BigFloat::from_u64(1, p), im: None };
                for x in xs {
                    let v = self.eval(x)?;
                    acc = self.mul(&acc, &v)?;
                }
                Some(acc)
            }
            Node::Div(a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                self.div(&x, &y)
            }
            Node::Pow(b, e) => self.pow(b, e),
            Node::Root(k, x) => {
                let k = self.eval(k)?;
                let x = self.eval(x)?;
                self.note(&x);
                if k.im.is_some() || x.im.is_some() {
                    return None;
                }
                let one = Cx { re: BigFloat::from_u64(1, p), im: None };
                let inv = self.div(&one, &k)?;
                self.real_power(&x.re, &inv.re, odd_integer(&k.re))
            }
            Node::Func(f, x) => {
                let v = self.eval(x)?;
                self.note(&v);
                self.func(*f, v)
            }
            Node::Log(b, x) => {
                let (b, x) = (self.eval(b)?, self.eval(x)?);
                self.note(&b);
                self.note(&x);
                let (lb, lx) = (self.ln(b)?, self.ln(x)?);
                self.div(&lx, &lb)
            }
            Node::Apply(op, args) => self.apply(*op, args),
            Node::Factorial(x) => {
                let k = super::exact::eval(x)?.as_rational()?;
                let k = k.is_integer().then(|| k.to_integer().to_u64()).flatten()?;
                if k > super::limits::MAX_FACTORIAL {
                    return None;
                }
                let mut acc = BigFloat::from_u64(1, p);
                for i in 2..=k {
                    self.charge(false)?;
                    acc = acc.mul(&BigFloat::from_u64(i, p), p, RM);
                }
                self.real(acc)
            }
            _ => None,
        }
    }

    /// Floor, ceiling, sign, min and max of real values (the integer functions are exact or nothing): undefined
    /// where the value is within rounding noise of the boundary that decides them.
    fn apply(&mut self, op: Op, args: &[Node]) -> Option<Cx> {
        let p = self.p;
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let v = self.eval(a)?;
            self.note(&v);
            if v.im.is_some() {
                return None;
            }
            values.push(v.re);
        }
        // Distinguishable from a boundary at `b`: more than the noise of this precision away.
        let clear = |x: &BigFloat, b: &BigFloat| {
            let d = x.sub(b, p, RM);
            let e = i64::from(x.exponent().unwrap_or(0)).max(0);
            d.is_zero() || d.exponent().is_some_and(|de| i64::from(de) > e - p as i64 + NOISE_BITS)
        };
        let out = match (op, values.as_slice()) {
            (Op::Floor | Op::Ceil, [x]) => {
                let (lo, hi) = (x.floor(), x.ceil());
                if !(clear(x, &lo) && clear(x, &hi)) && lo != hi {
                    return None;
                }
                if op == Op::Floor {
                    lo
                } else {
                    hi
                }
            }
            (Op::Sgn, [x]) => {
                let zero = BigFloat::from_u64(0, p);
                if !x.is_zero() && !clear(x, &zero) {
                    return None;
                }
                x.signum()
            }
            (Op::Min | Op::Max, [first, rest @ ..]) => {
                let mut best = first.clone();
                for x in rest {
                    let better = if op == Op::Min { x.cmp(&best)? < 0 } else { x.cmp(&best)? > 0 };
                    if better {
                        best = x.clone();
                    }
                }
                best
            }
            // a - m⌊a/m⌋, when a/m is clear of the integers it lies between (as floor).
            (Op::Mod, [a, m]) if !m.is_zero() => {
                let q = a.div(m, p, RM);
                let (lo, hi) = (q.floor(), q.ceil());
                if !(clear(&q, &lo) && clear(&q, &hi)) && lo != hi {
                    return None;
                }
                a.sub(&m.mul(&lo, p, RM), p, RM)
            }
            _ => return None,
        };
        self.real(out)
    }

    fn mul(&mut self, x: &Cx, y: &Cx) -> Option<Cx> {
        let p = self.p;
        self.charge(false)?;
        let re = x.re.mul(&y.re, p, RM);
        let v = match (&x.im, &y.im) {
            (None, None) => Cx { re, im: None },
            (Some(a), None) => Cx { re, im: Some(a.mul(&y.re, p, RM)) },
            (None, Some(b)) => Cx { re, im: Some(x.re.mul(b, p, RM)) },
            (Some(a), Some(b)) => Cx {
                re: re.sub(&a.mul(b, p, RM), p, RM),
                im: Some(x.re.mul(b, p, RM).add(&a.mul(&y.re, p, RM), p, RM)),
            },
        };
        self.cx(v)
    }

    fn div(&mut self, x: &Cx, y: &Cx) -> Option<Cx> {
        let p = self.p;
        self.charge(false)?;
        match &y.im {
            None => {
                if y.re.is_zero() {
                    return None;
                }
                let v = Cx { re: x.re.div(&y.re, p, RM), im: x.im.as_ref().map(|i| i.div(&y.re, p, RM)) };
                self.cx(v)
            }
            Some(b) => {
                // x / y = x · conj(y) / |y|²
                let den = y.re.mul(&y.re, p, RM).add(&b.mul(b, p, RM), p, RM);
                if den.is_zero() {
                    return None;
                }
                let conj = Cx { re: y.re.clone(), im: Some(b.neg()) };
                let num = self.mul(x, &conj)?;
                let v = Cx { re: num.re.div(&den, p, RM), im: num.im.map(|i| i.div(&den, p, RM)) };
                self.cx(v)
            }
        }
    }

    fn pow(&mut self, b: &Node, e: &Node) -> Option<Cx> {
        let p = self.p;
        let base = self.eval(b)?;
        // An integer exponent: repeated squaring (complex bases too).
        if let Some(k) = super::exact::eval(e).and_then(|s| s.as_rational()).filter(|q| q.is_integer()) {
            let k = k.to_integer().to_i64().filter(|k| k.unsigned_abs() <= super::limits::MAX_EXPONENT)?;
            let mut acc = Cx { re: BigFloat::from_u64(1, p), im: None };
            let mut sq = base;
            let mut left = k.unsigned_abs();
            while left > 0 {
                if left & 1 == 1 {
                    acc = self.mul(&acc, &sq)?;
                }
                left >>= 1;
                if left > 0 {
                    sq = self.mul(&sq, &sq)?;
                }
            }
            if k < 0 {
                let one = Cx { re: BigFloat::from_u64(1, p), im: None };
                return self.div(&one, &acc);
            }
            return Some(acc);
        }
        let exponent = self.eval(e)?;
        self.note(&base);
        self.note(&exponent);
        if base.im.is_none() && exponent.im.is_none() {
            // A rational exponent with an odd denominator keeps a negative base real (`(-8)^{1/3} = -2`).
            let odd = super::exact::eval(e)
                .and_then(|s| s.as_rational())
                .map(|q| q.denom().is_odd().then(|| q.numer().is_odd()));
            return self.real_power(&base.re, &exponent.re, odd.flatten());
        }
        let l = self.ln(base)?;
        let z = self.mul(&exponent, &l)?;
        self.exp(z)
    }

    /// `x^y` for real x, y: principal for x > 0; for x < 0 real only when `odd_root` says the exponent is a
    /// rational with an odd denominator (`Some(true)`: odd numerator, negative result).
    fn real_power(&mut self, x: &BigFloat, y: &BigFloat, odd_root: Option<bool>) -> Option<Cx> {
        let p = self.p;
        self.charge(true)?;
        if x.is_zero() {
            return y.is_positive().then(|| Cx { re: BigFloat::from_u64(0, p), im: None });
        }
        if x.is_positive() {
            let one = BigFloat::from_u64(1, p);
            // astro-float's logarithm does not end at exactly 1: 1^y is 1; a square root is a square root.
            if x.cmp(&one) == Some(0) {
                return self.real(one);
            }
            if y.cmp(&BigFloat::from_f64(0.5, p)) == Some(0) {
                return self.real(x.sqrt(p, RM));
            }
            // exp(y · ln x): astro-float's own `pow` did not end for some arguments (1.5414…^0.25).
            let l = x.ln(p, RM, self.cc);
            let v = y.mul(&l, p, RM).exp(p, RM, self.cc);
            return self.real(v);
        }
        let magnitude = x.neg().ln(p, RM, self.cc).mul(y, p, RM).exp(p, RM, self.cc);
        match odd_root {
            Some(true) => self.real(magnitude.neg()),
            Some(false) => self.real(magnitude),
            None => {
                // The principal complex power: |x|^y · (cos πy + i sin πy).
                let pi = self.cc.pi(p, RM);
                let angle = pi.mul(y, p, RM);
                let (c, s) = (angle.cos(p, RM, self.cc), angle.sin(p, RM, self.cc));
                let v = Cx { re: magnitude.mul(&c, p, RM), im: Some(magnitude.mul(&s, p, RM)) };
                self.cx(v)
            }
        }
    }

    fn ln(&mut self, z: Cx) -> Option<Cx> {
        let p = self.p;
        self.charge_as(LOGARITHMIC_COST, 0)?;
        match &z.im {
            None if z.re.is_positive() => {
                // ln 1 = 0 (astro-float's series does not end there).
                if z.re.cmp(&BigFloat::from_u64(1, p)) == Some(0) {
                    return self.real(BigFloat::from_u64(0, p));
                }
                let v = z.re.ln(p, RM, self.cc);
                self.real(v)
            }
            _ => {
                // ln z = ln|z| + i·arg z
                let im = z.im.clone().unwrap_or_else(|| BigFloat::from_u64(0, p));
                let modulus = z.re.mul(&z.re, p, RM).add(&im.mul(&im, p, RM), p, RM);
                if modulus.is_zero() {
                    return None;
                }
                let re = if modulus.cmp(&BigFloat::from_u64(1, p)) == Some(0) {
                    BigFloat::from_u64(0, p)
                } else {
                    modulus.ln(p, RM, self.cc).div(&BigFloat::from_u64(2, p), p, RM)
                };
                let arg = self.atan2(&im, &z.re)?;
                self.cx(Cx { re, im: Some(arg) })
            }
        }
    }

    /// The angle of (x, y) in (-π, π].
    fn atan2(&mut self, y: &BigFloat, x: &BigFloat) -> Option<BigFloat> {
        let p = self.p;
        let pi = self.cc.pi(p, RM);
        if x.is_zero() {
            let half = pi.div(&BigFloat::from_u64(2, p), p, RM);
            return Some(if y.is_negative() { half.neg() } else { half });
        }
        let base = y.div(x, p, RM).atan(p, RM, self.cc);
        Some(if x.is_positive() {
            base
        } else if y.is_negative() {
            base.sub(&pi, p, RM)
        } else {
            base.add(&pi, p, RM)
        })
    }

    fn exp(&mut self, z: Cx) -> Option<Cx> {
        let p = self.p;
        // An imaginary part is reduced as a sine's argument is.
        let reduction = z.im.as_ref().map_or(0, |t| 2 * u64::try_from(t.exponent().unwrap_or(0).max(0)).unwrap_or(0));
        self.charge_as(TRANSCENDENTAL_COST, reduction)?;
        let m = z.re.exp(p, RM, self.cc);
        let v = match &z.im {
            None => Cx { re: m, im: None },
            Some(t) => {
                let (c, s) = (t.cos(p, RM, self.cc), t.sin(p, RM, self.cc));
                Cx { re: m.mul(&c, p, RM), im: Some(m.mul(&s, p, RM)) }
            }
        };
        self.cx(v)
    }

    fn func(&mut self, f: Func, v: Cx) -> Option<Cx> {
        let p = self.p;
        match f {
            Func::Exp => return self.exp(v),
            Func::Ln => return self.ln(v),
            Func::Abs => {
                let im = v.im.unwrap_or_else(|| BigFloat::from_u64(0, p));
                let m = v.re.mul(&v.re, p, RM).add(&im.mul(&im, p, RM), p, RM).sqrt(p, RM);
                return self.real(m);
            }
            _ => {}
        }
        if v.im.is_some() {
            return None;
        }
        let x = &v.re;
        let cost = match f {
            Func::Tan | Func::Cot => TANGENT_COST,
            Func::Asin | Func::Acos | Func::Atan | Func::Asinh | Func::Acosh | Func::Atanh | Func::Acot => {
                LOGARITHMIC_COST
            }
            Func::Asec | Func::Acsc => LOGARITHMIC_COST,
            _ => TRANSCENDENTAL_COST,
        };
        let periodic = matches!(f, Func::Sin | Func::Cos | Func::Tan | Func::Cot | Func::Sec | Func::Csc);
        let reduction = if periodic { 2 * u64::try_from(x.exponent().unwrap_or(0).max(0)).unwrap_or(0) } else { 0 };
        self.charge_as(cost, reduction)?;
        // Outside a function's real domain the value is undefined here (and astro-float's series need not end).
        let one_abs = BigFloat::from_u64(1, p);
        let within = |lo: bool| {
            let c = x.abs().cmp(&one_abs);
            c.is_some_and(|c| if lo { c <= 0 } else { c >= 0 })
        };
        let domain = match f {
            Func::Asin | Func::Acos => within(true),
            Func::Atanh => within(true) && x.abs().cmp(&one_abs) != Some(0),
            Func::Asec | Func::Acsc => within(false),
            Func::Acosh => x.cmp(&one_abs).is_some_and(|c| c >= 0),
            _ => true,
        };
        if !domain {
            return None;
        }
        let cc = &mut *self.cc;
        let one = BigFloat::from_u64(1, p);
        let out = match f {
            Func::Sin => x.sin(p, RM, cc),
            Func::Cos => x.cos(p, RM, cc),
            Func::Tan => x.tan(p, RM, cc),
            Func::Cot => one.div(&x.tan(p, RM, cc), p, RM),
            Func::Sec => one.div(&x.cos(p, RM, cc), p, RM),
            Func::Csc => one.div(&x.sin(p, RM, cc), p, RM),
            Func::Asin => x.asin(p, RM, cc),
            Func::Acos => x.acos(p, RM, cc),
            Func::Atan => x.atan(p, RM, cc),
            Func::Sinh => x.sinh(p, RM, cc),
            Func::Cosh => x.cosh(p, RM, cc),
            Func::Tanh => x.tanh(p, RM, cc),
            Func::Asinh => x.asinh(p, RM, cc),
            Func::Acosh => x.acosh(p, RM, cc),
            Func::Atanh => x.atanh(p, RM, cc),
            Func::Sech => one.div(&x.cosh(p, RM, cc), p, RM),
            Func::Csch => one.div(&x.sinh(p, RM, cc), p, RM),
            Func::Coth => one.div(&x.tanh(p, RM, cc), p, RM),
            Func::Acot => cc.pi(p, RM).div(&BigFloat::from_u64(2, p), p, RM).sub(&x.atan(p, RM, cc), p, RM),
            Func::Asec => one.div(x, p, RM).acos(p, RM, cc),
            Func::Acsc => one.div(x, p, RM).asin(p, RM, cc),
            Func::Exp | Func::Ln | Func::Abs => return None,
        };
        self.real(out)
    }
}

fn add_im(a: &Option<BigFloat>, b: &Option<BigFloat>, p: usize) -> Option<BigFloat> {
    match (a, b) {
        (None, None) => None,
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (Some(x), Some(y)) => Some(x.add(y, p, RM)),
    }
}

/// Is `k` an odd integer (a root index for which a negative radicand has a real root)?
fn odd_integer(k: &BigFloat) -> Option<bool> {
    if !k.is_int() {
        return None;
    }
    let two = BigFloat::from_u64(2, 64);
    let half = k.div(&two, k.precision().unwrap_or(64).max(64), RM);
    // x^(1/k) for odd k is the negative real root of a negative x.
    (!half.is_int()).then_some(true)
}

#[cfg(test)]
mod tests {
    use super::super::{lexer::lex, parser::parse};
    use super::*;

    fn eq(a: &str, b: &str) -> Option<bool> {
        let _budget = budget::start();
        let (x, y) = (parse(lex(a).unwrap()).unwrap(), parse(lex(b).unwrap()).unwrap());
        equal(&x, &y, &|_| None)
    }

    #[test]
    fn tiny_differences_are_differences() {
        assert_eq!(eq("e^{-30}", "0"), Some(false));
        assert_eq!(eq("\\pi + 10^{-12}", "\\pi"), Some(false));
        assert_eq!(eq("10^9\\pi + 1", "10^9\\pi"), Some(false));
        assert_eq!(eq("\\pi + 10^{-200}", "\\pi"), Some(false));
        assert_eq!(eq("6.626\\times10^{-34}/(4\\pi)", "6.626\\times10^{-34}/(2\\pi)"), Some(false));
        assert_eq!(eq("e^{-100}", "0"), Some(false));
        assert_eq!(eq("\\pi + (1/10)^{200}", "\\pi"), Some(false));
    }

    #[test]
    fn identities_hold() {
        assert_eq!(eq("\\sin\\pi", "0"), Some(true));
        assert_eq!(eq("\\ln(e^2)", "2"), Some(true));
        assert_eq!(eq("e^{i\\pi}", "-1"), Some(true));
        assert_eq!(eq("\\sin\\frac{\\pi}{6}", "\\frac12"), Some(true));
        assert_eq!(eq("\\log_2 8", "3"), Some(true));
        assert_eq!(eq("2\\sin(1)\\cos(1)", "\\sin(2)"), Some(true));
        assert_eq!(eq("\\sqrt[3]{-8}", "-2"), Some(true));
        assert_eq!(eq("\\ln 1 + \\pi", "\\pi"), Some(true));
        assert_eq!(eq("1^{\\pi}", "1"), Some(true));
        assert_eq!(eq("(-8)^{-\\frac{1}{3}}", "-\\frac12"), Some(true));
        assert_eq!(eq("(10^{20}+\\pi)-10^{20}", "\\pi"), Some(true));
        assert_eq!(eq("10^{200}(\\pi+10^{-200}) - 10^{200}\\pi", "1"), Some(true));
        assert_eq!(eq("e^{-1000} e^{1000}", "1"), Some(true));
    }

    #[test]
    fn a_memo_saves_work_not_verdicts() {
        let parse_ = |s: &str| parse(lex(s).unwrap()).unwrap();
        let pairs = [
            (
                "\\frac{1}{2}x+\\frac{1}{2}\\sqrt{2}+\\frac{1025}{32}\\pi",
                "\\frac{1025}{32}\\pi+\\frac{1}{2}x+\\frac{1}{2}\\sqrt{2}",
            ),
            ("\\frac{1}{2}x+\\frac{1}{2}\\sqrt{2}", "\\frac{1}{2}x+\\frac{1}{2}\\sqrt{2}+10^{-40}"),
            // The noise of a large part's rounding is noted again where its value is reused.
            ("(10^{20}+\\pi-10^{20})x", "\\pi x"),
            ("(10^{20}+\\pi-10^{20})x", "\\pi x+10^{-30}"),
            ("\\sin(x)\\ln(3)+\\sqrt{2}^{\\sqrt{3}}", "\\sqrt{2}^{\\sqrt{3}}+\\ln(3)\\sin(x)"),
            ("\\pi+\\sqrt{2}", "\\sqrt{2}+\\pi"),
        ];
        for (a, b) in pairs {
            let (x, y) = (parse_(a), parse_(b));
            let mut memo = Memo::new(&x, &y);
            for k in 1..=6 {
                let point = |_: &str| Some(BigRational::new(k.into(), 7.into()));
                let kept = {
                    let _budget = budget::start();
                    equal_at(&x, &y, &point, &mut memo)
                };
                let _budget = budget::start();
                assert_eq!(kept, equal(&x, &y, &point), "{a} vs {b} at {k}/7");
            }
        }
        let (x, y) = (parse_(pairs[2].0), parse_(pairs[2].1));
        let mut memo = Memo::new(&x, &y);
        let point = |_: &str| Some(BigRational::new(3.into(), 7.into()));
        let _budget = budget::start();
        assert_eq!(equal_at(&x, &y, &point, &mut memo), Some(true));
        assert_eq!(equal_at(&x, &y, &point, &mut memo), Some(true));
    }

    #[test]
    fn beyond_reason_is_undecided() {
        assert_eq!(eq("\\pi^{10^{9}}", "\\pi^{10^{9}}+1"), None);
    }
}
