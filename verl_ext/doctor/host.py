"""What this host offers: package versions, the accelerator, verl's registration of verl-ext's plugin, the
sandbox mode and the warm-start probe."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import time
from typing import Any

from verl_ext.exceptions import InvalidInputError, VerlExtError

#: Distributions whose versions the report lists.
DISTS = ("verl", "torch", "ray", "vllm", "triton", "flashinfer-python")


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


def plugins_disabled() -> str | None:
    """``VERL_USE_EXTERNAL_PLUGINS=...`` when it keeps ``import verl`` from loading verl-ext's plugin (then
    the manager is used by import path, as the README shows), else None."""
    policy = os.environ.get("VERL_USE_EXTERNAL_PLUGINS", "auto").strip().lower()
    if policy == "auto" or (policy != "none" and "verl_ext" in {p.strip() for p in policy.split(",")}):
        return None
    return f"VERL_USE_EXTERNAL_PLUGINS={policy}"


def _registration() -> str | None:
    """None when ``import verl`` registered the ``verl_ext`` reward managers (or, with the plugin disabled, when
    the managers import by path), else what went wrong (verl only logs a failing plugin at DEBUG, so a broken
    install would otherwise surface mid-run)."""
    if plugins_disabled():
        try:
            manager = importlib.import_module("verl_ext.reward.manager")
            for name in ("VerlExtRewardManager", "VerlExtBatchRewardManager"):
                getattr(manager, name)
        except (ImportError, AttributeError) as e:
            return f"{type(e).__name__}: {e}"
        return None
    try:
        importlib.import_module("verl")  # loads the verl.plugins entry points
        from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls as loop_manager
        from verl.workers.reward_manager import get_reward_manager_cls as legacy_manager

        for lookup in (loop_manager, legacy_manager):
            lookup("verl_ext")
    except (ImportError, AttributeError, LookupError, ValueError) as e:  # a missing verl, an unknown manager
        return f"{type(e).__name__}: {e}"
    return None


def _mode_fix(sandbox: Any) -> str:
    return (f"set VERL_EXT_SANDBOX_MODE to one of {', '.join(sandbox.MODES)}, or unset it "
            f"({sandbox.MODES[0]} is the default)")


def _mode(sandbox: Any) -> str:
    try:
        mode = sandbox.mode()
    except InvalidInputError as e:
        return f"invalid: {e}; {_mode_fix(sandbox)}"
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
    except (VerlExtError, OSError) as e:
        return f"FAILED ({e}); set VERL_EXT_SANDBOX_WARM=0 to start an interpreter per execution"
    if any(r.status != "ok" for r in runs):
        return f"FAILED: {runs[0]}"
    return f"yes: a zygote forks each execution, {per:.1f} ms each (empty program)"
