"""verl-ext's fused sampler inside vLLM's V1 sampler.

Written against vLLM 0.24.0 (the version verl 0.9.1 pins); the interface relied on:

* the V1 GPU model runner has ``sampler`` (``vllm.v1.sample.sampler.Sampler``) whose ``topk_topp_sampler``
  (``TopKTopPSampler``, an ``nn.Module``) picks its ``forward`` in ``__init__`` and stores it as an
  *instance* attribute, so patching the class has no effect; replacing the instance's ``forward`` does;
* it is called as ``topk_topp_sampler(logits, generators, k, p) -> (sampled, processed)``: ``logits`` fp32
  ``[B, V]`` with temperature and min-p already applied, ``generators`` ``{row: torch.Generator}`` for
  seeded requests, ``k`` int32 ``[B]`` or None (the vocabulary size switches a row off), ``p`` fp32 ``[B]``
  or None (1.0 switches a row off); greedy rows are replaced by vLLM's argmax afterwards;
* ``topk_topp_sampler.logprobs_mode``: ``processed_logprobs`` (verl's default) wants the log-softmax of the
  filtered logits ``[B, V]`` back, ``processed_logits`` the filtered logits, anything else None;
* the V2 runner (``vllm/v1/worker/gpu``, vLLM's default for some architectures) has no
  ``topk_topp_sampler``; it is refused with a clear error (``VLLM_USE_V2_MODEL_RUNNER=0`` selects V1).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import torch

from verl_ext.ops.sampling import BACKENDS, Backend, sample_with_threshold

logger = logging.getLogger(__name__)

BACKEND_ENV = "VERL_EXT_SAMPLER_BACKEND"
_PROCESSED = ("processed_logprobs", "processed_logits")


class FusedTopKTopP:
    """Drop-in for ``TopKTopPSampler.forward``: one fused kernel draws the tokens and, when vLLM's
    ``logprobs_mode`` asks for it, gives the processed distribution the tokens were drawn from.

    If the fused path raises (e.g. a Triton compile error on an unsupported GPU), the error is logged once
    and vLLM's own sampler serves every later call, so a rollout is never lost to it."""

    def __init__(self, logprobs_mode: str = "raw_logprobs", backend: Backend = "auto",
                 fallback: Callable[..., tuple[torch.Tensor, torch.Tensor | None]] | None = None) -> None:
        self.logprobs_mode = logprobs_mode
        self.backend = backend
        self.fallback = fallback
        self.failed = False

    @staticmethod
    def uniforms(logits: torch.Tensor, generators: dict[int, torch.Generator]) -> torch.Tensor:
        """One uniform per row; seeded requests draw theirs from their own generator, like vLLM does."""
        u = torch.rand(logits.shape[0], device=logits.device)
        for row, gen in generators.items():
            u[row] = torch.rand(1, generator=gen, device=logits.device)[0]
        return u

    def __call__(self, logits: torch.Tensor, generators: dict[int, torch.Generator], k: torch.Tensor | None,
                 p: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        if self.failed and self.fallback is not None:
            return self.fallback(logits, generators, k, p)
        try:
            tokens, tau, log_norm = sample_with_threshold(logits, top_k=k, top_p=p,
                                                          uniform=self.uniforms(logits, generators),
                                                          backend=self.backend)
        except Exception:
            if self.fallback is None:
                raise
            logger.exception("verl-ext sampler failed; vLLM's own sampler takes over for this worker")
            self.failed = True
            return self.fallback(logits, generators, k, p)
        # Rows with NaN logits get -1 from the kernel; vLLM must get a token id, as its own sampler gives.
        tokens = torch.where(tokens < 0, logits.argmax(-1), tokens)
        if self.logprobs_mode not in _PROCESSED:
            return tokens, None
        kept = logits >= tau[:, None]
        if self.logprobs_mode == "processed_logits":
            return tokens, logits.masked_fill(~kept, float("-inf"))
        return tokens, torch.where(kept, logits - log_norm[:, None], float("-inf"))


def _backend_from_env() -> Backend:
    value = os.environ.get(BACKEND_ENV, "auto")
    for name in BACKENDS:
        if value == name:
            return name
    raise ValueError(f"{BACKEND_ENV} must be one of {BACKENDS}, got {value!r}")


def install_fused_sampler(model_runner: Any, backend: Backend | None = None) -> FusedTopKTopP:
    """Install :class:`FusedTopKTopP` into ``model_runner.sampler.topk_topp_sampler`` (vLLM's V1 runner).

    ``backend`` defaults to ``$VERL_EXT_SAMPLER_BACKEND`` or ``auto`` (Triton on CUDA and ROCm GPUs)."""
    target = getattr(getattr(model_runner, "sampler", None), "topk_topp_sampler", None)
    if target is None:
        raise RuntimeError(
            f"{type(model_runner).__name__} has no sampler.topk_topp_sampler: this is vLLM's V2 model runner "
            "(vLLM's default for some architectures), which verl-ext's sampler cannot be installed into. Set "
            "VLLM_USE_V2_MODEL_RUNNER=0 for the rollout workers (the config grpo_math_verl_ext_sampling does) "
            "or drop actor_rollout_ref.rollout.engine_kwargs.vllm.worker_extension_cls.")
    backend = backend or _backend_from_env()
    current = target.forward
    original = current.fallback if isinstance(current, FusedTopKTopP) else current
    fused = FusedTopKTopP(getattr(target, "logprobs_mode", "raw_logprobs"), backend, fallback=original)
    target.forward = fused  # nn.Module.__call__ dispatches to the instance attribute
    logger.info("verl-ext fused sampler installed (backend=%s, logprobs_mode=%s)", backend, fused.logprobs_mode)
    return fused
