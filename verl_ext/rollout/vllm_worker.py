"""The worker extension verl's vLLM servers mix into vLLM's GPU worker.

Select it with ``+actor_rollout_ref.rollout.engine_kwargs.vllm.worker_extension_cls=
verl_ext.rollout.VLLMWorkerExtension`` (``verl_ext/configs/grpo_math_verl_ext_sampling.yaml`` does). It keeps all
of verl's behaviour (``__new__`` patches, weight updates over IPC, LoRA) and, once verl has patched the
model, installs verl-ext's fused sampler into vLLM's sampler.
"""

from __future__ import annotations

from typing import Any

try:
    from verl.workers.rollout.vllm_rollout.utils import vLLMColocateWorkerExtension
except Exception as exc:  # verl raises ValueError, not ImportError, when vLLM is missing
    raise ImportError(f"verl_ext.rollout.VLLMWorkerExtension needs vLLM and verl's vLLM rollout: {exc}") from exc

from verl_ext.rollout.vllm_sampler import backend_from_env, install_fused_sampler

# vLLM imports this module when it builds each worker, before the model loads: a bad
# $VERL_EXT_SAMPLER_BACKEND stops the worker here (ConfigError) rather than after the weights are in memory.
backend_from_env()


class VLLMWorkerExtension(vLLMColocateWorkerExtension):
    """verl's ``vLLMColocateWorkerExtension`` plus verl-ext's fused top-k/top-p sampler.

    vLLM refuses extension attributes that clash with its ``Worker``: this class adds none, it only
    extends ``monkey_patch_model``, which verl calls on every worker once the engine is up.
    """

    #: Set by vLLM's ``Worker``, which this class extends at run time (an annotation, not an attribute).
    model_runner: Any

    def monkey_patch_model(self, vocab_size: int, banned_token_ids: list[int] | None = None) -> None:
        super().monkey_patch_model(vocab_size, banned_token_ids)
        install_fused_sampler(self.model_runner)
