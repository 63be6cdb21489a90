"""Drop-in replacements for ``verl.utils.reward_score.default_compute_score``, backed by the Rust core.

Data sources with a native scorer (``openai/gsm8k``; ``lighteval/MATH``,
``DigitalLearningGmbH/MATH-lighteval``, ``HuggingFaceH4/MATH-500``; ``math_dapo``, ``math``,
``math_dapo_reasoning``, ``aime*``) are scored in Rust with results identical to verl's; the code sources
(``codecontests``, ``apps``, ``codeforces``, ``taco``) run in verl-ext's sandbox with prime_code's scores
(unless a ``sandbox_fusion_url`` is passed, which keeps verl's SandboxFusion path), and ``humaneval``
(assert-based, not a verl source) runs there too. Any other data
source goes to ``fallback``: the user's ``custom_reward_function`` when the manager has one, otherwise
verl's own ``default_compute_score`` (which raises verl's ``NotImplementedError`` for sources verl does
not know either).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from verl_ext import _core

__all__ = ["compute_score", "compute_scores", "native_scorer", "verl_default_compute_score"]

#: A reward function called as verl calls one: keyword arguments ``data_source``, ``solution_str``,
#: ``ground_truth``, ``extra_info`` (plus whatever extra keywords the caller passes).
RewardFn = Callable[..., Any]


def native_scorer(data_source: str) -> str | None:
    """Name of the verl scorer module ported to Rust for ``data_source`` (e.g. ``"gsm8k"``), or None."""
    return _core.native_scorer(data_source)


def verl_default_compute_score(data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any = None,
                               **kwargs: Any) -> Any:
    """verl's ``default_compute_score``, imported on first use (it pulls in verl)."""
    from verl.utils.reward_score import default_compute_score

    return default_compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)


def _call_fallback(fallback: RewardFn | None, data_source: Any, solution_str: Any, ground_truth: Any,
                   extra_info: Any, kwargs: dict[str, Any]) -> Any:
    fn = fallback or verl_default_compute_score
    return fn(data_source=data_source, solution_str=solution_str, ground_truth=ground_truth, extra_info=extra_info,
              **kwargs)


def _is_sandboxed_code(data_source: Any, kwargs: dict[str, Any]) -> bool:
    """Code sources run in verl-ext's sandbox unless the caller routes them to SandboxFusion."""
    from verl_ext.reward.code import CODE_SOURCES

    return isinstance(data_source, str) and data_source in CODE_SOURCES and not kwargs.get("sandbox_fusion_url")


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    *,
    fallback: RewardFn | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    """Score one solution exactly as ``verl.utils.reward_score.default_compute_score`` does.

    Parameters
    ----------
    data_source
        The dataset identifier that selects the scorer.
    solution_str
        The decoded model response.
    ground_truth
        The reference answer (``reward_model["ground_truth"]``).
    extra_info
        Passed to ``fallback`` only; native scorers ignore it, as verl's do.
    fallback
        Called (as verl calls a reward function) for data sources without a native scorer; defaults
        to verl's ``default_compute_score``.
    **kwargs
        Passed to ``fallback`` only (e.g. ``sandbox_fusion_url``).

    Returns
    -------
    float or dict
        ``float`` for gsm8k and the MATH sources, ``{"score", "acc", "pred"}`` for math_dapo, and
        whatever ``fallback`` returns otherwise.

    Raises
    ------
    verl_ext.exceptions.InputTypeError
        Where verl raises on a wrong type (e.g. a non-string ground truth for math_dapo).
    NotImplementedError
        From verl's ``default_compute_score`` for a data source nobody knows.
    """
    results, _ = _core.score_batch([data_source], [solution_str], [ground_truth], None, 1)
    result = results[0]
    if result is None and _is_sandboxed_code(data_source, kwargs):
        from verl_ext.reward.code import score_code

        return score_code([data_source], [solution_str], [ground_truth], num_threads=1)[0].score
    if result is None:
        return _call_fallback(fallback, data_source, solution_str, ground_truth, extra_info, kwargs)
    if isinstance(result, BaseException):
        raise result
    return result


def compute_scores(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    *,
    fallback: RewardFn | None = None,
    num_threads: int = 0,
    **kwargs: Any,
) -> list[float | dict[str, Any]]:
    """Score a batch: native data sources on Rust threads with the GIL released, the rest via ``fallback``.

    Each element equals ``compute_score(data_sources[i], solution_strs[i], ground_truths[i],
    extra_infos[i])``. ``num_threads=0`` uses ``VERL_EXT_NUM_THREADS`` or all cores. The first sample
    whose scoring raises makes the whole call raise that exception.
    """
    n = len(data_sources)
    if extra_infos is not None and len(extra_infos) != n:
        from verl_ext.exceptions import InvalidInputError

        raise InvalidInputError(f"extra_infos has {len(extra_infos)} entries for {n} samples")
    results, _ = _core.score_batch(data_sources, solution_strs, ground_truths, None, num_threads)
    code = [i for i, r in enumerate(results) if r is None and _is_sandboxed_code(data_sources[i], kwargs)]
    if code:
        from verl_ext.reward.code import score_code

        scored = score_code([data_sources[i] for i in code], [solution_strs[i] for i in code],
                            [ground_truths[i] for i in code], num_threads=num_threads)
        for i, s in zip(code, scored, strict=True):
            results[i] = s.score
    out: list[Any] = []
    for i, result in enumerate(results):
        if result is None:
            extra = extra_infos[i] if extra_infos is not None else None
            result = _call_fallback(fallback, data_sources[i], solution_strs[i], ground_truths[i], extra, kwargs)
        elif isinstance(result, BaseException):
            raise result
        out.append(result)
    return out
