"""Code rewards on the verl-ext sandbox, scored like verl's ``prime_code`` (``continuous=True``).

verl's procedure, reproduced step for step: the solution is the text after the last ```` ```python ````
fence; all tests run in one process (per-test alarm 5 s, process limit 6 s); if every test passes the
score is 1.0, otherwise the first 10 tests run again one per process (alarm 10 s, limit 11 s) and the
score is the fraction that passed. (Here the one-test runs start whatever the first run's verdict, so that
no execution can learn a verdict from whether they run: see ``_score_prime_one``.) The alarms (and the
assert-based sources' limit) can be changed with ``timeouts`` (``reward_kwargs.code_timeout_s``,
``code_test_timeout_s``, ``code_assert_timeout_s``);
rewards equal verl's only at the defaults. Programs are wrapped, imported and guarded inside the sandbox exactly
as prime_code does (``harness.py``), so they behave the same.

What differs is where the verdict is made: the sandboxed program only reports its outputs (return
values, or captured stdout) on a private channel; this module, in the trainer process, compares them
with the expected outputs, which never enter the sandbox, using prime_code's comparison rules. So a
program that exits early, prints pass markers, returns an object whose ``__eq__`` always says yes, or
patches builtins or the harness, gains nothing: return values are reduced to plain data before they
leave the sandbox, and only a completed run (exactly the records the harness writes, ending with its
``done`` record, after a clean exit) counts. The channel is read with ``verl_ext.sandbox.protocol``,
which treats it as hostile: whatever a program writes there costs the trainer a bounded, small amount
of CPU and memory and at worst fails that sample; scoring one sample never raises into the batch
(only a host that cannot sandbox at all raises, so code rewards fail closed).

Deliberate differences from prime_code: (1) subclasses of ``int``/``str``/``list``/... are compared by
their base value, so forged equality earns nothing; (2) programs run with the sandbox's limits
(``memory_mb``, default 1024) where prime_code has no memory limit; (3) each test's output may
have only a bounded size, from its expected output (``protocol.record_budget``: printed output 4x the
expected text's encoded bytes + 1 KiB; return values 8x + 1 KiB and 4x its structure nodes + 64,
``protocol.node_budget``): a run with a longer output is a failed run (its tests count as errors) even
where prime_code's whitespace- and float-tolerant comparison would have accepted that output (floats
printed with many more digits than expected, many blank lines or trailing spaces); (4) return values nested deeper than
``protocol.MAX_DEPTH`` (a tuple counts 2 levels, a dict 3) are an error of that test.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from verl_ext import sandbox
from verl_ext.exceptions import InputTypeError, SandboxCancelledError, SandboxUnavailableError
from verl_ext.reward.code_rows import (
    ASSERT_SOURCES,
    PRIME_CODE_SOURCES,
    AssertTests,
    PrimeTests,
    Unreadable,
    read_assert_tests,
    read_prime_tests,
    read_tests,
)
from verl_ext.reward.options import PROCESS_SLACK_S, CodeTimeouts
from verl_ext.sandbox import protocol

__all__ = ["CODE_SOURCES", "CodeScore", "CodeTimeouts", "extract_solution", "ground_truth_problem",
           "score_assert_tests", "score_code", "score_prime_code"]

CODE_SOURCES = PRIME_CODE_SOURCES | ASSERT_SOURCES
#: Wall-clock limit of one assert-based execution.
ASSERT_TIMEOUT_S = 5.0
#: prime_code's alarms: all tests at once, then each of the first few on its own.
FIRST_PASS_ALARM_S = 5
PER_TEST_ALARM_S = 10
#: prime_code re-runs at most this many tests one by one.
PER_TEST_MAX = 10
#: The limits used when a scorer is given no ``timeouts`` (prime_code's).
DEFAULT_TIMEOUTS = CodeTimeouts(first_pass_s=FIRST_PASS_ALARM_S, per_test_s=PER_TEST_ALARM_S, assert_s=ASSERT_TIMEOUT_S)

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CodeScore:
    """Score and per-test counts of one completion (counts come from the run that decided the score)."""

    score: float
    passed: int
    failed: int
    timeout: int
    error: int
    #: The row's ground truth has no tests to run (:mod:`verl_ext.reward.code_rows`): counted in
    #: ``reward_extra_info["unscorable"]``.
    unscorable: bool = False


#: What a sample that could not be run or scored gets.
ERROR_SCORE = CodeScore(0.0, 0, 0, 0, 1)
#: What a sample of a row with no tests to run gets.
UNSCORABLE = CodeScore(0.0, 0, 0, 0, 1, unscorable=True)

def extract_solution(completion: str) -> str:
    """prime_code's extraction: the text after the last ```` ```python ```` fence, up to the next fence."""
    return completion.split("```python")[-1].split("```")[0]


def ground_truth_problem(data_source: str, ground_truth: Any) -> str | None:
    """Why ``ground_truth`` cannot be scored for the code source ``data_source`` (every sample of it is
    unscorable and gets 0), or None when it has tests the scorer runs. ``verl-ext doctor --config`` reports
    these; the scorer reads rows with the same function (:func:`verl_ext.reward.code_rows.read_tests`)."""
    found = read_tests(data_source, ground_truth)
    return found.reason if isinstance(found, Unreadable) else None


# ---- prime_code's comparison rules -------------------------------------------------------------

def _int_keys(expected: Any) -> Any:
    """JSON turns dict keys into strings; prime_code turns them back (when all are integers)."""
    try:
        if isinstance(expected, dict):
            expected = [{int(k): v for k, v in expected.items()}]
    except (TypeError, ValueError):
        pass
    try:
        if isinstance(expected[0], dict):
            expected = [{int(k): v for k, v in expected[0].items()}]
    except (TypeError, ValueError, KeyError, IndexError):
        pass
    return expected


def _call_matches(output: Any, expected: Any) -> bool:
    if isinstance(output, tuple):
        output = list(output)
    ok = output == expected
    if isinstance(expected, list) and expected:
        ok = ok or output == expected[0]
    try:
        if isinstance(output[0], tuple):
            ok = ok or [list(x) for x in output] == expected[0]
    except (TypeError, IndexError, KeyError):
        pass
    return ok is True


def _is_int_like(v: Any) -> bool:
    return isinstance(v, int) or (isinstance(v, str) and v.isdigit())


def _close(x: float, y: float) -> bool:
    """``numpy.isclose`` with ``allclose``'s defaults (rtol 1e-5, atol 1e-8; NaN never close; inf only to itself)."""
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= 1e-8 + 1e-5 * abs(y)


def _floats_close(lines: list[str], wanted: list[str]) -> bool:
    """prime_code's float check: every line converts and is close to its expected line (it converts all
    lines first; any conversion error fails the check, as does any pair that differs). Pair by pair, so an
    output that differs early costs no conversion of the rest."""
    try:
        return all(_close(float(a), float(b)) for a, b in zip(lines, wanted, strict=True))
    except (ValueError, OverflowError):
        return False


#: Line boundaries of ``str.splitlines`` besides "\n" in ASCII ("\r\n" counts as one; the others are not ASCII).
_ASCII_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def _only_newline_breaks(text: str) -> bool:
    """Whether "\n" is the only line boundary in ``text``: then ``"\n".join(text.splitlines())`` is ``text``
    less one final "\n", and equal to it once both are stripped."""
    return text.isascii() and not any(c in text for c in _ASCII_BREAKS)


#: Every ASCII character but "\n" to "x": a non-empty line of the result ends in "x\n" or at its end in "x".
_LINE_CONTENT = str.maketrans("".join(chr(c) for c in range(128) if c != 10), "x" * 127)


def _stdin_matches(printed: str, expected: Any) -> bool:
    """prime_code's cascade for stdin/stdout problems: exact after stripping, then line-wise, then as
    floats, then as token sets."""
    if isinstance(expected, list):
        expected = "\n".join(expected)
    wanted = [x.strip() for x in expected.split("\n") if len(x)]
    if _only_newline_breaks(printed):
        return _matches_by_counts(printed, expected, wanted)
    lines = printed.splitlines()
    if "\n".join(lines).strip() == expected.strip():
        return True
    if "\n".join(map(str.strip, lines)).strip() == expected.strip():  # lines are str: as x.strip() for each
        return True
    if lines == [expected]:
        return True
    if lines == [wanted] or lines == wanted:
        return True
    return _nonempty_lines_match(list(filter(None, lines)), wanted)  # the non-empty lines (C speed)


def _matches_by_counts(printed: str, expected: str, wanted: list[str]) -> bool:
    """The cascade where "\n" is the only line break in ``printed`` (see :func:`_only_newline_breaks`), with
    each line-wise check tried only where C-speed counts allow it: an output of many short or empty lines
    (what a byte budget allows) costs no Python object per line. Same verdicts as the cascade."""
    stripped, target = printed.strip(), expected.strip()
    if stripped == target:
        return True
    # Stripping each line keeps the newlines between the first and last non-blank characters, and blank
    # lines outside them are stripped away: the check needs only the stripped text's lines.
    if stripped.count("\n") == target.count("\n") and "\n".join(map(str.strip, stripped.split("\n"))) == target:
        return True
    lines_n = printed.count("\n") + (0 if not printed or printed.endswith("\n") else 1)  # len(splitlines())
    lines = None
    if lines_n in (1, len(wanted)):
        lines = printed.split("\n")[:lines_n]  # splitlines() here
        if lines == [expected] or lines == wanted:
            return True
    masked = printed.translate(_LINE_CONTENT)  # ASCII to ASCII: one pass at C speed
    if masked.count("x\n") + masked.endswith("x") not in (1, len(wanted)):  # the non-empty lines
        return False
    # filter(None, splitlines()) here; each empty piece of split() is the shared empty string.
    return _nonempty_lines_match(list(filter(None, printed.split("\n") if lines is None else lines)), wanted)


def _nonempty_lines_match(lines: list[str], wanted: list[str]) -> bool:
    """The cascade's last steps, on the output's non-empty lines: equal to the expected lines, or as floats."""
    if lines == [wanted] or lines == wanted:
        return True
    if len(lines) != len(wanted):
        return False  # the float comparison below zips them strictly: it would raise, caught as False
    # As floats unless every pair is integer-like. prime_code finally compares the lines with token sets of the
    # expected lines: a list of strings never equals a list of sets unless both are empty, accepted above.
    return not all(_is_int_like(a) and _is_int_like(b) for a, b in zip(lines, wanted, strict=True)) \
        and _floats_close(lines, wanted)


def _verdicts(result: sandbox.ExecResult, tests: dict[str, Any], indices: Sequence[int], budget: int) -> list[Any]:
    """prime_code's per-test results (True, False, -1 error or timeout, -2 compile error) of one run,
    plus timeouts as the string "timeout" (counted as -1 in the score). Outputs are decoded test by test,
    each within its own test's bounds, and none after the first failing test (prime_code stops there)."""
    fn_name = tests.get("fn_name")
    report = None
    if result.status == "ok" and not result.channel_overflow:  # over its budget: a failed run
        report = protocol.decode_prime(result.channel, len(indices), budget, call_based=fn_name is not None)
    garbled = ["timeout" if result.status == "timeout" else -1] * len(indices)
    if report is None:
        # Killed, crashed, exited early or garbled: prime_code finds no result and fails every test.
        return garbled
    if report.compile_error:
        return [-2]
    out: list[Any] = []
    for position, index in enumerate(indices):
        expected = tests["outputs"][index]
        if not isinstance(tests["inputs"][index], str) or not isinstance(expected, str):
            return [-1] * len(indices)  # prime_code asserts both are strings when it reaches the test
        if position >= len(report):
            if report.error is not None:
                out.append("timeout" if report.error == "timeout" else -1)
            break
        try:
            output = report.output(position, expected)
        except protocol.Malformed:
            return garbled  # not what the harness writes, or over the test's bounds: a failed run
        try:
            if fn_name is not None:
                ok = _call_matches(output, _int_keys(json.loads(expected)))
            else:
                ok = _stdin_matches(str(output), expected)
        except Exception:  # noqa: BLE001 - a malformed expected output fails the test, as in prime_code
            return [-1] * len(indices)
        out.append(ok)
        if not ok:
            break
    return out


def _require_text(completions: Sequence[Any]) -> None:
    for i, c in enumerate(completions):
        if not isinstance(c, str):
            raise InputTypeError(f"solution_str[{i}] must be a str, got {type(c).__name__}")


def _alarm_s(seconds: float) -> int:
    """The harness's alarm for a limit of ``seconds``: prime_code's ``signal.alarm`` takes whole seconds, so a
    fractional limit is rounded up (at least 1 s; the run's wall-clock limit keeps the fraction)."""
    return max(1, math.ceil(seconds))


def _payload(code: str, tests: dict[str, Any], indices: Sequence[int], alarm_s: int) -> bytes:
    request = {"code": code, "fn_name": tests.get("fn_name"), "inputs": [tests["inputs"][i] for i in indices],
               "alarm_s": alarm_s}
    return b"prime\n" + json.dumps(request).encode("utf-8", "surrogatepass")


def _score_prime_one(code: str, tests: dict[str, Any], base: sandbox.Limits, timeouts: CodeTimeouts,
                     epoch: int | None = None) -> CodeScore:
    """prime_code's procedure for one completion: all tests in one run; if any fails, each of the first
    few again in a run of its own (those in parallel: each is a separate process in verl too). Each run
    may write only its byte budget on the result channel (``protocol.prime_budget``), each output only
    its test's (``protocol.record_budget``).

    The one-test runs start whatever the first run's verdict, as soon as it ended and before that verdict is
    read: when they ran only after a failure, their start told any execution able to sense them (a sample of
    the same problem running beside them, over a channel the sandbox cannot close: timing, the kernel's
    wake at thread exit) that the answer was wrong, and a second sample could answer from that. Now no
    execution's schedule depends on any verdict. The score is prime_code's: 1.0 when the first run passed,
    else the one-test runs' fraction; a passing sample pays for the one-test runs it does not need."""
    n = len(tests["inputs"])
    budget = protocol.prime_budget(tests["outputs"][:n], call_based=tests.get("fn_name") is not None)
    # A run is killed only past a fixed size; its budget, which comes from the expected outputs, only says how
    # much of its channel is kept (the sandbox drops the rest and flags the run, which then fails). Killed at
    # its budget, a program learnt the length of its hidden answer from when it died (third red team).
    first_limits = sandbox.Limits(**{**base.__dict__, "timeout_s": timeouts.first_pass_s + PROCESS_SLACK_S,
                                     "channel_limit": protocol.PRIME_BUDGET_CAP})
    first = _payload(code, tests, range(n), _alarm_s(timeouts.first_pass_s))
    first_run = sandbox.run_payloads([first], [b""], first_limits, 1, channel_limits=[budget], epoch=epoch)[0]
    # prime_code builds the one-test cases from inputs/outputs only: without `fn_name`, so call-based
    # problems are re-run as stdin programs here, exactly as verl does.
    singles = [{"inputs": [tests["inputs"][t]], "outputs": [tests["outputs"][t]]} for t in range(min(n, PER_TEST_MAX))]
    budgets = [protocol.prime_budget(single["outputs"], call_based=False) for single in singles]
    # Each re-run may write only its own test's budget (not the largest test's), and each run's bytes are
    # dropped as soon as its verdict is known: the trainer holds at most the first run's budget and the sum of
    # the tests' budgets.
    per_limits = sandbox.Limits(**{**base.__dict__, "timeout_s": timeouts.per_test_s + PROCESS_SLACK_S,
                                   "channel_limit": protocol.PRIME_BUDGET_CAP})
    alarm = _alarm_s(timeouts.per_test_s)
    runs = sandbox.run_payloads([_payload(code, single, [0], alarm) for single in singles],
                                [b""] * len(singles), per_limits, len(singles), channel_limits=budgets, epoch=epoch)
    verdicts = _verdicts(first_run, tests, list(range(n)), budget)
    del first_run
    if len(verdicts) == n and all(v is True for v in verdicts):
        return CodeScore(1.0, n, 0, 0, 0)
    results: list[Any] = []
    for position, (single, single_budget) in enumerate(zip(singles, budgets, strict=True)):
        run, runs[position] = runs[position], _DROPPED
        results.extend(_verdicts(run, single, [0], single_budget) or [-1])
        del run
    passed = sum(v is True for v in results)
    timed_out = sum(v == "timeout" for v in results)
    errors = sum(v in (-1, -2) for v in results)  # bools never equal -1/-2
    failed = len(results) - passed - timed_out - errors
    return CodeScore(passed / max(len(results), 1), passed, failed, timed_out, errors)


#: What stands in a list of runs for one whose bytes were dropped once its verdict was known.
_DROPPED = sandbox.ExecResult(status="ok", exit_code=0, signal=None, stdout="", stderr="", wall_ms=0.0, cpu_ms=0.0)


def _isolated(score_one: Callable[[], CodeScore]) -> CodeScore:
    """One sample's score, or an error score (0) when scoring it failed: a sample never raises into its
    batch. Only a host that cannot sandbox at all raises (code rewards fail closed)."""
    try:
        return score_one()
    except (SandboxUnavailableError, SandboxCancelledError):
        raise  # no host to score on, or the batch was stopped (Ctrl-C): no verdict to give
    except Exception as e:  # noqa: BLE001 - whatever went wrong, this one sample scores 0
        _log.warning("verl_ext: a code sample could not be scored and gets 0.0: %s: %s", type(e).__name__,
                     str(e)[:200])
        return ERROR_SCORE


def score_prime_code(
    completions: Sequence[str],
    ground_truths: Sequence[Any],
    *,
    limits: sandbox.Limits | None = None,
    num_threads: int = 0,
    timeouts: CodeTimeouts | None = None,
    epoch: int | None = None,
) -> list[CodeScore]:
    """Score completions against prime_code test JSON (``{"inputs", "outputs", "fn_name"?}``).

    Completions are scored concurrently, each through prime_code's stages as soon as the previous one
    ended (a slow first run holds up nothing else); the sandbox bounds the executions running at once.
    ``limits`` sets memory and output caps (its ``timeout_s`` is replaced by prime_code's budgets);
    ``num_threads`` bounds the completions in flight (0: the sandbox's default). ``timeouts`` replaces
    prime_code's alarms (``first_pass_s``: each test of the run with all tests, default
    :data:`FIRST_PASS_ALARM_S`; ``per_test_s``: each test re-run alone, default :data:`PER_TEST_ALARM_S`);
    a run is killed :data:`PROCESS_SLACK_S` after its alarm, and a fractional alarm is rounded up to
    whole seconds (prime_code's ``signal.alarm``). Scores equal verl's only at the defaults.
    ``epoch``: see :func:`score_code`.
    """
    from concurrent.futures import ThreadPoolExecutor

    base = limits or sandbox.Limits()
    limit = timeouts or DEFAULT_TIMEOUTS
    num_threads = sandbox.checked_threads(num_threads)
    _require_text(completions)
    parsed = [read_prime_tests(gt) for gt in ground_truths]
    codes = [extract_solution(c) for c in completions]
    tests_of = {i: t.tests for i, t in enumerate(parsed) if isinstance(t, PrimeTests)}
    todo = list(tests_of)
    scores = [ERROR_SCORE if isinstance(t, PrimeTests) else UNSCORABLE for t in parsed]
    if not todo:
        return scores
    sandbox.require_isolation()  # once, before any thread starts
    workers = min(len(todo), num_threads or sandbox.default_concurrency())
    epoch = sandbox.cancel_epoch() if epoch is None else epoch

    def score_one(i: int) -> CodeScore:
        return _isolated(partial(_score_prime_one, codes[i], tests_of[i], base, limit, epoch))

    # Ctrl-C (or a cancel from another thread) stops the running executions at once; every later run of this
    # scoring is cancelled as it starts (they share its epoch), and the queued samples are dropped, so the
    # pool's shutdown waits for nothing.
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="verl-ext-code") as pool, \
            sandbox.stop_on_interrupt():
        try:
            for i, score in zip(todo, pool.map(score_one, todo), strict=True):
                scores[i] = score
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return scores


def _assert_request(completion: str, ground_truth: Any, nonce: str) -> bytes | None:
    """The harness request of one assert-based sample (None for a ground truth without tests to run:
    :func:`verl_ext.reward.code_rows.read_tests`)."""
    spec = read_assert_tests(ground_truth)
    if not isinstance(spec, AssertTests):
        return None
    return protocol.assert_request(extract_solution(completion), spec.test, spec.entry_point, nonce, spec.prompt)


def _assert_score(run: sandbox.ExecResult, nonce: str) -> CodeScore:
    if run.status == "ok" and protocol.assert_passed(run.channel, nonce):
        return CodeScore(1.0, 1, 0, 0, 0)
    if run.status == "timeout":
        return CodeScore(0.0, 0, 0, 1, 0)
    if run.status == "ok" and protocol.assert_failed(run.channel, nonce):
        return CodeScore(0.0, 0, 1, 0, 0)  # reported by the checking process, never read from stderr
    return ERROR_SCORE


def score_assert_tests(
    completions: Sequence[str],
    ground_truths: Sequence[Any],
    *,
    limits: sandbox.Limits | None = None,
    num_threads: int = 0,
    timeouts: CodeTimeouts | None = None,
    epoch: int | None = None,
) -> list[CodeScore]:
    """HumanEval-style scoring: 1.0 when ``check(<entry_point>)`` of the ground truth's test code returns.

    Each execution's wall-clock limit is ``timeouts.assert_s`` (default :data:`ASSERT_TIMEOUT_S`).

    The program runs in a process of its own, forked before the harness reads the test code and the
    nonce (``protocol.assert_request``: they come after the program on the request pipe, whose end that
    process closes before the program runs), so neither is ever in its memory. ``check`` runs in the
    harness's process, which never runs the program's code, holds the result channel alone and is
    non-dumpable (the program's process cannot open its ``/proc`` memory or descriptors; where that
    cannot be set, the run reports nothing and scores 0). When the ground truth carries the dataset's
    ``prompt`` (HumanEval's does), the helpers it defines that the test uses (``poly``, ``encode_cyclic``,
    ``encode_shift``) are the prompt's own definitions, run in the checking process: a program that
    redefines them (a wrong decoder with an encoder rewritten to match) changes nothing. The other names the
    test uses from the program (the entry point, even one named like a builtin, and helpers when no prompt
    is given) are calls over a pipe: arguments and return values cross it as plain data, subclasses of
    ``int``/``str``/``list``/... reduced to their base value (other types are an error); a module is the
    checking process's own copy, of a fixed list of standard modules. So objects whose ``__eq__`` always
    says yes, rebound builtins, ``exec`` or ``compile``, trace hooks, and frame, ``gc`` or memory scans
    reach nothing that decides the verdict. A run counts only with a clean exit *and* exactly the
    harness's records with the per-run random nonce, written after ``check`` returned: early exits,
    crashes, timeouts, pass markers and made-up records earn nothing. Deliberate differences from
    running the test in the program's namespace: arguments are copies (a test that inspects how the
    program mutated them sees no change), and returned generators, functions or other objects are an
    error. In the opt-in
    ``rlimits-only`` sandbox mode a program running as a user with CAP_SYS_PTRACE could still reach
    the harness's process.
    """
    import secrets

    base = limits or sandbox.Limits()
    num_threads = sandbox.checked_threads(num_threads)
    _require_text(completions)
    nonces = [secrets.token_hex(16) for _ in completions]
    requests = [_assert_request(c, gt, nonce) for c, gt, nonce in zip(completions, ground_truths, nonces, strict=True)]
    valid = [(i, r) for i, r in enumerate(requests) if r is not None]
    scores = [ERROR_SCORE if r is not None else UNSCORABLE for r in requests]
    if not valid:
        return scores
    # A passing run writes exactly header, pass(nonce), done: nothing longer is read.
    lim = sandbox.Limits(**{**base.__dict__, "timeout_s": (timeouts or DEFAULT_TIMEOUTS).assert_s,
                            "channel_limit": protocol.assert_budget(nonces[0])})
    epoch = sandbox.cancel_epoch() if epoch is None else epoch
    try:
        runs = sandbox.run_payloads([r for _, r in valid], [b""] * len(valid), lim, num_threads, epoch=epoch)
    except (SandboxUnavailableError, SandboxCancelledError):
        raise
    except Exception:  # noqa: BLE001 - one execution failed to start: run each alone so the rest still count
        def alone(payload: bytes, nonce: str) -> CodeScore:
            return _assert_score(sandbox.run_payloads([payload], [b""], lim, 1, epoch=epoch)[0], nonce)

        for i, payload in valid:
            scores[i] = _isolated(partial(alone, payload, nonces[i]))
        return scores
    for (i, _), run in zip(valid, runs, strict=True):
        scores[i] = _isolated(partial(_assert_score, run, nonces[i]))
    return scores


def score_code(
    data_sources: Sequence[str],
    completions: Sequence[str],
    ground_truths: Sequence[Any],
    *,
    limits: sandbox.Limits | None = None,
    num_threads: int = 0,
    timeouts: CodeTimeouts | None = None,
    epoch: int | None = None,
) -> list[CodeScore]:
    """Score code samples of any of :data:`CODE_SOURCES`, each family in one parallel batch (``timeouts``:
    see :func:`score_prime_code` and :func:`score_assert_tests`; default prime_code's). ``epoch``: the
    :func:`verl_ext.sandbox.cancel_epoch` the scoring belongs to (default: when it begins): a
    :func:`verl_ext.sandbox.cancel_running` after it stops every run of the scoring, those not yet started
    included."""
    out: list[CodeScore | None] = [None] * len(completions)
    epoch = sandbox.cancel_epoch() if epoch is None else epoch
    for family, scorer in ((PRIME_CODE_SOURCES, score_prime_code), (ASSERT_SOURCES, score_assert_tests)):
        idx = [i for i, ds in enumerate(data_sources) if ds in family]
        if idx:
            got = scorer([completions[i] for i in idx], [ground_truths[i] for i in idx], limits=limits,
                         num_threads=num_threads, timeouts=timeouts, epoch=epoch)
            for i, g in zip(idx, got, strict=True):
                out[i] = g
    missing = [ds for ds, o in zip(data_sources, out, strict=True) if o is None]
    if missing:
        raise ValueError(f"not code data sources: {sorted(set(map(str, missing)))}")
    return [o for o in out if o is not None]
