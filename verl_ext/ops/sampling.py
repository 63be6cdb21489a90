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
``top_p`` None or ``>= 1``; ``min_p`` None or ``0``. Rows whose logits contain NaN or are all ``-inf``, and
rows given an invalid per-row parameter (temperature ``<= 0``, ``top_p <= 0``, ``min_p`` outside [0, 1]),
get token ``-1`` and NaN log-probs: checking tensors on the host would cost a GPU synchronisation per step.

Backends: Triton (CUDA and ROCm) finds ``tau`` without sorting the vocabulary: one pass for max/log-sum-exp,
one pass counting tokens and mass above 8 pivots (fixed offsets below the max, and the min-p threshold),
one pass compacting the tokens above the best pivot that provably contains the kept set into a candidate
buffer of at most ``CANDIDATES`` entries; the top-k and top-p thresholds are then found exactly by
bisection over the candidates' fp32 bit patterns, in registers (32 halvings each, no sort). Rows whose kept
set cannot be bounded that way (e.g. ``top_k`` in the thousands over flat logits) run the same bisections
streamed over the row (~70 passes). A last pass draws the token. FlashInfer (CUDA, optional): its
sort-free rejection sampler draws the token; log-probs come from the Triton threshold pass. The torch
reference sorts.

The Triton and torch paths run inside the custom op ``verl_ext::sample`` (``torch.library.custom_op`` with a
fake implementation), a pure function of the logits, the per-row parameters and the uniforms, so
``torch.compile`` keeps it in its graph and CUDA graphs can capture the Triton path. Sampling is not
differentiable (no autograd is registered; the logits are detached). The FlashInfer path stays plain
Python around FlashInfer's own ops (it takes a ``torch.Generator``, which is not an op input).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Literal, NamedTuple, get_args, overload

import torch

from verl_ext.ops._backend import interpreting, is_rocm, resolve_backend, warps_for

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - torch's CUDA/ROCm wheels ship triton
    triton = None

Backend = Literal["auto", "triton", "flashinfer", "torch"]
BACKENDS: tuple[Backend, ...] = get_args(Backend)
Param = float | int | torch.Tensor | None

# Candidate buffer per row, held in registers during the bisections, so a power of two; 4096 fp32 per
# program is 8 values per lane at 16 warps and covers top-k up to 4096 and the top-p sets of LLM logits
# (usually tens to hundreds of tokens).
CANDIDATES = 4096
# Pivots below the row max, in temperature-scaled logits (a factor e^-d in probability): 0.25 ... 16.
_PIVOT_OFFSETS = 7
_BLOCK_V = 1024


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
    log_norm: torch.Tensor  # fp32 [B]: log of the kept mass, so kept probabilities are exp(z - log_norm)


# --------------------------------------------------------------------------------------------- kernel
if triton is not None:

    @triton.jit
    def _key(z):
        """Order-preserving int32 key of an fp32 value (``-0.0`` must already be ``+0.0``)."""
        bits = z.to(tl.int32, bitcast=True)
        return tl.where(bits < 0, bits ^ 0x7FFFFFFF, bits)

    @triton.jit
    def _unkey(key):
        bits = tl.where(key < 0, key ^ 0x7FFFFFFF, key)
        return bits.to(tl.float32, bitcast=True)

    @triton.jit
    def _load_z(base, cols, vocab, live, inv_t):
        mask = live[:, None] & (cols < vocab)[None, :]
        x = tl.load(base + cols[None, :], mask=mask, other=float("-inf")).to(tl.float32)
        return x * inv_t[:, None] + 0.0  # + 0.0 turns -0.0 into +0.0 for the integer keys

    @triton.jit
    def _above(z, mx, key_min, BY_MASS: tl.constexpr):
        """Per row: how many entries of ``z`` (or how much unnormalised mass) have a key >= ``key_min``."""
        above = _key(z).to(tl.int64) >= key_min[:, None]
        if BY_MASS:
            return tl.sum(tl.where(above, tl.exp(z - mx[:, None]), 0.0), 1)
        return tl.sum(above.to(tl.float32), 1)

    @triton.jit
    def _mass_and_floor(base, vocab, live, inv_t, mx, tau, BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr):
        """Unnormalised mass of {z >= tau} and its smallest element (the canonical threshold)."""
        total = tl.zeros(mx.shape, tl.float32)
        floor = tl.full(mx.shape, float("inf"), tl.float32)
        for b in range(NUM_BLOCKS):
            cols = b * BLOCK + tl.arange(0, BLOCK)
            z = _load_z(base, cols, vocab, live, inv_t)
            kept = z >= tau[:, None]
            total += tl.sum(tl.where(kept, tl.exp(z - mx[:, None]), 0.0), 1)
            floor = tl.minimum(floor, tl.min(tl.where(kept, z, float("inf")), 1))
        return total, floor

    @triton.jit
    def _largest_key_streamed(base, vocab, live, inv_t, mx, lo, hi, active, need, BY_MASS: tl.constexpr,
                              BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr):
        """Largest key t in [lo, hi] with count (or mass) of {key(z) >= t} >= ``need``, for the rows where
        ``active``; the predicate holds at ``lo`` and is monotone, so 32 halvings pin it to one element.
        Reads the row once per halving."""
        for _ in range(32):
            mid = lo + (hi - lo + 1) // 2
            acc = tl.zeros(mx.shape, tl.float32)
            for b in range(NUM_BLOCKS):
                cols = b * BLOCK + tl.arange(0, BLOCK)
                acc += _above(_load_z(base, cols, vocab, live, inv_t), mx, mid, BY_MASS)
            ok = acc >= need
            lo = tl.where(active & ok, mid, lo)
            hi = tl.where(active & ~ok, mid - 1, hi)
        return lo

    @triton.jit
    def _largest_key_tile(tile, mx, lo, hi, active, need, BY_MASS: tl.constexpr):
        """:func:`_largest_key_streamed` over candidates held in registers (no sort, no memory traffic)."""
        for _ in range(32):
            mid = lo + (hi - lo + 1) // 2
            ok = _above(tile, mx, mid, BY_MASS) >= need
            lo = tl.where(active & ok, mid, lo)
            hi = tl.where(active & ~ok, mid - 1, hi)
        return lo

    @triton.jit
    def _sample_kernel(x_ptr, stride, n_rows, vocab, inv_t_ptr, k_ptr, p_ptr, minp_ptr, u_ptr, cand_ptr,
                       tok_ptr, lp_ptr, raw_ptr, tau_ptr, norm_ptr,
                       ROWS: tl.constexpr, BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr, CAP: tl.constexpr,
                       NPIV: tl.constexpr, SAMPLE: tl.constexpr):
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        live = rows < n_rows
        base = x_ptr + rows.to(tl.int64)[:, None] * stride
        inv_t = tl.load(inv_t_ptr + rows, mask=live, other=1.0)
        top_k = tl.load(k_ptr + rows, mask=live, other=0)
        top_p = tl.load(p_ptr + rows, mask=live, other=1.0)
        min_p = tl.load(minp_ptr + rows, mask=live, other=0.0)
        bad = ~((inv_t > 0) & (inv_t < float("inf")) & (top_p > 0) & (min_p >= 0) & (min_p <= 1))
        k_on = (top_k > 0) & (top_k < vocab)
        p_on = top_p < 1
        m_on = min_p > 0
        NEG_INF = float("-inf")
        KEY_NEG_INF = -2139095041  # _key(-inf)

        # Pass 1: row max and sum of exp (online), NaN detection.
        mx = tl.full([ROWS], NEG_INF, tl.float32)
        se = tl.zeros([ROWS], tl.float32)
        for b in range(NUM_BLOCKS):
            cols = b * BLOCK + tl.arange(0, BLOCK)
            z = _load_z(base, cols, vocab, live, inv_t)
            bad = bad | (tl.sum((z != z).to(tl.int32), 1) > 0)
            new = tl.maximum(mx, tl.max(z, 1))
            safe = tl.where(new == NEG_INF, 0.0, new)
            se = se * tl.exp(mx - safe) + tl.sum(tl.exp(z - safe[:, None]), 1)
            mx = new
        bad = bad | (mx == NEG_INF) | ~live
        mx = tl.where(bad, 0.0, mx)
        t_min = tl.where(m_on, mx + tl.log(tl.where(m_on, min_p, 1.0)), NEG_INF)
        filt = (k_on | p_on | m_on) & ~bad

        tau = tl.full([ROWS], NEG_INF, tl.float32)
        kept = se
        if tl.sum(filt.to(tl.int32), 0) > 0:
            # Pass 2: count and mass at or above each pivot; pick the highest pivot whose set surely holds
            # the kept set and fits the candidate buffer.
            j = tl.arange(0, NPIV)
            offs = 0.25 * tl.exp2(j.to(tl.float32))
            piv = tl.where(j[None, :] < NPIV - 1, mx[:, None] - offs[None, :], t_min[:, None])
            cnt = tl.zeros([ROWS, NPIV], tl.float32)
            mass = tl.zeros([ROWS, NPIV], tl.float32)
            for b in range(NUM_BLOCKS):
                cols = b * BLOCK + tl.arange(0, BLOCK)
                z = _load_z(base, cols, vocab, live, inv_t)
                ge = (z[:, :, None] >= piv[:, None, :]) & (cols < vocab)[None, :, None]
                cnt += tl.sum(ge.to(tl.float32), 1)
                mass += tl.sum(tl.where(ge, tl.exp(z - mx[:, None])[:, :, None], 0.0), 1)
            holds = ((k_on[:, None] & (cnt >= top_k.to(tl.float32)[:, None]))
                     | (m_on[:, None] & (piv <= t_min[:, None]))
                     | ((~k_on & ~m_on)[:, None] & (mass >= (top_p * se)[:, None])))
            valid = holds & (cnt <= CAP) & filt[:, None]
            fast = tl.sum(valid.to(tl.int32), 1) > 0
            pivot = tl.max(tl.where(valid, piv, NEG_INF), 1)

            # Pass 3: compact the tokens at or above the pivot (in vocabulary order) into the buffer.
            n_c = tl.zeros([ROWS], tl.int32)
            cand_row = cand_ptr + rows.to(tl.int64)[:, None] * CAP
            for b in range(NUM_BLOCKS):
                cols = b * BLOCK + tl.arange(0, BLOCK)
                z = _load_z(base, cols, vocab, live, inv_t)
                take = (z >= pivot[:, None]) & (cols < vocab)[None, :] & fast[:, None]
                pos = n_c[:, None] + tl.cumsum(take.to(tl.int32), 1) - 1
                tl.store(cand_row + pos, z, mask=take)
                n_c += tl.sum(take.to(tl.int32), 1)
            slots = tl.arange(0, CAP)
            cv = tl.load(cand_row + slots[None, :], mask=slots[None, :] < n_c[:, None], other=NEG_INF)
            lo = tl.full([ROWS], KEY_NEG_INF, tl.int64)
            hi = _key(mx).to(tl.int64)
            k_need = top_k.to(tl.float32)
            tau_fast = t_min
            if tl.sum((fast & k_on).to(tl.int32), 0) > 0:
                lo_k = _largest_key_tile(cv, mx, lo, hi, fast & k_on, k_need, False)
                tau_fast = tl.maximum(tl.where(k_on, _unkey(lo_k.to(tl.int32)), NEG_INF), t_min)
            if tl.sum((fast & p_on).to(tl.int32), 0) > 0:
                in_s = cv >= tau_fast[:, None]
                z_s = tl.where(k_on | m_on, tl.sum(tl.where(in_s, tl.exp(cv - mx[:, None]), 0.0), 1), se)
                lo_p = _largest_key_tile(cv, mx, _key(tau_fast).to(tl.int64), hi, fast & p_on, top_p * z_s, True)
                tau_fast = tl.where(p_on, _unkey(lo_p.to(tl.int32)), tau_fast)
            in_s = cv >= tau_fast[:, None]
            kept_fast = tl.sum(tl.where(in_s, tl.exp(cv - mx[:, None]), 0.0), 1)
            tau_fast = tl.min(tl.where(in_s, cv, float("inf")), 1)

            # Exact fallback for rows the candidates could not bound: the same bisections, streamed.
            slow = filt & ~fast
            tau_slow = t_min
            kept_slow = se
            if tl.sum(slow.to(tl.int32), 0) > 0:
                if tl.sum((slow & k_on).to(tl.int32), 0) > 0:
                    lo_k = _largest_key_streamed(base, vocab, live, inv_t, mx, lo, hi, slow & k_on, k_need, False,
                                                 BLOCK, NUM_BLOCKS)
                    tau_slow = tl.maximum(tl.where(k_on, _unkey(lo_k.to(tl.int32)), NEG_INF), t_min)
                z_slow, _ = _mass_and_floor(base, vocab, live, inv_t, mx, tau_slow, BLOCK, NUM_BLOCKS)
                z_slow = tl.where(k_on | m_on, z_slow, se)
                if tl.sum((slow & p_on).to(tl.int32), 0) > 0:
                    lo_p = _largest_key_streamed(base, vocab, live, inv_t, mx, _key(tau_slow).to(tl.int64), hi,
                                                 slow & p_on, top_p * z_slow, True, BLOCK, NUM_BLOCKS)
                    tau_slow = tl.where(p_on, _unkey(lo_p.to(tl.int32)), tau_slow)
                kept_slow, tau_slow = _mass_and_floor(base, vocab, live, inv_t, mx, tau_slow, BLOCK, NUM_BLOCKS)
            tau = tl.where(fast, tau_fast, tl.where(slow, tau_slow, tau))
            kept = tl.where(fast, kept_fast, tl.where(slow, kept_slow, kept))

        kept = tl.where(bad, 1.0, kept)
        se = tl.where(bad, 1.0, se)
        log_norm = mx + tl.log(kept)
        tl.store(tau_ptr + rows, tl.where(bad, float("nan"), tau), mask=live)
        tl.store(norm_ptr + rows, tl.where(bad, float("nan"), log_norm), mask=live)
        if SAMPLE:
            # Last pass: inverse CDF over the kept tokens in vocabulary order. If rounding leaves the target
            # above the running total, the last kept token is taken.
            target = tl.load(u_ptr + rows, mask=live, other=0.0) * kept
            run = tl.zeros([ROWS], tl.float32)
            tok = tl.full([ROWS], -1, tl.int32)
            z_tok = tl.zeros([ROWS], tl.float32)
            last = tl.full([ROWS], -1, tl.int32)
            z_last = tl.zeros([ROWS], tl.float32)
            for b in range(NUM_BLOCKS):
                cols = b * BLOCK + tl.arange(0, BLOCK)
                z = _load_z(base, cols, vocab, live, inv_t)
                w = tl.where((z >= tau[:, None]) & (cols < vocab)[None, :], tl.exp(z - mx[:, None]), 0.0)
                hit = ((tl.cumsum(w, 1) + run[:, None]) > target[:, None]) & (w > 0)
                first = tl.min(tl.where(hit, cols[None, :], 2147483647), 1)
                found = (tok < 0) & (first < 2147483647)
                z_tok = tl.where(found, tl.max(tl.where(cols[None, :] == first[:, None], z, NEG_INF), 1), z_tok)
                tok = tl.where(found, first, tok)
                lb = tl.max(tl.where(w > 0, cols[None, :], -1), 1)
                z_last = tl.where(lb >= 0, tl.max(tl.where(cols[None, :] == lb[:, None], z, NEG_INF), 1), z_last)
                last = tl.where(lb >= 0, lb, last)
                run += tl.sum(w, 1)
            z_tok = tl.where(tok < 0, z_last, z_tok)
            tok = tl.where(tok < 0, last, tok)
            nan = float("nan")
            tl.store(tok_ptr + rows, tl.where(bad, -1, tok).to(tl.int64), mask=live)
            tl.store(lp_ptr + rows, tl.where(bad, nan, z_tok - log_norm), mask=live)
            tl.store(raw_ptr + rows, tl.where(bad, nan, z_tok - mx - tl.log(se)), mask=live)


def _launch_shape(n_rows: int, vocab: int, cap: int) -> dict[str, int]:
    block = min(_BLOCK_V, triton.next_power_of_2(vocab))
    cap = min(cap, triton.next_power_of_2(vocab))  # a buffer larger than the vocabulary is never filled
    rows = 1
    if interpreting():  # the interpreter runs programs one after another: give each many rows
        budget = (1 << 20) // max(block * (_PIVOT_OFFSETS + 1), cap)  # Triton's largest tensor
        rows = min(triton.next_power_of_2(n_rows), 1 << max(0, budget.bit_length() - 1))
    return {"ROWS": rows, "BLOCK": block, "NUM_BLOCKS": triton.cdiv(vocab, block), "CAP": cap,
            "NPIV": _PIVOT_OFFSETS + 1, "num_warps": 2 * warps_for(4096)}


def _triton(logits: torch.Tensor, rows: _Rows, sample: bool, cap: int = CANDIDATES) -> _Result:
    if logits.stride(-1) != 1:
        logits = logits.contiguous()
    n, vocab = logits.shape
    dev = logits.device
    drawn = n if sample else 0  # without a draw the kernel never touches these
    tok = torch.empty(drawn, dtype=torch.int64, device=dev)
    lp, raw = (torch.empty(drawn, dtype=torch.float32, device=dev) for _ in range(2))
    tau, norm = (torch.empty(n, dtype=torch.float32, device=dev) for _ in range(2))
    if n:
        shape = _launch_shape(n, vocab, cap)
        cand = torch.empty((n, shape["CAP"]), dtype=torch.float32, device=dev)
        grid = (triton.cdiv(n, shape["ROWS"]),)
        _sample_kernel[grid](logits, logits.stride(0), n, vocab, rows.inv_temperature, rows.top_k, rows.top_p,
                             rows.min_p, rows.uniform, cand, tok, lp, raw, tau, norm, SAMPLE=sample, **shape)
    return _Result(tok, lp, raw, tau, norm)


# ------------------------------------------------------------------------------------ torch reference
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
    t_min = torch.where(m_on, mx + torch.log(torch.where(m_on, rows.min_p, 1.0)), neg_inf)
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
    log_norm = torch.where(bad, float("nan"), mx + torch.log(kept))
    if not sample:
        empty = torch.empty(0, device=z.device)
        return _Result(empty.long(), empty, empty.clone(), tau, log_norm)
    cum = w.cumsum(1)
    first = torch.searchsorted(cum, (rows.uniform * kept)[:, None].contiguous(), right=True)[:, 0]
    last = torch.where(w > 0, torch.arange(vocab, device=z.device), -1).max(1).values if vocab else mx.long()
    tok = torch.minimum(first, last)
    z_tok = z.gather(1, tok.clamp(min=0)[:, None])[:, 0]
    nan = torch.tensor(float("nan"), device=z.device)
    return _Result(torch.where(bad, -1, tok), torch.where(bad, nan, z_tok - log_norm),
                   torch.where(bad, nan, z_tok - mx - torch.log(se)), tau, log_norm)


# ---------------------------------------------------------------------------------------- FlashInfer
@functools.cache
def flashinfer_available() -> bool:
    """FlashInfer's sampling module imports (CUDA only; ``pip install flashinfer-python``)."""
    try:
        importlib.import_module("flashinfer.sampling")
    except (ImportError, RuntimeError, OSError):  # not installed, or a CUDA/JIT/library error at import
        return False
    return True


def _flashinfer(logits: torch.Tensor, rows: _Rows, seed: int | None, want_logprobs: bool) -> _Result:
    """Tokens from FlashInfer's sort-free sampler (min-p applied first as a mask); log-probs, when asked,
    from the Triton threshold pass, which follows the same top-k-then-top-p semantics."""
    import flashinfer.sampling as fs

    z = logits.float() * rows.inv_temperature[:, None]
    vocab = z.shape[1]
    t_min = z.max(1, keepdim=True).values + torch.log(rows.min_p)[:, None]  # min_p 0 -> -inf: no mask, no sync
    z = torch.where(z >= t_min, z, float("-inf"))
    top_k = torch.where((rows.top_k > 0) & (rows.top_k < vocab), rows.top_k, vocab).to(torch.int32)
    gen = None if seed is None else torch.Generator(device=z.device).manual_seed(seed)
    tok = fs.top_k_top_p_sampling_from_logits(z, top_k, rows.top_p.clamp(max=1.0), filter_apply_order="top_k_first",
                                              deterministic=True, generator=gen).long()
    empty = torch.full_like(rows.top_p, float("nan"))
    if not want_logprobs:
        return _Result(tok, empty, empty, empty, empty)
    thr = _triton(logits, rows, sample=False)
    z_tok = (logits.float() * rows.inv_temperature[:, None]).gather(1, tok[:, None])[:, 0]
    raw = z_tok - torch.logsumexp(logits.float() * rows.inv_temperature[:, None], 1)
    return _Result(tok, z_tok - thr.log_norm, raw, thr.tau, thr.log_norm)


# ------------------------------------------------------------------------------------------ custom op
# A pure function of its inputs (the uniforms are an input), so torch.compile keeps it whole and, on the
# Triton path, CUDA graphs can capture it. Sampling is not differentiable: no autograd is registered and
# the public functions pass detached logits.
@torch.library.custom_op("verl_ext::sample", mutates_args=())
def _sample_op(logits: torch.Tensor, inv_temperature: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
               min_p: torch.Tensor, uniform: torch.Tensor, backend: str, draw: bool
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(token ids int64, log-probs, raw log-probs, tau, log_norm) ``[B]``; without ``draw`` only the
    threshold pass runs and the first three are empty (``[0]``)."""
    rows = _Rows(inv_temperature, top_k, top_p, min_p, uniform)
    if backend == "triton":  # the kernel indexes the per-row parameters densely
        res = _triton(logits, _Rows(*(t.contiguous() for t in rows)), draw)
    else:
        res = _torch(logits, rows, draw)
    return res.token_ids, res.logprobs, res.raw_logprobs, res.tau, res.log_norm


@_sample_op.register_fake
def _sample_fake(logits: torch.Tensor, inv_temperature: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
                 min_p: torch.Tensor, uniform: torch.Tensor, backend: str, draw: bool
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    n = logits.shape[0]
    drawn = n if draw else 0
    return (logits.new_empty(drawn, dtype=torch.int64), logits.new_empty(drawn, dtype=torch.float32),
            logits.new_empty(drawn, dtype=torch.float32), logits.new_empty(n, dtype=torch.float32),
            logits.new_empty(n, dtype=torch.float32))


# ------------------------------------------------------------------------------------------ public API
def _per_row(value: Param, n: int, default: float, dtype: torch.dtype, device: torch.device, name: str,
             check: Callable[[float], bool]) -> torch.Tensor:
    if value is None:
        return torch.full((n,), default, dtype=dtype, device=device)
    if isinstance(value, torch.Tensor):
        if value.dim() == 0:
            value = value.item()
        else:
            if value.shape != (n,):
                raise ValueError(f"{name} must be a scalar or a tensor of shape [{n}], got {tuple(value.shape)}")
            return value.to(device=device, dtype=dtype)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, a tensor or None, got {type(value).__name__}")
    if not check(value):
        raise ValueError(f"{name}={value!r} is out of range ({check.__doc__})")
    return torch.full((n,), value, dtype=dtype, device=device)


def _positive_finite(v: float) -> bool:
    """must be finite and > 0; for greedy decoding use logits.argmax(-1)"""
    return v > 0 and v != float("inf")


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


def _rows(logits: torch.Tensor, temperature: Param, top_k: Param, top_p: Param, min_p: Param,
          seed: int | torch.Tensor | None, uniform: torch.Tensor | None) -> _Rows:
    if logits.dim() != 2:
        raise ValueError(f"logits must be [B, V], got shape {tuple(logits.shape)}")
    if not logits.is_floating_point():
        raise TypeError(f"logits must be a floating-point tensor, got {logits.dtype}")
    n, dev = logits.shape[0], logits.device
    temp = _per_row(temperature, n, 1.0, torch.float32, dev, "temperature", _positive_finite)
    if uniform is not None:
        if seed is not None:
            raise ValueError("give either seed or uniform, not both")
        if uniform.shape != (n,):
            raise ValueError(f"uniform must have shape [{n}], got {tuple(uniform.shape)}")
        u = uniform.to(device=dev, dtype=torch.float32)
    elif seed is None:
        u = torch.rand(n, device=dev, dtype=torch.float32)
    else:
        u = seeded_uniform(seed, n, dev)
    return _Rows(1.0 / temp, _per_row(top_k, n, 0, torch.int32, dev, "top_k", _integer),
                 _per_row(top_p, n, 1.0, torch.float32, dev, "top_p", _probability),
                 _per_row(min_p, n, 0.0, torch.float32, dev, "min_p", _unit), u)


# Taken as a constant by torch.compile: it imports modules and reads the environment, which Dynamo would not
# trace (a graph break).
@torch.compiler.assume_constant_result
def _choose(backend: Backend, device: torch.device, per_row_random: bool) -> str:
    if backend == "flashinfer":
        if device.type != "cuda" or is_rocm() or not flashinfer_available():
            raise RuntimeError("backend='flashinfer' needs an NVIDIA GPU tensor and flashinfer-python "
                               "(pip install flashinfer-python); use backend='triton' or 'torch'")
        if per_row_random:
            raise ValueError("backend='flashinfer' takes only a scalar seed; per-row seeds or uniform need "
                             "backend='triton' or 'torch'")
        return "flashinfer"
    if backend == "auto" and device.type == "cuda" and not is_rocm() and not per_row_random \
            and flashinfer_available():
        return "flashinfer"
    return resolve_backend(backend, device)


@torch.compiler.assume_constant_result
def _choose_kernel(backend: Backend, device: torch.device) -> str:
    """Triton or torch for the threshold pass (FlashInfer has none: its rows go to Triton)."""
    return resolve_backend("auto" if backend == "flashinfer" else backend, device)


def _run(logits: torch.Tensor, rows: _Rows, backend: str, sample: bool) -> _Result:
    return _Result(*torch.ops.verl_ext.sample(logits.detach(), *rows, backend, sample))


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
        token -1 and NaN log-probs (no host synchronisation).
    seed : int | torch.Tensor | None
        A scalar seed (each row gets its own stream) or per-row seeds ``[B]`` (equal seeds, equal draws).
        None draws from torch's default generator.
    return_logprobs : bool
        Also return the sampled tokens' log-probs (processed and temperature-only), as a ``SampleOutput``.
    uniform : torch.Tensor | None
        The uniform number in [0, 1) for each row, instead of ``seed`` (e.g. from per-request generators).
    backend : "auto" | "triton" | "flashinfer" | "torch"
        "auto": FlashInfer on NVIDIA GPUs when installed and no per-row randomness is given, else Triton on
        GPUs (CUDA and ROCm), torch on CPU. An unavailable backend raises ``RuntimeError``. Triton and torch
        run as the custom op ``verl_ext::sample`` (composes with ``torch.compile``; with Python-number or
        per-row-tensor parameters, since a 0-d tensor parameter is read back with ``.item()``); FlashInfer is
        called from Python.

    Returns
    -------
    torch.Tensor | SampleOutput
        int64 token ids ``[B]``, or ``SampleOutput(token_ids, logprobs, raw_logprobs)``; not differentiable.
    """
    rows = _rows(logits, temperature, top_k, top_p, min_p, seed, uniform)
    per_row_random = uniform is not None or (isinstance(seed, torch.Tensor) and seed.dim() > 0)
    chosen = _choose(backend, logits.device, per_row_random)
    if chosen == "flashinfer":
        res = _flashinfer(logits, rows, None if seed is None else int(seed), return_logprobs)
    else:
        res = _run(logits, rows, chosen, sample=True)
    return SampleOutput(res.token_ids, res.logprobs, res.raw_logprobs) if return_logprobs else res.token_ids


def kept_threshold(logits: torch.Tensor, *, temperature: Param = 1.0, top_k: Param = None, top_p: Param = None,
                   min_p: Param = None, backend: Backend = "auto") -> tuple[torch.Tensor, torch.Tensor]:
    """``(tau, log_norm)`` per row: the processed distribution keeps ``{z >= tau}`` with probabilities
    ``exp(z - log_norm)``, ``z = logits / temperature``. Same semantics as :func:`sample`."""
    no_draw = torch.zeros(logits.shape[0] if logits.dim() == 2 else 0, device=logits.device)
    rows = _rows(logits, temperature, top_k, top_p, min_p, None, no_draw)
    chosen = _choose_kernel(backend, logits.device)
    res = _run(logits, rows, chosen, sample=False)
    return res.tau, res.log_norm


def sample_with_threshold(logits: torch.Tensor, *, temperature: Param = 1.0, top_k: Param = None,
                          top_p: Param = None, min_p: Param = None, uniform: torch.Tensor | None = None,
                          backend: Backend = "auto") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`sample` plus the processed distribution in one kernel call, for integrations that return it:
    ``(token_ids, tau, log_norm)`` with kept probabilities ``exp(z - log_norm)`` on ``{z >= tau}``."""
    rows = _rows(logits, temperature, top_k, top_p, min_p, None, uniform)
    chosen = _choose_kernel(backend, logits.device)
    res = _run(logits, rows, chosen, sample=True)
    return res.token_ids, res.tau, res.log_norm
