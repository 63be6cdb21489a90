"""``verl-ext doctor``: what this host offers verl-ext, and whether the sandbox can run."""

from __future__ import annotations

import importlib.metadata
import platform


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
    print(f"  seccomp filters    {'yes' if caps['seccomp'] else 'no'}")
    landlock = caps["landlock_abi"]
    print(f"  landlock           {'ABI ' + str(landlock) + ' (not used: mount namespaces already confine files)' if landlock else 'unavailable'}")
    print("  limits             rlimits (address space, CPU, file size, open files, processes, core=0)")
    print(f"  cgroups            {caps['cgroups']}")
    if require_sandbox and not ok:
        print("doctor: the sandbox is unavailable, so code rewards will refuse to run (see above)")
        return 1
    return 0
