"""A symbolic math verifier that never evaluates model text: Math-Verify-style equivalence judgements
(``\\frac12`` = ``0.5``, ``\\sqrt{27}`` = ``3\\sqrt3``, intervals, sets, tuples, equations, percentages,
multiple choice) computed in Rust with bounded work per answer.

The rules (exact rational/radical arithmetic, relative tolerance 1e-9 otherwise, variables compared at
fixed random points, structure rules) and every input limit are documented in the README ("Symbolic math
verifier") and in ``crates/verl_ext_core/src/mathverify/``. Data source ``math_verify`` is scored with
:func:`verify` by ``compute_score`` and the ``verl_ext`` reward manager.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from verl_ext import _core
from verl_ext.exceptions import InputTypeError, InvalidInputError

__all__ = ["Verification", "math_equal", "math_equal_batch", "verify", "verify_batch"]


class Verification(TypedDict):
    """What :func:`verify` returns (the keys of verl's math_dapo result, plus ``reason``)."""

    score: float
    acc: bool
    pred: str
    reason: str


def _texts(name: str, values: Sequence[Any]) -> list[str]:
    if isinstance(values, str):
        raise InputTypeError(f"{name} must be a sequence of str, got a str")
    out = list(values)
    for i, v in enumerate(out):
        if not isinstance(v, str):
            raise InputTypeError(f"{name}[{i}] must be a str, got {type(v).__name__}")
    return out


def _pairs(a_name: str, a: Sequence[Any], b_name: str, b: Sequence[Any]) -> tuple[list[str], list[str]]:
    left, right = _texts(a_name, a), _texts(b_name, b)
    if len(left) != len(right):
        raise InvalidInputError(f"{a_name} and {b_name} must have the same length, got {len(left)} and {len(right)}")
    return left, right


def _threads(num_threads: int) -> int:
    if num_threads < 0:
        raise InvalidInputError(f"num_threads must be >= 0, got {num_threads}")
    return num_threads


def math_equal(prediction: str, reference: str) -> bool:
    """Whether the answer ``prediction`` is mathematically equivalent to ``reference``.

    Both are bare answers (what would be inside ``\\boxed{}``). Malformed or over-limit input is simply
    not equal; nothing is ever evaluated as code.
    """
    return math_equal_batch([prediction], [reference], num_threads=1)[0]


def math_equal_batch(predictions: Sequence[str], references: Sequence[str], *, num_threads: int = 0) -> list[bool]:
    """:func:`math_equal` over pairs, on Rust threads with the GIL released (``num_threads=0``: all cores)."""
    left, right = _pairs("predictions", predictions, "references", references)
    return [equal for equal, _ in _core.math_equal_batch(left, right, _threads(num_threads))]


def _verification(score: float, pred: str | None, reason: str) -> Verification:
    return {"score": score, "acc": score > 0.0, "pred": pred or "", "reason": reason}


def verify(solution_str: str, ground_truth: str) -> Verification:
    """Extract the final answer of ``solution_str`` and judge it against ``ground_truth``.

    The answer is the last ``\\boxed{}``/``\\fbox{}``, else Minerva's ``Final Answer: The final answer is
    X. I hope it is correct.``, else the last ``Answer:`` line. Returns ``score`` (1.0 or 0.0), ``acc``,
    ``pred`` (the extracted answer, ``""`` when none) and ``reason``.
    """
    return verify_batch([solution_str], [ground_truth], num_threads=1)[0]


def verify_batch(solution_strs: Sequence[str], ground_truths: Sequence[str], *, num_threads: int = 0
                 ) -> list[Verification]:
    """:func:`verify` over a batch, on Rust threads with the GIL released (``num_threads=0``: all cores)."""
    left, right = _pairs("solution_strs", solution_strs, "ground_truths", ground_truths)
    return [_verification(*r) for r in _core.math_verify_batch(left, right, _threads(num_threads))]
