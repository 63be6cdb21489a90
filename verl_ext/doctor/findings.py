"""The doctor's results: a :class:`Need` (what a config needs from the host) and a :class:`Finding` (one
check's outcome, under the config key or environment variable it comes from), and the finding levels."""

from __future__ import annotations

from dataclasses import dataclass

#: Finding levels; ``error`` fails the doctor.
OK, WARNING, ERROR = "ok", "warning", "error"
_LABELS = {OK: "ok     ", WARNING: "WARNING", ERROR: "ERROR  "}


@dataclass(frozen=True)
class Need:
    """Something a config needs from the host, and which config key asks for it."""

    what: str
    why: str
    present: bool


@dataclass(frozen=True)
class Finding:
    """One result of checking a config (or the environment): ``key`` is the config key or environment
    variable it comes from, ``level`` one of ``ok``, ``warning``, ``error`` (errors fail the doctor)."""

    level: str
    key: str
    message: str
