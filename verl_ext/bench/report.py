"""Shared benchmark plumbing: timing, device and version facts, JSON results.

Result files (``--json``) are one JSON object: ``schema_version`` (:data:`SCHEMA_VERSION`), ``benchmark``,
``device``, ``versions`` (verl-ext, verl, torch, Python: what produced the figures), then the benchmark's own
keys. Without a path they go to :data:`RUNS_DIR` (ignored by git); the published figures in
``benchmarks/results/`` are written by passing that path explicitly.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

#: Version of the result files' layout. 1: the files of before this key (a ``commit`` key holding the git HEAD
#: of the directory the bench ran in). 2: ``schema_version`` and ``versions`` (verl_ext, verl, torch,
#: python) instead of ``commit``. Bump it when a key is renamed, removed or changes meaning.
SCHEMA_VERSION = 2
#: Where ``--json`` with no path writes, relative to the working directory (``.gitignore``d in the repo).
RUNS_DIR = Path("benchmarks") / "runs"
#: ``--json -``: the stream the JSON goes to while :func:`json_to_stdout` sends the report to stderr.
_json_stream: TextIO | None = None


def median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cpu_device() -> str:
    """A short name of this CPU for result files, e.g. ``cpu-2c-amd-epyc-9654``."""
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    slug = "".join(c if c.isalnum() else "-" for c in model.lower()).strip("-")
    while "--" in slug:
        slug = slug.replace("--", "-")
    return f"cpu-{os.cpu_count()}c-{slug}"[:80]


def versions() -> dict[str, str | None]:
    """The versions of what produced a result: verl-ext, verl, torch (``None`` when not installed), Python."""
    from importlib import metadata

    from verl_ext import __version__

    out: dict[str, str | None] = {"verl_ext": __version__}
    for dist in ("verl", "torch"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    out["python"] = platform.python_version()
    return out


@contextlib.contextmanager
def json_to_stdout(json_arg: str | None) -> Iterator[None]:
    """With ``--json -``, keep stdout for the JSON alone: what the benchmark prints goes to stderr meanwhile."""
    global _json_stream
    if json_arg != "-":
        yield
        return
    _json_stream = sys.stdout
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _json_stream = None


def gpu_device() -> str:
    """A short name of the current GPU for result files, e.g. ``nvidia-h100-80gb-hbm3``."""
    import torch

    name = torch.cuda.get_device_name()
    slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    while "--" in slug:
        slug = slug.replace("--", "-")
    return slug[:80]


def write_results(json_arg: str | None, benchmark: str, payload: dict[str, Any], device: str | None = None
                  ) -> Path | None:
    """Write ``payload`` where ``--json`` asked, if it did, with ``schema_version``, ``benchmark``, ``device``
    (default: :func:`cpu_device`) and ``versions`` first.

    ``json_arg`` is ``args.json``: ``None`` writes nothing, ``""`` writes
    ``benchmarks/runs/<benchmark>-<device>.json``, ``"-"`` writes to stdout (returns ``None``), anything
    else is the path. Returns the path written.
    """
    if json_arg is None:
        return None
    device = device or cpu_device()
    result = {"schema_version": SCHEMA_VERSION, "benchmark": benchmark, "device": device, "versions": versions(),
              **payload}
    if json_arg == "-":
        stream = _json_stream or sys.stdout
        stream.write(json.dumps(result, indent=2) + "\n")
        stream.flush()
        return None
    path = Path(json_arg) if json_arg else RUNS_DIR / f"{benchmark}-{device}.json"
    write_json(path, result)
    print(f"wrote {path}")
    return path


def write_json(path: Path, payload: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    return path
