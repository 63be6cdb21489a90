"""Test helpers (shared with the benchmarks)."""

import torch

from verl_ext.bench.dataproto import build_tiny_tokenizer, make_dataproto

__all__ = ["BUSY_MACHINE", "build_tiny_tokenizer", "chi2_sf", "g_test_p_value", "kept_reference", "make_dataproto"]

# How many times longer than on an idle machine a test lets a step take (process exits, daemons stopping): CI runs
# on a shared 2-core machine with other work beside it.
BUSY_MACHINE = 4


def kept_reference(z: torch.Tensor, top_k: int | None, top_p: float | None, min_p: float | None) -> torch.Tensor:
    """Boolean [V] mask of one row's kept tokens after min-p, top-k and top-p, in fp64, written from the
    definition in verl_ext/ops/sampling.py (ties at a boundary kept)."""
    z = z.double()
    keep = torch.isfinite(z)
    p = torch.softmax(z, 0)
    if min_p:
        keep &= p >= min_p * p.max()
    if top_k and 0 < top_k < z.numel():
        keep &= z >= z.sort(descending=True).values[top_k - 1]
    if top_p is not None and top_p < 1:
        q = torch.where(keep, p, 0.0)
        q = q / q.sum()
        values, index = torch.unique(z, return_inverse=True)  # ascending
        mass = torch.zeros(values.numel(), dtype=torch.float64).index_add(0, index, q)
        above = (mass.flip(0).cumsum(0).flip(0) - mass)[index]  # kept mass strictly above each token
        keep &= above < top_p
    return keep


def chi2_sf(stat: float | torch.Tensor, dof: int) -> float:
    """Survival function of the chi-square distribution (scipy is not in the stack): the p-value of ``stat``."""
    return float(torch.special.gammaincc(torch.tensor(dof / 2, dtype=torch.float64),
                                         torch.as_tensor(stat, dtype=torch.float64) / 2))


def g_test_p_value(counts: torch.Tensor, probs: torch.Tensor) -> float:
    """G-test of observed counts against probabilities; cells expecting < 5 draws are pooled."""
    counts, probs = counts.double().cpu(), probs.double().cpu()
    expected = probs * counts.sum()
    small = expected < 5
    obs = torch.cat([counts[~small], counts[small].sum().reshape(1)])
    exp = torch.cat([expected[~small], expected[small].sum().reshape(1)])
    nonempty = exp > 0
    obs, exp = obs[nonempty], exp[nonempty]
    g = 2 * torch.where(obs > 0, obs * torch.log(obs / exp), 0.0).sum()
    return chi2_sf(g, obs.numel() - 1)
