"""Words of the messages verl-ext prints: counts with the right plural."""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 row"``, ``"2 rows"``, ``"1 category"`` (``plural`` for nouns that do not just take an ``s``)."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {plural or (noun[:-1] + 'ies' if noun.endswith('y') and noun[-2:-1] not in 'aeiou' else noun + 's')}"
