"""verl_ext.bench.bounded: a judge over many cases in bounded child processes. A case that allocates without
end, hangs or kills its process is judged False and costs only itself; the others keep their verdicts."""

from __future__ import annotations

import os
import time

import pytest

from verl_ext.bench.bounded import judge_bounded


def _judge(case: str) -> bool:
    if case == "allocate":
        blocks = []
        while True:  # the bound turns this into MemoryError (or kills the child)
            blocks.append(bytearray(64 << 20))
    if case == "hang":
        time.sleep(3600)
    if case == "die":
        os._exit(3)
    if case == "raise":
        raise MemoryError
    return case == "yes"


def test_every_case_gets_a_verdict_and_hostile_ones_cost_only_themselves() -> None:
    cases = ["yes", "allocate", "no", "hang", "yes", "die", "yes", "raise", "no", "yes"]
    seen = []
    started = time.monotonic()
    got = judge_bounded(_judge, cases, extra_bytes=256 << 20, case_timeout_s=2.0, on_case=lambda: seen.append(1))
    assert got == [True, False, False, False, True, False, True, False, False, True]
    assert len(seen) == len(cases)
    assert time.monotonic() - started < 60  # one 2 s stall, not an hour


def test_no_cases() -> None:
    assert judge_bounded(_judge, []) == []


def test_a_judge_that_cannot_start_is_an_error_not_all_false(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that dies before its bound is set is not a case's doing: the bench stops with an error instead
    of judging every case False."""
    def refuse() -> None:
        raise PermissionError("no new session here")

    monkeypatch.setattr(os, "setsid", refuse)  # the forked child inherits it
    with pytest.raises(RuntimeError, match="did not start"):
        judge_bounded(_judge, ["yes", "no"])
