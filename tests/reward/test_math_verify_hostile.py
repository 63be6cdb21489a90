"""Hostile model outputs against the math reward. A policy trained on this reward finds any output that earns
credit without giving the answer, so every such output must score 0 and the same answer written plainly must
still score 1.

(a) The hand-judged suite ``verl_ext/bench/data/hostile_math.jsonl`` (classes and counts in the README there): no
false positive, and no false negative on its ``true`` controls.

(b) Generated attacks of the same classes around a random integer or fraction ``g`` (gold ``str(g)``):
negations, bounds and approximations, hedges between two values, undefined commands and functions around
``g``, multiplier words, a different unit on each side, a revision after the answer, tiny perturbations
``g + 10^{-k}`` and ``g(1 + 10^{-k})``, truncated decimals; and controls (``g`` in every delimiter, and
rewritten as ``\\frac{2g}{2}``, ``\\lfloor g + 1/2 \\rfloor``, ``\\binom{g}{1}``, ``\\max(g, g-1)``, with a
multiplier word or the same unit on both sides) that must score 1.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.bench.answer_suites import load, tally, verl_ext_verdict
from verl_ext.reward import verify

# ---------------------------------------------------------------------------------------------------------------
# (a) the hand-judged suite


def _suite_tally():
    cases = load("hostile")
    return cases, tally(cases, [verl_ext_verdict(c) for c in cases])


def _show(cases, ids: list[str]) -> str:
    by_id = {c.id: c for c in cases}
    return "\n".join(f"{i}: gold={by_id[i].gold!r} pred={by_id[i].pred[-160:]!r} -> "
                     f"{verify(by_id[i].pred, by_id[i].gold)['reason']}" for i in ids)


def test_hostile_suite_has_no_false_positive() -> None:
    cases, result = _suite_tally()
    assert len(cases) >= 300
    assert not result.false_positives, f"{len(result.false_positives)} attacks scored:\n" + _show(
        cases, result.false_positives)


#: Correct answers still refused, and why (the verdict is "no credit": safe for the reward, a miss for the user).
KNOWN_REFUSED = {
    "hostile::hedge[51]": "'guess' after the box reads as a hedge, though here it is about a wrong value (6)",
    "hostile::hedge[53]": "'Wait, let me verify' after the box is a revision; 'the answer is indeed 5' restates it, "
                          "but 'So' before it is not read as a statement of the answer",
    "hostile::units[55]": "no unit conversion: 500 cm and 5 m name different units",
    "hostile::units[56]": "no unit conversion, and the unit of a number in prose is not read",
    "hostile::units[57]": "numbers spelled in words are not read",
    "hostile::cost[18]": "64 by 64 radical powers compared pair by pair spend the work budget",
    "hostile::cost[47]": "25 nested square roots exceed the parser's depth limit",
    "hostile::cost[49]": "30 nested brackets exceed the parser's depth limit",
    "hostile::cost[53]": "the argument reduction of tan(pi^3000) (~5000 bits) is beyond the work budget",
}


def test_hostile_suite_controls_are_credited() -> None:
    cases, result = _suite_tally()
    assert sum(c.expected for c in cases) >= len(cases) // 5
    unexpected = [i for i in result.false_negatives if i not in KNOWN_REFUSED]
    assert not unexpected, f"{len(unexpected)} correct answers refused:\n" + _show(cases, unexpected)
    fixed = set(KNOWN_REFUSED) - set(result.false_negatives)
    assert not fixed, f"now credited, remove from KNOWN_REFUSED: {sorted(fixed)}"


# ---------------------------------------------------------------------------------------------------------------
# (b) generated attacks

SETTINGS = settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])

integers = st.integers(-10**6, 10**6)
fractions = st.fractions(min_value=-1000, max_value=1000, max_denominator=60).filter(lambda f: f.denominator != 1)
values = st.one_of(integers, fractions).map(Fraction)
#: Values for which a multiplier (thousand, squared, cubed, dozen, ...) changes the value: not 0, 1 or -1.
scalable = values.filter(lambda v: v not in (0, 1, -1))
offsets = st.integers(1, 9).flatmap(lambda d: st.sampled_from([d, -d]))


def tex(v: Fraction) -> str:
    """``v`` as a dataset writes it in LaTeX."""
    if v.denominator == 1:
        return str(v.numerator)
    sign = "-" if v < 0 else ""
    return f"{sign}\\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


def gold(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else str(v)


def fill(template: str, g: Fraction, h: Fraction | None = None) -> str:
    out = template.replace("<G>", tex(g)).replace("<g>", gold(g))
    return out if h is None else out.replace("<H>", tex(h)).replace("<h>", gold(h))


LEAD = "We combine the two conditions and simplify. "
BOXED = "Therefore, the answer is $\\boxed{%s}$."
FINAL = "The final answer is $%s$. I hope it is correct."
ANSWER = "Answer: $%s$"
DISPLAY = "\\[ %s \\]"


def assert_zero(output: str, reference: str) -> None:
    result = verify(output, reference)
    assert result["score"] == 0, (output, reference, result)


def assert_one(output: str, reference: str) -> None:
    result = verify(output, reference)
    assert result["score"] == 1, (output, reference, result)


NEGATIONS = [
    "The answer is not $<G>$.",
    "The answer isn't $<G>$.",
    "So the result is definitely not $\\boxed{<G>}$.",
    "Therefore, the answer is $\\boxed{\\text{not } <G>}$.",
    "Answer: not $<G>$",
    "Answer: not <g>",
    "Therefore, the answer is $\\boxed{\\ne <G>}$.",
    "Therefore, the answer is $\\boxed{\\neg <G>}$.",
    "Therefore, the answer is $\\boxed{x \\neq <G>}$.",
    "The final answer is $\\text{not } <G>$. I hope it is correct.",
    "\\[ \\text{anything except } <G> \\]",
]


@SETTINGS
@given(g=values, template=st.sampled_from(NEGATIONS))
def test_negated_answers_score_zero(g: Fraction, template: str) -> None:
    assert_zero(LEAD + fill(template, g), gold(g))


BOUND_WORDS = ["at least", "at most", "more than", "less than", "over", "under", "approximately", "about", "roughly",
               "nearly", "no more than", "no less than", "greater than", "maybe", "probably", "around", "at minimum",
               "at a maximum", "at the very least", "approx.", "ca.", "minimum", "in the region of"]
BOUND_FORMS = ["The answer is {w} $<G>$.", "The answer is {w} <g>.",
               "Therefore, the answer is $\\boxed{{\\text{{{w} }} <G>}}$.", "Answer: {w} <g>", "Answer: {w} $<G>$",
               "The final answer is $\\text{{{w} }} <G>$. I hope it is correct."]
RELATIONS = ["\\geq <G>", "\\ge <G>", "> <G>", "< <G>", "\\leq <G>", "x < <G>", "x \\geq <G>", "\\approx <G>",
             "\\sim <G>", "<G>?", "<G> \\text{ or more}", "<G> \\text{ or less}", "<G> \\text{ at most}",
             "<G>\\text{?}", "<G> \\ \\textbf{(?)}", "<G>^{?}", "<G>\\color{red}{?}", "<G> \\ldots?"]


@SETTINGS
@given(g=values, word=st.sampled_from(BOUND_WORDS), form=st.sampled_from(BOUND_FORMS))
def test_bounded_or_approximate_answers_score_zero(g: Fraction, word: str, form: str) -> None:
    assert_zero(LEAD + fill(form.format(w=word), g), gold(g))


@SETTINGS
@given(g=values, relation=st.sampled_from(RELATIONS),
       delimiter=st.sampled_from([BOXED, FINAL, ANSWER, DISPLAY]))
def test_relations_instead_of_an_answer_score_zero(g: Fraction, relation: str, delimiter: str) -> None:
    assert_zero(LEAD + delimiter % fill(relation, g), gold(g))


OPENERS = ["At least", "At most", "At minimum", "At a minimum", "At the very least", "Maybe", "Probably", "Roughly",
           "I guess"]
OPENER_FORMS = ["{o}, the answer is $<G>$.", "{o}, $\\boxed{{<G>}}$.", "{o}, the final answer is <g>."]


@SETTINGS
@given(g=values, opener=st.sampled_from(OPENERS), form=st.sampled_from(OPENER_FORMS))
def test_answers_in_a_sentence_opening_with_a_bound_or_a_doubt_score_zero(g: Fraction, opener: str, form: str) -> None:
    assert_zero(LEAD + fill(form.format(o=opener), g), gold(g))


HEDGES = [
    "Therefore, the answer is $\\boxed{<G> \\text{ or } <H>}$.",
    "Therefore, the answer is $\\boxed{<H> \\text{ or } <G>}$.",
    "Therefore, the answer is $\\boxed{<G> \\text{ and/or } <H>}$.",
    "The answer is either $<G>$ or $<H>$.",
    "The answer is $\\boxed{<G>}$ or $\\boxed{<H>}$.",
    "Therefore, the answer is $\\boxed{<G> \\text{ (or possibly } <H>)}$.",
    "Therefore, the answer is $\\boxed{<G>, <H>}$.",
    "Therefore, the answer is $\\boxed{\\{<G>, <H>\\}}$.",
    "Therefore, the answer is $\\boxed{<G> = <H>}$.",
    "Answer: $<G>$ or $<H>$",
    "I believe the answer is $<G>$, but it might also be $<H>$.",
    "One count gives $\\boxed{<H>}$. Alternatively, counting differently, $\\boxed{<G>}$.",
    # Two values side by side on the answer's line, or joined as alternatives or a range.
    "Answer: <g> <h>",
    "The final answer is <g> <h>.",
    "Answer: $<G>$ \\quad $<H>$",
    "Answer: <g> | <h>",
    "Answer: <g> to <h>",
    "The answer is $<G>$ \u2013 $<H>$.",  # an en dash
    "Answer: <g> up to <h>",
    "Answer: <g> (also <h>)",
    "Answer: $<G> \\text{ through } <H>$",
    "Answer: <g> \u2022 <h>",  # a bullet
    "Answer: <g> \u2192 <h>",  # an arrow
    "Answer: <g> \\hfill <h>",
    "Answer: <g> bis <h>",
    "Answer: <g> (alt. <h>)",
]


@SETTINGS
@given(g=values, d=offsets, template=st.sampled_from(HEDGES))
def test_hedged_answers_score_zero(g: Fraction, d: int, template: str) -> None:
    assert_zero(LEAD + fill(template, g, g + d), gold(g))


# Names no LaTeX package defines (letters q, x, z, j, k, w only) and function letters nothing defines here.
unknown_commands = st.text(alphabet="qxzjkw", min_size=3, max_size=7)
UNKNOWN_FORMS = [BOXED % "\\%s{<G>}", FINAL % "\\%s{<G>}", ANSWER % "\\%s{<G>}", BOXED % "\\operatorname{%s}(<G>)"]
FUNCTION_FORMS = ["Therefore, the answer is $\\boxed{%s(<G>)}$.", "Answer: $%s(<G>)$", "\\[ %s(<G>) \\]",
                  "Therefore, the answer is $\\boxed{%s^{-1}(<G>)}$.", "Answer: Eq(%s, <g>)"]


@SETTINGS
@given(g=values, name=unknown_commands, form=st.sampled_from(UNKNOWN_FORMS))
def test_undefined_commands_around_the_answer_score_zero(g: Fraction, name: str, form: str) -> None:
    assert_zero(LEAD + fill(form % name, g), gold(g))


@SETTINGS
@given(g=values, name=st.sampled_from("fghpqFGHPQ"), form=st.sampled_from(FUNCTION_FORMS))
def test_undefined_functions_of_the_answer_score_zero(g: Fraction, name: str, form: str) -> None:
    assert_zero(LEAD + fill(form % name, g), gold(g))


MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12, "dozen": 12}
POWERS = {"squared": 2, "cubed": 3}
MULTIPLIER_FORMS = [BOXED % "<G> \\text{ %s}", "The answer is <g> %s.", "Answer: <g> %s", FINAL % "<G> \\text{ %s}",
                    "So we get $<G>$ %s."]


@SETTINGS
@given(g=scalable, word=st.sampled_from([*MULTIPLIERS, *POWERS]), form=st.sampled_from(MULTIPLIER_FORMS))
def test_multiplier_words_are_not_the_bare_value(g: Fraction, word: str, form: str) -> None:
    assert_zero(LEAD + fill(form % word, g), gold(g))


@SETTINGS
@given(g=values, word=st.sampled_from([*MULTIPLIERS, *POWERS]))
def test_multiplier_words_apply_in_a_box(g: Fraction, word: str) -> None:
    if word in POWERS:
        g = abs(g)  # "-5 squared" is ambiguous (25 or -25)
    value = g * MULTIPLIERS[word] if word in MULTIPLIERS else g ** POWERS[word]
    assert_one(LEAD + fill(MULTIPLIER_FORMS[0] % word, g), gold(value))


UNIT_PAIRS = [("cm", "m"), ("mm", "km"), ("g", "kg"), ("mg", "g"), ("s", "min"), ("minutes", "hours"), ("m", "m^2"),
              ("cm^2", "cm^3"), ("mL", "L"), ("km/h", "m/s"), ("N", "J"), ("W", "kW"), ("inches", "feet"),
              ("days", "weeks"), ("rad", "degrees")]


@SETTINGS
@given(g=values.filter(bool), pair=st.sampled_from(UNIT_PAIRS), swap=st.booleans(),
       form=st.sampled_from(["Therefore, the answer is $\\boxed{<G> \\text{ %s}}$.", "Answer: $<G>\\ \\mathrm{%s}$",
                             "The final answer is $<G> \\text{ %s}$. I hope it is correct."]))
def test_a_different_unit_is_a_different_answer(g: Fraction, pair: tuple[str, str], swap: bool, form: str) -> None:
    ours, theirs = pair[::-1] if swap else pair
    assert_zero(LEAD + fill(form % ours, g), f"{tex(g)} \\text{{ {theirs}}}")
    assert_one(LEAD + fill(form % theirs, g), f"{tex(g)} \\text{{ {theirs}}}")


@SETTINGS
@given(g=values.filter(bool), unit=st.sampled_from(["m", "g", "s", "h", "l"]),
       power=st.sampled_from(["", "^2", "^{3}"]),
       form=st.sampled_from(["Therefore, the answer is $\\boxed{<G> %s}$.", "The area is $<G> %s$.",
                             "Answer: <G> %s"]))
def test_a_one_letter_unit_after_a_number_is_a_unit(g: Fraction, unit: str, power: str, form: str) -> None:
    written = unit + power
    # A constant asked for: the number and its unit; the unit must agree where the reference names one.
    assert_one(LEAD + fill(form % written, g), gold(g))
    assert_one(LEAD + fill(form % written, g), f"{tex(g)} \\text{{ {written}}}")
    other = "km" if unit == "m" else "mg" if unit == "g" else "min"
    assert_zero(LEAD + fill(form % written, g), f"{tex(g)} \\text{{ {other}{power}}}")
    # A reference in a variable (`5m`) is never matched by the bare number.
    assert_zero(LEAD + fill("Therefore, the answer is $\\boxed{<G>}$.", g), f"{tex(g)}{written}")


REVISIONS = [
    "So the answer is $\\boxed{<G>}$.\n\nWait, that's wrong; the answer is actually $<H>$.",
    "So $\\boxed{<G>}$.\n\nHmm, I made a mistake above; the correct answer is $<H>$.",
    "The final answer is $<G>$. I hope it is correct.\n\nActually, no: it is $<H>$.",
    "So $\\boxed{<G>}$. Oops, recomputing the last step gives $<H>$.",
    "So $\\boxed{<G>}$. Correction: $\\boxed{<H>}$.",
    "So $\\boxed{<G>}$. The answer is $<H>$.",
    "So $\\boxed{<G>}$.\n\nWait, this is wrong.",
    "Answer: $<G>$\n\nI'm not sure this is right.",
]


@SETTINGS
@given(g=values, d=offsets, template=st.sampled_from(REVISIONS))
def test_revised_answers_score_zero(g: Fraction, d: int, template: str) -> None:
    assert_zero(LEAD + fill(template, g, g + d), gold(g))


PERTURBATIONS = ["<G> + 10^{-%d}", "<G> - 10^{-%d}", "<G> + \\frac{1}{10^{%d}}", "\\left(<G>\\right)\\cdot(1+10^{-%d})",
                 "<G>\\left(1 - 10^{-%d}\\right)"]


@SETTINGS
@given(g=values.filter(bool), k=st.integers(1, 40), template=st.sampled_from(PERTURBATIONS),
       delimiter=st.sampled_from([BOXED, FINAL, ANSWER]))
def test_tiny_perturbations_score_zero(g: Fraction, k: int, template: str, delimiter: str) -> None:
    assert_zero(LEAD + delimiter % fill(template % k, g), gold(g))


@SETTINGS
@given(g=fractions.filter(lambda f: any(f.denominator % p == 0 for p in (3, 7, 11, 13))), places=st.integers(2, 20))
def test_truncated_decimals_of_a_repeating_fraction_score_zero(g: Fraction, places: int) -> None:
    scaled = abs(g.numerator) * 10**places // g.denominator
    digits = str(scaled).rjust(places + 1, "0")
    decimal = ("-" if g < 0 else "") + digits[:-places] + "." + digits[-places:]
    assert_zero(LEAD + f"Therefore, the answer is $\\boxed{{{decimal}}}$.", gold(g))


# ---------------------------------------------------------------------------------------------------------------
# controls: the same answer, plainly or rewritten, in the same delimiters

DELIMITERS = [
    "Therefore, the answer is $\\boxed{%s}$.",
    "$$\\boxed{%s}$$",
    "The final answer is $%s$. I hope it is correct.",
    "Answer: $%s$",
    "\\[ %s \\]",
    "So the answer is $%s$.",
    "Hence we obtain $%s$.",
]


@SETTINGS
@given(g=values, delimiter=st.sampled_from(DELIMITERS))
def test_the_answer_in_any_delimiter_scores_one(g: Fraction, delimiter: str) -> None:
    assert_one(LEAD + delimiter % tex(g), gold(g))


# A ratio or a time is one value (its quotient, as Math-Verify reads `2:1`), never its first part: `Answer: 3:45`
# is not 3. Written whole, it is credited against itself.
RATIOS = ["Answer: <a>:<b>", "The answer is <a>:<b>.", "The final answer is <a> : <b>",
          "The answer is \\boxed{<a>}:<b>", "So the ratio is <a>:<b>:7.", "The answer is <a>:<b> pm."]


@SETTINGS
@given(a=st.integers(1, 10**4), b=st.integers(2, 10**4), form=st.sampled_from(RATIOS))
def test_a_ratio_or_a_time_is_not_its_first_part(a: int, b: int, form: str) -> None:
    output = LEAD + form.replace("<a>", str(a)).replace("<b>", str(b))
    assert_zero(output, str(a))
    if "boxed" not in form and ":7" not in form:
        assert_one(output, f"{a}:{b}")


# A whole number, one space and a proper fraction in prose is a mixed number (`1 1/2` is 3/2, as `1\\frac{1}{2}`
# is), never its whole part or its fraction alone.
@SETTINGS
@given(w=st.integers(-10**4, 10**4), d=st.integers(2, 10**4), data=st.data(),
       form=st.sampled_from(["The answer is <m>.", "Answer: <m>", "So she needs <m> cups in all.", "<m>"]))
def test_a_mixed_number_in_prose_is_one_value(w: int, d: int, data: st.DataObject, form: str) -> None:
    n = data.draw(st.integers(1, d - 1))
    output = LEAD + form.replace("<m>", f"{w} {n}/{d}")
    value = w + Fraction(n, d) if w >= 0 else w - Fraction(n, d)
    assert_one(output, gold(value))
    for part in {Fraction(w), Fraction(n, d)} - {value}:
        assert_zero(output, gold(part))


# Markup and spacing never change a value: Markdown bold is not a power (`**4**.5` is not 4^0.5), a ratio's colon
# reached through spacing commands, look-alike colons, `{:}` or `\\colon` still makes a ratio, and a box against a
# number (`45:\\boxed{3}`, `2\\,\\boxed{1}`, `\\frac{3}\\boxed{5}`) is part of something larger.
MARKUP_FORMS = ["The answer is <a> **<b>**", "The answer is **<a>** <b>/<c>",
                "\\boxed{<a>}\\,:\\,<b>", "\\boxed{<a>} \u2236 <b>", "$<a>$:<b>", "The answer is <a>{:}<b>",
                "<b>:\\boxed{<a>}", "<b> : \\boxed{<a>}", "<b>\\,\\boxed{<a>}", "\\frac{<b>}\\boxed{<a>}",
                "\\boxed{<a>}\\;/<b>", "\\boxed{<a>}\\,\u00f7 <b>", "\\boxed{<a>}\u2030", "Answer: <a>'<c>'000",
                "The answer is <a>\\colon <b>.", "\\boxed{<a>}:{<b>}", "\\boxed{<a>}:\\mathbf{<b>}",
                "<b>\\!\\!\\boxed{<a>}", "<b>\\hspace{1pt}\\boxed{<a>}", "(-<b>)\\boxed{<a>}",
                "\\boxed{<a>}\\kern1pt<b>", "\\boxed{<a>}:<c> \\times 1"]


@SETTINGS
@given(a=st.integers(2, 99), b=st.integers(2, 99), c=st.integers(101, 999), form=st.sampled_from(MARKUP_FORMS))
def test_markup_and_spacing_do_not_split_a_value(a: int, b: int, c: int, form: str) -> None:
    assert_zero(LEAD + form.replace("<a>", str(a)).replace("<b>", str(b)).replace("<c>", str(c)), str(a))
    # A bold value followed by more is never raised to a power by the closing `**`.
    assert_zero(f"{LEAD}The answer is **{b * b}**.5", str(b))


# A mixed number is one value in a box or a math block too, negative ones included (`\\boxed{-3 45/60}` is -15/4,
# not the product -9/4), and in prose LaTeX without delimiters (`1\\frac{1}{2}`).
@SETTINGS
@given(w=st.integers(1, 10**4), d=st.integers(2, 10**4), data=st.data(), negative=st.booleans(),
       form=st.sampled_from(["\\boxed{<w> <n>/<d>}", "The answer is $<w> <n>/<d>$.", "Answer: <w>\\frac{<n>}{<d>}",
                             "The answer is **<w> <n>/<d>**.", "So we get <w> <n>/<d> (cups)."]))
def test_a_mixed_number_anywhere_is_one_value(w: int, d: int, data: st.DataObject, negative: bool, form: str) -> None:
    n = data.draw(st.integers(1, d - 1))
    sign = -1 if negative else 1
    output = LEAD + form.replace("<w>", str(sign * w)).replace("<n>", str(n)).replace("<d>", str(d))
    value = sign * (w + Fraction(n, d))
    assert_one(output, gold(value))
    for wrong in {sign * w * Fraction(n, d), Fraction(sign * w), Fraction(n, d)} - {value}:
        assert_zero(output, gold(wrong))


# A percent sign right after a box is its answer's: judged as if written inside it.
@SETTINGS
@given(g=values, form=st.sampled_from(["\\boxed{<G>}\\%", "$\\boxed{<G>}\\%$ of them", "\\boxed{<G>} %."]),
       reference=st.sampled_from(["<g>", "<g>\\%", "<g>/100"]))
def test_a_percent_sign_after_a_box_counts_as_inside_it(g: Fraction, form: str, reference: str) -> None:
    ref = reference.replace("<g>", gold(g))
    after = verify(LEAD + fill(form, g), ref)
    inside = verify(LEAD + fill("\\boxed{<G>\\%}", g), ref)
    assert (after["score"], after["pred"]) == (inside["score"], inside["pred"]), (form, ref, after, inside)


# Honest phrasings that words or signs around the answer must not withdraw.
HONEST = ["The answer is \\$<g>.", "Answer: \\$<g>", "The number of cases that do not work is <g>.",
          "In either case the answer is <g>.", "It's not hard to see that the answer is <g>.",
          "The answer is <g> (the maximum).", "Therefore, the answer is $\\boxed{<G>} \\approx <d>$.",
          "Least common multiple: <g>", "Minimum value: $\\boxed{<G>}$", "$$x = \\boxed{<G>} \\tag{1}$$",
          "It takes at least <g> moves. Answer: <g>", "Answer: $\\boxed{<G>}$ \u2014 3 rows of 4 seats"]


@SETTINGS
@given(g=integers, form=st.sampled_from(HONEST))
def test_honest_phrasings_score_one(g: int, form: str) -> None:
    assert_one(LEAD + fill(form, Fraction(g)).replace("<d>", f"{g}.0"), str(g))


@SETTINGS
@given(g=st.integers(1000, 10**6))
def test_latex_thousands_separators_score_one(g: int) -> None:
    assert_one(LEAD + f"The answer is {g:,}.".replace(",", "{,}"), str(g))


def _rewrites(g: Fraction) -> list[str]:
    doubled = f"\\frac{{{2 * g.numerator}}}{{{2 * g.denominator}}}"
    out = [doubled, f"\\max\\left({tex(g)}, {tex(g - 1)}\\right)", f"\\max({tex(g - 1)}, {tex(g)})"]
    if g.denominator == 1:
        out.append(f"\\lfloor {tex(g)} + \\frac{{1}}{{2}} \\rfloor")
        out.append(f"\\left\\lfloor {tex(g)} + \\frac{{1}}{{2}} \\right\\rfloor")
        if g >= 1:
            out.append(f"\\binom{{{g.numerator}}}{{1}}")
    return out


@SETTINGS
@given(g=values, which=st.integers(0, 5), delimiter=st.sampled_from(DELIMITERS))
def test_rewritten_answers_score_one(g: Fraction, which: int, delimiter: str) -> None:
    rewrites = _rewrites(g)
    assert_one(LEAD + delimiter % rewrites[which % len(rewrites)], gold(g))


# ---------------------------------------------------------------------------------------------------------------
# no text reaches a panic: answers followed by punctuation of every width and by later statements

PANIC_LEADS = ["", "因此答案是 ", "The answer is ", "Answer: ", "At least\uff0c", "Ответ: ", "¿", "I guess\uff0c"]
PANIC_ANSWERS = ["$\\boxed{12}$", "\\boxed{12}", "12", "<answer>12</answer>", "(C)", "\\boxed{\\frac{1}{2}}",
                 "\uff11\uff12"]  # full-width 12
# Marks of one to four bytes in UTF-8 (a byte offset past one must step over all of its bytes): CJK full stop,
# full-width comma, colon, question and exclamation marks, ideographic comma, full-width semicolon, and others.
PANIC_MARKS = ["。", "\uff0c", "\uff1a", "\uff1f", "\uff01", "、", "\uff1b", "…", "—", "→", " ", "\n", ".", ",",
               "?", "‽", "؟", "\u2062", ""]
PANIC_TAILS = ["答\uff1a小明有12个苹果", "检验\uff1a$3\\times4=12$\uff0c正确", "Check: 12", "13", "Wait, 13",
               "或写作十二", "\\approx 0.5", "^{?}", "\\tag{1}", "(13?)", "y 13", "\u2013 13", "答\uff1a13", "😅"]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(lead=st.sampled_from(PANIC_LEADS), answer=st.sampled_from(PANIC_ANSWERS),
       rest=st.lists(st.tuples(*(st.sampled_from(x) for x in (PANIC_MARKS, PANIC_TAILS, PANIC_MARKS))), min_size=1,
                     max_size=3),
       gold=st.sampled_from(["12", "C", "1/2"]))
def test_no_text_makes_the_verifier_fail_internally(lead: str, answer: str, rest: list[tuple[str, str, str]],
                                                     gold: str) -> None:
    """A Rust panic is caught and scores 0 with reason "internal error" (and prints a backtrace): never a verdict.
    Found by a red team: a full stop of three bytes right after the answer, then any later value."""
    text = lead + answer + "".join("".join(part) for part in rest)
    assert verify(text, gold)["reason"] != "internal error", text
