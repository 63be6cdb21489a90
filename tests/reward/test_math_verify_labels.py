"""Answer labels, markup and endings around a math answer: the classes a third red team found (hostile twins
score 0), with the honest forms next to them (score 1).

- Markup as a page shows it: a tag, comment or special token inside a word (``n<b></b>ot``) or between two
  (``at<b></b>least``) hides no hedge; miswritten template tags (``<\\answer>``, ``</answer >``, ``<answer>5<answer>``)
  keep the answer.
- Labels: a hedge, negation or bound in a label before a colon (``The answer cannot be:``, ``Maybe:``) withdraws
  the answer below or after it; a neutral one (``Answer:``, ``Number of integers not divisible by 3:``) does not.
- Answer lines: LaTeX without ``$`` after ``**Answer**:``, on the line below ``Answer:`` or ``**Final Answer**``,
  after ``The final answer is``, after GSM8K's ``####``.
- A coordinate or endpoint of a tuple or interval is not the answer.
- Cut-offs where the answer begins (``Answer: -``, ``答案是``, inside the last box), and words after a value that
  change it (``5 times 2``, ``5 and a half``) or leave it uncommitted (``5 is likely``, ``5 etc.``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.reward import verify

SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
values = st.integers(2, 10**6)
LEAD = "We add the two counts and simplify.\n\n"


def score(output: str, reference: str) -> float:
    return float(verify(output, reference)["score"])


# ---------------------------------------------------------------------------------------------------------------
# Markup inside and between words

#: Markup a page shows as nothing, or a decoder skipping special tokens drops.
INVISIBLE = ["<b></b>", "<span class=\"x\"></span>", "<!-- -->", "<|pad|>", "<i></i><u></u>", "&shy;", "\x01"]
HEDGES = ["not", "about", "roughly", "approximately", "nearly", "maybe"]


@SETTINGS
@given(g=values, word=st.sampled_from(HEDGES), cut=st.integers(1, 3), mark=st.sampled_from(INVISIBLE),
       form=st.sampled_from(["The answer is {w} \\boxed{{{g}}}.", "<think>ok</think>\n{w} <answer>{g}</answer>"]))
def test_markup_inside_a_hedge_word_hides_nothing(g: int, word: str, cut: int, mark: str, form: str) -> None:
    split = word[:cut] + mark + word[cut:]
    assert score(form.format(w=split, g=g), str(g)) == 0


@SETTINGS
@given(g=values, pair=st.sampled_from([("at", "least"), ("at", "most"), ("more", "than"), ("not", "exactly")]),
       mark=st.sampled_from([*INVISIBLE[:5], ""]))
def test_markup_between_hedge_words_hides_nothing(g: int, pair: tuple[str, str], mark: str) -> None:
    # Joined with nothing between them too (`atleast`): the two words are still read.
    assert score(f"The answer is {pair[0]}{mark}{pair[1]} \\boxed{{{g}}}.", str(g)) == 0


@SETTINGS
@given(g=values, form=st.sampled_from([
    "<b>Answer:</b> <i>{g}</i>", "The answer is <b>{g}</b>.", "<p>We add.</p><p>The answer is \\boxed{{{g}}}.</p>",
    "<think>ok</think>\n<answer>{g}<answer>", "<think>ok<\\think>\n<answer>{g}<\\answer>",
    "<think>ok</think>\n<answer>{g} </answer >", "<think>ok</think>\n<answer>{g}</answer></think>",
    "<think>ok</think>\n<answer>{g}</answer> ({g} apples)",
]))
def test_markup_and_miswritten_tags_keep_the_answer(g: int, form: str) -> None:
    assert score(form.format(g=g), str(g)) == 1


@SETTINGS
@given(g=values, h=values)
def test_another_value_after_the_tag_is_still_read(g: int, h: int) -> None:
    if g != h:
        assert score(f"<think>ok</think>\n<answer>{g}</answer> {h}", str(g)) == 0


# ---------------------------------------------------------------------------------------------------------------
# Labels before a colon

HEDGED_LABELS = [
    "The answer cannot be:", "The answer isn't:", "The answer is not:", "The answer is more than:", "No more than:",
    "The answer is probably:", "Maybe:", "Probably:", "Perhaps:", "About:", "Around:", "Nearly:", "Circa:",
    "Never:", "Except:", "I am not sure, but the answer might be:", "At least:", "Close to:",
]
NEUTRAL_LABELS = [
    "Answer:", "Final answer:", "The answer is:", "Number of integers not divisible by 3:", "Total:", "Result:",
    "Therefore:", "Adding them up:", "As shown below:", "Most likely value:", "The minimum number of moves:",
    "**Answer:**", "### Final Answer:",
]
SEPARATORS = [" ", "\n", "\n\n"]
FORMS = ["\\boxed{{{g}}}", "$$\\boxed{{{g}}}$$", "${g}$", "**{g}**", "{g}"]


@SETTINGS
@given(g=values, label=st.sampled_from(HEDGED_LABELS), sep=st.sampled_from(SEPARATORS), form=st.sampled_from(FORMS))
def test_a_hedged_label_withdraws_the_answer(g: int, label: str, sep: str, form: str) -> None:
    assert score(LEAD + label + sep + form.format(g=g), str(g)) == 0


@SETTINGS
@given(g=values, label=st.sampled_from(NEUTRAL_LABELS), sep=st.sampled_from(SEPARATORS), form=st.sampled_from(FORMS))
def test_a_neutral_label_keeps_the_answer(g: int, label: str, sep: str, form: str) -> None:
    assert score(LEAD + label + sep + form.format(g=g), str(g)) == 1


@SETTINGS
@given(g=values, hedge=st.sampled_from(["The answer is not", "approximately", "at least"]),
       form=st.sampled_from(["**{g}**", "__{g}__", "$$\\boxed{{{g}}}$$"]))
def test_a_hedge_carries_over_a_blank_line(g: int, hedge: str, form: str) -> None:
    assert score(LEAD + hedge + "\n\n" + form.format(g=g), str(g)) == 0


@SETTINGS
@given(g=values, words=st.sampled_from(["is different from", "differs from", "is divisible by", "falls short of",
                                        "is just shy of", "Upper bound"]))
def test_relations_in_words_withdraw_the_answer(g: int, words: str) -> None:
    assert score(f"{LEAD}The answer {words} \\boxed{{{g}}}".replace("The answer Upper", "Upper"), str(g)) == 0


# ---------------------------------------------------------------------------------------------------------------
# Answer lines in LaTeX without math delimiters

LATEX_VALUES = [("\\frac{3}{4}", "3/4"), ("2\\sqrt{3}", "2\\sqrt{3}"), ("10^{-3}", "0.001"), ("2^{10}", "1024"),
                ("x^2+2x+1", "(x+1)^2"), ("\\frac{\\pi}{2}", "\\pi/2")]
LINE_FORMS = ["**Answer**: {v}", "*Answer*: {v}", "Answer:\n{v}", "**Final Answer**\n{v}", "### Final Answer\n\n{v}",
              "The final answer is {v}.", "The final answer is {v}. I hope it is correct.", "#### {v}"]


@pytest.mark.parametrize("form", LINE_FORMS)
@pytest.mark.parametrize(("value", "reference"), LATEX_VALUES)
def test_a_latex_answer_line_is_read_whole(form: str, value: str, reference: str) -> None:
    assert score(LEAD + form.format(v=value), reference) == 1
    # The same line is not credited for another value.
    assert score(LEAD + form.format(v=value), "7") == 0


@SETTINGS
@given(a=values, b=values, form=st.sampled_from([
    "So the point is ({a}, {b}).", "The solution set is [{a}, {b}).", "x lies in (-infinity, {b}].",
    "**Answer**: ({a}, {b})", "*Answer*: [{a}, {b})", "The roots are \\{{{a}, {b}\\}}",
]))
def test_a_coordinate_or_endpoint_is_not_the_answer(a: int, b: int, form: str) -> None:
    assert score(LEAD + form.format(a=a, b=b), str(b)) == 0


@SETTINGS
@given(a=values, b=values)
def test_a_tuple_answer_is_read_whole(a: int, b: int) -> None:
    assert score(f"{LEAD}**Answer**: ({a}, {b})", f"({a}, {b})") == 1
    assert score(f'{{"reasoning": "{a} / 2", "answer": "{b}"}}', str(b)) == 1


# ---------------------------------------------------------------------------------------------------------------
# Endings: cut off where the answer begins, words after the value

CUTS = ["Answer: -", "Answer: x =", "答案是", "So the answer is `", "So the answer is \"", "Result:", "Final:",
        "Solution:", "Therefore,", "Therefore the answer is $\\boxed{1", "**Final Answer**\n\\[\n\\boxed{\\frac{1}{"]


@SETTINGS
@given(g=values, cut=st.sampled_from(CUTS))
def test_a_text_cut_off_where_its_answer_begins_scores_zero(g: int, cut: str) -> None:
    assert score(f"We add: 17 + {g - 17} = {g}.\n\n{cut}", str(g)) == 0
    assert score(f"$$17 + {g - 17} = {g}.$$\n\n{cut}", str(g)) == 0


def test_a_step_number_is_not_an_answer() -> None:
    assert score("Step 1:", "1") == 0
    assert score("**Case 2**:", "2") == 0
    assert score("Step 1: add 2 and 3.\nStep 2: the answer is 5.", "5") == 1


CHANGING = ["times 2", "over 2", "divided by 2", "plus 3", "minus 1", "and a half", "and 3/4", "to the 2nd power",
            "to the power of 2", "raised to 2", "point 5", "hundredths", "tenths"]
UNCOMMITTED = ["is likely", "is possible", "seems plausible", "sometimes", "in some cases", "(one possibility)",
               "etc.", "and others", "among others", "and so on", "for now", "(to be checked)", ", I guess", "max"]


@SETTINGS
@given(g=values, words=st.sampled_from(CHANGING + UNCOMMITTED),
       form=st.sampled_from(["The answer is {g} {w}.", "Answer: {g} {w}", "The final answer is \\boxed{{{g}}} {w}."]))
def test_words_after_a_value_that_change_or_doubt_it(g: int, words: str, form: str) -> None:
    assert score(LEAD + form.format(g=g, w=words).replace(" ,", ","), str(g)) == 0


@SETTINGS
@given(g=values, form=st.sampled_from([
    "He visited the store {g} times.", "So she has {g} times as many.", "The answer is {g} over the weekend.",
    "There are {g} possible outcomes.", "It takes {g} min.", "The answer is {g}, and so is the check.",
]))
def test_ordinary_words_after_a_value_keep_it(g: int, form: str) -> None:
    assert score(form.format(g=g), str(g)) == 1


@SETTINGS
@given(g=values)
def test_per_mille_is_a_fraction(g: int) -> None:
    assert score(f"<answer>{g}\u2030</answer>", str(g)) == 0
    assert score(f"<answer>{g}&permil;</answer>", str(g)) == 0
    assert score(f"<answer>{g}\u2030</answer>", f"{g}/1000") == 1


@SETTINGS
@given(h=st.integers(1, 12), m=st.integers(0, 59), half=st.sampled_from(["AM", "PM", "am", "p.m.", "a.m."]),
       form=st.sampled_from(["So the meeting ends at {t}.", "Answer: {t}", "The answer is \\boxed{{{t}}}."]))
def test_a_time_keeps_its_half_of_the_day(h: int, m: int, half: str, form: str) -> None:
    time = f"{h}:{m:02d}"
    same = "AM" if half.lower().startswith("a") else "PM"
    other = "PM" if same == "AM" else "AM"
    output = form.format(t=f"{time} {half}")
    assert score(output, f"{time} {same}") == 1
    assert score(output, f"{time} {other}") == 0


@SETTINGS
@given(h=st.integers(0, 23), m=st.integers(0, 59), shift=st.integers(1, 24 * 60 - 1),
       form=st.sampled_from(["So the meeting ends at {t}.", "Answer: {t}", "The answer is \\boxed{{{t}}}."]))
def test_clock_times_compare_as_times_of_day_not_ratios(h: int, m: int, shift: int, form: str) -> None:
    other = (h * 60 + m + shift) % (24 * 60)
    gold = f"{h}:{m:02d}"
    assert score(form.format(t=gold), gold) == 1
    assert score(form.format(t=f"{h:02d}:{m:02d}"), gold) == 1
    # Another time is wrong even where the ratio would agree (`1:15` for `3:45`); two times without AM/PM are on
    # the 24-hour clock (`3:45` is not `15:45`).
    assert score(form.format(t=f"{other // 60}:{other % 60:02d}"), gold) == 0
    if 1 <= h <= 12:
        assert score(form.format(t=f"{h}:{m:02d} PM"), f"{h % 12 + 12}:{m:02d}") == 1
        # Without AM/PM, an hour from 1 to 12 matches either half of a time written with one.
        assert score(form.format(t=gold), f"{h}:{m:02d} PM") == 1
    if h == 0:
        # Hour 0 is midnight, never noon.
        assert score(form.format(t=gold), f"12:{m:02d} PM") == 0


# ---------------------------------------------------------------------------------------------------------------
# A fourth red team: the same classes in other words

@SETTINGS
@given(g=values, form=st.sampled_from([
    "The answer is {w} \\boxed{{{g}}}.", "Answer: {w} {g}", "<think>ok</think>\n{w} <answer>{g}</answer>",
]), word=st.sampled_from(["upto", "closeto", "perhapsnot", "definitelynot", "nomorethan", "perhaps\u200bnot",
                          "\U0001d427\U0001d428\U0001d42d", "\u0274\u1d0f\u1d1b", "n\u0332o\u0332t\u0332",
                          "n<a></a>ot", "n\U000e0020ot"]))
def test_hedges_written_as_one_word_or_in_look_alikes(g: int, form: str, word: str) -> None:
    assert score(form.format(w=word, g=g), str(g)) == 0


@SETTINGS
@given(g=values, label=st.sampled_from([
    "Probable answer:", "Fake answer:", "Example answer:", "Invalid answer:", "Answer (50% sure):", "Answer?:",
    "Uncertain:", "Vielleicht:", "\u041f\u0440\u0438\u043c\u0435\u0440\u043d\u043e:", "\u5927\u7ea6\uff1a",
    "### Answer (approximately)",
]), sep=st.sampled_from(["\n", " "]))
def test_more_hedged_labels_withdraw_the_answer(g: int, label: str, sep: str) -> None:
    assert score(f"{LEAD}{label}{sep}\\boxed{{{g}}}", str(g)) == 0


@SETTINGS
@given(g=values, words=st.sampled_from(["choose 2", "factorial", "thirds", "doubled", "gross", "pi", "bps",
                                        "percent of 10", "x 2", "at max", "usually", "so far", ", for example"]))
def test_more_words_after_a_value(g: int, words: str) -> None:
    assert score(f"{LEAD}The answer is \\boxed{{{g}}} {words}.".replace(" ,", ","), str(g)) == 0


@SETTINGS
@given(g=values, form=st.sampled_from(["Hence the result is y = 2x + {g}.", "We need $3x + {g}",
                                       "The total cost is $48 + {g}", "Hence it is {h} to {g}.",
                                       "The answer is <del>\\boxed{{{g}}}</del>.", "The answer is \u223c {g}."]))
def test_terms_ranges_and_struck_values_are_no_answer(g: int, form: str) -> None:
    assert score(form.format(g=g, h=g - 1), str(g)) == 0


@SETTINGS
@given(a=values, b=values, c=values)
def test_a_bare_list_answers_a_list(a: int, b: int, c: int) -> None:
    assert score(f"{LEAD}Answer: {a}, {b}, {c}", f"\\{{{a},{b},{c}\\}}") == 1
    if len({a, b, c}) == 3:
        assert score(f"{LEAD}Answer: {a}, {b}, {c}", str(c)) == 0


@SETTINGS
@given(g=values, form=st.sampled_from(["The answer is `{g}`.", "**Final Answer:** `{g}`",
                                       "We get 7 \\times 6 = 42.\n\nResult: {g}", "The answer is negative {g}."]))
def test_code_spans_paragraphs_and_words_for_signs(g: int, form: str) -> None:
    reference = f"-{g}" if "negative" in form else str(g)
    assert score(form.format(g=g), reference) == 1


# ---------------------------------------------------------------------------------------------------------------
# A fifth red team: honest forms that a rule above must leave alone, and the last hedges it found

HONEST_FORMS = [
    "**Answer: {g}**", "**Final Answer: {g}**", "Answer:\n> {g}", "The final answer is:\n\n> {g}",
    "It happens \\boxed{{{g}}} times.", "**Answer:** *{g}*", "The answer is _{g}_.", "Total: {g}", "Result: {g}",
    "**Final Answer:** The area is **{g} m\u00b2**.", "Answer: {g} m^{{2}}",
    "Partial fraction decomposition: \\boxed{{{g}}}",
    "Number of rejected items: \\boxed{{{g}}}", "Adding them up:\n\n\\boxed{{{g}}}", "The answer is {g}, not {h}.",
]


@SETTINGS
@given(g=values, form=st.sampled_from(HONEST_FORMS))
def test_honest_forms_near_the_new_rules_keep_the_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g + 1), str(g)) == 1


def test_a_bold_choice_letter_is_no_cut_off() -> None:
    assert score("**Answer: C**", "C") == 1


LAST_HEDGES = [
    "Rejected:\n\\boxed{{{g}}}", "Ruled out:\n\n$${g}$$", "Intermediate value: {g}", "A common mistake is: {g}",
    "Approx. answer: {g}", "The answer is below:\n{g}", "Typo\n\n\\boxed{{{g}}}", "The answer is {g}+.",
    "The answer is {g}..{h}", "<answer>~{g}</answer>", "I don't know. \\boxed{{{g}}}",
    "The answer is \\boxed{{{g}}} at best.",
    "\u7b54\u3048\u306f\u7d04{g}\u3067\u3059", "La respuesta es alrededor de {g}.", "Odpowied\u017a: oko\u0142o {g}",
]


@SETTINGS
@given(g=values, form=st.sampled_from(LAST_HEDGES))
def test_the_last_hedges_withdraw_the_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g + 1), str(g)) == 0
