"""Shared benchmark plumbing: timing, device and commit facts, JSON results."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS_DIR = Path("benchmarks") / "results"


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


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def add_json_argument(parser: argparse.ArgumentParser, benchmark: str) -> None:
    parser.add_argument("--json", nargs="?", const="", default=None, metavar="PATH",
                        help=f"write the figures as JSON (default {RESULTS_DIR}/{benchmark}-<device>.json)")


def cuda_median_ms(fn: Callable[[], Any], repeats: int) -> float:
    """Median milliseconds of ``fn`` by CUDA events (after one warm-up)."""
    import torch

    fn()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


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
    """Write ``payload`` (plus benchmark, device and commit) where ``--json`` asked, if it did."""
    if json_arg is None:
        return None
    device = device or cpu_device()
    path = Path(json_arg) if json_arg else RESULTS_DIR / f"{benchmark}-{device}.json"
    write_json(path, {"benchmark": benchmark, "device": device, "commit": git_commit(), **payload})
    print(f"wrote {path}")
    return path


def write_json(path: Path, payload: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    return path
