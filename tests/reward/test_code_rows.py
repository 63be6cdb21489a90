"""One reader of code rows (``verl_ext.reward.code_rows``): the scorer and ``verl-ext doctor`` never disagree on
which rows can be scored, and a row without tests is unscorable rather than a free 1.0 (where verl differs)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from verl_ext.doctor.routing import _ground_truth_problem
from verl_ext.reward.code import score_code
from verl_ext.reward.code_rows import AssertTests, PrimeTests, Unreadable, read_tests

PRIME = json.dumps({"inputs": ["1\n"], "outputs": ["1\n"]})
HUMANEVAL = {"test": "def check(candidate):\n    assert candidate(1) == 1\n", "entry_point": "f",
             "prompt": "def f(x):\n"}

#: (data source, ground truth, readable): rows the red team found the scorer and doctor judged apart, and
#: their neighbours.
ROWS: list[tuple[str, Any, bool]] = [
    ("codecontests", PRIME, True),
    ("codecontests", PRIME.encode(), True),  # bytes of JSON: json.loads reads them, so both read them
    ("codecontests", bytearray(PRIME.encode()), True),
    ("codecontests", json.loads(PRIME), True),
    ("codecontests", {"inputs": "ab", "outputs": "ab"}, True),  # strings: prime_code indexes their characters
    ("codecontests", {"inputs": [], "outputs": []}, False),  # no tests: verl gives any answer 1.0
    ("codecontests", "", False),
    ("codecontests", b"\xff\xfe", False),
    ("codecontests", "[1, 2]", False),
    ("codecontests", {"inputs": ["1"], "outputs": []}, False),
    ("codecontests", 7, False),
    ("codecontests", None, False),
    ("codecontests", "[" * 100_000, False),
    ("humaneval", json.dumps(HUMANEVAL), True),
    ("humaneval", HUMANEVAL, True),
    ("humaneval", {**HUMANEVAL, "prompt": None}, True),
    ("humaneval", {**HUMANEVAL, "prompt": 5}, False),  # a prompt that is not a string
    ("humaneval", {**HUMANEVAL, "test": "   "}, False),
    ("humaneval", {"test": HUMANEVAL["test"]}, False),
    ("humaneval", json.dumps(HUMANEVAL).encode(), True),
]


@pytest.mark.parametrize(("data_source", "ground_truth", "readable"), ROWS)
def test_the_scorer_and_doctor_read_rows_alike(data_source: str, ground_truth: Any, readable: bool) -> None:
    found = read_tests(data_source, ground_truth)
    assert isinstance(found, (PrimeTests, AssertTests)) == readable, found
    doctor = _ground_truth_problem("code", data_source, ground_truth)
    assert (doctor is None) == readable, doctor
    if not readable:
        assert isinstance(found, Unreadable) and found.reason in doctor[0]  # type: ignore[index]
        # The scorer gives such a row's samples 0, marked unscorable, without running anything.
        (score,) = score_code([data_source], ["```python\nprint(input())\n```"], [ground_truth])
        assert score.score == 0.0 and score.unscorable


def test_a_row_without_tests_is_an_error_in_doctor(tmp_path: Any) -> None:
    import pandas as pd

    from verl_ext.doctor.data import _check_parquet
    from verl_ext.doctor.findings import ERROR

    path = tmp_path / "train.parquet"
    pd.DataFrame({"data_source": ["codecontests"] * 2, "prompt": [[{"role": "user", "content": "q"}]] * 2,
                  "reward_model": [{"ground_truth": json.dumps({"inputs": [], "outputs": []})},
                                   {"ground_truth": PRIME}]}).to_parquet(path)
    findings = _check_parquet("data.train_files", path, "data_source", "prompt", lambda ds: "code", False)
    errors = [f for f in findings if f.level == ERROR]
    assert len(errors) == 1 and "no tests" in errors[0].message, findings


def test_the_manager_counts_rows_without_tests_as_unscorable(tiny_tokenizer: Any) -> None:
    from tests.reward.test_manager import items, manager, run_all

    rows = [("codecontests", "```python\nprint(1)\n```", json.dumps({"inputs": [], "outputs": []}))]
    out = asyncio.run(run_all(manager(tiny_tokenizer), items(tiny_tokenizer, rows)))
    assert out[0]["reward_score"] == 0.0
    assert out[0]["reward_extra_info"]["unscorable"] == 1


@pytest.mark.parametrize("tests", [
    {"inputs": [b"1\n"], "outputs": ["1\n"]},  # bytes: not JSON
    {"inputs": ["1\n"], "outputs": [float("nan")]},
    {"inputs": ["1\n"], "outputs": [10 ** 5000]},
    {"inputs": ["1\n"], "outputs": [{1, 2}]},
    {"inputs": [5], "outputs": ["5"]},
    {"inputs": [None], "outputs": ["None"]},
    {"inputs": ["1\n"], "outputs": ["1\n"], "fn_name": 5},
    {"inputs": ["1\n"], "outputs": ["1\n"], "fn_name": ""},
])
def test_rows_the_scorer_could_only_fail_are_unscorable_in_both(tests: dict[str, Any]) -> None:
    """Red team 3: rows doctor passed while every sample of them scored 0 (or a bad fn_name ran as stdin)."""
    found = read_tests("codecontests", tests)
    assert isinstance(found, Unreadable), found
    assert _ground_truth_problem("code", "codecontests", tests) is not None


def test_deeply_nested_inputs_are_unscorable_in_both() -> None:
    deep: Any = "1"
    for _ in range(5000):
        deep = [deep]
    tests = {"inputs": ["1\n"], "outputs": [deep]}
    assert isinstance(read_tests("codecontests", tests), Unreadable)
