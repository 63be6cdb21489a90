"""Reward functions of ``verl-ext bench udf``, loaded by file path as a user's ``custom_reward_function``."""

from __future__ import annotations

import asyncio
import re
from typing import Any

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SPACES = re.compile(r"\s+")


def regex_reward(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                 rounds: int = 200) -> float:
    """CPU-bound and GIL-holding, like a regex/sympy-style checker: ``rounds`` passes of normalisation
    (the bench sizes ``rounds`` to ~5 ms), then the last number is compared with the ground truth."""
    text, numbers = solution_str, []
    for _ in range(rounds):
        text = _SPACES.sub(" ", text.replace("\\!", "").replace("$", " "))
        numbers = _NUMBER.findall(text)
    return 1.0 if numbers and numbers[-1] == str(ground_truth) else 0.0


async def judge_reward(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                       latency_s: float = 0.05) -> float:
    """A remote judge: waits ``latency_s`` (the request), then answers."""
    await asyncio.sleep(latency_s)
    return 1.0 if str(ground_truth) in solution_str else 0.0
