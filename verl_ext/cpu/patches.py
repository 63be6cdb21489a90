"""Where verl 0.9.1 and vLLM 0.24.0 assume a GPU on the path of a CPU run: three patches, each applied when
its module is imported (:func:`arm`), each naming the line it answers."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from verl_ext.cpu.on_import import when_imported

#: Marks a function this module put in place (so that arming twice patches once).
_MARK = "_verl_ext_cpu"


def gloo_process_group(module: ModuleType) -> None:
    """``verl/utils/distributed.py:89`` builds the backend ``f"cpu:gloo,{device}:{ccl}"``, which on the CPU
    platform is ``"cpu:gloo,cpu:gloo"`` and torch refuses ("Duplicate device type cpu"); verl's engine
    workers call it without a backend (``workers/engine_workers.py:89``). Default: ``"cpu:gloo"``."""
    namespace = vars(module)
    original = namespace["initialize_global_process_group_ray"]
    if getattr(original, _MARK, False):
        return

    def initialize_global_process_group_ray(timeout_second: Any = None, backend: str | None = None) -> Any:
        return original(timeout_second=timeout_second, backend=backend or "cpu:gloo")

    setattr(initialize_global_process_group_ray, _MARK, True)
    namespace["initialize_global_process_group_ray"] = initialize_global_process_group_ray


def unpinned_offload(module: ModuleType) -> None:
    """``workers/engine/fsdp/transformer_impl.py:462`` gives a forward-only model (the reference policy)
    ``CPUOffloadPolicy(pin_memory=True)``; pinning needs a CUDA driver and means nothing on CPU."""
    namespace = vars(module)
    original = namespace["CPUOffloadPolicy"]
    if getattr(original, _MARK, False):
        return

    def cpu_offload_policy(pin_memory: bool = True, **kw: Any) -> Any:
        del pin_memory
        return original(pin_memory=False, **kw)

    setattr(cpu_offload_policy, _MARK, True)
    namespace["CPUOffloadPolicy"] = cpu_offload_policy


def unpacked_linear_weights(module: ModuleType) -> None:
    """``vllm/model_executor/layers/utils.py:297`` packs each Linear weight into a oneDNN handle and
    replaces ``layer.weight`` with an empty tensor; verl's weight sync then loads new weights into it
    (``workers/rollout/vllm_rollout/utils.py:405``) and fails, and a packed copy would not see new weights
    anyway. Off: vLLM's plain ``F.linear`` path reads ``layer.weight`` on every call."""
    vars(module)["_supports_onednn"] = False


#: module -> the patch applied when it is imported.
PATCHES: dict[str, Callable[[ModuleType], None]] = {
    "verl.utils.distributed": gloo_process_group,
    "verl.workers.engine.fsdp.transformer_impl": unpinned_offload,
    "vllm._custom_ops": unpacked_linear_weights,
}


def arm() -> None:
    """Apply each patch when its module is imported (now, for one imported already)."""
    for name, patch in PATCHES.items():
        when_imported(name, patch)
