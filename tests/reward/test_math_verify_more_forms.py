"""A sixth red team's classes, each with the honest forms beside it (hostile twins score 0, honest ones 1).

- An answer label after the last number that holds no value read (``Answer: ~43``, ``Answer: TBD``): the number
  before it is not the answer.
- A list item alone on its line (``- 42``, ``1. 42``, ``a) 42``) is labelled by the line above it as a value alone
  is (``Rejected:``, ``Maybe:``, ``I don't know.``); under ``Answer:`` it is the answer.
- Characters a page does not show (every default-ignorable code point: Hangul and Khmer fillers too) and letters of
  other alphabets drawn as Latin ones hide no hedge.
- Clock times: a range or a bound (``3:45\u20134:00``, ``before 3:45``, ``3:45 at the latest``) is no time; an hour
  with AM/PM (``7 AM``) and ``noon`` are times; hour 0 is midnight, never noon.
"""

from __future__ import annotations

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
                              "\u3010\u7b54\u6848\u3011\u7ea6{h}"]))
def test_an_answer_label_without_a_value_read_leaves_no_answer(g: int, before: str, label: str) -> None:
    text = LEAD + before.format(g=g, h=g + 1) + "\n\n" + label.format(h=g + 1)
    assert score(text, str(g)) == 0


@SETTINGS
@given(g=values, form=st.sampled_from(["Answer: Janet has {g} eggs.", "So the result is {h}.\n\nFinal Answer: {g} apples",
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
@given(g=values, mark=st.sampled_from(LIST_MARKS), label=st.sampled_from(["Answer:", "**Final Answer:**", "The answer:"]))
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
