"""A seventeenth red team and a fresh review of honest endings, each class with its honest and hostile twins.

- MetaMath's ``The answer is: \\frac{3}{2}`` (a colon after the answer's words) reads the value after it.
- A JSON string field named as the answer (``{"answer": "\\\\frac{1}{2}"}``) is decoded and read whole: a tuple in it
  is the tuple, not its last number.
- An ordinal suffix that fits the integer (``6th``, ``21st``, ``2^{nd}``) is the integer.
- A choice's label before a value (``\\boxed{(A) = 42}``, and with choice letters read ``The answer is (C) 12``)
  answers the letter only: read both ways it pays the letter of one option beside the value of another.
- A reasoning tag reopened right where it closed (``</think><think>``) is still open: no answer.
- A case set aside after the answer and turned back by what the question asks, or by the answer stated again,
  keeps the answer; a case left open withdraws it.
- A premise in words after the answer (``assuming the coin is fair``) keeps it; a case of a variable or a doubt about
  the work does not. ``the least common multiple`` after it names what the value is.
- Red team 18 and a second review: a JSON string with words (``"60 km/h"``) is read as prose, and a field about the
  answer (``"answer_type"``) is no answer; a rate of a unit symbol over time (``5 m/s``) is a unit against a bare
  number; a record's other answer-like tuple withdraws it; a case settled on the other value, or named by its
  reading (``Inclusive: 43``, ``43 if inclusive``), withdraws the answer; a time with its half of the day is no
  ratio; more words for ``or``, ``otherwise`` and doubt.
- Red team 19 and a third review: a power or exponential that underflows floating point (``\\sin(x)^{10000}``) and
  values close only by being tiny (``e^{-1000x^2}``, ``e^{-2000x^2}``) decide nothing; ``12 of 30`` is 12 out of 30;
  a premise may count things (``assuming all 4 books are distinct``); a record with a letter and a value is neither.
- Red team 20 and a fourth review: a piecewise value is sampled far past its corners (``|x-100|`` is no ``100-x``) and
  an even root wide of them (``\\sqrt{(x-3)^2}`` is ``|x-3|``, no ``3-x``); a record's flags (``"inclusive": 1``) and
  option names (``"option": "B"``) keep its answer; ``or`` in Hebrew, Vietnamese, Turkish and German; another pick
  labelled (``Runner-up: 6``) or accepted (``6 is also correct``), or opened by another language's ``or``.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.reward import verify

SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
values = st.integers(2, 10**6)
STRING = {"extraction": ("latex", "expr", "string")}


def score(output: str, reference: str, **options: object) -> float:
    return float(verify(output, reference, **options)["score"])


@pytest.mark.parametrize(("text", "reference"), [
    ("The answer is: \\frac{3}{2}", "\\frac32"),
    ("So the total is 7.\nThe answer is: 7", "7"),
    ("The answer is: (1, 3)", "(1,3)"),
    ("The answer is: 2\\sqrt{3}", "2\\sqrt3"),
])
def test_a_colon_after_the_answers_words(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0
    assert score(text, "5") == 0.0


@SETTINGS
@given(a=values, b=values, key=st.sampled_from(["answer", "final_answer", "Answer", "answer_value"]))
def test_a_json_string_field_is_read_whole(a: int, b: int, key: str) -> None:
    text = json.dumps({"reasoning": f"We compute {a} and {b}.", key: f"({a}, {b})"})
    reference = f"({a}, {b})"
    assert score(text, reference) == 1.0
    if a != b:
        assert score(text, str(b)) == 0.0


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ('{"answer": "\\\\frac{1}{2}"}', "\\frac{1}{2}", 1.0),
    ('{"answer": "\\\\frac{1}{3}"}', "\\frac{1}{2}", 0.0),
    ('{"final_answer": "(2, 3)"}', "(2, 3)", 1.0),
    ('{"final_answer": "(2, 3)"}', "3", 0.0),
    ('{"reasoning": "she ends in 6th place", "answer": "6th"}', "6", 1.0),
    ('{"answer": 42}', "42", 1.0),
])
def test_json_string_fields(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("\\boxed{6th}", "6", 1.0), ("\\boxed{21st}", "21", 1.0), ("\\boxed{2^{nd}}", "2", 1.0),
    ("\\boxed{3^{\\text{rd}}}", "3", 1.0), ("\\boxed{11th}", "11", 1.0), ("\\boxed{4th}", "4th", 1.0),
    ("\\boxed{6th}", "7", 0.0), ("\\boxed{11st}", "11", 0.0), ("\\boxed{2^{th}}", "2", 0.0),
    ("\\boxed{5this}", "5", 0.0),
])
def test_an_ordinal_suffix_that_fits_is_the_integer(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected


@SETTINGS
@given(letter=st.sampled_from("ABCDE"), value=values, form=st.sampled_from([
    "\\boxed{{({l}) = {v}}}", "<answer>({l}) = {v}</answer>", "The answer is $\\textbf{{({l})}} = {v}$.",
    "\\boxed{{({l})\\ =\\ {v}}}", "\\boxed{{({l}) = x = {v}}}"]))
def test_a_label_equal_to_a_value_answers_the_letter_only(letter: str, value: int, form: str) -> None:
    text = form.format(l=letter, v=value)
    assert score(text, letter) == 1.0
    assert score(text, str(value)) == 0.0


@pytest.mark.parametrize("text", ["The answer is (C) 12", "**(C)**: 12", "C) 12"])
def test_a_labelled_value_in_prose_answers_the_letter_only(text: str) -> None:
    assert score(text, "C", **STRING) == 1.0
    assert score(text, "12", **STRING) == 0.0
    assert score(text, "D", **STRING) == 0.0


def test_a_value_named_by_a_variable_is_still_the_value() -> None:
    assert score("\\boxed{A = 42}", "42") == 1.0
    assert score("The area is $A = 12$.", "12") == 1.0


@pytest.mark.parametrize("text", ["<think>\\boxed{42}</think><think>\\boxed{43}",
                                  "<think>so 42</think><think>\nThe answer is \\boxed{43}."])
def test_a_reasoning_tag_reopened_where_it_closed_is_open(text: str) -> None:
    assert score(text, "43") == 0.0
    assert score(text, "42") == 0.0


# Red team 17's honest twins (a fresh reviewer's): the case is set aside by what the question asks or by the answer
# said again.
TURNED_BACK = [
    ("The answer is $\\boxed{{{a}}}$.\n\nIf the problem intends ordered pairs, we get {b}; as stated "
     "(unordered), {a}."),
    ("The answer is $\\boxed{{{a}}}$.\n\nIf the problem intends ordered pairs, we get {b}. As stated, the pairs are "
     "unordered, so the answer remains {a}."),
    ("The answer is $\\boxed{{{a}}}$ days.\n\nIf the question meant weeks, that would be {b} weeks. The question asks "
     "for days, so {a}."),
    "**Answer: {a} days**\n\n(If the question meant weeks: {b} weeks. Since it asks for days, {a}.)",
    ("So the answer is $\\boxed{{{a}}}$.\n\nIf the question intended distinct digits, we'd get {b}; the problem "
     "allows repeats, so {a} stands."),
    "The answer is **\\${a}**.\n\nIf the tax is included, the total would be \\${b}; the question asks for the price.",
    "The answer is $\\boxed{{{a}}}$.\n\nIf we count the empty set, we get {b}; the problem asks for nonempty subsets.",
    ("The answer is $\\boxed{{{a}}}$.\n\nIf the empty set were included, there would be {b}; it is excluded here, "
     "so {a}."),
    "The answer is $\\boxed{{{a}}}$.\n\nIf we count the empty set, we get {b} — not what's asked. So {a}.",
]
LEFT_OPEN = [
    "\\boxed{{{a}}}. If inclusive: {b}.",
    "\\boxed{{{a}}}. If inclusive: {b}. Or {a} if exclusive.",
    "\\boxed{{{a}}}. If inclusive: {b}; otherwise {a}.",
    "\\boxed{{{a}}}. If inclusive, {b}. So {a} or {b}.",
    "\\boxed{{{a}}}. If inclusive: {b}. If exclusive: {a}.",
    "\\boxed{{{a}}}. If inclusive: {b}. It depends on what the question asks.",
    "\\boxed{{{a}}}. If inclusive: {b}. The question states neither.",
]


@pytest.mark.parametrize(("text", "expected"), [
    ("The maximum area is $\\boxed{100}$ square meters (assuming the fence is used on all four sides).", 1.0),
    ("The answer is $\\boxed{100}$, assuming the coin is fair.", 1.0),
    ("The answer is \\boxed{100} (assuming the boxes are distinct).", 1.0),
    ("The answer is \\boxed{100} provided the order does not matter.", 1.0),
    ("So the answer is $\\boxed{100}$ (the least common multiple of 20 and 25).", 1.0),
    ("The answer is \\boxed{100} (assuming the boxes are distinct; 101 if not).", 0.0),
    ("The answer is \\boxed{100}, assuming I made no errors.", 0.0),
    ("The answer is \\boxed{100}, assuming my arithmetic is right.", 0.0),
    ("The answer is \\boxed{100}, assuming $n$ is even.", 0.0),
    ("The answer is \\boxed{100}, assuming n is even.", 0.0),
    ("The answer is \\boxed{100}, assuming n > 2.", 0.0),
    ("The answer is \\boxed{100}, assuming everything is correct.", 0.0),
    ("\\boxed{100} if $n$ is even", 0.0),
    ("So the answer is $\\boxed{100}$ at least.", 0.0),
    ("So the answer is $\\boxed{100}$ (at the least).", 0.0),
    ("So the answer is $\\boxed{100}$ (the most likely value).", 0.0),
])
def test_a_premise_in_words_keeps_the_answer(text: str, expected: float) -> None:
    assert score(text, "100") == expected


# A second round (red team 18, a second fresh review).
@pytest.mark.parametrize(("text", "reference"), [
    ('{"answer": "60 km/h"}', "60"), ('{"answer": "60 miles per hour"}', "60"), ('{"answer": "1 cup"}', "1"),
    ('{"reasoning": "Compute it.", "answer": "$12 per hour"}', "12"), ('{"answer": "9.8 m/s^2"}', "9.8"),
    ('{"answer": 12, "answer_type": "integer"}', "12"), ('{"answer": 12, "answer_in_words": "twelve"}', "12"),
    ('{"reasoning": "...", "answer_format": "fraction", "answer": 12}', "12"),
    ("The answer is: 5 m/s", "5"), ("Answer: 9.8 m/s^2", "9.8"), ("\\boxed{5 m/s}", "5"),
])
def test_fields_about_the_answer_and_rates_keep_it(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0
    assert score(text, "7") == 0.0


@pytest.mark.parametrize("text", ['{"answer": "(2, 3)", "alt": "(2, 4)"}', '{"answer": "42", "alt": "43"}'])
def test_a_record_with_another_answer_like_value_is_no_answer(text: str) -> None:
    for reference in ("(2, 3)", "(2, 4)", "42", "43"):
        assert score(text, reference) == 0.0


def test_a_rate_needs_units_of_one_over_time() -> None:
    assert score("\\boxed{5 x/y}", "5") == 0.0
    assert score("\\boxed{5 s/m}", "5") == 0.0
    assert score("\\boxed{5 m/s}", "6") == 0.0


@pytest.mark.parametrize("form", [
    "\\boxed{{{a}}}. If inclusive, it would be {b}; the question asks for inclusive, so {b}.",
    "\\boxed{{{a}}}. If inclusive, it would be {b}; but the problem asks for {b}.",
    "\\boxed{{{a}}}. If inclusive, {b} — not what's asked. So {a} or {b}.",
    "\\boxed{{{a}}} exclusive, {b} inclusive.", "\\boxed{{{a}}}. Inclusive: {b}.", "\\boxed{{{a}}}. {b} if inclusive.",
    "\\boxed{{{a}}}. The inclusive count is {b}.", "\\boxed{{{a}}}. {b} if we count both ends.",
])
def test_a_case_settled_on_the_other_value_or_named_by_its_reading(form: str) -> None:
    text = form.format(a=42, b=43)
    assert score(text, "42") == 0.0
    assert score(text, "43") == 0.0


@pytest.mark.parametrize("text", [
    "There are \\boxed{10} integers from 1 to 10 inclusive.", "The answer is \\boxed{10} days, counting inclusively.",
    "\\boxed{10}. 12 if you include zero, but the problem says positive.", "\\boxed{10}. 3 if x = 2.",
])
def test_a_reading_with_the_same_value_or_turned_back_keeps_it(text: str) -> None:
    assert score(text, "10") == 1.0


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("The meeting ends at 3:45 PM.", "\\frac{1}{15}", 0.0), ("\\boxed{3:45\\text{ p.m.}}", "\\frac{1}{15}", 0.0),
    ("\\boxed{12:45 AM}", "\\frac{4}{15}", 0.0), ("The meeting ends at 3:45 PM.", "3:45 PM", 1.0),
    ("The ratio is 1:15.", "\\frac{1}{15}", 1.0), ("\\boxed{3:45}", "3:45 PM", 1.0),
])
def test_a_time_with_its_half_of_the_day_is_no_ratio(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected


@pytest.mark.parametrize("text", [
    "\\boxed{42} oppure 43", "\\boxed{42} ou bien 43", "\\boxed{42} oder auch 43", "\\boxed{42} tai 43",
    "Answer: 42 hoặc 43", "\\boxed{42} albo 43", "\\boxed{42}\n\n否则 43。", "\\boxed{42} (TBC)",
    "\\boxed{42} (hypothesis)", "\\boxed{42}, probablemente.",
])
def test_or_otherwise_and_doubt_in_more_words(text: str) -> None:
    assert score(text, "42") == 0.0
    assert score(text, "43") == 0.0


@pytest.mark.parametrize("text", ["So \\boxed{42} of the 50 students passed.", "\\boxed{42} of 50",
                                  "Final answer: 42 of 50"])
def test_of_is_out_of_not_or(text: str) -> None:
    assert score(text, "42") == 1.0


# Red team 19 and a third review.
@pytest.mark.parametrize(("text", "reference"), [
    ("\\boxed{\\sin(x)^{10000}}", "0"), ("\\boxed{\\sin(x)^{10000}}", "\\cos(x)^{10000}"),
    ("\\boxed{(x/2)^{10000}}", "(x/3)^{10000}"), ("\\boxed{2^{-x^{2}\\cdot 10^{6}}}", "0"),
    ("\\boxed{e^{-1000x^2}}", "e^{-2000x^2}"), ("\\boxed{0}", "\\sin(x)^{10000}"),
    ("\\boxed{42+\\sin(x)^{10000}}", "42"), ("\\boxed{x^{100000}}", "x^{100001}"),
])
def test_values_too_small_for_floating_point_are_not_equal(text: str, reference: str) -> None:
    assert score(text, reference) == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("\\boxed{e^{-x^2}}", "\\exp(-x^2)"), ("\\boxed{e^{-x}}", "\\frac{1}{e^x}"),
    ("\\boxed{x^{-50}}", "\\frac{1}{x^{50}}"),
    ("\\boxed{10^{-400}}", "10^{-400}"), ("\\boxed{x^{100000}}", "x^{100000}"), ("\\boxed{2^{-100}}", "2^{-100}"),
])
def test_small_values_in_range_still_compare(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0


@pytest.mark.parametrize(("text", "expected"), [
    ("The answer is $\\boxed{24}$, assuming all 4 books are distinct.", 1.0),
    ("She earns $\\boxed{24}$ dollars per week, assuming she works 5 days.", 1.0),
    ("\\boxed{24}, assuming x > 0.", 0.0),
    ("The answer is \\boxed{24}, assuming 25.", 0.0),
    ("The answer is \\boxed{24} (assuming the boxes are distinct; 25 if not).", 0.0),
])
def test_a_premise_may_count_things(text: str, expected: float) -> None:
    assert score(text, "24") == expected


def test_a_record_with_a_letter_and_a_value_answers_neither() -> None:
    text = '{"answer": "B", "answer_value": "30"}'
    assert score(text, "30") == 0.0
    assert score(text, "B", extraction=("latex", "expr", "string")) == 0.0


# A case's answer stated after the answer (`the answer would be 11`), set aside: the answer stated again last, or the
# case turned back in its sentence.
SET_ASIDE = [
    ("The answer is \\boxed{{{a}}}.\n\nNote: If the empty set were included, the answer would be {b}. Since the "
     "problem asks for nonempty subsets, the answer is {a}."),
    "The answer is \\boxed{{{a}}}.\n\nIf the empty set counted, the answer would be {b}, but it says nonempty.",
    ("**Answer:** {a}\n\nIf the empty set were counted, the answer would be {b}; since the problem says nonempty, "
     "the answer is {a}."),
    ("The answer is $\\boxed{{{a}}}$ days.\n\nIf the question meant weeks, the answer would be {b}, but it asks "
     "for days."),
]
NOT_SET_ASIDE = [
    "\\boxed{{{a}}}. If inclusive, the answer would be {b}.",
    "\\boxed{{{a}}}. The answer is {b}.",
    "\\boxed{{{a}}}. If inclusive, the answer would be {b}. The answer is {b}.",
    "\\boxed{{{a}}}. The answer would be {b}, but I am not sure.",
    "\\boxed{{{a}}}. If inclusive, the answer would be {b}, but it could be either.",
    "\\boxed{{{a}}}. The answer is {b}, but whatever.",
]


@SETTINGS
@given(a=values, delta=st.integers(1, 9), case=st.sampled_from(
    [(form, 1.0) for form in TURNED_BACK + SET_ASIDE] + [(form, 0.0) for form in LEFT_OPEN + NOT_SET_ASIDE]))
def test_a_case_after_the_answer_set_aside_or_left_open(a: int, delta: int, case: tuple[str, float]) -> None:
    """Set aside (turned back, or the answer stated again last), the answer stands; left open, it is withdrawn.
    The case's value is never credited."""
    form, kept = case
    text = form.format(a=a, b=a + delta)
    assert score(text, str(a)) == kept
    assert score(text, str(a + delta)) == 0.0


# Red team 19's cases written without a comma, taken up again, restated both ways, or turned with a doubt.
TAKEN_UP = [
    "If inclusive it'd be {b}. But the problem asks for days, so {b}.",
    "If inclusive it'd be {b} — which is what's asked.",
    "If inclusive it'd be {b}. The problem says inclusive.",
    "If inclusive it'd be {b}; the problem asks for the inclusive count.",
    "If inclusive, it would be {b}. But the question asks for inclusive.",
    "If inclusive it'd be {b}. So: {a}, {b}.",
    "If inclusive it'd be {b}. So {a} (exclusive) / {b} (inclusive).",
    "If inclusive it'd be {b}, but who knows.",
    "If inclusive it'd be {b}. But.",
    "Had we included the endpoint we'd get {b}.",
    "Inclusive variant: {b}",
    "Under inclusion, {b}.",
]
KEPT = [
    "If inclusive it'd be {b}, but the problem asks for days.",
    "If inclusive, it would be {b}; but the problem asks for the exclusive count.",
    "If all letters were distinct there would be {b}.",
    "If we had used 5 boxes we would need {b} apples.",
]


@SETTINGS
@given(a=values, delta=st.integers(1, 9), case=st.sampled_from(
    [(form, 0.0) for form in TAKEN_UP] + [(form, 1.0) for form in KEPT]))
def test_a_case_taken_up_again_or_set_aside(a: int, delta: int, case: tuple[str, float]) -> None:
    form, kept = case
    text = f"The answer is \\boxed{{{a}}}. " + form.format(a=a, b=a + delta)
    assert score(text, str(a)) == kept
    assert score(text, str(a + delta)) == 0.0


# Red team 20 and a fourth review.
@pytest.mark.parametrize(("prediction", "reference", "expected"), [
    ("\\boxed{|x-100|}", "100-x", 0.0), ("\\boxed{100-x}", "|x-100|", 0.0), ("\\boxed{\\sqrt{(x-3)^2}}", "3-x", 0.0),
    ("\\boxed{3-x}", "\\sqrt{(x-3)^2}", 0.0), ("\\boxed{\\sqrt{(x-5)^2}+y}", "5-x+y", 0.0),
    ("\\boxed{\\sqrt{(x-3)^2}}", "|x-3|", 1.0), ("\\boxed{\\sqrt{x^2-6x+9}}", "|x-3|", 1.0),
    ("\\boxed{x^{3/2}}", "x\\sqrt{x}", 1.0), ("\\boxed{\\sqrt{x^2+1}}", "\\sqrt{1+x^2}", 1.0),
])
def test_a_piecewise_value_is_compared_past_its_corners(prediction: str, reference: str, expected: float) -> None:
    assert score(prediction, reference) == expected


@pytest.mark.parametrize("text", ['{"answer": 42, "variant": 1}', '{"answer": 42, "inclusive": 1}',
                                  '{"answer": 42, "option": "B"}', '{"answer": 42, "alt_id": "B"}'])
def test_a_records_flags_and_option_names_keep_the_answer(text: str) -> None:
    assert score(text, "42") == 1.0


@pytest.mark.parametrize("text", ["\\boxed{5} או 6.", "\\boxed{5} hay 6.", "\\boxed{5} ya da 6.",
                                  "\\boxed{5} anders 6."])
def test_or_in_hebrew_vietnamese_turkish_and_german(text: str) -> None:
    assert score("The answer is " + text, "5") == 0.0
    assert score("The answer is " + text, "6") == 0.0


@pytest.mark.parametrize("after", ["{b} is also correct.", "P.S. {b} is equally defensible.", "Second choice: {b}.",
                                   "Runner-up: {b}.", "Plan B: {b}.", "Alternativ: {b}.",
                                   "Respuesta alternativa: {b}.", "Oder {b}.", "Ou {b}."])
def test_another_pick_labelled_or_accepted_withdraws_the_answer(after: str) -> None:
    text = "The answer is \\boxed{5}. " + after.format(b=6)
    assert score(text, "5") == 0.0
    assert score(text, "6") == 0.0


@pytest.mark.parametrize("after", ["5 is also correct since 2+3=5.", "Note that 6 is also prime.",
                                   "Both 2 and 3 are also correct divisors.", "Second, note that 6 is even.",
                                   "Oder anders gesagt: 5."])
def test_remarks_that_pick_nothing_else_keep_the_answer(after: str) -> None:
    assert score("The answer is \\boxed{5}. " + after, "5") == 1.0
