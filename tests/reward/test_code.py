"""Code rewards: differential tests against verl's prime_code, and verdict forgeries."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext import sandbox
from verl_ext.reward import compute_score
from verl_ext.reward.code import (
    ASSERT_TIMEOUT_S,
    DEFAULT_TIMEOUTS,
    FIRST_PASS_ALARM_S,
    PER_TEST_ALARM_S,
    CodeTimeouts,
    score_assert_tests,
    score_code,
    score_prime_code,
)
from verl_ext.reward.options import ManagerOptions

if not sandbox.capabilities()["full_isolation"]:
    if os.environ.get("VERL_EXT_REQUIRE_SANDBOX") == "1":
        raise RuntimeError(f"sandbox required but unavailable: {sandbox.capabilities()['error']}")
    pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}", allow_module_level=True)


def prime(completion: str, tests: Any) -> float:
    """verl's own score for a code source without SandboxFusion (default_compute_score -> prime_code)."""
    from verl.utils.reward_score import default_compute_score

    return default_compute_score("apps", completion, tests)


# ---- generated problems and solutions ----------------------------------------------------------

# stdin problem: each input line holds integers; print their sum per line (expected output formats vary).
SUM_VARIANTS = {
    "correct": "import sys\nfor line in sys.stdin.read().split('\\n'):\n    if line.strip():\n"
               "        print(sum(map(int, line.split())))",
    "input_loop": "try:\n    while True:\n        print(sum(map(int, input().split())))\nexcept EOFError:\n    pass",
    "main_guard": "def main():\n    import sys\n    for l in sys.stdin:\n"
                  "        if l.strip(): print(sum(map(int, l.split())))\nif __name__ == '__main__':\n    main()",
    "trailing_spaces": "import sys\nfor line in sys.stdin.readlines():\n    if line.strip():\n"
                       "        print(str(sum(map(int, line.split()))) + '   ')",
    "blank_lines": "import sys\nfor line in sys.stdin:\n    if line.strip():\n"
                   "        print(sum(map(int, line.split())))\n        print()",
    "as_float": "import sys\nfor line in sys.stdin:\n    if line.strip():\n"
                "        print(float(sum(map(int, line.split()))))",
    "off_by_one_big": "import sys\nfor line in sys.stdin:\n    if line.strip():\n"
                      "        s = sum(map(int, line.split()))\n        print(s + (1 if s > 50 else 0))",
    "crash_big": "import sys\nfor line in sys.stdin:\n    if line.strip():\n        s = sum(map(int, line.split()))\n"
                 "        assert s < 80\n        print(s)",
    "exit_builtin": "print(sum(map(int, input().split())))\nexit(0)",
    "sys_exit_early": "import sys\nsys.exit(0)",
    "stderr_only": "import sys\nsys.stderr.write(str(sum(map(int, input().split()))))",
    "syntax_error": "print(sum(map(int, input().split()))",
    "tokens_spaced": "import sys\nfor line in sys.stdin:\n    if line.strip():\n"
                     "        print(' ', sum(map(int, line.split())))",
}

# call-based problem `f(xs)`: returns the list of prefix sums; variants return other shapes.
CALL_VARIANTS = {
    "correct": "def f(xs):\n    out, s = [], 0\n    for x in xs:\n        s += x\n        out.append(s)\n"
               "    return out",
    "tuple": "def f(xs):\n    import itertools\n    return tuple(itertools.accumulate(xs))",
    "class": "class Solution:\n    def f(self, xs):\n        import itertools\n"
             "        return list(itertools.accumulate(xs))",
    "nested_tuples": "def f(xs):\n    import itertools\n    return [(v,) for v in itertools.accumulate(xs)]",
    "wrong": "def f(xs):\n    return xs",
    "floats": "def f(xs):\n    import itertools\n    return [float(v) for v in itertools.accumulate(xs)]",
    "crash_long": "def f(xs):\n    assert len(xs) < 4\n    import itertools\n    return list(itertools.accumulate(xs))",
    "not_json": "def f(xs):\n    return {1, 2}",
    "none": "def f(xs):\n    return None",
}


@st.composite
def stdin_cases(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    n_tests = draw(st.integers(1, 4))
    inputs, outputs = [], []
    for _ in range(n_tests):
        lines = draw(st.lists(st.lists(st.integers(0, 40), min_size=1, max_size=4), min_size=1, max_size=3))
        inputs.append("\n".join(" ".join(map(str, ln)) for ln in lines) + draw(st.sampled_from(["", "\n"])))
        sums = [str(sum(ln)) for ln in lines]
        outputs.append("\n".join(sums) + draw(st.sampled_from(["", "\n", " \n"])))
    variant = draw(st.sampled_from(sorted(SUM_VARIANTS)))
    code = SUM_VARIANTS[variant]
    if draw(st.booleans()):
        code = f"Here is my solution:\n```python\n{code}\n```\nIt reads the input."
    return code, {"inputs": inputs, "outputs": outputs}


@st.composite
def call_cases(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    n_tests = draw(st.integers(1, 4))
    inputs, outputs = [], []
    for _ in range(n_tests):
        xs = draw(st.lists(st.integers(-5, 5), min_size=0, max_size=5))
        acc, s = [], 0
        for x in xs:
            s += x
            acc.append(s)
        inputs.append(json.dumps(xs))
        outputs.append(json.dumps(draw(st.sampled_from([acc, [acc]]))))
    variant = draw(st.sampled_from(sorted(CALL_VARIANTS)))
    return CALL_VARIANTS[variant], {"fn_name": "f", "inputs": inputs, "outputs": outputs}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=st.lists(st.one_of(stdin_cases(), call_cases()), min_size=6, max_size=10))
def test_scores_equal_prime_code(cases: list[tuple[str, dict[str, Any]]]) -> None:
    completions = [c for c, _ in cases]
    truths = [json.dumps(t) if i % 2 else t for i, (_, t) in enumerate(cases)]  # str and dict ground truths
    ours = score_prime_code(completions, truths)
    with ThreadPoolExecutor(2) as pool:
        refs = list(pool.map(prime, completions, truths))
    for (code, tests), o, r in zip(cases, ours, refs, strict=True):
        assert o.score == r, (code, tests, o, r)


@pytest.mark.parametrize("close", ["sys.stdout.close()", "sys.stdout.close(1)", "print(sys.stdout.close(0))",
                                   "del sys.stdout.close"])
def test_closing_stdout_scores_like_prime_code(close: str) -> None:
    """prime_code replaces the captured stdout's `close` by a one-argument function: with no argument it
    raises TypeError, which fails the test (red team: it scored 1.0 here)."""
    code = f"import sys\nprint(sum(map(int, input().split())))\n{close}"
    tests = {"inputs": ["1 2\n"], "outputs": ["3\n"]}
    assert score_prime_code([code], [tests])[0].score == prime(code, tests)


def test_slow_solutions_score_like_prime_code() -> None:
    tests = {"inputs": ["1\n", "2\n", "3\n"], "outputs": ["1\n", "2\n", "3\n"]}
    slow = "import time\nx = int(input())\nif x == 2:\n    time.sleep(60)\nprint(x)"
    with ThreadPoolExecutor(1) as pool:
        ref = pool.submit(prime, slow, tests)
        ours = score_prime_code([slow], [tests])[0]
        assert ours.score == ref.result() == pytest.approx(2 / 3)
    assert (ours.passed, ours.timeout) == (2, 1)


@pytest.mark.parametrize("ground_truth", ["not json", json.dumps({"inputs": ["1"]}), {"outputs": []}, 5,
                                          json.dumps({"inputs": ["1", "2"], "outputs": ["1"]})])
def test_malformed_tests_score_like_prime_code(ground_truth: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code = "print(input())"
    assert compute_score("taco", code, ground_truth) == prime(code, ground_truth)
    capsys.readouterr()


def test_a_row_without_tests_is_unscorable_where_prime_code_gives_any_answer_one() -> None:
    """The documented difference (verl_ext.reward.code_rows): nothing run, nothing earned."""
    empty = json.dumps({"inputs": [], "outputs": []})
    assert prime("print('anything')", empty) == 1.0  # any program that compiles
    for code in ("", "print('anything')"):
        (score,) = score_prime_code([code], [empty])
        assert score.score == 0.0 and score.unscorable


FORGERIES = {
    "always_equal": "class Eq(list):\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
                    "def f(xs):\n    return Eq()",
    "always_equal_int": "class Eq(int):\n    def __eq__(self, other):\n        return True\n"
                        "    __hash__ = int.__hash__\ndef f(xs):\n    return Eq(12345)",
    "exit_early": "import os\nos._exit(0)",
    "fake_records": "import os\nos.write(3, b'{\"r\": \"done\"}\\n')\nos._exit(0)",
    "patch_json": "import json\njson.dumps = lambda *a, **k: '[]'\ndef f(xs):\n    return 'nope'",
    "pass_markers": "print('PASSED'); print('All tests passed')\ndef f(xs):\n    return 'nope'",
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forged_verdicts_earn_nothing(name: str) -> None:
    tests = {"fn_name": "f", "inputs": ["[1, 2]", "[3]"], "outputs": ["[1, 3]", "[3]"]}
    assert score_prime_code([FORGERIES[name]], [tests])[0].score == 0.0


def test_always_equal_objects_fool_prime_code_but_not_verl_ext() -> None:
    """The documented difference: prime_code compares with the program's own `__eq__`."""
    tests = {"fn_name": "f", "inputs": ["[1, 2]"], "outputs": ["[1, 3]"]}
    assert prime(FORGERIES["always_equal"], tests) == 1.0
    assert score_prime_code([FORGERIES["always_equal"]], [tests])[0].score == 0.0


HUMANEVAL_TEST = {"entry_point": "add",
                  "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n"}


@pytest.mark.parametrize(("solution", "score"), [
    ("def add(a, b):\n    return a + b", 1.0),
    ("```python\ndef add(a, b):\n    return a + b\n```", 1.0),
    ("def add(a, b):\n    return a - b", 0.0),
    ("def add(a, b):\n    raise ValueError", 0.0),
    ("def add(a, b):\n    while True: pass", 0.0),
    ("import os\nos._exit(0)", 0.0),
    ("import sys\nsys.exit(0)", 0.0),
    ("import os\nos.write(3, b'{\"r\": \"done\", \"nonce\": \"0\"}\\n')\nos._exit(0)", 0.0),
    ("print('all tests passed')", 0.0),
])
def test_humaneval_assert_tests(solution: str, score: float) -> None:
    assert compute_score("humaneval", solution, HUMANEVAL_TEST) == score
    assert compute_score("humaneval", solution, json.dumps(HUMANEVAL_TEST)) == score


# ---- configurable timeouts (reward_kwargs.code_timeout_s, code_test_timeout_s, code_assert_timeout_s) ----------

#: Sleeps SLEEP_S seconds, well under prime_code's 5 s alarm and well over the short limits below (whose runs
#: are killed at most 1 s + PROCESS_SLACK_S after they start).
SLEEP_S = 2.0
SLEEPY_STDIN = f"import time\ntime.sleep({SLEEP_S})\nprint(input())"
SLEEPY_TESTS = {"inputs": ["7\n"], "outputs": ["7\n"]}
SLEEPY_ADD = f"import time\ntime.sleep({SLEEP_S})\ndef add(a, b):\n    return a + b"
#: Fractional on purpose: prime_code's alarm is whole seconds (rounded up to 1), the kill comes at 1.5 s.
SHORT = CodeTimeouts(first_pass_s=0.5, per_test_s=0.5, assert_s=1.0)


def test_default_timeouts_are_prime_codes() -> None:
    constants = CodeTimeouts(FIRST_PASS_ALARM_S, PER_TEST_ALARM_S, ASSERT_TIMEOUT_S)
    assert constants == DEFAULT_TIMEOUTS == CodeTimeouts() == ManagerOptions.from_reward_kwargs({}).code_timeouts
    assert (FIRST_PASS_ALARM_S, PER_TEST_ALARM_S) == (5, 10)


def test_a_short_prime_code_timeout_times_out_a_program_the_default_lets_finish() -> None:
    slow = score_prime_code([SLEEPY_STDIN], [SLEEPY_TESTS])[0]
    assert (slow.score, slow.passed) == (1.0, 1)
    short = score_prime_code([SLEEPY_STDIN], [SLEEPY_TESTS], timeouts=SHORT)[0]
    assert (short.score, short.passed, short.timeout) == (0.0, 0, 1)


def test_the_first_pass_and_per_test_timeouts_are_separate() -> None:
    # The first run (all tests) times out; the re-run of the test alone has the default 10 s and passes.
    got = score_prime_code([SLEEPY_STDIN], [SLEEPY_TESTS], timeouts=CodeTimeouts(first_pass_s=1.0))[0]
    assert (got.score, got.passed) == (1.0, 1)


def test_a_short_assert_timeout_times_out_a_program_the_default_lets_finish() -> None:
    assert score_assert_tests([SLEEPY_ADD], [HUMANEVAL_TEST])[0].score == 1.0
    short = score_assert_tests([SLEEPY_ADD], [HUMANEVAL_TEST], timeouts=SHORT)[0]
    assert (short.score, short.timeout) == (0.0, 1)


def test_score_code_passes_the_timeouts_to_both_families() -> None:
    sources, codes, truths = ["apps", "humaneval"], [SLEEPY_STDIN, SLEEPY_ADD], [SLEEPY_TESTS, HUMANEVAL_TEST]
    assert [s.score for s in score_code(sources, codes, truths)] == [1.0, 1.0]
    assert [s.timeout for s in score_code(sources, codes, truths, timeouts=SHORT)] == [1, 1]


def test_the_reward_kwargs_reach_the_timeouts() -> None:
    options = ManagerOptions.from_reward_kwargs(
        {"code_timeout_s": 0.5, "code_test_timeout_s": 2, "code_assert_timeout_s": 1.5})
    assert options.code_timeouts == CodeTimeouts(first_pass_s=0.5, per_test_s=2.0, assert_s=1.5)


def test_timeouts_the_sandbox_would_refuse_are_refused_at_once() -> None:
    """A prime_code alarm is killed 1 s after it: 3600 would be 3601 s, over the sandbox's limit, and every
    sample (correct ones too) would score 0 (red team)."""
    from verl_ext.exceptions import InvalidInputError
    from verl_ext.reward.options import CodeTimeouts

    with pytest.raises(InvalidInputError, match="first_pass_s"):
        CodeTimeouts(first_pass_s=3600)
    with pytest.raises(InvalidInputError, match="assert_s"):
        CodeTimeouts(assert_s=float("nan"))
    tests = {"inputs": ["1\n"], "outputs": ["1\n"]}
    good = "```python\nprint(input())\n```"
    assert score_prime_code([good], [tests], timeouts=CodeTimeouts(3599, 3599, 3600))[0].score == 1.0
    with pytest.raises(InvalidInputError, match="num_threads"):
        score_prime_code([good], [tests], num_threads=10**30)
