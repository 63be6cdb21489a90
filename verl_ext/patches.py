"""Route verl's log-prob and entropy computations to verl-ext's fused ops.

Name this module in ``actor_rollout_ref.model.external_lib=verl_ext.patches`` (see
``verl_ext/configs/grpo_math_verl_ext_fused.yaml``): verl imports it in every worker before it builds the model,
and importing it applies the patches. What is routed:

- ``verl.utils.torch_functional.logprobs_from_logits`` (and the copies other verl modules imported by
  name: the FSDP, automodel and torchtitan engines, the naive rollout, prefix grouper) ->
  :func:`verl_ext.ops.logprobs_from_logits`;
- ``entropy_from_logits`` and ``entropy_from_logits_with_chunking`` -> the same op's entropy;
- with ``actor_rollout_ref.model.use_fused_kernels=true``: ``FusedLinearForPPO`` (``impl_backend`` torch
  or liger) and ``linear_cross_entropy`` (``impl_backend`` triton) -> :func:`verl_ext.ops.linear_logprobs`.
  verl looks both up at call time. ``linear_cross_entropy`` with a reduction or a vocabulary-parallel
  process group keeps verl's own kernel.

:func:`apply` is idempotent; :func:`remove` restores verl's functions.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

import torch

from verl_ext.ops import linear_logprobs
from verl_ext.ops import logprobs_from_logits as _logprobs

__all__ = [
    "FusedLinearForPPO",
    "applied",
    "apply",
    "entropy_from_logits",
    "linear_cross_entropy",
    "logprobs_from_logits",
    "remove",
]

_log = logging.getLogger(__name__)


def logprobs_from_logits(logits: torch.Tensor, labels: torch.Tensor, inplace_backward: bool = True) -> torch.Tensor:
    """verl's ``logprobs_from_logits(logits [..., V], labels [...])`` -> fp32 log-probs ``[...]``."""
    del inplace_backward  # our backward writes a fresh gradient in one pass
    batch = logits.shape[:-1]
    out = _logprobs(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
    return out.view(batch)


def entropy_from_logits(logits: torch.Tensor) -> torch.Tensor:
    """verl's ``entropy_from_logits(logits [..., V])`` -> fp32 entropy ``[...]``."""
    flat = logits.reshape(-1, logits.shape[-1])
    labels = torch.zeros(flat.shape[0], dtype=torch.int64, device=flat.device)
    _, entropy = _logprobs(flat, labels, return_entropy=True)
    return entropy.view(logits.shape[:-1])


def entropy_from_logits_with_chunking(logits: torch.Tensor, chunk_size: int = 2048) -> torch.Tensor:
    """verl's chunked variant: the op bounds its temporaries itself, so ``chunk_size`` is not needed."""
    del chunk_size
    return entropy_from_logits(logits)


class FusedLinearForPPO(torch.nn.Module):
    """Drop-in for verl's ``FusedLinearForPPO``: ``forward(hidden [..., H], weight [V, H], input_ids [...],
    temperature)`` -> fp32 ``(log_probs [...], entropy [...])`` without materialising the logits."""

    def __init__(self, chunk_size: int = 512, impl_backend: str = "torch") -> None:
        super().__init__()
        self.chunk_size = chunk_size
        self.impl_backend = impl_backend

    def forward(self, hidden_states: torch.Tensor, vocab_weights: torch.Tensor, input_ids: torch.Tensor,
                temperature: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
        batch = input_ids.shape
        lp, ent = linear_logprobs(hidden_states.reshape(-1, hidden_states.shape[-1]), vocab_weights,
                                  input_ids.reshape(-1).to(torch.int64), temperature=float(temperature),
                                  return_entropy=True)
        return lp.view(batch), ent.view(batch)


def linear_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float = 1.0,
                         reduction: str = "none", dist_process_group: Any = None) -> Any:
    """verl's ``linear_cross_entropy`` for ``reduction="none"`` without a process group; otherwise verl's."""
    if reduction != "none" or dist_process_group is not None:
        original = _ORIGINALS[("verl.utils.kernel.linear_cross_entropy", "linear_cross_entropy")]
        return original(hidden, weight, labels, temperature, reduction, dist_process_group)
    return FusedLinearForPPO()(hidden, weight, labels, temperature)


_LOGPROB_HOLDERS = ("verl.utils.torch_functional", "verl.workers.engine.fsdp.transformer_impl",
                    "verl.workers.engine.automodel.transformer_impl", "verl.workers.engine.torchtitan.transformer_impl",
                    "verl.workers.rollout.naive.naive_rollout", "verl.trainer.ppo.prefix_grouper_utils")
_TARGETS: dict[tuple[str, str], Callable[..., Any] | type] = {
    **{(m, "logprobs_from_logits"): logprobs_from_logits for m in _LOGPROB_HOLDERS},
    ("verl.utils.torch_functional", "entropy_from_logits"): entropy_from_logits,
    ("verl.utils.torch_functional", "entropy_from_logits_with_chunking"): entropy_from_logits_with_chunking,
    ("verl.utils.experimental.torch_functional", "FusedLinearForPPO"): FusedLinearForPPO,
    ("verl.utils.kernel.linear_cross_entropy", "linear_cross_entropy"): linear_cross_entropy,
}
#: The functions we replaced, to restore them and to delegate what we do not cover.
_ORIGINALS: dict[tuple[str, str], Any] = {}


def apply() -> list[str]:
    """Patch every target whose module imports here; returns the patched ``module.attr`` names.

    A module that cannot be imported (an engine whose optional dependency is missing) is skipped: nothing
    can call its function then.
    """
    done = []
    for (module_name, attr), replacement in _TARGETS.items():
        try:
            module = importlib.import_module(module_name)
        except Exception as e:  # noqa: BLE001 - optional engines fail to import in many ways
            _log.debug("verl-ext patches: skipping %s (%s)", module_name, e)
            continue
        current = getattr(module, attr, None)
        if current is None:
            continue
        if current is not replacement:
            _ORIGINALS.setdefault((module_name, attr), current)
            setattr(module, attr, replacement)
        done.append(f"{module_name}.{attr}")
    return done


def remove() -> None:
    """Restore verl's own functions."""
    for (module_name, attr), original in list(_ORIGINALS.items()):
        setattr(importlib.import_module(module_name), attr, original)
    _ORIGINALS.clear()


def applied() -> bool:
    """Whether verl's ``logprobs_from_logits`` is ours now."""
    return importlib.import_module("verl.utils.torch_functional").logprobs_from_logits is logprobs_from_logits


_PATCHED = apply()
_log.info("verl-ext patches applied to %d verl functions", len(_PATCHED))
