"""``verl-ext doctor``: what this host offers verl-ext, and whether the sandbox can run."""

from __future__ import annotations

import importlib.metadata
import platform
import time
from typing import Any


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _accelerator() -> str:
    try:
        import torch
    except ImportError:
        return "unknown (torch not installed)"
    if torch.cuda.is_available():
        kind = "ROCm" if getattr(torch.version, "hip", None) else "CUDA"
        return f"{kind}: {torch.cuda.get_device_name(0)} (x{torch.cuda.device_count()})"
    return "none (CPU only)"


def _mode(sandbox: Any) -> str:
    try:
        mode = sandbox.mode()
    except Exception as e:  # noqa: BLE001 - report, do not fail the report
        return f"invalid: {e}"
    if mode == sandbox.WEAK_MODE:
        return f"{mode} (VERL_EXT_SANDBOX_MODE): NO namespace isolation, a warning on every batch"
    return f"{mode} (refuses to run code where isolation is unavailable)"


def _warm_starts(sandbox: Any) -> str:
    """Try the zygote once; report the per-execution cost."""
    if not sandbox.warm_starts():
        return "off (VERL_EXT_SANDBOX_WARM=0 or per-execution cgroups requested): an interpreter per execution"
    try:
        sandbox.run("pass")
        start = time.perf_counter()
        runs = sandbox.run_many(["pass"] * 20, num_threads=1)
        per = (time.perf_counter() - start) / len(runs) * 1e3
    except Exception as e:  # noqa: BLE001 - report, do not fail the report
        return f"FAILED ({e}); set VERL_EXT_SANDBOX_WARM=0 to start an interpreter per execution"
    if any(r.status != "ok" for r in runs):
        return f"FAILED: {runs[0]}"
    return f"yes: a zygote forks each execution, {per:.1f} ms each (empty program)"


def run(require_sandbox: bool = True) -> int:
    """Print the report; non-zero when the sandbox (needed by code rewards) is unavailable."""
    from verl_ext import __version__, sandbox

    print(f"verl-ext {__version__} on {platform.system()} {platform.release()} ({platform.machine()}), "
          f"Python {platform.python_version()}")
    for dist in ("verl", "torch", "ray", "vllm", "triton", "flashinfer-python"):
        print(f"  {dist:<18} {_version(dist)}")
    print(f"  accelerator        {_accelerator()}")
    caps = sandbox.capabilities()
    ok = bool(caps["full_isolation"])
    print("sandbox (code rewards):")
    print(f"  full isolation     {'yes' if ok else 'NO: ' + str(caps['error'])}")
    allowed = len(caps.get("allowed_syscalls", []))
    print(f"  seccomp filters    {f'allow-list of {allowed} syscalls, the rest EPERM' if caps['seccomp'] else 'no'}")
    landlock = caps["landlock_abi"]
    scope = "files" + (", TCP" if landlock and landlock >= 4 else "") + (
        ", signals and abstract sockets" if landlock and landlock >= 6 else "")
    print(f"  landlock           {f'ABI {landlock}: {scope}' if landlock else 'unavailable'}")
    print("  limits             rlimits (address space, CPU, file size, open files, processes, core=0)")
    print(f"  cgroups            {caps['cgroups']}")
    print(f"  mode               {_mode(sandbox)}")
    if ok:
        print(f"  warm starts        {_warm_starts(sandbox)}")
    if require_sandbox and not ok:
        print("doctor: the sandbox is unavailable, so code rewards will refuse to run (see above)")
        return 1
    return 0
