//! Floating-point evaluation (complex, principal branches) for what exact arithmetic cannot decide:
//! π, e, trigonometry, logarithms, other roots, and expressions with variables at sample points.

use num_traits::{One, ToPrimitive, Zero};

use super::limits::{MAX_BIG_TERMS, MAX_BIG_WORK};
use super::parser::{size, Constant, Func, Node};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct C {
    pub re: f64,
    pub im: f64,
}

impl C {
    pub const fn real(re: f64) -> Self {
        C { re, im: 0.0 }
    }
    fn add(self, o: C) -> C {
        C { re: self.re + o.re, im: self.im + o.im }
    }
    fn mul(self, o: C) -> C {
        C { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
    fn neg(self) -> C {
        // 0.0 - x, not -x: a -0.0 imaginary part would put √(-1) on the other branch cut side.
        C { re: 0.0 - self.re, im: 0.0 - self.im }
    }
    pub fn checked_div(self, o: C) -> Option<C> {
        let d = o.re * o.re + o.im * o.im;
        (d != 0.0).then(|| C { re: (self.re * o.re + self.im * o.im) / d, im: (self.im * o.re - self.re * o.im) / d })
    }
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    pub fn is_real(self) -> bool {
        self.im.abs() <= 1e-12 * self.re.abs().max(1.0)
    }
    fn ln(self) -> C {
        C { re: self.abs().ln(), im: self.im.atan2(self.re) }
    }
    fn exp(self) -> C {
        let m = self.re.exp();
        C { re: m * self.im.cos(), im: m * self.im.sin() }
    }
    fn powc(self, e: C) -> C {
        if self.re == 0.0 && self.im == 0.0 {
            return C::real(if e.re > 0.0 { 0.0 } else { f64::NAN });
        }
        if self.is_real() && e.is_real() && (self.re > 0.0 || e.re.fract() == 0.0) {
            return C::real(self.re.powf(e.re));
        }
        e.mul(self.ln()).exp()
    }
    pub fn finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
}

fn real_fn(f: Func, x: f64) -> f64 {
    match f {
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.tan(),
        Func::Cot => 1.0 / x.tan(),
        Func::Sec => 1.0 / x.cos(),
        Func::Csc => 1.0 / x.sin(),
        Func::Asin => x.asin(),
        Func::Acos => x.acos(),
        Func::Atan => x.atan(),
        Func::Sinh => x.sinh(),
        Func::Cosh => x.cosh(),
        Func::Tanh => x.tanh(),
        Func::Ln => x.ln(),
        Func::Exp => x.exp(),
        Func::Abs => x.abs(),
        Func::Asinh => x.asinh(),
        Func::Acosh => x.acosh(),
        Func::Atanh => x.atanh(),
        Func::Sech => 1.0 / x.cosh(),
        Func::Csch => 1.0 / x.sinh(),
        Func::Coth => 1.0 / x.tanh(),
        // The principal values: arccot in (0, π), continuous at 0; arcsec and arccsc through 1/x.
        Func::Acot => std::f64::consts::FRAC_PI_2 - x.atan(),
        Func::Asec => (1.0 / x).acos(),
        Func::Acsc => (1.0 / x).asin(),
    }
}

/// `b^(p/q)` on the real branch for a negative real `b` and an exact exponent with an odd denominator, as
/// `\sqrt[q]{b^p}` is read: `(-8)^{1/3} = -2`, `(-8)^{2/3} = 4` (the principal complex power is not real).
fn real_branch(base: C, exponent: &Node) -> Option<f64> {
    if !(base.is_real() && base.re < 0.0) {
        return None;
    }
    let q = super::exact::eval(exponent)?.as_rational()?;
    let (p, d) = (q.numer(), q.denom());
    if d.is_one() || (d % 2u32).is_zero() {
        return None;
    }
    let magnitude = (-base.re).powf(q.to_f64()?);
    Some(if (p % 2u32).is_zero() { magnitude } else { -magnitude })
}

/// Γ(x) for real x (Lanczos, g = 7, 9 terms: ~15 significant digits), reflected below 1/2; `None` at the
/// poles (0, -1, -2, …).
fn gamma(x: f64) -> Option<f64> {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x <= 0.0 && x.fract() == 0.0 {
        return None;
    }
    if x < 0.5 {
        let s = (std::f64::consts::PI * x).sin();
        return gamma(1.0 - x).map(|g| std::f64::consts::PI / (s * g));
    }
    let x = x - 1.0;
    let t = x + G + 0.5;
    let sum = COEF[1..].iter().enumerate().fold(COEF[0], |acc, (k, c)| acc + c / (x + k as f64 + 1.0));
    Some((2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * sum)
}

/// The value of a scalar expression with variables bound by `var`; None where it is undefined here.
pub fn eval(node: &Node, var: &dyn Fn(&str) -> Option<f64>) -> Option<C> {
    let v = match node {
        Node::Num(q) | Node::Decimal(q) => C::real(q.to_f64()?),
        Node::Const(Constant::Pi) => C::real(std::f64::consts::PI),
        Node::Const(Constant::E) => C::real(std::f64::consts::E),
        Node::Const(Constant::I) => C { re: 0.0, im: 1.0 },
        Node::Const(Constant::Infinity) => C::real(f64::INFINITY),
        Node::Var(name) => C::real(var(name)?),
        Node::Neg(x) => eval(x, var)?.neg(),
        Node::Add(xs) => xs.iter().try_fold(C::real(0.0), |acc, x| Some(acc.add(eval(x, var)?)))?,
        Node::Mul(xs) => xs.iter().try_fold(C::real(1.0), |acc, x| Some(acc.mul(eval(x, var)?)))?,
        Node::Div(a, b) => eval(a, var)?.checked_div(eval(b, var)?)?,
        Node::Pow(b, e) => {
            let (base, exponent) = (eval(b, var)?, eval(e, var)?);
            let v = match real_branch(base, e) {
                Some(v) => C::real(v),
                None => base.powc(exponent),
            };
            // A power of a nonzero base that underflows to 0 (`\\sin(x)^{10000}`) is no value here: as 0 it would equal
            // every other such power, and 0.
            if v.abs() == 0.0 && base.abs() != 0.0 {
                return None;
            }
            v
        }
        Node::Root(k, x) => {
            let (k, x) = (eval(k, var)?, eval(x, var)?);
            if x.is_real() && x.re < 0.0 && k.is_real() && k.re.fract() == 0.0 && k.re as i64 % 2 != 0 {
                C::real(-(-x.re).powf(1.0 / k.re)) // the real odd root
            } else {
                x.powc(C::real(1.0).checked_div(k)?)
            }
        }
        Node::Func(Func::Exp, x) => {
            let v = eval(x, var)?.exp();
            if v.abs() == 0.0 {
                return None; // underflow, as for a power
            }
            v
        }
        Node::Func(Func::Ln, x) => eval(x, var)?.ln(),
        Node::Func(Func::Abs, x) => C::real(eval(x, var)?.abs()),
        Node::Func(f, x) => {
            let x = eval(x, var)?;
            if !x.is_real() {
                return None;
            }
            C::real(real_fn(*f, x.re))
        }
        Node::Log(b, x) => eval(x, var)?.ln().checked_div(eval(b, var)?.ln())?,
        Node::Apply(op, xs) => {
            let mut args = Vec::with_capacity(xs.len());
            for x in xs {
                args.push(eval(x, var)?);
            }
            super::functions::numeric(*op, &args)?
        }
        Node::Factorial(x) => {
            let x = eval(x, var)?;
            if !x.is_real() || x.re > 170.0 {
                return None;
            }
            if x.re.fract() != 0.0 {
                // `(x+1)!` at a sample point: Γ(x + 1), as SymPy and latex2sympy read it.
                return gamma(x.re + 1.0).map(C::real);
            }
            if x.re < 0.0 {
                return None;
            }
            C::real((1..=x.re as u32).map(f64::from).product())
        }
        Node::Percent(x) => eval(x, var)?.mul(C::real(0.01)),
        Node::Big { product, index, bounds, body } => {
            // Computed when both bounds are integers at most MAX_BIG_TERMS apart.
            let (lo, hi) = (eval(&bounds.0, var)?, eval(&bounds.1, var)?);
            if !lo.is_real() || !hi.is_real() || lo.re.fract() != 0.0 || hi.re.fract() != 0.0 {
                return None;
            }
            let terms = hi.re - lo.re + 1.0;
            if !(0.0..=MAX_BIG_TERMS as f64).contains(&terms)
                || terms as usize * size(body, MAX_BIG_WORK + 1) > MAX_BIG_WORK
            {
                return None;
            }
            let mut acc = C::real(if *product { 1.0 } else { 0.0 });
            let mut k = lo.re;
            while k <= hi.re {
                let at = |name: &str| if name == index { Some(k) } else { var(name) };
                let term = eval(body, &at)?;
                acc = if *product { acc.mul(term) } else { acc.add(term) };
                k += 1.0;
            }
            acc
        }
        _ => return None,
    };
    // Only `\infty` (and its negation) may be infinite: an overflow of finite operands is undefined here.
    let infinite_ok =
        matches!(node, Node::Const(Constant::Infinity) | Node::Neg(_)) && v.re.is_infinite() && v.im == 0.0;
    (v.finite() || infinite_ok).then_some(v)
}

/// Free variables of an expression (sorted, unique).
pub fn variables(node: &Node, out: &mut Vec<String>) {
    match node {
        Node::Var(n) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        Node::Num(_) | Node::Decimal(_) | Node::Const(_) | Node::Text(_) => {}
        Node::Neg(x) | Node::Func(_, x) | Node::Factorial(x) | Node::Percent(x) => variables(x, out),
        Node::Div(a, b)
        | Node::Pow(a, b)
        | Node::Root(a, b)
        | Node::Log(a, b)
        | Node::PlusMinus(a, b)
        | Node::SetOp(_, a, b) => {
            variables(a, out);
            variables(b, out);
        }
        Node::Add(xs) | Node::Mul(xs) | Node::Set(xs) | Node::List(xs) | Node::Union(xs) | Node::Bracket(_, xs, _) => {
            xs.iter().for_each(|x| variables(x, out))
        }
        Node::Relation(xs, _) | Node::Apply(_, xs) => xs.iter().for_each(|x| variables(x, out)),
        Node::Big { index, bounds, body, .. } => {
            variables(&bounds.0, out);
            variables(&bounds.1, out);
            let mut inner = Vec::new();
            variables(body, &mut inner);
            for v in inner {
                if v != *index && !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        Node::Matrix(rows) => rows.iter().flatten().for_each(|x| variables(x, out)),
    }
}
