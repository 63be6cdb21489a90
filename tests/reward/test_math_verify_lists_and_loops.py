"""A tenth red team's classes, each with the honest forms beside it (hostile twins score 0, honest ones 1).

- A repetition loop at the end is read as its passage written once: repeating a revision, a negation or a
  question after the answer no longer cancels it (one ``Wait, it is six.`` revised the answer; twenty cut it off).
- The last of several values ending a sentence (``So the total cost is 5, 6.``, ``1, 2, and 6``) is no answer, as
  ``5, 6`` read from its first is not; a date's year and a value the sentence goes on about are.
- Two values joined in an answer tag or bare text by any mark or word that joins them after a box (``5 | 6``,
  ``5 \u2192 6``, ``5 vs. 6``, ``5 oder 6``, ``5 otherwise 6``) are no answer, as in a box; not a computation's result
  (``12 + 8 \u2192 20``) nor a value after a tag (``</think> <answer> 4``).
- A value after a false equation (``The answer is 5 = 6.``, ``Answer: 5 => 6``, ``\\boxed{5} := 6``) is no answer; a
  computation's result is (``5 + 1 = 6``, ``50% of 12 = 6``, even a slip: ``12 + 43 = 74``).
- Another value after a box in math of its own (``$\\boxed{5}$`` then ``$6$``) or after closing words on its line
  (``\\boxed{5} Therefore 6.``) withdraws it.
- ``2.(6)`` is a repeating decimal (8/3), never 2 times 6.
- An invented question answered after the answer (``Next question:``, ``Q2.``, ``[INST]``, a role's name alone, or
  between two answer tags) leaves none; a token opening a turn after the first words ends the text.
- One sentence with an escaped dollar (``She pays \\$12.``) or a command is read by its number when it does not
  parse whole; a check after a paragraph break that arrives at the answer again confirms it, as inline.
- A scale or an operation written after the value changes it (``\\boxed{2.5}\\text{M}``, ``2.5K``, ``2.5 k``,
  ``2.5 mln``, ``2.5 per mille``, ``2.5 mod 3``, ``\\boxed{2.5}\u00b710^3``); a unit or a modulus does not.
- Another value in square brackets after the answer (``\\boxed{5} [6]``) or after a quoted answer
  (``"answer": "5" > 6``, ``["5", "6"]``) withdraws it, as in round brackets.
- Red team 11: values written alike in a list (``5 apples, 6 apples``, quotes, bold, a gloss) are no answer; more
  false-equation marks (``==>``, ``=:``, ``-->``, ``~=``); a scale past the marks closing the value's math or bold
  (``$\\boxed{5}$K``); repeating parts in square brackets and ``\\bar``; more invented turns (``Input:``,
  ``Prompt:``, ``Question 2`` alone); turn tokens read in linear time.
- A unit group after a term of a sum is no unit (``2+3\\mathbf{m}`` is no 5 m), as one before a term is not.
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


HEDGES_AFTER = [" Wait, it is {h}.", " Wait, let me reconsider.\n", " not", "?", " I'm not sure.", " (approximately)",
                " or more", " \\neq", " thousand", " \\pi", "^", " wait", "!"]


@SETTINGS
@given(g=values, hedge=st.sampled_from(HEDGES_AFTER), times=st.sampled_from([1, 300, 1000]),
       form=st.sampled_from(["The answer is \\boxed{{{g}}}.", "\\boxed{{{g}}}", "{g}"]))
def test_a_hedge_repeated_into_a_loop_hedges_as_once(g: int, hedge: str, times: int, form: str) -> None:
    answer = form.format(g=g)
    once = score(LEAD + answer + hedge.format(h=g + 1), str(g))
    assert score(LEAD + answer + hedge.format(h=g + 1) * times, str(g)) == once


@pytest.mark.parametrize("hedge", HEDGES_AFTER)
def test_a_hedge_after_a_box_withdraws_it_once_or_looped(hedge: str) -> None:
    for times in (1, 300):
        assert score(LEAD + "\\boxed{42}" + hedge.format(h=43) * times, "42") == 0


@pytest.mark.parametrize("remark", ["[Note: please double-check the reasoning.] ", "\n\nI hope it is correct.",
                                    " Good.", "\n\n---\n\n"])
def test_an_idle_remark_repeated_after_the_answer_keeps_it(remark: str) -> None:
    assert score(LEAD + "So the answer is \\boxed{42}." + remark * 30, "42") == 1


@SETTINGS
@given(g=values, form=st.sampled_from(["So the total cost is {h}, {g}.", "The values are {k}, {h}, and {g}.",
                                       "So the total is {h} and {g}.", "We get {h}, or {g}.",
                                       "So the total cost is \\${h}, \\${g}.", "So it is {h}, {g} dollars.",
                                       "It is {h}%, {g}%.", "The answer is {h}, {g}."]))
def test_the_last_of_several_values_ending_a_sentence_is_no_answer(g: int, form: str) -> None:
    text = LEAD + form.format(g=g, h=g + 1, k=g + 2)
    assert score(text, str(g)) == 0
    assert score(text, str(g + 1)) == 0


@SETTINGS
@given(g=values, joint=st.sampled_from([" | ", " \u2192 ", " \u2014 ", " vs. ", " versus ", " otherwise ", " else ",
                                        " i.e. ", " ... ", " & ", "\u3001", " oder ", " \u21d4 ", " :: ", " bis ",
                                        " and ", ", "]),
       form=st.sampled_from(["<answer>{v}</answer>", "{v}", "#### {v}", "The answer is {v}."]))
def test_two_values_joined_in_a_tag_or_bare_text_are_no_answer(g: int, joint: str, form: str) -> None:
    text = form.format(v=f"{g + 1}{joint}{g}")
    assert score(text, str(g)) == 0
    assert score(text, str(g + 1)) == 0


@pytest.mark.parametrize(("text", "reference"), [
    ("The total is 12 + 8 \u2192 20.", "20"), ("<think>It is 39 mph.</think> <answer> 4 mph </answer>", "4"),
    ("The answer is 1/2, i.e. 0.5.", "0.5"), ("Total earnings = 150 + 90 + 210 = 450.", "450"),
    ("The date is March 5, 2023.", "2023"), ("In 2023, 6 people came to the fair.", "6"),
    ("After 3 days, 6.", "6"), ("He has 3 apples and 6 pears.", "6"), ("So x = 2 and y = 6.", "6"),
    ("Adding 2 and 4 we get 6.", "6"), ("Sum 2, 4. Total 6.", "6"), ("The roots are 2, \\boxed{6}", "6"),
])
def test_a_value_after_other_numbers_in_honest_prose_is_the_answer(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1


@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("$2+3\\mathbf{m}$", "5", False), ("$2+3\\,\\mathrm{m}$", "5", False), ("$2 - 3\\,\\text{cm}$", "-1", False),
    ("$-3\\,\\mathrm{m}$", "-3", True), ("$x = -3\\,\\mathrm{m}$", "-3", True),
    ("$12+3=15\\,\\mathrm{cm}$", "15", True), ("$2-3cm$", "-1", False),
    ("$1.5\\times 10^{-3}\\,\\mathrm{m}$", "0.0015", True), ("$(2+3)\\,\\mathrm{m}$", "5", True),
    ("$e^{-2}\\,\\mathrm{s}$", "e^{-2}", True),
])
def test_a_unit_after_a_term_of_a_sum_is_no_unit(text: str, reference: str, credited: bool) -> None:
    assert score(LEAD + "So the result is " + text + ".", reference) == int(credited)


@SETTINGS
@given(g=values, form=st.sampled_from(["The answer is {h} = {g}.", "Answer: {h} => {g}", "Answer: {h} := {g}",
                                       "#### {h} = {g}", "Answer: {h} == {g}"]))
def test_a_value_after_a_false_equation_is_no_answer(g: int, form: str) -> None:
    assert score(LEAD + form.format(g=g, h=g + 1), str(g)) == 0


@pytest.mark.parametrize(("text", "reference"), [
    ("The answer is 5 + 1 = 6.", "6"), ("Answer: x = 6", "6"), ("So the answer is $\\frac{1}{2} = 0.5$.", "0.5"),
    ("The answer is 50% of 12 = 6.", "6"), ("Each paid $12 + $43 = $74", "74"), ("So 10 - 3 = 6.", "6"),
    ("The answer is 2 \\times 3 = 6.", "6"), ("Answer: 12/4 = 3", "3"),
])
def test_a_value_after_a_computation_is_the_answer(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1


@pytest.mark.parametrize("text", ["\\boxed{5} == 6", "\\boxed{5} := 6", "$\\boxed{5}$\n\n$6$", "$\\boxed{5}$\n\n$6$.",
                                  "\\[\\boxed{5}\\]\n\n\\[6\\]", "\\boxed{5} Therefore 6.", "Answer: 5 Therefore 6."])
def test_another_value_after_a_box_in_its_own_math_or_on_its_line_withdraws_it(text: str) -> None:
    assert score(text, "5") == 0
    assert score(LEAD + text, "5") == 0


@pytest.mark.parametrize("text", ["$\\boxed{5}$\n\n$5$", "$\\boxed{5}$\n\nThe median is $4$.", "\\boxed{5} = 5"])
def test_the_same_value_or_another_quantity_after_a_box_keeps_it(text: str) -> None:
    assert score(LEAD + text, "5") == 1


@pytest.mark.parametrize(("text", "credited"), [
    ("The probability is $\\frac{1}{4}$, or 25%.", True), ("The probability is $\\frac{1}{4}$, or 0.25.", True),
    ("The probability is $\\frac{1}{4}$, or 26%.", False), ("The probability is $\\frac{1}{4}$, or 0.3.", False),
])
def test_a_math_block_said_again_in_prose_is_one_value(text: str, credited: bool) -> None:
    assert score(LEAD + text, "\\frac14") == int(credited)


@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("\\boxed{2.(6)}", "12", False), ("\\boxed{2.(6)}", "\\frac83", True), ("The answer is 2.(6).", "8/3", True),
    ("The answer is 2.(6).", "12", False), ("\\boxed{1.(3)}", "\\frac43", True), ("\\boxed{0.(3)}", "0", False),
    ("\\boxed{0.(3)}", "1/3", True), ("So 5. (6 ways)", "5", True),
])
def test_a_period_in_brackets_after_a_point_repeats(text: str, reference: str, credited: bool) -> None:
    assert score(LEAD + text, reference) == int(credited)


DRIFTS = ["Next question: What is 3+3?\n{x}", "Example 2. Compute 3+3.\n{x}", "Q2. 3+3?\n{x}",
          "**Question 2** 3+3?\n{x}", "### Instruction:\nCompute 3+3.\n### Response:\n{x}",
          "[INST] Compute 3+3 [/INST] {x}",
          "user\nCompute 3+3\nassistant\n{x}", "Follow-up: what if we add 1? Then {x}"]


@pytest.mark.parametrize("drift", DRIFTS)
def test_an_invented_question_answered_after_the_answer_leaves_none(drift: str) -> None:
    text = LEAD + "The answer is \\boxed{5}.\n\n" + drift.format(x="\\boxed{6}")
    assert score(text, "5") == score(text, "6") == 0


def test_an_invented_question_between_two_answer_tags_leaves_none() -> None:
    text = "<think>x</think><answer>5</answer>\n\nHuman: what is 2+4?\nAssistant: <answer>6</answer>"
    assert score(text, "5") == score(text, "6") == 0


@pytest.mark.parametrize("turn", ["<|user|>\nCompute 3+3.\n<|assistant|>\n", "<|im_start|>user\nCompute 3+3<|im_end|>",
                                  "<start_of_turn>user\nCompute 3+3\n<start_of_turn>model\n"])
def test_a_turn_opened_after_the_answer_ends_the_text(turn: str) -> None:
    text = LEAD + "The answer is \\boxed{5}.\n\n" + turn + "\\boxed{6}"
    assert (score(text, "5"), score(text, "6")) == (1, 0)


@pytest.mark.parametrize("text", ["<|im_start|>assistant\nSo \\boxed{6}<|im_end|>",
                                  "We reread the question:\n\nQuestion: how many? The answer is \\boxed{6}.",
                                  "Quickly, the answer is \\boxed{6}.\nQuick check: yes."])
def test_a_question_read_again_or_a_turn_token_first_is_no_drift(text: str) -> None:
    assert score(text, "6") == 1


@pytest.mark.parametrize("text", ["She pays \\$12.", "Janet earns \\$12 per day.", "So she pays \\$12 in total.",
                                  "So 3 \u00d7 4 = 12.", "So 3 \\times 4 = 12."])
def test_one_sentence_with_an_escaped_dollar_or_a_command_reads_its_number(text: str) -> None:
    assert score(text, "12") == 1


@pytest.mark.parametrize("check", ["Actually, let me recompute: 8 \\times 9 = 72.",
                                   "Wait, I should double check: 70+2 = 72.",
                                   "Hmm, wait. Let me re-read the problem. It asks for the total, which is 72."])
def test_a_check_after_a_paragraph_break_that_arrives_at_the_answer_keeps_it(check: str) -> None:
    assert score(LEAD + "So the answer is \\boxed{72}.\n\n" + check, "72") == 1
    assert score(LEAD + "So the answer is \\boxed{72}.\n\n" + check.replace("72", "73"), "72") == 0


SCALED = ["\\boxed{2.5}\\text{M}", "\\boxed{2.5}\\;\\text{million}", "\\boxed{2.5}\\text{ and a half}",
          "\\boxed{2.5}\\textsuperscript{2}", "The answer is \\boxed{2.5}\u00b710^3.", "The answer is $2.5$\u00b710^3.",
          "The answer is 2.5 k.", "The answer is \\$2.5K.", "The answer is 2.5MM.",
          "The answer is 2.5 thousands.", "The answer is 2.5 mln.", "The answer is 2.5 per mille.",
          "The answer is 2.5 basis points.", "The answer is 2.5 mod 3.", "The answer is 2.5 less 3."]


@pytest.mark.parametrize("text", SCALED)
def test_a_scale_or_operation_written_after_the_value_changes_it(text: str) -> None:
    assert score(LEAD + text, "2.5") == 0


@pytest.mark.parametrize(("text", "reference"), [
    ("The answer is 2.5 mm.", "2.5"), ("So the answer is 300 K.", "300"), ("It takes 5 min.", "5"),
    ("The answer is 2.5 times.", "2.5"), ("\\boxed{12} \\text{ cm}", "12"), ("\\boxed{5} (mod 7)", "5"),
])
def test_a_unit_or_a_modulus_after_the_value_keeps_it(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1


@pytest.mark.parametrize("text", ["\\boxed{5} [6]", "The answer is 5 [6].", "\"answer\": \"5\" > 6",
                                  "{\"answer\": [\"5\", \"6\"]}", "\"answer\": \"5\" 6", "\"answer\": \"5\" **6**"])
def test_another_value_in_square_brackets_or_after_a_quoted_answer_withdraws_it(text: str) -> None:
    assert score(LEAD + text, "5") == 0


@pytest.mark.parametrize("text", ["\\boxed{5} [5]", "{\"answer\": \"5\"}", "The answer is \"5\".",
                                  "{\"answer\": \"5\", \"unit\": \"cm\"}"])
def test_the_same_value_in_brackets_or_a_quoted_answer_alone_keeps_it(text: str) -> None:
    assert score(LEAD + text, "5") == 1


LIST_TOKENS = ["5", "6", "42", ", ", " and ", " or ", ", and ", " | ", " \u2192 ", " vs. ", " otherwise ", " i.e. ",
               " :: ", " = ", " => ", " := ", "\\boxed{", "}", "$", "\\[", "\\]", "\n", "\n\n", "The answer is ",
               "Answer: ", "#### ", "<answer>", "</answer>", "</think>", "Wait, it is six.", " not", "?",
               "Next question:", "Q2.", "user\n", "<|im_start|>", "<|user|>", "[INST]", "\\text{M}", " k", "K",
               " mln", " mod ", "\u00b7", "2.(6)", "(", ")", "[", "]", "\"", "\u201d", "{\"answer\": ",
               "\\mathbf{m}", "+", "-", "cm", "March ", "\u00e9", "\u4e2d", "\U0001f600", "\u0301", "\\$", "%",
               "Therefore ", ". "]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(LIST_TOKENS), min_size=1, max_size=40), loop=st.integers(0, 200),
       gold=st.sampled_from(["42", "5", "6", "8/3", "5,6"]))
def test_no_reading_of_lists_loops_or_drifts_fails_inside(parts: list[str], loop: int, gold: str) -> None:
    text = "".join(parts) + "".join(parts[-2:]) * loop
    assert verify(text, gold)["reason"] != "internal error"


@pytest.mark.parametrize("unit", ["5, ", "5 | ", "5 = ", "5 => ", "\\boxed{5}\n\n", "$\\boxed{5}$\n\n",
                                  "Next question:\n", "\\text{M}", "2.(6)", "\"5\" ", "Wait, it is six. ",
                                  "\\boxed{5} [6] ", "<|user|>", "<|im_start|>\n", "<start_of_turn>"])
def test_a_megabyte_of_lists_loops_and_drifts_is_read_in_bounded_time(unit: str) -> None:
    # (A run of turn tokens with no words before them was read in quadratic time: 4.7 s for a megabyte.)
    text = unit * (1_000_000 // len(unit))
    start = time.perf_counter()
    for output in (text, "The answer is \\boxed{5}." + text, "<answer>" + text[:100_000] + "</answer>"):
        assert score(output, "5") in (0, 1)
    assert time.perf_counter() - start < 30


# Red team 11: lists whose values are written alike (a noun, quotes, bold, a gloss), more false-equation marks,
# scales after closing marks, repeating decimals in brackets, more invented turns.
WRITTEN_ALIKE = ["Answer: {h} apples, {g} apples", "The answer is {h} (x); {g} (y).", "\\boxed{{{h}}} (x) {g} (y)",
                 "The total is {h} apples and {g} apples.", "<answer>{h} USD, {g} USD</answer>", "#### {h} cm; {g} cm",
                 "The total is \u201c{h}\u201d, \u201c{g}\u201d.", "<answer>**{h}**, **{g}**</answer>",
                 "Answer: {h} dollars and {g} dollars"]


@SETTINGS
@given(g=values, form=st.sampled_from(WRITTEN_ALIKE))
def test_values_written_alike_in_a_list_are_no_answer(g: int, form: str) -> None:
    text = LEAD + form.format(g=g, h=g + 1)
    assert score(text, str(g)) == score(text, str(g + 1)) == 0


@pytest.mark.parametrize(("text", "reference"), [
    ("After 3 days, 6 remain.", "6"), ("After 3 days, 6.", "6"), ("Answer: 5 apples, and she ate them.", "5"),
    ("The answer is 5 people, 3 of whom are women.", "5"), ("He bought 3 apples and 6 pears.", "6"),
    ("The answer is 5 (five).", "5"), ("The total is \u201c6\u201d.", "6"),
    ("The answer is 12 apples; the rest are pears.", "12"),
])
def test_a_value_with_its_noun_or_gloss_alone_is_the_answer(text: str, reference: str) -> None:
    assert score(LEAD + text, reference) == 1


@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("The answer is 3 ==> 5.", "5", False), ("Answer: 3 =: 5", "5", False), ("#### 3 ::= 5", "5", False),
    ("<answer>3 --> 5</answer>", "5", False), ("The answer is 3 =? 5.", "5", False),
    ("The answer is 3 ~= 5.", "5", False),
    ("$\\boxed{5}$M", "5", False), ("**5**M", "5", False), ("\\[\\boxed{5}\\]M", "5", False),
    ("The temperature is 300K.", "300", True), ("$\\boxed{300}\\text{ K}$.", "300", True),
    ("The answer is 5 \u2a09 10^3.", "5", False), ("The answer is 5\u842c.", "50000", True),
    ("It costs 5 lac rupees.", "500000", True), ("The answer is 5 Tsd.", "5000", True),
    ("The answer is 5 milliard.", "5000000000", True), ("It weighs 3\u5343\u514b.", "3", True),
    ("The answer is 0.[3].", "0", False), ("The answer is 0.[3].", "1/3", True), ("\\boxed{0.[3]}", "1/3", True),
    ("$0.\\bar{3}$", "1/3", True), ("The answer is 2.(6).", "8/3", True), ("It is 5.(6 ways)", "5", True),
])
def test_marks_scales_and_repeating_parts_after_a_value(text: str, reference: str, credited: bool) -> None:
    assert score(LEAD + text, reference) == int(credited)


@pytest.mark.parametrize("drift", ["### Input:\nnext\n### Response:\n{x}", "Input: next\nOutput: {x}",
                                   "Prompt: next\nCompletion: {x}", "Question 2\n{x}",
                                   "GPT4 Correct User: next<|end_of_turn|>GPT4 Correct Assistant: {x}"])
def test_more_invented_turns_after_the_answer_leave_none(drift: str) -> None:
    text = LEAD + "The answer is \\boxed{7}.\n\n" + drift.format(x="\\boxed{5}")
    assert score(text, "7") == score(text, "5") == 0


@pytest.mark.parametrize("text", ["5\u201dK", "5\\%\u4e2d\u6587 or 6", "5\u201d\n\u00e9 or {\"answer\": \u00b7%",
                                  "5%\u00e9, +\\text{M}\u201dTherefore", "$\\boxed{12}$\u3002Check: 12.\u3002\u7b54"])
def test_byte_offsets_of_the_list_readers_stay_on_characters(text: str) -> None:
    # A fuzz of the new readers found a noun's length taken in another string than its own and a bracket's
    # width assumed one byte; each panic was caught and scored "internal error".
    assert verify(text, "5")["reason"] != "internal error"
    assert verify(LEAD + "The answer is " + text, "5")["reason"] != "internal error"


# Red team 12: a bracket after a space remarks on a prose expression (never a factor, never leaving its first
# number); a reference written as a bare comma list is read both as MATH's list and as a decimal comma.
@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("The answer is 3/4 (simplified).", "0.75", True), ("The answer is 3/4 (simplified).", "3", False),
    ("#### 3/4 (in lowest terms)", "3/4", True), ("The answer is 5^2 (simplified).", "5", False),
    ("The answer is 5^2 (simplified).", "25", True), ("The answer is 7/4 (1.75).", "7/4", True),
    ("The answer is 7/4 (1.8).", "7/4", False), ("The answer is 42 / 43 (depends).", "42", False),
    ("So 2 (3 + 4) = 14.", "14", True),
])
def test_a_bracket_after_a_prose_expression_is_a_remark(text: str, reference: str, credited: bool) -> None:
    assert score(LEAD + text, reference) == int(credited)


@pytest.mark.parametrize(("text", "reference", "credited"), [
    ("$\\boxed{2,3}$", "2,3", True), ("\\boxed{-2, 1}", "-2,1", True), ("\\boxed{10, 20}", "10,20", True),
    ("\\boxed{(1, 2)}", "1,2", True), ("\\boxed{1, 3}", "1,2", False), ("1.22", "1,22", True),
    ("\\boxed{1000}", "1,000", True), ("\\boxed{1000.99}", "1000,99", True),
])
def test_a_reference_written_as_a_bare_comma_list(text: str, reference: str, credited: bool) -> None:
    assert score(text, reference) == int(credited)


@pytest.mark.parametrize(("text", "reference"), [
    ("The total is 1,250 + 1,250 = 2,500.", "2500"), ("So the answer is 3,000 - 1,200 = 1,800.", "1800"),
    ("He earns 2 * \\$1,500 = \\$3,000.", "3000"), ("Cost per day is 35 \u00b7 4 = 140.", "140"),
    ("So \u221a16 = 4.", "4"), ("The remainder is 17 mod 5 = 2.", "2"),
])
def test_a_computation_cut_short_by_a_mark_is_no_false_equation(text: str, reference: str) -> None:
    # A fresh review found the false-equation rule taking `250` in `1,250 + 1,250 = 2,500` as the other side.
    assert score(LEAD + text, reference) == 1


@pytest.mark.parametrize(("tail", "credited"), [
    ("User: Are you sure?\nAssistant: No, it is 43.", False), ("User: Thanks!", True),
    ("Human: ok\nAssistant: Glad to help.", True),
])
def test_a_number_in_a_turn_invented_after_the_answer_is_another_answer(tail: str, credited: bool) -> None:
    assert score(LEAD + "So \\boxed{42}\n\n" + tail, "42") == int(credited)
