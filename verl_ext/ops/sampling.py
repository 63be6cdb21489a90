"""Top-k / top-p / min-p sampling that also returns the sampled token's log-probs.

Semantics, identical on every backend (``z = logits / temperature``, ``p = softmax(z)``):

1. **min-p** keeps tokens with ``p_i >= min_p * max(p)``;
2. **top-k** keeps tokens whose ``z`` is >= the k-th largest ``z``;
3. **top-p** then keeps, among those, the largest tokens until their mass *renormalised over what 1 and 2
   kept* reaches ``top_p``: a token is kept when the kept mass strictly above it is ``< top_p`` (vLLM's and
   FlashInfer's "top-k first" order);
4. the token is drawn from the kept tokens' renormalised distribution by inverse CDF, in vocabulary order,
   with one uniform number per row.

Every filter is "all tokens at or above a threshold", so the kept set is ``{z >= tau}`` for one ``tau`` per
row and **ties at a boundary are all kept**. Disabled values: ``top_k`` None, ``<= 0`` or ``>= V``;
``top_p`` None or ``>= 1``; ``min_p`` None or ``0``. Rows whose logits contain NaN or ``+inf`` (also one that
overflows fp32 once divided by the temperature) or are all ``-inf``, and rows given an invalid per-row
parameter (temperature ``<= 0``, ``top_p <= 0``, ``min_p`` outside [0, 1]), get token ``-1`` and NaN
log-probs: checking tensors on the host would cost a GPU synchronisation per step.

Backends: Triton (CUDA and ROCm) splits each row's vocabulary across programs (:func:`launch_plan` says how many and
how often each logit is read) and finds ``tau`` without sorting, in a number of passes fixed by which filters may be
on: one pass for max, sum of exp and NaN; min-p without top-k by one more pass at its known threshold (the least
fp32 ``t`` with ``t - max >= log(min_p)``, relative to the max); top-k (and min-p with it) by radix selection over
the order-preserving fp32 keys (digits of 11, 11 and 10 bits counted per bucket, the first inside the statistics
pass); top-p over a top-k of at most ``K_MAX`` tokens from that set itself, which the last count pass gathers (no
pass of its own); other top-p rows by radix selection over what top-k and min-p kept (digits of 8, 13 and 11 bits,
buckets summing exp-mass: the first inside the statistics pass, the second by integer atomics of fixed-point
masses). The last digit of each search is one bucket per key, so thresholds are exact whatever the data (ties, flat
rows, ``-inf``, huge ranges). The draw re-reads only the split holding the token (each split's kept mass is known).
Reads of each logit per row: at most 4 with any filters, except top-p with a top-k above ``K_MAX`` (5; also a
min-p + top-p row of a call whose per-row top-k may hold top-k rows). A Python-int top-k of at most ``K_MAX``
launches no mass passes; with a per-row top-k they are launched and only the rows that need them read in them.
FlashInfer (CUDA, optional): its sort-free rejection sampler draws the token; log-probs come from the Triton
threshold passes, which also give the log-sum-exp. The torch reference sorts.

The Triton and torch paths run inside the custom op ``verl_ext::sample`` (``torch.library.custom_op`` with a
fake implementation), a pure function of the logits, the per-row parameters and the uniforms, so
``torch.compile`` keeps it in its graph and CUDA graphs can capture the Triton path. Sampling is not
differentiable (no autograd is registered; the logits are detached). The FlashInfer path stays plain
Python around FlashInfer's own ops (it takes a ``torch.Generator``, which is not an op input).
"""

from __future__ import annotations

import functools
import importlib
import numbers
from collections.abc import Callable
from typing import Literal, NamedTuple, get_args, overload

import torch

from verl_ext.ops._backend import is_rocm, resolve_backend
from verl_ext.ops.sampling_kernels import Thresholds, plan_for
from verl_ext.ops.sampling_kernels import run as run_kernels
from verl_ext.ops.sampling_plan import K_MAX, SamplingPlan, launch_plan

__all__ = ["BACKENDS", "Backend", "Param", "ProcessedSample", "SampleOutput", "SamplingPlan", "flashinfer_available",
           "kept_threshold", "launch_plan", "sample", "sample_processed", "sample_with_threshold", "seeded_uniform"]

Backend = Literal["auto", "triton", "flashinfer", "torch"]
BACKENDS: tuple[Backend, ...] = get_args(Backend)
Param = float | int | torch.Tensor | None



class SampleOutput(NamedTuple):
    """Sampled token ids ``[B]`` (int64) and their fp32 log-probs ``[B]`` under the processed (filtered and
    renormalised) distribution and under the temperature-only distribution."""

    token_ids: torch.Tensor
    logprobs: torch.Tensor
    raw_logprobs: torch.Tensor


class _Rows(NamedTuple):
    """Per-row parameters, normalised once: float32/int32 tensors ``[B]`` on the logits' device."""

    inv_temperature: torch.Tensor
    top_k: torch.Tensor
    top_p: torch.Tensor
    min_p: torch.Tensor
    uniform: torch.Tensor


class _Result(NamedTuple):
    token_ids: torch.Tensor  # int64 [B], -1 for invalid rows
    logprobs: torch.Tensor  # fp32 [B]
    raw_logprobs: torch.Tensor  # fp32 [B]
    tau: torch.Tensor  # fp32 [B]: kept set is {z >= tau}
    row_max: torch.Tensor  # fp32 [B]: max of z (NaN for invalid rows)
    log_kept: torch.Tensor  # fp32 [B]: log of the kept mass relative to it, log sum_kept exp(z - row_max)

    @property
    def log_norm(self) -> torch.Tensor:
        """Log of the kept mass: kept probabilities are exp(z - log_norm)."""
        return self.row_max + self.log_kept


# --------------------------------------------------------------------------------------------- Triton
def _filters_on(top_k: Param, top_p: Param, min_p: Param, vocab: int) -> str:
    """Which filters may be on for some row, as the letters the custom op's backend string carries
    ("triton:kpm"): a per-row tensor counts as on (reading it would cost a host synchronisation). "g": a
    scalar top-k of at most ``K_MAX`` is on for every row, so top-p needs no mass passes (a per-row tensor
    may hold any k: those rows that need them take them)."""
    def on(value: Param, enabled: Callable[[float], bool]) -> bool:
        if isinstance(value, torch.Tensor):
            return value.dim() > 0 or enabled(float(value.item()))
        return value is not None and enabled(float(value))

    return "".join(letter for letter, value, enabled in (
        ("k", top_k, lambda v: 0 < v < vocab), ("p", top_p, lambda v: v < 1), ("m", min_p, lambda v: v > 0),
        ("g", None if isinstance(top_k, torch.Tensor) and top_k.dim() > 0 else top_k,
         lambda v: 0 < v < vocab and v <= K_MAX))
        if on(value, enabled))


def _triton(logits: torch.Tensor, rows: _Rows, sample: bool, filters: str = "kpm") -> _Result:
    """The split Triton kernels (:mod:`verl_ext.ops.sampling_kernels`) following :func:`launch_plan`."""
    if logits.stride(-1) != 1:
        logits = logits.contiguous()
    res = _triton_full(logits, rows, sample, filters)
    return _Result(res.token_ids, res.logprobs, res.raw_logprobs, res.tau, res.row_max, res.log_kept)


def _triton_full(logits: torch.Tensor, rows: _Rows, sample: bool, filters: str) -> Thresholds:
    plan = plan_for(logits, top_k="k" in filters, top_p="p" in filters, min_p="m" in filters, sample=sample,
                    top_k_bound=K_MAX if "g" in filters else None)
    dense = [t.contiguous() for t in rows]  # the kernels index the per-row parameters densely
    return run_kernels(logits, dense[0], dense[1], dense[2], dense[3], dense[4], plan)


# ------------------------------------------------------------------------------------ torch reference
def _fp32_key(t: torch.Tensor) -> torch.Tensor:
    """Order-preserving int64 key of fp32 values."""
    bits = t.contiguous().view(torch.int32)
    return torch.where(bits < 0, bits ^ 0x7FFFFFFF, bits).long()


def _fp32_of_key(key: torch.Tensor) -> torch.Tensor:
    """The fp32 values of :func:`_fp32_key`'s keys (the same bit flip undoes it)."""
    k = key.int()
    return torch.where(k < 0, k ^ 0x7FFFFFFF, k).view(torch.float32)


def _min_p_threshold(mx: torch.Tensor, min_p: torch.Tensor) -> torch.Tensor:
    """Min-p's threshold per row: the smallest fp32 ``t`` with ``t - mx >= log(min_p)`` in fp32, so min-p keeps
    ``{z >= t}``, which is ``{z - mx >= log(min_p)}``: decided relative to the max, as ``p >= min_p * max p`` is
    (``fp32(mx + log(min_p))`` is off by up to half an ulp of ``mx``: 0.03 at 1e6). ``-inf`` where ``min_p`` is
    0 (or not positive), ``mx + log(min_p)`` where ``mx`` is not finite. Bisection over the fp32 keys below
    ``mx`` (the test is monotone in ``t``): 33 elementwise steps on ``[B]``, no host synchronisation."""
    on = min_p > 0
    log_m = torch.log(torch.where(on, min_p, 1.0))
    finite = torch.isfinite(mx)
    m = torch.where(finite, mx, 0.0)
    lo = _fp32_key(torch.full_like(m, float("-inf")))  # t = -inf fails (log_m is finite)
    hi = _fp32_key(m)  # t = mx passes (log_m <= 0)
    for _ in range(33):
        mid = torch.div(lo + hi, 2, rounding_mode="floor")
        ok = (_fp32_of_key(mid) - m) >= log_m
        hi, lo = torch.where(ok, mid, hi), torch.where(ok, lo, mid)
    t = _fp32_of_key(hi) + 0.0  # -0.0 -> +0.0
    return torch.where(on, torch.where(finite, t, mx + log_m), float("-inf"))


def _torch(logits: torch.Tensor, rows: _Rows, sample: bool) -> _Result:
    """Sort-based reference with the same semantics (and the same uniforms, so the same tokens)."""
    n, vocab = logits.shape
    neg_inf = torch.tensor(float("-inf"), device=logits.device)
    z = logits.float() * rows.inv_temperature[:, None] + 0.0
    k_on = (rows.top_k > 0) & (rows.top_k < vocab)
    p_on = rows.top_p < 1
    m_on = rows.min_p > 0
    bad = ~((rows.inv_temperature > 0) & torch.isfinite(rows.inv_temperature) & (rows.top_p > 0)
            & (rows.min_p >= 0) & (rows.min_p <= 1))
    bad |= torch.isnan(z).any(1) | (z == float("-inf")).all(1) if vocab else torch.ones_like(bad)
    z = torch.where(bad[:, None], torch.zeros_like(z), z)
    mx = z.max(1).values if vocab else torch.zeros(n, device=z.device)
    se = torch.exp(z - mx[:, None]).sum(1)
    s = z.sort(1, descending=True).values
    t_min = _min_p_threshold(mx, rows.min_p)
    kth = s.gather(1, (rows.top_k.long().clamp(1, max(vocab, 1)) - 1)[:, None])[:, 0] if vocab else mx
    tau1 = torch.maximum(torch.where(k_on, kth, neg_inf), t_min)
    e = torch.where(s >= tau1[:, None], torch.exp(s - mx[:, None]), 0.0)
    z_s = torch.where(k_on | m_on, e.sum(1), se)
    above = e.cumsum(1) - e
    keep = (s >= tau1[:, None]) & (~p_on[:, None] | (above < (rows.top_p * z_s)[:, None]))
    tau = torch.where(keep, s, float("inf")).min(1).values
    tau = torch.where(k_on | p_on | m_on, tau, neg_inf)
    tau = torch.where(bad, float("nan"), tau)
    w = torch.where(z >= tau[:, None], torch.exp(z - mx[:, None]), 0.0)
    kept = w.sum(1)
    log_kept = torch.where(bad, float("nan"), torch.log(kept))
    row_max = torch.where(torch.isnan(log_kept), float("nan"), mx)  # as the kernels: NaN with a +inf logit too
    if not sample:
        empty = torch.empty(0, device=z.device)
        return _Result(empty.long(), empty, empty.clone(), tau, row_max, log_kept)
    cum = w.cumsum(1)
    first = torch.searchsorted(cum, (rows.uniform * kept)[:, None].contiguous(), right=True)[:, 0]
    last = torch.where(w > 0, torch.arange(vocab, device=z.device), -1).max(1).values if vocab else mx.long()
    tok = torch.minimum(first, last)
    z_tok = z.gather(1, tok.clamp(min=0)[:, None])[:, 0]
    nan = torch.tensor(float("nan"), device=z.device)
    # Relative to the max: z_tok - log_norm would lose log(kept) to the rounding of mx + log(kept) at large |mx|.
    return _Result(torch.where(bad, -1, tok), torch.where(bad, nan, (z_tok - mx) - torch.log(kept)),
                   torch.where(bad, nan, (z_tok - mx) - torch.log(se)), tau, row_max, log_kept)


# ---------------------------------------------------------------------------------------- FlashInfer
@functools.cache
def flashinfer_available() -> bool:
    """FlashInfer's sampling module imports (CUDA only; ``pip install flashinfer-python``)."""
    try:
        importlib.import_module("flashinfer.sampling")
    except (ImportError, RuntimeError, OSError):  # not installed, or a CUDA/JIT/library error at import
        return False
    return True


def _flashinfer(logits: torch.Tensor, rows: _Rows, seed: int | None, want_logprobs: bool,
                filters: str = "kpm") -> _Result:
    """Tokens from FlashInfer's sort-free sampler (min-p applied first as a mask, where some row may have it;
    without top-k and top-p, its unfiltered sampler: one kernel, no mask or renormalisation passes); log-probs,
    when asked, from the Triton threshold passes (same top-k-then-top-p semantics), which also give the
    log-sum-exp: no separate pass over the logits for the raw log-probs."""
    import flashinfer.sampling as fs

    inv_t, top_p, min_p = rows.inv_temperature, rows.top_p, rows.min_p
    z = logits.float() * inv_t[:, None]
    vocab = z.shape[1]
    # Rows without a distribution get token -1, as on the other backends: bad parameters, or a NaN, a +inf or
    # nothing above -inf (the max is NaN or not finite). FlashInfer gets a flat row in their place, never an
    # undefined one.
    mx = z.amax(1)
    bad = ~((inv_t > 0) & torch.isfinite(inv_t) & (top_p > 0) & (min_p >= 0) & (min_p <= 1) & torch.isfinite(mx))
    z = torch.where(bad[:, None], 0.0, z)
    if "m" in filters:  # min_p 0 (and bad rows) -> log 0 = -inf: no mask, no sync
        t_min = _min_p_threshold(torch.where(bad, 0.0, mx), torch.where(bad, 0.0, min_p))
        z = torch.where(z >= t_min[:, None], z, float("-inf"))
    gen = None if seed is None else torch.Generator(device=z.device).manual_seed(seed & _MASK64)
    if "k" in filters or "p" in filters:
        top_k = torch.where((rows.top_k > 0) & (rows.top_k < vocab), rows.top_k, vocab).to(torch.int32)
        tok = fs.top_k_top_p_sampling_from_logits(z, top_k, torch.where(bad, 1.0, top_p.clamp(max=1.0)),
                                                  filter_apply_order="top_k_first", deterministic=True,
                                                  generator=gen).long()
    else:
        tok = fs.sampling_from_logits(z, deterministic=True, generator=gen).long()
    tok = torch.where(bad, -1, tok)
    empty = torch.full_like(rows.top_p, float("nan"))
    if not want_logprobs:
        return _Result(tok, empty, empty, empty, empty, empty)
    thr = _triton_full(logits if logits.stride(-1) == 1 else logits.contiguous(), rows, False, filters)
    # Relative to the row's max, as the kernels compute them (bad rows: NaN from thr).
    z_tok = logits.gather(1, tok.clamp(min=0)[:, None])[:, 0].float() * inv_t - mx
    return _Result(tok, z_tok - thr.log_kept, z_tok - thr.log_mass, thr.tau, thr.row_max, thr.log_kept)


# ------------------------------------------------------------------------------------------ custom op
# A pure function of its inputs (the uniforms are an input), so torch.compile keeps it whole and, on the
# Triton path, CUDA graphs can capture it. Sampling is not differentiable: no autograd is registered and
# the public functions pass detached logits.
@torch.library.custom_op("verl_ext::sample", mutates_args=())
def _sample_op(logits: torch.Tensor, inv_temperature: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
               min_p: torch.Tensor, uniform: torch.Tensor, backend: str, draw: bool
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(token ids int64, log-probs, raw log-probs, tau, row max, log_kept) ``[B]``; without ``draw`` only the
    threshold passes run and the first three are empty (``[0]``). ``backend`` is "torch", or "triton" with the
    filters that may be on after a colon ("triton:kp"; plain "triton" assumes all three)."""
    rows = _Rows(inv_temperature, top_k, top_p, min_p, uniform)
    name, colon, filters = backend.partition(":")
    res = _triton(logits, rows, draw, filters if colon else "kpm") if name == "triton" else _torch(logits, rows, draw)
    return res.token_ids, res.logprobs, res.raw_logprobs, res.tau, res.row_max, res.log_kept


@_sample_op.register_fake
def _sample_fake(logits: torch.Tensor, inv_temperature: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
                 min_p: torch.Tensor, uniform: torch.Tensor, backend: str, draw: bool
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    n = logits.shape[0]
    drawn = n if draw else 0
    return (logits.new_empty(drawn, dtype=torch.int64), logits.new_empty(drawn, dtype=torch.float32),
            logits.new_empty(drawn, dtype=torch.float32), logits.new_empty(n, dtype=torch.float32),
            logits.new_empty(n, dtype=torch.float32), logits.new_empty(n, dtype=torch.float32))


# ------------------------------------------------------------------------------------------ public API
def _per_row(value: Param, n: int, default: float, dtype: torch.dtype, device: torch.device, name: str,
             check: Callable[[float], bool]) -> torch.Tensor:
    if value is None:
        return torch.full((n,), default, dtype=dtype, device=device)
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bool or value.is_complex():  # True would be 1, an imaginary part dropped
            raise TypeError(f"{name} must be a tensor of real numbers, got {value.dtype}")
        if value.dim() == 0:
            value = value.item()
        else:
            if value.shape != (n,):
                raise ValueError(f"{name} must be a scalar or a tensor of shape [{n}], got {tuple(value.shape)}")
            return value.to(device=device, dtype=dtype)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy's scalars are Real too
        raise TypeError(f"{name} must be a number, a tensor or None, got {type(value).__name__}")
    value = float(value) if not isinstance(value, numbers.Integral) else int(value)
    if not check(value):
        raise ValueError(f"{name}={value!r} is out of range ({check.__doc__})")
    return torch.full((n,), value, dtype=dtype, device=device)


_FP32_MAX = 3.4028234663852886e38
_FP32_TINY = 1.1754943508222875e-38  # smallest normal fp32: 1 / (its fp32 value) stays finite in fp32


def _positive_finite(v: float) -> bool:
    """must be in fp32's normal range (1.2e-38 to 3.4e38), so that its inverse is finite in fp32; for greedy
    decoding use logits.argmax(-1)"""
    return _FP32_TINY <= v <= _FP32_MAX


def _integer(v: float) -> bool:
    """an integer; <= 0 or >= vocabulary size disables it"""
    return float(v).is_integer()


def _probability(v: float) -> bool:
    """must be in (0, 1]; 1 disables it"""
    return 0 < v <= 1


def _unit(v: float) -> bool:
    """must be in [0, 1]; 0 disables it"""
    return 0 <= v <= 1


_MASK64 = (1 << 64) - 1


def _signed(c: int) -> int:
    return c - (1 << 64) if c >= 1 << 63 else c


_GOLDEN, _MUL1, _MUL2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _mix_int(x: int) -> int:
    """SplitMix64 finaliser on a Python integer modulo 2^64 (what :func:`_mix` does to each element)."""
    x = (x + _GOLDEN) & _MASK64
    x = ((x ^ (x >> 30)) * _MUL1) & _MASK64
    x = ((x ^ (x >> 27)) * _MUL2) & _MASK64
    return x ^ (x >> 31)


def _mix(x: torch.Tensor, offset: int = 0) -> torch.Tensor:
    """SplitMix64 finaliser of ``x + offset`` on int64 tensors (wrapping arithmetic; logical shifts by
    masking). The offset joins the finaliser's own constant on the host: Inductor folds constants added to
    an index in unbounded integers, and two of them overflow int64."""
    def shr(v: torch.Tensor, s: int) -> torch.Tensor:
        return (v >> s) & ((1 << (64 - s)) - 1)

    x = x + _signed((offset + _GOLDEN) & _MASK64)
    x = (x ^ shr(x, 30)) * _signed(_MUL1)
    x = (x ^ shr(x, 27)) * _signed(_MUL2)
    return x ^ shr(x, 31)


def seeded_uniform(seed: int | torch.Tensor, n: int, device: torch.device | str) -> torch.Tensor:
    """The uniform number in [0, 1) each row draws with: a scalar seed gives every row its own number (mixed
    with the row index); per-row seeds ``[n]`` give equal rows equal numbers, wherever they are."""
    if isinstance(seed, torch.Tensor) and seed.dim() > 0:
        if seed.shape != (n,):
            raise ValueError(f"seed must be an int or a tensor of shape [{n}], got {tuple(seed.shape)}")
        key = _mix(seed.to(device=device, dtype=torch.int64))
    else:
        key = _mix(torch.arange(n, dtype=torch.int64, device=device), offset=_mix_int(int(seed) & _MASK64))
    return ((key >> 40) & ((1 << 24) - 1)).to(torch.float32) / float(1 << 24)


def _check_seed(seed: object) -> None:
    """A seed is an integer (not a bool, a float or a string) or an integer tensor; anything else is a
    ``TypeError`` rather than a silent truncation."""
    if isinstance(seed, torch.Tensor):
        if seed.is_floating_point() or seed.is_complex() or seed.dtype == torch.bool:
            raise TypeError(f"seed must be an int or an integer tensor, got a {seed.dtype} tensor")
    elif isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int or an integer tensor, got {type(seed).__name__}")


def _top_k_in_range(top_k: Param, n: int, vocab: int) -> Param:
    """``top_k`` with its disabling values (<= 0, >= V) brought into int32: a scalar outside (0, V) becomes 0,
    a per-row integer tensor is clipped to [0, V] before its cast (2^32 + 3 must not wrap to 3). A per-row
    floating tensor is a ``TypeError``: its fractions would be truncated where a scalar's are refused."""
    if isinstance(top_k, torch.Tensor) and top_k.dim() > 0:
        if top_k.shape != (n,):
            return top_k  # _per_row names the shape it needs
        if top_k.is_floating_point() or top_k.is_complex() or top_k.dtype == torch.bool:
            raise TypeError(f"a per-row top_k must be an integer tensor, got {top_k.dtype}")
        if top_k.dtype == torch.int32:  # vLLM's dtype: nothing to do on the rollout's hot path
            return top_k
        # Through int64, where an unsigned value past 2^63 turns negative and still disables the filter.
        return top_k.to(torch.int64).clamp(0, vocab)
    value = top_k.item() if isinstance(top_k, torch.Tensor) else top_k
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and _integer(float(value)) \
            and not 0 < value < vocab:
        return 0
    return value


def _rows(logits: torch.Tensor, temperature: Param, top_k: Param, top_p: Param, min_p: Param,
          seed: int | torch.Tensor | None, uniform: torch.Tensor | None) -> _Rows:
    if logits.dim() != 2:
        raise ValueError(f"logits must be [B, V], got shape {tuple(logits.shape)}")
    if not logits.is_floating_point():
        raise TypeError(f"logits must be a floating-point tensor, got {logits.dtype}")
    n, vocab, dev = logits.shape[0], logits.shape[1], logits.device
    if vocab < 1:
        raise ValueError(f"logits need at least one column (token), got shape {tuple(logits.shape)}")
    temp = _per_row(temperature, n, 1.0, torch.float32, dev, "temperature", _positive_finite)
    if uniform is not None:
        if seed is not None:
            raise ValueError("give either seed or uniform, not both")
        if not isinstance(uniform, torch.Tensor) or uniform.shape != (n,):
            got = tuple(uniform.shape) if isinstance(uniform, torch.Tensor) else type(uniform).__name__
            raise ValueError(f"uniform must be a tensor of shape [{n}], got {got}")
        if not uniform.is_floating_point():
            raise TypeError(f"uniform must be a floating-point tensor of numbers in [0, 1), got {uniform.dtype}")
        # Below 0 means the first kept token, as 0 does (NaN and >= 1 already mean the last one).
        u = uniform.to(device=dev, dtype=torch.float32).clamp(min=0.0)
    elif seed is None:
        u = torch.rand(n, device=dev, dtype=torch.float32)
    else:
        _check_seed(seed)
        u = seeded_uniform(seed, n, dev)
    return _Rows(1.0 / temp, _per_row(_top_k_in_range(top_k, n, vocab), n, 0, torch.int32, dev, "top_k", _integer),
                 _per_row(top_p, n, 1.0, torch.float32, dev, "top_p", _probability),
                 _per_row(min_p, n, 0.0, torch.float32, dev, "min_p", _unit), u)


# Taken as a constant by torch.compile: it imports modules and reads the environment, which Dynamo would not
# trace (a graph break).
@torch.compiler.assume_constant_result
def _choose(backend: Backend, device: torch.device, per_row_random: bool, want_logprobs: bool) -> str:
    """The backend a :func:`sample` call runs on (its arguments already passed :func:`_check_backend`)."""
    if backend == "flashinfer":
        if device.type != "cuda" or is_rocm() or not flashinfer_available():
            raise RuntimeError("backend='flashinfer' needs an NVIDIA GPU tensor and flashinfer-python "
                               "(pip install flashinfer-python); use backend='triton' or 'torch'")
        return "flashinfer"
    # With log-probs FlashInfer's path runs Triton's threshold passes and then its own sampler on top, so Triton
    # alone (whose draw re-reads one split) is less work by construction.
    if backend == "auto" and device.type == "cuda" and not is_rocm() and not per_row_random \
            and not want_logprobs and flashinfer_available():
        return "flashinfer"
    return resolve_backend(backend, device)


@torch.compiler.assume_constant_result
def _choose_kernel(backend: Backend, device: torch.device) -> str:
    """Triton or torch for the calls that return thresholds (``backend`` already passed
    :func:`_check_backend`)."""
    return resolve_backend(backend, device)


def _check_backend(backend: object, *, thresholds: bool, per_row_random: bool = False) -> None:
    """``ValueError`` for a backend name the call cannot take. Plain Python outside the constant-folded
    choices above, so that under ``torch.compile`` the error keeps its type (an exception inside an
    ``assume_constant_result`` function surfaces as Dynamo's internal error). FlashInfer has no threshold
    kernel, and its sampler cannot draw with per-row seeds or uniforms: naming it there is an error rather
    than a silent switch to another backend."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    if backend == "flashinfer" and thresholds:
        raise ValueError("backend='flashinfer' only draws tokens (sample()); kept_threshold, sample_with_threshold, "
                         "sample_processed and the renorm/mask functions have no FlashInfer kernel: use 'auto', "
                         "'triton' or 'torch'")
    if backend == "flashinfer" and per_row_random:
        raise ValueError("backend='flashinfer' takes only a scalar seed; per-row seeds or uniform need "
                         "backend='triton' or 'torch'")


def _run(logits: torch.Tensor, rows: _Rows, backend: str, sample: bool, filters: str) -> _Result:
    op_backend = f"triton:{filters}" if backend == "triton" else backend
    return _Result(*torch.ops.verl_ext.sample(logits.detach(), *rows, op_backend, sample))


@overload
def sample(logits: torch.Tensor, *, temperature: Param = ..., top_k: Param = ..., top_p: Param = ...,
           min_p: Param = ..., seed: int | torch.Tensor | None = ..., return_logprobs: Literal[False] = ...,
           uniform: torch.Tensor | None = ..., backend: Backend = ...) -> torch.Tensor: ...
@overload
def sample(logits: torch.Tensor, *, temperature: Param = ..., top_k: Param = ..., top_p: Param = ...,
           min_p: Param = ..., seed: int | torch.Tensor | None = ..., return_logprobs: Literal[True],
           uniform: torch.Tensor | None = ..., backend: Backend = ...) -> SampleOutput: ...
def sample(logits: torch.Tensor, *, temperature: Param = 1.0, top_k: Param = None, top_p: Param = None,
           min_p: Param = None, seed: int | torch.Tensor | None = None, return_logprobs: bool = False,
           uniform: torch.Tensor | None = None, backend: Backend = "auto") -> torch.Tensor | SampleOutput:
    """Draw one token per row after temperature, min-p, top-k and top-p (see the module docstring).

    Parameters
    ----------
    logits : torch.Tensor
        ``[B, V]`` fp32/bf16/fp16 logits; any strides.
    temperature, top_k, top_p, min_p : float | int | torch.Tensor | None
        Scalars, or per-row tensors ``[B]``. Disabled: ``top_k`` None/<=0/>=V, ``top_p`` None/1,
        ``min_p`` None/0. Scalars are validated (``ValueError``); invalid per-row entries give that row
        token -1 and NaN log-probs (no host synchronisation). On the Triton path a Python-number ``top_k`` of at
        most ``K_MAX`` (1024) with ``top_p`` reads the logits 3 times instead of 6: the host knows no row needs
        top-p's mass passes (with a per-row tensor they are launched, and only the rows that need them read).
    seed : int | torch.Tensor | None
        A scalar seed (each row gets its own stream) or per-row seeds ``[B]`` (equal seeds, equal draws).
        None draws from torch's default generator.
    return_logprobs : bool
        Also return the sampled tokens' log-probs (processed and temperature-only), as a ``SampleOutput``.
    uniform : torch.Tensor | None
        The uniform number in [0, 1) for each row, instead of ``seed`` (e.g. from per-request generators).
    backend : "auto" | "triton" | "flashinfer" | "torch"
        "auto": FlashInfer on NVIDIA GPUs when installed, for tokens only (no ``return_logprobs``) without
        per-row randomness; else Triton on GPUs (CUDA and ROCm), torch on CPU. (With log-probs FlashInfer's
        path would run Triton's threshold passes and its own sampler on top of them.) FlashInfer draws with its
        own generator: the same ``seed`` gives other tokens there than on Triton and torch (which share their
        uniforms), so under "auto" a seed's tokens depend on ``return_logprobs`` and on whether FlashInfer is
        installed; name "triton" or "torch" for draws that do not. An unavailable backend raises
        ``RuntimeError``; "flashinfer" is for this function only (the threshold functions have no FlashInfer
        kernel: ``ValueError``). Triton and torch run as the custom op ``verl_ext::sample`` (composes with
        ``torch.compile``; with Python-number or per-row-tensor parameters, since a 0-d tensor parameter is read
        back with ``.item()``); FlashInfer is called from Python.

    Returns
    -------
    torch.Tensor | SampleOutput
        int64 token ids ``[B]``, or ``SampleOutput(token_ids, logprobs, raw_logprobs)``; not differentiable.
    """
    rows = _rows(logits, temperature, top_k, top_p, min_p, seed, uniform)
    per_row_random = uniform is not None or (isinstance(seed, torch.Tensor) and seed.dim() > 0)
    _check_backend(backend, thresholds=False, per_row_random=per_row_random)
    chosen = _choose(backend, logits.device, per_row_random, return_logprobs)
    filters = _filters_on(top_k, top_p, min_p, logits.shape[1])
    if chosen == "flashinfer":
        res = _flashinfer(logits, rows, None if seed is None else int(seed), return_logprobs, filters)
    else:
        res = _run(logits, rows, chosen, True, filters)
    return SampleOutput(res.token_ids, res.logprobs, res.raw_logprobs) if return_logprobs else res.token_ids


def kept_threshold(logits: torch.Tensor, *, temperature: Param = 1.0, top_k: Param = None, top_p: Param = None,
                   min_p: Param = None, backend: Backend = "auto") -> tuple[torch.Tensor, torch.Tensor]:
    """``(tau, log_norm)`` per row: the processed distribution keeps ``{z >= tau}`` with probabilities
    ``exp(z - log_norm)``, ``z = logits / temperature``. Same semantics as :func:`sample`."""
    no_draw = torch.zeros(logits.shape[0] if logits.dim() == 2 else 0, device=logits.device)
    rows = _rows(logits, temperature, top_k, top_p, min_p, None, no_draw)
    _check_backend(backend, thresholds=True)
    chosen = _choose_kernel(backend, logits.device)
    res = _run(logits, rows, chosen, False, _filters_on(top_k, top_p, min_p, logits.shape[1]))
    return res.tau, res.log_norm


def sample_with_threshold(logits: torch.Tensor, *, temperature: Param = 1.0, top_k: Param = None,
                          top_p: Param = None, min_p: Param = None, uniform: torch.Tensor | None = None,
                          backend: Backend = "auto") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`sample` plus the processed distribution in one kernel call, for integrations that return it:
    ``(token_ids, tau, log_norm)`` with kept probabilities ``exp(z - log_norm)`` on ``{z >= tau}``. For the
    log-probs themselves use :func:`sample_processed`: ``z - log_norm`` loses precision at large ``|z|``."""
    res = sample_processed(logits, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p,
                           uniform=uniform, backend=backend)
    return res.token_ids, res.tau, res.row_max + res.log_kept


class ProcessedSample(NamedTuple):
    """Tokens and the processed distribution they were drawn from (:func:`sample_processed`), ``[B]`` each: the kept
    set is ``{z >= tau}`` with ``z = logits.float() * inv_temperature`` (``inv_temperature`` None: the call's
    temperature was the default 1, so ``z = logits.float()``), and the kept log-probs are ``(z - row_max) -
    log_kept``; ``vocab`` and ``dtype`` are the call's logits'. Rows without a distribution (invalid parameters, a
    NaN or ``+inf`` logit, nothing above ``-inf``): token -1, NaN ``row_max`` and ``log_kept``, and NaN log-probs
    everywhere, as a log-softmax gives them (``tau`` still says what each filter kept there, e.g. only the ``+inf``
    tokens with top-p)."""

    token_ids: torch.Tensor
    tau: torch.Tensor
    row_max: torch.Tensor
    log_kept: torch.Tensor
    inv_temperature: torch.Tensor | None
    vocab: int
    dtype: torch.dtype

    def logprobs(self, logits: torch.Tensor) -> torch.Tensor:
        """Processed log-probs ``[B, V]`` of the call's ``logits`` (what vLLM calls ``processed_logprobs``):
        ``-inf`` outside the kept set. Relative to the row's max, so they keep fp32's precision at large ``|z|``
        (e.g. a small temperature), as a log-softmax does. ``ValueError`` for logits of another shape or dtype."""
        if logits.dim() != 2 or logits.shape[0] != self.tau.shape[0] or logits.shape[1] != self.vocab:
            raise ValueError(f"logprobs needs the call's [{self.tau.shape[0]}, {self.vocab}] logits, got shape "
                             f"{tuple(logits.shape)}")
        if logits.dtype != self.dtype:  # another rounding of them keeps another set
            raise ValueError(f"logprobs needs the call's {self.dtype} logits, got {logits.dtype}")
        z = logits.detach().float()  # sampling is not differentiable: no gradient without the normaliser's
        if self.inv_temperature is not None:
            z = z * self.inv_temperature[:, None]
        out = (z - self.row_max[:, None]).sub_(self.log_kept[:, None])
        # Rows without a distribution: NaN everywhere, as a log-softmax gives them (a NaN threshold masks nothing).
        tau = torch.where(self.row_max.isnan(), float("nan"), self.tau)
        return out.masked_fill_(z < tau[:, None], float("-inf"))


def sample_processed(logits: torch.Tensor, *, temperature: Param = 1.0, top_k: Param = None,
                     top_p: Param = None, min_p: Param = None, uniform: torch.Tensor | None = None,
                     backend: Backend = "auto") -> ProcessedSample:
    """:func:`sample` plus the processed distribution in one kernel call (Triton or torch; FlashInfer has no
    threshold kernel): a :class:`ProcessedSample`, whose ``logprobs(logits)`` gives the processed log-probs."""
    rows = _rows(logits, temperature, top_k, top_p, min_p, None, uniform)
    _check_backend(backend, thresholds=True)
    chosen = _choose_kernel(backend, logits.device)
    res = _run(logits, rows, chosen, True, _filters_on(top_k, top_p, min_p, logits.shape[1]))
    scaled = not (isinstance(temperature, (int, float)) and not isinstance(temperature, bool) and temperature == 1)
    return ProcessedSample(res.token_ids, res.tau, res.row_max, res.log_kept,
                           rows.inv_temperature if scaled else None, logits.shape[1],
                           logits.dtype)
