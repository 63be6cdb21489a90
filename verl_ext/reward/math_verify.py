"""A symbolic math verifier that never evaluates model text: a drop-in for Math-Verify's
``verify(parse(gold), parse(pred))`` (``\\frac12`` = ``0.5``, ``\\sqrt{27}`` = ``3\\sqrt3``, intervals, sets,
tuples, equations, ratios, percentages, multiple choice) computed in Rust with bounded work per answer.

:func:`verify` reads what Math-Verify's ``parse`` reads, on both sides: ``\\boxed{}`` (several joined by
"and"), "The final answer is …", "Answer: …", ``$…$``/``\\[…\\]``/``\\(…\\)`` blocks, numbers in prose, and a bare
answer such as ``-5``. :func:`math_equal` compares two bare answers. Both take Math-Verify's comparison
options, under its names: ``float_rounding`` (off by default: decimals are exact), ``strict`` and
``allow_set_relation_comp``.

The answer is never mined from text that does not parse, a negated, bounded, hedged or revised answer scores
0, and values are compared without tolerance (exact rational/radical arithmetic, high precision otherwise,
variables at fixed random points), each call within a work budget. The rules and every input limit are
documented in ``docs/math-verifier.md`` and in ``crates/verl_ext_core/src/mathverify/``. Data source
``math_verify`` is scored with :func:`verify` by ``compute_score`` and the ``verl_ext`` reward manager.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from verl_ext import _core
from verl_ext.exceptions import InputTypeError, InvalidInputError

__all__ = ["EXTRACTION_TARGETS", "MAX_FLOAT_ROUNDING", "Verification", "math_equal", "math_equal_batch", "verify",
           "verify_batch"]


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
        if not v.isascii():
            # A lone surrogate cannot cross into Rust: it becomes U+FFFD (and scores 0), not a failed batch.
            out[i] = v.encode("utf-8", "replace").decode("utf-8")
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


#: Largest ``float_rounding`` accepted (decimal places).
MAX_FLOAT_ROUNDING = 100


#: What :func:`verify` can read (Math-Verify's extraction configurations): LaTeX (boxes, math blocks, bare
#: answers), expressions and numbers in prose, choice letters A-E in prose.
EXTRACTION_TARGETS = ("latex", "expr", "string")


def _extraction(extraction: Sequence[str]) -> list[str]:
    if isinstance(extraction, str):
        raise InputTypeError("extraction must be a sequence of str, got a str")
    chosen = list(extraction)
    unknown = [e for e in chosen if e not in EXTRACTION_TARGETS]
    if unknown or not chosen:
        raise InvalidInputError(f"extraction must be a non-empty subset of {EXTRACTION_TARGETS}, got {chosen!r}")
    return chosen


def _options(float_rounding: int | None, strict: bool, allow_set_relation_comp: bool) -> dict[str, Any]:
    if float_rounding is not None and (
        isinstance(float_rounding, bool) or not isinstance(float_rounding, int)
        or not 0 <= float_rounding <= MAX_FLOAT_ROUNDING
    ):
        raise InvalidInputError(
            f"float_rounding must be None or an int in [0, {MAX_FLOAT_ROUNDING}], got {float_rounding!r}")
    for name, flag in (("strict", strict), ("allow_set_relation_comp", allow_set_relation_comp)):
        if not isinstance(flag, bool):
            raise InputTypeError(f"{name} must be a bool, got {type(flag).__name__}")
    return {"float_rounding": float_rounding, "strict": strict, "allow_set_relation_comp": allow_set_relation_comp}


_OPTIONS_DOC = """
    Options (Math-Verify's names and meanings):

    - ``float_rounding``: decimal places to which an answer written as a decimal, and the value it is
      compared with, are rounded (``0.333`` equals ``1/3`` at 3). ``None`` (default, unlike Math-Verify's 6):
      decimals are exact, so ``0.33`` does not equal ``1/3``.
    - ``strict`` (default True): variables matter and a set is not a tuple; False matches variables by
      position (``f(y)=y^2`` equals ``f(x)=x^2``) and compares sets with tuples.
    - ``allow_set_relation_comp`` (default False): a predicted relation may equal a set in the reference
      (``x > 1`` against ``(1, \\infty)``); a relation in the reference always may.
"""


def math_equal(prediction: str, reference: str, *, float_rounding: int | None = None, strict: bool = True,
               allow_set_relation_comp: bool = False) -> bool:
    """Whether the answer ``prediction`` is mathematically equivalent to ``reference``.

    Both are bare answers (what would be inside ``\\boxed{}``). Malformed or over-limit input is simply
    not equal; nothing is ever evaluated as code.
    """
    return math_equal_batch([prediction], [reference], num_threads=1, float_rounding=float_rounding,
                            strict=strict, allow_set_relation_comp=allow_set_relation_comp)[0]


def math_equal_batch(predictions: Sequence[str], references: Sequence[str], *, num_threads: int = 0,
                     float_rounding: int | None = None, strict: bool = True,
                     allow_set_relation_comp: bool = False) -> list[bool]:
    """:func:`math_equal` over pairs, on Rust threads with the GIL released (``num_threads=0``: all cores)."""
    left, right = _pairs("predictions", predictions, "references", references)
    options = _options(float_rounding, strict, allow_set_relation_comp)
    return [equal for equal, _ in _core.math_equal_batch(left, right, _threads(num_threads), **options)]


def _verification(score: float, pred: str | None, reason: str) -> Verification:
    return {"score": score, "acc": score > 0.0, "pred": pred or "", "reason": reason}


def verify(solution_str: str, ground_truth: str, *, float_rounding: int | None = None, strict: bool = True,
           allow_set_relation_comp: bool = False, extraction: Sequence[str] = ("latex", "expr"),
           choices: str = "ABCDE") -> Verification:
    """Find the answer in ``solution_str`` and in ``ground_truth`` alike, and judge them.

    Read as Math-Verify's ``parse`` reads (first that parses, by priority): "The final answer is X. I hope
    it is correct."; the last ``\\boxed{}``/``\\fbox{}`` (boxes joined by "and" or "," are one answer) or
    "final answer … is X", whichever comes last; "answer: X"; "answer … X"; a bare answer (the whole text,
    when it has no ``$``-block and parses, e.g. ``-5``); the last ``$…$``/``$$…$$``/``\\(…\\)``/``\\[…\\]``
    block (blocks joined by "and"/"or"/"," are one answer), or the last number or expression in prose.
    Returns ``score`` (1.0 or 0.0), ``acc``, ``pred`` (the prediction's answer, ``""`` when none) and ``reason``.

    ``extraction`` chooses what is read, as Math-Verify's ``extraction_config`` does: ``"latex"`` (the forms
    above that are LaTeX), ``"expr"`` (numbers and expressions in prose) and ``"string"`` (a choice letter
    after "answer", at the start, or standing alone: for multiple-choice ground truths; ``choices`` are the
    letters, Math-Verify's ``StringExtractionConfig.strings``, A-E by default). A ground truth that is one of
    the ``choices`` (``C``, ``(C)``, ``\\text{(C)}``) has letters read whatever ``extraction`` says, where an answer
    is stated (the last letter anywhere only with ``"string"``).
    """
    return verify_batch([solution_str], [ground_truth], num_threads=1, float_rounding=float_rounding,
                        strict=strict, allow_set_relation_comp=allow_set_relation_comp, extraction=extraction,
                        choices=choices)[0]


def verify_batch(solution_strs: Sequence[str], ground_truths: Sequence[str], *, num_threads: int = 0,
                 float_rounding: int | None = None, strict: bool = True, allow_set_relation_comp: bool = False,
                 extraction: Sequence[str] = ("latex", "expr"), choices: str = "ABCDE") -> list[Verification]:
    """:func:`verify` over a batch, on Rust threads with the GIL released (``num_threads=0``: all cores)."""
    left, right = _pairs("solution_strs", solution_strs, "ground_truths", ground_truths)
    options = _options(float_rounding, strict, allow_set_relation_comp)
    targets = _extraction(extraction)
    if not isinstance(choices, str) or not choices or not all("A" <= c <= "Z" for c in choices):
        raise InvalidInputError(f"choices must be a non-empty str of capital letters A-Z, got {choices!r}")
    return [_verification(*r) for r in _core.math_verify_batch(left, right, _threads(num_threads),
                                                               extraction=targets, choices=choices, **options)]


for _f in (math_equal, verify):
    _f.__doc__ = (_f.__doc__ or "") + _OPTIONS_DOC
