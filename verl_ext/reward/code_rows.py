"""One reader of a code row's ground truth, shared by the code scorer and ``verl-ext doctor``: a row the scorer
cannot run is exactly a row doctor reports, with the same reason.

A ground truth may be a JSON string, UTF-8 JSON bytes or a dict (verl's prime_code reads the first two with
``json.loads``, and a dataset loaded from Parquet may hand either over). prime_code sources need
``{"inputs": [...], "outputs": [...], "fn_name"?}`` with at least one test and at least as many outputs as
inputs (a string stands for the list of its characters, as prime_code indexes it); assert-based sources
``{"test": str, "entry_point": str, "prompt"?: str}``.

Where verl differs: a row with no tests (``{"inputs": [], "outputs": []}``) gets 1.0 from verl's prime_code for
any answer, the empty one included. Here it is unscorable: 0.0, counted in ``reward_extra_info["unscorable"]``,
and an ERROR in doctor, so a dataset that lost its tests is found before a run learns to print nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["ASSERT_SOURCES", "PRIME_CODE_SOURCES", "AssertTests", "PrimeTests", "Unreadable", "read_assert_tests",
           "read_prime_tests", "read_tests"]

#: verl's data sources that prime_code scores.
PRIME_CODE_SOURCES = frozenset({"codecontests", "apps", "codeforces", "taco"})
#: Assert-based sources: ground truth ``{"test": <code defining check(candidate)>, "entry_point": <name>}``.
ASSERT_SOURCES = frozenset({"humaneval"})


@dataclass(frozen=True)
class PrimeTests:
    """prime_code's tests: ``inputs`` and ``outputs`` lists (``fn_name`` for call-based problems)."""

    tests: dict[str, Any]


@dataclass(frozen=True)
class AssertTests:
    """An assert-based problem: the test code defining ``check(candidate)``, the entry point, and the prompt
    whose helper definitions the test uses (HumanEval's), if given."""

    test: str
    entry_point: str
    prompt: str | None


@dataclass(frozen=True)
class Unreadable:
    """Why a ground truth cannot be scored (each sample of its row is unscorable: 0.0)."""

    reason: str


def _load(ground_truth: Any) -> dict[str, Any] | Unreadable:
    """The ground truth as a JSON object, or an :class:`Unreadable`."""
    if isinstance(ground_truth, dict):
        return ground_truth
    if not isinstance(ground_truth, (str, bytes, bytearray)):
        return Unreadable(f"a {type(ground_truth).__name__}, not a JSON string, JSON bytes or a dict")
    try:
        spec = json.loads(ground_truth)
    except (ValueError, RecursionError, MemoryError):
        # UnicodeDecodeError is a ValueError; a ground truth nested 100k deep is a RecursionError.
        return Unreadable("a string that is not JSON")
    return spec if isinstance(spec, dict) else Unreadable(f"a JSON {type(spec).__name__}, not an object")


def read_tests(data_source: str, ground_truth: Any) -> PrimeTests | AssertTests | Unreadable:
    """The tests of a code row of ``data_source`` (one of the code sources), or why it has none to run."""
    return read_assert_tests(ground_truth) if data_source in ASSERT_SOURCES else read_prime_tests(ground_truth)


def read_assert_tests(ground_truth: Any) -> AssertTests | Unreadable:
    """An assert-based row's test, entry point and prompt, or why it has none to run."""
    spec = _load(ground_truth)
    if isinstance(spec, Unreadable):
        return spec
    test, entry, prompt = spec.get("test"), spec.get("entry_point"), spec.get("prompt")
    if not isinstance(test, str) or not isinstance(entry, str):
        return Unreadable('not an object with string "test" and "entry_point"')
    if prompt is not None and not isinstance(prompt, str):
        return Unreadable(f'an object whose "prompt" is a {type(prompt).__name__}, not a string')
    if not test.strip():
        return Unreadable('an object with an empty "test": nothing checks the answer')
    return AssertTests(test, entry, prompt)


def read_prime_tests(ground_truth: Any) -> PrimeTests | Unreadable:
    """A prime_code row's tests, or why it has none to run."""
    spec = _load(ground_truth)
    if isinstance(spec, Unreadable):
        return spec
    # prime_code indexes `inputs` and `outputs`: a string is a list of one-character tests to it.
    tests = {**spec, **{k: list(spec[k]) for k in ("inputs", "outputs") if isinstance(spec.get(k), str)}}
    inputs, outputs = tests.get("inputs"), tests.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(outputs) < len(inputs):
        return Unreadable('not an object with "inputs" and "outputs" lists (at least as many outputs as inputs)')
    if not inputs:
        return Unreadable("an object with no tests (verl scores any answer 1.0; verl-ext: unscorable, 0.0)")
    fn_name = tests.get("fn_name")
    if fn_name is not None and (not isinstance(fn_name, str) or not fn_name.isidentifier()):
        return Unreadable(f'an object whose "fn_name" is {str(fn_name)[:40]!r}, not a function name')
    if not all(isinstance(i, str) for i in inputs):
        return Unreadable('an object whose "inputs" are not all strings (each is a test\'s stdin or JSON arguments)')
    try:
        # What the harness sends must be plain JSON: no bytes, sets, NaN, integers past Python's digit limit,
        # nor nesting past the interpreter's recursion limit.
        json.dumps(tests, allow_nan=False)
    except (TypeError, ValueError, RecursionError, MemoryError) as e:
        return Unreadable(f"an object the scorer cannot send to a program as JSON ({type(e).__name__})")
    return PrimeTests(tests)
