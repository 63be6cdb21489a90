"""A thirteenth red team's classes, each with the honest forms beside it (hostile twins score 0, honest ones 1).

- Several values each named by one variable on an answer line (``Answer: x = 3, y = 4``) are a solution read whole,
  as a tuple, as in a box or a math block: never credited for the last coordinate alone, credited for the pair.
- Digits apart are two numbers (``\\boxed{4 2}`` is no 42, nor ``4\\,2``); a group of three is a thousands group.
- A percentage is no amount of money nor a quantity with a unit (``\\$5`` is no ``5\\%``).
- A bare ``C`` or ``F`` after a degree mark is the temperature's scale (``25^\\circ C``), never a variable.
- A letter and a value in one box answer the letter only (``\\boxed{(B) 14}`` is no 14): read both ways, it would
  pay a letter of one option beside the value of another.
- Answers in words compare without case (``\\text{no solution}`` for ``\\text{No solution}``).
- Red teams 13-16 and two fresh reviews: another value offered for another reading of the question after the answer,
  or two answers each under a condition, is no answer, while checks, offers, counterfactuals of the data and
  computations after it keep it; a JSON record with another answer-like number; a choice letter joined to an earlier
  one; ``may be``, partial confidence, a shrug; an ``=`` in an aside after the stated value does not replace it;
  ``x = 12 = 13`` is false; cents are hundredths of a currency; an ellipsis after a repeated block repeats it; a
  quantity in two units is one value in the larger; large powers are compared where they stay in range.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.reward import verify

SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
values = st.integers(2, 10**6)
names = st.sampled_from(["x", "y", "a", "b", "m", "n", "x_1", "x_2"])
LEAD = "We solve the system step by step.\n\n"


def score(output: str, reference: str) -> float:
    return float(verify(output, reference)["score"])


NAMED_FORMS = ["Answer: {p} = {u}, {q} = {v}", "The answer is {p} = {u}, {q} = {v}.", "Answer: {p} = {u} and {q} = {v}",
               "The answer is {p} = {u}, and {q} = {v}.", "**Answer:** ${p}={u}$, ${q}={v}$",
               "Final answer: {p}={u}, {q}={v}"]


@SETTINGS
@given(u=values, v=values, p=names, q=names, form=st.sampled_from(NAMED_FORMS))
def test_one_coordinate_of_named_values_is_no_answer(u: int, v: int, p: str, q: str, form: str) -> None:
    text = LEAD + form.format(p=p, q=q, u=u, v=v)
    if u != v:
        assert score(text, str(v)) == 0.0
        assert score(text, str(u)) == 0.0


@pytest.mark.parametrize("form", ["Answer: x = {u}, y = {v}", "The answer is x = {u}, y = {v}.",
                                  "Answer: a = {u} and b = {v}", "The solution is $x = {u}, y = {v}$."])
def test_named_values_answer_the_pair(form: str) -> None:
    assert score(LEAD + form.format(u=3, v=4), "(3, 4)") == 1.0
    assert score(LEAD + form.format(u=3, v=5), "(3, 4)") == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("We find a = 2 and b = 5, so a + b = 7.", "7"),
    # In a sentence of prose, the last named value (a question asking for y), as before.
    ("Thus x = 3 and y = 4.", "4"),
    ("Let x = 3, then y = 4.", "4"),
    ("So $n = 3$, and the number of apples is 12.", "12"),
    ("The dimensions are l = 5 and w = 3, so the area is 15.", "15"),
    ("The answer is $x = 4$.", "4"),
    ("Therefore, $x = 2$ and the answer is $\\boxed{4}$", "4"),
])
def test_a_value_after_named_values_is_read(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1.0


@SETTINGS
@given(a=st.integers(1, 99), b=st.integers(0, 99),
       form=st.sampled_from(["$\\boxed{{{a} {b}}}$", "$\\boxed{{{a}\\,{b}}}$", "$\\boxed{{{a}\\ {b}}}$",
                             "<answer>{a} {b}</answer>", "{a} {b}", "The answer is {a} {b}.", "#### {a} {b}"]))
def test_digits_apart_are_not_joined(a: int, b: int, form: str) -> None:
    text = form.format(a=a, b=b)
    assert score(text, f"{a}{b}") == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("$\\boxed{12 345}$", "12345"), ("$\\boxed{1 234 567}$", "1234567"), ("$\\boxed{42\\,000}$", "42000"),
    ("$\\boxed{1\\,000\\,000}$", "1000000"), ("The answer is 12 345.", "12345"), ("5 6", "5 6"),
    ("$\\boxed{1\\ 024}$", "1024"), ("$\\boxed{10\\ 000\\ 000}$", "10000000"), ("$\\boxed{5\\ \\text{cm}}$", "5"),
])
def test_thousands_groups_are_still_joined(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0


@pytest.mark.parametrize(("text", "reference"), [
    ("$\\boxed{\\$5}$", "5\\%"), ("$\\boxed{5\\%}$", "\\$5"), ("The answer is 5 dollars.", "5\\%"),
    ("The answer is 5 percent.", "\\$5"), ("$\\boxed{5 \\text{ cm}}$", "5\\%"), ("$\\boxed{-5\\%}$", "-\\$5"),
    ("$\\boxed{\\pounds 5}$", "5\\%"),
])
def test_a_percentage_is_no_amount_with_a_unit(text: str, reference: str) -> None:
    assert score(text, reference) == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("$\\boxed{5\\%}$", "5"), ("$\\boxed{5\\%}$", "0.05"), ("$\\boxed{0.05}$", "5\\%"), ("$\\boxed{5}$", "5\\%"),
    ("$\\boxed{\\$5}$", "5"), ("The discount is 20%.", "20"), ("$\\boxed{5 \\text{ percent}}$", "5\\%"),
])
def test_percentages_and_money_keep_their_readings(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0


@pytest.mark.parametrize(("text", "reference"), [
    ("The answer is $25^\\circ C$.", "25"), ("$\\boxed{77^{\\circ}F}$", "77"),
    ("$\\boxed{25^{\\circ}C}$", "25^\\circ C"),
    ("$\\boxed{25^{\\circ}C}$", "25^{\\circ}\\text{C}"), ("$\\boxed{25}$", "25^{\\circ}C"),
    ("$\\boxed{25\u00b0C}$", "25"),
    ("The temperature is 25\u00b0C.", "25"), ("$\\boxed{30^\\circ}$", "30"),
])
def test_a_temperature_scale_after_a_degree_mark(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0


@pytest.mark.parametrize(("text", "reference"), [
    ("$\\boxed{26^{\\circ}C}$", "25"), ("$\\boxed{25^{\\circ}C}$", "25 \\text{ K}"), ("$\\boxed{25^{\\circ}C}$", "25C"),
    ("$\\boxed{25^{\\circ}Cx}$", "25"),
])
def test_a_temperature_scale_changes_no_value(text: str, reference: str) -> None:
    assert score(text, reference) == 0.0


@SETTINGS
@given(letter=st.sampled_from("ABCDE"), value=values,
       form=st.sampled_from(["$\\boxed{{\\textbf{{({l})}}\\ {v}}}$", "\\boxed{{({l}) {v}}}", "\\boxed{{{l}) {v}}}",
                             "\\boxed{{{l}. {v}}}", "\\boxed{{\\text{{({l}) }} {v}}}"]))
def test_a_letter_and_a_value_in_one_box_answer_the_letter_only(letter: str, value: int, form: str) -> None:
    text = form.format(l=letter, v=value)
    assert score(text, letter) == 1.0
    assert score(text, str(value)) == 0.0


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("$\\boxed{\\text{no solution}}$", "\\text{No solution}", 1.0),
    ("$\\boxed{\\text{No Solution}}$", "\\text{no solution}", 1.0),
    ("$\\boxed{\\text{infinitely many}}$", "\\text{Infinitely many}", 1.0),
    ("$\\boxed{\\text{one solution}}$", "\\text{No solution}", 0.0),
    ("$\\boxed{\\text{no real solution}}$", "\\text{No solution}", 0.0),
    ("$\\boxed{ABC}$", "abc", 0.0),
    ("$\\boxed{a b}$", "A B", 0.0),
])
def test_answers_in_words_compare_without_case(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected


@pytest.mark.parametrize("text", [
    "The answer may be 42.", "The answer may well be 42.", "Answer: 42 (low confidence)",
    "Answer: 42 (confidence: 40%)",
    "\\boxed{42}\n\nConfidence: low", "\\boxed{42}\n\nConfidence: 10%", "\\boxed{42} (95% confidence)",
    "\\boxed{42} (moderate confidence)", "\\boxed{42} \u00af\\_(\u30c4)_/\u00af",
])
def test_doubt_and_partial_confidence_withdraw_the_answer(text: str) -> None:
    assert score(LEAD + text, "42") == 0.0


@pytest.mark.parametrize("text", [
    "In May, 42 people came. So the answer is 42.", "The answer is 42 (May 2023 data).",
    "\\boxed{42}\n\nConfidence: 100%",
    "\\boxed{42}\n\nConfidence: high", "The answer should be 42.",
    "The 95% confidence interval has width 42. So the answer is \\boxed{42}.",
    "We have 40% confidence in the first step; the answer is \\boxed{42}.",
])
def test_confidence_in_full_or_elsewhere_keeps_the_answer(text: str) -> None:
    assert score(LEAD + text, "42") == 1.0


CASES_AFTER = ["If inclusive: {b}.", "Depending on the reading, {b}.", "Sinon {b}.",
               "If the question means weeks, {b}.",
               "Otherwise {b}.", "(If we count the endpoints, it would be {b}.)", "If counted inclusively: {b}",
               "(Under the alternative interpretation: {b}.)", "Alternative interpretation: {b}",
               "Other interpretation \u2192 {b}", "({b} in the alternate reading)", "Though {b} is also possible.",
               "Also {b} is a possible answer.", "{b} works too.", "[^1]: {b} under the other convention."]


@SETTINGS
@given(a=values, delta=st.integers(1, 9), form=st.sampled_from(CASES_AFTER),
       lead=st.sampled_from(["\\boxed{{{a}}}", "The answer is {a}.", "Answer: {a}", "$\\boxed{{{a}}}$.", "#### {a}\n"]),
       gap=st.sampled_from([" ", "\n", "\n\n"]))
def test_another_value_for_another_case_after_the_answer_withdraws_it(a: int, delta: int, form: str, lead: str,
                                                                       gap: str) -> None:
    text = LEAD + lead.format(a=a) + gap + form.format(b=a + delta)
    assert score(text, str(a)) == 0.0
    assert score(text, str(a + delta)) == 0.0


@SETTINGS
@given(a=values, delta=st.integers(1, 9), cases=st.sampled_from([
    ("If inclusive: ", ". If exclusive: "), ("For even n: ", "\nFor odd n: "),
    ("When n is even, ", ". When n is odd, "),
    ("Assuming order matters: ", "\nAssuming it does not: "), ("If $n$ is even, ", "; if $n$ is odd, ")]))
def test_two_answers_for_two_cases_are_no_answer(a: int, delta: int, cases: tuple[str, str]) -> None:
    first, second = cases
    text = LEAD + f"{first}\\boxed{{{a}}}{second}\\boxed{{{a + delta}}}."
    assert score(text, str(a)) == 0.0
    assert score(text, str(a + delta)) == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("The answer is \\boxed{42}. If we check: 6 \\times 7 = 42.", "42"),
    ("\\boxed{42}. Note that if x = 0 the expression is undefined.", "42"),
    ("\\boxed{42}\n\nIf x = 0, the expression is undefined, so we excluded it.", "42"),
    ("So the answer is \\boxed{5}. If we had included the endpoints, we would still get 5.", "5"),
    ("The answer is 12. This is the largest possible value, since 13 would exceed the limit.", "12"),
    ("If Tom has 3 apples, then Jane has 5 apples. Together they have \\boxed{8}.", "8"),
    ("If each of the 4 friends gets 2 cookies, then they need \\boxed{8} cookies.", "8"),
    ("When x = 2, y = 3. When x = 3, y = 5. So the answer is \\boxed{5}.", "5"),
    ("If $n = 1$, the sum is $1$. If $n = 2$, the sum is $3$. So for $n = 10$, the sum is $\\boxed{55}$.", "55"),
    ("If we substitute x = 3, then \\boxed{9}.", "9"),
    ("The answer is \\boxed{7}. (Other methods give the same result: 3 + 4 = 7.)", "7"),
    ("\\boxed{7}\n\nAlternatively, 3 + 4 = 7 confirms it.", "7"),
    ("Therefore the final answer is $\\boxed{24}$. If you have any questions, feel free to ask!", "24"),
    ("\\boxed{10}. Both 10 and -10 are possible, but length must be positive.", "10"),
    ("The answer is \\boxed{4}. Other readings of the problem are not consistent with 3 sides.", "4"),
    ("The answer is \\boxed{3.5}. If rounded, it is still 3.5.", "3.5"),
    ("So the answer is $\\boxed{6}$. (If order mattered, it would be 12, but it doesn't.)", "6"),
    ("The answer is \\boxed{4} (when x = 1, y = 3).", "4"),
    # A fresh review's verification remarks, offers and asides after the answer (each was withdrawn by a draft).
    ("So $x = \\boxed{3}$. If $x = 3$, then $2(3) + 1 = 7$, which matches the equation.", "3"),
    ("The answer is \\boxed{12}.\n\nIf each box holds 12 apples, then 5 boxes hold 60 apples, matching the total.",
     "12"),
    ("The number of ways is $\\boxed{60}$.\n\nIf order did not matter, we would divide by $3! = 6$ to get 10, "
     "but order matters here.", "60"),
    ("Final answer: $\\boxed{7}$\n\nAssuming the pattern continues, the next terms would be 9, 11, 13, ...", "7"),
    ("The area is $\\boxed{24}$.\n\nAssuming the triangle is right-angled at C, the legs are 6 and 8, giving "
     "$\\frac{1}{2}\\cdot 6\\cdot 8 = 24$.", "24"),
    ("**Answer: 42**\n\nIf you'd like, I can also show how to compute 6 \u00d7 7 step by step.", "42"),
    ("So we need $\\boxed{5}$ buses. If we used 4 buses, only 4 \u00d7 40 = 160 students would fit.", "5"),
    ("Thus $(x, y) = \\boxed{(6, 4)}$.\n\nIf we substitute back: $6 + 4 = 10$ and $6 - 4 = 2$. \u2713", "(6, 4)"),
    ("Hence, $\\boxed{11}$.\n\nIf we list them: 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31 \u2014 that is 11 primes.",
     "11"),
    ("The answer is \\boxed{9}.\n\n(If we count the empty set, it would be 10; but the problem asks for nonempty "
     "subsets.)", "9"),
    ("So the time is $\\boxed{3:45}$ PM. If he had left 15 minutes later, he would arrive at 4:00.", "3:45"),
    ("The fraction may be written as $\\boxed{\\frac{3}{4}}$.", "\\frac{3}{4}"),
    ("The interval is $\\boxed{(2.1, 3.5)}$. This is the 95% confidence interval for the mean.", "(2.1, 3.5)"),
    ("$\\boxed{3.141\\,59}$", "3.14159"), ("$\\boxed{12\\,345.678\\,9}$", "12345.6789"),
    ('{"answer": 42, "confidence": 0.95}', "42"), ('{"problem_id": 17, "answer": 42}', "42"),
    # A second review's: counterfactuals of the data explain the answer; values in checks and other words.
    ("There are $\\boxed{60}$ arrangements. If all letters were distinct, there would be 120.", "60"),
    ("She has $\\boxed{14}$ apples left. If she had not given any away, she would have 20.", "14"),
    ("The answer is \\boxed{6}. When the perimeter is doubled, the width becomes 12.", "6"),
    ("The answer is $\\boxed{6}$. A quick check with 2 and 3 also works.", "6"),
    ("The answer is \\boxed{6}. (Also valid for n \u2265 2.)", "6"),
    ("The answer is $\\boxed{0.5}$. Otherwise written, 0.5.", "0.5"),
    ("I initially got the answer 10, but I forgot the case with zeros. If we include that case, the answer is "
     "$\\boxed{11}$.", "11"),
    ('{"answer": 5, "time_seconds": 3.2}', "5"), ('{"answer": 12, "salt_grams": 5}', "12"),
    ('{"answer": 42, "num_options": 4}', "42"), ('{"answer": 72, "intermediate_result": 24}', "72"),
    ('{"answer": 0.25, "percentage_value": 25}', "0.25"),
])
def test_remarks_that_offer_no_other_value_keep_the_answer(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1.0


def test_conditions_are_read_to_the_end_in_linear_time() -> None:
    filler = "If n is odd, the parity flips. " * 40_000
    assert score(LEAD + "\\boxed{42}. " + filler, "42") == 1.0
    assert score(LEAD + "\\boxed{42}. " + filler + "If inclusive: 43.", "42") == 0.0
    same = LEAD + "\\boxed{42}. " + "If so, 42. " * 100 + "If inclusive: 43."
    assert score(same, "42") == 0.0
    many = LEAD + "If inclusive: \\boxed{1}. " * 40_000 + "If exclusive: \\boxed{2}."
    assert score(many, "2") == 0.0
    start = time.perf_counter()
    for text in (filler, "If x = 1, 2. " * 80_000, "(other reading " * 60_000):
        verify("\\boxed{42}. " + text, "42")
    assert time.perf_counter() - start < 30


RECORDS = ['{{"answer": "{a}", "alt": "{b}"}}', '{{"answer": {a}, "answer_inclusive": {b}}}',
           '{{"answer_exclusive": {a}, "answer": {b}}}', '```json\n{{"answer": {a},\n "other": {b}}}\n```',
           '<answer>{{"value": {a}, "other": {b}}}</answer>', '{{"final_answer": "{a}", "second": "{b}"}}']


@SETTINGS
@given(a=values, delta=st.integers(1, 9), form=st.sampled_from(RECORDS))
def test_a_record_with_another_number_is_no_answer(a: int, delta: int, form: str) -> None:
    text = LEAD + form.format(a=a, b=a + delta)
    assert score(text, str(a)) == 0.0
    assert score(text, str(a + delta)) == 0.0


@pytest.mark.parametrize("text", [
    '{"reasoning": "6 times 7 is 42", "answer": 42}', '{"reasoning": "6 times 7 is 42", "answer": "42"}',
    '{"answer": 42, "unit": "cm"}', '{"answer": 42, "check": 42}', '```json\n{"answer": "42"}\n```',
    'The set {1, 2} has 42 subsets of that kind: \\boxed{42}', '{"answer": "42", "note": "a \\"quoted\\" 7"}',
])
def test_a_record_with_one_number_keeps_it(text: str) -> None:
    assert score(LEAD + text, "42") == 1.0


def test_records_are_read_whole_in_linear_time() -> None:
    start = time.perf_counter()
    padded = '{"answer": 42, ' + '"k": "v", ' * 100_000 + '"alt": 43}'
    assert score(padded, "42") == 0.0
    assert score('{"answer": 42, ' + '"k": "v", ' * 30 + '"unit": "cm"}', "42") == 1.0
    for text in (padded, '{' * 500_000 + '"answer": 42',
                 '"answer": 42}' * 80_000, '{"a":' * 200_000 + ' 42'):
        verify(text, "42")
    assert time.perf_counter() - start < 30


def letter_score(output: str, reference: str) -> float:
    return float(verify(output, reference, extraction=("latex", "expr", "string"))["score"])


@pytest.mark.parametrize("text", ["The correct options are C and D.", "Both C and D are correct.", "Choice: C, D",
                                  "The answer is C / D.", "So the options are **C** and **D**."])
def test_a_letter_joined_to_one_before_it_is_no_choice(text: str) -> None:
    assert letter_score(LEAD + text, "C") == 0.0
    assert letter_score(LEAD + text, "D") == 0.0


@pytest.mark.parametrize("text", ["Options A and B fail, so the answer is D.",
                                  "Since A and B are wrong, the answer is **D**.",
                                  "Both A and B are wrong. The answer is D.", "The answer is D."])
def test_letters_ruled_out_before_the_choice_keep_it(text: str) -> None:
    assert letter_score(LEAD + text, "D") == 1.0


@pytest.mark.parametrize(("text", "stated", "aside"), [
    ("The answer is 121 ways, since 5! = 120.", "121", "120"), ("The answer is 4, since 2x = 8.", "4", "8"),
    ("The answer is 50% since p = 0.6.", "0.5", "0.6"), ("The answer is (1, 2), since x = 3.", "(1, 2)", "3"),
    ("The answer is 12 cm since the radius r = 6 cm.", "12", "6"), ("The answer is 6 (3! = 6 ways).", "6", "3"),
])
def test_an_equation_in_an_aside_after_the_answer_is_not_it(text: str, stated: str, aside: str) -> None:
    assert score(LEAD + text, aside) == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("The answer is 3 because x^2 = 9 and x > 0.", "3"), ("The answer is 120 ways (5! = 120).", "120"),
    ("So the answer is 10 (since a = 2 and b = 5).", "10"), ("The answer is (1, 2), since x = 3.", "(1, 2)"),
    ("The answer is 5 + 1 = 6.", "6"), ("answer: x = 5 + 1 = 6", "6"), ("The answer is therefore n = 12.", "12"),
    ("The answer is the total, T = 48.", "48"), ("The answer is 20 because each box has n = 4 items.", "20"),
])
def test_an_answer_before_its_reason_is_read(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1.0


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("\\boxed{45\u00a2}", "\\$45", 0.0), ("\\boxed{\\$45}", "45\u00a2", 0.0),
    ("\\boxed{45\\text{ cents}}", "\\$45", 0.0),
    ("The answer is 45 cents.", "\\$45", 0.0), ("\\boxed{45 \\text{ dollars}}", "45\u00a2", 0.0),
    ("\\boxed{45\u00a2}", "\\$0.45", 1.0), ("\\boxed{4500\u00a2}", "\\$45", 1.0),
    ("\\boxed{45\u00a2}", "45\u00a2", 1.0),
    ("\\boxed{0.45 \\text{ dollars}}", "45\u00a2", 1.0), ("The answer is 45 cents.", "45", 1.0),
])
def test_cents_are_hundredths_of_the_currency(text: str, reference: str, expected: float) -> None:
    assert score(LEAD + text, reference) == expected


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("$\\boxed{0.333\\ldots}$", "\\frac13", 1.0), ("$\\boxed{0.1666\\dots}$", "\\frac16", 1.0),
    ("$\\boxed{0.142857142857\\cdots}$", "\\frac17", 1.0), ("$\\boxed{0.333...}$", "\\frac13", 1.0),
    ("$\\boxed{0.333\u2026}$", "\\frac13", 1.0), ("$\\boxed{2.1212\\ldots}$", "\\frac{70}{33}", 1.0),
    ("$\\boxed{0.666\\ldots}$", "\\frac13", 0.0), ("$\\boxed{0.333\\ldots}$", "0.333", 0.0),
    ("$\\boxed{3.14\\ldots}$", "\\pi", 0.0), ("$\\boxed{0.3\\ldots}$", "\\frac13", 0.0),
])
def test_an_ellipsis_after_a_repeated_block_repeats_it(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("The trip takes 4 hours 30 minutes.", "4.5", 1.0), ("The answer is 2 hours and 30 minutes.", "2.5", 1.0),
    ("The answer is 12 dollars and 50 cents.", "12.50", 1.0), ("So she has 12 dollars and 50 cents left.", "12.5", 1.0),
    ("The answer is 5 feet 6 inches.", "5.5", 1.0), ("The answer is 2 hours and 30 minutes.", "3", 0.0),
    ("The answer is 2 hours and 30 minutes.", "30", 0.0), ("The answer is 2 hours 90 minutes.", "3.5", 0.0),
])
def test_a_compound_quantity_is_one_value_in_its_larger_unit(text: str, reference: str, expected: float) -> None:
    assert score(LEAD + text, reference) == expected


@pytest.mark.parametrize(("text", "stated", "aside"), [
    ("The answer is 12 at x = 13.", "12", "13"), ("The answer is 60 in n = 5 steps.", "60", "5"),
    ("The answer is 60 after x = 5.", "60", "5"), ("The answer is 12 at t = 3 seconds.", "12", "3"),
])
def test_a_value_stated_before_a_preposition_and_an_equation_is_read(text: str, stated: str, aside: str) -> None:
    assert score(LEAD + text, stated) == 1.0
    assert score(LEAD + text, aside) == 0.0


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("The answer is x = 12 = 13.", "13", 0.0), ("Answer: x = 12 = 13", "13", 0.0),
    ("The answer is x = 12 = 13.", "12", 0.0),
    ("The answer is x = 12 = 12.", "12", 1.0), ("The answer is x = 5 + 1 = 6.", "6", 1.0),
    ("The answer is 12 + 43 = 55 = 55.", "55", 1.0), ("The total is 4 \\times 5 = 20 = 20.", "20", 1.0),
])
def test_a_chained_equation_of_two_values_is_false(text: str, reference: str, expected: float) -> None:
    assert score(LEAD + text, reference) == expected


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("The answer is 0.333...", "\\frac13", 1.0), ("The answer is 0.1666....", "\\frac16", 1.0),
    ("So the probability is 0.333\u2026", "1/3", 1.0), ("The answer is 0.142857142857...", "\\frac17", 1.0),
    ("The answer is 3.14...", "3.14", 1.0), ("The value is 0.333... and so on, so the answer is 5.", "5", 1.0),
    ("The answer is 0.666...", "\\frac13", 0.0),
])
def test_an_ellipsis_in_prose_repeats_a_repeated_block(text: str, reference: str, expected: float) -> None:
    assert score(LEAD + text, reference) == expected


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("\\boxed{x^{100000}}", "x^{100001}", 0.0), ("\\boxed{x^{100000} + 1}", "x^{100001} + 1", 0.0),
    ("\\boxed{x^{100}}", "x^{101}", 0.0), ("\\boxed{x^{100000}}", "x^{100000}", 1.0),
    ("\\boxed{(x^{500})^{200}}", "x^{100000}", 1.0), ("\\boxed{x^{65} \\cdot x}", "x^{66}", 1.0),
    ("\\boxed{x^{70}+x^{70}}", "2x^{70}", 1.0),
])
def test_large_powers_are_compared_where_they_stay_in_range(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected
