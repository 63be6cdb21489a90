"""What scores each data source (the user's functions, verl-ext's sandbox, a native scorer or verl's own),
and which ground truths a scorer cannot read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _routing(options: Any, has_functions: bool) -> Callable[[str], str]:
    """What scores a data source: ``python`` (the user's functions), ``code`` (verl-ext's sandbox, verl's
    prime_code procedure), a native scorer's name (``gsm8k``, ``math_reward``, ``math_dapo``,
    ``math_verify``), or ``""`` (verl's ``default_compute_score``). ``options`` is the verl_ext manager's
    (None for verl's own managers, which call the user's function for every sample when one is set)."""
    from verl_ext.reward import native_scorer
    from verl_ext.reward.code import CODE_SOURCES

    def route(data_source: str) -> str:
        if options is not None:
            source = options.native_source(data_source)
            if not source:
                return "python"
        elif has_functions:
            return "python"
        else:
            source = data_source
        if source in CODE_SOURCES:
            return "code"
        return native_scorer(source) or ""

    return route


#: What a native scorer does with a ground truth that is not a str (checked in the Rust core, dispatch.rs).
_NOT_STR = {
    "gsm8k": "gsm8k compares the extracted answer with it as a string, so each such sample scores 0 silently",
    "math_reward": "math_reward compares the boxed answer with it as a string, so each such sample scores 0 "
                   "silently",
    "math_dapo": "math_dapo needs a str: each such sample fails (unscorable: 0 with on_error=zero, a crash with "
                 "on_error=raise; verl raises too)",
    "math_verify": "math_verify needs a str: each such sample fails (unscorable: 0 with on_error=zero, a crash "
                   "with on_error=raise)",
}


def _ground_truth_problem(route: str, data_source: str, ground_truth: Any) -> tuple[str, str] | None:
    """What is wrong with one ground truth for the scorer of ``route``, and what that does, or None."""
    if route in _NOT_STR:
        if isinstance(ground_truth, str):
            return None
        return f"a ground truth of type {type(ground_truth).__name__}", _NOT_STR[route] + "; store it as a string"
    if route == "code":
        from verl_ext.reward.code import ASSERT_SOURCES, ground_truth_problem

        problem = ground_truth_problem(data_source, ground_truth)
        if problem is None:
            return None
        how = "runs check(entry_point) from it" if data_source in ASSERT_SOURCES else \
            "is scored with verl's prime_code procedure from it"
        return f"a ground truth that is {problem}", f"{data_source} {how}, so each such sample scores 0"
    return None


def _verl_knows(data_source: str) -> bool:
    """Whether verl's ``default_compute_score`` scores this source (it raises NotImplementedError for one it
    does not know; any other outcome of an empty answer means it does)."""
    from verl.utils.reward_score import default_compute_score

    try:
        default_compute_score(data_source, "", "")
    except NotImplementedError:
        return False
    except Exception:  # noqa: BLE001 - it knows the source; an empty answer may fail its own way
        return True
    return True
