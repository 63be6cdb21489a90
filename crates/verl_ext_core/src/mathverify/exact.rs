//! Exact arithmetic: rationals extended by square roots, `q0 + q1·√r1 + q2·√r2 + ...` with each `r`
//! square-free. Closed under +, -, ×; division and powers where the result stays in this form. Anything
//! else (π, e, other roots, huge numbers) is `None` and left to the numeric comparison.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use super::budget;
use super::limits::{MAX_BIG_TERMS, MAX_BIG_WORK, MAX_BITS, MAX_EXPONENT, MAX_FACTORIAL, MAX_RADICAND, MAX_SURD_TERMS};
use super::parser::{int, size, substitute, Node};

/// A rational plus square roots: radicand (1 for the rational part) -> coefficient, no zero coefficients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surd(BTreeMap<u64, BigRational>);

/// `a · b`, without the gcd that normalising a rational costs when both are integers (num-bigint's binary gcd
/// is quadratic: with it, `10^{10^4}` took 19 ms).
fn qmul(a: &BigRational, b: &BigRational) -> BigRational {
    if a.is_integer() && b.is_integer() {
        BigRational::from_integer(a.numer() * b.numer())
    } else {
        a * b
    }
}

/// `a + b`, without a gcd when both are integers.
fn qadd(a: &BigRational, b: &BigRational) -> BigRational {
    if a.is_integer() && b.is_integer() {
        BigRational::from_integer(a.numer() + b.numer())
    } else {
        a + b
    }
}

fn small(q: &BigRational) -> bool {
    q.numer().bits() <= MAX_BITS && q.denom().bits() <= MAX_BITS
}

/// `n = s² · f` with `f` square-free, for `n <= MAX_RADICAND` (trial division up to its square root).
fn square_free(mut n: u64) -> (u64, u64) {
    let (mut s, mut f) = (1u64, 1u64);
    let mut p = 2u64;
    while p * p <= n {
        while n % (p * p) == 0 {
            n /= p * p;
            s *= p;
        }
        if n % p == 0 {
            n /= p;
            f *= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    (s, f * n)
}

impl Surd {
    pub fn rational(q: BigRational) -> Self {
        let mut m = BTreeMap::new();
        if !q.is_zero() {
            m.insert(1, q);
        }
        Surd(m)
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// Are all coefficients integers (no gcd to normalise their products)?
    fn integral(&self) -> bool {
        self.0.values().all(BigRational::is_integer)
    }

    /// The value as a float (for signs and approximate comparisons).
    pub fn to_f64(&self) -> f64 {
        self.0.iter().map(|(r, q)| q.to_f64().unwrap_or(f64::NAN) * (*r as f64).sqrt()).sum()
    }

    /// The value as an expression tree.
    pub fn to_node(&self) -> Node {
        let terms: Vec<Node> = self
            .0
            .iter()
            .map(|(r, q)| {
                let q = Node::Num(q.clone());
                if *r == 1 {
                    q
                } else {
                    let radicand = Node::Num(BigRational::from_integer(BigInt::from(*r)));
                    let two = Node::Num(BigRational::from_integer(BigInt::from(2)));
                    Node::Mul(vec![q, Node::Root(Box::new(two), Box::new(radicand))])
                }
            })
            .collect();
        match terms.len() {
            0 => Node::Num(BigRational::zero()),
            1 => terms.into_iter().next().unwrap_or(Node::Num(BigRational::zero())),
            _ => Node::Add(terms),
        }
    }

    pub fn as_rational(&self) -> Option<BigRational> {
        match self.0.len() {
            0 => Some(BigRational::zero()),
            1 => self.0.get(&1).cloned(),
            _ => None,
        }
    }

    /// The terms as (radicand, coefficient), radicand 1 for the rational part.
    pub fn terms(&self) -> impl Iterator<Item = (u64, &BigRational)> {
        self.0.iter().map(|(r, q)| (*r, q))
    }

    fn add_term(&mut self, r: u64, q: BigRational) {
        let e = self.0.entry(r).or_insert_with(BigRational::zero);
        *e = qadd(e, &q);
        if e.is_zero() {
            self.0.remove(&r);
        }
    }

    /// Within the limits: few enough square-root terms and small enough coefficients.
    fn checked(self) -> Option<Self> {
        (self.0.len() <= MAX_SURD_TERMS && self.0.values().all(small)).then_some(self)
    }

    pub fn add(&self, other: &Surd) -> Option<Surd> {
        // A sum of fractions is normalised by a gcd too (quadratic); of integers, linear.
        let units: u64 = other
            .0
            .values()
            .map(|q| {
                let w = budget::words(q.numer().bits() + q.denom().bits());
                if q.is_integer() {
                    w
                } else {
                    200 * w * w
                }
            })
            .sum();
        if !budget::charge_exact(units) {
            return None;
        }
        let mut out = self.clone();
        for (r, q) in &other.0 {
            out.add_term(*r, q.clone());
        }
        out.checked()
    }

    pub fn neg(&self) -> Surd {
        Surd(self.0.iter().map(|(r, q)| (*r, -q.clone())).collect())
    }

    pub fn mul(&self, other: &Surd) -> Option<Surd> {
        // Work per product (term pairs × coefficient words², with the gcd that normalises each rational) comes
        // out of the comparison's exact budget: `(\sqrt2+\sqrt3+\sqrt5+\sqrt7)^{2000}` has 16 terms of thousands
        // of bits; when the budget is spent, high precision decides instead.
        let words =
            |s: &Surd| s.0.values().map(|q| budget::words(q.numer().bits() + q.denom().bits())).max().unwrap_or(1);
        // Measured (`budget` units are nanoseconds on this project's VM): a product of big integers is
        // subquadratic in num-bigint, ~8·w^1.6 ns for w words; a product of fractions is normalised by a binary
        // gcd, ~200·w² ns (`((x+1)^2)^{2…}` at a rational point took 100 ms before it was charged).
        let pair = (words(self) * words(other)) as f64;
        let integers = self.integral() && other.integral();
        let per_pair = if integers { 8 * pair.powf(0.8) as u64 } else { 200 * pair as u64 };
        let units = (self.0.len() * other.0.len()) as u64 * per_pair;
        if !budget::charge_exact(units) {
            return None;
        }
        let mut out = Surd(BTreeMap::new());
        for (r1, q1) in &self.0 {
            for (r2, q2) in &other.0 {
                let g = r1.gcd(r2);
                let r = u128::from(r1 / g) * u128::from(r2 / g);
                let r = u64::try_from(r).ok().filter(|&r| r <= MAX_RADICAND)?;
                out.add_term(r, qmul(&qmul(q1, q2), &BigRational::from_integer(BigInt::from(g))));
            }
        }
        out.checked()
    }

    pub fn inv(&self) -> Option<Surd> {
        let terms: Vec<_> = self.0.iter().collect();
        match terms.as_slice() {
            [(r, q)] => {
                // 1 / (q √r) = √r / (q r)
                let c = (*q * BigRational::from_integer(BigInt::from(**r))).recip();
                Surd(BTreeMap::from([(**r, c)])).checked()
            }
            [(1, a), (r, b)] => {
                // 1 / (a + b√r) = (a - b√r) / (a² - b² r)
                let den = *a * *a - *b * *b * BigRational::from_integer(BigInt::from(**r));
                if den.is_zero() {
                    return None;
                }
                let inv = den.recip();
                Surd(BTreeMap::from([(1, *a * &inv), (**r, -(*b * &inv))])).checked()
            }
            _ => None,
        }
    }

    pub fn pow(&self, exp: &BigRational) -> Option<Surd> {
        if !exp.is_integer() {
            let two = BigInt::from(2);
            if exp.denom() == &two {
                // x^(k/2) = (√x)^k for a rational x >= 0
                let root = Surd::sqrt(&self.as_rational()?)?;
                return root.pow(&BigRational::from_integer(exp.numer().clone()));
            }
            return None;
        }
        let n = exp.to_integer().to_i64().filter(|n| n.unsigned_abs() <= MAX_EXPONENT)?;
        let mut base = if n < 0 { self.inv()? } else { self.clone() };
        let mut e = n.unsigned_abs();
        let mut acc = Surd::rational(BigRational::one());
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.mul(&base)?;
            }
            e >>= 1;
            if e > 0 {
                base = base.mul(&base)?;
            }
        }
        Some(acc)
    }

    /// √q for a rational q >= 0, when it stays in this form.
    pub fn sqrt(q: &BigRational) -> Option<Surd> {
        if q.is_negative() {
            return None;
        }
        // √(p/d) = √(p·d) / d
        let n = q.numer() * q.denom();
        let root = n.sqrt();
        if &root * &root == n {
            return Some(Surd::rational(BigRational::new(root, q.denom().clone())));
        }
        let n = n.to_u64().filter(|&n| n <= MAX_RADICAND)?;
        let (s, f) = square_free(n);
        let coef = BigRational::new(BigInt::from(s), q.denom().clone());
        Some(Surd(BTreeMap::from([(f, coef)])))
    }

    /// The k-th root of a rational, when it is rational (or a square root).
    pub fn root(q: &BigRational, k: &BigRational) -> Option<Surd> {
        if !k.is_integer() {
            return None;
        }
        let k = k.to_integer().to_u32().filter(|&k| (1..=64).contains(&k))?;
        if k == 2 {
            return Surd::sqrt(q);
        }
        let sign = if q.is_negative() {
            if k % 2 == 0 {
                return None;
            }
            -BigInt::one()
        } else {
            BigInt::one()
        };
        let (n, d) = (q.numer().abs(), q.denom().clone());
        let (rn, rd) = (n.nth_root(k), d.nth_root(k));
        (num_traits::pow(rn.clone(), k as usize) == n && num_traits::pow(rd.clone(), k as usize) == d)
            .then(|| Surd::rational(BigRational::new(sign * rn, rd)))
    }
}

fn factorial(n: &BigRational) -> Option<BigRational> {
    let n = n.is_integer().then(|| n.to_integer().to_u64())??;
    // Each step multiplies by a small factor: linear in the words so far, half the final size on average.
    if n > MAX_FACTORIAL || !budget::charge_exact(n * budget::words((n as f64 * (n.max(2) as f64).log2()) as u64) / 2) {
        return None;
    }
    Some(BigRational::from_integer((1..=n).fold(BigInt::one(), |acc, k| acc * k))).filter(small)
}

/// The exact value of a scalar expression, when it has one in this form.
pub fn eval(node: &Node) -> Option<Surd> {
    match node {
        Node::Num(q) | Node::Decimal(q) => Some(Surd::rational(q.clone())),
        Node::Neg(x) => Some(eval(x)?.neg()),
        Node::Add(xs) => xs.iter().try_fold(Surd::rational(BigRational::zero()), |acc, x| acc.add(&eval(x)?)),
        Node::Mul(xs) => xs.iter().try_fold(Surd::rational(BigRational::one()), |acc, x| acc.mul(&eval(x)?)),
        Node::Div(a, b) if matches!((&**a, &**b), (Node::Factorial(_), Node::Factorial(_))) => {
            super::functions::factorial_quotient(a, b)
        }
        Node::Div(a, b) => eval(a)?.mul(&eval(b)?.inv()?),
        Node::Pow(b, e) => {
            let e = eval(e)?.as_rational()?;
            eval(b)?.pow(&e)
        }
        Node::Root(k, x) => Surd::root(&eval(x)?.as_rational()?, &eval(k)?.as_rational()?),
        Node::Percent(x) => eval(x)?.mul(&Surd::rational(BigRational::new(BigInt::one(), BigInt::from(100)))),
        Node::Factorial(x) => factorial(&eval(x)?.as_rational()?).map(Surd::rational),
        Node::Apply(op, xs) => {
            // A loop rather than an iterator chain: fewer frames per level of nesting.
            let mut args = Vec::with_capacity(xs.len());
            for x in xs {
                args.push(eval(x)?);
            }
            super::functions::exact(*op, &args)
        }
        Node::Big { product, index, bounds, body } => {
            // Integer bounds at most MAX_BIG_TERMS apart: the terms, exactly.
            let (lo, hi) = (eval(&bounds.0)?.as_rational()?, eval(&bounds.1)?.as_rational()?);
            if !lo.is_integer() || !hi.is_integer() {
                return None;
            }
            let (lo, hi) = (lo.to_integer().to_i64()?, hi.to_integer().to_i64()?);
            let terms = usize::try_from(hi.checked_sub(lo)?.checked_add(1)?).ok()?;
            if terms > MAX_BIG_TERMS || terms * size(body, MAX_BIG_WORK + 1) > MAX_BIG_WORK {
                return None;
            }
            let mut acc = Surd::rational(BigRational::from_integer(BigInt::from(i64::from(*product))));
            for k in lo..=hi {
                let term = eval(&substitute(body, &|name| (name == index).then(|| int(k))))?;
                acc = if *product { acc.mul(&term)? } else { acc.add(&term)? };
            }
            Some(acc)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lexer::lex, parser::parse};
    use super::*;

    fn v(s: &str) -> Option<Surd> {
        eval(&parse(lex(s).unwrap()).unwrap())
    }

    #[test]
    fn radicals_are_canonical() {
        assert_eq!(v("\\sqrt{27}"), v("3\\sqrt3"));
        assert_eq!(v("\\frac{\\sqrt2}{2}"), v("\\frac{1}{\\sqrt2}"));
        assert_eq!(v("\\sqrt8/2"), v("\\sqrt{2}"));
        assert_eq!(v("\\sqrt[3]{8}"), v("2"));
        assert_eq!(v("\\frac{1}{1+\\sqrt2}"), v("\\sqrt2-1"));
        assert_eq!(v("0.5"), v("\\frac12"));
        assert_ne!(v("0.333"), v("\\frac13"));
        assert_eq!(v("25\\%"), v("\\frac14"));
        assert_eq!(v("2^{10}"), v("1024"));
        assert_eq!(v("10^{-3}"), v("0.001"));
        assert_eq!(v("\\pi"), None);
    }

    #[test]
    fn huge_powers_are_refused_quickly() {
        assert_eq!(v("10^{10^{10}}"), None);
        assert_eq!(v("2^{100000}"), None);
    }
}
