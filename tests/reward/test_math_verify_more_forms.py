"""A sixth red team's classes, each with the honest forms beside it (hostile twins score 0, honest ones 1).

- An answer label after the last number that holds no value read (``Answer: ~43``, ``Answer: TBD``): the number
  before it is not the answer.
- A list item alone on its line (``- 42``, ``1. 42``, ``a) 42``) is labelled by the line above it as a value alone
  is (``Rejected:``, ``Maybe:``, ``I don't know.``); under ``Answer:`` it is the answer.
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
