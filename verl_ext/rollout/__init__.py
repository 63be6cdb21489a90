"""Rollout integrations: verl-ext's fused sampler inside vLLM, through verl's worker-extension hook.

``VLLMWorkerExtension`` is imported lazily: it subclasses verl's vLLM extension, which needs vLLM.
"""

from __future__ import annotations

from typing import Any

from verl_ext.rollout.vllm_sampler import FusedTopKTopP, FusedV2Sample, install_fused_sampler

__all__ = ["FusedTopKTopP", "FusedV2Sample", "VLLMWorkerExtension", "install_fused_sampler"]


def __getattr__(name: str) -> Any:
    if name == "VLLMWorkerExtension":
        from verl_ext.rollout.vllm_worker import VLLMWorkerExtension

        return VLLMWorkerExtension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
