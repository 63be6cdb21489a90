"""Fused ops: log-probs and entropy from logits (Triton on CUDA/ROCm, torch elsewhere) and from hidden states
without materialising the logits, for the actor; top-k/top-p/min-p sampling with sampled-token log-probs,
for rollouts."""

from verl_ext.ops.linear_logprobs import linear_logprobs
from verl_ext.ops.logprobs import logprobs_from_logits
from verl_ext.ops.sampling import (
    ProcessedSample,
    SampleOutput,
    kept_threshold,
    sample,
    sample_processed,
    sample_with_threshold,
    seeded_uniform,
)
from verl_ext.ops.sampling_compat import (
                                          min_p_sampling_from_probs,
                                          top_k_mask_logits,
                                          top_k_renorm_probs,
                                          top_k_top_p_sampling_from_logits,
                                          top_p_renorm_probs,
                                          top_p_sampling_from_probs,
)

__all__ = ["ProcessedSample", "SampleOutput", "kept_threshold", "linear_logprobs", "logprobs_from_logits",
           "min_p_sampling_from_probs", "sample", "sample_processed", "sample_with_threshold", "seeded_uniform",
           "top_k_mask_logits", "top_k_renorm_probs", "top_k_top_p_sampling_from_logits", "top_p_renorm_probs",
           "top_p_sampling_from_probs"]
