"""Fused ops for the actor: log-probs and entropy from logits (Triton on CUDA/ROCm, torch elsewhere)."""

from verl_ext.ops.logprobs import logprobs_from_logits

__all__ = ["logprobs_from_logits"]
