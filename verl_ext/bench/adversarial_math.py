"""Pathological inputs for the math verifier: ``(solution, ground_truth)`` pairs of at most 10 KB each, in
named families, for ``verl-ext bench math-verify --adversarial``.

The goal they test: every ``verify``/``math_equal`` call on inputs of at most 10 KB finishes in 10 ms on one
core, whatever the input. Each family stresses one way to make a verifier work hard: huge exact values
(powers of sums of radicals, towers, factorials, 400-digit literals), order-free matching of long sets and
lists, parser depth, extraction over long prose, unbalanced brackets, blow-ups (``\\pm`` chains), many
variables at high powers, functions of huge arguments.

The generator is deterministic: each family has its own :class:`random.Random`, seeded by the run's seed and
the family's name, so adding or changing a family does not change the others. To add a family, write a
builder ``(rng) -> list[(solution, ground_truth)]`` and add ``(name, builder)`` to :data:`FAMILIES`; keep both
sides within :data:`MAX_BYTES` (:func:`generate` refuses a pair that is not). Most pairs are bare answers
(what ``math_equal`` compares and ``verify`` reads as a whole text); the prose families are whole solutions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FAMILIES", "MAX_BYTES", "AdversarialPair", "generate", "respell"]

#: Largest input, in UTF-8 bytes, on either side of a pair (the issue's "inputs <= 10 KB").
MAX_BYTES = 10240

Builder = Callable[[random.Random], list[tuple[str, str]]]

_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97)
#: Radicands that are not square-free (simplified before exact arithmetic: sqrt(8) = 2 sqrt(2)).
_UNREDUCED = (8, 12, 18, 20, 27, 45, 50, 72, 98, 200)


@dataclass(frozen=True)
class AdversarialPair:
    family: str
    #: Position in the family (with the seed, enough to find the pair again).
    index: int
    solution: str
    ground_truth: str


def _b(x: object) -> str:
    """``x`` in braces (LaTeX group)."""
    return "{" + str(x) + "}"


def _sqrt(n: int, short: bool = True) -> str:
    return f"\\sqrt{n}" if short and n < 10 else "\\sqrt" + _b(n)


def _radical_sum(radicands: list[int], short: bool = True) -> str:
    return "+".join(_sqrt(n, short) for n in radicands)


def _pow(base: str, exp: object) -> str:
    return f"({base})^" + _b(exp)


def _shuffled(rng: random.Random, items: list[str]) -> list[str]:
    out = list(items)
    rng.shuffle(out)
    return out


def _fill(make: Callable[[int], str], budget: int, sep: str = "") -> list[str]:
    """``make(0)``, ``make(1)``, ... as long as their join with ``sep`` stays within ``budget`` bytes."""
    out: list[str] = []
    size = 0
    while True:
        item = make(len(out))
        extra = len(item.encode()) + (len(sep) if out else 0)
        if size + extra > budget:
            return out
        out.append(item)
        size += extra


def _digits(rng: random.Random, n: int) -> str:
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))


# --- families ------------------------------------------------------------------------------------------------


def _radical_powers(rng: random.Random) -> list[tuple[str, str]]:
    """``(\\sqrt2+\\sqrt3+\\sqrt5+\\sqrt7)^{2000}`` and kin: reordered (equal), exponent + 1, one radicand changed."""
    out = []
    shapes = [(4, 2000), (4, 1999), (3, 5000), (5, 1000), (6, 997), (8, 400), (2, 10000), (12, 150), (4, 8191)]
    for i, (k, exp) in enumerate(shapes):
        rads = rng.sample(_PRIMES[:14], k)
        a = _pow(_radical_sum(rads), exp)
        other = _shuffled(rng, [_sqrt(n, short=False) for n in rads])
        if i % 3 == 1:
            b = _pow("+".join(other), exp + 1)
        elif i % 3 == 2:
            other[-1] = _sqrt(rng.choice([n for n in _PRIMES[:16] if n not in rads]), short=False)
            b = _pow("+".join(other), exp)
        else:
            b = _pow("+".join(other), exp)
        out.append((a, b))
    # Unreduced radicands and coefficients: like terms merge (sqrt8 + sqrt2 = 3 sqrt2).
    rads = rng.sample(_UNREDUCED, 5)
    out.append((_pow(_radical_sum(rads, short=False), 1500),
                _pow("+".join(_shuffled(rng, [_sqrt(n, short=False) for n in rads])), 1500)))
    out.append((_pow("3\\sqrt2-2\\sqrt3+\\frac{1}{2}\\sqrt5-\\frac{7}{3}\\sqrt7", 1200),
                _pow("-\\frac{7}{3}\\sqrt7+\\frac{1}{2}\\sqrt5-2\\sqrt3+3\\sqrt2", 1200)))
    return out


def _frac(a: object, b: object) -> str:
    return "\\frac" + _b(a) + _b(b)


def _rational_powers(rng: random.Random) -> list[tuple[str, str]]:
    """Rational and decimal bases to large powers (huge numerators and denominators), alone, in sums, with
    radicals and in sets."""
    out = []
    for digits, exp in ((9, 10000), (18, 10000), (9, 5000), (40, 2000), (400, 40)):
        a, b = _digits(rng, digits), _digits(rng, digits)
        out.append((_pow(_frac(a, b), exp), _pow(_frac(a, b), exp - 1) + "\\cdot" + _frac(a, b)))
    out.append(("(1.000000001)^{10000}", "(1.000000001)^{9999}\\cdot1.000000001"))
    out.append(("(1." + "0" * 27 + "1)^{10000}", "(1." + "0" * 27 + "1)^{5000}(1." + "0" * 27 + "1)^{5000}"))
    out.append(("(0.1+0.2)^{10000}", "0.3^{10000}"))
    out.append(("(" + _frac(10**9 + 7, 10**9 + 9) + "+" + _frac(10**9 + 21, 10**9 + 33) + ")^{3000}",
                "(" + _frac(10**9 + 21, 10**9 + 33) + "+" + _frac(10**9 + 7, 10**9 + 9) + ")^{3000}"))
    for k, exp in ((2, 1000), (3, 600)):
        terms = [_frac(_digits(rng, 9), _digits(rng, 9)) + _sqrt(p, False) for p in _PRIMES[:k]]
        out.append((_pow("+".join(terms), exp), _pow("+".join(terms[::-1]), exp)))
    decimals = [f"{rng.randint(1, 9)}.{_digits(rng, 8)}" + _sqrt(p, False) for p in (2, 3)]
    out.append((_pow("+".join(decimals), 1000), _pow("+".join(decimals[::-1]), 1000)))
    terms = [_pow(_frac(_digits(rng, 6), _digits(rng, 6)), rng.randint(500, 1500)) for _ in range(20)]
    out.append(("+".join(terms), "+".join(_shuffled(rng, terms))))
    items = [_pow(_frac(_digits(rng, 9), _digits(rng, 9)), rng.randint(2000, 5000)) for _ in range(64)]
    out.append(("\\{" + ",".join(items) + "\\}", "\\{" + ",".join(_shuffled(rng, items)) + "\\}"))
    out.append(("\\frac{2^{10000}+1}{2^{10000}-1}", "1+\\frac{2}{2^{10000}-1}"))
    return out


def _nested_radical_powers(rng: random.Random) -> list[tuple[str, str]]:
    """Powers of powers, products that cancel, roots of powers, nested radicals, differences below 2^-8192."""
    e = rng.choice([1000, 2000, 3000])
    return [
        (_pow(_pow("\\sqrt2+\\sqrt3", 50), 40), _pow("\\sqrt2+\\sqrt3", 2000)),
        (_pow("\\sqrt2+\\sqrt3", e) + _pow("\\sqrt3-\\sqrt2", e), "1"),
        ("\\frac{1}" + _b(_pow("\\sqrt2+\\sqrt3+\\sqrt5", 1000)), _pow("\\sqrt2+\\sqrt3+\\sqrt5", -1000)),
        ("\\sqrt" + _b(_pow("\\sqrt2+\\sqrt3", 2000)), _pow("\\sqrt2+\\sqrt3", 1000)),
        (_pow("\\sqrt{2+\\sqrt3}+\\sqrt{5-\\sqrt7}", 1000), _pow("\\sqrt{5-\\sqrt7}+\\sqrt{2+\\sqrt3}", 1000)),
        (_pow(_pow("\\sqrt2+\\sqrt3", 100) + "+" + _pow("\\sqrt5+\\sqrt7", 100), 20),
         _pow(_pow("\\sqrt7+\\sqrt5", 100) + "+" + _pow("\\sqrt3+\\sqrt2", 100), 20)),
        # (1-sqrt2)^10000 is about 10^-3828: below any 8192-bit precision, so only exact arithmetic tells.
        (_pow("1+\\sqrt2", 10000) + "+" + _pow("1-\\sqrt2", 10000), _pow("1+\\sqrt2", 10000)),
        (_pow("\\sqrt2+\\sqrt3", 2000) + "-" + _pow("\\sqrt2-\\sqrt3", 2000),
         _pow("\\sqrt3+\\sqrt2", 2000) + "-" + _pow("\\sqrt3-\\sqrt2", 2000)),
        (_pow("\\sqrt2+\\sqrt3", _pow("\\sqrt2+\\sqrt3", 4)), _pow("\\sqrt3+\\sqrt2", _pow("\\sqrt3+\\sqrt2", 4))),
        (_pow("\\sqrt[3]2+\\sqrt[5]3+\\sqrt[7]5", 1000), _pow("\\sqrt[7]5+\\sqrt[5]3+\\sqrt[3]2", 1000)),
        (_pow("\\sqrt2+i\\sqrt3+\\sqrt5", 1000), _pow("\\sqrt5+i\\sqrt3+\\sqrt2", 1000)),
        ("\\frac" + _b(_pow("\\sqrt2+\\sqrt3", 1000)) + _b(_pow("\\sqrt5+\\sqrt7", 1000)),
         "\\frac" + _b(_pow("\\sqrt3+\\sqrt2", 1000)) + _b(_pow("\\sqrt7+\\sqrt5", 1000))),
    ]


def _radical_power_collections(rng: random.Random) -> list[tuple[str, str]]:
    """Sets, bare lists and tuples of 64+ radical powers on both sides, in different orders (pairwise matching)."""
    def item(i: int, exps: list[int]) -> str:
        return _pow("\\sqrt2+\\sqrt3+\\sqrt5+\\sqrt7", exps[i % len(exps)])

    out = []
    for n in (64, 100, 260):
        exps = rng.sample(range(500, 3000), n)
        items = [item(i, exps) for i in range(n)]
        while len(("\\{" + ",".join(items) + "\\}").encode()) > MAX_BYTES - 8:
            items.pop()
        shuffled = _shuffled(rng, items)
        out.append(("\\{" + ",".join(items) + "\\}", "\\{" + ",".join(shuffled) + "\\}"))
        out.append((", ".join(items), ", ".join(shuffled)))
        changed = [*items[:-1], item(0, [exps[-1] + 1])]
        out.append(("(" + ",".join(items) + ")", "(" + ",".join(changed) + ")"))
    # Every item equal in value, spelled differently: the first match each time, or every pair tried.
    same = [_pow("+".join(_shuffled(rng, ["\\sqrt2", "\\sqrt3", "\\sqrt5", "\\sqrt7"])), 1777) for _ in range(80)]
    out.append(("\\{" + ",".join(same) + "\\}", "\\{" + ",".join(same[::-1]) + "\\}"))
    # Near-misses: every exponent off by one, so no item matches and each is compared with all.
    exps = rng.sample(range(500, 3000), 70)
    out.append(("\\{" + ",".join(item(i, exps) for i in range(70)) + "\\}",
                "\\{" + ",".join(item(0, [x + 1]) for x in exps[::-1]) + "\\}"))
    return out


def _radical_sums(rng: random.Random) -> list[tuple[str, str]]:
    """Long sums and products of radicals and fractions (telescoping, harmonic, more than 64 radicals)."""
    out = []
    for budget in (2000, 4000, MAX_BYTES):
        terms = _fill(lambda k: "\\frac{1}" + _b(_sqrt(k + 1, False) + "+" + _sqrt(k + 2, False)), budget, "+")
        out.append(("+".join(terms), _sqrt(len(terms) + 1, False) + "-1"))
    terms = _fill(lambda k: _sqrt(k + 2, False), 4000, "+")
    out.append(("+".join(terms), "+".join(_shuffled(rng, terms))))
    terms = _fill(lambda k: "\\frac{1}" + _b(f"{k + 1}\\cdot{k + 2}"), 4000, "+")
    out.append(("+".join(terms), "\\frac" + _b(len(terms)) + _b(len(terms) + 1)))
    terms = _fill(lambda k: "\\frac{1}" + _b(k + 1), 4000, "+")
    out.append(("+".join(terms), "+".join(_shuffled(rng, terms))))
    terms = _fill(lambda k: _sqrt(k + 2, False), 4000, "\\cdot")
    out.append(("\\cdot".join(terms), "\\sqrt" + _b(f"{len(terms) + 1}!")))
    terms = _fill(lambda k: "\\frac" + _b(k + 2) + _b(k + 1), 4000, "\\cdot")
    out.append(("\\cdot".join(terms), str(len(terms) + 1)))
    # Denominators of 2 to 4 radicals to rationalise, summed.
    for width, count in ((2, 60), (3, 8), (4, 5), (10, 1)):
        groups = [_PRIMES[(i * width) % 20:(i * width) % 20 + width] for i in range(count)]
        groups = [g for g in groups if len(g) == width]
        terms = ["\\frac{1}" + _b(_radical_sum(list(g), short=False)) for g in groups]
        out.append(("+".join(terms), "+".join("\\frac{1}" + _b(_radical_sum(list(g[::-1]), short=False))
                                              for g in groups[::-1])))
    terms = _fill(lambda k: "\\frac" + _b(rng.randint(1, 10**6)) + _b(rng.randint(1, 10**6)) + _sqrt(rng.choice(
        _PRIMES), False), 4000, "+")
    out.append(("+".join(terms), "+".join(_shuffled(rng, terms))))
    return out


def _towers(rng: random.Random) -> list[tuple[str, str]]:
    """Power towers and huge exponents, equal and off by a little."""
    return [
        ("10^{10^{10}}", "10^{10^{10}}+1"),
        ("10^{10^{10}}", "100^{5\\cdot10^{9}}"),
        ("2^{2^{2^{49}}}", "4^{2^{2^{49}-1}}"),
        ("2^{2^{2^{49}}}", "2^{2^{2^{49}}}-1"),
        ("9^{9^{9^{9}}}", "3^{2\\cdot9^{9^{9}}}"),
        ("(10^{10^{10}})^{10^{10}}", "10^{10^{20}}"),
        ("10^{-10^{10}}", "0"),
        ("e^{10^{10}}", "e^{10^{10}}+1"),
        ("2^{" + "2^{" * 29 + "2" + "}" * 29 + "}", "4^{" + "2^{" * 28 + "2" + "}" * 28 + "-1}"),
        ("(1+10^{-400})^{10^{400}}", "e"),
        (f"{_digits(rng, 400)}^{{{_digits(rng, 400)}}}", f"{_digits(rng, 400)}^{{{_digits(rng, 400)}}}"),
        ("2^{10000}-2^{9999}", "2^{9999}"),
        ("x^{10^{10}}", "x^{10^{10}+1}"),
    ]


def _factorials(rng: random.Random) -> list[tuple[str, str]]:
    """Factorials and binomials of huge arguments, repeated ``!``."""
    return [
        ("1000!", "999!\\cdot1000"),
        ("\\frac{1000!}{998!}", "999000"),
        ("(10^9)!", "(10^9)!+1"),
        ("1000!^{1000}", "(1000!)^{1000}"),
        ("\\binom{10^9}{5*10^8}", "\\binom{10^9}{5\\cdot10^8}+1"),
        ("\\binom{2000}{1000}", "\\frac{2000!}{(1000!)^2}"),
        ("3!!!", "720!"),
        ("((3!)!)!", "(720)!"),
        ("\\binom{10^{10^{10}}}{2}", "\\frac{10^{10^{10}}(10^{10^{10}}-1)}{2}"),
        ("\\Gamma(1001)", "1000!"),
        ("+".join(f"{k}!" for k in range(900, 1000)), "+".join(f"{k}!" for k in range(999, 899, -1))),
    ]


def _big_literals(rng: random.Random) -> list[tuple[str, str]]:
    """400-digit literals multiplied, added, divided, raised; over-long literals."""
    out = []
    for op, n in (("\\cdot", 10), ("\\times", 24), ("*", 5)):
        nums = [_digits(rng, 400) for _ in range(n)]
        while len(op.join(nums)) > MAX_BYTES:
            nums.pop()
        out.append((op.join(nums), op.join(nums[::-1])))
    a, b = _digits(rng, 400), _digits(rng, 400)
    out.append((f"{a}+{b}", str(int(a) + int(b))))
    out.append((f"\\frac{{{a}}}{{{b}}}", f"\\frac{{{int(a) * 7}}}{{{int(b) * 7}}}"))
    out.append((f"0.{a}", f"\\frac{{{a}}}{{1{'0' * 400}}}"))
    out.append((f"{a}^{{1000}}", f"{a}^{{999}}\\cdot{a}"))
    out.append((_digits(rng, 401), _digits(rng, 401)))
    long_literal = _digits(rng, MAX_BYTES)
    out.append((long_literal, long_literal[:-1] + "0"))
    out.append(("1.5e100000000", "1.5\\times10^{100000000}"))
    out.append((f"{a}.{b}e-9999", f"{a}.{b}\\times10^{{-9999}}"))
    return out


_NESTINGS: tuple[tuple[str, str, str], ...] = (
    ("(", "1", ")"), ("\\left(", "1", "\\right)"), ("{", "1", "}"), ("[", "1", "]"), ("\\sqrt{", "2", "}"),
    ("\\frac{1}{1+", "1", "}"), ("|", "-1", "|"), ("\\boxed{", "1", "}"), ("-(", "1", ")"), ("2^{", "1", "}"),
    ("\\sin(", "1", ")"),
)


def _deep_nesting(rng: random.Random) -> list[tuple[str, str]]:
    """Brackets, fractions, radicals, boxes, absolute values, exponents nested to and past the parser's limits."""
    out = []
    for open_, core, close in _NESTINGS:
        for depth in (29, 31, 2000):
            n = min(depth, (MAX_BYTES - len(core) - 8) // (len(open_) + len(close)))
            a = open_ * n + core + close * n
            b = open_ * n + core + ("+0" if open_ != "|" else "") + close * n
            out.append((a, b))
    for depth in (29, 200):  # a random mix of all of them
        chosen = [rng.choice(_NESTINGS) for _ in range(depth)]
        opens, closes = "".join(o for o, _, _ in chosen), "".join(c for _, _, c in chosen[::-1])
        out.append((opens + "1" + closes, opens + "1+0" + closes))
    return out


def _polynomials(rng: random.Random) -> list[tuple[str, str]]:
    """Many variables at high powers (evaluated at points: huge exact rationals), products of many factors."""
    out = [
        ("(x+y+z+w)^{500}", "(w+z+y+x)^{500}"),
        ("(x+1)^{10000}", "(1+x)^{10000}"),
        ("(x+1)^{10000}", "(x+1)^{9999}(x+1)+0"),
        ("(a+b)^{1000}-(a-b)^{1000}", "-(a-b)^{1000}+(b+a)^{1000}"),
        ("x^{10^{10}}", "x^{10^{10}}\\cdot1"),
        ("x^{100000}y^{100000}", "(xy)^{100000}"),
    ]
    names = [f"x_{{{i}}}" for i in range(1, 41)]
    out.append((_pow("+".join(names), 300), _pow("+".join(_shuffled(rng, names)), 300)))
    factors = _fill(lambda k: f"(x+{k + 1})", 4000)
    out.append(("".join(factors), "".join(factors[::-1])))
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1) if chr(c) not in "eio"]
    monomial = "".join(f"{v}^{{{rng.randint(300, 999)}}}" for v in letters)
    out.append((monomial, "".join(_shuffled(rng, re.findall(r"[a-z]\^\{\d+\}", monomial)))))
    terms = _fill(lambda k: f"{rng.randint(1, 10**9)}{rng.choice(letters)}^{{{rng.randint(100, 999)}}}", 4000, "+")
    out.append(("+".join(terms), "+".join(_shuffled(rng, terms))))
    return out


def _huge_arguments(rng: random.Random) -> list[tuple[str, str]]:
    """Trigonometric, exponential and logarithmic functions of huge or deeply nested arguments."""
    big = "10^{400}"
    nested = "\\sin(" * 30 + big + ")" * 30
    return [
        (f"\\sin({big})", f"\\sin({big}+2\\pi)"),
        ("\\sin(10^{10^{10}})", "\\sin(10^{10^{10}})+0"),
        ("\\cos(2^{8000})", "\\cos(-2^{8000})"),
        ("\\tan(10^{100}\\pi)", "0"),
        (f"\\sin^2({big})+\\cos^2({big})", "1"),
        (nested, nested.replace("\\sin(", "\\sin\\left(", 1).replace(")", "\\right)", 1)),
        ("\\sin(x^{1000})", "\\sin(x^{1000}+2\\pi)"),
        ("\\sin((\\sqrt2+\\sqrt3)^{2000})", "\\sin((\\sqrt3+\\sqrt2)^{2000})"),
        ("e^{\\pi\\sqrt{163}}", "262537412640768744"),
        ("\\ln(10^{10^{10}})", "10^{10}\\ln10"),
        ("\\log_2(2^{10^{10}})", "10^{10}"),
        ("\\ln" * 30 + "(10^{10^{10}})", "\\log" * 30 + "(10^{10^{10}})"),
        ("(1+i)^{10000}", "2^{5000}"),
        ("e^{i\\pi10^{10}}", "1"),
        ("(\\sqrt2+i\\sqrt3)^{2000}", "(i\\sqrt3+\\sqrt2)^{2000}"),
        ("\\arctan(10^{400})", "\\frac{\\pi}{2}"),
    ]


def _sums_and_products(rng: random.Random) -> list[tuple[str, str]]:
    """``\\sum``/``\\prod`` with huge bounds, series, integrals."""
    return [
        ("\\sum_{k=1}^{10^9}k", "\\frac{10^9(10^9+1)}{2}"),
        ("\\prod_{k=1}^{10^{10}}k", "(10^{10})!"),
        ("\\sum_{n=1}^{\\infty}\\frac{1}{n^2}", "\\frac{\\pi^2}{6}"),
        ("\\sum_{k=0}^{10^{10^{10}}}2^k", "2^{10^{10^{10}}+1}-1"),
        ("\\prod_{k=1}^{1000}\\left(1+\\frac1k\\right)", "1001"),
        ("\\int_0^{10^{10}}x^{1000}\\,dx", "\\frac{10^{10010}}{1001}"),
        ("\\lim_{n\\to\\infty}(1+\\frac1n)^n", "e"),
        ("+".join(f"\\sum_{{k=1}}^{{10^{{{i}}}}}k" for i in range(1, 60)), "1"),
    ]


_WORDS = ("so", "we", "get", "then", "the", "sum", "is", "and", "hence", "therefore", "check", "value", "of", "step")


def _prose(rng: random.Random) -> list[tuple[str, str]]:
    """10 KB solutions: thousands of numbers, ``$`` blocks, ``\\boxed{`` openings, answer phrases, revisions."""
    def text(make: Callable[[int], str], tail: str) -> str:
        return "".join(_fill(make, MAX_BYTES - len(tail))) + tail

    numbers = text(lambda k: f"{rng.choice(_WORDS)} {rng.randint(0, 10**6)} ", "The answer is 42.")
    blocks = text(lambda k: f"${rng.randint(0, 999)}$ {rng.choice(_WORDS)} ", "so $\\boxed{42}$")
    open_boxes = text(lambda k: f"\\boxed{{{rng.randint(0, 99)} ", "\\boxed{42}")
    closed_boxes = text(lambda k: f"\\boxed{{{rng.randint(0, 99)}}} and ", "\\boxed{42}")
    answers = text(lambda k: f"The final answer is {rng.randint(0, 99)}. ",
                   "The final answer is $42$. I hope it is correct.")
    revisions = text(lambda k: f"answer: {rng.randint(0, 99)}, wait, actually ", "\\boxed{42}")
    dollars = text(lambda k: "$", "42")
    fractions = text(lambda k: f"\\frac{{{rng.randint(1, 99)}}}{{{rng.randint(1, 99)}}} = ", "\\boxed{42}")
    equals = text(lambda k: f"x = {rng.randint(0, 99)} ", "= 42")
    brackets = text(lambda k: f"\\[ {rng.randint(0, 99)} \\] \\( {rng.randint(0, 9)} \\) ", "\\boxed{42}")
    # Boxes joined by "and" are one answer: a list of ~650 items, against the reference's in reverse order.
    joined = " and ".join(_fill(lambda k: f"\\boxed{{{k + 1}}}", MAX_BYTES - 5, " and "))
    # An expensive answer stated again and again in other spellings: each later statement is compared with it.
    hard = [_pow("\\frac{448211081}{355527219}", 10000), _pow("\\dfrac{448211081}{355527219}", 10000),
            _pow("\\sqrt2+\\sqrt3+\\sqrt5+\\sqrt7", 2000), _pow("\\sqrt{2}+\\sqrt{3}+\\sqrt{5}+\\sqrt{7}", 2000)]
    restated = []
    for first, again in (hard[:2], hard[2:]):
        says = ["The answer is $" + again + "$.", "So the final answer is " + again + ".", "Answer: $" + again + "$."]
        restated.append(("We get $\\boxed{" + first + "}$. " + " ".join(says * 3), again))
    return [(numbers, "42"), (blocks, "42"), (open_boxes, "42"), (closed_boxes, "42"), (answers, "42"),
            (revisions, "42"), (dollars, "42"), (fractions, "42"), (equals, "42"), (brackets, "42"),
            (joined, ", ".join(str(k) for k in range(joined.count("boxed"), 0, -1))),
            (numbers, numbers), (open_boxes, blocks), *restated]


def _unbalanced(rng: random.Random) -> list[tuple[str, str]]:
    """Openings never closed, closings never opened, 10 KB of one character."""
    out = []
    for unit in ("{", "}", "(", ")", "\\frac{", "\\left(", "\\sqrt{", "\\boxed{", "$", "\\begin{pmatrix}", "^", "_",
                 "\\", "\\\\", "&", "!", "-", "1+", "x"):
        n = MAX_BYTES // len(unit)
        out.append((unit * n, "1"))
    out.append(("\\boxed{" + "{" * 3000 + "42", "42"))
    out.append(("(" * 5000 + ")" * 4000, ")" * 5000 + "(" * 5000))
    return out


def _matrix(rows: list[list[str]], env: str = "pmatrix") -> str:
    return f"\\begin{{{env}}}" + "\\\\".join("&".join(r) for r in rows) + f"\\end{{{env}}}"


def _matrices(rng: random.Random) -> list[tuple[str, str]]:
    """Matrices of big entries, products and powers of numeric matrices."""
    out = []
    for n, digits in ((30, 8), (12, 60), (5, 400)):
        rows = [[_digits(rng, digits) for _ in range(n)] for _ in range(n)]
        while len(_matrix(rows)) > MAX_BYTES:
            rows = [r[:-1] for r in rows[:-1]]
        other = [list(r) for r in rows]
        other[-1][-1] = str(int(other[-1][-1]) + 1)
        out.append((_matrix(rows), _matrix(other)))
    n = 8
    a = [[rng.randint(-10**20, 10**20) for _ in range(n)] for _ in range(n)]
    b = [[rng.randint(-10**20, 10**20) for _ in range(n)] for _ in range(n)]
    ab = [[sum(a[i][k] * b[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
    to_s = lambda m: [[str(x) for x in r] for r in m]  # noqa: E731
    out.append((_matrix(to_s(a)) + "\\cdot" + _matrix(to_s(b)), _matrix(to_s(ab))))
    f = [0, 1]
    while len(f) < 1003:
        f.append(f[-1] + f[-2])
    out.append(("\\begin{pmatrix}1&1\\\\1&0\\end{pmatrix}^{1000}",
                _matrix([[str(f[1001]), str(f[1000])], [str(f[1000]), str(f[999])]])))
    fib = "\\begin{pmatrix}1&1\\\\1&0\\end{pmatrix}"
    out.append((fib + "^{10^{10}}", fib + "^{10^{10}+1}"))
    rad = [[_pow("\\sqrt2+\\sqrt3", rng.randint(500, 2000)) for _ in range(6)] for _ in range(6)]
    out.append((_matrix(rad), _matrix(rad, "bmatrix")))
    return out


def _plus_minus(rng: random.Random) -> list[tuple[str, str]]:
    """``\\pm`` chains: each doubles the set of values (2^n)."""
    out = []
    for n in (12, 20, 31, 64, 1000):
        a = "\\pm".join(str(k) for k in range(1, n + 1))
        b = "\\pm".join(str(k) for k in [1, *_shuffled(rng, [str(k) for k in range(2, n + 1)])])
        out.append((a[:MAX_BYTES].rsplit("\\pm", 1)[0], b[:MAX_BYTES].rsplit("\\pm", 1)[0]))
    out.append(("\\pm".join(_sqrt(p, False) for p in _PRIMES), "\\pm".join(_sqrt(p, False) for p in _PRIMES[::-1])))
    out.append(("x=" + ",".join(f"\\pm{k}" for k in range(1, 800)), ",".join(f"\\pm{k}" for k in range(799, 0, -1))))
    out.append(("\\pm" + _pow("\\sqrt2\\pm\\sqrt3\\pm\\sqrt5\\pm\\sqrt7", 2000),
                _pow("\\sqrt2+\\sqrt3+\\sqrt5+\\sqrt7", 2000)))
    return out


def _equations(rng: random.Random) -> list[tuple[str, str]]:
    """Equations with many sides, systems of many named values, equations equal up to a factor."""
    out = []
    chain = "x=" + "=".join(_fill(lambda k: "1+1", MAX_BYTES - 8, "=")) + "=2"
    out.append((chain, "2"))
    out.append(("=".join(f"a_{{{k}}}" for k in range(1, 1000))[:4000].rsplit("=", 1)[0] + "=5", "5"))
    system = _fill(lambda k: f"x_{{{k + 1}}}={rng.randint(-999, 999)}", 4000, ",")
    out.append((",".join(system), ",".join(_shuffled(rng, system))))
    out.append(("x^{500}+y^{500}=z^{500}", "2z^{500}=2x^{500}+2y^{500}"))
    out.append(("x=" + _pow("\\sqrt2+\\sqrt3", 2000) + "=" + _pow("\\sqrt3+\\sqrt2", 2000),
                _pow("\\sqrt2+\\sqrt3", 2000)))
    out.append(("(x+y+z)^{300}=1", "(z+y+x)^{300}-1=0"))
    sides = _fill(lambda k: _pow("\\sqrt2+\\sqrt3", 1000 + k), 4000, "=")
    out.append(("=".join(sides), sides[-1]))
    out.append(("x=1, x=2, " * 200 + "x=3", "1,2,3"))
    return out


def _intervals(rng: random.Random) -> list[tuple[str, str]]:
    """Unions of many intervals in any order, overlapping pieces, radical-power ends, inequality chains."""
    out = []
    for budget in (2000, 4000, MAX_BYTES):
        pieces = _fill(lambda k: f"({2 * k},{2 * k + 1})", budget, "\\cup")
        out.append(("\\cup".join(pieces), "\\cup".join(_shuffled(rng, pieces))))
    overlap = _fill(lambda k: f"[{k},{k + 2}]", 4000, "\\cup")
    out.append(("\\cup".join(overlap), f"[0,{len(overlap) + 1}]"))
    base = "\\sqrt2+\\sqrt3"
    ends = _fill(lambda k: "(" + _pow(base, 100 + 2 * k) + "," + _pow(base, 101 + 2 * k) + ")", 4000, "\\cup")
    out.append(("\\cup".join(ends), "\\cup".join(ends[::-1])))
    ineq = _fill(lambda k: f"{2 * k}<x<{2 * k + 1}", 4000, "\\text{ or }")
    out.append(("\\text{ or }".join(ineq), "\\cup".join(f"({2 * k},{2 * k + 1})" for k in range(len(ineq)))))
    out.append(("x\\in" + "\\cup".join(pieces[:200]), "\\cup".join(pieces[:200][::-1])))
    return out


def _postfix(rng: random.Random) -> list[tuple[str, str]]:
    """Repeated ``!`` and ``%``, at and past the limit of postfix chains."""
    out = []
    for n in (2, 3, 8, 9, 5000):
        out.append(("3" + "!" * n, "3" + "!" * n + "+0"))
        out.append(("100" + "\\%" * min(n, MAX_BYTES // 2 - 2), "100" + "\\%" * min(n, MAX_BYTES // 2 - 2) + "+0"))
    out.append(("(" * 8 + "3" + ")!" * 8, "3" + "!" * 8))
    out.append(("+".join(["3!!!"] * 1000), "1000\\cdot720!"))
    return out


#: The families, in report order: (name, builder). Add a family here.
FAMILIES: list[tuple[str, Builder]] = [
    ("radical-power", _radical_powers),
    ("radical-power-nested", _nested_radical_powers),
    ("rational-powers", _rational_powers),
    ("radical-power-collections", _radical_power_collections),
    ("radical-fraction-sums", _radical_sums),
    ("towers", _towers),
    ("factorials-binomials", _factorials),
    ("big-literals", _big_literals),
    ("deep-nesting", _deep_nesting),
    ("polynomials", _polynomials),
    ("huge-arguments", _huge_arguments),
    ("sums-products", _sums_and_products),
    ("prose", _prose),
    ("unbalanced", _unbalanced),
    ("matrices", _matrices),
    ("plus-minus", _plus_minus),
    ("equations", _equations),
    ("intervals", _intervals),
    ("postfix", _postfix),
]


def generate(seed: int = 0, limit: int = 0) -> list[AdversarialPair]:
    """Every family's pairs (the first ``limit`` of each when ``limit`` > 0), in :data:`FAMILIES` order.

    Deterministic: the same ``seed`` gives the same pairs. Raises ``ValueError`` when a builder makes a side
    larger than :data:`MAX_BYTES`.
    """
    out = []
    for name, build in FAMILIES:
        pairs = build(random.Random(f"{seed}:{name}"))
        for index, (solution, ground_truth) in enumerate(pairs[: limit or None]):
            for side, text in (("solution", solution), ("ground_truth", ground_truth)):
                if len(text.encode()) > MAX_BYTES:
                    raise ValueError(f"{name}[{index}]: {side} of {len(text.encode())} bytes > {MAX_BYTES}")
            out.append(AdversarialPair(name, index, solution, ground_truth))
    return out


def _sub(pattern: str, replacement: str) -> Callable[[str], str]:
    return lambda text: re.sub(pattern, replacement, text)


def _left_right(text: str) -> str:
    """Every ``(``/``)`` as ``\\left(``/``\\right)``, when they pair up and none has ``\\left``/``\\right``."""
    if "\\left" in text or "\\right" in text or text.count("(") != text.count(")"):
        return text
    return text.replace("(", "\\left(").replace(")", "\\right)")


#: Value-preserving respellings, tried in order; the first that changes the text (and keeps it within
#: :data:`MAX_BYTES`) is used. (Not in subscripts: ``x_{1}`` and ``x_{{1}}`` are different names.)
_RESPELLINGS: tuple[Callable[[str], str], ...] = (
    _sub(r"\\sqrt(\d)", r"\\sqrt{\1}"),
    _sub(r"\\sqrt\{(\d)\}", r"\\sqrt\1"),
    _sub(r"\\frac(?=[{\d])", r"\\dfrac"),
    _sub(r"\\cdot", r"\\times"),
    _sub(r"\\times", r"\\cdot"),
    _sub(r"\^\{(\d)\}(?!\d)", r"^\1"),
    _sub(r"\^\{(\d+)\}", r"^{{\1}}"),
    _left_right,
    _sub(r"\\left\(", "("),
)


def respell(text: str) -> str | None:
    """``text`` written differently with the same value (``\\sqrt2`` as ``\\sqrt{2}``, ``\\frac`` as
    ``\\dfrac``, ``\\cdot`` as ``\\times``, ``^{10}`` as ``^{{10}}``, ``(`` as ``\\left(``...), so that
    comparing it with ``text`` cannot stop at "identical text" and must compute; ``None`` when no respelling
    applies or fits. (Whitespace would not do: the verifier compares texts without it first.)
    """
    for rewrite in _RESPELLINGS:
        out = rewrite(text)
        if out != text and len(out.encode()) <= MAX_BYTES:
            return out
    return None
