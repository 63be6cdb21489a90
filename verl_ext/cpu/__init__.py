"""Run verl 0.9.1's trainer (and vLLM 0.24.0's CPU build) on a host without accelerators.

Off unless asked for: ``VERL_PLATFORM=cpu`` in the environment of ``python -m verl.trainer.main_ppo`` (or a
``verl-ext smoke`` run, which sets it). verl imports verl-ext's plugin (entry point ``verl.plugins``) in
every process it starts: the driver, each Ray worker and vLLM's server and engine processes, which inherit
the environment. There the plugin calls :func:`activate`, which

- registers verl platform ``cpu`` through verl's own registry (:mod:`verl_ext.cpu.platform`; without it
  verl's detection falls back to ``nvidia``, ``verl/plugin/platform/platform_manager.py:114``);
- selects verl's FSDP engine on it: ``VERL_ENGINE_DEVICE=cuda`` (the engine registers for cuda/npu only,
  ``workers/engine/fsdp/transformer_impl.py:1143``; ``workers/engine/base.py:405`` reads the override);
- patches three functions where verl or vLLM assume a GPU, each when (if) its module is imported
  (:mod:`verl_ext.cpu.patches`).

What else a CPU run needs is configuration, not code: :data:`verl_ext.cpu.overrides.CPU_OVERRIDES`.
"""

from __future__ import annotations

import os

__all__ = ["activate", "requested"]

#: The value of ``VERL_PLATFORM`` that turns this on (verl reads the same variable to pick a platform).
PLATFORM = "cpu"


def requested() -> bool:
    """Whether this process was asked to run verl on CPU (``VERL_PLATFORM=cpu``)."""
    return os.environ.get("VERL_PLATFORM", "").strip().lower() == PLATFORM


def activate() -> None:
    """Register the CPU platform, select verl's FSDP engine on it and arm the patches (idempotent). Sets
    the variables in ``os.environ``, so that every process started from here on inherits them."""
    from verl_ext.cpu import patches, platform

    platform.register()
    os.environ["VERL_PLATFORM"] = PLATFORM
    os.environ.setdefault("VERL_ENGINE_DEVICE", "cuda")
    # A CPU run declares logical GPUs to Ray (see verl_ext.cpu.platform.PlatformCPU.ray_resource_name), which
    # Ray refuses while CUDA_VISIBLE_DEVICES is set and empty (the usual way to hide GPUs); nothing of a CPU
    # run uses a GPU, whatever the variable says.
    if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
        del os.environ["CUDA_VISIBLE_DEVICES"]
    patches.arm()
