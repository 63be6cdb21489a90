#!/usr/bin/env python3
"""Generate ``math_equivalence.jsonl``: labelled (reference, prediction) pairs for a math-answer verifier.

Run ``python tests/data/make_math_equivalence.py`` to rewrite ``verl_ext/bench/data/math_equivalence.jsonl`` (or
name another output file).
The output is deterministic (hand-written seed lists per category, then programmatic variants drawn
from ``random.Random`` instances with fixed seeds); running the script again rewrites the file
byte-identically.  Only the standard library is used (``fractions`` / ``decimal`` for exact values).

Every row is one JSON object::

    {"id": "frac-0001", "category": "fraction", "reference": "\\frac{1}{2}", "prediction": "0.5",
     "equal": true, "why": "1/2 = 0.5 exactly", "label_source": "verl-ext policy"}

* ``reference``: the ground-truth answer as a dataset stores it (LaTeX or plain, no ``$`` / ``\\boxed``).
* ``prediction``: what a model wrote inside ``\\boxed{...}``.
* ``equal``: the verdict under the rules named by ``label_source``; ``why``: a few words (for the
  convention categories, the rule it follows, quoted from the source).
* ``label_source``: where the label comes from.  ``"verl-ext policy"``: this project's own policy
  below (24 categories, 2400 rows).  ``"Math-Verify README/grader @5d148cf"`` and
  ``"hendrycks/math is_equiv @985bdc1"``: another project's published convention (the two
  ``convention_*`` categories at the end of the file, see "Categories labelled by other projects"
  below).  Accuracy on the first kind is agreement with this project's own rules; only the second
  kind is graded by someone else's rules.

Every category holds the same number of true and false rows (at least 50 of each).

Labelling policy (rows with ``label_source`` ``"verl-ext policy"``)
-------------------------------------------------------------------
* Exact numbers compare with exact rational arithmetic: ``0.333`` != ``1/3``, ``0.5`` == ``1/2``,
  ``0.1+0.2`` == ``0.3``, ``10^{20}`` != ``10^{20}+1``.  Two forms of the same irrational value are
  equal (``\\frac{\\sqrt2}{2}`` vs ``\\frac{1}{\\sqrt2}``; the verifier decides those in high precision,
  without tolerance); a rounded decimal never equals an irrational (``2\\pi`` vs ``6.283185`` is false).
* Percent: ``p\\%`` equals ``p/100`` and also equals ``p`` (a dataset storing 25 for "25%" accepts
  ``25\\%``).  Two percents compare by their numbers (``50\\%`` != ``0.5\\%``).  The "equals p" rule
  is only exercised with ``p >= 5`` written as a plain number; pairs such as ``0.5`` vs ``0.5\\%`` or
  ``\\frac{3}{2}`` vs ``1.5\\%`` are left out as debatable.
* Degree marks and units (``^\\circ``, ``\\text{cm}``, ``meters``) are dropped: ``30^\\circ`` == ``30``.
  Currency symbols and words are dropped: ``\\$1,000.00`` == ``1000``.  No unit conversion is ever
  implied, so pairs with two different units are left out.
* Formatting is ignored: ``\\text{}``, ``\\mathrm{}``, ``\\mathbf{}``, ``\\boldsymbol{}``, ``\\textbf{}``,
  ``\\displaystyle``, ``\\left``/``\\right``, redundant braces, spaces and the spacing commands
  ``\\, \\! \\; \\: \\quad``.  ``\\dfrac``/``\\tfrac`` are ``\\frac``; ``\\frac12`` is ``\\frac{1}{2}``.
  A leading ``+`` and the Unicode minus sign (U+2212) are plain signs.
* Thousands separators (``1,000``, ``1{,}000``, ``1\\,000``, ``1 000``) need groups of exactly three
  digits; otherwise a comma separates items (``12`` != ``1,2``).  Scientific notation ``1.5e3``,
  ``1.5\\times10^{3}`` and ``1.5\\cdot10^{3}`` are numbers.
* ``x=3`` vs ``3`` is true (in either direction), as are ``3=x`` and ``x = 3``.  A bare expression
  reference ``2x+1`` accepts ``y=2x+1`` / ``f(x)=2x+1``.  A single-variable equation or inequality is
  compared by its solution set: ``x\\ge 3`` == ``[3,\\infty)``, ``-x>3`` == ``x<-3``, and
  ``x=1, x=2`` == ``1, 2`` == ``\\{1,2\\}`` (solutions of an equation form a set, so their order is free).
* Sets are order-free and duplicates collapse (``\\{1,1,2\\}`` == ``\\{1,2\\}``).  Tuples, intervals
  and matrices are ordered.  A set never equals a tuple or an interval.  An interval never equals a
  tuple unless both are written identically as ``(a,b)`` (then the pair is true); ``(1,2)`` vs
  ``[1,2]`` is false.  A union of intervals is a set of reals, so the order of its pieces is free.
  ``(-\\infty,\\infty)`` == ``\\mathbb{R}``.
* A bare comma list without brackets (``1, 2``) takes the kind of the other side: against a set it
  is a set, against a tuple it is a tuple.  Two bare lists in different orders are left out.
* Expressions with variables are equal when algebraically identical (equal at random points);
  ``\\frac{x^2-1}{x-1}`` == ``x+1`` is labelled true (the two differ only where the first is undefined).
  ``e`` is Euler's number and ``i`` the imaginary unit; ``\\sin 2x``-style arguments are always
  bracketed (``\\sin(2x)``) so that no pair depends on an argument-scope convention.
* Multiple choice: a single letter A-E compares by letter, ignoring parentheses, ``\\text``/``\\textbf``
  and trailing option text (``\\textbf{(C)}`` == ``C`` == ``C. 12``); naming two letters is wrong.
* Malformed input (unbalanced braces, empty prediction, ``\\boxed{}``, a bare command, garbage text,
  an undefined value such as ``\\frac{0}{0}``) is never equal.  Well-formed input is judged normally,
  however odd it looks (a 400-digit number equals itself; padding whitespace is ignored).
* Left out on purpose (debatable): mixed numbers (``1\\frac{1}{2}``), bare ``\\log`` without a base,
  degrees inside trig functions, unit conversions, plain-text ``inf``/``oo``, ``\\pm`` against a set
  in another order, repeating-decimal notation, nested ``\\boxed``.

Categories labelled by other projects (NOT by the policy above)
---------------------------------------------------------------
Their labels follow another project's published rules, even where this project's policy says
otherwise; a verifier built to the policy above is expected to disagree with some of them.  A pair
that already occurs elsewhere in the file is never repeated (the generator skips it), so no pair
carries two labels.

* ``convention_math_verify`` (ids ``cmv-``, ``label_source`` ``"Math-Verify README/grader @5d148cf"``):
  huggingface/Math-Verify at commit 5d148cfaaf99214c2e4ffb4bc497ab042c592a7a (v0.8.0), files
  ``README.md`` and ``src/math_verify/grader.py``, at ``verify``'s defaults (``strict=True``,
  ``allow_set_relation_comp=False``), gold = ``reference``.  Rules used: assignment resolution
  (``x = 1`` vs ``1`` true either way; two assignments ``x = 1`` vs ``y = 1`` false; a gold equation
  that is not an assignment, ``2x + z = 1``, is not unwrapped); percentage conversion (``10\\%`` is
  0.1, so ``10\\%`` vs ``0.1`` true and ``20\\%`` vs ``20`` false: the grader says "X%" is
  X*Rational(1,100) -- the opposite of this project's "p% also equals p"); units in text (``10 \\text{ cm}``
  vs ``10``); relation flips (``a < 2`` vs ``2 > a``); the FAQ's representation asymmetry (gold
  ``1 < x < 2`` vs predicted ``(1,2)`` true, gold ``(1,2)`` vs predicted ``1 < x < 2`` false -- this
  project scores its corpus with ``allow_set_relation_comp=True``, which makes both true) and solution
  context asymmetry (gold ``101`` vs predicted ``a+2z = 2z + a = 101`` true, the reverse false); sets
  (``\\{1,3\\} \\cup \\{2,4\\}`` vs ``\\{1,2,3,4\\}``, order-free), intervals (ends and openness must
  match; a gold open interval ``(a,b)`` accepts the list ``a,b``), unions; matrices element-wise with
  shape validation; the ``frac13`` fix; Unicode symbol substitution (``\\beta`` vs ``\u03b2``);
  structural and symbolic equality; strict variables (``x + 1`` vs ``y + 1`` false).  No row depends
  on Math-Verify's float rounding (6 decimals by default, where this project compares exact
  decimals): every decimal in these rows is exact and false pairs differ by far more than 1e-6.
  Rules the two files do not state are not used.
* ``convention_hendrycks_math`` (ids ``chm-``, ``label_source`` ``"hendrycks/math is_equiv @985bdc1"``):
  the MATH dataset's checker ``is_equiv`` in hendrycks/math ``modeling/math_equivalence.py`` (snapshot
  commit 985bdc1696e88e8643f081a0ff4719da39f2ae2a; the file last changed in
  940d1bf8d976b7e2afa9059a52350ffcdc880c1c).
  It normalises both strings (drops ``\\left``/``\\right``, ``^\\circ``/``^{\\circ}``, ``\\$``, ``\\%``,
  ``\\!``, spaces, a right-hand unit ``\\text{ ...}`` and a prefix ``k =`` of at most 2 characters;
  rewrites ``dfrac``/``tfrac`` as ``frac``, ``\\frac12`` as ``\\frac{1}{2}``, an answer ``a/b`` of two
  integers as ``\\frac{a}{b}``, ``\\sqrt3`` as ``\\sqrt{3}``, a leading ``.`` as ``0.``, the answer ``0.5``
  as ``\\frac{1}{2}``) and then compares the strings exactly.  True rows differ only by what that
  normalisation removes or rewrites -- the MATH answer conventions, e.g. ``10\\%`` vs ``10`` (the percent
  sign is dropped, whatever the number), ``\\$7`` vs ``7``, ``5^\\circ`` vs ``5``, ``x=5`` vs ``5``,
  ``.5`` vs ``\\frac12``; false rows are different answers written in those forms (``\\frac12`` vs
  ``\\frac13``, ``10\\%`` vs ``1``).  Pairs that only its string comparison decides (list order,
  unreduced fractions, ``0.1`` vs ``10\\%``) are left out.
"""

from __future__ import annotations

import json
import math
import random
import sys
from decimal import Decimal, getcontext
from fractions import Fraction as F
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "verl_ext" / "bench" / "data" / "math_equivalence.jsonl"
PER_LABEL = 50  # minimum rows per (category, label)

getcontext().prec = 80
PI_60 = Decimal("3.141592653589793238462643383279502884197169399375105820974944592")
E_60 = Decimal("2.718281828459045235360287471352662497757247093699959574966967628")

UMINUS = "\u2212"  # Unicode minus sign


# ---------------------------------------------------------------------------------------------
# small helpers (exact arithmetic and LaTeX rendering)
# ---------------------------------------------------------------------------------------------


def T(ref, pred, why):
    return (ref, pred, True, why)


def N(ref, pred, why):
    return (ref, pred, False, why)


def dec_exact(q: F) -> str | None:
    """The exact terminating decimal of q, or None when it does not terminate."""
    d = q.denominator
    r = d
    while r % 2 == 0:
        r //= 2
    while r % 5 == 0:
        r //= 5
    if r != 1:
        return None
    k = 0
    while (10**k) % d:
        k += 1
    m = abs(q.numerator) * 10**k // d
    sign = "-" if q < 0 else ""
    if k == 0:
        return sign + str(m)
    digits = str(m).rjust(k + 1, "0")
    return sign + digits[:-k] + "." + digits[-k:]


def dec_round(q: F, k: int) -> tuple[str, F]:
    """q rounded half-up to k decimal places: (string, exact value of the string)."""
    a = abs(q) * 10**k
    m = (2 * a.numerator + a.denominator) // (2 * a.denominator)
    sign = "-" if q < 0 and m else ""
    digits = str(m).rjust(k + 1, "0")
    s = sign + digits[:-k] + "." + digits[-k:] if k else sign + str(m)
    v = F(m, 10**k) * (-1 if sign else 1)
    return s, v


def irr_round(x: Decimal, k: int) -> str:
    """An irrational value (as a high-precision Decimal) rounded to k places, as a string."""
    return str(x.quantize(Decimal(1).scaleb(-k)))


def frac_tex(q: F, cmd: str = "frac") -> str:
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return "%s\\%s{%d}{%d}" % (sign, cmd, abs(q.numerator), q.denominator)


def num_tex(q: F) -> str:
    """Canonical rendering: integer, terminating decimal, else \\frac."""
    if q.denominator == 1:
        return str(q.numerator)
    d = dec_exact(q)
    return d if d is not None else frac_tex(q)


def num_forms(q: F) -> list[str]:
    """Several renderings of the exact number q (all equal to q)."""
    out = [num_tex(q)]
    if q.denominator == 1:
        out += ["%d.0" % q.numerator if q >= 0 else "-%d.0" % -q.numerator]
    else:
        out += [frac_tex(q), frac_tex(q, "dfrac")]
        d = dec_exact(q)
        if d is not None and d not in out:
            out.append(d)
    return out


def group3(s: str, sep: str) -> str:
    """Insert sep between groups of three digits of a non-negative integer string."""
    parts = []
    while len(s) > 3:
        parts.append(s[-3:])
        s = s[:-3]
    parts.append(s)
    return sep.join(reversed(parts))


def join_signed(first: str, rest: list[str], spaced: bool = True) -> str:
    """Join terms with + / -; a term starting with '-' is subtracted."""
    out = first
    for t in rest:
        if t.startswith("-"):
            out += (" - " if spaced else "-") + t[1:]
        else:
            out += (" + " if spaced else "+") + t
    return out


def term(c: int, body: str) -> str:
    """c*body with 1 / -1 coefficients elided; body '' means a constant."""
    if body == "":
        return str(c)
    if c == 1:
        return body
    if c == -1:
        return "-" + body
    return "%d%s" % (c, body)


# ---------------------------------------------------------------------------------------------
# fraction
# ---------------------------------------------------------------------------------------------

FRACTION_SEEDS = [
    T(r"\frac{1}{2}", r"\frac12", "shorthand \\frac12"),
    T(r"\frac{1}{2}", r"\dfrac{1}{2}", "dfrac is frac"),
    T(r"\frac{1}{2}", r"\tfrac{1}{2}", "tfrac is frac"),
    T(r"\frac{1}{2}", "1/2", "slash form"),
    T(r"\frac{1}{2}", "0.5", "1/2 = 0.5 exactly"),
    T(r"\frac{1}{2}", r"\frac{2}{4}", "unreduced 2/4 = 1/2"),
    T(r"-\frac{3}{4}", r"\frac{-3}{4}", "sign in numerator"),
    T(r"-\frac{3}{4}", r"\frac{3}{-4}", "sign in denominator"),
    T(r"-\frac{3}{4}", "-3/4", "slash form, negative"),
    T(r"-\frac{3}{4}", "-0.75", "-3/4 = -0.75 exactly"),
    T(r"\frac{3}{4}", r"\frac{-3}{-4}", "two signs cancel"),
    T(r"\frac{7}{3}", r"\frac{14}{6}", "unreduced 14/6"),
    T(r"\frac{5}{1}", "5", "denominator 1"),
    T("3", r"\frac{6}{2}", "6/2 = 3"),
    T(r"\frac{1}{2}", "(1)/(2)", "bracketed slash form"),
    T(r"\frac{1}{2}", r"\left(\frac{1}{2}\right)", "outer brackets"),
    T(r"\frac{5}{2}", "2.5", "5/2 = 2.5"),
    T(r"\frac{1}{2}", "1 / 2", "spaced slash"),
    T(r"\frac{1}{6}", r"\frac{\frac{1}{2}}{3}", "nested fraction (1/2)/3"),
    T(r"\frac{5}{6}", r"\frac{1}{2}+\frac{1}{3}", "1/2+1/3 = 5/6"),
    T(r"\frac{1}{2}", r"\frac{0.5}{1}", "decimal numerator"),
    T(r"\frac{1}{2}", r"\frac{1.5}{3}", "1.5/3 = 1/2"),
    T("1.5", r"\frac{3}{2}", "3/2 = 1.5"),
    T(r"\frac{2}{3}", r"\frac{4}{6}", "unreduced 4/6"),
    T(r"\frac{3}{4}", r"\frac 34", "shorthand with space"),
    T(r"\frac{10}{3}", r"\frac{20}{6}", "unreduced 20/6"),
    N(r"\frac{1}{2}", r"\frac{2}{1}", "reciprocal"),
    N(r"\frac{1}{2}", "2", "reciprocal"),
    N(r"-\frac{3}{4}", r"\frac{3}{4}", "sign lost"),
    N(r"\frac{-3}{4}", r"\frac{3}{4}", "sign lost"),
    N(r"\frac{3}{4}", r"\frac{4}{3}", "reciprocal"),
    N(r"\frac{1}{2}", r"\frac{1}{3}", "1/2 != 1/3"),
    N("13", r"\frac13", "\\frac13 is one third, not 13"),
    N(r"\frac{7}{3}", "2.33", "rounded decimal"),
    N(r"\frac{1}{2}", "0.2", "0.2 != 1/2"),
    N(r"\frac{3}{4}", r"\frac{3}{5}", "different denominator"),
    N(r"\frac{3}{4}", r"\frac{-3}{-4}+1", "3/4+1 != 3/4"),
    N(r"\frac{2}{3}", r"\frac{2}{3}\cdot 2", "twice 2/3"),
    N(r"\frac{1}{6}", r"\frac{1}{\frac{2}{3}}", "1/(2/3) = 3/2"),
    N(r"\frac{5}{6}", r"\frac{1+1}{2+3}", "2/5 != 5/6"),
]


def fraction_forms(q: F, rng: random.Random) -> list[str]:
    n, d = abs(q.numerator), q.denominator
    s = "-" if q < 0 else ""
    out = [
        s + r"\frac{%d}{%d}" % (n, d),
        s + r"\dfrac{%d}{%d}" % (n, d),
        s + r"\tfrac{%d}{%d}" % (n, d),
        s + "%d/%d" % (n, d),
    ]
    if n < 10 and d < 10:
        out.append(s + r"\frac%d%d" % (n, d))
    k = rng.randint(2, 6)
    out.append(s + r"\frac{%d}{%d}" % (k * n, k * d))
    if q < 0:
        out += [r"\frac{-%d}{%d}" % (n, d), r"\frac{%d}{-%d}" % (n, d)]
    else:
        out.append(r"\left(\frac{%d}{%d}\right)" % (n, d))
    dec = dec_exact(q)
    if dec is not None:
        out.append(dec)
    return out


def fraction_stream(rng: random.Random):
    while True:
        d = rng.randint(2, 24)
        n = rng.randint(1, 40)
        if math.gcd(n, d) != 1:
            continue
        q = F(n, d) * (-1 if rng.random() < 0.3 else 1)
        forms = fraction_forms(q, rng)
        ref = forms[0] if rng.random() < 0.7 else rng.choice(forms)
        if rng.random() < 0.5:
            pred = rng.choice([f for f in forms if f != ref])
            yield ref, pred, True, f"both are {q}"
        else:
            cands = [F(n + 1, d), F(n, d + 1), F(d, n), -q, q + 1, F(n - 1, d) if n > 1 else F(n, 2 * d)]
            q2 = rng.choice(cands)
            if q < 0 and q2 != -q:
                q2 = -abs(q2)
            if q2 == q:
                continue
            pred = rng.choice(fraction_forms(q2, rng))
            yield ref, pred, False, f"{q} != {q2}"


# ---------------------------------------------------------------------------------------------
# decimal_fraction
# ---------------------------------------------------------------------------------------------

DECFRAC_SEEDS = [
    T(r"\frac{1}{4}", "0.25", "exact"),
    T(r"\frac{3}{8}", "0.375", "exact"),
    T(r"\frac{1}{8}", "0.125", "exact"),
    T(r"\frac{1}{5}", "0.2", "exact"),
    T(r"\frac{1}{2}", "0.50", "trailing zero"),
    T(r"\frac{1}{2}", ".5", "no leading zero"),
    T(r"\frac{7}{4}", "1.75", "exact"),
    T(r"\frac{1}{16}", "0.0625", "exact"),
    T(r"\frac{1}{20}", "0.05", "exact"),
    T("0.75", r"\frac{3}{4}", "exact"),
    T("1.25", r"\frac54", "exact"),
    T("0.001", r"\frac{1}{1000}", "exact"),
    T("0.04", r"\frac{1}{25}", "exact"),
    T(r"\frac{3}{40}", "0.075", "exact"),
    T(r"\frac{1}{3}", r"\frac{0.1}{0.3}", "0.1/0.3 = 1/3 exactly"),
    N(r"\frac{1}{3}", "0.33", "rounded, 1/3 does not terminate"),
    N(r"\frac13", "0.333", "rounded, 1/3 does not terminate"),
    N(r"\frac{2}{3}", "0.67", "rounded"),
    N(r"\frac{2}{3}", "0.667", "rounded"),
    N(r"\frac{2}{3}", "0.666", "truncated"),
    N(r"\frac{1}{6}", "0.17", "rounded"),
    N(r"\frac{1}{7}", "0.142857", "truncated period"),
    N(r"\frac{1}{9}", "0.111", "truncated"),
    N(r"\frac{5}{6}", "0.83", "truncated"),
    N(r"\frac{1}{3}", "0.3333333333", "still not 1/3"),
    N("0.33", r"\frac{1}{3}", "rounded reference"),
    N("0.25", r"\frac{1}{5}", "1/5 = 0.2"),
    N("0.4", r"\frac{1}{4}", "1/4 = 0.25"),
    N("0.125", r"\frac{1}{4}", "1/4 = 0.25"),
    N(r"\frac{3}{8}", "0.38", "rounded 0.375"),
    N(r"\frac{1}{8}", "0.13", "rounded 0.125"),
    N(r"\frac{1}{8}", "0.12", "truncated 0.125"),
    N("0.5", r"\frac{1}{5}", "1/5 = 0.2"),
]

TERMINATING_DENS = [2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 80, 100, 125, 200, 250, 500]
REPEATING_DENS = [3, 6, 7, 9, 11, 12, 13, 14, 15, 18, 21, 22, 24, 27, 30, 33, 45, 60]


def decfrac_stream(rng: random.Random):
    while True:
        if rng.random() < 0.5:
            d = rng.choice(TERMINATING_DENS)
            n = rng.randint(1, 3 * d)
            if math.gcd(n, d) != 1:
                continue
            q = F(n, d)
            dec = dec_exact(q)
            assert dec is not None
            fr = rng.choice([frac_tex(q), frac_tex(q, "dfrac"), "%d/%d" % (n, d)])
            if rng.random() < 0.55:
                variants = [dec]
                if "." in dec:
                    variants.append(dec + "0")
                if dec.startswith("0."):
                    variants.append(dec[1:])
                pred = rng.choice(variants)
                pair = (fr, pred) if rng.random() < 0.6 else (pred, fr)
                yield pair[0], pair[1], True, f"{q} terminates: {dec}"
            else:
                k = len(dec.split(".")[1]) if "." in dec else 0
                if k < 2:
                    continue
                s, v = dec_round(q, k - 1)
                if v == q:
                    continue
                yield fr, s, False, f"{q} = {dec}, not {s}"
        else:
            d = rng.choice(REPEATING_DENS)
            n = rng.randint(1, 2 * d)
            if math.gcd(n, d) != 1 or dec_exact(F(n, d)) is not None:
                continue
            q = F(n, d)
            k = rng.randint(1, 7)
            s, v = dec_round(q, k)
            if rng.random() < 0.3:  # truncation instead of rounding
                m = abs(q.numerator) * 10**k // q.denominator
                digits = str(m).rjust(k + 1, "0")
                s = digits[:-k] + "." + digits[-k:]
            fr = rng.choice([frac_tex(q), "%d/%d" % (n, d)])
            pair = (fr, s) if rng.random() < 0.8 else (s, fr)
            yield pair[0], pair[1], False, f"{q} does not terminate"


# ---------------------------------------------------------------------------------------------
# integer_formatting
# ---------------------------------------------------------------------------------------------

INTFMT_SEEDS = [
    T("1000000", "1,000,000", "thousands commas"),
    T("1000", "1{,}000", "braced comma separator"),
    T("1000", r"1\,000", "thin-space separator"),
    T("1000", "1 000", "space separator"),
    T("5", "+5", "leading plus"),
    T("5", "5.0", "trailing .0"),
    T("12", "12.00", "trailing .00"),
    T("1500", r"1.5\times10^{3}", "scientific"),
    T("1500", "1.5e3", "e-notation"),
    T("1500", r"1.5 \times 10^3", "scientific, spaced"),
    T("1500", r"1.5\cdot10^{3}", "scientific with cdot"),
    T("1500", "1.5E3", "E-notation"),
    T("2000000", r"2\times10^{6}", "scientific"),
    T("1000000", "10^6", "power of ten"),
    T("1234567", "1,234,567", "thousands commas"),
    T("1234567", r"1\,234\,567", "thin spaces"),
    T("1234567", "1{,}234{,}567", "braced commas"),
    T("0", "0.0", "zero"),
    T("0", "+0", "plus zero"),
    T("0", "-0", "minus zero is zero"),
    T("100", r"1\times10^{2}", "scientific"),
    T("1,000,000", "1000000", "separator in reference"),
    T("250000", "2.5e5", "e-notation"),
    T("3000", "3e3", "e-notation, integer mantissa"),
    T("45000", r"45 \times 10^{3}", "non-normalised mantissa"),
    N("1000", "1{,}000{,}000", "a million is not a thousand"),
    N("1000000", "1,000", "a thousand is not a million"),
    N("1500", r"1.5\times10^{2}", "exponent off by one"),
    N("1500", "1.5e2", "exponent off by one"),
    N("1500", "15e3", "15000"),
    N("1234567", "1,234,568", "last digit differs"),
    N("100", "10^3", "1000"),
    N("12", "1.2", "decimal point"),
    N("120", "12.0", "12"),
    N("1000", "100", "missing zero"),
    N("2500", r"2.5\times10^{4}", "25000"),
    N("1000", "1e4", "10000"),
    N("5", "+6", "different number"),
]


def int_forms(n: int) -> list[str]:
    s = str(n)
    out = [s]
    if n >= 1000:
        out += [group3(s, ","), group3(s, "{,}"), group3(s, r"\,"), group3(s, " ")]
    out += ["+" + s, s + ".0", s + ".00"]
    k = len(s) - len(s.rstrip("0"))
    m = s.rstrip("0")
    if k >= 2 and m:
        e = len(s) - 1
        mant = m[0] + ("." + m[1:] if len(m) > 1 else "")
        out += [
            mant + r"\times10^{%d}" % e,
            mant + r" \times 10^{%d}" % e,
            mant + "e%d" % e,
            mant + r"\cdot 10^{%d}" % e,
        ]
        if len(m) > 1:  # non-normalised mantissa: m * 10^k
            out.append(m + r" \times 10^{%d}" % k)
    return out


def intfmt_stream(rng: random.Random):
    while True:
        digits = rng.randint(4, 10)
        if rng.random() < 0.5:
            lead = str(rng.randint(1, 99))
            n = int(lead + "0" * (digits - len(lead))) if digits > len(lead) else int(lead)
        else:
            n = rng.randint(10 ** (digits - 1), 10**digits - 1)
        forms = int_forms(n)
        ref = str(n) if rng.random() < 0.8 else forms[1]
        if rng.random() < 0.5:
            pred = rng.choice([f for f in forms if f != ref])
            yield ref, pred, True, "both are %d" % n
        else:
            s = str(n)
            cands = [n + 1, n - 1, n * 10]
            if n % 10 == 0:
                cands.append(n // 10)
            i = rng.randint(0, len(s) - 2)
            sw = s[:i] + s[i + 1] + s[i] + s[i + 2 :]
            if sw[0] != "0":
                cands.append(int(sw))
            n2 = rng.choice(cands)
            if n2 == n or n2 <= 0:
                continue
            pred = rng.choice(int_forms(n2))
            yield ref, pred, False, "%d != %d" % (n, n2)


# ---------------------------------------------------------------------------------------------
# radical
# ---------------------------------------------------------------------------------------------

RADICAL_SEEDS = [
    T(r"\sqrt{27}", r"3\sqrt3", "27 = 9*3"),
    T(r"\sqrt{27}", r"3\sqrt{3}", "27 = 9*3"),
    T(r"3\sqrt{3}", r"\sqrt{27}", "27 = 9*3"),
    T(r"\sqrt{2}", r"\frac{\sqrt{8}}{2}", "sqrt8 = 2 sqrt2"),
    T(r"\sqrt{2}", r"\sqrt{8}/2", "sqrt8 = 2 sqrt2"),
    T(r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt2}", "rationalised"),
    T("2", r"\sqrt[3]{8}", "cube root of 8"),
    T(r"2\sqrt{3}", r"\sqrt{12}", "12 = 4*3"),
    T(r"\sqrt{6}", r"\sqrt{2}\cdot\sqrt{3}", "product of roots"),
    T("2", r"\sqrt{4}", "principal root"),
    T(r"\frac{1}{2}", r"\sqrt{\frac{1}{4}}", "root of 1/4"),
    T(r"\sqrt{2}", "2^{1/2}", "half power"),
    T(r"\sqrt{2}", r"2^{\frac{1}{2}}", "half power"),
    T(r"\sqrt{3}", r"\sqrt 3", "spaced shorthand"),
    T(r"\frac{\sqrt{3}}{3}", r"\frac{1}{\sqrt{3}}", "rationalised"),
    T(r"3\sqrt[3]{2}", r"\sqrt[3]{54}", "54 = 27*2"),
    T("2", r"\sqrt[4]{16}", "fourth root"),
    T(r"\sqrt{2}", r"\frac{2}{\sqrt{2}}", "2/sqrt2 = sqrt2"),
    T(r"3\sqrt{2}", r"\sqrt{2}+\sqrt{8}", "sqrt2 + 2 sqrt2"),
    T("3", r"(\sqrt{3})^2", "square of a root"),
    T(r"\frac{\sqrt{6}}{2}", r"\sqrt{\frac{3}{2}}", "sqrt(3/2) = sqrt6/2"),
    T(r"1+\sqrt{2}", r"\sqrt{2}+1", "reordered sum"),
    T(r"\frac{1+\sqrt{5}}{2}", r"\frac{\sqrt{5}+1}{2}", "reordered numerator"),
    T(r"\sqrt{2}+1", r"\frac{1}{\sqrt{2}-1}", "rationalised denominator"),
    T(r"\sqrt{5}", r"\sqrt{\left(5\right)}", "brackets inside root"),
    N(r"\sqrt{2}", "1.414", "rounded irrational"),
    N(r"\sqrt{2}", "1.41421356", "rounded irrational"),
    N(r"\sqrt{3}", "1.732", "rounded irrational"),
    N(r"\sqrt{27}", r"3\sqrt{2}", "wrong radicand"),
    N(r"\sqrt{27}", r"9\sqrt{3}", "wrong coefficient"),
    N(r"\sqrt{12}", r"4\sqrt{3}", "wrong coefficient"),
    N(r"\sqrt{5}", r"\sqrt{2}+\sqrt{3}", "roots do not add"),
    N(r"\sqrt{8}", "4", "sqrt8 != 4"),
    N(r"\sqrt[3]{8}", r"\sqrt{8}", "cube vs square root"),
    N("3", r"\sqrt[3]{9}", "cube root of 9 is not 3"),
    N(r"\frac{\sqrt{2}}{2}", r"\sqrt{2}", "missing half"),
    N(r"\frac{\sqrt{2}}{2}", "0.7071", "rounded irrational"),
    N("2", r"-\sqrt{4}", "principal root is positive"),
    N(r"2\sqrt{3}", r"3\sqrt{2}", "sqrt12 != sqrt18"),
    N(r"\frac{1+\sqrt{5}}{2}", "1.618", "rounded golden ratio"),
    N(r"\sqrt{2}", r"\sqrt{3}", "different radicand"),
    N(r"\sqrt{2}", "2^{2}", "square, not root"),
    N(r"\sqrt{3}", r"\frac{\sqrt{3}}{2}", "missing factor"),
    N(r"\sqrt{2}-1", r"\frac{1}{\sqrt{2}-1}", "reciprocal is sqrt2+1"),
]

SQUAREFREE = [2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 17, 19, 21, 22]
CUBEFREE = [2, 3, 4, 5, 6, 7, 9, 10]


def coef_root(a: int, b: int, rng: random.Random, index: str = "") -> str:
    """a times the root of b (index '' for square roots, '[3]' for cube roots)."""
    root = r"\sqrt%s{%d}" % (index, b)
    forms = [r"%d%s" % (a, root), r"%d \sqrt%s{%d}" % (a, index, b), r"%d\cdot%s" % (a, root)]
    if b < 10 and not index:
        forms.append(r"%d\sqrt%d" % (a, b))
    if a == 1:
        return root
    return rng.choice(forms)


def radical_stream(rng: random.Random):
    while True:
        kind = rng.random()
        if kind < 0.45:  # sqrt(a^2 b) = a sqrt(b)
            a = rng.randint(2, 9)
            b = rng.choice(SQUAREFREE)
            n = a * a * b
            ref_is_root = rng.random() < 0.6
            root = r"\sqrt{%d}" % n
            if rng.random() < 0.5:
                simp = coef_root(a, b, rng)
                why = "%d = %d^2*%d" % (n, a, b)
                yield (root, simp, True, why) if ref_is_root else (simp, root, True, why)
            else:
                choice = rng.randint(0, 2)
                if choice == 0:
                    a2 = a + rng.choice([-1, 1])
                    wrong = coef_root(a2, b, rng)
                    why = "%d*%d^2 = %d, not %d" % (b, a2, b * a2 * a2, n)
                elif choice == 1:
                    b2 = rng.choice([x for x in SQUAREFREE if x != b])
                    wrong = coef_root(a, b2, rng)
                    why = "%d^2*%d = %d, not %d" % (a, b2, a * a * b2, n)
                else:
                    wrong = irr_round(Decimal(n).sqrt(), rng.randint(2, 6))
                    why = "rounded irrational"
                yield root, wrong, False, why
        elif kind < 0.7:  # k / sqrt(b) = (k/g) sqrt(b) / (b/g)
            b = rng.choice(SQUAREFREE)
            k = rng.randint(1, 12)
            g = math.gcd(k, b)
            num, den = k // g, b // g
            left = r"\frac{%d}{\sqrt{%d}}" % (k, b)
            num_s = r"\sqrt{%d}" % b if num == 1 else r"%d\sqrt{%d}" % (num, b)
            right = num_s if den == 1 else r"\frac{%s}{%d}" % (num_s, den)
            if rng.random() < 0.5:
                yield right, left, True, "rationalised denominator"
            else:
                wrong_num = r"\sqrt{%d}" % b if k == 1 else r"%d\sqrt{%d}" % (k, b)
                wrong = rng.choice([wrong_num, r"\frac{%s}{%d}" % (num_s, den + 1)])
                yield left, wrong, False, "%d/sqrt%d != %s" % (k, b, wrong)
        else:  # cube roots
            a = rng.randint(2, 5)
            c = rng.choice(CUBEFREE)
            n = a**3 * c
            root = r"\sqrt[3]{%d}" % n
            if rng.random() < 0.5:
                yield root, coef_root(a, c, rng, "[3]"), True, "%d = %d^3*%d" % (n, a, c)
            else:
                if rng.random() < 0.5:
                    wrong = coef_root(a, c, rng)  # square root instead of cube root
                    why = "square root instead of cube root"
                else:
                    wrong = coef_root(a + 1, c, rng, "[3]")
                    why = "%d^3*%d != %d" % (a + 1, c, n)
                yield root, wrong, False, why


# ---------------------------------------------------------------------------------------------
# pi_e
# ---------------------------------------------------------------------------------------------

PI_E_SEEDS = [
    T(r"\frac{\pi}{2}", r"\pi/2", "slash form"),
    T(r"\frac{\pi}{2}", r"\frac{1}{2}\pi", "coefficient form"),
    T(r"\frac{\pi}{2}", r"0.5\pi", "exact decimal coefficient"),
    T(r"2\pi", r"2 \pi", "spacing"),
    T(r"2\pi", r"\pi\cdot 2", "commuted product"),
    T(r"2\pi r", r"2r\pi", "commuted product"),
    T(r"2\pi r", r"2 \pi r", "spacing"),
    T(r"\pi r^2", r"r^2\pi", "commuted product"),
    T(r"\pi r^{2}", r"\pi r^2", "brace style"),
    T(r"\frac{4}{3}\pi r^3", r"\frac{4\pi r^3}{3}", "same expression"),
    T(r"e^{2}", r"\exp(2)", "exp notation"),
    T("e^2", "e^{2}", "brace style"),
    T(r"e^{2}", r"e\cdot e", "product"),
    T(r"\sqrt{e}", "e^{1/2}", "half power"),
    T("-1", r"e^{i\pi}", "Euler identity"),
    T(r"\pi^2", r"\pi\cdot\pi", "product"),
    T(r"e\pi", r"\pi e", "commuted"),
    T(r"\frac{3\pi}{4}", r"\frac{3}{4}\pi", "coefficient form"),
    T(r"6\pi", r"6.0\pi", "exact coefficient"),
    T(r"\pi", r"\frac{2\pi}{2}", "cancels"),
    T(r"\frac{\pi}{3}", r"\frac{2\pi}{6}", "unreduced"),
    T(r"\frac{1}{e}", "e^{-1}", "negative power"),
    T("1", "e^{0}", "zero power"),
    T("e^5", "e^{3}e^{2}", "add exponents"),
    T(r"\pi+1", r"1+\pi", "commuted sum"),
    T(r"2\pi", r"\pi+\pi", "sum"),
    T(r"\frac{\pi}{4}", r"\frac{\pi}{2}\cdot\frac{1}{2}", "product"),
    N(r"2\pi", "6.28", "rounded irrational"),
    N(r"2\pi", "6.283185", "rounded irrational"),
    N(r"\pi", "3.14", "rounded irrational"),
    N(r"\pi", "3.14159", "rounded irrational"),
    N(r"\pi", r"\frac{22}{7}", "approximation only"),
    N("e", "2.718", "rounded irrational"),
    N("e", "2.71828", "rounded irrational"),
    N("e^{2}", "7.389", "rounded irrational"),
    N(r"\frac{\pi}{2}", "1.5708", "rounded irrational"),
    N(r"\frac{\pi}{2}", r"2\pi", "wrong factor"),
    N(r"\pi r^2", r"2\pi r", "area vs circumference"),
    N(r"2\pi r", r"\pi r^2", "circumference vs area"),
    N(r"\frac{\pi}{3}", r"\frac{\pi}{6}", "different angle"),
    N("e^2", "2e", "power vs product"),
    N("e^{2}", "e^{3}", "different power"),
    N(r"\pi^2", r"2\pi", "square vs double"),
    N(r"\pi", "e", "different constants"),
    N(r"\frac{\pi}{4}", "0.785", "rounded irrational"),
    N(r"\sqrt{e}", r"\frac{e}{2}", "root vs half"),
    N(r"\frac{4}{3}\pi r^3", r"\frac{4}{3}\pi r^2", "wrong power of r"),
    N(r"\pi", "180", "degrees are not radians here"),
]


def pi_coef_forms(q: F) -> list[str]:
    """Renderings of q*pi for a positive non-integer or integer rational q."""
    n, d = q.numerator, q.denominator
    if d == 1 and n == 1:
        return [r"\pi", r"\frac{2\pi}{2}", r"1\cdot\pi", r"\frac{\pi}{1}"]
    if d == 1:
        return [r"%d\pi" % n, r"%d \pi" % n, r"\pi\cdot %d" % n, r"%d\cdot\pi" % n]
    top = r"\pi" if n == 1 else r"%d\pi" % n
    out = [
        r"\frac{%s}{%d}" % (top, d),
        r"\frac{%d}{%d}\pi" % (n, d),
        r"%s/%d" % (top, d),
        r"\frac{%d\pi}{%d}" % (2 * n, 2 * d),
        r"\pi\cdot\frac{%d}{%d}" % (n, d),
    ]
    dec = dec_exact(q)
    if dec is not None:
        out.append(dec + r"\pi")
    return out


def pi_e_stream(rng: random.Random):
    while True:
        if rng.random() < 0.65:
            d = rng.choice([1, 2, 3, 4, 5, 6, 8, 12])
            n = rng.randint(1, 3 * d)
            if math.gcd(n, d) != 1:
                continue
            q = F(n, d)
            forms = pi_coef_forms(q)
            ref = forms[0]
            if rng.random() < 0.5:
                pred = rng.choice(forms[1:])
                yield ref, pred, True, f"both {q} pi"
            else:
                if rng.random() < 0.5:
                    q2 = rng.choice([q + F(1, d), q * 2, F(d, n) if n != d else q + 1, q + 1])
                    if q2 == q:
                        continue
                    pred = rng.choice(pi_coef_forms(q2))
                    yield ref, pred, False, f"{q} pi != {q2} pi"
                else:
                    val = PI_60 * n / d
                    yield ref, irr_round(val, rng.randint(2, 6)), False, "rounded irrational"
        else:
            k = rng.randint(-4, 6)
            if k in (0, 1):
                continue
            forms = ["e^{%d}" % k, r"\exp(%d)" % k, r"\exp\left(%d\right)" % k]
            if 0 < k < 10:
                forms.append("e^%d" % k)
            if k < 0:
                forms.append(r"\frac{1}{e^{%d}}" % -k)
            if k > 2:
                forms.append("e^{%d}e^{%d}" % (k - 1, 1))
            ref = forms[0]
            if rng.random() < 0.5:
                yield ref, rng.choice(forms[1:]), True, "both e^%d" % k
            else:
                c = rng.randint(0, 2)
                if c == 0:
                    yield ref, "e^{%d}" % (k + 1), False, "different power"
                elif c == 1:
                    yield ref, r"%d\cdot e" % k if k != -1 else "-e", False, "product, not power"
                else:
                    yield ref, irr_round(E_60**k, rng.randint(2, 6)), False, "rounded irrational"


# ---------------------------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------------------------

POWER_SEEDS = [
    T("1024", "2^{10}", "2^10"),
    T("2^{10}", "1024", "2^10"),
    T("0.001", "10^{-3}", "10^-3"),
    T(r"\frac{1}{1000}", "10^{-3}", "10^-3"),
    T("x^2", "x^{2}", "brace style"),
    T("x^2", r"x\cdot x", "product"),
    T("x^2", r"x \times x", "product"),
    T("x^3", r"x\cdot x^{2}", "add exponents"),
    T("x^5", r"x^2 \cdot x^3", "add exponents"),
    T("x^6", "(x^2)^3", "multiply exponents"),
    T(r"\frac{1}{x}", "x^{-1}", "negative exponent"),
    T(r"\sqrt{x}", "x^{1/2}", "half exponent"),
    T("-4", "-2^{2}", "minus applies after the power"),
    T("4", "(-2)^{2}", "bracketed base"),
    T("-8", "(-2)^3", "odd power of a negative"),
    T("512", "2^{3^{2}}", "tower is right-associative: 2^9"),
    T("64", "(2^{3})^{2}", "bracketed tower: 8^2"),
    T("2", "4^{1/2}", "square root"),
    T("4", "8^{2/3}", "(8^(1/3))^2"),
    T("0.5", "2^{-1}", "reciprocal"),
    T(r"\frac14", "2^{-2}", "reciprocal square"),
    T("81", "3^4", "3^4"),
    T("1", "5^0", "zero power"),
    T("1000000", "10^{6}", "10^6"),
    T("0.01", "0.1^{2}", "exact decimal power"),
    T(r"\frac18", r"\left(\frac{1}{2}\right)^3", "power of a fraction"),
    T(r"\frac{4}{9}", r"\left(\frac{2}{3}\right)^{2}", "power of a fraction"),
    T(r"x^{2}y^{3}", r"y^3x^2", "commuted product"),
    T(r"\frac{x^5}{x^2}", "x^3", "subtract exponents"),
    N("4", "-2^{2}", "minus applies after the power"),
    N("-4", "(-2)^2", "even power of a negative"),
    N("512", "(2^{3})^{2}", "bracketed tower is 64"),
    N("64", "2^{3^{2}}", "tower is 512"),
    N("2^{10}", "1000", "1024 != 1000"),
    N("10^{-3}", "0.01", "10^-2"),
    N("10^{-3}", "-1000", "negative exponent is not a negative number"),
    N("x^2", "2x", "square vs double"),
    N("x^3", "3x", "cube vs triple"),
    N("(x^2)^3", "x^5", "exponents multiply"),
    N(r"x^2 \cdot x^3", "x^6", "exponents add"),
    N("x^{-1}", "-x", "reciprocal vs negation"),
    N("2^{-1}", "-2", "reciprocal vs negation"),
    N("3^{4}", "12", "power vs product"),
    N("2^{100}", r"1.2676506\times10^{30}", "rounded value"),
    N("8^{2/3}", r"\frac{16}{3}", "8*2/3 is not a power"),
    N("0.1^{2}", "0.1", "power dropped"),
    N("2^{10}", "10^{2}", "swapped base and exponent"),
]


def power_stream(rng: random.Random):
    while True:
        b = rng.randint(2, 12)
        k = rng.randint(2, 12)
        v = b**k
        if v > 10**12:
            continue
        base = "%d^{%d}" % (b, k) if rng.random() < 0.7 else "%d^%d" % (b, k) if k < 10 else "%d^{%d}" % (b, k)
        c = rng.random()
        if c < 0.35:
            yield (base, str(v), True, "%d^%d = %d" % (b, k, v)) if rng.random() < 0.5 else (
                str(v), base, True, "%d^%d = %d" % (b, k, v))
        elif c < 0.55:  # negative exponent
            q = F(1, v)
            forms = [frac_tex(q), r"\frac{1}{%d^{%d}}" % (b, k)]
            dq = dec_exact(q)
            if dq is not None and v <= 10**6:
                forms.append(dq)
            yield "%d^{-%d}" % (b, k), rng.choice(forms), True, "reciprocal of %d" % v
        else:
            w = rng.choice(["pm1", "next", "prod", "neg"])
            if w == "pm1":
                v2 = v + rng.choice([-1, 1])
                pred, why = str(v2), "off by one"
            elif w == "next":
                v2 = b ** (k + 1)
                pred, why = str(v2), "%d^%d" % (b, k + 1)
            elif w == "prod":
                v2 = b * k
                if v2 == v:  # 2^2 = 2*2
                    continue
                pred, why = str(v2), "%d*%d, not a power" % (b, k)
            else:
                pred, why = f"-{frac_tex(F(1, v))}" if rng.random() < 0.5 else "-%d" % v, "sign error"
                yield "%d^{-%d}" % (b, k), pred, False, why
                continue
            yield base, pred, False, why


# ---------------------------------------------------------------------------------------------
# percent
# ---------------------------------------------------------------------------------------------

PERCENT_SEEDS = [
    T("0.25", r"25\%", "25% = 0.25"),
    T(r"\frac14", r"25\%", "25% = 1/4"),
    T(r"25\%", "25", "25% accepts 25"),
    T(r"25\%", "0.25", "25% = 0.25"),
    T("25", r"25\%", "25 stored for 25%"),
    T(r"25\%", r"\frac{1}{4}", "25% = 1/4"),
    T(r"12.5\%", r"\frac18", "12.5% = 1/8"),
    T(r"50\%", r"\frac{1}{2}", "50% = 1/2"),
    T(r"100\%", "1", "100% = 1"),
    T(r"25\%", r"25 \%", "spacing"),
    T(r"25\%", "25%", "unescaped percent sign"),
    T(r"25\%", r"25\text{ percent}", "word percent"),
    T(r"\frac{1}{3}", r"\frac{100}{3}\%", "100/3 % = 1/3"),
    T(r"150\%", "1.5", "150% = 1.5"),
    T("0.05", r"5\%", "5% = 0.05"),
    T(r"40\%", r"\frac{2}{5}", "40% = 2/5"),
    N("25", "0.25", "no percent sign on either side"),
    N("0.25", "25", "no percent sign on either side"),
    N(r"25\%", r"26\%", "different percent"),
    N(r"25\%", "2.5", "neither 25 nor 0.25"),
    N(r"25\%", "0.025", "neither 25 nor 0.25"),
    N(r"50\%", r"0.5\%", "two percents compare by number"),
    N(r"\frac{1}{3}", r"33\%", "rounded percent"),
    N(r"\frac{1}{3}", r"33.3\%", "rounded percent"),
    N("0.25", r"2.5\%", "2.5% = 0.025"),
    N(r"20\%", "0.02", "2%, not 20%"),
    N(r"20\%", "200", "neither 20 nor 0.2"),
    N(r"5\%", "0.5", "neither 5 nor 0.05"),
    N("0.05", r"0.5\%", "0.5% = 0.005"),
    N(r"10\%", r"\frac{1}{100}", "1%, not 10%"),
    N(r"75\%", r"\frac{3}{5}", "3/5 = 60%"),
]

PERCENTS = ["5", "10", "12.5", "15", "20", "25", "30", "35", "40", "45", "50", "60", "62.5", "70", "75", "80",
            "85", "90", "95", "100", "120", "125", "150", "200", "250", "300", "2.5", "7.5", "37.5", "87.5", "1.5"]


def pct_forms(p: F) -> list[str]:
    s = num_tex(p)
    return [s + r"\%", s + r" \%", s + "%", s + r"\ \%", s + r"\text{ percent}", s + " percent"]


def plain_forms(v: F) -> list[str]:
    out = [num_tex(v)]
    if v.denominator != 1:
        out.append(frac_tex(v))
    return out


def pct_stream(rng: random.Random):
    while True:
        p = F(rng.choice(PERCENTS))
        # each side: (value, is_percent)
        kind = rng.randint(0, 9)
        alts = [p / 10, p * 10, p + 5, p / 100, p / 1000, p * 2]
        q = rng.choice([a for a in alts if a != p])
        a, b = {
            0: ((p / 100, False), (p, True)),
            1: ((p, True), (p, False)),
            2: ((p, True), (p / 100, False)),
            3: ((p, False), (p, True)),
            4: ((p, True), (p, True)),
            5: ((p, False), (p / 100, False)),
            6: ((p / 100, False), (p, False)),
            7: ((p, True), (q, True)),
            8: ((p / 100, False), (q, True)),
            9: ((p, True), (q, False)),
        }[kind]
        if a[1] and b[1]:
            eq = a[0] == b[0]
        elif a[1]:
            eq = b[0] in (a[0], a[0] / 100)
        elif b[1]:
            eq = a[0] in (b[0], b[0] / 100)
        else:
            eq = a[0] == b[0]
        plain, pc = (a, b) if b[1] else (b, a)
        if pc[1] and not plain[1] and plain[0] == pc[0] and pc[0] < 1:
            continue  # "v% equals v" for v < 1 is debatable
        if pc[1] and not plain[1] and pc[0] < 1 and plain[0] == pc[0] / 100:
            continue  # tiny percents: keep away from the debatable zone
        ref = rng.choice(pct_forms(a[0])[:2]) if a[1] else rng.choice(plain_forms(a[0]))
        pred = rng.choice(pct_forms(b[0])) if b[1] else rng.choice(plain_forms(b[0]))
        if ref == pred:
            continue
        if eq and not (a[1] and b[1]) and plain[0] == pc[0] and (pc[0] < 5 or "frac" in (pred if b is plain else ref)):
            continue  # keep the "p% also equals p" rule to plain-looking numbers of at least 5

        def show(x):
            return f"{x[0]}%" if x[1] else str(x[0])

        why = ("%s matches %s" if eq else "%s does not match %s") % (show(a), show(b))
        yield ref, pred, eq, why


# ---------------------------------------------------------------------------------------------
# degrees_units
# ---------------------------------------------------------------------------------------------

UNITS_SEEDS = [
    T("30", r"30^\circ", "degree mark dropped"),
    T(r"30^\circ", "30", "degree mark dropped"),
    T(r"30^\circ", r"30^{\circ}", "brace style"),
    T(r"30^\circ", "30 degrees", "word degrees"),
    T("30", "30\u00b0", "Unicode degree sign"),
    T("5", r"5\text{ cm}", "unit dropped"),
    T("5", r"5 \mbox{ m}", "mbox unit dropped"),
    T("5", "5 meters", "unit word dropped"),
    T(r"5\text{ cm}", "5", "unit in reference"),
    T(r"12\text{ cm}^2", "12", "squared unit dropped"),
    T("45", r"45^{\circ}", "degree mark dropped"),
    T(r"45^\circ", "45\u00b0", "Unicode degree sign"),
    T("90", r"90\text{ degrees}", "text degrees"),
    T("3.5", r"3.5\text{ kg}", "unit dropped"),
    T(r"\frac{1}{2}", r"0.5\text{ m}", "1/2 = 0.5, unit dropped"),
    T("60", r"60\,^{\circ}", "spaced degree mark"),
    T("100", r"100 \mathrm{~cm}", "mathrm unit"),
    T("7", r"7\ \text{m}", "spaced unit"),
    T(r"15 \text{ units}", "15", "units word"),
    T("9.8", r"9.8\text{ m/s}^2", "compound unit"),
    T(r"120^\circ", r"120\text{°}", "degree sign in text"),
    N("30", r"60^\circ", "different angle"),
    N(r"30^\circ", "60", "different angle"),
    N("5", r"6\text{ cm}", "different length"),
    N(r"5\text{ cm}", "50", "different number"),
    N("30", "30.5 degrees", "different angle"),
    N(r"45^\circ", r"54^\circ", "digits swapped"),
    N("12", r"1.2\text{ m}", "different number"),
    N(r"90^\circ", "9", "different number"),
    N("360", r"36^{\circ}", "missing digit"),
    N(r"2.5\text{ kg}", "25", "decimal point lost"),
    N("15", r"\frac{1}{5}\text{ m}", "different number"),
]

UNIT_GROUPS = [  # each group: one unit written several ways (no conversion between groups is implied)
    [r"\text{ cm}", r" \text{cm}", r" \mathrm{~cm}", r"\,\mathrm{cm}", r"\mbox{ cm}"],
    [r"\mbox{ m}", r"\ \text{m}", " meters", r"\text{ m}", r"\text{ meters}"],
    [r"\,\mathrm{kg}", r"\text{ kg}", " kilograms"],
    [r"\text{ cm}^2", r"\text{ cm}^{2}", r"\ \mathrm{cm}^2"],
    [r" \text{ square units}", " square units"],
    [" feet", r"\text{ ft}", r"\text{ feet}"],
    [" inches", r"\text{ inches}", r"\text{ in.}"],
    [" seconds", r"\text{ s}", r"\text{ seconds}"],
    [r"\text{ hours}", " hours", r"\text{ hrs}"],
    [r" \text{ units}", " units"],
    [r"\text{ m/s}", r"\ \mathrm{m/s}", r"\text{ meters per second}"],
    [r"\text{ km}", r"\,\mathrm{km}", " kilometers"],
    [" miles", r"\text{ miles}", r"\text{ mi}"],
]
DEGREE_SUFFIXES = [r"^\circ", r"^{\circ}", "\u00b0", " degrees", r"\text{ degrees}", r"\,^{\circ}", r"^{\circ }"]


def units_stream(rng: random.Random):
    while True:
        degrees = rng.random() < 0.45
        if degrees:
            v = F(rng.choice([15, 18, 20, 22.5, 30, 36, 40, 45, 50, 60, 72, 75, 80, 90, 108, 120, 135, 144, 150,
                              160, 180, 210, 225, 240, 270, 300, 315, 330, 360]))
            suffixes = DEGREE_SUFFIXES
        else:
            v = rng.choice([F(rng.randint(1, 500)), F(rng.randint(1, 99), 4), F(rng.randint(1, 999), 10)])
            suffixes = rng.choice(UNIT_GROUPS)
        s1, s2 = rng.sample(suffixes, 2)
        if rng.random() < 0.5:
            forms = [num_tex(v)]
            if v.denominator != 1 and rng.random() < 0.3:
                forms.append(frac_tex(v))
            shape = rng.randint(0, 2)
            if shape == 0:
                ref, pred = num_tex(v), rng.choice(forms) + s1
            elif shape == 1:
                ref, pred = num_tex(v) + s1, rng.choice(forms)
            else:
                ref, pred = num_tex(v) + s1, rng.choice(forms) + s2
            if ref != pred:
                yield ref, pred, True, f"same number {v}, marks dropped"
        else:
            w = rng.choice([v + 1, v * 10, v / 10, v * 2, v + F(1, 2)])
            if w == v:
                continue
            shape = rng.randint(0, 2)
            if shape == 0:
                ref, pred = num_tex(v), num_tex(w) + s1
            elif shape == 1:
                ref, pred = num_tex(v) + s1, num_tex(w)
            else:
                ref, pred = num_tex(v) + s1, num_tex(w) + s1
            yield ref, pred, False, f"{v} != {w}"


# ---------------------------------------------------------------------------------------------
# currency
# ---------------------------------------------------------------------------------------------

CURRENCY_SEEDS = [
    T("5", r"\$5", "dollar sign dropped"),
    T("5", "5 dollars", "word dropped"),
    T("1000", r"\$1,000.00", "sign, separator and cents"),
    T("5.5", r"\$5.50", "trailing zero cent"),
    T(r"\$5", "5", "sign in reference"),
    T(r"\$5", r"\$5.00", "zero cents"),
    T(r"\$5", r"\$ 5", "spacing"),
    T("5", r"5\text{ dollars}", "text word dropped"),
    T("0.5", r"\$0.50", "fifty cents"),
    T(r"\frac{1}{2}", r"\$0.50", "1/2 = 0.50"),
    T("1000", r"\$1{,}000", "braced separator"),
    T("2.75", r"\$2.75", "sign dropped"),
    T(r"\$12.00", "12", "zero cents"),
    T("1250000", r"\$1,250,000", "separators"),
    N(r"\$5", r"\$6", "different amount"),
    N(r"\$1,000", r"\$100", "missing zero"),
    N("5.5", r"\$5.05", "5.50 != 5.05"),
    N("1000", r"\$1,000.01", "one cent more"),
    N(r"\$5", "50 dollars", "different amount"),
    N(r"\$0.50", "50", "50 dollars, not 50 cents"),
    N("12", r"\$1.20", "decimal point"),
    N(r"\$1,000.00", "100000", "cents digits read as integer"),
]


def money_plain(v: F, cents: bool = False) -> str:
    whole = v.numerator // v.denominator
    frac = v - whole
    w = str(whole)
    if frac == 0 and not cents:
        return w
    c = frac * 100
    assert c.denominator == 1
    return "%s.%02d" % (w, c.numerator)


def money_forms(v: F) -> list[str]:
    p = money_plain(v)
    out = ["\\$" + p, "\\$ " + p, p + " dollars", p + r"\text{ dollars}", "\\$" + money_plain(v, True)]
    if v >= 1000:
        whole = v.numerator // v.denominator
        rest = money_plain(v, True)[len(str(whole)):]
        out += ["\\$" + group3(str(whole), ",") + rest, "\\$" + group3(str(whole), "{,}") + rest]
    return out


def currency_stream(rng: random.Random):
    while True:
        r = rng.random()
        if r < 0.4:
            v = F(rng.randint(1, 200))
        elif r < 0.7:
            v = F(rng.randint(100, 99999), 100)
        else:
            v = F(rng.randint(1000, 5000000))
        forms = money_forms(v)
        if rng.random() < 0.5:
            shape = rng.randint(0, 2)
            if shape == 0:
                ref, pred = money_plain(v), rng.choice(forms)
            elif shape == 1:
                ref, pred = forms[0], money_plain(v)
            else:
                ref, pred = rng.sample(forms, 2)
            yield ref, pred, True, f"both {money_plain(v, v.denominator != 1)} dollars"
        else:
            cands = [v + 1, v * 10, v / 10, v + F(1, 100)]
            if v.denominator != 1:
                cands.append(F(v.numerator // v.denominator))
            w = rng.choice(cands)
            if w == v or (w * 100).denominator != 1:
                continue
            if rng.random() < 0.5:
                ref, pred = money_plain(v), rng.choice(money_forms(w))
            else:
                ref, pred = rng.choice(forms[:1] + forms[4:]), money_plain(w)
            yield ref, pred, False, f"{money_plain(v)} != {money_plain(w)}"


# ---------------------------------------------------------------------------------------------
# text_wrappers
# ---------------------------------------------------------------------------------------------

WRAPPER_SEEDS = [
    T("5", r"\text{5}", "text wrapper"),
    T("5", r"\mathrm{5}", "mathrm wrapper"),
    T("5", r"\mathbf{5}", "mathbf wrapper"),
    T("5", r"\boldsymbol{5}", "boldsymbol wrapper"),
    T("5", r"\left( 5 \right)", "left/right brackets"),
    T("5", "{{5}}", "extra braces"),
    T("5", "  5  ", "surrounding spaces"),
    T("5", r"\displaystyle 5", "displaystyle"),
    T("5", r"5\,", "thin space"),
    T("5", r"\!5", "negative thin space"),
    T("5", r"\;5", "thick space"),
    T(r"\frac{1}{2}", r"\displaystyle\frac{1}{2}", "displaystyle"),
    T(r"\frac{1}{2}", r"\mathbf{\frac{1}{2}}", "bold fraction"),
    T("12", r"\textbf{12}", "textbf wrapper"),
    T("3", r"\text{ }3", "empty text space"),
    T(r"2\sqrt{3}", r"\boldsymbol{2\sqrt{3}}", "bold radical"),
    T("x+1", r"\mathrm{x}+1", "roman x is still x"),
    T(r"\frac{3}{4}", r"{\frac{3}{4}}", "braced fraction"),
    T("-7", r"\left(-7\right)", "bracketed negative"),
    T("0.5", r"\quad 0.5", "quad space"),
    N("5", r"\text{6}", "different number"),
    N("5", r"\mathbf{-5}", "sign differs"),
    N(r"\frac{1}{2}", r"\displaystyle\frac{1}{3}", "different fraction"),
    N("5", r"\text{5}0", "reads 50"),
    N("5", "{5}{0}", "reads 50"),
    N("5", r"\left(5\right)^2", "squared"),
    N(r"2\sqrt{3}", r"\mathbf{3\sqrt{2}}", "different radical"),
    N("x+1", r"\mathrm{x}-1", "different expression"),
]

WRAP_POOL = [
    (F(5), ["5"]), (F(12), ["12"]), (F(7), ["7"]), (F(42), ["42"]), (F(100), ["100"]), (F(-3), ["-3"]),
    (F(-15), ["-15"]), (F(0), ["0"]), (F(1, 2), [r"\frac{1}{2}", "0.5"]), (F(3, 4), [r"\frac{3}{4}", "0.75"]),
    (F(2, 3), [r"\frac{2}{3}"]), (F(-5, 2), [r"-\frac{5}{2}", "-2.5"]), (F(5, 2), [r"\frac{5}{2}", "2.5"]),
    (F(13, 10), ["1.3"]), (F(31, 10), ["3.1"]), (F(6), ["6"]), (F(8), ["8"]), (F(24), ["24"]),
    ("sqrt2", [r"\sqrt{2}", r"\sqrt2"]), ("2sqrt3", [r"2\sqrt{3}", r"2\sqrt3"]), ("sqrt3", [r"\sqrt{3}"]),
    ("pi/2", [r"\frac{\pi}{2}", r"\pi/2"]), ("pi", [r"\pi"]), ("x+1", ["x+1", "1+x"]), ("x+2", ["x+2", "2+x"]),
    ("2x", ["2x", r"2\cdot x"]), ("x^2", ["x^2", "x^{2}"]), ("x^3", ["x^3"]),
]

WRAPPERS = [
    (r"\text{%s}", True), (r"\textbf{%s}", True), (r"\mathrm{%s}", False), (r"\mathbf{%s}", False),
    (r"\boldsymbol{%s}", False), ("{%s}", False), ("{{%s}}", False), (r"\left(%s\right)", False),
    (r"\left( %s \right)", False), (" %s ", False), (r"\displaystyle %s", False), (r"\displaystyle{%s}", False),
    (r"\,%s", False), (r"%s\,", False), (r"\!%s", False), (r"\;%s", False), (r"\:%s", False),
    (r"\quad %s", False), (r"\ %s", False), (r"%s\;", False),
]


def wrap(s: str, rng: random.Random, depth: int) -> str:
    for _ in range(depth):
        while True:
            fmt, text_only = rng.choice(WRAPPERS)
            if text_only and not all(ch.isdigit() or ch == "." for ch in s):
                continue
            break
        s = fmt % s
    return s


def wrappers_stream(rng: random.Random):
    while True:
        i = rng.randrange(len(WRAP_POOL))
        key, forms = WRAP_POOL[i]
        depth = 1 if rng.random() < 0.7 else 2
        if rng.random() < 0.5:
            ref = forms[0]
            pred = wrap(rng.choice(forms), rng, depth)
            if pred != ref:
                yield ref, pred, True, f"wrapper around {forms[0]}"
        else:
            j = rng.randrange(len(WRAP_POOL))
            if j == i:
                continue
            key2, forms2 = WRAP_POOL[j]
            if isinstance(key, F) != isinstance(key2, F) and rng.random() < 0.7:
                continue
            yield forms[0], wrap(rng.choice(forms2), rng, depth), False, f"{forms[0]} != {forms2[0]}"


# ---------------------------------------------------------------------------------------------
# intervals (shared by infinity / interval / inequality)
# ---------------------------------------------------------------------------------------------

INF, NINF = "+inf", "-inf"


def ep_forms(v) -> list[str]:
    if v == INF:
        return [r"\infty", r"\infty", r"+\infty"]
    if v == NINF:
        return [r"-\infty", r"-\infty", r"- \infty"]
    if v.denominator == 1:
        return [str(v.numerator)]
    out = [frac_tex(v)]
    dv = dec_exact(v)
    if dv is not None:
        out.append(dv)
    return out


def interval_tex(iv, rng: random.Random, style: int | None = None, canonical: bool = False) -> str:
    lo, hi, lc, rc = iv
    a = ep_forms(lo)[0] if canonical else rng.choice(ep_forms(lo))
    b = ep_forms(hi)[0] if canonical else rng.choice(ep_forms(hi))
    if style is None:
        style = rng.randint(0, 3)
    if style == 0:
        return f"{lc}{a},{b}{rc}"
    if style == 1:
        return f"{lc}{a}, {b}{rc}"
    if style == 2:
        return rf"\left{lc}{a}, {b}\right{rc}"
    return rf"\left{lc} {a} , {b} \right{rc}"


def union_tex(ivs, rng: random.Random, canonical: bool = False) -> str:
    sep = r" \cup " if canonical or rng.random() < 0.6 else r"\cup"
    return sep.join(interval_tex(iv, rng, 1 if canonical else None, canonical) for iv in ivs)


def iv_str(iv) -> str:
    lo, hi, lc, rc = iv
    return f"{lc}{lo},{hi}{rc}"


def flip_end(iv, rng: random.Random):
    """Flip one finite end between open and closed."""
    lo, hi, lc, rc = iv
    ends = []
    if lo not in (INF, NINF):
        ends.append(0)
    if hi not in (INF, NINF):
        ends.append(1)
    e = rng.choice(ends)
    if e == 0:
        return (lo, hi, "[" if lc == "(" else "(", rc)
    return (lo, hi, lc, "]" if rc == ")" else ")")


INFINITY_SEEDS = [
    T(r"\infty", r"+\infty", "explicit plus"),
    T(r"\infty", "\u221e", "Unicode infinity"),
    T(r"-\infty", r"- \infty", "spacing"),
    T(r"-\infty", "-\u221e", "Unicode infinity"),
    T(r"(-\infty,\infty)", r"\mathbb{R}", "the whole real line"),
    T(r"\mathbb{R}", r"(-\infty, \infty)", "the whole real line"),
    T(r"(-\infty, \infty)", r"(-\infty,+\infty)", "explicit plus"),
    T(r"(-\infty,3)", r"(-\infty, 3)", "spacing"),
    T(r"[0,\infty)", r"\left[0, \infty\right)", "left/right"),
    T(r"(-\infty,3)", r"x\in(-\infty,3)", "membership form"),
    T(r"(-\infty,-1)\cup(1,\infty)", r"(1,\infty)\cup(-\infty,-1)", "union order is free"),
    T(r"(2,\infty)", "(2,\u221e)", "Unicode infinity"),
    N(r"\infty", r"-\infty", "opposite sign"),
    N(r"-\infty", r"\infty", "opposite sign"),
    N(r"\infty", "0", "not a number"),
    N(r"\infty", "10^{100}", "finite"),
    N(r"\infty", r"\text{DNE}", "does not exist vs infinity"),
    N(r"\infty", r"\text{undefined}", "undefined vs infinity"),
    N(r"(0,\infty)", r"[0,\infty)", "0 included"),
    N(r"(-\infty,3)", r"(-\infty,3]", "3 included"),
    N(r"(-\infty,\infty)", r"\mathbb{R}\setminus\{0\}", "0 removed"),
    N(r"(-\infty,3)", r"(3,\infty)", "other side"),
    N(r"(-\infty,-1)\cup(1,\infty)", r"(-1,1)", "the middle, not the rays"),
    N(r"(-\infty,-1)\cup(1,\infty)", r"(1,\infty)", "missing piece"),
    N(r"[1,\infty)", "1", "interval vs its endpoint"),
    N(r"(-\infty,\infty)", r"\infty", "interval vs a value"),
    N(r"(5,\infty)", r"(5,\infty)\cup\{5\}", "adds 5"),
]


def random_ep(rng: random.Random, lo: int = -20, hi: int = 20) -> F:
    if rng.random() < 0.8:
        return F(rng.randint(lo, hi))
    return F(rng.randint(2 * lo, 2 * hi), 2) if rng.random() < 0.5 else F(rng.randint(lo, hi), 4)


def infinity_stream(rng: random.Random):
    while True:
        a = random_ep(rng)
        kinds = [(a, INF, "(", ")"), (a, INF, "[", ")"), (NINF, a, "(", ")"), (NINF, a, "(", "]")]
        iv = rng.choice(kinds)
        r = rng.random()
        if r < 0.25:  # union with a second ray on the other side
            b = a + rng.randint(1, 8)
            left = (NINF, a, "(", rng.choice(")]"))
            right = (b, INF, rng.choice("(["), ")")
            ref = union_tex([left, right], rng, canonical=True)
            if rng.random() < 0.5:
                pred = union_tex([right, left] if rng.random() < 0.6 else [left, right], rng)
                if pred != ref:
                    yield ref, pred, True, "same union of rays"
            else:
                c = rng.randint(0, 2)
                if c == 0:
                    pred = union_tex([flip_end(left, rng), right], rng)
                    why = "an endpoint changes"
                elif c == 1:
                    pred = union_tex([left], rng)
                    why = "missing a piece"
                else:
                    pred = interval_tex((a, b, "(", ")"), rng)
                    why = "the gap between the rays"
                yield ref, pred, False, why
            continue
        ref = interval_tex(iv, rng, 1, canonical=True) if rng.random() < 0.8 else interval_tex(iv, rng, 0, True)
        if r < 0.6:
            pred = interval_tex(iv, rng)
            if rng.random() < 0.2:
                pred = r"x \in " + pred
            if pred != ref:
                yield ref, pred, True, f"same interval {iv_str(iv)}"
        else:
            c = rng.randint(0, 2)
            if c == 0:
                iv2 = flip_end(iv, rng)
            elif c == 1:
                d = rng.choice([F(1), F(-1), F(1, 2)])
                iv2 = (a + d, iv[1], iv[2], iv[3]) if iv[0] != NINF else (iv[0], a + d, iv[2], iv[3])
            else:  # the other ray from the same point
                iv2 = (NINF, a, "(", ")") if iv[0] != NINF else (a, INF, "(", ")")
            yield ref, interval_tex(iv2, rng), False, f"{iv_str(iv)} != {iv_str(iv2)}"


# ---------------------------------------------------------------------------------------------
# interval
# ---------------------------------------------------------------------------------------------

INTERVAL_SEEDS = [
    T("(1,2]", "(1,2]", "identical"),
    T("(1,2]", "(1, 2]", "spacing"),
    T("[1,2)", r"\left[1,2\right)", "left/right"),
    T("(1,2)", r"x \in (1,2)", "membership form"),
    T("(1,2)", r"x\in\left(1, 2\right)", "membership form"),
    T("(1,2)", "(1,2)", "identical (interval or tuple)"),
    T(r"[\frac{1}{2}, 3]", "[0.5, 3]", "1/2 = 0.5"),
    T(r"(1,2)\cup(3,4)", r"(3,4)\cup(1,2)", "union order is free"),
    T(r"[-3,-1]\cup[1,3]", r"[-3,-1] \cup [1,3]", "spacing"),
    T("[-2,5]", "[-2, 5]", "spacing"),
    T(r"\left(-\frac{1}{3}, 1\right]", r"(-\frac13, 1]", "shorthand fraction"),
    N("(1,2)", "[1,2]", "open vs closed"),
    N("(1,2]", "[1,2]", "1 included"),
    N("(1,2]", "(1,2)", "2 excluded"),
    N("[1,2)", "(1,2]", "both ends differ"),
    N("(1,2)", r"\left\{1, 2\right\}", "interval vs set"),
    N("[1,2]", r"\{1,2\}", "interval vs set"),
    N(r"(1,2)\cup(3,4)", "(1,4)", "gap [2,3] filled"),
    N(r"(1,2)\cup(3,4)", "(1,2)", "missing a piece"),
    N("(1,3)", "(1,2)", "different end"),
    N("[0,1]", "[1,0]", "reversed endpoints"),
    N(r"[\frac{1}{2}, 3]", "[0.2, 3]", "0.2 != 1/2"),
    N("[-2,5]", "[2,5]", "sign of an end"),
]


def interval_stream(rng: random.Random):
    while True:
        a = random_ep(rng)
        b = a + rng.choice([F(1), F(2), F(3), F(5), F(1, 2), F(7)])
        lc, rc = rng.choice("(["), rng.choice(")]")
        iv = (a, b, lc, rc)
        r = rng.random()
        if r < 0.25:  # unions of two disjoint pieces
            c = b + rng.choice([F(1), F(2), F(1, 2)])
            d = c + rng.choice([F(1), F(3)])
            iv2 = (c, d, rng.choice("(["), rng.choice(")]"))
            ref = union_tex([iv, iv2], rng, canonical=True)
            if rng.random() < 0.5:
                pred = union_tex([iv2, iv], rng)
                yield ref, pred, True, "same union, pieces swapped"
            else:
                k = rng.randint(0, 2)
                if k == 0:
                    pred, why = union_tex([iv, flip_end(iv2, rng)], rng), "an endpoint changes"
                elif k == 1:
                    pred, why = union_tex([iv2], rng), "missing a piece"
                else:
                    pred, why = interval_tex((a, d, lc, iv2[3]), rng), "gap filled"
                yield ref, pred, False, why
            continue
        ref = interval_tex(iv, rng, rng.randint(0, 1), canonical=True)
        if r < 0.6:
            pred = interval_tex(iv, rng)
            if rng.random() < 0.25:
                pred = rng.choice([r"x \in ", r"x\in", r"t \in "]) + pred
            if pred != ref:
                yield ref, pred, True, f"same interval {iv_str(iv)}"
        else:
            k = rng.randint(0, 3)
            if k == 0:
                iv2 = flip_end(iv, rng)
            elif k == 1:
                iv2 = (a, b + 1, lc, rc)
            elif k == 2:
                iv2 = (a - 1, b, lc, rc)
            else:
                items = ", ".join(ep_forms(a)[0:1] + ep_forms(b)[0:1])
                yield ref, rf"\{{{items}\}}", False, "interval vs set of its ends"
                continue
            yield ref, interval_tex(iv2, rng), False, f"{iv_str(iv)} != {iv_str(iv2)}"


# ---------------------------------------------------------------------------------------------
# set
# ---------------------------------------------------------------------------------------------

SET_SEEDS = [
    T(r"\{1,2,3\}", r"\{3,2,1\}", "order is free"),
    T(r"\{1,2,3\}", r"\{2, 3, 1\}", "order is free"),
    T(r"\{1,2\}", r"\{1,1,2\}", "duplicates collapse"),
    T(r"\{1,2\}", r"\left\{1, 2\right\}", "left/right"),
    T(r"\{1,2,3\}", "1, 2, 3", "bare list against a set"),
    T(r"\{-1,1\}", "1, -1", "bare list, any order"),
    T(r"\emptyset", r"\varnothing", "empty set symbols"),
    T(r"\emptyset", r"\{\}", "empty braces"),
    T(r"\varnothing", r"\{ \}", "empty braces"),
    T(r"\{\frac{1}{2}, 2\}", r"\{2, 0.5\}", "1/2 = 0.5, order free"),
    T(r"\{-2, 3\}", r"\{3,-2\}", "order is free"),
    T(r"\{0\}", r"\{0,0\}", "duplicate"),
    N(r"\{1,2\}", r"\{1,2,3\}", "extra element"),
    N(r"\{1,2,3\}", r"\{1,2\}", "missing element"),
    N(r"\{1,2\}", "(1,2)", "set vs tuple"),
    N(r"\{1,2,3\}", "(1,2,3)", "set vs tuple"),
    N(r"\{1,2\}", "[1,2]", "set vs interval"),
    N(r"\emptyset", r"\{0\}", "0 is an element"),
    N(r"\emptyset", "0", "empty set vs zero"),
    N(r"\{1,2\}", r"\{1,-2\}", "sign"),
    N(r"\{1,2\}", "3", "a set vs its sum"),
    N(r"\{2\}", r"\{2,-2\}", "extra root"),
    N(r"\{1,2,3\}", r"\{1,2,4\}", "element differs"),
    N(r"\{\frac{1}{2}, 2\}", r"\{0.2, 2\}", "0.2 != 1/2"),
]


def set_items(vals, rng: random.Random, vary: bool) -> list[str]:
    return [rng.choice(ep_forms(v)) if vary else ep_forms(v)[0] for v in vals]


def set_tex(items, rng: random.Random, style: int | None = None) -> str:
    if style is None:
        style = rng.randint(0, 3)
    if style == 0:
        return r"\{{{}\}}".format(",".join(items))
    if style == 1:
        return r"\{{{}\}}".format(", ".join(items))
    if style == 2:
        return r"\left\{{{}\right\}}".format(", ".join(items))
    return r"\{{ {} \}}".format(" , ".join(items))


def tuple_tex(items, rng: random.Random, style: int | None = None) -> str:
    if style is None:
        style = rng.randint(0, 3)
    if style == 0:
        return "({})".format(",".join(items))
    if style == 1:
        return "({})".format(", ".join(items))
    if style == 2:
        return r"\left({}\right)".format(", ".join(items))
    return r"\left( {} \right)".format(" , ".join(items))


def small_vals(rng: random.Random, n: int) -> list[F]:
    vals: list[F] = []
    while len(vals) < n:
        v = F(rng.randint(-12, 30)) if rng.random() < 0.85 else F(rng.choice([1, 3, 5, -1, 7]), rng.choice([2, 4]))
        if v not in vals:
            vals.append(v)
    return vals


def set_stream(rng: random.Random):
    while True:
        vals = small_vals(rng, rng.randint(2, 5))
        ref = set_tex(set_items(sorted(vals), rng, False), rng, rng.randint(0, 1))
        if rng.random() < 0.5:
            perm = vals[:]
            rng.shuffle(perm)
            k = rng.randint(0, 3)
            if k == 0 and len(vals) <= 4:
                perm.insert(rng.randint(0, len(perm)), rng.choice(vals))
                why = "same set, with a duplicate"
            elif k == 1:
                pred = ", ".join(set_items(perm, rng, True))
                yield ref, pred, True, "bare list, same elements"
                continue
            else:
                why = "same set, reordered"
            pred = set_tex(set_items(perm, rng, True), rng)
            if pred != ref:
                yield ref, pred, True, why
        else:
            k = rng.randint(0, 4)
            other = vals[:]
            rng.shuffle(other)
            if k == 0:
                other.pop()
                why = "missing element"
            elif k == 1:
                new = small_vals(rng, len(vals) + 1)
                extra = next(v for v in new if v not in vals)
                other.insert(rng.randint(0, len(other)), extra)
                why = "extra element"
            elif k == 2:
                i = rng.randrange(len(other))
                nv = other[i] + rng.choice([1, -1, 2])
                if nv in vals:
                    continue
                other[i] = nv
                why = "element differs"
            elif k == 3:
                i = rng.randrange(len(other))
                if other[i] == 0 or -other[i] in vals:
                    continue
                other[i] = -other[i]
                why = "sign of an element"
            else:
                yield ref, tuple_tex(set_items(sorted(vals), rng, False), rng), False, "set vs tuple"
                continue
            assert set(other) != set(vals)
            if rng.random() < 0.25:
                pred = ", ".join(set_items(other, rng, True))
            else:
                pred = set_tex(set_items(other, rng, True), rng)
            yield ref, pred, False, why


# ---------------------------------------------------------------------------------------------
# tuple
# ---------------------------------------------------------------------------------------------

TUPLE_SEEDS = [
    T("(1,2)", "(1, 2)", "spacing"),
    T("(1,2)", "1,2", "bare list against a tuple"),
    T("(1,2)", "1, 2", "bare list against a tuple"),
    T("(0.5,1)", r"(\frac12, 1)", "1/2 = 0.5"),
    T("(1,2)", r"(x,y)=(1,2)", "point written as an equation"),
    T("(3,-1)", r"\left(3, -1\right)", "left/right"),
    T("(1,2,3)", r"\left( 1 , 2 , 3 \right)", "spacing"),
    T(r"\left(\frac{1}{2}, -\frac{3}{4}\right)", "(0.5, -0.75)", "exact decimals"),
    T("(2,4)", r"(\frac{4}{2}, \frac{8}{2})", "unreduced fractions"),
    T("(-1,0)", "(-1, 0)", "spacing"),
    T("(1,2)", r"(x, y) = (1, 2)", "point written as an equation"),
    N("(1,2)", "(2,1)", "order matters"),
    N("(1,2)", "(1,2,3)", "different length"),
    N("(1, 2)", "[1, 2]", "tuple vs closed interval"),
    N("(1, 2)", r"\{1,2\}", "tuple vs set"),
    N("(3,-1)", "(-1,3)", "order matters"),
    N("(1,2,3)", "(3,2,1)", "order matters"),
    N("(1,-2)", "(1,2)", "sign"),
    N("(1,2)", "2,1", "bare list in the other order"),
    N("(1,2)", "12", "a number, not a pair"),
    N("(1,2)", "3", "a number, not a pair"),
    N("(0.5,1)", r"(\frac{1}{5}, 1)", "0.2 != 0.5"),
]


def tuple_stream(rng: random.Random):
    while True:
        n = 2 if rng.random() < 0.7 else 3
        vals = small_vals(rng, n)
        ref = tuple_tex(set_items(vals, rng, False), rng, rng.randint(0, 1))
        if rng.random() < 0.5:
            k = rng.randint(0, 3)
            items = set_items(vals, rng, True)
            if k == 0:
                pred = ", ".join(items)
                why = "bare list, same order"
            elif k == 1:
                pred = ("(x, y) = %s" if n == 2 else "(x, y, z) = %s") % tuple_tex(items, rng)
                why = "point written as an equation"
            else:
                pred = tuple_tex(items, rng)
                why = "same tuple"
            if pred != ref:
                yield ref, pred, True, why
        else:
            k = rng.randint(0, 4)
            other = vals[:]
            if k == 0:
                i, j = rng.sample(range(n), 2)
                other[i], other[j] = other[j], other[i]
                why = "order matters"
            elif k == 1:
                i = rng.randrange(n)
                other[i] = other[i] + rng.choice([1, -1, 3])
                why = "entry differs"
            elif k == 2:
                i = rng.randrange(n)
                if other[i] == 0:
                    continue
                other[i] = -other[i]
                why = "sign of an entry"
            elif k == 3:
                yield ref, set_tex(set_items(vals, rng, False), rng), False, "tuple vs set"
                continue
            else:
                if n != 2 or vals[0] >= vals[1]:
                    continue
                yield ref, "[{}, {}]".format(*tuple(set_items(vals, rng, False))), False, "tuple vs closed interval"
                continue
            if other == vals:
                continue
            items = set_items(other, rng, True)
            pred = ", ".join(items) if rng.random() < 0.2 else tuple_tex(items, rng)
            yield ref, pred, False, why


# ---------------------------------------------------------------------------------------------
# matrix
# ---------------------------------------------------------------------------------------------

MATRIX_SEEDS = [
    T(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{bmatrix}1&2\\3&4\end{bmatrix}", "same entries"),
    T(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", "spacing"),
    T(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\left(\begin{array}{cc}1&2\\3&4\end{array}\right)", "array form"),
    T(r"\begin{pmatrix}\frac{1}{2}&0\\0&1\end{pmatrix}", r"\begin{pmatrix}0.5&0\\0&1\end{pmatrix}", "1/2 = 0.5"),
    T(r"\begin{pmatrix}1\\2\end{pmatrix}", r"\begin{bmatrix}1\\2\end{bmatrix}", "column vector"),
    T(r"\begin{bmatrix}-1&0\\0&-1\end{bmatrix}", r"\begin{pmatrix}-1&0\\0&-1\end{pmatrix}", "same entries"),
    T(r"\begin{pmatrix}1&0\\0&1\end{pmatrix}", r"\left[\begin{matrix}1&0\\0&1\end{matrix}\right]", "matrix env"),
    T(r"\begin{pmatrix}2&4\\6&8\end{pmatrix}", r"\begin{pmatrix}\frac{4}{2}&4\\6&\frac{16}{2}\end{pmatrix}",
      "unreduced entries"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}1&3\\2&4\end{pmatrix}", "transpose"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}3&4\\1&2\end{pmatrix}", "rows swapped"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}1&2\\3&5\end{pmatrix}", "entry differs"),
    N(r"\begin{pmatrix}1\\2\end{pmatrix}", r"\begin{pmatrix}1&2\end{pmatrix}", "column vs row"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", "-2", "matrix vs its determinant"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}1&2&3&4\end{pmatrix}", "different shape"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}2&1\\4&3\end{pmatrix}", "columns swapped"),
    N(r"\begin{pmatrix}1&0\\0&1\end{pmatrix}", "1", "identity matrix vs 1"),
]


def matrix_tex(rows, rng: random.Random, vary: bool, env: int | None = None) -> str:
    cells = [[rng.choice(ep_forms(v)) if vary else ep_forms(v)[0] for v in r] for r in rows]
    colsep = rng.choice(["&", " & "]) if vary else "&"
    rowsep = rng.choice([r"\\", r" \\ "]) if vary else r"\\"
    body = rowsep.join(colsep.join(r) for r in cells)
    if env is None:
        env = rng.randint(0, 4)
    if env == 0:
        return rf"\begin{{pmatrix}}{body}\end{{pmatrix}}"
    if env == 1:
        return rf"\begin{{bmatrix}}{body}\end{{bmatrix}}"
    if env == 2:
        return rf"\left(\begin{{matrix}}{body}\end{{matrix}}\right)"
    if env == 3:
        return rf"\left[\begin{{matrix}}{body}\end{{matrix}}\right]"
    return r"\left(\begin{{array}}{{{}}}{}\end{{array}}\right)".format("c" * len(rows[0]), body)


def matrix_stream(rng: random.Random):
    shapes = [(2, 2), (2, 2), (2, 2), (3, 3), (2, 3), (3, 2), (1, 3), (3, 1), (2, 1)]
    while True:
        r, c = rng.choice(shapes)
        rows = [[F(rng.randint(-9, 9)) if rng.random() < 0.9 else F(rng.choice([1, -1, 3]), 2) for _ in range(c)]
                for _ in range(r)]
        ref = matrix_tex(rows, rng, False, rng.randint(0, 1))
        if rng.random() < 0.5:
            pred = matrix_tex(rows, rng, True)
            if pred != ref:
                yield ref, pred, True, "same %dx%d matrix" % (r, c)
        else:
            k = rng.randint(0, 3)
            if k == 0:
                other = [list(x) for x in zip(*rows, strict=False)]
                why = "transpose"
            elif k == 1:
                if r < 2:
                    continue
                other = [rows[1], rows[0], *rows[2:]]
                why = "rows swapped"
            elif k == 2:
                other = [row[:] for row in rows]
                i, j = rng.randrange(r), rng.randrange(c)
                other[i][j] += rng.choice([1, -1, 2])
                why = "entry differs"
            else:
                other = [row[:] for row in rows]
                i, j = rng.randrange(r), rng.randrange(c)
                if other[i][j] == 0:
                    continue
                other[i][j] = -other[i][j]
                why = "sign of an entry"
            if other == rows:
                continue
            yield ref, matrix_tex(other, rng, True), False, why


# ---------------------------------------------------------------------------------------------
# polynomials (shared by equation / expression_variables)
# ---------------------------------------------------------------------------------------------


def poly_trim(p):
    p = list(p)
    while len(p) > 1 and p[-1] == 0:
        p.pop()
    return p


def mono(c: int, k: int, var: str) -> str:
    if k == 0:
        return str(c)
    body = var if k == 1 else "%s^{%d}" % (var, k) if k >= 10 else "%s^%d" % (var, k)
    return term(c, body)


def poly_tex(p, var: str = "x", order=None, spaced: bool = True) -> str:
    """Render coefficient list p; order: list of powers (default descending)."""
    powers = [k for k in range(len(p) - 1, -1, -1) if p[k] != 0] if order is None else [k for k in order if p[k]]
    if not powers:
        return "0"
    terms = [mono(p[k], k, var) for k in powers]
    return join_signed(terms[0], terms[1:], spaced)


# ---------------------------------------------------------------------------------------------
# equation
# ---------------------------------------------------------------------------------------------

EQUATION_SEEDS = [
    T("3", "x=3", "solution written as an equation"),
    T("x=3", "3", "bare value of x"),
    T("x=3", "x = 3", "spacing"),
    T("x = 3", "3 = x", "sides swapped"),
    T("3", "3=x", "sides swapped"),
    T("2x+1", "y=2x+1", "bare expression reference"),
    T("2x+1", "y = 1 + 2x", "reordered right side"),
    T("x^2+1", "f(x)=x^2+1", "function notation"),
    T("1, 2", "x=1, x=2", "solutions listed"),
    T("1, 2", "x = 2, x = 1", "solutions form a set"),
    T(r"\{1,2\}", "x=1, x=2", "solution set"),
    T("x=1, x=2", "1, 2", "bare solutions"),
    T("x=1, x=2", r"\{1,2\}", "solution set"),
    T("x=1, x=2", r"\{2,1\}", "solution set, any order"),
    T(r"x=\frac{1}{2}", "0.5", "1/2 = 0.5"),
    T(r"x = \pm 2", "x=2, x=-2", "plus-minus expands"),
    T(r"\pm 3", "3, -3", "plus-minus expands"),
    T("y=2x+1", "y = 1+2x", "same equation"),
    T("1, 2", r"x=1 \text{ or } x=2", "solutions joined by or"),
    T("-4", r"x=-4", "negative solution"),
    N("x=3", "x=4", "different value"),
    N("3", "x=-3", "sign"),
    N("2x+1", "y=2x-1", "different expression"),
    N("1, 2", "x=1", "missing a solution"),
    N("1, 2", "x=1, x=3", "wrong solution"),
    N(r"\{1,2\}", "x=1, x=2, x=3", "extra solution"),
    N("x=3", "3x", "a product, not a solution"),
    N("x=3", r"x=\frac{1}{3}", "reciprocal"),
    N(r"x=\pm 2", "x=2", "missing -2"),
    N("x=5", "x^2=25", "x^2=25 also has -5"),
    N("y=2x+1", "y=x+2", "different line"),
    N("2x+1", "2x+1=0", "an equation, not the expression"),
]

EQ_VARS = ["x", "y", "z", "t", "n", "k", "a", "m"]


def equation_stream(rng: random.Random):
    while True:
        kind = rng.random()
        var = rng.choice(EQ_VARS)
        if kind < 0.5:  # single value
            v = random_ep(rng, -20, 40)
            w = v + rng.choice([F(1), F(-1), F(2), F(1, 2)]) if rng.random() < 0.7 else -v
            if w == v:
                continue
            eq = rng.random() < 0.5
            x = v if eq else w
            xs = rng.choice(ep_forms(x))
            pred_forms = [f"{var}={xs}", f"{var} = {xs}", f"{xs} = {var}"]
            shape = rng.randint(0, 2)
            vs = ep_forms(v)[0]
            if shape == 0:
                ref, pred = vs, rng.choice(pred_forms)
            elif shape == 1:
                ref, pred = f"{var}={vs}", xs
            else:
                ref, pred = f"{var}={vs}", rng.choice(pred_forms)
            if ref == pred:
                continue
            yield ref, pred, eq, (f"{v} solves it") if eq else (f"{w} != {v}")
        elif kind < 0.75:  # bare expression vs y = expression
            a = rng.choice([x for x in range(-9, 10) if x not in (0,)])
            b = rng.choice([x for x in range(-9, 10) if x != 0])
            c = rng.choice([0, 0, rng.randint(-5, 5)])
            p = [b, a] if not c else [b, a, c]
            ref = poly_tex(p)
            dv = rng.choice(["y", "f(x)", "g(x)"])
            if rng.random() < 0.5:
                order = list(range(len(p)))
                rng.shuffle(order)
                pred = f"{dv} = {poly_tex(p, order=order, spaced=rng.random() < 0.5)}"
                yield ref, pred, True, "same right side"
            else:
                q = list(p)
                i = rng.randrange(len(q))
                q[i] += rng.choice([1, -1, 2])
                q = poly_trim(q)
                if q == poly_trim(p) or all(x == 0 for x in q):
                    continue
                yield ref, f"{dv} = {poly_tex(q)}", False, "different right side"
        else:  # two solutions
            r1, r2 = sorted(rng.sample(range(-9, 13), 2))
            ref = rng.choice(["%d, %d" % (r1, r2), r"\{%d, %d\}" % (r1, r2), "%s=%d, %s=%d" % (var, r1, var, r2)])
            if rng.random() < 0.5:
                s1, s2 = (r1, r2) if rng.random() < 0.5 else (r2, r1)
                pred = rng.choice([
                    "%s = %d, %s = %d" % (var, s1, var, s2),
                    r"%s=%d \text{ or } %s=%d" % (var, s1, var, s2),
                    r"\{%d, %d\}" % (s1, s2),
                    "%s=%d,\\ %s=%d" % (var, s1, var, s2),
                ])
                yield ref, pred, True, "same solutions {%d, %d}" % (r1, r2)
            else:
                k = rng.randint(0, 2)
                if k == 0:
                    pred, why = "%s = %d" % (var, rng.choice([r1, r2])), "missing a solution"
                elif k == 1:
                    r3 = r2 + rng.choice([1, 2])
                    pred, why = "%s = %d, %s = %d" % (var, r1, var, r3), "wrong solution"
                else:
                    pred, why = "%s = %d, %s = %d" % (var, -r1, var, -r2), "signs flipped"
                    if {-r1, -r2} == {r1, r2}:
                        continue
                yield ref, pred, False, why


# ---------------------------------------------------------------------------------------------
# inequality
# ---------------------------------------------------------------------------------------------

INEQUALITY_SEEDS = [
    T("x>3", "3<x", "sides swapped"),
    T("x>3", r"x \gt 3", "gt command"),
    T(r"x\geq3", r"[3,\infty)", "solution set"),
    T(r"x\ge 3", r"x \geq 3", "ge vs geq"),
    T(r"x \leq -2", r"(-\infty,-2]", "solution set"),
    T("-1<x<2", "(-1,2)", "solution set"),
    T(r"-1<x\le 2", "(-1,2]", "solution set"),
    T("x>3", r"(3,\infty)", "solution set"),
    T("x>3", "2x>6", "same solution set"),
    T("x<-3", "-x>3", "multiply by -1 flips"),
    T(r"x\ne 3", r"(-\infty,3)\cup(3,\infty)", "all but 3"),
    T(r"x \geq 3", r"x\geqslant 3", "geqslant"),
    T(r"[3,\infty)", r"x\ge3", "solution set"),
    T(r"0\le x\le 1", "[0,1]", "solution set"),
    T("x>3", r"x \in (3, \infty)", "membership form"),
    N(r"x\ge 3", "x>3", "3 excluded"),
    N("x<3", r"x\le3", "3 included"),
    N("x>3", r"[3,\infty)", "3 included"),
    N("x>3", "x<3", "direction reversed"),
    N("x>3", "3", "a number, not a set"),
    N("x > 3", "x>4", "different bound"),
    N("x<-3", "-x<3", "forgot to flip"),
    N("x<-3", "x>-3", "direction reversed"),
    N("-1<x<2", "[-1,2]", "ends included"),
    N("-1<x<2", "(-1,2]", "2 included"),
    N(r"x\ne 3", r"(3,\infty)", "missing the left part"),
    N("x>3", r"(-\infty,3)", "other side"),
    N("x>3", "3>x", "direction reversed"),
]

OPS = {
    ">": [">", r"\gt "],
    "<": ["<", r"\lt "],
    ">=": [r"\ge ", r"\geq ", r"\geqslant "],
    "<=": [r"\le ", r"\leq ", r"\leqslant "],
}
MIRROR = {">": "<", "<": ">", ">=": "<=", "<=": ">="}


def ineq_interval(op: str, a: F):
    return {">": (a, INF, "(", ")"), ">=": (a, INF, "[", ")"), "<": (NINF, a, "(", ")"),
            "<=": (NINF, a, "(", "]")}[op]


def op_tex(op: str, rng: random.Random, canonical: bool) -> str:
    return OPS[op][0] if canonical else rng.choice(OPS[op])


def ineq_tex(var: str, op: str, a: F, rng: random.Random, canonical: bool = False) -> str:
    a_s = ep_forms(a)[0] if canonical else rng.choice(ep_forms(a))
    if canonical or rng.random() < 0.7:
        s = f"{var}{op_tex(op, rng, canonical)}{a_s}"
    else:
        s = f"{a_s}{op_tex(MIRROR[op], rng, canonical)}{var}"
    if not canonical and rng.random() < 0.4:
        s = s.replace(">", " > ").replace("<", " < ").replace("  ", " ")
    return s.replace(" ", "") if canonical and "\\" not in s else s.strip()


def inequality_stream(rng: random.Random):
    while True:
        var = rng.choice(["x", "x", "x", "t", "y"])
        a = random_ep(rng, -12, 12)
        r = rng.random()
        if r < 0.25:  # two-sided
            b = a + rng.choice([F(1), F(2), F(5), F(1, 2)])
            lop, rop = rng.choice(["<", "<="]), rng.choice(["<", "<="])
            ref = f"{ep_forms(a)[0]}{op_tex(lop, rng, True)}{var}{op_tex(rop, rng, True)}{ep_forms(b)[0]}"
            iv = (a, b, "(" if lop == "<" else "[", ")" if rop == "<" else "]")
            if rng.random() < 0.5:
                yield ref, interval_tex(iv, rng), True, f"solution set {iv_str(iv)}"
            else:
                iv2 = flip_end(iv, rng) if rng.random() < 0.6 else (a, b + 1, iv[2], iv[3])
                yield ref, interval_tex(iv2, rng), False, f"{iv_str(iv)} != {iv_str(iv2)}"
            continue
        op = rng.choice([">", "<", ">=", "<="])
        ref = ineq_tex(var, op, a, rng, canonical=True) if rng.random() < 0.7 else interval_tex(
            ineq_interval(op, a), rng, 1, True)
        iv = ineq_interval(op, a)
        if r < 0.6:
            k = rng.randint(0, 3)
            if k == 0:
                pred = interval_tex(iv, rng)
            elif k == 1:
                pred = f"{var} \\in {interval_tex(iv, rng)}"
            elif k == 2:
                pred = ineq_tex(var, op, a, rng)
            else:  # scaled by a positive or negative factor
                m = rng.choice([2, 3, -1, -2])
                op2 = op if m > 0 else MIRROR[op]
                coef = {2: "2", 3: "3", -1: "-", -2: "-2"}[m]
                pred = f"{coef}{var}{op_tex(op2, rng, False)}{rng.choice(ep_forms(a * m))}"
            if pred != ref:
                yield ref, pred, True, f"solution set {iv_str(iv)}"
        else:
            k = rng.randint(0, 4)
            if k == 0:
                op2, a2 = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}[op], a
            elif k == 1:
                op2, a2 = MIRROR[op], a
            elif k == 2:
                op2, a2 = op, a + rng.choice([1, -1])
            elif k == 3:  # multiplied by a negative number without flipping
                m = rng.choice([-1, -2])
                coef = {-1: "-", -2: "-2"}[m]
                if a == 0:
                    continue
                pred = f"{coef}{var}{op_tex(op, rng, False)}{rng.choice(ep_forms(a * m))}"
                yield ref, pred, False, "forgot to flip the inequality"
                continue
            else:
                yield ref, rng.choice(ep_forms(a)), False, "a number, not a set"
                continue
            iv2 = ineq_interval(op2, a2)
            pred = interval_tex(iv2, rng) if rng.random() < 0.4 else ineq_tex(var, op2, a2, rng)
            yield ref, pred, False, f"{iv_str(iv)} != {iv_str(iv2)}"


# ---------------------------------------------------------------------------------------------
# expression_variables
# ---------------------------------------------------------------------------------------------

EXPRESSION_SEEDS = [
    T("(x+1)^2", "x^2+2x+1", "square expanded"),
    T("x^2+2x+1", "(x+1)^2", "factored"),
    T("x(x+1)", "x^2+x", "distributed"),
    T(r"\frac{x^2-1}{x-1}", "x+1", "equal as expressions; the fraction is undefined at x=1"),
    T("x+1", "1+x", "commuted sum"),
    T("2x", r"x\cdot 2", "commuted product"),
    T("2x", r"2 \times x", "times sign"),
    T("xy", "yx", "commuted product"),
    T(r"\frac{x}{2}", "0.5x", "exact coefficient"),
    T(r"\frac{x}{2}", "x/2", "slash form"),
    T(r"\frac{x}{2}", r"\frac{1}{2}x", "coefficient form"),
    T("(a+b)^2", "a^2+2ab+b^2", "square expanded"),
    T("(x+y)(x-y)", "x^2-y^2", "difference of squares"),
    T("a(b+c)", "ab+ac", "distributed"),
    T(r"\frac{1}{x}+\frac{1}{y}", r"\frac{x+y}{xy}", "common denominator"),
    T(r"\frac{x}{2}+\frac{x}{3}", r"\frac{5x}{6}", "common denominator"),
    T(r"\sin^2 x + \cos^2 x", "1", "Pythagorean identity"),
    T(r"\sin(2x)", r"2\sin x\cos x", "double angle"),
    T(r"\cos(2x)", r"\cos^2 x - \sin^2 x", "double angle"),
    T(r"\tan x", r"\frac{\sin x}{\cos x}", "definition of tan"),
    T("(x-2)(x+3)", "(x+3)(x-2)", "commuted factors"),
    T("x^2-5x+6", "(x-2)(x-3)", "factored"),
    T("(x+1)^3", "x^3+3x^2+3x+1", "cube expanded"),
    T(r"\frac{x^2+2x}{x}", "x+2", "equal as expressions; undefined at x=0"),
    T("2(x+3)", "2x+6", "distributed"),
    T("-(x-1)", "1-x", "negated"),
    T(r"\frac{2x+4}{2}", "x+2", "divided through"),
    T("3x-2x", "x", "collected"),
    T("x+x+x", "3x", "collected"),
    T(r"e^{x}e^{y}", r"e^{x+y}", "exponent law"),
    N("2x", "2y", "different variable"),
    N("x", "y", "different variable"),
    N("(x+1)^2", "x^2+1", "missing cross term"),
    N("(x-y)^2", "x^2-y^2", "not a difference of squares"),
    N("x(x+1)", "x^2+1", "distribution error"),
    N(r"\frac{x^2-1}{x-1}", "x-1", "wrong sign"),
    N(r"\sin^2 x+\cos^2 x", "2", "identity gives 1"),
    N(r"\sin(2x)", r"2\sin x", "not linear"),
    N(r"\cos(2x)", r"2\cos x", "not linear"),
    N("x^2-5x+6", "(x+2)(x+3)", "wrong signs"),
    N("(x+1)^3", "x^3+1", "missing middle terms"),
    N(r"\frac{x}{2}", r"\frac{2}{x}", "reciprocal"),
    N("2x+6", "2(x+6)", "distribution error"),
    N("-(x-1)", "-x-1", "sign error"),
    N(r"\frac{1}{x}+\frac{1}{y}", r"\frac{1}{x+y}", "fractions do not add that way"),
    N("ab", "a+b", "product vs sum"),
    N(r"\tan x", r"\frac{\cos x}{\sin x}", "that is cot"),
    N(r"\sqrt{x^2+9}", "x+3", "root of a sum"),
    N(r"\frac{1}{2}x", r"\frac{1}{2x}", "x in the denominator"),
]


def mp_mul(p: dict, q: dict) -> dict:
    out: dict = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = (m1[0] + m2[0], m1[1] + m2[1])
            out[m] = out.get(m, 0) + c1 * c2
    return {m: c for m, c in out.items() if c}


def mp_mono(m, vx: str, vy: str) -> str:
    s = ""
    for v, e in ((vx, m[0]), (vy, m[1])):
        if e == 1:
            s += v
        elif e > 1:
            s += "%s^%d" % (v, e)
    return s


def mp_tex(p: dict, rng: random.Random | None = None, vx: str = "x", vy: str = "y", spaced: bool = True) -> str:
    mons = sorted(p, key=lambda m: (-(m[0] + m[1]), -m[0]))
    if rng is not None:
        rng.shuffle(mons)
    terms = [term(p[m], mp_mono(m, vx, vy)) for m in mons]
    return join_signed(terms[0], terms[1:], spaced) if terms else "0"


def factored_tex(lead: int, factors, vx: str = "x", vy: str = "y") -> str:
    """lead * prod(factors); equal factors are grouped into a power."""
    groups: list = []
    for f in factors:
        for g in groups:
            if g[0] == f:
                g[1] += 1
                break
        else:
            groups.append([f, 1])
    parts = []
    for f, k in groups:
        body = mp_tex(f, None, vx, vy)
        single = len(f) == 1 and next(iter(f.values())) == 1
        s = body if single else f"({body})"
        parts.append(s if k == 1 else "%s^%d" % (s, k))
    prefix = {1: "", -1: "-"}.get(lead, str(lead))
    if parts and parts[0][0] != "(" and prefix not in ("", "-"):
        prefix += r"\cdot " if parts[0][0].isdigit() else ""
    return prefix + "".join(parts)


def mp_product(lead: int, factors) -> dict:
    p = {(0, 0): lead}
    for f in factors:
        p = mp_mul(p, f)
    return p


def lin(a: int, b: int, c: int) -> dict:
    """a*x + b*y + c"""
    return {m: v for m, v in (((1, 0), a), ((0, 1), b), ((0, 0), c)) if v}


def expression_stream(rng: random.Random):
    while True:
        r = rng.random()
        vx = rng.choice(["x", "x", "x", "t", "a"])
        vy = "b" if vx == "a" else "y"
        if r < 0.45:  # one variable, integer roots
            lead = rng.choice([1, 1, 1, 2, -1, 3])
            roots = [rng.randint(-6, 6) for _ in range(rng.randint(2, 3))]
            factors = [lin(1, 0, -x) for x in roots]
        elif r < 0.8:  # two variables
            f1 = lin(rng.randint(1, 3), rng.choice([-3, -2, -1, 1, 2, 3]), 0)
            f2 = dict(f1) if rng.random() < 0.4 else lin(rng.randint(1, 3), rng.choice([-3, -2, -1, 1, 2, 3]),
                                                         rng.choice([0, 0, 1, -2]))
            lead = rng.choice([1, 1, 2])
            factors = [f1, f2]
        else:  # rational expression that cancels
            a, b = rng.sample(range(-6, 7), 2)
            num = mp_product(1, [lin(1, 0, -a), lin(1, 0, -b)])
            den = lin(1, 0, -a)
            frac = rf"\frac{{{mp_tex(num, None, vx, vy)}}}{{{mp_tex(den, None, vx, vy)}}}"
            if rng.random() < 0.5:
                why = "cancels %s; the fraction is undefined only at %s=%d" % (mp_tex(den, None, vx, vy), vx, a)
                yield frac, mp_tex(lin(1, 0, -b), rng, vx, vy), True, why
            else:
                wrong = lin(1, 0, b) if b != 0 else lin(1, 0, 1)
                if wrong == lin(1, 0, -b):
                    continue
                yield frac, mp_tex(wrong, rng, vx, vy), False, "wrong factor left after cancelling"
            continue
        expanded = mp_product(lead, factors)
        fact = factored_tex(lead, factors, vx, vy)
        if rng.random() < 0.5:
            if rng.random() < 0.7:
                ref, pred = fact, mp_tex(expanded, rng if rng.random() < 0.4 else None, vx, vy, rng.random() < 0.5)
            else:
                ref, pred = mp_tex(expanded, None, vx, vy), fact
            if ref == pred:
                continue
            yield ref, pred, True, "expands to the same polynomial"
        else:
            if rng.random() < 0.5:  # perturb the expanded form
                q = dict(expanded)
                m = rng.choice(sorted(q))
                q[m] += rng.choice([1, -1, 2])
                q = {k: v for k, v in q.items() if v}
                ref, pred = fact, mp_tex(q, None, vx, vy)
            else:  # perturb one factor
                i = rng.randrange(len(factors))
                f = dict(factors[i])
                m = rng.choice(sorted(f))
                f[m] = -f[m]
                other = [*factors[:i], f, *factors[i + 1:]]
                q = mp_product(lead, other)
                ref, pred = mp_tex(expanded, None, vx, vy), factored_tex(lead, other, vx, vy)
            if q == expanded or not q:
                continue
            yield ref, pred, False, "different polynomial"


# ---------------------------------------------------------------------------------------------
# trig_log
# ---------------------------------------------------------------------------------------------

TRIG_LOG_SEEDS = [
    T(r"\frac12", r"\sin\frac{\pi}{6}", "sin 30 degrees"),
    T(r"\sin\frac{\pi}{6}", r"\frac{1}{2}", "sin 30 degrees"),
    T("3", r"\log_2 8", "2^3 = 8"),
    T("1", r"\ln e", "ln e = 1"),
    T("1", r"\cos 0", "cos 0 = 1"),
    T("1", r"\tan\frac{\pi}{4}", "tan 45 degrees"),
    T("-1", r"\cos\pi", "cos pi"),
    T("0", r"\sin\pi", "sin pi"),
    T(r"\frac{\pi}{2}", r"\arcsin 1", "arcsin 1"),
    T(r"\frac{\pi}{4}", r"\arctan 1", "arctan 1"),
    T(r"\frac{\pi}{3}", r"\arccos\frac12", "arccos 1/2"),
    T(r"\frac{\pi}{3}", r"\arctan\sqrt{3}", "arctan sqrt3"),
    T(r"\frac{\pi}{2}", r"\arccos 0", "arccos 0"),
    T(r"\pi", r"\arccos(-1)", "arccos -1"),
    T(r"\frac{3}{4}", r"\sin^2\frac{\pi}{3}", "(sqrt3/2)^2"),
    T(r"\cos\frac{\pi}{3}", r"\sin\frac{\pi}{6}", "both 1/2"),
    T(r"\sqrt{3}", r"\tan\frac{\pi}{3}", "tan 60 degrees"),
    T("1", r"\sec 0", "sec 0"),
    T("1", r"\cot\frac{\pi}{4}", "cot 45 degrees"),
    T("2", r"\csc\frac{\pi}{6}", "1/sin 30 degrees"),
    T(r"\log_2 3", r"\frac{\ln 3}{\ln 2}", "change of base"),
    T(r"\log_2 8", r"\log_3 27", "both 3"),
    T("5", r"\log_2 8 + \log_2 4", "3 + 2"),
    T("3", r"\log_{10} 1000", "10^3"),
    T("2", r"\ln e^{2}", "ln e^2"),
    T("5", r"e^{\ln 5}", "inverse functions"),
    T(r"\ln 6", r"\ln 2 + \ln 3", "log of a product"),
    T(r"2\ln 3", r"\ln 9", "power rule"),
    N(r"\sin\frac{\pi}{6}", r"\frac{\sqrt3}{2}", "that is sin 60 degrees"),
    N(r"\cos\frac{\pi}{3}", r"\frac{\sqrt{3}}{2}", "that is cos 30 degrees"),
    N(r"\log_2 8", "4", "log2 8 = 3"),
    N(r"\arcsin\frac12", r"\frac{\pi}{3}", "arcsin 1/2 = pi/6"),
    N(r"\sin\frac{\pi}{4}", "0.7071", "rounded irrational"),
    N(r"\cos\frac{\pi}{6}", "0.866", "rounded irrational"),
    N(r"\sin 1", "0.841", "rounded irrational"),
    N(r"\ln 2", "0.693", "rounded irrational"),
    N(r"\log_2 3", "1.585", "rounded irrational"),
    N(r"\log_{10} 1000", "4", "10^3"),
    N(r"\ln e", "e", "ln e = 1"),
    N("0", r"\cos 0", "cos 0 = 1"),
    N(r"\tan\frac{\pi}{4}", r"\frac{\sqrt{2}}{2}", "that is sin 45 degrees"),
    N(r"\ln 6", r"\ln 2 \cdot \ln 3", "product of logs"),
    N(r"\log_2 8", r"\log_8 2", "base and argument swapped"),
    N(r"\frac{\pi}{2}", r"\arctan 1", "arctan 1 = pi/4"),
    N("1", r"\sin\frac{\pi}{2}+\cos\frac{\pi}{2}+1", "1 + 0 + 1 = 2"),
]

TRIG_VALUES = [  # (value, forms)
    (0.0, ["0"]),
    (0.5, [r"\frac{1}{2}", "0.5", r"\frac12"]),
    (-0.5, [r"-\frac{1}{2}", "-0.5"]),
    (math.sqrt(2) / 2, [r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", r"\frac{\sqrt2}{2}"]),
    (-math.sqrt(2) / 2, [r"-\frac{\sqrt{2}}{2}", r"-\frac{1}{\sqrt{2}}"]),
    (math.sqrt(3) / 2, [r"\frac{\sqrt{3}}{2}", r"\frac{\sqrt3}{2}"]),
    (-math.sqrt(3) / 2, [r"-\frac{\sqrt{3}}{2}"]),
    (1.0, ["1"]),
    (-1.0, ["-1"]),
    (math.sqrt(3), [r"\sqrt{3}", r"\sqrt3"]),
    (-math.sqrt(3), [r"-\sqrt{3}"]),
    (math.sqrt(3) / 3, [r"\frac{\sqrt{3}}{3}", r"\frac{1}{\sqrt{3}}"]),
    (-math.sqrt(3) / 3, [r"-\frac{\sqrt{3}}{3}", r"-\frac{1}{\sqrt{3}}"]),
]
ANGLES = [(0, 1), (1, 6), (1, 4), (1, 3), (1, 2), (2, 3), (3, 4), (5, 6), (1, 1), (7, 6), (5, 4), (4, 3), (3, 2),
          (5, 3), (7, 4), (11, 6)]


def angle_app(fn: str, n: int, d: int, rng: random.Random) -> str:
    if n == 0:
        return rng.choice([rf"\{fn} 0", rf"\{fn}(0)"])
    if (n, d) == (1, 1):
        return rng.choice([rf"\{fn}\pi", rf"\{fn} \pi", rf"\{fn}(\pi)"])
    top = r"\pi" if n == 1 else r"%d\pi" % n
    return rng.choice([r"\%s\frac{%s}{%d}" % (fn, top, d), r"\%s\left(\frac{%s}{%d}\right)" % (fn, top, d),
                       r"\%s(%s/%d)" % (fn, top, d)])


def angle_name(n: int, d: int) -> str:
    if n == 0:
        return "0"
    top = "pi" if n == 1 else "%dpi" % n
    return top if d == 1 else "%s/%d" % (top, d)


def trig_value_index(x: float) -> int | None:
    for i, (v, _) in enumerate(TRIG_VALUES):
        if abs(v - x) < 1e-12:
            return i
    return None


def trig_log_stream(rng: random.Random):
    while True:
        r = rng.random()
        if r < 0.5:
            n, d = rng.choice(ANGLES)
            fn = rng.choice(["sin", "cos", "tan"])
            ang = math.pi * n / d
            if fn == "tan" and abs(math.cos(ang)) < 1e-9:
                continue
            val = {"sin": math.sin, "cos": math.cos, "tan": math.tan}[fn](ang)
            i = trig_value_index(val)
            assert i is not None, (fn, n, d)
            expr = angle_app(fn, n, d, rng)
            if rng.random() < 0.5:
                pair = (expr, rng.choice(TRIG_VALUES[i][1]))
                if rng.random() < 0.3:
                    pair = (TRIG_VALUES[i][1][0], expr)
                yield pair[0], pair[1], True, f"{fn}({angle_name(n, d)}) = {TRIG_VALUES[i][1][0]}"
            else:
                j = rng.randrange(len(TRIG_VALUES))
                if j == i:
                    continue
                why = f"{fn}({angle_name(n, d)}) = {TRIG_VALUES[i][1][0]}"
                yield expr, rng.choice(TRIG_VALUES[j][1]), False, why
        elif r < 0.8:  # integer logs
            b = rng.randint(2, 10)
            k = rng.randint(-3, 6)
            if b ** abs(k) > 10**6:
                continue
            arg = str(b**k) if k >= 0 else r"\frac{1}{%d}" % b ** (-k)
            base = "_{%d}" % b if b >= 10 or rng.random() < 0.5 else "_%d" % b
            if arg.isdigit() and rng.random() < 0.6:
                expr = rf"\log{base} {arg}"
            else:
                expr = rf"\log{base}\left({arg}\right)" if rng.random() < 0.5 else rf"\log{base}({arg})"
            if rng.random() < 0.5:
                yield expr, str(k), True, "%d^%d = %s" % (b, k, arg)
            else:
                wrong = rng.choice([k + 1, k - 1, b**k // b if k > 1 else k + 2, -k if k else 2])
                if wrong == k:
                    continue
                yield expr, str(wrong), False, "log is %d" % k
        else:  # fractional logs and natural logs
            if rng.random() < 0.6:
                c = rng.choice([2, 3, 5])
                m, n = rng.randint(1, 4), rng.randint(1, 4)
                if m == n or c**m > 1000 or c**n > 1000:
                    continue
                v = F(n, m)
                expr = r"\log_{%d} %d" % (c**m, c**n)
                if rng.random() < 0.5:
                    yield expr, rng.choice(num_forms(v)), True, "%d^%d = (%d^%d)^(%s)" % (c, n, c, m, v)
                else:
                    w = F(m, n) if rng.random() < 0.5 else v + 1
                    if w == v:
                        continue
                    yield expr, rng.choice(num_forms(w)), False, f"log is {v}"
            else:
                k = rng.randint(-5, 9)
                expr = rng.choice([r"\ln e^{%d}" % k, r"\ln\left(e^{%d}\right)" % k, r"\ln(e^{%d})" % k])
                if rng.random() < 0.5:
                    yield expr, str(k), True, "ln e^k = k"
                else:
                    wk = rng.choice([k + 1, -k if k else 1, k * 2 if k else 3])
                    if wk == k:
                        continue
                    yield expr, str(wk), False, "ln e^%d = %d" % (k, k)


# ---------------------------------------------------------------------------------------------
# complex
# ---------------------------------------------------------------------------------------------

COMPLEX_SEEDS = [
    T("3+4i", "4i+3", "commuted sum"),
    T("-1", "i^2", "i^2 = -1"),
    T("2i", "(1+i)^2", "1 + 2i - 1"),
    T("5", "|3+4i|", "modulus"),
    T("-i", r"\frac{1}{i}", "1/i = -i"),
    T("3-4i", r"\overline{3+4i}", "conjugate"),
    T("i", r"\sqrt{-1}", "principal root"),
    T("i", r"e^{i\pi/2}", "Euler form"),
    T("1+i", r"\frac{2}{1-i}", "rationalised"),
    T("3+4i", "3 + 4i", "spacing"),
    T("-1+i", "i-1", "commuted sum"),
    T(r"\frac{1}{2}+\frac{1}{2}i", r"\frac{1+i}{2}", "common denominator"),
    T("25", "(3+4i)(3-4i)", "product with conjugate"),
    T("2", "(1+i)(1-i)", "product with conjugate"),
    T("-4", "(2i)^2", "square of 2i"),
    T("1", "i^4", "i^4 = 1"),
    T("2+3i", r"2+3\cdot i", "explicit product"),
    N("3+4i", "3-4i", "conjugate"),
    N("3+4i", "4+3i", "parts swapped"),
    N("-1", "i^3", "i^3 = -i"),
    N("5", "3+4i", "modulus vs number"),
    N("2i", "(1-i)^2", "(1-i)^2 = -2i"),
    N("-i", "i", "sign"),
    N("1+i", r"\frac{2}{1+i}", "2/(1+i) = 1-i"),
    N("i", "-1", "i is not -1"),
    N("1", "i^{2}", "i^2 = -1"),
    N("3+4i", "7", "parts added"),
    N("3+4i", "3+4", "i dropped"),
    N("i", r"\sqrt{1}", "root of +1"),
]


def imag_tex(b) -> str:
    if b == 1:
        return "i"
    if b == -1:
        return "-i"
    return f"{num_tex(F(b))}i" if F(b).denominator == 1 or dec_exact(F(b)) else f"{frac_tex(F(b))}i"


def cplx_forms(a: int, b: int) -> list[str]:
    if b == 0:
        return [str(a)]
    if a == 0:
        return [imag_tex(b)]
    re_s = str(a)
    out = [join_signed(re_s, [imag_tex(b)], False), join_signed(re_s, [imag_tex(b)], True),
           join_signed(imag_tex(b), [re_s], False), join_signed(imag_tex(b), [re_s], True),
           f"({join_signed(re_s, [imag_tex(b)], False)})"]
    if abs(b) != 1:
        out.append(join_signed(re_s, ["%d\\cdot i" % b], False))
    return out


def complex_stream(rng: random.Random):
    while True:
        r = rng.random()
        if r < 0.55:
            a = rng.choice([x for x in range(-9, 10) if x])
            b = rng.choice([x for x in range(-9, 10) if x])
            forms = cplx_forms(a, b)
            if rng.random() < 0.5:
                yield forms[0], rng.choice(forms[1:]), True, "same complex number %d%+di" % (a, b)
            else:
                cands = [(a, -b), (b, a), (-a, b), (a, b + 1), (a + b, 0)]
                a2, b2 = rng.choice(cands)
                if (a2, b2) == (a, b):
                    continue
                yield forms[0], rng.choice(cplx_forms(a2, b2)), False, "%d%+di != %d%+di" % (a, b, a2, b2)
        elif r < 0.8:  # products
            a, b, c, d = (rng.choice([x for x in range(-5, 6) if x]) for _ in range(4))
            re, im = a * c - b * d, a * d + b * c
            expr = f"({cplx_forms(a, b)[0]})({cplx_forms(c, d)[0]})"
            if rng.random() < 0.5:
                yield rng.choice(cplx_forms(re, im)), expr, True, "(%d%+di)(%d%+di) = %d%+di" % (a, b, c, d, re, im)
            else:
                re2, im2 = rng.choice([(a * c + b * d, im), (a * c, b * d), (re, -im), (re + 1, im)])
                if (re2, im2) == (re, im):
                    continue
                yield rng.choice(cplx_forms(re2, im2)), expr, False, "product is %d%+di" % (re, im)
        else:  # powers of i
            n = rng.randint(0, 60)
            cyc = [(1, 0), (0, 1), (-1, 0), (0, -1)]
            val = cyc[n % 4]
            expr = "i^{%d}" % n
            if rng.random() < 0.5:
                yield expr, cplx_forms(*val)[0], True, "i^%d, %d mod 4 = %d" % (n, n, n % 4)
            else:
                wrong = cyc[(n + rng.randint(1, 3)) % 4]
                yield expr, cplx_forms(*wrong)[0], False, "i^%d, %d mod 4 = %d" % (n, n, n % 4)


# ---------------------------------------------------------------------------------------------
# multiple_choice
# ---------------------------------------------------------------------------------------------

MC_SEEDS = [
    T("C", "(C)", "parentheses ignored"),
    T("C", "C)", "closing parenthesis ignored"),
    T("C", r"\text{C}", "text ignored"),
    T("C", r"\textbf{(C)}", "bold label"),
    T("C", "C. 12", "option text ignored"),
    T("(B)", "B", "parentheses in reference"),
    T(r"\textbf{(D)}", "D", "bold reference label"),
    T("A", r"\text{(A) } \frac{3}{4}", "label with option text"),
    T("E", r"\mathrm{(E)}", "mathrm label"),
    T("B", r"(B)\ \sqrt{2}", "label with option text"),
    N("C", "D", "different letter"),
    N("C", "(D)", "different letter"),
    N("(B)", "C", "different letter"),
    N("A", r"\textbf{(E)}", "different letter"),
    N("C", "C, D", "two letters"),
    N("C", "(C) and (D)", "two letters"),
    N("B", r"\text{(D) } 12", "different letter"),
]

MC_TEXTS = ["12", r"\frac{3}{4}", r"\sqrt{2}", "7", "-1", r"2\pi", "0", "100", r"\frac{1}{2}", "36", "x+1"]


def mc_forms(letter: str, text: str) -> list[str]:
    return [letter, f"({letter})", f"{letter})", rf"\text{{{letter}}}", rf"\textbf{{({letter})}}",
            rf"\text{{({letter})}}", rf"\mathrm{{({letter})}}", rf"\mathrm{{{letter}}}", f"{letter}. {text}",
            f"({letter}) {text}", rf"\textbf{{({letter}) }} {text}", rf"\text{{({letter}) }} {text}",
            rf"\textbf{{({letter})}}\ {text}", rf"\left({letter}\right)"]


def mc_stream(rng: random.Random):
    while True:
        letter = rng.choice("ABCDE")
        ref = rng.choice([letter, letter, letter, f"({letter})", rf"\text{{({letter})}}", rf"\textbf{{({letter})}}"])
        text = rng.choice(MC_TEXTS)
        r = rng.random()
        if r < 0.5:
            pred = rng.choice(mc_forms(letter, text))
            if pred != ref:
                yield ref, pred, True, f"letter {letter}"
        elif r < 0.9:
            other = rng.choice([x for x in "ABCDE" if x != letter])
            yield ref, rng.choice(mc_forms(other, text)), False, f"{other} != {letter}"
        else:
            other = rng.choice([x for x in "ABCDE" if x != letter])
            two = sorted([letter, other])
            a, b = two
            pred = rng.choice([f"{a}, {b}", f"({a}), ({b})", rf"\text{{{a} and {b}}}"])
            yield ref, pred, False, f"two letters, only {letter} is right"


# ---------------------------------------------------------------------------------------------
# negative_sign
# ---------------------------------------------------------------------------------------------

NEGATIVE_SEEDS = [
    T("-5", "- 5", "space after minus"),
    T("-5", UMINUS + "5", "Unicode minus"),
    T("-5", "-(5)", "bracketed"),
    T("-5", "(-5)", "bracketed"),
    T("-5", "{-5}", "braced"),
    T("-5", "-{5}", "braced"),
    T("5", "-(-5)", "double negation"),
    T(r"-\frac{1}{2}", UMINUS + r"\frac{1}{2}", "Unicode minus"),
    T("-0.5", r"-\frac{1}{2}", "exact"),
    T("-5", r"\left(-5\right)", "left/right"),
    T("-5", r"-1\cdot 5", "product"),
    T(UMINUS + "3", "-3", "Unicode minus in reference"),
    N("5", "-5", "sign"),
    N("-5", "5", "sign lost"),
    N("-5", "-(-5)", "double negation is 5"),
    N("-5", UMINUS + "6", "different number"),
    N(r"-\frac{1}{2}", r"\frac{1}{2}", "sign lost"),
    N("-5", "-(5-10)", "that is 5"),
    N("-3", "3-", "dangling minus"),
]


def neg_forms(v: F, rng: random.Random) -> list[str]:
    """Renderings of -v for v > 0."""
    s = rng.choice(ep_forms(v))
    plain = s if v.denominator == 1 or "." in s else None
    out = ["-" + s, "- " + s, UMINUS + s, f"-({s})", f"-{{{s}}}", f"{{-{s}}}", f"(-{s})", rf"\left(-{s}\right)",
           rf"-\left({s}\right)", rf"(-1)\cdot {s}", rf"-1 \times {s}"]
    if plain is not None:
        out.append(UMINUS + " " + plain)
    return out


def negative_stream(rng: random.Random):
    while True:
        v = F(rng.randint(1, 99)) if rng.random() < 0.7 else F(rng.randint(1, 30), rng.choice([2, 4, 5, 8]))
        ref = ep_forms(-v)[0]
        r = rng.random()
        if r < 0.5:
            pred = rng.choice(neg_forms(v, rng))
            why = "both %s" % -v
            if rng.random() < 0.15:  # double negation, positive reference
                ref, pred, why = ep_forms(v)[0], f"-({pred})", f"double negation gives {v}"
            if pred != ref:
                yield ref, pred, True, why
        else:
            k = rng.randint(0, 3)
            if k == 0:
                yield ref, rng.choice(ep_forms(v)), False, "sign lost"
            elif k == 1:
                yield ep_forms(v)[0], rng.choice(neg_forms(v, rng)), False, "sign added"
            elif k == 2:
                w = v + rng.choice([1, 2, 10])
                yield ref, rng.choice(neg_forms(w, rng)), False, f"{-v} != {-w}"
            else:
                yield ref, f"-({rng.choice(neg_forms(v, rng))})", False, f"double negation gives {v}"


# ---------------------------------------------------------------------------------------------
# traps (cases a naive numeric comparer gets wrong)
# ---------------------------------------------------------------------------------------------

TRAP_SEEDS = [
    T(r"\frac{1}{2}", r"\frac{50}{100}", "unreduced fraction"),
    T("0.3", "0.1+0.2", "exact: 0.1 + 0.2 = 0.3"),
    T("0", "0.1+0.2-0.3", "exactly zero"),
    T(str(2**64), "2^{64}", "exact big integer"),
    T("1" + "0" * 20, "10^{20}", "exact big integer"),
    T("1" + "0" * 19 + "1", "10^{20}+1", "exact big integer"),
    T("0.1", r"\frac{1}{10}", "exact"),
    T("1.21", r"1.1 \times 1.1", "exact product"),
    T("0.3", r"3 \times 0.1", "exact product"),
    T("0.8", "0.7+0.1", "exact sum"),
    T("1", r"\frac{1}{3}+\frac{1}{3}+\frac{1}{3}", "exact sum"),
    T(str(2**53 + 1), "2^{53}+1", "beyond double precision"),
    T(str(2**53 + 1), "9.007199254740993e15", "scientific notation, exact"),
    T("2", r"(\sqrt{2})^{2}", "square of a root"),
    T("0.0015", "1.5e-3", "negative e-notation"),
    T("10^{-6}", "0.000001", "exact"),
    T("10^{-6}", "1e-6", "e-notation"),
    T(str(2**100), "2^{100}", "exact big integer"),
    T(str(3**50), "3^{50}", "exact big integer"),
    T(r"\{1,2\}", r"\{1,2,2\}", "duplicates collapse"),
    T(r"\frac{1}{7}", r"\frac{142857}{999999}", "same rational"),
    T("0.000000001", "10^{-9}", "exact small number"),
    T("1", r"\frac{10^{20}}{10^{20}}", "exact quotient"),
    T(r"\frac{1}{3}", r"\frac{3}{9}", "unreduced fraction"),
    N("0.33", r"\frac13", "rounded"),
    N("3.14", r"\pi", "rounded irrational"),
    N("1000", "1,000,000", "a million"),
    N("(1,2)", r"\{1,2\}", "tuple vs set"),
    N("12", "1,2", "a list, not twelve"),
    N("0", "1e-9", "tiny but not zero"),
    N("10^{-9}", "0", "tiny but not zero"),
    N("10^{20}", "10^{20}+1", "exact arithmetic needed"),
    N("1" + "0" * 20, "1" + "0" * 19 + "1", "last digit differs"),
    N(str(2**53 + 1), str(2**53), "same double, different integers"),
    N(str(2**64), str(2**64 - 1), "off by one"),
    N("0.3", "0.30000000000000004", "float artefact"),
    N("0.1", "0.10000000000000001", "same double, different decimals"),
    N("0.1", "0.1000000000000000055511151231257827", "the double nearest 0.1"),
    N("1", "0.9999999999", "close but not equal"),
    N("1", "1.0000000001", "close but not equal"),
    N(r"\frac{1}{3}", "0.3333333333333333", "rounded"),
    N(r"\pi", "3.141592653589793", "double of pi"),
    N(r"\sqrt{2}", "1.4142135623730951", "double of sqrt2"),
    N("e", "2.718281828459045", "double of e"),
    N(r"\frac{2}{3}", "0.6666666666666666", "rounded"),
    N("0", "10^{-20}", "tiny but not zero"),
    N("10^{-12}", "10^{-13}", "both tiny, not equal"),
    N("1000000", "1000001", "off by one"),
    N("1.23456789012345678", "1.23456789012345679", "last digit differs"),
    N(r"2\pi", "6.283185307179586", "double of 2pi"),
    N("0", "-0.0000001", "tiny but not zero"),
    N("12", r"\frac12", "one half"),
    N("21", "2^1", "that is 2"),
    N("(1,2)", "1.2", "a decimal, not a pair"),
    N(r"\frac{1}{2}\pi", r"\frac{1}{2\pi}", "pi in the denominator"),
    N("2^{10}", "210", "digits run together"),
    N("3", "3.01", "not equal"),
    N("1.5e3", "1.53", "not scientific notation"),
    N("10^{-6}", "10^{-5}", "exponent differs"),
    N(str(2**100), str(2**100 + 1), "last digit differs"),
    N("100", "10^{2}+10^{-15}", "tiny excess"),
    N("1", r"\frac{10^{20}+1}{10^{20}}", "tiny excess"),
    N(r"\frac{1}{3}", "0." + "3" * 30, "rounded"),
]


def trap_stream(rng: random.Random):
    while True:
        r = rng.random()
        if r < 0.5:  # decimal arithmetic where binary floating point is off
            a = F(rng.randint(1, 99), rng.choice([10, 100]))
            b = F(rng.randint(1, 99), rng.choice([10, 100]))
            op = rng.choice(["+", "-", "*"])
            exact = {"+": a + b, "-": a - b, "*": a * b}[op]
            fl = {"+": float(a) + float(b), "-": float(a) - float(b), "*": float(a) * float(b)}[op]
            fs = repr(fl)
            if "e" in fs or F(fs) == exact:
                continue
            ex = dec_exact(exact)
            op_tex = {"+": "+", "-": "-", "*": r" \times "}[op]
            if rng.random() < 0.5:
                yield ex, f"{dec_exact(a)}{op_tex}{dec_exact(b)}", True, "exact decimal arithmetic"
            else:
                yield ex, fs, False, "binary floating-point result"
        elif r < 0.8:  # integers beyond double precision
            k = rng.randint(54, 80)
            d = rng.randrange(1, 2 ** (k - 53), 2)
            n = 2**k + d
            if rng.random() < 0.5:
                yield str(n), "2^{%d}+%d" % (k, d), True, "exact big integer"
            else:
                yield str(n), str(n + rng.choice([1, -1])), False, "neighbouring big integers"
        else:  # powers of ten
            k = rng.randint(16, 40)
            if rng.random() < 0.5:
                yield "1" + "0" * k, "10^{%d}" % k, True, "exact power of ten"
            else:
                c = rng.randint(0, 2)
                if c == 0:
                    yield "10^{%d}" % k, "10^{%d}+1" % k, False, "off by one"
                elif c == 1:
                    yield "1" + "0" * k, "10^{%d}" % (k + 1), False, "exponent off by one"
                else:
                    yield "10^{-%d}" % k, "0", False, "tiny but not zero"


# ---------------------------------------------------------------------------------------------
# malformed
# ---------------------------------------------------------------------------------------------

MALFORMED_SEEDS = [
    N(r"\frac{1}{2}", r"\frac{1}{2", "unbalanced brace"),
    N(r"\frac{1}{2}", r"\frac{1}{2}}", "extra closing brace"),
    N("5", "", "empty prediction"),
    N("0", "", "empty prediction"),
    N("5", r"\boxed{}", "empty box"),
    N("5", " ", "whitespace only"),
    N("5", "{5", "unbalanced"),
    N("5", "5}", "unbalanced"),
    N(r"\sqrt{2}", r"\sqrt{2", "unbalanced"),
    N("(1,2)", r"\left( 1, 2", "left without right"),
    N("5", r"\text{5", "unbalanced text"),
    N(r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}1&2\\3&4", "unclosed environment"),
    N("x=3", "x=", "missing right side"),
    N("3", "=", "bare operator"),
    N("0", r"\frac{}{}", "empty fraction"),
    N("0", r"\sqrt{}", "empty root"),
    N("0", "NaN", "not a number"),
    N("0", r"\text{undefined}", "no value"),
    N("1", r"\frac{0}{0}", "undefined"),
    N("5", "I don't know", "no answer"),
    N("5", "The answer is unknown.", "no answer"),
    N("5", "asdfghjkl", "garbage"),
    N("5", "\\\\", "bare line break"),
    N("5", "}{", "brace garbage"),
    N("2", "^2", "dangling superscript"),
    N("2", "2^", "dangling superscript"),
    N(r"\frac{1}{2}", r"\frac", "bare command"),
    N(r"\sqrt{2}", r"\sqrt", "bare command"),
    N("5", "$$", "empty math"),
    N("5", "55", "answer repeated"),
    N("5", r"\boxed{", "unclosed box"),
    N("0", "\u0000", "NUL character"),
    N("5", "{}", "empty group"),
    N("5", r"\text{}", "empty text"),
    N("7", r"\left(\right)", "empty brackets"),
    N(r"\frac{1}{2}", r"\frac{1}{2}\frac", "trailing bare command"),
    N("5", "5" * 1000, "1000-digit number"),
    N(r"\frac{1}{3}", "0." + "3" * 300, "long but still not 1/3"),
    N("5", "(" * 200 + "6" + ")" * 200, "deep nesting of a different number"),
    N("5", "{" * 300 + "5", "deep unbalanced braces"),
    T("5", "\n5\n", "newlines around"),
    T("12", "\t12 ", "tab and space around"),
    T("1" + "0" * 100, "10^{100}", "exact power"),
    T("5", "{" * 8 + "5" + "}" * 8, "balanced nested braces"),
    T(r"\frac{1}{2}", " \\frac{1}{2} ", "spaces around"),
]

BRACED_TEMPLATES = [r"\frac{%d}{%d}", r"\sqrt{%d}", r"%d^{%d}", r"\dfrac{%d}{%d}", r"\sqrt[3]{%d}", r"\text{%d}",
                    r"\left(%d, %d\right)", "(%d,%d)", r"\{%d,%d\}"]
GARBAGE = ["", " ", r"\boxed{}", "{}", r"\text{}", "NaN", "None", "null", r"\text{no answer}", "?", "...", r"\ldots",
           "---", "\\", "}{", ")(", r"\frac{}{}", r"\sqrt{}", "^", "_", "&", "#", "%", "\ufffd", r"\left(", r"\right)",
           r"\begin{pmatrix}", r"\end{pmatrix}", "x=", r"\text{see above}", r"\frac{1}{0}"]


def balanced(s: str) -> bool:
    pairs = {"}": "{", ")": "(", "]": "["}
    stack = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] in "{}":
            i += 2
            continue
        if ch in "{(":
            stack.append(ch)
        elif ch in "})" and (not stack or stack.pop() != pairs[ch]):
            return False
        i += 1
    return not stack


def malformed_stream(rng: random.Random):
    while True:
        r = rng.random()
        if r < 0.35:  # break a well-formed answer
            tpl = rng.choice(BRACED_TEMPLATES)
            nargs = tpl.count("%d")
            args = tuple(rng.randint(2, 30) for _ in range(nargs))
            ref = tpl % args
            k = rng.randint(0, 3)
            if k == 0:
                pred = ref[:-1]
            elif k == 1:
                pred = ref + rng.choice(["}", ")"])
            elif k == 2:
                pred = rng.choice(["{", "("]) + ref
            else:
                i = max(ref.find("{"), ref.find("("))
                pred = ref[:i] + ref[i + 1:]
            if balanced(pred) or pred == ref:
                continue
            yield ref, pred, False, "unbalanced brackets"
        elif r < 0.55:  # garbage prediction
            ref = rng.choice([str(rng.randint(0, 99)), r"\frac{%d}{%d}" % (rng.randint(1, 9), rng.randint(2, 9)),
                              r"\sqrt{%d}" % rng.choice(SQUAREFREE), "x=%d" % rng.randint(1, 9)])
            yield ref, rng.choice(GARBAGE), False, "no usable answer"
        elif r < 0.8:  # very long digit strings
            n = rng.randint(60, 400)
            digits = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))
            k = rng.randint(0, 3)
            if k == 0:
                yield digits, digits, True, "identical %d-digit number" % n
            elif k == 1:
                i = rng.randrange(1, n)
                d2 = digits[:i] + str((int(digits[i]) + rng.randint(1, 9)) % 10) + digits[i + 1:]
                yield digits, d2, False, "one digit of %d differs" % n
            elif k == 2:
                yield digits, digits[:-1], False, "one digit missing"
            else:
                e = rng.randint(30, 300)
                if rng.random() < 0.5:
                    yield "1" + "0" * e, "10^{%d}" % e, True, "exact power of ten"
                else:
                    yield "1" + "0" * e, "10^{%d}" % (e + rng.choice([1, -1])), False, "exponent off by one"
        else:  # odd but well-formed whitespace
            v = rng.choice([str(rng.randint(0, 999)), r"\frac{%d}{%d}" % (rng.randint(1, 9), rng.randint(10, 19)),
                            "-%d" % rng.randint(1, 99)])
            pad = rng.choice([("  ", "  "), ("\n", ""), ("", "\n"), ("\t", "\t"), (" \n ", " "), ("\n\n", "\n")])
            if rng.random() < 0.5:
                yield v, pad[0] + v + pad[1], True, "padding whitespace ignored"
            else:
                w = str(int(v) + 1) if v.lstrip("-").isdigit() else v.replace("frac{", "frac{1")
                yield v, pad[0] + w + pad[1], False, "different value"


# ---------------------------------------------------------------------------------------------
# convention_math_verify: labels from Math-Verify's README and grader, NOT from this project's policy
# ---------------------------------------------------------------------------------------------
# Source: https://github.com/huggingface/Math-Verify, commit 5d148cfaaf99214c2e4ffb4bc497ab042c592a7a
# (README.md, src/math_verify/grader.py), at verify()'s defaults (strict=True,
# allow_set_relation_comp=False).  Every label follows a rule those two files state; each row's
# ``why`` quotes it.  No row depends on float_rounding (every decimal here is exact, and false pairs
# differ by far more than 1e-6), because this project compares exact decimals.

MV_SOURCE = "Math-Verify README/grader @5d148cf"

MV_ASSIGN = "README Key Features: 'symbol assignment resolution (e.g. x = 1 -> 1)'"
MV_ASSIGN_PRED = ("grader sympy_expr_eq: a predicted equation is unwrapped to its last right side when the gold "
                  "is not an equation ('1 and 9=1 -> 1,1')")
MV_ASSIGN_GOLD = ("grader sympy_expr_eq: a gold assignment is unwrapped when the prediction is not an equation "
                  "('x=1 and 1 -> 1,1')")
MV_BOTH_ASSIGN = "grader sympy_expr_eq: two assignments are not unwrapped, 'so that x=1 != y=1'"
MV_EQ_NOT_ASSIGN = ("grader sympy_expr_eq: a gold equation that is not an assignment is not unwrapped "
                    "('not 2x + z = 1 and 1 -> 1,1')")
MV_PCT = "README Key Features: 'Percentage best effort conversion (e.g. 10% -> 0.1)'"
MV_PCT_VALUE = ("grader is_atomic_or_pct_atomic: latex2sympy_extended converts 'X%' into X*Rational(1,100), "
                "so p% is p/100, not p")
MV_UNITS = "README Key Features: 'Units in text handling (e.g. 10 cm -> 10)'"
MV_FLIP = "README: 'Relation evaluation with flip support (e.g., a < 2 == 2 > a)'; 'a <= b equals b >= a'"
MV_REL_DIFF = ("grader sympy_compare_relational: equal only for the same relation with equal lhs-rhs, the "
               "inverse relation flipped, or equal solutions; none holds")
MV_ASYM_T = ("README FAQ Representation Asymmetry: gold inequality (1 < x < 2) vs predicted interval ((1,2)) "
             "is True")
MV_ASYM_F = ("README FAQ Representation Asymmetry: gold interval ((1,2)) vs predicted inequality (1 < x < 2) "
             "is False at the default allow_set_relation_comp=False")
MV_ASYM_SET = ("README FAQ Representation Asymmetry: a gold inequality is compared as its set with a predicted "
               "interval; grader sympy_compare_interval: the sets differ")
MV_CHAIN_T = ("README FAQ Solution Context Asymmetry: gold number (101) vs predicted chain "
              "(a+2z = 2z + a = 101) is True")
MV_CHAIN_F = ("README FAQ Solution Context Asymmetry: gold chain (a+2z = 2z + a = 101) vs predicted final "
              "number (101) is False")
MV_CHAIN_VALUE = ("README FAQ Solution Context Asymmetry: a predicted chain counts by its final value, which "
                  "differs from the gold number")
MV_SET = "README: '{1,3} \\cup {2,4}' vs '{1,2,3,4}' is True; sets: 'Direct set equality and symmetric difference'"
MV_SET_F = "README sets: 'Direct set equality and symmetric difference'; the sets differ"
MV_INTERVAL_F = "grader sympy_compare_interval: both ends' openness and both endpoints must match"
MV_INTERVAL_LIST = ("grader sympy_compare_sets: '(1,2) is parsed as Interval(1,2,left_open=True,right_open=True), "
                    "it could have that the correct is (1,2) and predicted is 1,2' (compared as a tuple)")
MV_MATRIX = "README Gold Comparison: 'Matrices and vectors: Element-wise comparison, Shape validation'"
MV_MATRIX_F = "README Gold Comparison: matrices compare element-wise with shape validation; %s"
MV_MALFORMED = "README Key Features: 'Applies Latex fixes for common malformations (e.g. frac13 -> 1/3)'"
MV_UNICODE = "README Key Features: 'Unicode symbol substitution support (e.g. \u03b2 -> beta)'"
MV_STRUCT = "README Gold Comparison: 'Basic SymPy structural equality (e.g., a + b vs b + a)'"
MV_SIMPLIFY = "README Gold Comparison: 'Symbolic equality by simplifying the difference (a - b = 0)'"
MV_SIMPLIFY_F = "README Gold Comparison: symbolic equality needs the difference to simplify to 0; it does not"
MV_STRICT = "grader verify docstring: strict=True (the default) - 'Variables matter'"

CONVENTION_MV_SEEDS = [
    # assignment resolution
    T("1", "x = 1", MV_ASSIGN + "; " + MV_ASSIGN_PRED),
    T("x = 1", "1", MV_ASSIGN + "; " + MV_ASSIGN_GOLD),
    T(r"\frac{1}{2}", r"y=\frac{1}{2}", MV_ASSIGN_PRED),
    T("k = 7", "7", MV_ASSIGN_GOLD),
    T("x = 4", "4 = x", "flipped equality; " + MV_FLIP),
    N("x = 1", "y = 1", MV_BOTH_ASSIGN),
    N("2x + z = 1", "1", MV_EQ_NOT_ASSIGN),
    N("x = 1", "2", MV_ASSIGN_GOLD + "; 1 != 2"),
    N("1", "x = 2", MV_ASSIGN_PRED + "; 1 != 2"),
    # percentage conversion
    T("0.1", r"10\%", MV_PCT),
    T(r"10\%", "0.1", MV_PCT),
    T(r"\frac{1}{4}", r"25\%", MV_PCT + "; 25% = 1/4"),
    T("0.125", r"12.5\%", MV_PCT + "; 12.5% = 0.125"),
    N("20", r"20\%", MV_PCT_VALUE),
    N(r"40\%", "40", MV_PCT_VALUE),
    N("0.1", r"1\%", MV_PCT + "; 1% = 0.01"),
    # units in text
    T("10", r"10 \text{ cm}", MV_UNITS),
    T(r"10 \text{ cm}", "10", MV_UNITS),
    T("5", r"5\text{ meters}", MV_UNITS),
    N("10", r"12 \text{ cm}", MV_UNITS + "; 10 != 12"),
    # relation flip
    T("a < 2", "2 > a", MV_FLIP),
    T(r"a \le b", r"b \ge a", MV_FLIP),
    T("x > 3", "3 < x", MV_FLIP),
    N("a < 2", "2 < a", MV_REL_DIFF + " (a < 2 vs a > 2)"),
    N("a < 2", r"a \le 2", MV_REL_DIFF + " (strict vs non-strict)"),
    # representation asymmetry (inequality vs interval)
    T("1 < x < 2", "(1,2)", MV_ASYM_T),
    T(r"x \le 3", r"(-\infty, 3]", MV_ASYM_T),
    T("x > 0", r"(0, \infty)", MV_ASYM_T),
    N("(1,2)", "1 < x < 2", MV_ASYM_F),
    N(r"(-\infty, 3]", r"x \le 3", MV_ASYM_F),
    N(r"(0, \infty)", "x > 0", MV_ASYM_F),
    N("1 < x < 2", "[1,2]", MV_ASYM_SET),
    N(r"x \le 3", r"(-\infty, 3)", MV_ASYM_SET),
    # solution chain
    T("101", "a+2z = 2z + a = 101", MV_CHAIN_T),
    N("a+2z = 2z + a = 101", "101", MV_CHAIN_F),
    N("101", "a+2z = 2z + a = 102", MV_CHAIN_VALUE),
    # sets and intervals
    T(r"\{1,3\} \cup \{2,4\}", r"\{1,2,3,4\}", MV_SET),
    T(r"\{1,2,3\}", r"\{3,1,2\}", MV_SET),
    T(r"(-\infty, 1) \cup (2, \infty)", r"(2, \infty) \cup (-\infty, 1)", MV_SET),
    T("(3,7)", "3,7", MV_INTERVAL_LIST),
    N(r"\{1,3\} \cup \{2,4\}", r"\{1,2,3\}", MV_SET_F),
    N(r"\{1,2,3\}", r"\{1,3\}", MV_SET_F),
    N("(1,2)", "(1,2]", MV_INTERVAL_F),
    N("[1,2]", "(1,2)", MV_INTERVAL_F),
    N(r"(-\infty, 1) \cup (2, \infty)", r"(-\infty, 1] \cup [2, \infty)", MV_INTERVAL_F),
    # matrices
    T(r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}", MV_MATRIX),
    T(r"\begin{pmatrix} \frac{1}{2} & 0 \\ 0 & 1 \end{pmatrix}", r"\begin{pmatrix} 0.5 & 0 \\ 0 & 1 \end{pmatrix}",
      MV_MATRIX + "; 1/2 = 0.5"),
    N(r"\begin{pmatrix} 1 & 2 \end{pmatrix}", r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", MV_MATRIX_F % "1x2 vs 2x1"),
    N(r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}",
      MV_MATRIX_F % "transposed"),
    # malformed-operator fixes, unicode, structural / symbolic equality, strict variables
    T(r"\frac{1}{3}", r"\frac13", MV_MALFORMED),
    N(r"\frac{1}{3}", r"\frac14", MV_MALFORMED + "; 1/3 != 1/4"),
    T(r"\beta", "\u03b2", MV_UNICODE),
    N(r"\beta", "\u03b1", MV_UNICODE + "; alpha != beta"),
    T("a + b", "b + a", MV_STRUCT),
    T("(x+1)^2", "x^2 + 2x + 1", MV_SIMPLIFY),
    N("(x+1)^2", "x^2 + 1", MV_SIMPLIFY_F),
    N("x + 1", "y + 1", MV_STRICT),
]

MV_VARS = ["x", "y", "z", "k", "n", "a", "t", "m"]
MV_UNITS_TEXT = ["cm", "meters", "inches", "feet", "kg", "seconds", "hours", "miles"]
MV_GREEK = [("alpha", "\u03b1"), ("beta", "\u03b2"), ("gamma", "\u03b3"), ("theta", "\u03b8"), ("lambda", "\u03bb"),
            ("mu", "\u03bc"), ("sigma", "\u03c3"), ("omega", "\u03c9")]
MV_REL = {"<": ("<", ">"), ">": (">", "<"), "le": (r"\le", r"\ge"), "ge": (r"\ge", r"\le")}
MV_PERCENTS = ["5", "10", "12.5", "15", "20", "25", "30", "37.5", "40", "45", "50", "60", "62.5", "70", "75", "80",
               "90", "120", "150", "200", "2.5", "7.5"]


def mv_value(rng: random.Random) -> F:
    if rng.random() < 0.7:
        return F(rng.randint(-30, 60))
    return F(rng.randint(1, 9), rng.choice([2, 3, 4, 5, 7, 8]))


def mv_matrix(rows, env: str) -> str:
    body = r" \\ ".join(" & ".join(c for c in r) for r in rows)
    return r"\begin{%s} %s \end{%s}" % (env, body, env)


def mv_interval(lo, hi, lo_closed: bool, hi_closed: bool) -> str:
    return "%s%s, %s%s" % ("[" if lo_closed else "(", lo, hi, "]" if hi_closed else ")")


def convention_math_verify_stream(rng: random.Random):
    while True:
        kind = rng.randrange(12)
        if kind == 0:  # assignment resolution
            v, val = rng.choice(MV_VARS), mv_value(rng)
            other = val + rng.choice([1, -1, 2, 3])
            sp = rng.choice([" = ", "="])
            k = rng.randrange(5)
            if k == 0:
                yield num_tex(val), v + sp + num_tex(val), True, MV_ASSIGN_PRED
            elif k == 1:
                yield v + sp + num_tex(val), num_tex(val), True, MV_ASSIGN_GOLD
            elif k == 2:
                yield num_tex(val), v + sp + num_tex(other), False, MV_ASSIGN_PRED + "; values differ"
            elif k == 3:
                yield v + sp + num_tex(val), num_tex(other), False, MV_ASSIGN_GOLD + "; values differ"
            else:
                w = rng.choice([u for u in MV_VARS if u != v])
                yield v + " = " + num_tex(val), w + " = " + num_tex(val), False, MV_BOTH_ASSIGN
        elif kind == 1:  # percentage conversion
            p = F(rng.choice(MV_PERCENTS))
            pct = num_tex(p) + r"\%"
            k = rng.randrange(4)
            if k == 0:
                yield num_tex(p / 100), pct, True, MV_PCT + "; %s%% = %s" % (num_tex(p), num_tex(p / 100))
            elif k == 1:
                yield pct, rng.choice([num_tex(p / 100), frac_tex(p / 100)]), True, MV_PCT
            elif k == 2:
                if rng.random() < 0.5:
                    yield num_tex(p), pct, False, MV_PCT_VALUE
                else:
                    yield pct, num_tex(p), False, MV_PCT_VALUE
            else:
                q = p * rng.choice([2, 10, F(1, 10)])
                why = MV_PCT + "; %s%% != %s" % (num_tex(q), num_tex(p / 100))
                yield num_tex(p / 100), num_tex(q) + r"\%", False, why
        elif kind == 2:  # units in text
            n = rng.randint(2, 500)
            u = rng.choice(MV_UNITS_TEXT)
            with_unit = "%d%s\\text{ %s}" % (n, rng.choice(["", " "]), u)
            k = rng.randrange(3)
            if k == 0:
                yield str(n), with_unit, True, MV_UNITS
            elif k == 1:
                yield with_unit, str(n), True, MV_UNITS
            else:
                m = n + rng.choice([1, 2, 10, -1])
                yield str(m), with_unit, False, MV_UNITS + "; %d != %d" % (m, n)
        elif kind == 3:  # relation flip
            v, c = rng.choice(["a", "b", "x", "y", "t"]), rng.randint(-20, 20)
            op = rng.choice(list(MV_REL))
            sym, mirror = MV_REL[op]
            k = rng.randrange(4)
            if k <= 1:
                yield "%s %s %d" % (v, sym, c), "%d %s %s" % (c, mirror, v), True, MV_FLIP
            elif k == 2:
                yield "%s %s %d" % (v, sym, c), "%d %s %s" % (c, sym, v), False, MV_REL_DIFF + " (not flipped)"
            else:
                strictness = {"<": r"\le", ">": r"\ge", "le": "<", "ge": ">"}[op]
                why = MV_REL_DIFF + " (strictness differs)"
                yield "%s %s %d" % (v, sym, c), "%s %s %d" % (v, strictness, c), False, why
        elif kind == 4:  # representation asymmetry
            lo = rng.randint(-15, 10)
            hi = lo + rng.randint(1, 12)
            lc, hc = rng.random() < 0.5, rng.random() < 0.5
            ineq = "%d %s x %s %d" % (lo, r"\le" if lc else "<", r"\le" if hc else "<", hi)
            iv = mv_interval(lo, hi, lc, hc)
            k = rng.randrange(4)
            if k == 0:
                yield ineq, iv, True, MV_ASYM_T
            elif k == 1:
                yield iv, ineq, False, MV_ASYM_F
            elif k == 2:
                if rng.random() < 0.5:
                    yield "x > %d" % lo, r"(%d, \infty)" % lo, True, MV_ASYM_T
                else:
                    yield r"(-\infty, %d]" % hi, r"x \le %d" % hi, False, MV_ASYM_F
            else:
                yield ineq, mv_interval(lo, hi, not lc, hc), False, MV_ASYM_SET
        elif kind == 5:  # solution chain
            a, b = rng.sample(["a", "b", "c", "p", "q", "z"], 2)
            c = rng.randint(2, 9)
            n = rng.randint(10, 999)
            chain = "%s+%d%s = %d%s + %s = %d" % (a, c, b, c, b, a, n)
            k = rng.randrange(3)
            if k == 0:
                yield str(n), chain, True, MV_CHAIN_T
            elif k == 1:
                yield chain, str(n), False, MV_CHAIN_F
            else:
                yield str(n + rng.choice([1, -1, 10])), chain, False, MV_CHAIN_VALUE
        elif kind == 6:  # finite sets
            vals = rng.sample(range(-9, 20), rng.randint(3, 5))
            perm = vals[:]
            while perm == vals:
                rng.shuffle(perm)
            whole = r"\{%s\}" % ",".join(map(str, vals))
            k = rng.randrange(4)
            if k == 0:
                yield whole, r"\{%s\}" % ",".join(map(str, perm)), True, MV_SET
            elif k == 1:
                cut = rng.randint(1, len(vals) - 1)
                union = r"\{%s\} \cup \{%s\}" % (",".join(map(str, vals[:cut])), ",".join(map(str, vals[cut:])))
                yield union, r"\{%s\}" % ",".join(map(str, perm)), True, MV_SET
            elif k == 2:
                yield whole, r"\{%s\}" % ",".join(map(str, perm[1:])), False, MV_SET_F + " (an element is missing)"
            else:
                new = perm[:]
                new[rng.randrange(len(new))] = max(vals) + rng.randint(1, 5)
                yield whole, r"\{%s\}" % ",".join(map(str, new)), False, MV_SET_F + " (an element differs)"
        elif kind == 7:  # intervals and unions
            a = rng.randint(-20, 5)
            b = a + rng.randint(1, 6)
            c = b + rng.randint(1, 6)
            d = c + rng.randint(1, 6)
            i1 = mv_interval(a, b, rng.random() < 0.5, rng.random() < 0.5)
            i2 = mv_interval(c, d, rng.random() < 0.5, rng.random() < 0.5)
            k = rng.randrange(3)
            if k == 0:
                yield r"%s \cup %s" % (i1, i2), r"%s \cup %s" % (i2, i1), True, MV_SET
            elif k == 1:
                flipped = ("[" if i1[0] == "(" else "(") + i1[1:]
                yield i1, flipped, False, MV_INTERVAL_F
            else:
                shifted = mv_interval(a, b + 1, i1[0] == "[", i1[-1] == "]")
                yield i1, shifted, False, MV_INTERVAL_F
        elif kind == 8:  # matrices
            m = [[rng.randint(-9, 9) for _ in range(2)] for _ in range(2)]
            if m[0][1] == m[1][0]:
                m[0][1] += 1
            s = [[str(x) for x in r] for r in m]
            k = rng.randrange(4)
            if k == 0:
                yield mv_matrix(s, "pmatrix"), mv_matrix(s, "bmatrix"), True, MV_MATRIX
            elif k == 1:
                h = [r[:] for r in s]
                i, j = rng.randrange(2), rng.randrange(2)
                num = rng.choice([1, 3, 5, 7])
                s2 = [r[:] for r in s]
                h[i][j] = r"\frac{%d}{2}" % num
                s2[i][j] = "%d.5" % (num // 2)
                why = MV_MATRIX + "; %d/2 = %s" % (num, s2[i][j])
                yield mv_matrix(h, "pmatrix"), mv_matrix(s2, "pmatrix"), True, why
            elif k == 2:
                t = [[s[0][0], s[1][0]], [s[0][1], s[1][1]]]
                yield mv_matrix(s, "pmatrix"), mv_matrix(t, "pmatrix"), False, MV_MATRIX_F % "transposed"
            else:
                t = [r[:] for r in s]
                i, j = rng.randrange(2), rng.randrange(2)
                t[i][j] = str(m[i][j] + rng.choice([1, -1, 2]))
                yield mv_matrix(s, "pmatrix"), mv_matrix(t, "bmatrix"), False, MV_MATRIX_F % "one element differs"
        elif kind == 9:  # unicode substitution
            (name, ch), (name2, ch2) = rng.sample(MV_GREEK, 2)
            c = rng.randint(1, 9)
            k = rng.randrange(3)
            if k == 0:
                yield r"\%s + %d" % (name, c), "%s + %d" % (ch, c), True, MV_UNICODE
            elif k == 1:
                yield r"%d\%s" % (c, name), "%d%s" % (c, ch), True, MV_UNICODE
            else:
                yield r"\%s + %d" % (name, c), "%s + %d" % (ch2, c), False, MV_UNICODE + "; %s != %s" % (name, name2)
        elif kind == 10:  # structural / symbolic equality
            a, b = rng.randint(1, 9), rng.randint(1, 9)
            k = rng.randrange(4)
            if k == 0:
                yield "(x+%d)(x+%d)" % (a, b), "x^2 + %dx + %d" % (a + b, a * b), True, MV_SIMPLIFY
            elif k == 1:
                yield "%dx + %d" % (a, b), "%d + %dx" % (b, a), True, MV_STRUCT
            elif k == 2:
                if a + b == a * b:
                    continue
                yield "(x+%d)(x+%d)" % (a, b), "x^2 + %dx + %d" % (a * b, a + b), False, MV_SIMPLIFY_F
            else:
                yield "(x+%d)^2" % a, "x^2 + %d" % (a * a), False, MV_SIMPLIFY_F
        else:  # strict variables and the frac13 fix
            a, b = rng.randint(1, 9), rng.randint(2, 9)
            k = rng.randrange(3)
            if k == 0:
                v, w = rng.sample(["x", "y", "t", "n", "s"], 2)
                yield "%d%s + %d" % (a, v, b), "%d%s + %d" % (a, w, b), False, MV_STRICT
            elif k == 1:
                q = F(a, b)
                if q.denominator == 1 or q.numerator > 9:
                    continue
                yield frac_tex(q), r"\frac%d%d" % (q.numerator, q.denominator), True, MV_MALFORMED
            else:
                q, r = F(a, b), F(a + 1, b)
                if q.denominator != b or r.denominator != b or r.numerator > 9:
                    continue
                yield frac_tex(q), r"\frac%d%d" % (r.numerator, r.denominator), False, MV_MALFORMED + "; values differ"


# ---------------------------------------------------------------------------------------------
# convention_hendrycks_math: labels from the MATH dataset's published checker, NOT this project's policy
# ---------------------------------------------------------------------------------------------
# Source: https://github.com/hendrycks/math, snapshot commit 985bdc1696e88e8643f081a0ff4719da39f2ae2a
# (file modeling/math_equivalence.py, last changed in 940d1bf8d976b7e2afa9059a52350ffcdc880c1c).
# is_equiv(str1, str2) normalises both strings with _strip_string and compares them exactly.  Rows
# are chosen where that verdict is the MATH answer convention itself (a true row differs only by
# what _strip_string removes or rewrites) and false rows are different answers written in those
# forms.  Pairs decided only by its string comparison (list order, unreduced fractions, 0.1 vs 10%)
# are left out.

HM_SOURCE = "hendrycks/math is_equiv @985bdc1"

HM_PCT = "is_equiv/_strip_string removes '\\%' (a MATH answer is compared without its percent sign)"
HM_DOLLAR = "is_equiv/_strip_string removes '\\$'"
HM_DEG = "is_equiv/_strip_string removes '^{\\circ}' and '^\\circ' (degrees)"
HM_PREFIX = "is_equiv/_strip_string drops a prefix 'k =' whose left side has at most 2 characters"
HM_DOT = "is_equiv/_strip_string puts a 0 before a leading '.'"
HM_HALF = "is_equiv/_strip_string rewrites the answer '0.5' as \\frac{1}{2}"
HM_FRAC = "is_equiv/_fix_fracs: \\frac12 -> \\frac{1}{2}, \\frac1{72} -> \\frac{1}{72}"
HM_SLASH = "is_equiv/_fix_a_slash_b: an answer a/b of two integers -> \\frac{a}{b}"
HM_DFRAC = "is_equiv/_strip_string: tfrac and dfrac -> frac"
HM_SQRT = "is_equiv/_fix_sqrt: \\sqrt3 -> \\sqrt{3}"
HM_LR = "is_equiv/_strip_string removes \\left and \\right"
HM_UNITS = "is_equiv/_remove_right_units drops a unit written '\\text{ ...}' on the right"
HM_BANG = "is_equiv/_strip_string removes '\\!' (as in 10,\\!000)"
HM_SPACE = "is_equiv/_strip_string removes spaces"
HM_DIFF = "is_equiv: different answers stay different after _strip_string (%s vs %s)"

CONVENTION_HM_SEEDS = [
    T("10", r"10\%", HM_PCT),
    T(r"10\%", "10", HM_PCT),
    T(r"2.5\%", "2.5", HM_PCT),
    T("7", r"\$7", HM_DOLLAR),
    T(r"\$18.90", "18.90", HM_DOLLAR),
    T("5", r"5^\circ", HM_DEG),
    T(r"45^{\circ}", "45", HM_DEG),
    T("5", "x=5", HM_PREFIX),
    T("x = 5", "5", HM_PREFIX),
    T(r"\frac{1}{2}", r"k = \frac{1}{2}", HM_PREFIX),
    T(r"\frac12", ".5", HM_DOT + "; " + HM_HALF + "; " + HM_FRAC),
    T(r"\frac12", "0.5", HM_HALF + "; " + HM_FRAC),
    T("0.25", ".25", HM_DOT),
    T(r"\frac{1}{5}", r"\frac15", HM_FRAC),
    T(r"\frac{1}{12}", r"\frac1{12}", HM_FRAC),
    T(r"\frac{3}{4}", "3/4", HM_SLASH),
    T(r"\frac{3}{4}", r"\dfrac{3}{4}", HM_DFRAC),
    T(r"\tfrac{2}{3}", r"\frac{2}{3}", HM_DFRAC),
    T(r"\sqrt{3}", r"\sqrt3", HM_SQRT),
    T(r"2\sqrt{5}", r"2\sqrt5", HM_SQRT),
    T(r"\frac{\sqrt{3}}{2}", r"\frac{\sqrt3}{2}", HM_SQRT),
    T("(1,2)", r"\left(1,2\right)", HM_LR),
    T(r"\left[ -3, 4 \right]", "[-3,4]", HM_LR + "; " + HM_SPACE),
    T("10", r"10\text{ cm}", HM_UNITS),
    T(r"36 \text{ square units}", "36", HM_UNITS),
    T("10,000", r"10,\!000", HM_BANG),
    T(r"2 \sqrt{3}", r"2\sqrt{3}", HM_SPACE),
    N(r"\frac12", r"\frac13", HM_DIFF % (r"\frac{1}{2}", r"\frac{1}{3}")),
    N(r"10\%", "1", HM_DIFF % ("10", "1")),
    N(r"\$5", "50", HM_DIFF % ("5", "50")),
    N(r"5^\circ", "50", HM_DIFF % ("5", "50")),
    N("x=5", "6", HM_DIFF % ("5", "6")),
    N(".5", r"\frac{1}{4}", HM_DIFF % (r"\frac{1}{2}", r"\frac{1}{4}")),
    N("3/4", r"\frac{4}{3}", HM_DIFF % (r"\frac{3}{4}", r"\frac{4}{3}")),
    N(r"\sqrt3", r"\sqrt{2}", HM_DIFF % (r"\sqrt{3}", r"\sqrt{2}")),
    N(r"\sqrt3", "3", HM_DIFF % (r"\sqrt{3}", "3")),
    N(r"10\text{ cm}", "100", HM_DIFF % ("10", "100")),
    N("(1,2)", r"\left[1,2\right]", HM_DIFF % ("(1,2)", "[1,2]")),
    N("10,000", r"1,\!000", HM_DIFF % ("10,000", "1,000")),
    N(r"\dfrac{2}{3}", r"\frac{3}{2}", HM_DIFF % (r"\frac{2}{3}", r"\frac{3}{2}")),
]

HM_UNIT_WORDS = ["cm", "inches", "feet", "meters", "square units", "square feet", "cubic inches", "units", "miles",
                 "hours", "minutes", "seconds", "cents", "degrees", "pounds"]
HM_SQRT_RADS = [2, 3, 5, 6, 7]


def hm_fraction(rng: random.Random) -> F:
    while True:
        q = F(rng.randint(1, 9), rng.randint(2, 9))
        if q.denominator != 1:
            return q


def hm_frac_forms(q: F) -> list[str]:
    """Forms of the reduced fraction q (single-digit terms) that _strip_string makes \\frac{a}{b}."""
    a, b = q.numerator, q.denominator
    return [r"\frac{%d}{%d}" % (a, b), r"\frac%d%d" % (a, b), "%d/%d" % (a, b), r"\dfrac{%d}{%d}" % (a, b),
            r"\tfrac{%d}{%d}" % (a, b)]


HM_FRAC_RULES = [None, HM_FRAC, HM_SLASH, HM_DFRAC, HM_DFRAC]


def convention_hendrycks_math_stream(rng: random.Random):
    def pair(canon_a: str, forms_a: list[tuple[str, str]], canon_b: str, forms_b: list[tuple[str, str]]):
        """(ref, pred, equal, why) from two values, each a canonical string and (written form, rule) options."""
        (fa, ra), (fb, rb) = rng.choice(forms_a), rng.choice(forms_b)
        if rng.random() < 0.5:
            fa, ra, fb, rb, canon_a, canon_b = fb, rb, fa, ra, canon_b, canon_a
        if canon_a == canon_b:
            rules = [r for r in (ra, rb) if r]
            return fa, fb, True, "; ".join(dict.fromkeys(rules)) or HM_SPACE
        return fa, fb, False, HM_DIFF % (canon_a, canon_b)

    while True:
        kind = rng.randrange(10)
        same = rng.random() < 0.5
        if kind == 0:  # percent sign dropped
            p = rng.choice(["5", "8", "10", "12", "15", "20", "25", "30", "40", "45", "60", "75", "80", "95",
                            "12.5", "2.5", "37.5", "150", "200", "1", "3"])
            q = p if same else rng.choice([str(int(float(p) * 10)) if "." not in p else p.replace(".", ""),
                                           str(int(float(p)) + 1)])
            yield pair(p, [(p, None), (p + r"\%", HM_PCT)],
                       q, [(q + r"\%", HM_PCT), (q + r" \%", HM_PCT + "; " + HM_SPACE)])
        elif kind == 1:  # dollars
            n = rng.randint(1, 500)
            cents = rng.choice(["", ".50", ".25", ".75", ".99"])
            v = str(n) + cents
            w = v if same else str(n + rng.choice([1, 10, 100])) + cents
            yield pair(v, [(v, None)], w, [(r"\$" + w, HM_DOLLAR), (r"\$ " + w, HM_DOLLAR + "; " + HM_SPACE)])
        elif kind == 2:  # degrees
            n = rng.randint(1, 359)
            m = n if same else n + rng.choice([1, 10, 90])
            yield pair(str(n), [(str(n), None)], str(m), [("%d^\\circ" % m, HM_DEG), ("%d^{\\circ}" % m, HM_DEG)])
        elif kind == 3:  # short "k =" prefix
            v = rng.choice(["x", "y", "k", "n", "a", "t", "r", "m"])
            if rng.random() < 0.6:
                val = str(rng.randint(-20, 99))
                other = str(int(val) + rng.choice([1, 2, -1]))
            else:
                q = hm_fraction(rng)
                val = r"\frac{%d}{%d}" % (q.numerator, q.denominator)
                q2 = q + 1
                other = r"\frac{%d}{%d}" % (q2.numerator, q2.denominator)
            w = val if same else other
            yield pair(val, [(val, None)],
                       w, [("%s=%s" % (v, w), HM_PREFIX), ("%s = %s" % (v, w), HM_PREFIX + "; " + HM_SPACE)])
        elif kind == 4:  # fraction forms
            q = hm_fraction(rng)
            r = q
            while not same and r == q:
                r = hm_fraction(rng)
            fa = list(zip(hm_frac_forms(q), HM_FRAC_RULES, strict=True))
            fb = list(zip(hm_frac_forms(r), HM_FRAC_RULES, strict=True))
            a_i = rng.randrange(5)
            b_i = rng.choice([i for i in range(5) if i != a_i])
            yield pair(r"\frac{%d}{%d}" % (q.numerator, q.denominator), [fa[a_i]],
                       r"\frac{%d}{%d}" % (r.numerator, r.denominator), [fb[b_i]])
        elif kind == 5:  # leading-dot decimals
            d = "%d" % rng.randint(1, 99)
            d = d.rjust(2, "0") if rng.random() < 0.5 else d
            if d.rstrip("0") != d or d == "5":
                continue
            e = d if same else str(int(d) + rng.choice([1, 2, 11])).rjust(len(d), "0")
            if e.rstrip("0") != e or e == "5":
                continue
            yield pair("0." + d, [("0." + d, None)], "0." + e, [("." + e, HM_DOT)])
        elif kind == 6:  # sqrt without braces
            r = rng.choice(HM_SQRT_RADS)
            k = rng.choice(["", "2", "3", "5", "7"])
            s = r if same else rng.choice([x for x in HM_SQRT_RADS if x != r])
            j = k if same or rng.random() < 0.5 else ""
            if not same and s == r and j == k:
                continue
            if rng.random() < 0.5:
                canon_a, form_a = "%s\\sqrt{%d}" % (k, r), "%s\\sqrt{%d}" % (k, r)
                canon_b, form_b = "%s\\sqrt{%d}" % (j, s), "%s\\sqrt%d" % (j, s)
            else:
                canon_a, form_a = "\\frac{\\sqrt{%d}}{%d}" % (r, 2), "\\frac{\\sqrt{%d}}{2}" % r
                canon_b, form_b = "\\frac{\\sqrt{%d}}{%d}" % (s, 2), "\\frac{\\sqrt%d}{2}" % s
            yield pair(canon_a, [(form_a, None)], canon_b, [(form_b, HM_SQRT)])
        elif kind == 7:  # \left \right around intervals and points
            a = rng.randint(-20, 20)
            b = a + rng.randint(1, 15)
            lo, hi = rng.choice(["(", "["]), rng.choice([")", "]"])
            lo2, hi2, b2 = lo, hi, b
            if not same:
                if rng.random() < 0.5:
                    lo2 = "[" if lo == "(" else "("
                else:
                    b2 = b + rng.randint(1, 5)
            canon = "%s%d,%d%s" % (lo, a, b, hi)
            canon2 = "%s%d,%d%s" % (lo2, a, b2, hi2)
            form2 = "\\left%s %d, %d \\right%s" % (lo2, a, b2, hi2)
            yield pair(canon, [(canon, None), ("%s%d, %d%s" % (lo, a, b, hi), HM_SPACE)],
                       canon2, [(form2, HM_LR + "; " + HM_SPACE)])
        elif kind == 8:  # units as \text{ ...}
            n = rng.randint(2, 999)
            m = n if same else n + rng.choice([1, 10, 100])
            u = rng.choice(HM_UNIT_WORDS)
            yield pair(str(n), [(str(n), None)], str(m),
                       [("%d\\text{ %s}" % (m, u), HM_UNITS), ("%d \\text{ %s}" % (m, u), HM_UNITS + "; " + HM_SPACE)])
        else:  # 10,\!000 thousands separators
            n = rng.randint(1000, 999999)
            m = n if same else n + rng.choice([1, 9, 1000, 10000])
            canon_n, canon_m = group3(str(n), ","), group3(str(m), ",")
            yield pair(canon_n, [(canon_n, None)], canon_m, [(group3(str(m), ",\\!"), HM_BANG)])


# ---------------------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------------------

CATEGORIES = [
    ("fraction", "frac", FRACTION_SEEDS, fraction_stream),
    ("decimal_fraction", "decfrac", DECFRAC_SEEDS, decfrac_stream),
    ("integer_formatting", "intfmt", INTFMT_SEEDS, intfmt_stream),
    ("radical", "rad", RADICAL_SEEDS, radical_stream),
    ("pi_e", "pie", PI_E_SEEDS, pi_e_stream),
    ("power", "pow", POWER_SEEDS, power_stream),
    ("percent", "pct", PERCENT_SEEDS, pct_stream),
    ("degrees_units", "unit", UNITS_SEEDS, units_stream),
    ("currency", "cur", CURRENCY_SEEDS, currency_stream),
    ("text_wrappers", "wrap", WRAPPER_SEEDS, wrappers_stream),
    ("infinity", "inf", INFINITY_SEEDS, infinity_stream),
    ("interval", "intv", INTERVAL_SEEDS, interval_stream),
    ("set", "set", SET_SEEDS, set_stream),
    ("tuple", "tup", TUPLE_SEEDS, tuple_stream),
    ("matrix", "mat", MATRIX_SEEDS, matrix_stream),
    ("equation", "eq", EQUATION_SEEDS, equation_stream),
    ("inequality", "ineq", INEQUALITY_SEEDS, inequality_stream),
    ("expression_variables", "expr", EXPRESSION_SEEDS, expression_stream),
    ("trig_log", "trig", TRIG_LOG_SEEDS, trig_log_stream),
    ("complex", "cplx", COMPLEX_SEEDS, complex_stream),
    ("multiple_choice", "mc", MC_SEEDS, mc_stream),
    ("negative_sign", "neg", NEGATIVE_SEEDS, negative_stream),
    ("traps", "trap", TRAP_SEEDS, trap_stream),
    ("malformed", "mal", MALFORMED_SEEDS, malformed_stream),
    # labelled by other projects' published conventions (see the docstring), not by this project's policy
    ("convention_math_verify", "cmv", CONVENTION_MV_SEEDS, convention_math_verify_stream),
    ("convention_hendrycks_math", "chm", CONVENTION_HM_SEEDS, convention_hendrycks_math_stream),
]

#: Where each category's labels come from; every category not listed follows this project's policy.
OWN_POLICY = "verl-ext policy"
LABEL_SOURCES = {"convention_math_verify": MV_SOURCE, "convention_hendrycks_math": HM_SOURCE}


def build() -> list[dict]:
    seen: set = set()
    per_cat: list[list[tuple]] = []
    for name, _prefix, seeds, _stream in CATEGORIES:  # seeds first, so that no stream takes a seed's pair
        cat_rows = []
        for ref, pred, eq, why in seeds:
            assert (ref, pred) not in seen, ("duplicate seed", name, ref, pred)
            seen.add((ref, pred))
            cat_rows.append((ref, pred, eq, why))
        per_cat.append(cat_rows)
    rows: list[dict] = []
    for index, (name, prefix, _seeds, stream) in enumerate(CATEGORIES):
        cat_rows = per_cat[index]
        counts = {True: sum(1 for r in cat_rows if r[2]), False: sum(1 for r in cat_rows if not r[2])}
        target = max(PER_LABEL, counts[True], counts[False])
        rng = random.Random(20250 + index)
        draws = 0
        for ref, pred, eq, why in stream(rng):
            if counts[True] >= target and counts[False] >= target:
                break
            draws += 1
            assert draws < 200000, name
            if counts[eq] >= target or (ref, pred) in seen or ref.strip() == "":
                continue
            if ref == pred and name != "malformed":  # identical strings test nothing here
                continue
            seen.add((ref, pred))
            cat_rows.append((ref, pred, eq, why))
            counts[eq] += 1
        for i, (ref, pred, eq, why) in enumerate(cat_rows, 1):
            assert "$" not in ref.replace("\\$", "") and "\\boxed" not in ref, (name, ref)
            rows.append({"id": "%s-%04d" % (prefix, i), "category": name, "reference": ref, "prediction": pred,
                         "equal": eq, "why": why, "label_source": LABEL_SOURCES.get(name, OWN_POLICY)})
    return rows


def main(out: Path = OUT) -> None:
    rows = build()
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print("wrote %d pairs to %s" % (len(rows), out))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
