"""verl platform ``cpu``: a host without accelerators, registered in verl's own platform registry.

verl asks its platform for the torch device module, the device id it hands to ``.to()``, the collective
backend, the Ray resource its workers ask for, whether CUDA IPC exists and the rollout servers' environment;
each answer below names where verl uses it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import torch
from verl.plugin.platform.platform_base import PlatformBase
from verl.plugin.platform.platform_manager import PlatformRegistry

#: The name verl's registry and ``VERL_PLATFORM`` know it by.
NAME = "cpu"


def _nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


def _zero(*_args: Any, **_kwargs: Any) -> int:
    return 0


def _host_memory(*_args: Any, **_kwargs: Any) -> tuple[int, int]:
    """(available, total) bytes of host memory, as ``torch.cuda.mem_get_info`` gives a GPU's."""
    pages, free = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_AVPHYS_PAGES")
    size = os.sysconf("SC_PAGE_SIZE")
    return free * size, pages * size


class _DeviceModule(ModuleType):
    """``get_torch_device()``: verl calls memory, cache, RNG and naming functions of ``torch.cuda`` on it
    (``torch.cpu`` has few of them); the rest (``synchronize``, streams, events) is ``torch.cpu``'s."""

    def __getattr__(self, name: str) -> Any:
        return getattr(torch.cpu, name)


def _device_module() -> ModuleType:
    module = _DeviceModule("verl_ext.cpu.device")
    functions = {
        "is_available": lambda: True,
        "current_device": lambda: NAME,
        "device_count": lambda: 1,
        # utils/flops_counter.py:80 names the device for the MFU estimate ("CPU" is its name for torch.cpu).
        "get_device_name": lambda *_a, **_k: "CPU",
        "mem_get_info": _host_memory,
        "memory_allocated": _zero, "max_memory_allocated": _zero, "memory_reserved": _zero,
        "max_memory_reserved": _zero, "memory_stats": lambda *_a, **_k: {},
        "empty_cache": _nothing, "ipc_collect": _nothing, "reset_peak_memory_stats": _nothing,
        "set_per_process_memory_fraction": _nothing,
        "manual_seed": torch.manual_seed, "manual_seed_all": torch.manual_seed,
        "get_rng_state": torch.get_rng_state, "set_rng_state": torch.set_rng_state,
        "initial_seed": torch.initial_seed,
    }
    for name, fn in functions.items():
        setattr(module, name, fn)
    return module


class PlatformCPU(PlatformBase):
    """verl on a host without accelerators (``VERL_PLATFORM=cpu``)."""

    _module = _device_module()

    @property
    def device_name(self) -> str:
        return NAME

    @property
    def vendor_name(self) -> str:
        return NAME

    @property
    def device_module(self) -> ModuleType:
        return self._module

    def is_available(self) -> bool:
        return True

    def is_platform_available(self, use_smi_check: bool = False) -> bool:
        # Never chosen by verl's probing (platform_manager.py:97-112): only by name, VERL_PLATFORM=cpu.
        return False

    def current_device(self) -> str:
        # verl passes the device id to `.to()` and `torch.device()` (workers/engine/fsdp/transformer_impl.py:730,
        # 935, 1052, 1552), where an int means cuda:<int>. It also formats it as f"{device}:{id}"
        # (utils/fsdp_utils.py:229 with parameter offload, rollout/vllm_rollout/bucketed_weight_transfer.py:183 with
        # CUDA IPC), paths a CPU run does not take (no offload; is_ipc_supported is False).
        return NAME

    def device_count(self) -> int:
        return 1

    def set_device(self, device_index: int) -> None:
        return None

    def synchronize(self, device_index: int | None = None) -> None:
        return None

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def manual_seed_all(self, seed: int) -> None:
        torch.manual_seed(seed)

    def set_allocator_settings(self, settings: str) -> None:
        return None

    def empty_cache(self) -> None:
        return None

    def get_device_capability(self, device_index: int = 0) -> tuple[int | None, int | None]:
        return None, None

    def communication_backend_name(self) -> str:
        return "gloo"

    def visible_devices_envvar(self) -> str:
        # Ray sets it for the logical GPU of each worker (see ray_resource_name); CPU code reads nothing from it.
        return "CUDA_VISIBLE_DEVICES"

    @contextmanager
    def nvtx_range(self, msg: str) -> Iterator[None]:
        yield

    def profiler_start(self) -> None:
        return None

    def profiler_stop(self) -> None:
        return None

    def ray_resource_name(self) -> str:
        # single_controller/ray/base.py:210 builds every resource pool with use_gpu=True, so each worker asks for
        # one unit of this resource, and base.py:231 counts only "GPU"/"NPU": a CPU run declares logical GPUs
        # (`+ray_kwargs.ray_init.num_gpus=N`, see verl_ext.cpu.overrides).
        return "GPU"

    def ray_noset_envvars(self) -> list[str]:
        return ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"]

    def is_ipc_supported(self) -> bool:
        # The rollout then syncs weights through shared memory (rollout/vllm_rollout/vllm_rollout.py:143).
        return False

    def rollout_env_vars(self) -> dict[str, str]:
        # Given to the vLLM server actors (rollout/vllm_rollout/vllm_async_server.py:1374): vLLM's CPU build sizes
        # its KV cache by VLLM_CPU_KVCACHE_SPACE (GiB) and pins OpenMP threads to cores unless told not to (a
        # shared host: not pinned). Its CPU sampler is torch.compile'd (v1/sample/ops/topk_topp_sampler.py,
        # forward_cpu), which needs a C++ compiler at run time: eager, as enforce_eager asks and no toolchain
        # is assumed (a plain image has none).
        return {"VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1"),
                "VLLM_CPU_OMP_THREADS_BIND": os.environ.get("VLLM_CPU_OMP_THREADS_BIND", "nobind"),
                "TORCHDYNAMO_DISABLE": os.environ.get("TORCHDYNAMO_DISABLE", "1")}

    def cudart(self) -> Any:
        return None


def register() -> None:
    """Put the platform in verl's registry (idempotent)."""
    if PlatformRegistry.get(NAME) is None:
        PlatformRegistry.register(platform=NAME)(PlatformCPU)
