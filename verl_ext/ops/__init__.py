"""Fused ops for the actor: log-probs and entropy from logits (Triton on CUDA/ROCm, torch elsewhere) and
from hidden states without materialising the logits."""

from verl_ext.ops.linear_logprobs import linear_logprobs
from verl_ext.ops.logprobs import logprobs_from_logits

__all__ = ["linear_logprobs", "logprobs_from_logits"]
