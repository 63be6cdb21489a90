"""A TRL-style list of reward functions moved to verl-ext (see docs/reward-functions.md).

TRL calls each reward function on a batch (``completions``, plus dataset columns as keyword arguments) and
weighs them with ``reward_weights``. verl calls a reward function once per sample with ``data_source``,
``solution_str``, ``ground_truth`` and ``extra_info``. The TRL functions stay as they are; a two-line
adapter per function gives verl's signature, and ``reward.reward_kwargs.functions`` lists them with their
weights.
"""

from __future__ import annotations

import re
from typing import Any

# --- the TRL functions, unchanged -------------------------------------------------------------------------


def format_reward(completions: list[str], **kwargs: Any) -> list[float]:
    """1.0 for a completion shaped <think>...</think><answer>...</answer>."""
    pattern = re.compile(r"^<think>.*?</think>\s*<answer>.*?</answer>$", re.DOTALL)
    return [1.0 if pattern.match(c.strip()) else 0.0 for c in completions]


def accuracy_reward(completions: list[str], solution: list[str], **kwargs: Any) -> list[float]:
    """1.0 when the <answer> block equals the dataset's ``solution`` column."""
    answers = [re.search(r"<answer>(.*?)</answer>", c, re.DOTALL) for c in completions]
    return [1.0 if a is not None and a.group(1).strip() == s.strip() else 0.0
            for a, s in zip(answers, solution, strict=True)]


# --- the verl-ext adapters: one sample per call -------------------------------------------------------------


def think_format(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
    return format_reward([solution_str])[0]


def answer_accuracy(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None) -> float:
    # TRL's `solution` column is verl's reward_model.ground_truth.
    return accuracy_reward([solution_str], solution=[str(ground_truth)])[0]
