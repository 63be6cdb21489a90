"""Format reward: a bonus for responses that follow a tag structure, combinable with any scorer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from verl_ext import _core
from verl_ext.exceptions import InvalidInputError

__all__ = ["FormatReward", "format_score"]

DEFAULT_TAGS: tuple[str, ...] = ("think", "answer")


def format_score(response: str, tags: Sequence[str] = DEFAULT_TAGS) -> float:
    """1.0 when ``response`` is exactly the blocks ``<tag>…</tag>`` in order (whitespace between and
    around them allowed, each marker once), else 0.0."""
    return _core.FormatSpec(list(tags)).score(response)


@dataclass(frozen=True)
class FormatReward:
    """Adds ``weight * format_score`` to the correctness score.

    Configured from ``reward.reward_kwargs``: ``format_weight`` (float, default 0 = off) and
    ``format_tags`` (a list, or a comma-separated string; default ``think,answer``).
    """

    weight: float = 0.0
    tags: tuple[str, ...] = field(default=DEFAULT_TAGS)

    def __post_init__(self) -> None:
        if not isinstance(self.weight, (int, float)) or self.weight != self.weight:
            raise InvalidInputError(f"format_weight must be a finite number, got {self.weight!r}")
        _ = self.spec  # validate the tags now, not at the first sample

    @cached_property
    def spec(self) -> _core.FormatSpec:
        return _core.FormatSpec(list(self.tags))

    @property
    def enabled(self) -> bool:
        return self.weight != 0.0

    @classmethod
    def from_reward_kwargs(cls, reward_kwargs: Mapping[str, Any] | None) -> FormatReward:
        kwargs = dict(reward_kwargs or {})
        tags = kwargs.get("format_tags", DEFAULT_TAGS)
        if isinstance(tags, str):
            tags = [t.strip() for t in tags.split(",") if t.strip()]
        return cls(weight=float(kwargs.get("format_weight", 0.0)), tags=tuple(str(t) for t in tags))

    def combine(self, result: Any, fmt: float) -> Any:
        """The verl result with the weighted format score added (a dict also gets ``format_score``)."""
        if isinstance(result, dict):
            combined = dict(result)
            combined["score"] = result["score"] + self.weight * fmt
            combined["format_score"] = fmt
            return combined
        return float(result) + self.weight * fmt
