"""The HumanEval-style harness compiles a test so that it goes on after a failure (``assert_rewrite.recorded_asserts``);
a test's verdict must stay a plain run's (``exec(program); exec(test); check(entry_point)``).

``data/assert_rewrite_parity.json`` holds the shapes a fresh-context red team (round 5 of the reward path) found
flipping verdicts under an earlier, wider rewrite: tests that consume a shared iterator in `any`/`or`, guards
like `x is None or helper(x)`, walrus conditions, helpers reached indirectly from a `try`, `__future__` imports,
exception messages, arguments and the prompt's own exception classes, threads calling the program, recursive
reference helpers, a `while` left by a `raise`; and those a second red team (round 6) found against the narrowed
one: a call named `any`/`all` that is not the builtin, an OrderedDict's order and a Counter's missing keys,
exceptions with custom constructors, messages, class names and standard-library classes, helper classes whose
methods raise by protocol, walrus and class scopes; and a third's (round 7): a wrong program whose value cannot
cross or whose process ends (sys.exit, KeyboardInterrupt, an integer over the digit limit) must not look like
the exception a test expects. Right and wrong programs alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verl_ext import sandbox
from verl_ext.reward.code import score_assert_tests

if not sandbox.capabilities()["full_isolation"]:
    pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}", allow_module_level=True)

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "assert_rewrite_parity.json").read_text())


def plain_verdict(case: dict[str, Any]) -> float:
    """A plain run's score: 1.0 when check() returns."""
    scope: dict[str, Any] = {"__name__": "__main__"}
    try:
        exec(case["program"], scope)  # noqa: S102 - the fixed programs of this file's cases
        exec(case["test"], scope)  # noqa: S102
        scope["check"](scope[case["entry_point"]])
    except BaseException:  # noqa: BLE001 - any failure scores 0 (the cases' own SystemExit, KeyboardInterrupt too)
        return 0.0
    return 1.0


def test_verdicts_equal_a_plain_runs() -> None:
    truths = [{k: c[k] for k in ("test", "entry_point", "prompt") if k in c} for c in CASES]
    scores = score_assert_tests([c["program"] for c in CASES], truths)
    got = {c["name"]: s.score for c, s in zip(CASES, scores, strict=True)}
    want = {c["name"]: plain_verdict(c) for c in CASES}
    assert got == want
    assert 0.0 in want.values() and 1.0 in want.values()  # wrong programs and right ones
