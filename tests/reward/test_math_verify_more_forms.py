"""A sixth red team's classes, each with the honest forms beside it (hostile twins score 0, honest ones 1).

- An answer label after the last number that holds no value read (``Answer: ~43``, ``Answer: TBD``): the number
  before it is not the answer.
- A list item alone on its line (``- 42``, ``1. 42``, ``a) 42``) is labelled by the line above it as a value alone
  is (``Rejected:``, ``Maybe:``, ``I don't know.``); under ``Answer:`` it is the answer.
- Characters a page does not show (every default-ignorable code point: Hangul and Khmer fillers too) and letters of
  other alphabets drawn as Latin ones hide no hedge.
- Clock times: a range or a bound (``3:45\u20134:00``, ``before 3:45``, ``3:45 at the latest``) is no time; an hour
  with AM/PM (``7 AM``) and ``noon`` are times; hour 0 is midnight, never noon.
- The same value said again (``\\boxed{\\frac14}, or 25%``, ``1/4 or 0.25``, ``(approximately 0.33)``) is no second
  value; another value so written is (``, or 26%``, ``(approximately 0.34)``).
- Honest forms near the rules: ``$\\boxed{42}$!``, ``__Final Answer:__``, a spaced minus after a stating word
  (``The answer is \u2212 7``), a count of wrong or rejected things (``Number of wrong answers: 42``), ``left over``.
- A currency sign before or after an amount (``\\boxed{\u00a345}``, ``45 \u20ac``, ``\\pounds 45``) leaves the
  amount, as ``\\$`` does; the cent sign names its unit (``45\u00a2`` is 45 cents), the mill sign is not read.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.reward import verify

SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
values = st.integers(2, 10**6)
LEAD = "We add the two counts and simplify.\n\n"


def score(output: str, reference: str) -> float:
    return float(verify(output, reference)["score"])


@SETTINGS
@given(g=values, before=st.sampled_from(["I computed {g} earlier.", "Candidates: {h}, {g}.", "So 2 * x = {g}."]),
       label=st.sampled_from(["Answer: ~{h}", "Answer: \u2248{h}", "**Answer:** \u2265{h}", "#### ~{h}", "Answer: TBD",
                              "Final answer: unknown", "The answer is \u2248{h}.", "So the answer is $\\approx {h}$.",
                              "\u3010\u7b54\u6848\u3011\u7ea6{h}", "Final result: TBD", "The answer is \u2a85 {h}.",
                              "The answer is $\\lessapprox {h}$.", "The answer is $\\gtrsim{h}$.", "The answer is ???",
                              "The answer is [insert answer]", "The answer is ...", "So the answer is TBD.",
                              "Result: TBD", "Result: ~{h}", "Final result: \\pm {h}"]))
def test_an_answer_label_without_a_value_read_leaves_no_answer(g: int, before: str, label: str) -> None:
    text = LEAD + before.format(g=g, h=g + 1) + "\n\n" + label.format(h=g + 1)
    assert score(text, str(g)) == 0


@SETTINGS
@given(g=values, form=st.sampled_from(["Answer: Janet has {g} eggs.",
                                       "So the result is {h}.\n\nFinal Answer: {g} apples",
                                       "It is {h} + 1 = {g}.\n\n#### Step 2\nSo there are {g} in all.",
                                       "The answer is as follows: we get {g}."]))
def test_an_answer_label_before_the_value_keeps_it(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g - 1), str(g)) == 1


LIST_MARKS = ["- {g}", "1. {g}", "2) {g}", "a) {g}", "(a) {g}", "\u2022 {g}", "+ {g}", "-> {g}", "- **{g}**",
              "1. \\boxed{{{g}}}", "- $${g}$$"]


@SETTINGS
@given(g=values, mark=st.sampled_from(LIST_MARKS),
       label=st.sampled_from(["Rejected:", "Maybe:", "Not sure:", "Lower bound:", "I don't know.", "Answer (unsure)"]),
       sep=st.sampled_from(["\n", "\n\n"]))
def test_a_list_item_below_a_hedged_label_is_withdrawn(g: int, mark: str, label: str, sep: str) -> None:
    assert score(LEAD + label + sep + mark.format(g=g), str(g)) == 0


@SETTINGS
@given(g=values, mark=st.sampled_from(LIST_MARKS),
       label=st.sampled_from(["Answer:", "**Final Answer:**", "The answer:"]))
def test_a_list_item_below_an_answer_label_is_the_answer(g: int, mark: str, label: str) -> None:
    assert score(LEAD + label + "\n" + mark.format(g=g), str(g)) == 1


@SETTINGS
@given(g=values, hidden=st.sampled_from(["\u3164", "\u115f", "\u1160", "\uffa0", "\u17b4", "\u17b5", "\u180b",
                                         "\u2064", "\ufff0", "\U000e0100", "\U0001d173"]),
       form=st.sampled_from(["The answer is n{x}ot \\boxed{{{g}}}.", "Answer: ab{x}out {g}", "It is ma{x}ybe {g}."]))
def test_characters_a_page_does_not_show_hide_no_hedge(g: int, hidden: str, form: str) -> None:
    assert score(LEAD + form.format(x=hidden, g=g), str(g)) == 0


@SETTINGS
@given(g=values, word=st.sampled_from(["\u0251bout", "may\u042ce", "\u0578ot", "\u0251pproximately", "ro\u057dghly",
                                       "\u0251t le\u0251st", "m\u0251ybe"]))
def test_letters_drawn_as_latin_ones_hide_no_hedge(g: int, word: str) -> None:
    assert score(LEAD + f"The answer is {word} \\boxed{{{g}}}.", str(g)) == 0


times = st.tuples(st.integers(1, 12), st.integers(0, 59))


@SETTINGS
@given(t=times, form=st.sampled_from(["Answer: {a}\u2013{b}", "It is {a}/{b}.", "\\boxed{{{a}}} \u2192 {b}",
                                      "Answer: before {a}", "She arrives shortly after \\boxed{{{a}}}.",
                                      "Answer: by {a}", "Answer: {a} at the latest"]))
def test_a_range_or_bound_of_times_is_no_time(t: tuple[int, int], form: str) -> None:
    h, m = t
    a, b = f"{h}:{m:02d}", f"{h % 12 + 1}:{m:02d}"
    assert score(LEAD + form.format(a=a, b=b), a) == 0


@SETTINGS
@given(h=st.integers(1, 12), half=st.sampled_from(["AM", "PM", "a.m.", "pm"]),
       form=st.sampled_from(["Answer: {t}", "She arrives at {t}.", "\\boxed{{{t}}}"]))
def test_an_hour_with_its_half_of_the_day_is_a_time(h: int, half: str, form: str) -> None:
    text = LEAD + form.format(t=f"{h} {half}")
    same = "AM" if half.lower().startswith("a") else "PM"
    assert score(text, f"{h}:00 {same}") == 1
    assert score(text, f"{h}:00 {'PM' if same == 'AM' else 'AM'}") == 0


def test_noon_and_midnight() -> None:
    assert score("\\boxed{noon}", "12:00 PM") == 1
    assert score("\\boxed{midnight}", "12:00 PM") == 0
    assert score("\\boxed{0:00}", "12:00 \\text{ PM}") == 0
    assert score("The lunch starts at 00:30.", "12:30 PM") == 0


FRACTIONS = st.sampled_from([(1, 4), (1, 2), (3, 4), (1, 5), (2, 5), (3, 8), (1, 8)])


@SETTINGS
@given(f=FRACTIONS, form=st.sampled_from([
    "The probability is $\\boxed{{\\frac{{{n}}}{{{d}}}}}$, or {pct}%.", "The probability is {n}/{d} or {dec}.",
    "The answer is {dec} (or {pct}%).", "So $\\boxed{{\\frac{{{n}}}{{{d}}}}}$ (approximately {dec2}).",
    "It is {n}/{d}, i.e. {dec}.", "The answer is $\\boxed{{\\frac{{{n}}}{{{d}}}}}$ or {dec}.",
]), bump=st.booleans())
def test_the_same_value_said_again_is_no_second_value(f: tuple[int, int], form: str, bump: bool) -> None:
    n, d = f
    dec = n / d
    # The restated value, or (bump) another one written the same way.
    pct, dec_text = f"{100 * n / d + bump:g}", f"{dec + bump / 100:g}"
    dec2 = f"{dec + 0.02 * bump:.2f}"
    text = LEAD + form.format(n=n, d=d, pct=pct, dec=dec_text, dec2=dec2)
    assert score(text, f"\\frac{{{n}}}{{{d}}}") == int(not bump)


@SETTINGS
@given(g=values, form=st.sampled_from([
    "So the answer is $\\boxed{{{g}}}$!", "__Final Answer:__ \\boxed{{{g}}}", "__Answer:__ {g}",
    "Number of wrong answers: {g}", "Count of incorrect submissions: {g}", "### Amount left over\n{g}",
    "The amount left over is {g}.",
]))
def test_honest_forms_near_the_sixth_rules(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g), str(g)) == 1


@SETTINGS
@given(g=values, minus=st.sampled_from(["-", "\u2212"]),
       form=st.sampled_from(["The answer is {m} {g}.", "Answer: {m} {g}"]))
def test_a_spaced_minus_after_a_stating_word_is_a_sign(g: int, minus: str, form: str) -> None:
    text = LEAD + form.format(m=minus, g=g)
    assert score(text, f"-{g}") == 1
    assert score(text, str(g)) == 0


#: One shape of each class above, repeated with distinct numbers to about 1 MB (no repetition loop to stop at).
LONG_SHAPES = [
    "{i}/4 or {q} word{i} ", "I got {i}.\nAnswer: ~{i}\n", "The answer is ~{i} ", "Rejected{i}:\n- {i}\n",
    "before {h}:{m:02d} w{i} ", "is - {i} ", "{i} cm ", "\\boxed{{{i}\\pi}} square units, approximately {a:.2f} ",
    "\\boxed{{{i}}}, or {i}.0 ",
]


@pytest.mark.parametrize("shape", LONG_SHAPES)
def test_a_megabyte_of_each_new_shape_is_read_in_linear_time(shape: str) -> None:
    text = "".join(shape.format(i=i, q=i / 4, h=i % 12 + 1, m=i % 60, a=i * 3.14159) for i in range(40000))
    text = text[: 1 << 20]
    start = time.perf_counter()
    result = verify(text, "5")
    # About 0.1 s in a release build on one core; a quadratic scan took seconds (the bound allows a debug build).
    assert time.perf_counter() - start < 30.0
    assert result["score"] in (0.0, 1.0)


MORE_HEDGES = [
    "\\boxed{{{g}}} (corrected: {h})", "\\boxed{{{g}}}. Amended: {h}", "\\boxed{{{g}}}\n\nRecomputed: {h}",
    "Answer: {g}\n\nAlternative: {h}", "\\boxed{{{h}}}\n\nBackup answer: \\boxed{{{g}}}", "\\boxed{{{g}}} becomes {h}",
    "\\boxed{{{g}}} but {h}", "Answer: {g} ({h}?)", "Answer: {g} ({h})", "Red herring: \\boxed{{{g}}}",
    "Answer (low confidence): \\boxed{{{g}}}", "Subtotal: \\boxed{{{g}}}", "Guess...\n\\boxed{{{g}}}",
    "Mauvaise r\u00e9ponse : \\boxed{{{g}}}", "Respuesta aproximada: \\boxed{{{g}}}",
    "The answer is at best \\boxed{{{g}}}.", "The answer is as many as {g}.", "Respuesta: m\u00e1s de \\boxed{{{g}}}",
    "Answer: plus de {g}", "Antwort: \u00fcber {g}",
    "\u041e\u0442\u0432\u0435\u0442: \u043f\u043e\u0440\u044f\u0434\u043a\u0430 {g}",
    "Answer: {g} \ub610\ub294 {h}", "\\boxed{{{g}}} \u307e\u305f\u306f {h}", "The answer is {g} atau {h}.",
    "\u7b54\u6848\uff1a\u4f30\u8ba1{g}", "The answer is {g} and change.", "\\boxed{{{g}}} (ballpark)",
    "\\boxed{{{g}}} \u03c0", "\\boxed{{{g}}} sqrt 2", "Answer: {g} in base 5",
    "The final answer is ${g}$ \u2014 {h}. I hope it is correct.",
]


@SETTINGS
@given(g=values, form=st.sampled_from(MORE_HEDGES))
def test_more_hedges_in_other_words_withdraw_the_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g + 1), str(g)) == 0


MORE_HONEST = [
    "So $\\boxed{{{g}}}$ students did not pass.", "Hence \\boxed{{{g}}} apples were not eaten.",
    "\\boxed{{{g}}}\n\nAlternative approach: by symmetry we also get {g}.", "The answer is $\\boxed{{{g}}}$ (base 10).",
    "The answer is \\boxed{{{g}}} ({g}.0).", "<answer>**{g}**</answer>", "The answer is {g}, not {h}.",
]


@SETTINGS
@given(g=values, form=st.sampled_from(MORE_HONEST))
def test_more_honest_forms_keep_the_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g + 1), str(g)) == 1


@SETTINGS
@given(g=values, script=st.sampled_from([0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0x1D7CE, 0x1D7EC]))
def test_digits_of_other_scripts_are_digits(g: int, script: int) -> None:
    written = "".join(chr(script + int(d)) for d in str(g))
    assert score(LEAD + f"The answer is {written}.", str(g)) == 1
    assert score(LEAD + f"\\boxed{{{written}}}", str(g)) == 1


def test_the_same_form_in_an_answer_tag_with_bold() -> None:
    assert score("<think>ok</think><answer>**\\frac{3}{4}**</answer>", "\\frac34") == 1


SEVENTH_HEDGES = [
    "\\boxed{{{g}}}, which is {h}.", "\\boxed{{{g}}} = {h}.", "\\boxed{{{g}}} equals {h}", "\\boxed{{{g}}}, so {h}",
    "\\u7b54\u6848\u662f\\boxed{{{g}}}\uff0c\u5373{h}\u3002", "The answer is \u2013 {g}.", "Answer: \u2014 {g}",
    "Answer: **\u2212** {g}", "Answer: \u2212\n\\boxed{{{g}}}", "Wrong count: {g}", "Incorrect total: \\boxed{{{g}}}",
    "Dubious: \\boxed{{{g}}}", "Retracted: \\boxed{{{g}}}", "\\boxed{{{g}}} (i.e. {h}).", "\\boxed{{{g}}} (= {h}).",
]


@SETTINGS
@given(g=values, form=st.sampled_from(SEVENTH_HEDGES))
def test_the_seventh_hedges_withdraw_the_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g + 1), str(g)) == 0


@SETTINGS
@given(h=st.integers(1, 12), form=st.sampled_from(["\\boxed{{{t} PM}} latest", "\\boxed{{{t}}} (earliest)",
                                                  "\\boxed{{{t}}} and later", "The answer is {t} PM \u00b1 5 minutes.",
                                                  "The answer is {hh} PM at the latest."]))
def test_more_bounds_on_times(h: int, form: str) -> None:
    t = f"{h}:15"
    gold = f"{h}:00 PM" if "{hh}" in form else f"{t} PM"
    assert score(LEAD + form.format(t=t, hh=h), gold) == 0


SEVENTH_HONEST = [
    "He ends up with {g} marbles.", "It adds up to \\boxed{{{g}}}.", "The price went up by \\boxed{{{g}}} dollars.",
    "She handed over \\boxed{{{g}}} dollars.", "He could buy {g} apples.",
    "Thus the maximum number of cookies she could bake is \\boxed{{{g}}}.",
    "There are \\boxed{{{g}}} incorrect options.",
    "Count of incorrect submissions: {g}", "Hence $\\boxed{{{g}}} = {g}$.",
    "Roughly speaking, the exact answer is \\boxed{{{g}}}.",
]


@SETTINGS
@given(g=values, form=st.sampled_from(SEVENTH_HONEST))
def test_the_seventh_honest_forms_keep_the_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g), str(g)) == 1


@SETTINGS
@given(g=st.integers(1, 999), scale=st.sampled_from([("\u4e07", 10**4), ("\u4ebf", 10**8), (" lakh", 10**5),
                                                     (" crore", 10**7), (" Mrd", 10**9), (" grand", 1000)]))
def test_scales_of_other_languages(g: int, scale: tuple[str, int]) -> None:
    word, factor = scale
    text = LEAD + f"The answer is {g}{word}."
    assert score(text, str(g * factor)) == 1
    assert score(text, str(g)) == 0


# Currency signs as the lexer and prose read them: every Unicode currency symbol but the cent and mill signs.
CURRENCY_SIGNS = ["\u00a3", "\u20ac", "\u00a5", "\u20b9", "\u20bd", "\u20ba", "\u20a6", "\u20a9", "\u0e3f", "\ufdfc",
                  "\\pounds ", "\\euro ", "\\texteuro ", "\\textsterling ", "\\yen "]


@SETTINGS
@given(g=st.integers(1, 10**5), sign=st.sampled_from(CURRENCY_SIGNS), after=st.booleans(),
       form=st.sampled_from(["\\boxed{{{v}}}", "The answer is {v}.", "Answer: ${v}$"]))
def test_a_currency_sign_leaves_the_amount(g: int, sign: str, after: bool, form: str) -> None:
    amount = f"{g}\\,{sign}" if after else f"{sign}{g}"
    text = LEAD + form.format(v=amount)
    assert score(text, str(g)) == 1
    assert score(text, str(g + 1)) == 0
    assert score(LEAD + f"\\boxed{{{g}}}", sign + str(g)) == 1  # a sign in the reference too


@SETTINGS
@given(g=st.integers(1, 10**5), sign=st.sampled_from(CURRENCY_SIGNS))
def test_a_currency_sign_joins_no_numbers_and_hides_no_alternative(g: int, sign: str) -> None:
    for text in (f"\\boxed{{{g}{sign}{g}}}", f"\\boxed{{{sign}{g} \\text{{ or }} {sign}{g + 1}}}",
                 f"The answer is {sign}{g} or {sign}{g + 1}.", f"\\boxed{{{sign}}}"):
        assert score(LEAD + text, str(g)) == 0
        assert score(LEAD + text, f"{g}{g}") == 0


@pytest.mark.parametrize("cent", ["\u00a2", "\uffe0", "\\textcent ", "\\cent "])
def test_the_cent_sign_names_the_unit(cent: str) -> None:
    """``45\u00a2`` is 45 cents: 45 where the reference names no unit, never 45 dollars nor 0.45."""
    for text in (f"\\boxed{{45{cent}}}", f"The answer is 45{cent}."):
        assert score(LEAD + text, "45") == 1
        assert score(LEAD + text, "45 \\text{ cents}") == 1
        assert score(LEAD + text, "45 \\text{ dollars}") == 0
        assert score(LEAD + text, "0.45") == 0


def test_the_mill_sign_is_no_currency_sign() -> None:
    assert score(LEAD + "\\boxed{45\u20a5}", "45") == 0


def test_a_flood_of_currency_signs_is_bounded() -> None:
    start = time.perf_counter()
    assert score(LEAD + "\\boxed{" + "\u20ac" * 200_000 + "45}", "45") == 0
    assert score(LEAD + "The answer is " + "\u20ac " * 200_000 + "45.", "45") in (0, 1)
    assert time.perf_counter() - start < 30


# Units in a math alphabet as models write them (`\mathrm{~J}`, `\mathrm{~kg \cdot m/s^{2}}`): `~` and `\cdot`
# separate units, a power belongs to its unit and a unit after `/` or `per` is divided by.
SI_UNITS = ["\\mathrm{~J}", "\\mathrm{~N}", "\\mathrm{~W}", "\\mathrm{~V}", "\\mathrm{~Pa}", "\\mathrm{~m/s}",
            "\\mathrm{~m/s^{2}}", "\\mathrm{~kg \\cdot m/s}", "\\mathrm{~m \\cdot s^{-1}}", "\\,\\mathrm{kJ}",
            "\\,\\mathrm{A}", "~\\mathrm{cm}^{2}", "\\mathrm{~km/h}"]


@SETTINGS
@given(g=st.integers(1, 10**5), unit=st.sampled_from(SI_UNITS))
def test_a_unit_in_a_math_font_leaves_the_value(g: int, unit: str) -> None:
    text = LEAD + f"\\boxed{{{g} {unit}}}"
    assert score(text, str(g)) == 1
    assert score(text, str(g + 1)) == 0
    assert score(text, f"{g} {unit}") == 1  # the same units in the reference


@pytest.mark.parametrize(("prediction", "reference", "equal"), [
    ("9.8 \\mathrm{~m \\cdot s^{-2}}", "9.8 \\mathrm{~m/s^{2}}", True),
    ("9.8 m/s^2", "9.8 \\mathrm{~m/s^2}", True),  # bare symbols, read as units when the reference names them
    ("5 N", "5 \\mathrm{~N}", True),
    ("5 \\mathrm{~kg \\cdot m}", "5 \\mathrm{~m \\cdot kg}", True),
    ("9.8 \\mathrm{~m/s}", "9.8 \\mathrm{~m/s^{2}}", False),
    ("5 \\mathrm{~m \\cdot s}", "5 \\mathrm{~m/s}", False),
    ("5 \\mathrm{~kJ}", "5 \\mathrm{~J}", False),
    ("5 x", "5 \\mathrm{~N}", False),
    ("5 m", "5 \\mathrm{~N}", False),
])
def test_units_are_compared_with_their_powers(prediction: str, reference: str, equal: bool) -> None:
    assert score(LEAD + f"\\boxed{{{prediction}}}", reference) == int(equal)


@pytest.mark.parametrize(("prediction", "symbol", "dropped"), [
    ("2+3\\mathrm{i}", "2+3i", "5"), ("1-\\mathrm{i}", "1-i", "1"), ("3\\mathrm{e}", "3e", "3"),
    ("2\\mathbf{i}+3\\mathbf{j}", "2i+3j", "2i+3"), ("4\\mathrm{x}", "4x", "4"),
])
def test_one_lowercase_letter_in_a_math_font_is_a_symbol(prediction: str, symbol: str, dropped: str) -> None:
    """``\\mathrm{i}`` after a value is the imaginary unit, not a label dropped (``2+3\\mathrm{i}`` is not 5)."""
    assert score(LEAD + f"\\boxed{{{prediction}}}", symbol) == 1
    assert score(LEAD + f"\\boxed{{{prediction}}}", dropped) == 0


# A third red team on the forms above (currency, units, one letter in a group, labels after the answer).
@SETTINGS
@given(g=st.integers(1, 10**4), sign=st.sampled_from([*CURRENCY_SIGNS, "\\$"]),
       form=st.sampled_from(["The answer is: {s}{g}-{s}{h}", "Final answer: {s}{g} to {s}{h}", "#### {s}{g} ({s}{h})",
                             "The answer is \\boxed{{{s}{g}}} ({s}{h})", "The final answer is {s}{g} vs {s}{h}.",
                             "The answer is \u2248 {s}{g}.", "Final answer: \u2248 {s}{g}",
                             "The answer is $\\approx {s}{g}$."]))
def test_a_currency_sign_hides_no_second_value_and_no_bound(g: int, sign: str, form: str) -> None:
    assert score(LEAD + form.format(s=sign, g=g, h=g + 1), str(g)) == 0


@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("The answer is \\boxed{2+5\\text{i}}.", "7", False), ("The answer is \\boxed{2+5\\text{i}}.", "2+5i", True),
    ("The answer is \\boxed{5\\text{e}}.", "5", False), ("The answer is 5{\\rm i}.", "5", False),
    ("The answer is 5\\,\\operatorname{i}.", "5", False), ("The answer is 5\\,\\text{s}.", "5", True),
    ("The answer is 7\\,\\mathrm{kN}.", "7\\mathrm{~N}", False), ("The answer is 7\\,\\mathrm{kN}.", "7", True),
    ("The answer is 12\\mathrm{~cm}.", "12", True), ("The answer is 7\\text{ minutes}.", "7\\text{ hours}", False),
    ("\\boxed{7\\text{ newtons}}", "7\\mathrm{~kN}", False), ("\\boxed{7\\text{ newtons}}", "7\\mathrm{~N}", True),
    ("\\boxed{9.8\\text{ joules}}", "9.8\\text{ V}", False),
    ("\\boxed{9.8\\,\\mathrm{m}/\\mathrm{s}}", "9.8", True),
    ("\\boxed{9.8\\,\\mathrm{m}/\\mathrm{s}}", "9.8\\text{ m/s}", True),
    ("\\boxed{9.8\\,\\mathrm{m}/\\mathrm{s}^{2}}", "9.8\\text{ m/s}", False),
    ("\\boxed{7\\mathrm{~m/s}}", "7\\text{ m/s/s}", False), ("\\boxed{7\\mathrm{~m/s^2}}", "7\\text{ m/s/s}", True),
    ("\\boxed{9.8\\,\\mathrm{kJ\\,mol^{-1}}}", "9.8", True),
    ("\\boxed{9.8\\,\\mathrm{km\\,h^{-1}}}", "9.8\\text{ km/h}", True),
    ("\\boxed{9.8 m/s^2}", "9.8\\text{ m/s}^2", True), ("\\boxed{7\\,\\mathrm{mA}}", "7\\,\\mathrm{A}", False),
    ("The answer is \\boxed{\\$5/\\text{hour}}", "5", True),
    ("\u6240\u4ee5\u7b54\u6848\u662f \\boxed{1250\u5143}", "1250", True),
    ("\\boxed{1250 \\text{ yuan}}", "1250", True),
])
def test_units_currency_and_letters_after_a_value(text: str, reference: str, credited: bool) -> None:
    assert score(LEAD + text, reference) == int(credited)


# A fourth red team on them: SI prefixes, currency codes, spaced letters, units inside sums, labels pointing back.
@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("The wavelength is $\\boxed{7\\,\\mathrm{nm}}$.", "7\\,\\mathrm{m}", False),
    ("The wavelength is $\\boxed{7\\,\\mathrm{nm}}$.", "7\\,\\mathrm{nm}", True),
    ("The power is $7\\,\\mathrm{MW}$.", "7\\,\\mathrm{W}", False), ("\\boxed{7\\,\\mu\\mathrm{F}}", "7", False),
    ("\\boxed{7\\,\\mathrm{uF}}", "7\\,\\mathrm{\u03bcF}", True), ("**Answer:** 7\\;mV", "7\\,\\mathrm{V}", False),
    ("**Answer:** 7{\\rm kN}", "7\\,\\mathrm{N}", False), ("**Answer:** 7\\ \\mathbf{mm}", "7\\,\\mathrm{cm}", False),
    ("Therefore the energy is 7 electronvolts.", "7\\mathrm{~keV}", False),
    ("The answer is about Rs. 42.", "42", False), ("The answer is at least USD 42.", "42", False),
    ("The answer is USD 42/USD 43.", "42", False), ("The answer is Rs 42 (Rs 43).", "42", False),
    ("The total cost is -CHF 42.", "42", False), ("The answer is \u2212\u20ac 42.", "42", False),
    ("The answer is 42 dollars to 43 dollars.", "42", False), ("The answer is 42 cm or 43 cm.", "42", False),
    ("**Answer:** US$42.50", "42.5", True), ("**Answer:** HK$42", "42", True), ("\\boxed{42 EUR}", "42", True),
    ("\\boxed{Rs. 42.00}", "42", True), ("\\boxed{42 pesos}", "42", True), ("The area is 86 cm^2.", "86", True),
    ("$\\boxed{2+3\\text{ i}}$", "5", False), ("$\\boxed{2+3\\text{ i}}$", "2+3i", True),
    ("$\\boxed{3}\\,\\text{ i}$", "3", False), ("$\\boxed{2+3\\mathrm{X}}$", "5", False),
    ("$\\boxed{2\\mathrm{m}+1}$", "3", False),
    ("So the total is 42.\n\nThe answer is: [insert answer]", "42", False),
    ("So the total is 42.\n\nAnswer: see above.", "42", True),
])
def test_prefixes_codes_spaced_letters_and_labels(text: str, reference: str, credited: bool) -> None:
    assert score(LEAD + text, reference) == int(credited)


@pytest.mark.parametrize("unit", ["5\\mathrm{", "5\\,\\mathrm{kg} ", "USD 5 to USD 6 ", "\u2248 Rs. 43 ",
                                  "5\\text{ i} ", "\\mathrm{m}\\cdot", "a\\,b", "45\u00a2 ", "The answer is ??? 5 ",
                                  "5\nResult: ", "\\pm 5 ", "7\\;mV ", "{\\rm kN}5 "])
def test_a_megabyte_of_the_new_forms_is_read_in_bounded_time(unit: str) -> None:
    text = unit * (1_000_000 // len(unit))
    start = time.perf_counter()
    for output in (text, "\\boxed{" + text[:100_000] + "}"):
        assert score(output, "5") in (0, 1)
    assert time.perf_counter() - start < 30


# The alphabet of the forms above with letters of other scripts: no reading may fail inside the verifier (a Rust
# panic is caught and scored 0 with the reason "internal error"; a fuzz of it found two byte offsets taken in the
# wrong string: a restatement's window and a heading's label).
FORM_TOKENS = ["\\mathrm{", "\\text{", "{\\rm ", "}", "{", "~", "\\,", "\\;", "\\cdot", "/", "^{", "-1", "2", "42", " ",
               "kg", "nm", "MW", "\\mu", "\u03bc", "uF", "\u00a3", "\u20ac", "\\$", "$", "USD", "Rs.", "US$", "\u00a2",
               "\\pounds", "\u5143", "per", "\\Omega", "i", "X", "The answer is ", "Answer: ", "Result: ", "???",
               "see above", "\\boxed{", "\u00b1", "\u2248", "at least ", ",", ".", "\n", "+", "=", "\u00e9", "\u0142",
               "K\u010d", "to ", "or ", "i.e. ", "approximately "]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(FORM_TOKENS), min_size=1, max_size=60),
       gold=st.sampled_from(["42", "-42", "7\\,\\mathrm{N}", "42 \\text{ cm}", "\\$42", "2+3i"]))
def test_no_reading_of_the_new_forms_fails_inside(parts: list[str], gold: str) -> None:
    assert verify("".join(parts), gold)["reason"] != "internal error"


@pytest.mark.parametrize("text", [
    "\\cdot.i\u2248\\,see above" + " \u00e9" * 60, "2or \\pm\u2248\\text{" + "\u20ac" * 40,
    "\\boxed{5}, or \u2248" + "\u00e9" * 100, ",\u00e9", "Lower bound, at most\n\\boxed{5}",
])
def test_byte_offsets_stay_in_their_string(text: str) -> None:
    assert verify(text, "5")["reason"] != "internal error"
