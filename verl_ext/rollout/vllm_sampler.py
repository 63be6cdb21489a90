"""verl-ext's fused sampler inside vLLM's samplers, for both of vLLM's GPU model runners.

Written against vLLM 0.24.0 (the version verl 0.9.1 pins) and tested against its real classes on CPU
(``tests/rollout/test_vllm_sampler.py``). The interfaces relied on:

V1 runner (``vllm/v1/worker/gpu_model_runner.py``): ``model_runner.sampler`` is ``vllm.v1.sample.sampler.Sampler``
(an ``nn.Module``) whose ``topk_topp_sampler`` (``TopKTopPSampler``) picks its ``forward`` in ``__init__`` and
stores it as an *instance* attribute, so patching the class has no effect; replacing the instance's ``forward``
does. It is called as ``topk_topp_sampler(logits, generators, k, p) -> (sampled, processed)``: ``logits`` fp32
``[B, V]`` with temperature and min-p already applied, ``generators`` ``{row: torch.Generator}`` for seeded
requests, ``k`` int32 ``[B]`` or None (the vocabulary size switches a row off), ``p`` fp32 ``[B]`` or None (1.0
switches a row off); greedy rows are replaced by vLLM's argmax afterwards. ``logprobs_mode``:
``processed_logprobs`` (verl's default) wants the log-softmax of the filtered logits back, ``processed_logits``
the filtered logits, anything else None.

V2 runner (``vllm/v1/worker/gpu/model_runner.py``, vLLM's default for Qwen3, Llama, Mistral and others):
``model_runner.sampler`` is ``vllm.v1.worker.gpu.sample.sampler.Sampler`` (a plain class; None on pipeline
stages that do not sample) whose ``sample(logits, expanded_idx_mapping, idx_mapping_np, pos, input_ids,
expanded_local_pos, return_logprobs)`` returns ``(sampled int64 [B], processed_logits)``. It applies penalties,
temperature and min-p with ``apply_sampling_params(..., skip_top_k_top_p=True)``, then top-k/top-p, then draws
with Gumbel noise seeded by the request's int64 seed (``sampling_states.seeds``; vLLM draws a random one for
unseeded requests) and the token's position; greedy rows (temperature 0) take the argmax. The replacement keeps
all of that and swaps only the filter-and-draw step: the uniform of each row is a hash of (seed, position), so
a seeded request repeats its tokens, as with vLLM's own sampler. ``processed_logits`` are the filtered logits
(-inf outside the kept set) when vLLM reads them (``logprobs_mode`` ``processed_logprobs`` and log-probs asked
for; it takes their log-softmax), else the unfiltered ones, as vLLM's FlashInfer path gives.

With speculative decoding, the drafter and the acceptance of draft tokens keep vLLM's own sampling code: only
steps without draft tokens, and (V1) the bonus token the rejection sampler draws through the runner's sampler,
go through the fused sampler.

In both runners, if the fused path raises (e.g. a Triton compile error on an unsupported GPU), the error is
logged once and vLLM's own sampler serves every later call, so a rollout is never lost to it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from verl_ext.exceptions import ConfigError
from verl_ext.ops.sampling import Backend, sample_processed, seeded_uniform

logger = logging.getLogger(__name__)

BACKEND_ENV = "VERL_EXT_SAMPLER_BACKEND"
#: Backends the rollout sampler can run. Each row draws with its own uniform (a seeded request's generator in
#: the V1 runner, a hash of seed and position in V2), which FlashInfer's sampler cannot take; and the tokens, the
#: kept set and its log-normaliser come from one Triton call ("auto": Triton on GPUs, torch on CPU).
ROLLOUT_BACKENDS: tuple[Backend, ...] = ("auto", "triton", "torch")
_PROCESSED = ("processed_logprobs", "processed_logits")
#: Odd 64-bit multiplier (the golden ratio's, as in SplitMix64) spreading a request's seed before its token
#: position is added, so (seed, position) pairs of one batch do not share a hash input.
_SEED_SPREAD = 0x9E3779B97F4A7C15 - (1 << 64)


class FusedTopKTopP:
    """Drop-in for the V1 runner's ``TopKTopPSampler.forward``: one fused kernel draws the tokens and, when
    vLLM's ``logprobs_mode`` asks for it, gives the processed distribution the tokens were drawn from."""

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
            res = sample_processed(logits, top_k=k, top_p=p, uniform=self.uniforms(logits, generators),
                                   backend=self.backend)
        except Exception:
            if self.fallback is None:
                raise
            logger.exception("verl-ext sampler failed; vLLM's own sampler takes over for this worker")
            self.failed = True
            return self.fallback(logits, generators, k, p)
        # Rows with NaN logits get -1 from the kernel; vLLM must get a token id, as its own sampler gives.
        tokens = torch.where(res.token_ids < 0, logits.argmax(-1), res.token_ids)
        if self.logprobs_mode not in _PROCESSED:
            return tokens, None
        # Rows without a distribution (a NaN or +inf logit, nothing above -inf) get NaN log-probs everywhere, as
        # vLLM's log-softmax gives them; their processed logits keep what the filters kept (NaN tau: everything).
        if self.logprobs_mode == "processed_logits":
            return tokens, logits.masked_fill(logits < res.tau[:, None], float("-inf"))
        return tokens, res.logprobs(logits)


def position_uniforms(seeds: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """The uniform each row draws with in the V2 runner: a hash of the request's int64 seed and the token's
    position, so equal (seed, position) pairs draw equal tokens and every step of a request draws anew."""
    key = seeds.to(torch.int64) * _SEED_SPREAD + positions.to(torch.int64)  # wraps, as int64 arithmetic does
    return seeded_uniform(key, key.shape[0], key.device)


class FusedV2Sample:
    """Drop-in for the V2 runner's ``Sampler.sample`` (bound to one sampler): vLLM's own penalties,
    temperature and min-p, then verl-ext's fused top-k/top-p draw instead of vLLM's sort and Gumbel pass."""

    def __init__(self, sampler: Any, backend: Backend = "auto",
                 fallback: Callable[..., tuple[torch.Tensor, torch.Tensor]] | None = None) -> None:
        self.sampler = sampler
        self.backend = backend
        self.fallback = fallback
        self.failed = False

    def __call__(self, logits: torch.Tensor, expanded_idx_mapping: torch.Tensor, idx_mapping_np: np.ndarray,
                 pos: torch.Tensor, input_ids: torch.Tensor, expanded_local_pos: torch.Tensor,
                 return_logprobs: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        args = (logits, expanded_idx_mapping, idx_mapping_np, pos, input_ids, expanded_local_pos)
        if self.failed and self.fallback is not None:
            return self.fallback(*args, return_logprobs=return_logprobs)
        try:
            return self._sample(*args, return_logprobs=return_logprobs)
        except Exception:
            if self.fallback is None:
                raise
            logger.exception("verl-ext sampler failed; vLLM's own sampler takes over for this worker")
            self.failed = True
            # apply_sampling_params works on an fp32 copy, so vLLM's sampler gets the logits untouched.
            return self.fallback(*args, return_logprobs=return_logprobs)

    def _sample(self, logits: torch.Tensor, expanded_idx_mapping: torch.Tensor, idx_mapping_np: np.ndarray,
                pos: torch.Tensor, input_ids: torch.Tensor, expanded_local_pos: torch.Tensor,
                return_logprobs: bool) -> tuple[torch.Tensor, torch.Tensor]:
        states = self.sampler.sampling_states
        processed = self.sampler.apply_sampling_params(logits, expanded_idx_mapping, idx_mapping_np, pos, input_ids,
                                                       expanded_local_pos, skip_top_k_top_p=True)
        top_k, top_p = states.get_top_k_top_p(expanded_idx_mapping, idx_mapping_np)
        rows = expanded_idx_mapping.long()
        uniform = position_uniforms(states.seeds.gpu[rows], pos)
        res = sample_processed(processed, top_k=top_k, top_p=top_p, uniform=uniform, backend=self.backend)
        # Greedy rows (temperature 0, left unscaled by vLLM) and rows with NaN logits (-1 from the kernel)
        # take the argmax, as vLLM's Gumbel pass gives them.
        greedy = (states.temperature.gpu[rows] == 0.0) | (res.token_ids < 0)
        tokens = torch.where(greedy, processed.argmax(-1), res.token_ids)
        if not (return_logprobs and self.sampler.logprobs_mode == "processed_logprobs"):
            # vLLM reads the processed logits only for processed log-probs: skip a pass over [B, V] otherwise
            # (vLLM's own FlashInfer path hands them back unfiltered too).
            return tokens, processed
        return tokens, processed.masked_fill(processed < res.tau[:, None], float("-inf"))


def rollout_backend_error(value: object) -> str | None:
    """Why ``value`` cannot be the rollout sampler's backend, or None when it can."""
    if value in ROLLOUT_BACKENDS:
        return None
    if value == "flashinfer":
        return ("the rollout sampler draws each row with its own uniform (seeded requests), which FlashInfer's "
                f"sampler cannot take; use one of {', '.join(ROLLOUT_BACKENDS)} (auto: Triton on GPUs)")
    return f"{value!r} is not a rollout sampler backend; use one of {', '.join(ROLLOUT_BACKENDS)}"


def _checked(value: object, key: str) -> Backend:
    why = rollout_backend_error(value)
    if why is not None:
        raise ConfigError(key, f"verl-ext fused sampler: {why}")
    return next(name for name in ROLLOUT_BACKENDS if name == value)


def backend_from_env() -> Backend:
    """The backend ``$VERL_EXT_SAMPLER_BACKEND`` names (``auto`` when unset); :class:`ConfigError` (a
    ``ValueError``) for any other value. The worker extension calls it when vLLM imports it, before the model
    loads."""
    return _checked(os.environ.get(BACKEND_ENV, "auto"), BACKEND_ENV)


def install_fused_sampler(model_runner: Any, backend: Backend | None = None
                          ) -> FusedTopKTopP | FusedV2Sample | None:
    """Install verl-ext's fused sampler into vLLM's model runner, V1 or V2.

    ``backend`` (None: ``$VERL_EXT_SAMPLER_BACKEND``, or ``auto`` when unset) is one of ``ROLLOUT_BACKENDS``:
    ``auto`` runs the Triton kernels on CUDA and ROCm (torch on CPU). Any other value, ``flashinfer`` included
    (its sampler cannot take a uniform per row), is a :class:`~verl_ext.exceptions.ConfigError` (a
    ``ValueError``). Returns the installed callable, or None for a V2 runner that samples nothing (a pipeline
    stage before the last, a pooling model). Installing twice keeps vLLM's own sampler as the fallback."""
    backend = backend_from_env() if backend is None else _checked(backend, "backend")
    sampler = getattr(model_runner, "sampler", None)
    topk_topp = getattr(sampler, "topk_topp_sampler", None)
    if topk_topp is not None:
        current = topk_topp.forward
        original = current.fallback if isinstance(current, FusedTopKTopP) else current
        fused: FusedTopKTopP | FusedV2Sample = FusedTopKTopP(
            getattr(topk_topp, "logprobs_mode", "raw_logprobs"), backend, fallback=original)
        topk_topp.forward = fused  # nn.Module.__call__ dispatches to the instance attribute
        runner = "V1"
    elif sampler is None and hasattr(model_runner, "sampler"):
        logger.info("verl-ext fused sampler: %s samples nothing on this worker", type(model_runner).__name__)
        return None
    elif sampler is not None and hasattr(sampler, "sampling_states") \
            and callable(getattr(sampler, "apply_sampling_params", None)):
        current = sampler.sample
        original = current.fallback if isinstance(current, FusedV2Sample) else current
        fused = FusedV2Sample(sampler, backend, fallback=original)
        sampler.sample = fused  # an instance attribute shadows the class's method for this sampler only
        runner = "V2"
    else:
        raise RuntimeError(
            f"{type(model_runner).__name__}.sampler ({type(sampler).__name__}) is neither vLLM's V1 sampler "
            "(sampler.topk_topp_sampler) nor the V2 runner's (sampler.sampling_states): verl-ext's sampler is "
            "written for vLLM 0.24.0. Drop actor_rollout_ref.rollout.engine_kwargs.vllm.worker_extension_cls to "
            "use vLLM's own sampler.")
    logger.info("verl-ext fused sampler installed (%s runner, backend=%s, logprobs_mode=%s)", runner, backend,
                getattr(sampler, "logprobs_mode", "?"))
    if getattr(model_runner, "speculative_config", None) is not None:
        logger.warning("speculative decoding is on: vLLM's drafter and the acceptance of draft tokens use vLLM's "
                       "own sampling code; verl-ext's fused sampler draws only steps without draft tokens and "
                       "(V1 runner) the bonus token")
    return fused
