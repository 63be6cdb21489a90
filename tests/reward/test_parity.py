"""Differential tests: verl-ext's Rust scorers against verl's own Python functions."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from verl.utils.reward_score import default_compute_score

from tests.reward.strategies import solutions
from verl_ext.reward import compute_score, compute_scores

FAMILIES = {
    "gsm8k": ["openai/gsm8k"],
    "math_reward": ["lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"],
    "math_dapo": ["math_dapo", "math", "math_dapo_reasoning", "aime2024", "aime"],
}
# >= 2000 generated samples per data-source family, as the parity claim requires.
EXAMPLES_PER_FAMILY = 2500

PARITY = settings(
    max_examples=EXAMPLES_PER_FAMILY,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def verl_score(*args: Any) -> Any:
    """verl's result, or the exception type it raises."""
    try:
        return default_compute_score(*args)
    except Exception as e:  # noqa: BLE001 - the exception type is the result here
        return type(e)


def assert_same(ours: Any, ref: Any, case: Any) -> None:
    assert type(ours) is type(ref), (case, ours, ref)
    if isinstance(ref, dict):
        assert list(ours) == list(ref), (case, ours, ref)
        for key in ref:
            assert type(ours[key]) is type(ref[key]) and ours[key] == ref[key], (case, key, ours, ref)
    else:
        assert ours == ref, (case, ours, ref)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_single_scores_equal_verls(family: str, capsys: pytest.CaptureFixture[str]) -> None:
    stats = {"correct": 0, "total": 0}

    @PARITY
    @given(data_source=st.sampled_from(FAMILIES[family]), case=solutions(family))
    def check(data_source: str, case: tuple[str, str]) -> None:
        solution, gt = case
        ref = verl_score(data_source, solution, gt)
        ours = compute_score(data_source, solution, gt)
        assert_same(ours, ref, (data_source, solution, gt))
        score = ref["score"] if isinstance(ref, dict) else ref
        stats["total"] += 1
        stats["correct"] += score == 1.0

    check()
    capsys.readouterr()  # verl's math_reward prints caught exceptions
    # The generator must produce both verdicts often, or the parity claim would be hollow.
    assert stats["total"] >= EXAMPLES_PER_FAMILY
    assert 0.05 * stats["total"] < stats["correct"] < 0.95 * stats["total"], stats


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(st.sampled_from(sorted(FAMILIES)).flatmap(
    lambda f: st.tuples(st.sampled_from(FAMILIES[f]), solutions(f))),
                      min_size=1, max_size=64),
       threads=st.sampled_from([0, 1, 2, 3]))
def test_batch_equals_verl_per_answer_loop(batch: list[tuple[str, tuple[str, str]]], threads: int) -> None:
    sources = [ds for ds, _ in batch]
    sols = [c[0] for _, c in batch]
    gts = [c[1] for _, c in batch]
    ours = compute_scores(sources, sols, gts, num_threads=threads)
    for ds, s, g, o in zip(sources, sols, gts, ours, strict=True):
        assert_same(o, verl_score(ds, s, g), (ds, s, g))


# Every character Python treats as a digit or as whitespace, against verl's isdigit/strip/`\s` uses.
SPECIAL_CHARS = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isdigit() or chr(c).isspace()]


@pytest.mark.parametrize("data_source", ["math_dapo", "lighteval/MATH", "openai/gsm8k"])
def test_python_unicode_tables_match_on_every_digit_and_space(data_source: str) -> None:
    sols, gts = [], []
    for c in SPECIAL_CHARS:
        for template in ("Answer{c}:{c}1,{c}{c}", "Answer: {c}1,2{c}", "\\boxed{{{c}1,2}}", "#### 1{c}"):
            sols.append(template.format(c=c))
            gts.append(f"{c}1" if c.isdigit() else "12")
    ours = compute_scores([data_source] * len(sols), sols, gts, num_threads=2)
    for s, g, o in zip(sols, gts, ours, strict=True):
        assert_same(o, verl_score(data_source, s, g), (s, g))


@pytest.mark.parametrize(
    ("data_source", "solution", "gt"),
    [
        ("lighteval/MATH", "\\boxed{" + "1" * 4300 + "/2}", "\\frac{" + "1" * 4300 + "}{2}"),
        ("lighteval/MATH", "\\boxed{" + "1" * 4301 + "/2}", "\\frac{" + "1" * 4301 + "}{2}"),
        ("lighteval/MATH", "\\boxed{" + "1" * 4301 + "/2}", "1" * 4301 + "/2"),
        ("lighteval/MATH", "\\boxed{-0/1}", "\\frac{-0}{1}"),
        ("lighteval/MATH", "\\boxed{\\sqrt}", "\\sqrt"),
        ("lighteval/MATH", "\\boxed{5 \\text{ m} \\text{ s}}", "5 \\text{ m} \\text{ s}"),
        ("math_dapo", "Answer:\n\n", "x"),
        ("math_dapo", "answer: [INVALID]\n\\boxed{[INVALID]}", "[INVALID]"),
        ("openai/gsm8k", "#### 1\ud800", "1"),
        ("math_dapo", "Answer: \udfff2", "\udfff2"),
        ("math_dapo", "Answer: \U0010f8002", "\U0010f8002"),
    ],
)
def test_edge_cases_equal_verls(data_source: str, solution: str, gt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_same(compute_score(data_source, solution, gt), verl_score(data_source, solution, gt), solution[:80])
