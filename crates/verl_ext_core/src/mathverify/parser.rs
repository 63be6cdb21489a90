//! Tokens to an expression tree. Recursive descent whose depth is counted and capped (`MAX_DEPTH`), and
//! whose node count is capped (`MAX_NODES`), so a crafted input cannot exhaust the stack or memory.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

use super::lexer::Tok;
use super::limits::{MAX_DEPTH, MAX_NODES, MAX_POSTFIX};
use super::Failure;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constant {
    Pi,
    E,
    I,
    Infinity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Cot,
    Sec,
    Csc,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Ln,
    Exp,
    Abs,
    Asinh,
    Acosh,
    Atanh,
    Sech,
    Csch,
    Coth,
    /// Principal value in (0, π) (`π/2 - \arctan x`).
    Acot,
    Asec,
    Acsc,
}

/// Functions of integers or computed by comparison ([`super::functions`]): exact when their arguments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Floor,
    Ceil,
    Sgn,
    /// n-ary.
    Gcd,
    Lcm,
    Min,
    Max,
    /// `a \bmod m` (the sign of m, as Python's `%`).
    Mod,
    /// `\binom{n}{k}`.
    Binom,
    /// `n!!`.
    DoubleFactorial,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    /// `\equiv`: a congruence when its right side has a modulus (`x \equiv 2 \pmod 5`).
    Cong,
}

impl Rel {
    /// The relation with its sides swapped (`a < b` is `b > a`).
    pub fn flipped(self) -> Self {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Gt => Rel::Lt,
            Rel::Le => Rel::Ge,
            Rel::Ge => Rel::Le,
            other => other,
        }
    }
}

/// A set operator between two operands (`\cap`, `\setminus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    Intersection,
    Difference,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Num(BigRational),
    /// A number written with a decimal point or exponent (`0.5`, `1e-3`): its exact value. Kept apart from
    /// [`Node::Num`] because `float_rounding` applies to decimals only.
    Decimal(BigRational),
    Const(Constant),
    Var(String),
    Add(Vec<Node>),
    Mul(Vec<Node>),
    Neg(Box<Node>),
    Div(Box<Node>, Box<Node>),
    Pow(Box<Node>, Box<Node>),
    /// `Root(index, radicand)`; `\sqrt x` has index 2.
    Root(Box<Node>, Box<Node>),
    Func(Func, Box<Node>),
    /// `\gcd(a, b, ...)`, `\lfloor x \rfloor`, `\binom{n}{k}`, ...
    Apply(Op, Vec<Node>),
    /// `Log(base, argument)`; `\log x` has base 10.
    Log(Box<Node>, Box<Node>),
    Factorial(Box<Node>),
    Percent(Box<Node>),
    /// `a \pm b`: the two values.
    PlusMinus(Box<Node>, Box<Node>),
    /// `(a, b)`, `[a, b)`, ...: a tuple or an interval, with its brackets.
    Bracket(char, Vec<Node>, char),
    Set(Vec<Node>),
    /// Items separated by commas outside brackets (`1, 2` or `x=1, x=2`).
    List(Vec<Node>),
    Union(Vec<Node>),
    /// `A \cap B`, `A \setminus B` as written; [`super::sets::resolve`] computes them after parsing.
    SetOp(SetOp, Box<Node>, Box<Node>),
    Matrix(Vec<Vec<Node>>),
    /// A chain `e0 r1 e1 r2 e2 ...`.
    Relation(Vec<Node>, Vec<Rel>),
    Text(String),
    /// `\sum_{k=lo}^{hi} body` (`product`: `\prod`), with its bound index.
    Big {
        product: bool,
        index: String,
        bounds: Box<(Node, Node)>,
        body: Box<Node>,
    },
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
    nodes: usize,
    /// `\\sum`/`\\prod` operators so far.
    bigs: usize,
}

/// Most `\\sum`/`\\prod` operators in one answer, and most nodes in the body of one: with
/// [`super::limits::MAX_BIG_TERMS`] terms each, an evaluation visits at most 4 × 1000 × 256 nodes (and spends the
/// comparison's work budget).
const MAX_BIGS: usize = 4;
const MAX_BIG_BODY_NODES: usize = 256;

/// Commands that end a factor rather than start one: operators, closers, and the infix forms.
const NOT_FACTORS: &[&str] = &[
    "cup",
    "in",
    "to",
    "mod",
    "pmod",
    "bmod",
    "cap",
    "setminus",
    "smallsetminus",
    "backslash",
    "equiv",
    "choose",
    "over",
    "rfloor",
    "rceil",
];

/// Set operators: between sums in a side of a relation (see `Parser::side`).
const SET_OPERATORS: &[&str] = &["cup", "cap", "setminus", "smallsetminus", "backslash"];

/// `mod` after an opening parenthesis (`2 \ (\bmod 5)`, `(\text{mod } 5)`): a modulus, not a factor.
fn is_mod_word(t: &Tok) -> bool {
    matches!(t, Tok::Cmd(c) if c == "mod" || c == "bmod")
}

/// Parse a whole answer.
pub fn parse(toks: Vec<Tok>) -> Result<Node, Failure> {
    if toks.is_empty() {
        return Err(Failure::Syntax("empty answer".into()));
    }
    let mut p = Parser { toks, pos: 0, depth: 0, nodes: 0, bigs: 0 };
    let node = p.list()?;
    if p.pos < p.toks.len() {
        return Err(Failure::Syntax(format!("unexpected {:?}", p.toks[p.pos])));
    }
    Ok(node)
}

fn decimal(text: &str) -> Result<BigRational, Failure> {
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().map_err(|_| Failure::Syntax("bad exponent".into()))?),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: BigInt = format!("{int}{frac}").parse().map_err(|_| Failure::Syntax("bad number".into()))?;
    let shift = exp.checked_sub(frac.len() as i64).ok_or(Failure::TooLarge("decimal exponent"))?;
    if shift.unsigned_abs() > super::limits::MAX_EXPONENT {
        return Err(Failure::TooLarge("decimal exponent"));
    }
    let scale = num_traits::pow(BigInt::from(10), shift.unsigned_abs() as usize);
    Ok(if shift >= 0 { BigRational::from_integer(digits * scale) } else { BigRational::new(digits, scale) })
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn at(&self, t: &Tok) -> bool {
        self.peek() == Some(t)
    }

    /// `n/d` written with integers, `0 < n < d`, that nothing continues (`1/2^3`, `1/2 x` are not): consumed
    /// and returned as the fraction of a mixed number.
    fn proper_fraction(&mut self) -> Option<Node> {
        let (Some(Tok::Num(n)), Some(Tok::Sym('/')), Some(Tok::Num(d))) =
            (self.toks.get(self.pos), self.toks.get(self.pos + 1), self.toks.get(self.pos + 2))
        else {
            return None;
        };
        let digits = |t: &str| !t.is_empty() && t.len() <= 18 && t.bytes().all(|b| b.is_ascii_digit());
        let (n, d) = (n.clone(), d.clone());
        let continued = matches!(
            self.toks.get(self.pos + 3),
            Some(Tok::Num(_) | Tok::Ident(_) | Tok::Cmd(_) | Tok::Sym('^' | '/' | '(' | '_' | '!' | '.'))
        );
        if !digits(&n) || !digits(&d) || continued {
            return None;
        }
        let (a, b) = (n.parse::<u64>().ok()?, d.parse::<u64>().ok()?);
        if a == 0 || a >= b {
            return None;
        }
        self.pos += 3;
        Some(Node::Div(Box::new(int(a as i64)), Box::new(int(b as i64))))
    }

    fn eat(&mut self, t: &Tok) -> bool {
        let hit = self.at(t);
        self.pos += usize::from(hit);
        hit
    }

    fn at_cmd(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Cmd(c)) if c == name)
    }

    fn eat_cmd(&mut self, name: &str) -> bool {
        let hit = self.at_cmd(name);
        self.pos += usize::from(hit);
        hit
    }

    fn expect(&mut self, t: &Tok) -> Result<(), Failure> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(Failure::Syntax(format!("expected {t:?}, found {:?}", self.peek())))
        }
    }

    fn node(&mut self, n: Node) -> Result<Node, Failure> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(Failure::TooLarge("expression too large"));
        }
        Ok(n)
    }

    /// Run `f` one level deeper: every recursive rule goes through here, so the depth limit holds and the
    /// depth is restored on every path, errors included.
    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<Node, Failure>) -> Result<Node, Failure> {
        if self.depth >= MAX_DEPTH {
            return Err(Failure::TooLarge("nesting too deep"));
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// Items separated by `,` (and by `;` when `semicolons`) until `close` (or the end).
    fn items(&mut self, close: &[Tok], semicolons: bool) -> Result<Vec<Node>, Failure> {
        let mut items = Vec::new();
        loop {
            if self.peek().is_none_or(|t| close.contains(t)) {
                break;
            }
            items.push(self.union()?);
            if !(self.eat(&Tok::Sym(',')) || semicolons && self.eat(&Tok::Sym(';'))) {
                break;
            }
        }
        Ok(items)
    }

    /// A whole answer: items separated by `,`; groups of them separated by `;` (`p=5,q=2; p=7,q=2` is a
    /// list of two groups).
    fn list(&mut self) -> Result<Node, Failure> {
        let mut groups = Vec::new();
        loop {
            let mut items = self.items(&[Tok::Sym(';')], false)?;
            groups.push(match items.len() {
                0 => return Err(Failure::Syntax("empty expression".into())),
                1 => items.pop().unwrap_or(Node::List(Vec::new())),
                _ => self.node(Node::List(items))?,
            });
            if !self.eat(&Tok::Sym(';')) {
                break;
            }
        }
        if groups.len() == 1 {
            return Ok(groups.pop().unwrap_or(Node::List(Vec::new())));
        }
        self.node(Node::List(groups))
    }

    fn union(&mut self) -> Result<Node, Failure> {
        self.relation()
    }

    /// A side of a relation: sums joined by set operators, then a modulus if it has one.
    ///
    /// - `\cup` binds tighter than `\in` (`z \in [1, 2] \cup [3, 4]`); unions are flat.
    /// - `A \cap B` and `A \setminus B` bind tighter than `\cup` and are computed as they are read
    ///   after parsing ([`super::sets::resolve`]): their operands must be intervals or finite sets of numbers,
    ///   else the answer does not parse.
    /// - `2 \pmod 5` and `2 \ (\bmod 5)` are `Mod(2, 5)`, a value (`17 \pmod 5` is 2) that also marks a
    ///   congruence (`x \equiv 2 \pmod 5`); `\mod` and `\bmod` bind as a division does ([`Self::term`]).
    ///
    /// Inlined into [`Self::relation`], and the operators handled apart, so that each bracket level of a
    /// crafted input costs no more stack than before (the release build's 128 KB at the depth limit).
    #[inline(always)]
    fn side(&mut self) -> Result<Node, Failure> {
        let start = self.pos;
        let mut value = self.sum()?;
        if matches!(self.peek(), Some(Tok::Cmd(c)) if SET_OPERATORS.contains(&c.as_str())) {
            value = self.set_operand(start, value);
            value = self.set_operators(value)?;
        }
        let parenthesised = self.at(&Tok::Sym('(')) && self.toks.get(self.pos + 1).is_some_and(is_mod_word);
        if parenthesised || self.at_cmd("pmod") {
            return self.modulus(value);
        }
        Ok(value)
    }

    /// The set operators after the first sum of [`Self::side`] (apart, so that a plain side's frame stays small).
    #[inline(never)]
    fn set_operators(&mut self, first: Node) -> Result<Node, Failure> {
        let mut parts = Vec::new();
        let mut acc = first;
        let mut unions = 0;
        loop {
            if let Some(op) = self.set_operator() {
                let start = self.pos;
                let rhs = self.sum()?;
                let rhs = self.set_operand(start, rhs);
                acc = self.node(Node::SetOp(op, Box::new(acc), Box::new(rhs)))?;
                continue;
            }
            let more = self.eat_cmd("cup");
            match acc {
                Node::Union(xs) if more || unions > 0 => parts.extend(xs),
                x => parts.push(x),
            }
            if !more {
                break;
            }
            unions += 1;
            let start = self.pos;
            acc = self.sum()?;
            acc = self.set_operand(start, acc);
        }
        if unions == 0 {
            return Ok(parts.remove(0));
        }
        self.node(Node::Union(parts))
    }

    /// An operand of a set operator read from `self.toks[start..self.pos]`: bare braces around one element are
    /// a set there (`{1,2} \setminus {2}`, `(0,1) \cap {0.5}`), not grouping.
    fn set_operand(&self, start: usize, value: Node) -> Node {
        let braced = self.toks.get(start) == Some(&Tok::Sym('{')) && self.pos > start + 1 && {
            let mut depth = 0usize;
            let mut close = None;
            for (i, t) in self.toks[start..self.pos].iter().enumerate() {
                match t {
                    Tok::Sym('{') => depth += 1,
                    Tok::Sym('}') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            close = Some(start + i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            close == Some(self.pos - 1)
        };
        match value {
            Node::Set(_) | Node::List(_) => value,
            v if braced => Node::Set(vec![v]),
            v => v,
        }
    }

    /// `value \pmod m`, `value (\bmod m)`.
    #[inline(never)]
    fn modulus(&mut self, value: Node) -> Result<Node, Failure> {
        let modulus = if self.eat_cmd("pmod") {
            // `{5}` or `5`; through `unary` so each nested modulus counts as deep as a bracket.
            self.unary()?
        } else {
            self.pos += 2; // `(` and `mod`
            let m = self.sum()?;
            self.expect(&Tok::Sym(')'))?;
            m
        };
        self.node(Node::Apply(Op::Mod, vec![value, modulus]))
    }

    fn set_operator(&mut self) -> Option<SetOp> {
        if self.eat_cmd("cap") {
            Some(SetOp::Intersection)
        } else if self.eat_cmd("setminus") || self.eat_cmd("smallsetminus") || self.eat_cmd("backslash") {
            Some(SetOp::Difference)
        } else {
            None
        }
    }

    fn rel_op(&mut self) -> Option<Rel> {
        let op = match self.peek()? {
            Tok::Sym('=') => Rel::Eq,
            Tok::Sym('<') => Rel::Lt,
            Tok::Sym('>') => Rel::Gt,
            Tok::Le => Rel::Le,
            Tok::Ge => Rel::Ge,
            Tok::Ne => Rel::Ne,
            Tok::Cmd(c) if c == "in" => Rel::In,
            Tok::Cmd(c) if c == "equiv" => Rel::Cong,
            _ => return None,
        };
        self.pos += 1;
        Some(op)
    }

    fn relation(&mut self) -> Result<Node, Failure> {
        let first = self.side()?;
        let mut sides = vec![first];
        let mut ops = Vec::new();
        loop {
            if self.eat(&Tok::Approx) {
                let approx = self.side()?;
                if ops.is_empty() && names_only(&sides[0]) {
                    // `x \approx 11`: the value given.
                    ops.push(Rel::Eq);
                    sides.push(approx);
                } else {
                    // `x = 1/3 \approx 0.33`: the exact value before it; approximations after it are dropped.
                    while self.rel_op().is_some() || self.eat(&Tok::Approx) {
                        self.side()?;
                    }
                    break;
                }
            }
            let Some(op) = self.rel_op() else { break };
            ops.push(op);
            sides.push(self.side()?);
        }
        if ops.is_empty() {
            return Ok(sides.pop().unwrap_or(Node::List(Vec::new())));
        }
        self.node(Node::Relation(sides, ops))
    }

    fn sum(&mut self) -> Result<Node, Failure> {
        self.nested(Self::sum_inner)
    }

    fn sum_inner(&mut self) -> Result<Node, Failure> {
        let mut terms = vec![self.term()?];
        loop {
            if self.eat(&Tok::Sym('+')) {
                terms.push(self.term()?);
            } else if self.eat(&Tok::Sym('-')) {
                let t = self.term()?;
                terms.push(self.node(Node::Neg(Box::new(t)))?);
            } else if self.eat(&Tok::Pm) {
                let t = self.term()?;
                return self.node(Node::PlusMinus(Box::new(sum_of(terms)), Box::new(t)));
            } else {
                break;
            }
        }
        if terms.len() == 1 {
            return Ok(sum_of(terms));
        }
        let terms = terms.into_iter().map(grouping).collect();
        self.node(Node::Add(terms))
    }

    /// Does the next token start a factor of an implicit product (`2x`, `3\sqrt2`, `2(x+1)`)?
    fn starts_factor(&self) -> bool {
        match self.peek() {
            Some(Tok::Num(_) | Tok::Ident(_) | Tok::SetOpen | Tok::Begin(_)) => true,
            Some(Tok::Sym('(')) => !self.toks.get(self.pos + 1).is_some_and(is_mod_word),
            Some(Tok::Sym('{' | '[')) => true,
            Some(Tok::Cmd(c)) => !NOT_FACTORS.contains(&c.as_str()),
            _ => false,
        }
    }

    /// Products stay flat (`Mul` of many factors); each `/` nests once and counts towards the depth
    /// limit, so a long chain cannot build a tree deeper than the parser itself may recurse.
    fn term(&mut self) -> Result<Node, Failure> {
        let mut factors = vec![self.unary()?];
        let mut divisions = 0usize;
        let mut ratio = false;
        loop {
            if self.eat(&Tok::Sym('*')) {
                factors.push(self.unary()?);
            } else if self.at(&Tok::Sym(':')) && ratio {
                // `3:4:5` is no single number (read as 3/4/5 it would equal 3:20).
                return Err(Failure::Unsupported("a ratio of three or more parts"));
            } else if self.eat(&Tok::Sym('/'))
                || self.eat(&Tok::Sym(':'))
                || self.eat_cmd("bmod")
                || self.eat_cmd("mod")
            {
                // `a:b` is the ratio a/b; `a \bmod b` and `a \mod b` bind as a division does, as in
                // latex2sympy2 (`1 + 7 \mod 4` is 4, `141 \mod 9 / 3` is 2).
                let modulo = matches!(self.toks[self.pos - 1], Tok::Cmd(_));
                ratio |= self.toks[self.pos - 1] == Tok::Sym(':');
                divisions += 1;
                if self.depth + divisions > MAX_DEPTH {
                    return Err(Failure::TooLarge("nesting too deep"));
                }
                let num = product(factors);
                let den = self.unary()?;
                let n =
                    if modulo { Node::Apply(Op::Mod, vec![num, den]) } else { Node::Div(Box::new(num), Box::new(den)) };
                factors = vec![self.node(n)?];
            } else if self.starts_factor() {
                // `2 3` (and `-2 3`) is two numbers, not a product (a product of numbers is written with an
                // operator); `1 1/2` and `-2 3/4`, an integer then a proper fraction of integers, are mixed numbers.
                let number_follows = matches!(self.peek(), Some(Tok::Num(_)));
                let unsigned = match factors.last() {
                    Some(Node::Neg(n)) if factors.len() == 1 => Some(&**n),
                    last => last,
                };
                if number_follows && matches!(unsigned, Some(Node::Num(_) | Node::Decimal(_))) {
                    let whole = factors.pop().filter(is_whole_number);
                    let Some((whole, frac)) = whole.and_then(|w| self.proper_fraction().map(|f| (w, f))) else {
                        return Err(Failure::Syntax("two numbers side by side".into()));
                    };
                    let n = match whole {
                        Node::Neg(w) => Node::Neg(Box::new(Node::Add(vec![*w, frac]))),
                        w => Node::Add(vec![w, frac]),
                    };
                    let n = self.node(n)?;
                    let n = if self.eat(&Tok::Percent) { self.node(Node::Percent(Box::new(n)))? } else { n };
                    factors.push(n);
                    continue;
                }
                let mixed = factors.len() == 1 && self.at(&Tok::Cmd("frac".into()));
                let next = self.power()?;
                match (mixed, factors.pop()) {
                    // `2\frac{1}{4}` is the mixed number 2 + 1/4 (an integer, then a fraction of integers).
                    // A percent sign after it is the whole number's (`12\frac{1}{2}\%` is 12.5%).
                    (true, Some(whole)) if is_mixed_number(&whole, percent_of(&next)) => {
                        let (frac, percent) = match next {
                            Node::Percent(f) => (*f, true),
                            f => (f, false),
                        };
                        let n = match whole {
                            Node::Neg(w) => Node::Neg(Box::new(Node::Add(vec![*w, frac]))),
                            w => Node::Add(vec![w, frac]),
                        };
                        let n = if percent { Node::Percent(Box::new(self.node(n)?)) } else { n };
                        factors.push(self.node(n)?);
                    }
                    (_, Some(prev)) => {
                        factors.push(prev);
                        factors.push(next);
                    }
                    (_, None) => factors.push(next),
                }
            } else {
                // A word is an answer by itself (`odd`, `yes`), never a factor (`Answer 9` is not a product).
                if factors.len() > 1 && factors.iter().any(|f| matches!(f, Node::Text(_))) {
                    return Err(Failure::Syntax("a word inside an expression".into()));
                }
                if factors.len() > 1 {
                    factors = factors.into_iter().map(grouping).collect();
                }
                return self.node(product(factors));
            }
        }
    }

    fn unary(&mut self) -> Result<Node, Failure> {
        self.nested(|p| {
            if p.eat(&Tok::Sym('-')) {
                let inner = p.unary()?;
                p.node(Node::Neg(Box::new(inner)))
            } else if p.eat(&Tok::Pm) {
                // `\pm 3`: the values 3 and -3
                let inner = p.unary()?;
                p.node(Node::PlusMinus(Box::new(int(0)), Box::new(inner)))
            } else if p.eat(&Tok::Sym('+')) {
                p.unary()
            } else {
                p.power()
            }
        })
    }

    fn power(&mut self) -> Result<Node, Failure> {
        self.nested(|p| {
            let base = p.postfix()?;
            if !p.eat(&Tok::Sym('^')) {
                return Ok(base);
            }
            let exp = p.script()?;
            // `x^2_{i}` is `x_{i}^2`: a subscript after the power still names the base.
            let base = match base {
                Node::Var(name) if p.at(&Tok::Sym('_')) => Node::Var(format!("{name}_{}", p.subscript()?)),
                other => other,
            };
            let pow = p.node(Node::Pow(Box::new(base), Box::new(exp)))?;
            p.postfix_ops(pow)
        })
    }

    /// A superscript: a braced group, a signed number or a single factor.
    fn script(&mut self) -> Result<Node, Failure> {
        self.nested(Self::script_inner)
    }

    fn script_inner(&mut self) -> Result<Node, Failure> {
        if self.eat(&Tok::Sym('-')) {
            let inner = self.script()?;
            return self.node(Node::Neg(Box::new(inner)));
        }
        if self.at(&Tok::Sym('{')) || self.at(&Tok::Sym('(')) {
            return self.primary();
        }
        match self.peek() {
            Some(Tok::Num(_) | Tok::Ident(_)) => self.primary(),
            _ => self.power(),
        }
    }

    fn postfix(&mut self) -> Result<Node, Failure> {
        let p = self.primary()?;
        self.postfix_ops(p)
    }

    fn postfix_ops(&mut self, mut node: Node) -> Result<Node, Failure> {
        for _ in 0..=MAX_POSTFIX {
            if self.eat(&Tok::Sym('!')) {
                // `n!!` is the double factorial (`(n!)!` is written with brackets).
                node = if self.eat(&Tok::Sym('!')) {
                    self.node(Node::Apply(Op::DoubleFactorial, vec![node]))?
                } else {
                    self.node(Node::Factorial(Box::new(node)))?
                };
            } else if self.eat(&Tok::Percent) {
                node = self.node(Node::Percent(Box::new(node)))?;
            } else {
                return Ok(node);
            }
        }
        Err(Failure::TooLarge("postfix chain too long"))
    }

    /// One LaTeX argument: a braced group, or a single token (`\frac12` takes `1` then `2`).
    fn arg(&mut self) -> Result<Node, Failure> {
        if self.at(&Tok::Sym('{')) {
            return self.primary();
        }
        if let Some(Tok::Num(n)) = self.peek().cloned() {
            if n.len() > 1 && n.chars().all(|c| c.is_ascii_digit()) {
                let (first, rest) = n.split_at(1);
                self.toks[self.pos] = Tok::Num(rest.to_owned());
                return self.node(Node::Num(decimal(first)?));
            }
        }
        if matches!(self.peek(), Some(Tok::Num(_) | Tok::Ident(_))) {
            return self.primary();
        }
        self.power()
    }

    fn group(&mut self, open: char) -> Result<Node, Failure> {
        let closers = [Tok::Sym(')'), Tok::Sym(']'), Tok::Sym('}')];
        let mut items = self.items(&closers, true)?;
        if items.len() == 1 && (self.at_cmd("choose") || self.at_cmd("over")) {
            let top = items.remove(0);
            items.push(self.infix_fraction(top)?);
        }
        let close = match self.peek() {
            Some(Tok::Sym(c)) if closers.contains(&Tok::Sym(*c)) => *c,
            _ => return Err(Failure::Syntax(format!("unclosed {open}"))),
        };
        self.pos += 1;
        if open == '{' {
            if close != '}' {
                return Err(Failure::Syntax(format!("{{ closed by {close}")));
            }
            return match items.len() {
                1 => Ok(items.into_iter().next().unwrap_or(Node::List(Vec::new()))),
                0 => Err(Failure::Syntax("empty group".into())),
                _ => self.node(Node::List(items)),
            };
        }
        // `(x)` and `[x]` group; `(a, b]` and one-item `(a]` are brackets (intervals or tuples).
        if items.len() == 1 && matches!((open, close), ('(', ')') | ('[', ']')) {
            return Ok(items.into_iter().next().unwrap_or(Node::List(Vec::new())));
        }
        if items.is_empty() {
            return Err(Failure::Syntax("empty brackets".into()));
        }
        self.node(Node::Bracket(open, items, close))
    }

    fn primary(&mut self) -> Result<Node, Failure> {
        self.nested(Self::primary_inner)
    }

    fn primary_inner(&mut self) -> Result<Node, Failure> {
        let Some(tok) = self.peek().cloned() else {
            return Err(Failure::Syntax("unexpected end".into()));
        };
        self.pos += 1;
        match tok {
            // `204_5` (a number subscript) is a numeral in a base; `x^2_{i}` leaves the `_` to the base `x`.
            Tok::Num(n) if self.at(&Tok::Sym('_')) && self.base_subscript_follows() => {
                // `204_5`, a numeral in another base: compared as written.
                self.pos += 1;
                let base = match self.peek().cloned() {
                    Some(Tok::Num(b)) => {
                        self.pos += 1;
                        b
                    }
                    Some(Tok::Sym('{')) => match (self.toks.get(self.pos + 1).cloned(), self.toks.get(self.pos + 2)) {
                        (Some(Tok::Num(b)), Some(Tok::Sym('}'))) => {
                            self.pos += 3;
                            b
                        }
                        _ => return Err(Failure::Syntax("bad base subscript".into())),
                    },
                    _ => return Err(Failure::Syntax("bad base subscript".into())),
                };
                self.node(Node::Text(format!("{n}_{base}")))
            }
            Tok::Num(n) => {
                let v = decimal(&n)?;
                self.node(if n.contains(['.', 'e']) { Node::Decimal(v) } else { Node::Num(v) })
            }
            Tok::Ident(name) => self.ident(name),
            Tok::Word(w) => self.node(Node::Text(w)),
            Tok::Sym(c @ ('(' | '[' | '{')) => self.group(c),
            Tok::SetOpen => {
                let items = self.items(&[Tok::SetClose], true)?;
                self.expect(&Tok::SetClose)?;
                self.node(Node::Set(items))
            }
            Tok::Sym('|') => {
                let inner = self.sum()?;
                self.expect(&Tok::Sym('|'))?;
                self.node(Node::Func(Func::Abs, Box::new(inner)))
            }
            Tok::Begin(env) => self.matrix(env),
            Tok::Cmd(c) => self.command(&c),
            other => Err(Failure::Syntax(format!("unexpected {other:?}"))),
        }
    }

    /// At a `_`: is a number (`_5`, `_{16}`) its subscript?
    fn base_subscript_follows(&self) -> bool {
        matches!(
            (self.toks.get(self.pos + 1), self.toks.get(self.pos + 2), self.toks.get(self.pos + 3)),
            (Some(Tok::Num(_)), _, _) | (Some(Tok::Sym('{')), Some(Tok::Num(_)), Some(Tok::Sym('}')))
        )
    }

    fn ident(&mut self, name: String) -> Result<Node, Failure> {
        if CALLS.contains(&name.as_str()) {
            if let Some(call) = self.function_call(&name)? {
                return self.node(call);
            }
        }
        if self.at(&Tok::Sym('_')) {
            let sub = self.subscript()?;
            return self.node(Node::Var(format!("{name}_{sub}")));
        }
        match name.as_str() {
            "e" => self.node(Node::Const(Constant::E)),
            "i" => self.node(Node::Const(Constant::I)),
            _ => self.node(Node::Var(name)),
        }
    }

    /// `f(x)`, `g(0)`, `f^{-1}(3)`: a function of something, one opaque name written out from its tokens (so
    /// `f(0)` is not the product f·0, which would equal 0). `None` when no bracket follows.
    fn function_call(&mut self, name: &str) -> Result<Option<Node>, Failure> {
        let start = self.pos;
        if self.eat(&Tok::Sym('^')) {
            self.script()?;
        }
        // `f{\\left(x\\right)}` (SymPy's LaTeX) or `f(x)`.
        let braced_call = self.at(&Tok::Sym('{')) && self.toks.get(self.pos + 1) == Some(&Tok::Sym('('));
        if !(self.at(&Tok::Sym('(')) || braced_call) {
            self.pos = start;
            return Ok(None);
        }
        self.primary()?;
        // Brackets are not part of the name: `f(x)` and `f{\\left(x\\right)}` are one call.
        let written: Vec<String> = self.toks[start..self.pos]
            .iter()
            .filter(|t| !matches!(t, Tok::Sym('(' | ')' | '{' | '}')))
            .map(token_text)
            .collect();
        Ok(Some(Node::Var(format!("{name}({})", written.join("")))))
    }

    /// At a `_`: the subscript that names a variable (`x_1`, `x_{12}`, `a_n`, `h_\theta`), written out from
    /// its tokens without braces, so `x_0` and `x_{0}` are one name.
    fn subscript(&mut self) -> Result<String, Failure> {
        self.expect(&Tok::Sym('_'))?;
        let start = self.pos;
        match self.peek() {
            Some(Tok::Num(_) | Tok::Ident(_) | Tok::Cmd(_)) => self.pos += 1,
            Some(Tok::Sym('{')) => {
                self.primary()?;
            }
            _ => return Err(Failure::Syntax("bad subscript".into())),
        }
        let sub: Vec<String> =
            self.toks[start..self.pos].iter().filter(|t| !matches!(t, Tok::Sym('{' | '}'))).map(token_text).collect();
        Ok(sub.join(""))
    }

    fn matrix(&mut self, env: String) -> Result<Node, Failure> {
        let mut rows = vec![Vec::new()];
        loop {
            match self.peek() {
                None => return Err(Failure::Syntax(format!("unclosed {env}"))),
                Some(Tok::End(_)) => {
                    self.pos += 1;
                    break;
                }
                Some(Tok::RowSep) => {
                    self.pos += 1;
                    rows.push(Vec::new());
                }
                Some(Tok::ColSep) => self.pos += 1,
                _ => {
                    let cell = self.sum()?;
                    if let Some(row) = rows.last_mut() {
                        row.push(cell);
                    }
                }
            }
        }
        rows.retain(|r| !r.is_empty());
        if rows.is_empty() {
            return Err(Failure::Syntax("empty matrix".into()));
        }
        self.node(Node::Matrix(rows))
    }

    fn func_arg(&mut self) -> Result<Node, Failure> {
        // `\sin^2 x` is (sin x)^2: the caller applies the power after the argument.
        if self.at(&Tok::Sym('(')) || self.at(&Tok::Sym('{')) || self.at(&Tok::SetOpen) {
            return self.primary().map(grouping);
        }
        // `\sin 2x` is sin(2x): a product of factors, up to the next operator.
        let mut acc = self.power()?;
        while self.starts_factor() && !matches!(self.peek(), Some(Tok::Cmd(_))) {
            let f = self.power()?;
            acc = self.node(Node::Mul(vec![acc, f]))?;
        }
        Ok(acc)
    }

    fn command(&mut self, name: &str) -> Result<Node, Failure> {
        let func = func_named(name);
        if let Some(f) = func {
            let mut power = if self.eat(&Tok::Sym('^')) { Some(self.script()?) } else { None };
            // `\sin^{-1} x` is arcsin x, as a reader takes it (its reciprocal is written `(\sin x)^{-1}`).
            let f = match (power.as_ref().is_some_and(minus_one), inverse(f)) {
                (true, Some(g)) => {
                    power = None;
                    g
                }
                _ => f,
            };
            let arg = self.func_arg()?;
            let applied = self.node(Node::Func(f, Box::new(arg)))?;
            return match power {
                Some(p) => self.node(Node::Pow(Box::new(applied), Box::new(p))),
                None => Ok(applied),
            };
        }
        match name {
            "frac" | "over" => {
                let num = self.arg()?;
                let den = self.arg()?;
                self.node(Node::Div(Box::new(num), Box::new(den)))
            }
            "sqrt" => {
                let index = if self.eat(&Tok::Sym('[')) {
                    let i = self.sum()?;
                    self.expect(&Tok::Sym(']'))?;
                    i
                } else {
                    Node::Num(BigRational::from_integer(BigInt::from(2)))
                };
                let radicand = self.arg()?;
                self.node(Node::Root(Box::new(index), Box::new(radicand)))
            }
            "log" | "lg" => {
                let base = if self.eat(&Tok::Sym('_')) {
                    self.arg()?
                } else {
                    Node::Num(BigRational::from_integer(BigInt::from(10)))
                };
                let arg = self.func_arg()?;
                self.node(Node::Log(Box::new(base), Box::new(arg)))
            }
            "sum" | "prod" => self.big_operator(name == "prod"),
            "pi" => self.node(Node::Const(Constant::Pi)),
            "infty" | "infin" => self.node(Node::Const(Constant::Infinity)),
            "emptyset" | "varnothing" => self.node(Node::Set(Vec::new())),
            "binom" | "dbinom" | "tbinom" | "lfloor" | "lceil" => self.op_command(name),
            "floor" => self.call(Op::Floor),
            "ceil" => self.call(Op::Ceil),
            "sgn" | "sign" => self.call(Op::Sgn),
            "gcd" => self.call(Op::Gcd),
            "lcm" => self.call(Op::Lcm),
            "min" => self.call(Op::Min),
            "max" => self.call(Op::Max),
            "alpha" | "beta" | "gamma" | "delta" | "theta" | "lambda" | "mu" | "sigma" | "phi" | "omega" | "tau"
            | "rho" | "epsilon" | "varepsilon" | "varphi" | "psi" | "eta" | "kappa" | "nu" | "xi" | "zeta" | "chi" => {
                self.ident(name.to_owned())
            }
            _ => Err(Failure::Unsupported("LaTeX command")),
        }
    }
}

impl Parser {
    /// `{n \choose k}`, `{a \over b}` after `top`: TeX's infix forms take all of their group on each side.
    #[inline(never)]
    fn infix_fraction(&mut self, top: Node) -> Result<Node, Failure> {
        let binom = self.eat_cmd("choose");
        self.pos += usize::from(!binom);
        let bottom = self.sum()?;
        self.node(if binom {
            Node::Apply(Op::Binom, vec![top, bottom])
        } else {
            Node::Div(Box::new(top), Box::new(bottom))
        })
    }

    /// `\binom`, `\lfloor`, `\lceil` (apart from [`Self::command`] to keep its frame small).
    #[inline(never)]
    fn op_command(&mut self, name: &str) -> Result<Node, Failure> {
        match name {
            "binom" | "dbinom" | "tbinom" => {
                let n = self.arg()?;
                let k = self.arg()?;
                self.node(Node::Apply(Op::Binom, vec![n, k]))
            }
            "lfloor" | "lceil" => {
                let inner = self.sum()?;
                let (close, op) = if name == "lfloor" { ("rfloor", Op::Floor) } else { ("rceil", Op::Ceil) };
                if !self.eat_cmd(close) {
                    return Err(Failure::Syntax(format!("\\{name} without \\{close}")));
                }
                self.node(Node::Apply(op, vec![inner]))
            }
            _ => Err(Failure::Unsupported("LaTeX command")),
        }
    }

    /// `\gcd(12, 18)`, `\max\{a, b\}`, `\operatorname{floor}(x)`, `\sgn x`: `op` applied to its arguments
    /// (one for floor, ceiling and sign).
    #[inline(never)]
    fn call(&mut self, op: Op) -> Result<Node, Failure> {
        let args = match self.peek() {
            Some(Tok::Sym('(' | '{') | Tok::SetOpen) => match self.primary()? {
                Node::Bracket('(', xs, ')') | Node::Set(xs) | Node::List(xs) => xs,
                Node::Bracket(..) => return Err(Failure::Syntax("bad argument list".into())),
                x => vec![x],
            },
            _ => vec![self.func_arg()?],
        };
        let unary = matches!(op, Op::Floor | Op::Ceil | Op::Sgn);
        if args.is_empty() || unary && args.len() != 1 {
            return Err(Failure::Syntax("wrong number of arguments".into()));
        }
        self.node(Node::Apply(op, args))
    }
}

/// Is `n` the number -1 (`^{-1}`)?
fn minus_one(n: &Node) -> bool {
    matches!(n, Node::Neg(x) if matches!(x.as_ref(), Node::Num(q) if q.is_one()))
        || matches!(n, Node::Num(q) if *q == -BigRational::one())
}

/// The inverse of a trigonometric or hyperbolic function, which `f^{-1}` names.
fn inverse(f: Func) -> Option<Func> {
    Some(match f {
        Func::Sin => Func::Asin,
        Func::Cos => Func::Acos,
        Func::Tan => Func::Atan,
        Func::Cot => Func::Acot,
        Func::Sec => Func::Asec,
        Func::Csc => Func::Acsc,
        Func::Sinh => Func::Asinh,
        Func::Cosh => Func::Acosh,
        Func::Tanh => Func::Atanh,
        _ => return None,
    })
}

/// The function a command or word names (`\\sin`, `arcsinh`), if it is one of [`Func`].
#[inline(never)]
fn func_named(name: &str) -> Option<Func> {
    match name {
        "sin" => Some(Func::Sin),
        "cos" => Some(Func::Cos),
        "tan" => Some(Func::Tan),
        "cot" => Some(Func::Cot),
        "sec" => Some(Func::Sec),
        "csc" => Some(Func::Csc),
        "arcsin" => Some(Func::Asin),
        "arccos" => Some(Func::Acos),
        "arctan" => Some(Func::Atan),
        "sinh" => Some(Func::Sinh),
        "cosh" => Some(Func::Cosh),
        "tanh" => Some(Func::Tanh),
        "ln" => Some(Func::Ln),
        "exp" => Some(Func::Exp),
        // Inverse and reciprocal functions by each of their usual names (plain words included).
        "asin" => Some(Func::Asin),
        "acos" => Some(Func::Acos),
        "atan" => Some(Func::Atan),
        "cosec" => Some(Func::Csc),
        "arcsinh" | "arsinh" | "asinh" => Some(Func::Asinh),
        "arccosh" | "arcosh" | "acosh" => Some(Func::Acosh),
        "arctanh" | "artanh" | "atanh" => Some(Func::Atanh),
        "sech" => Some(Func::Sech),
        "csch" | "cosech" => Some(Func::Csch),
        "coth" => Some(Func::Coth),
        "arccot" | "acot" => Some(Func::Acot),
        "arcsec" | "asec" => Some(Func::Asec),
        "arccsc" | "acsc" => Some(Func::Acsc),
        _ => None,
    }
}

/// Variables only (`x`, `AB`, `x_1`): the side of `x \approx 11` that names the value.
fn names_only(n: &Node) -> bool {
    match n {
        Node::Var(_) => true,
        Node::Mul(xs) => xs.iter().all(names_only),
        _ => false,
    }
}

impl Parser {
    /// `\sum_{k=lo}^{hi} body`: the body is the product that follows (up to the next `+`/`-`).
    fn big_operator(&mut self, product: bool) -> Result<Node, Failure> {
        if !self.eat(&Tok::Sym('_')) {
            return Err(Failure::Unsupported("a sum without bounds"));
        }
        let (index, lo) = match self.arg()? {
            Node::Relation(mut sides, ops) if ops.as_slice() == [Rel::Eq] && sides.len() == 2 => {
                let lo = sides.pop().unwrap_or(Node::List(Vec::new()));
                match sides.pop() {
                    Some(Node::Var(v)) => (v, lo),
                    _ => return Err(Failure::Unsupported("a sum over something other than a variable")),
                }
            }
            _ => return Err(Failure::Unsupported("a sum without a starting index")),
        };
        if !self.eat(&Tok::Sym('^')) {
            return Err(Failure::Unsupported("a sum without an upper bound"));
        }
        let hi = self.script()?;
        let before = self.nodes;
        let body = self.nested(Self::term)?;
        self.bigs += 1;
        if self.bigs > MAX_BIGS || self.nodes - before > MAX_BIG_BODY_NODES {
            return Err(Failure::TooLarge("sums too many or too large"));
        }
        if contains_big(&body) || contains_big(&lo) || contains_big(&hi) {
            return Err(Failure::Unsupported("nested sums"));
        }
        self.node(Node::Big { product, index, bounds: Box::new((lo, hi)), body: Box::new(body) })
    }
}

/// Does `n` hold a `\sum`/`\prod`? (Sums are not nested, which bounds the work of computing them.)
fn contains_big(n: &Node) -> bool {
    any_node(n, &|x| matches!(x, Node::Big { .. }))
}

/// Does `n` or a node inside it satisfy `pred`?
pub fn any_node(n: &Node, pred: &dyn Fn(&Node) -> bool) -> bool {
    if pred(n) {
        return true;
    }
    match n {
        Node::Neg(x) | Node::Func(_, x) | Node::Factorial(x) | Node::Percent(x) => any_node(x, pred),
        Node::Div(a, b)
        | Node::Pow(a, b)
        | Node::Root(a, b)
        | Node::Log(a, b)
        | Node::PlusMinus(a, b)
        | Node::SetOp(_, a, b) => any_node(a, pred) || any_node(b, pred),
        Node::Add(xs) | Node::Mul(xs) | Node::Set(xs) | Node::List(xs) | Node::Union(xs) | Node::Bracket(_, xs, _) => {
            xs.iter().any(|x| any_node(x, pred))
        }
        Node::Relation(xs, _) | Node::Apply(_, xs) => xs.iter().any(|x| any_node(x, pred)),
        Node::Matrix(rows) => rows.iter().flatten().any(|x| any_node(x, pred)),
        Node::Big { bounds, body, .. } => {
            any_node(&bounds.0, pred) || any_node(&bounds.1, pred) || any_node(body, pred)
        }
        Node::Num(_) | Node::Decimal(_) | Node::Const(_) | Node::Var(_) | Node::Text(_) => false,
    }
}

fn is_integer_literal(n: &Node) -> bool {
    matches!(n, Node::Num(q) if q.is_integer())
}

/// What a percent sign applies to (`n` itself when it has none).
fn percent_of(n: &Node) -> &Node {
    match n {
        Node::Percent(x) => x,
        x => x,
    }
}

/// An integer literal or its negation: the whole part of a mixed number.
fn is_whole_number(n: &Node) -> bool {
    match n {
        Node::Neg(w) => is_integer_literal(w),
        w => is_integer_literal(w),
    }
}

/// An integer (or its negation) followed by a `\frac` of two integers.
fn is_mixed_number(whole: &Node, frac: &Node) -> bool {
    is_whole_number(whole) && matches!(frac, Node::Div(a, b) if is_integer_literal(a) && is_integer_literal(b))
}

/// Names read as functions when a bracket follows (`f(x)`), not as factors (`p(1-p)` stays a product).
const CALLS: &[&str] = &["f", "g", "h", "F", "G", "H"];

/// A token as written in a name (`x_{12}`, `f(x)`).
fn token_text(t: &Tok) -> String {
    match t {
        Tok::Num(s) | Tok::Ident(s) | Tok::Cmd(s) => s.clone(),
        Tok::Sym(c) => c.to_string(),
        other => format!("{other:?}"),
    }
}

/// A one-element `\\{x\\}` inside arithmetic is a pair of braces used as brackets (`\\left\\{1+2\\right\\}
/// \\left\\{3-4\\right\\}` is -3, `\\sin\\{x\\}` is sin x): a set has no product or sum.
fn grouping(n: Node) -> Node {
    match n {
        Node::Set(mut xs) if xs.len() == 1 => xs.pop().unwrap_or(Node::List(Vec::new())),
        other => other,
    }
}

fn product(mut factors: Vec<Node>) -> Node {
    if factors.len() == 1 {
        factors.pop().unwrap_or(Node::List(Vec::new()))
    } else {
        Node::Mul(factors)
    }
}

fn sum_of(mut terms: Vec<Node>) -> Node {
    if terms.len() == 1 {
        terms.pop().unwrap_or(Node::List(Vec::new()))
    } else {
        Node::Add(terms)
    }
}

/// The number of nodes of `n`, counting up to `cap` (and returning `cap` beyond).
pub fn size(n: &Node, cap: usize) -> usize {
    fn walk(n: &Node, left: &mut usize) {
        if *left == 0 {
            return;
        }
        *left -= 1;
        match n {
            Node::Neg(x) | Node::Func(_, x) | Node::Factorial(x) | Node::Percent(x) => walk(x, left),
            Node::Div(a, b)
            | Node::Pow(a, b)
            | Node::Root(a, b)
            | Node::Log(a, b)
            | Node::PlusMinus(a, b)
            | Node::SetOp(_, a, b) => {
                walk(a, left);
                walk(b, left);
            }
            Node::Add(xs)
            | Node::Mul(xs)
            | Node::Set(xs)
            | Node::List(xs)
            | Node::Union(xs)
            | Node::Bracket(_, xs, _) => xs.iter().for_each(|x| walk(x, left)),
            Node::Relation(xs, _) | Node::Apply(_, xs) => xs.iter().for_each(|x| walk(x, left)),
            Node::Matrix(rows) => rows.iter().flatten().for_each(|x| walk(x, left)),
            Node::Big { bounds, body, .. } => {
                walk(&bounds.0, left);
                walk(&bounds.1, left);
                walk(body, left);
            }
            Node::Num(_) | Node::Decimal(_) | Node::Const(_) | Node::Var(_) | Node::Text(_) => {}
        }
    }
    let mut left = cap;
    walk(n, &mut left);
    cap - left
}

/// `n` with each direct child replaced by `f(child)` (the first error stops it); a leaf is returned as is.
pub fn try_map_children(n: Node, f: &mut dyn FnMut(Node) -> Result<Node, Failure>) -> Result<Node, Failure> {
    let all = |xs: Vec<Node>, f: &mut dyn FnMut(Node) -> Result<Node, Failure>| -> Result<Vec<Node>, Failure> {
        xs.into_iter().map(f).collect()
    };
    let one = |x: Box<Node>, f: &mut dyn FnMut(Node) -> Result<Node, Failure>| f(*x).map(Box::new);
    Ok(match n {
        Node::Add(xs) => Node::Add(all(xs, f)?),
        Node::Mul(xs) => Node::Mul(all(xs, f)?),
        Node::Set(xs) => Node::Set(all(xs, f)?),
        Node::List(xs) => Node::List(all(xs, f)?),
        Node::Union(xs) => Node::Union(all(xs, f)?),
        Node::Apply(op, xs) => Node::Apply(op, all(xs, f)?),
        Node::Bracket(l, xs, r) => Node::Bracket(l, all(xs, f)?, r),
        Node::Matrix(rows) => Node::Matrix(rows.into_iter().map(|r| all(r, f)).collect::<Result<_, _>>()?),
        Node::Relation(xs, rels) => Node::Relation(all(xs, f)?, rels),
        Node::Neg(x) => Node::Neg(one(x, f)?),
        Node::Func(g, x) => Node::Func(g, one(x, f)?),
        Node::Factorial(x) => Node::Factorial(one(x, f)?),
        Node::Percent(x) => Node::Percent(one(x, f)?),
        Node::Div(a, b) => Node::Div(one(a, f)?, one(b, f)?),
        Node::Pow(a, b) => Node::Pow(one(a, f)?, one(b, f)?),
        Node::Root(a, b) => Node::Root(one(a, f)?, one(b, f)?),
        Node::Log(a, b) => Node::Log(one(a, f)?, one(b, f)?),
        Node::PlusMinus(a, b) => Node::PlusMinus(one(a, f)?, one(b, f)?),
        Node::SetOp(op, a, b) => Node::SetOp(op, one(a, f)?, one(b, f)?),
        Node::Big { product, index, bounds, body } => {
            let (lo, hi) = *bounds;
            Node::Big { product, index, bounds: Box::new((f(lo)?, f(hi)?)), body: one(body, f)? }
        }
        leaf @ (Node::Num(_) | Node::Decimal(_) | Node::Const(_) | Node::Var(_) | Node::Text(_)) => leaf,
    })
}

/// `n` with each variable for which `value` gives a node replaced by it (a `\\sum`'s index is bound).
pub fn substitute(n: &Node, value: &dyn Fn(&str) -> Option<Node>) -> Node {
    let sub = |x: &Node| substitute(x, value);
    let boxed = |x: &Node| Box::new(sub(x));
    match n {
        Node::Var(name) => value(name).unwrap_or_else(|| n.clone()),
        Node::Add(xs) => Node::Add(xs.iter().map(sub).collect()),
        Node::Mul(xs) => Node::Mul(xs.iter().map(sub).collect()),
        Node::Neg(x) => Node::Neg(boxed(x)),
        Node::Div(a, b) => Node::Div(boxed(a), boxed(b)),
        Node::Pow(a, b) => Node::Pow(boxed(a), boxed(b)),
        Node::Root(a, b) => Node::Root(boxed(a), boxed(b)),
        Node::Func(f, x) => Node::Func(*f, boxed(x)),
        Node::Apply(op, xs) => Node::Apply(*op, xs.iter().map(sub).collect()),
        Node::Log(a, b) => Node::Log(boxed(a), boxed(b)),
        Node::Factorial(x) => Node::Factorial(boxed(x)),
        Node::Percent(x) => Node::Percent(boxed(x)),
        Node::Big { product, index, bounds, body } => Node::Big {
            product: *product,
            index: index.clone(),
            bounds: Box::new((sub(&bounds.0), sub(&bounds.1))),
            body: Box::new(substitute(body, &|name| if name == index { None } else { value(name) })),
        },
        other => other.clone(),
    }
}

/// An exact integer as a node (used by the tests and the comparison).
pub fn int(n: i64) -> Node {
    Node::Num(BigRational::from_integer(BigInt::from(n)))
}

/// True for the rational 1.
pub fn is_one(n: &Node) -> bool {
    matches!(n, Node::Num(r) if r.is_one())
}

/// True for the rational 0.
pub fn is_zero(n: &Node) -> bool {
    matches!(n, Node::Num(r) if r.is_zero())
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn p(s: &str) -> Node {
        parse(lex(s).unwrap()).unwrap()
    }

    #[test]
    fn shapes() {
        assert!(matches!(p("\\frac12"), Node::Div(..)));
        assert!(matches!(p("(1,2]"), Node::Bracket('(', ref v, ']') if v.len() == 2));
        assert!(matches!(p("\\{1,2\\}"), Node::Set(ref v) if v.len() == 2));
        assert!(matches!(p("x=3"), Node::Relation(..)));
        assert!(matches!(p("1, 2"), Node::List(..)));
        assert!(matches!(p("\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}"), Node::Matrix(ref r) if r.len() == 2));
        assert!(matches!(p("3\\sqrt{3}"), Node::Mul(..)));
        assert!(matches!(p("(-\\infty, 3) \\cup (4, 5]"), Node::Union(..)));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = format!("{}1{}", "(".repeat(600), ")".repeat(600));
        assert!(matches!(parse(lex(&deep).unwrap()), Err(Failure::TooLarge(_))));
    }
}
