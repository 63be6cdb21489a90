"""Argument types and the flags every ``verl-ext bench`` subcommand shares.

A benchmark module gives the CLI two functions, ``add_arguments(p)`` and ``run(args) -> int``; its
``add_arguments`` declares its own flags with the types below (so a bad value is a clean argparse error,
exit status 2, naming the flag and the allowed range) and ends with :func:`add_common_arguments` (``--json
[PATH]``, ``--no-progress``; the CLI adds them after ``add_arguments`` when a module does not)::

    from verl_ext.bench.args import add_common_arguments, positive_int

    def add_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--n", type=positive_int, default=1000, help="samples in the batch")
        add_common_arguments(p, "udf")

    def run(args: argparse.Namespace) -> int:
        ...                                   # print the human-readable report with print()
        write_results(args.json, "udf", {...})  # verl_ext.bench.report: honours --json PATH / - / default
        return 0

Help strings do not repeat defaults: every parser uses ``ArgumentDefaultsHelpFormatter``. A check that
involves two flags (``--top-k`` at most ``--vocab``) raises :class:`UsageError` from ``run`` before any
work; the CLI turns it into the same exit-2 usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "UsageError",
    "add_common_arguments",
    "add_json_flag",
    "float_in",
    "int_in",
    "json_path",
    "memory_available",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "require_memory",
    "thread_count",
]


class UsageError(ValueError):
    """A combination of arguments a benchmark cannot run with (the CLI reports it as a usage error)."""


#: Threads a bench may be asked for per core: more only adds contention (and 100,000 threads stall the host).
THREADS_PER_CORE = 8
#: Share of the memory available now that a bench may plan to use (the rest stays for everything else).
MEMORY_SHARE = 0.5


def thread_count(text: str) -> int:
    """``--threads``: 0 (automatic) up to :data:`THREADS_PER_CORE` per core of this machine."""
    return int_in(0, THREADS_PER_CORE * (os.cpu_count() or 1))(text)


def memory_available() -> int:
    """Bytes of memory available now (``MemAvailable``; total physical memory where that is unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def require_memory(what: str, needed: float, available: int | None = None) -> None:
    """Raise :class:`UsageError` before any work when ``what`` would need more than :data:`MEMORY_SHARE` of the
    memory available (``available``: of another device, e.g. a GPU's free memory)."""
    have = memory_available() if available is None else available
    if needed > MEMORY_SHARE * have:
        raise UsageError(f"{what} needs about {needed / 2**30:.1f} GiB of memory; {have / 2**30:.1f} GiB is "
                         f"available here and a bench uses at most {MEMORY_SHARE:.0%} of it: choose smaller sizes")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value:  # NaN passes every comparison below
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    return value


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` accepting integers from ``low`` to ``high`` (inclusive; ``None``: no upper bound)."""

    def parse(text: str) -> int:
        value = _int(text)
        if value < low or (high is not None and value > high):
            allowed = f">= {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}, got {value}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def float_in(low: float, high: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse ``type`` accepting numbers in ``[low, high]`` (``(low, high]`` with ``low_open``)."""

    def parse(text: str) -> float:
        value = _float(text)
        if value < low or (low_open and value == low) or value > high:
            allowed = f"{'(' if low_open else '['}{low:g}, {high:g}]"
            raise argparse.ArgumentTypeError(f"must be a number in {allowed}, got {text}")
        return value

    parse.__name__ = "number"
    return parse


#: ``--repeats``, ``--n``, sizes: 1, 2, ...
positive_int = int_in(1)
#: ``--threads`` (0: all cores), ``--limit`` (0: all), counts that may be 0.
non_negative_int = int_in(0)


def positive_float(text: str) -> float:
    """An argparse ``type`` accepting finite numbers > 0."""
    value = _float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def add_common_arguments(parser: argparse.ArgumentParser, benchmark: str) -> None:
    """Add ``--json [PATH]`` and ``--no-progress``, the flags every ``verl-ext bench`` subcommand has.

    Parameters
    ----------
    parser
        The subcommand's parser (the one passed to the module's ``add_arguments``).
    benchmark
        The subcommand's name (``"math"``, ``"udf"``...): the default file is
        ``benchmarks/runs/<benchmark>-<device>.json``. Pass the same name to
        :func:`verl_ext.bench.report.write_results`.

    Idempotent: a flag the parser already has is left as it is (the CLI calls this after each module's
    ``add_arguments``, so a module that does not call it still gets both flags). ``args.json`` is then
    ``None`` (no JSON), ``""`` (``--json`` alone: the default file), ``"-"`` (stdout; the CLI sends the
    human-readable report to stderr meanwhile) or a path; ``args.no_progress`` is a bool (bars go to
    stderr; hide them with ``tqdm(..., disable=args.no_progress)``).
    """
    add_json_flag(parser, benchmark)
    with contextlib.suppress(argparse.ArgumentError):  # raised when the parser has the flag already
        parser.add_argument("--no-progress", action="store_true", help="hide the progress bars (shown on stderr)")


def json_path(text: str) -> str:
    """``--json PATH``, checked before any work: not a directory, in a directory that exists and can be
    written (``""`` and ``"-"`` pass as they are: the default file, stdout)."""
    if text in ("", "-"):
        return text
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file name for the JSON results")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"the directory {parent} does not exist (it is not created for you)")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{text} cannot be written")
    return text


def add_json_flag(parser: argparse.ArgumentParser, benchmark: str) -> None:
    """Add ``--json [PATH]`` alone (see :func:`add_common_arguments`), unless the parser has it."""
    from verl_ext.bench.report import RUNS_DIR

    with contextlib.suppress(argparse.ArgumentError):  # raised when the parser has the flag already
        parser.add_argument("--json", nargs="?", const="", default=None, metavar="PATH", type=json_path,
                            help=f"write the results as JSON: to PATH, to stdout with '-' (the report then goes "
                                 f"to stderr), or with no PATH to {RUNS_DIR}/{benchmark}-<device>.json")
