"""Rewards: verl's rule-based scorers in Rust, a symbolic math verifier, a format reward, and the ``verl_ext``
reward manager.

The managers themselves live in :mod:`verl_ext.reward.manager` (imported by the verl plugin), so
that this module does not import torch or verl.
"""

from verl_ext.reward.format import FormatReward, format_score
from verl_ext.reward.math_verify import Verification, math_equal, math_equal_batch, verify, verify_batch
from verl_ext.reward.scoring import compute_score, compute_scores, native_scorer

__all__ = [
    "FormatReward",
    "Verification",
    "compute_score",
    "compute_scores",
    "format_score",
    "math_equal",
    "math_equal_batch",
    "native_scorer",
    "verify",
    "verify_batch",
]
