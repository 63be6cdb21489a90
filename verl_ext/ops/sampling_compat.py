"""FlashInfer-style sampling names on top of :mod:`verl_ext.ops.sampling` (same semantics on every backend).

Signatures follow ``flashinfer.sampling`` where it matters to callers (tensor first, then the filter
parameter as a scalar or per-row tensor); randomness is a ``seed`` (scalar or per-row) instead of a
``torch.Generator``. Probabilities are turned into logits with ``log`` (zero stays impossible).
"""

from __future__ import annotations

import torch

from verl_ext.ops.sampling import Backend, Param, kept_threshold, sample

__all__ = ["min_p_sampling_from_probs", "top_k_mask_logits", "top_k_renorm_probs", "top_k_top_p_sampling_from_logits",
           "top_p_renorm_probs", "top_p_sampling_from_probs"]


def _logits_of(probs: torch.Tensor) -> torch.Tensor:
    if probs.dim() != 2:
        raise ValueError(f"probs must be [B, V], got shape {tuple(probs.shape)}")
    return torch.log(probs.float())


def top_k_top_p_sampling_from_logits(logits: torch.Tensor, top_k: Param, top_p: Param, *,
                                     seed: int | torch.Tensor | None = None, backend: Backend = "auto"
                                     ) -> torch.Tensor:
    """Token ids ``[B]`` drawn after top-k, then top-p renormalised over the top-k set."""
    return sample(logits, top_k=top_k, top_p=top_p, seed=seed, backend=backend)


def top_p_sampling_from_probs(probs: torch.Tensor, top_p: Param, *, seed: int | torch.Tensor | None = None,
                              backend: Backend = "auto") -> torch.Tensor:
    """Token ids ``[B]`` drawn from the smallest top set of ``probs`` whose mass reaches ``top_p``."""
    return sample(_logits_of(probs), top_p=top_p, seed=seed, backend=backend)


def min_p_sampling_from_probs(probs: torch.Tensor, min_p: Param, *, seed: int | torch.Tensor | None = None,
                              backend: Backend = "auto") -> torch.Tensor:
    """Token ids ``[B]`` drawn from the tokens with ``p >= min_p * max(p)``."""
    return sample(_logits_of(probs), min_p=min_p, seed=seed, backend=backend)


def _renorm(probs: torch.Tensor, backend: Backend, **filters: Param) -> torch.Tensor:
    z = _logits_of(probs)
    tau, log_norm = kept_threshold(z, backend=backend, **filters)
    return torch.where(z >= tau[:, None], torch.exp(z - log_norm[:, None]), 0.0).to(probs.dtype)


def top_k_renorm_probs(probs: torch.Tensor, top_k: Param, *, backend: Backend = "auto") -> torch.Tensor:
    """``probs`` with everything below the k-th largest set to 0 and the rest renormalised (ties kept)."""
    return _renorm(probs, backend, top_k=top_k)


def top_p_renorm_probs(probs: torch.Tensor, top_p: Param, *, backend: Backend = "auto") -> torch.Tensor:
    """``probs`` restricted to the smallest top set whose mass reaches ``top_p``, renormalised."""
    return _renorm(probs, backend, top_p=top_p)


def top_k_mask_logits(logits: torch.Tensor, top_k: Param, *, backend: Backend = "auto") -> torch.Tensor:
    """``logits`` with everything below the k-th largest set to ``-inf`` (ties kept)."""
    tau, _ = kept_threshold(logits, top_k=top_k, backend=backend)
    return torch.where(logits.float() >= tau[:, None], logits, torch.full_like(logits, float("-inf")))
