"""Triton kernels of :mod:`verl_ext.ops.sampling`: each row's vocabulary is split across programs, thresholds are found
by radix selection over order-preserving fp32 keys in a fixed number of passes, and the draw re-reads one split.
:func:`verl_ext.ops.sampling_plan.launch_plan` says what runs; :func:`run` runs exactly that.

Per pass over the logits, each (row block, split) program writes partials (statistics, a histogram of one key digit
inside the row's current bucket, and the count, exp-mass and smallest key above that bucket); a combine of one
program per row block reduces them over the splits and picks the digit holding the threshold. Rows with top-p over a
top-k of at most ``K_MAX`` gather the keys above the last count digit's bucket instead of taking the mass passes,
and one combine finds top-p's threshold over that set and the bucket's counts. Min-p without top-k needs no search:
its threshold is known once the statistics are combined, and one pass sums what it keeps. The finish (one program
per row block) sets each row's threshold, picks the split holding its token and draws there; without filters it also
combines the statistics, so such a call is two launches. Masses are ``exp(z - max)`` summed in fp32 in a fixed order
(per split, then over splits in order), so a call is deterministic; counts are integers. Loops over a runtime number
of splits are ``while`` loops: Triton's interpreter cannot take a runtime bound in ``range`` under numpy 2.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from verl_ext.ops._backend import interpreting, warps_for
from verl_ext.ops.sampling_plan import K_MAX, MASS_DIGITS, MASS_FIXED_BITS, SamplingPlan, launch_plan

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - torch's CUDA/ROCm wheels ship triton
    triton = None

_SPLIT_CHUNK = 16  # splits reduced at a time by a combine program (one row each on a GPU)
# Fraction bits of the gathered set's fixed-point masses exp(z - max) <= 1: K_MAX of them sum below 2^63, and
# 2^-52 of the row's largest mass is far below fp32's rounding of any sum that includes it (>= 1).
FIXED_BITS = 52
if K_MAX > 1 << (62 - FIXED_BITS):
    raise ImportError(f"K_MAX={K_MAX} fixed-point masses could overflow int64 with {FIXED_BITS} fraction bits")


class Thresholds(NamedTuple):
    """Per-row results ``[B]``: tokens (int64, -1 for invalid rows; empty without a draw), processed and raw
    log-probs of the token (empty without a draw), ``tau`` (kept set ``{z >= tau}``), the row's max ``m`` of
    ``z``, and relative to it: ``log_kept = log sum_kept exp(z - m)`` and ``log_mass = log sum exp(z - m)``
    (NaN for invalid rows, all three). A log-prob is ``(z - m) - log_kept``: ``z - log_norm`` would lose
    ``log_kept`` to fp32's rounding of ``m + log_kept`` when ``|m|`` is large."""

    token_ids: torch.Tensor
    logprobs: torch.Tensor
    raw_logprobs: torch.Tensor
    tau: torch.Tensor
    row_max: torch.Tensor
    log_kept: torch.Tensor
    log_mass: torch.Tensor

    @property
    def log_norm(self) -> torch.Tensor:
        """Log of the kept mass, ``m + log_kept``: kept probabilities are ``exp(z - log_norm)``."""
        return self.row_max + self.log_kept


if triton is not None:
    FIXED_ONE = tl.constexpr(float(1 << FIXED_BITS))
    MASS_ONE = tl.constexpr(float(1 << MASS_FIXED_BITS))
    NO_KEY = tl.constexpr(1 << 32)  # above every key: "none" for smallest-key reductions

    @triton.jit
    def _ukey(z):
        """Order-preserving key of an fp32 value in [0, 2^32), as int64 (``-0.0`` must already be ``+0.0``)."""
        bits = z.to(tl.int32, bitcast=True)
        return tl.where(bits < 0, bits ^ 0x7FFFFFFF, bits).to(tl.int64) + 2147483648

    @triton.jit
    def _unkey(u):
        k = (u - 2147483648).to(tl.int32)
        return tl.where(k < 0, k ^ 0x7FFFFFFF, k).to(tl.float32, bitcast=True)

    @triton.jit
    def _min_p_key(mx, log_m):
        """Key of min-p's threshold for finite ``mx``: the smallest fp32 ``t`` with ``t - mx >= log_m`` in fp32,
        so the kept set ``{z >= t}`` is decided relative to the max (see ``_min_p_threshold`` in sampling.py).
        Bisection over the keys from ``-inf`` (fails: ``log_m`` is finite) to ``mx`` (passes: ``log_m <= 0``)."""
        lo = _ukey(tl.full(mx.shape, float("-inf"), tl.float32))
        hi = _ukey(mx + 0.0)
        for _ in range(33):
            mid = (lo + hi) // 2
            ok = (_unkey(mid) - mx) >= log_m
            hi = tl.where(ok, mid, hi)
            lo = tl.where(ok, lo, mid)
        return _ukey(_unkey(hi) + 0.0)  # -0.0 -> +0.0

    @triton.jit
    def _row_flags(rows, live, vocab, inv_t_ptr, k_ptr, p_ptr, m_ptr, HAS1: tl.constexpr, HAS2: tl.constexpr):
        """(search 1 on, search 2 on, invalid parameters) per row."""
        inv_t = tl.load(inv_t_ptr + rows, mask=live, other=1.0)
        top_k = tl.load(k_ptr + rows, mask=live, other=0)
        top_p = tl.load(p_ptr + rows, mask=live, other=1.0)
        min_p = tl.load(m_ptr + rows, mask=live, other=0.0)
        bad = ~((inv_t > 0) & (inv_t < float("inf")) & (top_p > 0) & (min_p >= 0) & (min_p <= 1))
        s1 = (((top_k > 0) & (top_k < vocab)) | (min_p > 0)) & HAS1
        s2 = (top_p < 1) & HAS2
        return s1, s2, bad

    @triton.jit
    def _split_mass(stat_ptr, part, ok, mx):
        """Each split's ``sum exp(z - mx)`` from its statistics (its max and its sum of exp relative to it)."""
        m_s = tl.load(stat_ptr + part * 3, mask=ok, other=float("-inf"))
        se_s = tl.load(stat_ptr + part * 3 + 1, mask=ok, other=0.0)
        return tl.where(m_s == float("-inf"), 0.0, se_s * tl.exp(m_s - mx))

    @triton.jit
    def _combine_stats(stat_ptr, rows, live, n_splits, vocab, inv_t_ptr, k_ptr, p_ptr, m_ptr, ROWS: tl.constexpr,
                       SC: tl.constexpr, HAS1: tl.constexpr, HAS2: tl.constexpr):
        """The statistics pass's combine for ``ROWS`` rows: (search 1 on, search 2 on, code, raw max, max (0 where
        the code is not 0), ``log sum exp(z - max)`` (NaN there), that mass ``sum exp(z - max)``). Code 0: a
        distribution; 1: invalid (bad parameters, NaN, all ``-inf``); with a ``+inf`` logit (or z overflowing to
        it), no distribution, as in the torch reference (token -1, NaN log-probs), but a defined kept set: 2 top-p
        keeps only the ``+inf`` tokens, 4 top-k and min-p alone keep what their counts say (search 1 runs), 3 no
        filter keeps all."""
        s1, s2, bad = _row_flags(rows, live, vocab, inv_t_ptr, k_ptr, p_ptr, m_ptr, HAS1, HAS2)
        sc = tl.arange(0, SC)
        mx = tl.full([ROWS], float("-inf"), tl.float32)
        nan = tl.zeros([ROWS], tl.float32)
        s0 = 0
        while s0 < n_splits:
            ok = live[:, None] & ((s0 + sc) < n_splits)[None, :]
            part = rows.to(tl.int64)[:, None] * n_splits + s0 + sc[None, :]
            mx = tl.maximum(mx, tl.max(tl.load(stat_ptr + part * 3, mask=ok, other=float("-inf")), 1))
            nan += tl.sum(tl.load(stat_ptr + part * 3 + 2, mask=ok, other=0.0), 1)
            s0 += SC
        code = tl.where(bad | (nan > 0) | (mx == float("-inf")) | ~live, 1,
                        tl.where(mx == float("inf"), tl.where(s2, 2, tl.where(s1, 4, 3)), 0))
        bad = code != 0
        mx_raw = mx
        mx = tl.where(bad, 0.0, mx)
        z = tl.zeros([ROWS], tl.float32)
        s0 = 0
        while s0 < n_splits:
            ok = live[:, None] & ((s0 + sc) < n_splits)[None, :]
            part = rows.to(tl.int64)[:, None] * n_splits + s0 + sc[None, :]
            z += tl.sum(_split_mass(stat_ptr, part, ok, mx[:, None]), 1)
            s0 += SC
        lse = tl.where(bad, float("nan"), tl.log(tl.where(bad, 1.0, z)))
        return s1, s2, code, mx_raw, mx, lse, z

    @triton.jit
    def _above_over_splits(acnt_ptr, amass_ptr, amin_ptr, rows, live, n_splits, ROWS: tl.constexpr,
                           SC: tl.constexpr, COUNT: tl.constexpr):
        """A row's count (``COUNT``; else 0), mass and smallest key above its bucket (or at or above the cut),
        reduced over the splits' partials in split order."""
        sc = tl.arange(0, SC)
        a_c = tl.zeros([ROWS], tl.int32)
        a_m = tl.zeros([ROWS], tl.float32)
        a_min = tl.full([ROWS], NO_KEY, tl.int64)
        s0 = 0
        while s0 < n_splits:
            ok = live[:, None] & ((s0 + sc) < n_splits)[None, :]
            part = rows.to(tl.int64)[:, None] * n_splits + s0 + sc[None, :]
            if COUNT:
                a_c += tl.sum(tl.load(acnt_ptr + part, mask=ok, other=0), 1)
            a_m += tl.sum(tl.load(amass_ptr + part, mask=ok, other=0.0), 1)
            a_min = tl.minimum(a_min, tl.min(tl.load(amin_ptr + part, mask=ok, other=NO_KEY), 1))
            s0 += SC
        return a_c, a_m, a_min

    @triton.jit
    def _pass_kernel(x_ptr, stride, n_rows, vocab, slice_len, n_splits, inv_t_ptr, mx_ptr, pre_ptr, on_ptr,
                     stat_ptr, tot_ptr, cnt_ptr, mass_ptr, wtot_ptr, acnt_ptr, amass_ptr, amin_ptr, fast_ptr,
                     buf_ptr, bcnt_ptr, ROWS: tl.constexpr, TILE: tl.constexpr, NB: tl.constexpr,
                     BITS: tl.constexpr, SHIFT: tl.constexpr, STATS: tl.constexpr, HIST: tl.constexpr,
                     WEIGHTED: tl.constexpr, FINAL: tl.constexpr, MASS_FIRST: tl.constexpr, NB2: tl.constexpr,
                     SHIFT2: tl.constexpr, GATHER: tl.constexpr, KMAX: tl.constexpr, CUT: tl.constexpr):
        """One read of a slice of ``ROWS`` rows: statistics (``STATS``) and/or the histogram of the key digit
        ``(key >> SHIFT) % NB`` over the keys in the row's bucket ``key >> (SHIFT + log2 NB) == pre``: counts, or
        (``WEIGHTED``) exp-masses in fixed point added by integer atomics into the row's ``wtot_ptr``. With
        ``GATHER``, rows flagged in ``fast_ptr`` also append each key above the bucket, packed with its index as
        ``key << 31 | index``, to their buffer of ``KMAX`` (positions from a per-row atomic counter; the buffer's
        masses are summed in fixed point, so the order of arrival does not matter). ``CUT``: the rows of min-p's
        cut (``on`` 2: min-p without top-k) sum no digit, only the mass and the smallest key at or above their
        known key ``pre``; without ``HIST`` they are the pass's only rows. Rows that are not on read nothing and
        write nothing (a row of the cut keeps its partials through the count passes it skips)."""
        r = tl.arange(0, ROWS)
        rows = tl.program_id(0) * ROWS + r
        split = tl.program_id(1)
        on = rows < n_rows
        cutr = rows < 0  # rows of min-p's cut
        if not STATS:  # on: 1 in the search, 2 in min-p's cut (served by a CUT pass only)
            v = tl.load(on_ptr + rows, mask=on, other=0)
            cutr = on & (v == 2) & CUT
            on = on & ((v == 1) | cutr)
        inv_t = tl.load(inv_t_ptr + rows, mask=on, other=1.0)
        base = x_ptr + rows.to(tl.int64)[:, None] * stride
        part = rows.to(tl.int64) * n_splits + split
        start = split * slice_len
        NEG_INF = float("-inf")
        mx = tl.full([ROWS], NEG_INF, tl.float32)
        se = tl.zeros([ROWS], tl.float32)
        nan = tl.zeros([ROWS], tl.int32)
        pre = tl.zeros([ROWS], tl.int64)
        if not STATS:
            mx = tl.load(mx_ptr + rows, mask=on, other=0.0)
            pre = tl.load(pre_ptr + rows, mask=on, other=0)
        hist = tl.zeros([ROWS * NB], tl.int32)
        mass2 = tl.zeros([ROWS, NB2], tl.float32)
        d2 = tl.arange(0, NB2)
        acnt = tl.zeros([ROWS], tl.int32)
        amass = tl.zeros([ROWS], tl.float32)
        amin = tl.full([ROWS], NO_KEY, tl.int64)
        end = slice_len
        if not STATS:  # a block whose rows are all done (or off) returns at once
            end = tl.where(tl.sum(on.to(tl.int32)) > 0, slice_len, 0)
        if GATHER:
            fast = on & (tl.load(fast_ptr + rows, mask=on, other=0) != 0)
        offset = 0
        while offset < end:  # a runtime bound: one compiled kernel for every batch size
            cols = start + offset + tl.arange(0, TILE)
            offset += TILE
            valid = on[:, None] & (cols < vocab)[None, :]
            z = tl.load(base + cols[None, :], mask=valid, other=NEG_INF).to(tl.float32) * inv_t[:, None] + 0.0
            if STATS:
                nan = nan + tl.sum((z != z).to(tl.int32), 1)
                new = tl.maximum(mx, tl.max(z, 1))
                safe = tl.where(new == NEG_INF, 0.0, new)
                scale = tl.exp(mx - safe)
                w_s = tl.exp(z - safe[:, None])
                se = se * scale + tl.sum(w_s, 1)
                if MASS_FIRST:  # search 2's first digit, relative to the running max (the combine rescales)
                    hit2 = (((_ukey(z) >> SHIFT2) & (NB2 - 1)).to(tl.int32)[:, :, None] == d2[None, None, :]) \
                        & valid[:, :, None]
                    mass2 = mass2 * scale[:, None] + tl.sum(tl.where(hit2, w_s[:, :, None], 0.0), 1)
                mx = new
            if CUT or (HIST and not STATS):
                u = _ukey(z)
                w = tl.exp(z - mx[:, None])
                top = u >> (SHIFT + BITS)
                above = valid & (top > pre[:, None])  # the search's rows: above their bucket
                inside = valid & (top == pre[:, None])
                if CUT:  # the cut's rows: at or above min-p's known key (no search)
                    above = tl.where(cutr[:, None], valid & (u >= pre[:, None]), above)
                    inside = inside & ~cutr[:, None]
                acnt += tl.sum(above.to(tl.int32), 1)
            if HIST:
                if STATS:
                    u = _ukey(z)
                    inside = valid
                else:
                    if GATHER:  # fewer than k keys lie above the k-th key's bucket: all of them are kept
                        gat = above & fast[:, None]
                        n_add = tl.sum(gat.to(tl.int32), 1)
                        if tl.sum(n_add) > 0:
                            at = tl.atomic_add(bcnt_ptr + rows, n_add, mask=n_add > 0)
                            pos = at[:, None] + tl.cumsum(gat.to(tl.int32), 1) - 1
                            tl.store(buf_ptr + rows.to(tl.int64)[:, None] * KMAX + pos,
                                     (u << 31) | cols.to(tl.int64)[None, :], mask=gat & (pos < KMAX))
                digit = ((u >> SHIFT) & (NB - 1)).to(tl.int32)
                if WEIGHTED:  # integer sums are exact, so the atomics' order does not matter
                    fixed = (w * MASS_ONE + 0.5).to(tl.int64)
                    tl.atomic_add(wtot_ptr + rows.to(tl.int64)[:, None] * NB + digit, fixed, mask=inside & (fixed > 0))
                else:
                    flat = tl.reshape(r[:, None] * NB + digit, [ROWS * TILE])
                    hist += tl.histogram(flat, ROWS * NB, mask=tl.reshape(inside, [ROWS * TILE]))
            if CUT or (HIST and not STATS):  # the mass and smallest key at or above the cut, or above the bucket
                amass += tl.sum(tl.where(above, w, 0.0), 1)
                amin = tl.minimum(amin, tl.min(tl.where(above, u, NO_KEY), 1))
        live = rows < n_rows
        if STATS:
            tl.store(stat_ptr + part * 3, mx, mask=live)
            tl.store(stat_ptr + part * 3 + 1, se, mask=live)
            tl.store(stat_ptr + part * 3 + 2, nan.to(tl.float32), mask=live)
            if MASS_FIRST:
                tl.store(mass_ptr + part[:, None] * NB2 + d2[None, :], mass2, mask=live[:, None])
        if HIST and not WEIGHTED:
            i = tl.arange(0, ROWS * NB)
            row_i = tl.program_id(0) * ROWS + i // NB
            # Row totals by integer atomics (exact, so any order gives the same sums); per-split counts only
            # where the draw needs them (the last digit).
            tl.atomic_add(tot_ptr + row_i.to(tl.int64) * NB + i % NB, hist, mask=(row_i < n_rows) & (hist != 0))
            if FINAL:
                tl.store(cnt_ptr + (row_i.to(tl.int64) * n_splits + split) * NB + i % NB, hist, mask=row_i < n_rows)
        if HIST and not STATS:
            tl.store(acnt_ptr + part, acnt, mask=on)
        if CUT or (HIST and not STATS):
            tl.store(amass_ptr + part, amass, mask=on)
            tl.store(amin_ptr + part, amin, mask=on)

    @triton.jit
    def _select_kernel(n_rows, vocab, n_splits, inv_t_ptr, k_ptr, p_ptr, m_ptr,
                       stat_ptr, tot_ptr, mass_ptr, wtot_ptr, acnt_ptr, amass_ptr, amin_ptr,
                       mx_ptr, lse_ptr, bad_ptr, pre_ptr, on_ptr, need_ptr, key_ptr, kept_ptr, need2_ptr, fast_ptr,
                       ROWS: tl.constexpr, NB: tl.constexpr, BITS: tl.constexpr, SHIFT: tl.constexpr,
                       SC: tl.constexpr, STATS: tl.constexpr, SEARCH: tl.constexpr, WEIGHTED: tl.constexpr,
                       FINAL: tl.constexpr, HAS1: tl.constexpr, HAS2: tl.constexpr, RESCALE: tl.constexpr,
                       GATHER: tl.constexpr, KMAX: tl.constexpr, CUT: tl.constexpr, MIN_P: tl.constexpr):
        """Combine of one pass for ``ROWS`` rows: reduce the splits' partials, then pick the digit of the
        threshold of search ``SEARCH`` (1: largest key with at least ``k`` keys at or above it, or at most the
        min-p key; 2: largest key whose mass at or above it reaches ``top_p`` times search 1's kept mass). The
        statistics combine with ``GATHER`` flags the rows whose top-p finishes from their gathered top-k set
        (valid, top-p on, ``0 < k <= KMAX``). ``MIN_P`` (statistics combine): some row may have min-p (else no
        row's min-p key is computed); its rows without top-k take min-p's cut (``on`` 2, ``pre`` their min-p key),
        as do all of them with ``CUT`` (the plan has no top-k). ``CUT`` after the statistics: the pass served the
        cut, whose combine gives its rows the smallest key, and the mass, at or above their min-p key."""
        r = tl.arange(0, ROWS)
        rows = tl.program_id(0) * ROWS + r
        live = rows < n_rows
        d = tl.arange(0, NB)
        sc = tl.arange(0, SC)
        NEG_INF = float("-inf")
        if STATS:
            s1, s2, code, mx_raw, mx, lse, z = _combine_stats(stat_ptr, rows, live, n_splits, vocab, inv_t_ptr, k_ptr,
                                                           p_ptr, m_ptr, ROWS, SC, HAS1, HAS2)
            tl.store(mx_ptr + rows, mx, mask=live)
            tl.store(lse_ptr + rows, lse, mask=live)
            if HAS2:  # top-p's target over the whole mass (search 1 replaces it with its kept mass for its rows)
                tl.store(need2_ptr + rows, tl.load(p_ptr + rows, mask=live, other=1.0) * z, mask=live)
            tl.store(bad_ptr + rows, code.to(tl.int8), mask=live)
            # Search 1's targets: k (every key when top-k is off) and the min-p key (-1: none).
            top_k = tl.load(k_ptr + rows, mask=live, other=0)
            min_p = tl.load(m_ptr + rows, mask=live, other=0.0)
            need = tl.where((top_k > 0) & (top_k < vocab), top_k, vocab).to(tl.float32)
            key_m = tl.full([ROWS], -1, tl.int64)
            if MIN_P:  # the bisection takes 33 steps per row: only in plans where min-p may be on
                # A +inf row (code 4) keeps its +inf tokens: min-p's threshold is +inf there.
                log_m = tl.log(tl.where(min_p > 0, min_p, 1.0))
                key_m = tl.where(min_p > 0, tl.where(code == 4, _ukey(mx_raw), _min_p_key(mx, log_m)), key_m)
            pre = tl.zeros([ROWS], tl.int64)
            on = live & s1 & ((code == 0) | (code == 4))
            cutr = on & (min_p > 0) & (((top_k <= 0) | (top_k >= vocab)) | CUT) & MIN_P
            if CUT:  # no top-k in the call: search 1 serves min-p only
                on = on & (min_p > 0)
            # The cut reads what lies at or above the row's min-p key.
            pre = tl.where(cutr, key_m, pre)
            tl.store(need_ptr + rows, need, mask=live)
            tl.store(key_ptr + rows, key_m, mask=live)
            tl.store(pre_ptr + rows, pre, mask=live)
            tl.store(on_ptr + rows, tl.where(cutr, 2, on.to(tl.int8)).to(tl.int8), mask=live)
            on = on & ~cutr  # the search's rows: the first count digit below picks their bucket
            if GATHER:
                fast = on & s2 & (top_k > 0) & (top_k < vocab) & (top_k <= KMAX) & (code == 0)
                tl.store(fast_ptr + rows, fast.to(tl.int8), mask=live)
        else:  # on: 1 in the search, 2 in min-p's cut
            v = tl.load(on_ptr + rows, mask=live, other=0)
            on = live & (v == 1)
            cutr = live & (v == 2)
            mx = tl.load(mx_ptr + rows, mask=live, other=0.0)
            pre = tl.load(pre_ptr + rows, mask=live, other=0)
            need = tl.load(need_ptr + rows, mask=live, other=0.0)
            key_m = tl.load(key_ptr + rows, mask=live, other=-1)
        if CUT and not STATS:
            _, a_m, a_min = _above_over_splits(acnt_ptr, amass_ptr, amin_ptr, rows, live, n_splits, ROWS, SC, False)
            # The row's max is at or above its min-p key, so some key is; the canonical tau is the smallest.
            tl.store(pre_ptr + rows, a_min, mask=cutr)
            tl.store(key_ptr + rows, a_min, mask=cutr)
            tl.store(kept_ptr + rows, a_m, mask=cutr)
            top_p = tl.load(p_ptr + rows, mask=live, other=1.0)
            tl.store(need2_ptr + rows, top_p * a_m, mask=cutr)
        if SEARCH > 0 and BITS > 0:  # a pass with a digit (the cut alone has none)
            if SEARCH == 1 or FINAL:
                tot = tl.load(tot_ptr + rows.to(tl.int64)[:, None] * NB + d[None, :], mask=live[:, None], other=0)
            else:  # a weighted pass sums masses only
                tot = tl.zeros([ROWS, NB], tl.int32)
            a_c = tl.zeros([ROWS], tl.int32)
            a_m = tl.zeros([ROWS], tl.float32)
            a_min = tl.full([ROWS], NO_KEY, tl.int64)
            if not STATS:  # the statistics pass has no bucket above it
                a_c, a_m, a_min = _above_over_splits(acnt_ptr, amass_ptr, amin_ptr, rows, live, n_splits, ROWS, SC,
                                                     True)
            start = ((pre[:, None] << BITS) | d[None, :].to(tl.int64)) << SHIFT
            cum_c = a_c[:, None] + tl.cumsum(tot, 1, reverse=True)
            if SEARCH == 1:
                ok_d = (cum_c.to(tl.float32) >= need[:, None]) | (start <= key_m[:, None])
            if WEIGHTED and not RESCALE:  # the row's fixed-point sums
                wt = tl.load(wtot_ptr + rows.to(tl.int64)[:, None] * NB + d[None, :], mask=live[:, None], other=0)
                cum_m = a_m[:, None] + tl.cumsum(wt.to(tl.float32) * (1.0 / MASS_ONE), 1, reverse=True)
            if RESCALE:  # the first digit: per split, from the statistics pass
                mass = tl.zeros([ROWS, NB], tl.float32)
                s0 = 0
                while s0 < n_splits:
                    ok = live[:, None, None] & ((s0 + sc) < n_splits)[None, :, None]
                    part = rows.to(tl.int64)[:, None] * n_splits + s0 + sc[None, :]
                    m_split = tl.load(mass_ptr + part[:, :, None] * NB + d[None, None, :], mask=ok, other=0.0)
                    # Summed relative to each split's max.
                    ok2 = live[:, None] & ((s0 + sc) < n_splits)[None, :]
                    m_s = tl.load(stat_ptr + part * 3, mask=ok2, other=NEG_INF)
                    m_split = m_split * tl.where(m_s == NEG_INF, 0.0, tl.exp(m_s - mx[:, None]))[:, :, None]
                    mass += tl.sum(m_split, 1)
                    s0 += SC
                cum_m = a_m[:, None] + tl.cumsum(mass, 1, reverse=True)  # not total - prefix: that cancels
            if FINAL:  # one bucket per key: every element of a bucket has the same value, hence the same mass
                mass = tl.where(tot > 0, tot.to(tl.float32) * tl.exp(_unkey(start) - mx[:, None]), 0.0)
                cum_m = a_m[:, None] + tl.cumsum(mass, 1, reverse=True)  # not total - prefix: that cancels
            if SEARCH == 2:
                ok_d = cum_m >= need[:, None]
            # The predicate holds at the bucket's first key (by induction), so digit 0 is the fallback.
            dstar = tl.max(tl.where(ok_d, d[None, :], 0), 1)
            pre_new = (pre << BITS) | dstar.to(tl.int64)
            tl.store(pre_ptr + rows, pre_new, mask=on)
            if FINAL:
                kept = tl.sum(tl.where(d[None, :] == dstar[:, None], cum_m, 0.0), 1)
                # The canonical tau is the smallest key present at or above the threshold.
                present = tl.min(tl.where((d[None, :] >= dstar[:, None]) & (tot > 0), start, NO_KEY), 1)
                key = tl.where(present < NO_KEY, present, a_min)
                tl.store(key_ptr + rows, key, mask=on)
                tl.store(kept_ptr + rows, kept, mask=on)
                if SEARCH == 1:  # search 2's target: top_p of what search 1 kept
                    top_p = tl.load(p_ptr + rows, mask=live, other=1.0)
                    tl.store(need2_ptr + rows, top_p * kept, mask=on)

    @triton.jit
    def _search2_setup_kernel(n_rows, vocab, inv_t_ptr, k_ptr, p_ptr, m_ptr, bad_ptr, on2_ptr, pre2_ptr, fast_ptr,
                              ROWS: tl.constexpr, HAS1: tl.constexpr, HAS2: tl.constexpr, GATHER: tl.constexpr):
        """Rows where search 2 runs (not those whose top-p finishes from the gathered set). Its targets are
        already set: ``top_p`` of the whole mass by the statistics' combine (the mass itself, not a round trip
        through its log), of the kept mass by search 1's last combine for its rows."""
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        live = rows < n_rows
        _, s2, _ = _row_flags(rows, live, vocab, inv_t_ptr, k_ptr, p_ptr, m_ptr, HAS1, HAS2)
        bad = tl.load(bad_ptr + rows, mask=live, other=1) != 0
        if GATHER:
            s2 = s2 & (tl.load(fast_ptr + rows, mask=live, other=0) == 0)
        tl.store(on2_ptr + rows, (s2 & ~bad).to(tl.int8), mask=live)
        tl.store(pre2_ptr + rows, tl.zeros([ROWS], tl.int64), mask=live)

    @triton.jit
    def _gathered(buf_ptr, bcnt_ptr, rows, fast, mx, KMAX: tl.constexpr):
        """A row's gathered keys ``[ROWS, KMAX]`` (0 past the count), their packed entries and their masses
        ``exp(z - max)`` in fixed point (``FIXED_BITS`` fraction bits): integer sums are exact, so they do not
        depend on the order the atomics filled the buffer in."""
        j = tl.arange(0, KMAX)
        n_buf = tl.minimum(tl.load(bcnt_ptr + rows, mask=fast, other=0), KMAX)
        ok = fast[:, None] & (j[None, :] < n_buf[:, None])
        packed = tl.load(buf_ptr + rows.to(tl.int64)[:, None] * KMAX + j[None, :], mask=ok, other=0)
        keys = tl.where(ok, packed >> 31, 0)
        w = tl.where(ok, tl.exp(_unkey(keys) - mx[:, None]) * FIXED_ONE, 0.0).to(tl.int64)
        return keys, packed, w

    @triton.jit
    def _top_p_gathered_kernel(n_rows, p_ptr, mx_ptr, fast_ptr, key1_ptr, pre1_ptr, tot_ptr, buf_ptr, bcnt_ptr,
                               on2_ptr, pre2_ptr, key2_ptr, kept2_ptr, ROWS: tl.constexpr, NB: tl.constexpr,
                               BITS: tl.constexpr, KMAX: tl.constexpr):
        """Top-p over the exact top-k set of the gathered rows: the buffer (every key above the last count
        digit's bucket, all kept) and the bucket's keys at or above ``tau1`` with their counts. The threshold is
        the largest key whose mass at or above it reaches ``top_p`` times the set's mass, as search 2 would find
        it: by bisection over the buffer's keys when the buffer's mass reaches the target, else over the
        bucket's digits (all below the buffer's keys)."""
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        live = rows < n_rows
        fast = live & (tl.load(fast_ptr + rows, mask=live, other=0) != 0)
        mx = tl.load(mx_ptr + rows, mask=fast, other=0.0)
        key1 = tl.load(key1_ptr + rows, mask=fast, other=0)
        keys_b, _, w = _gathered(buf_ptr, bcnt_ptr, rows, fast, mx, KMAX)
        above = tl.sum(w, 1).to(tl.float32) * (1.0 / FIXED_ONE)
        d = tl.arange(0, NB)
        keys = ((tl.load(pre1_ptr + rows, mask=fast, other=0) >> BITS) << BITS)[:, None] | d[None, :].to(tl.int64)
        tot = tl.load(tot_ptr + rows.to(tl.int64)[:, None] * NB + d[None, :], mask=fast[:, None], other=0)
        inb = (tot > 0) & (keys >= key1[:, None])
        cum_d = above[:, None] + tl.cumsum(tl.where(inb, tot.to(tl.float32) * tl.exp(_unkey(keys) - mx[:, None]),
                                                    0.0), 1, reverse=True)
        lowest = tl.min(tl.where(inb, d[None, :], NB), 1)
        total = tl.where(lowest < NB, tl.sum(tl.where(d[None, :] == lowest[:, None], cum_d, 0.0), 1), above)
        need = tl.load(p_ptr + rows, mask=fast, other=1.0) * total
        # In the buffer: the largest key t with mass(keys >= t) >= need, bit by bit from the top (the mass is
        # non-increasing in t, and the largest such t is a key of the buffer).
        key_buf = tl.zeros([ROWS], tl.int64)
        kept_buf = above
        one = tl.full([ROWS], 1, tl.int64)
        bit = 31
        while bit >= 0:
            cand = key_buf | (one << bit)
            m = tl.sum(tl.where(keys_b >= cand[:, None], w, 0), 1).to(tl.float32) * (1.0 / FIXED_ONE)
            key_buf = tl.where(m >= need, cand, key_buf)
            kept_buf = tl.where(m >= need, m, kept_buf)
            bit -= 1
        # Else in the bucket: the largest kept key reaching it; the set's lowest key always does (the target
        # is top_p < 1 times that very sum), and tau1 is the fallback.
        dstar = tl.max(tl.where(inb & (cum_d >= need[:, None]), d[None, :], -1), 1)
        key_d = tl.sum(tl.where(d[None, :] == dstar[:, None], keys, 0), 1)
        kept_d = tl.sum(tl.where(d[None, :] == dstar[:, None], cum_d, 0.0), 1)
        in_buf = above >= need
        key2 = tl.where(in_buf, key_buf, tl.where(dstar >= 0, key_d, key1))
        kept2 = tl.where(in_buf, kept_buf, tl.where(dstar >= 0, kept_d, total))
        tl.store(on2_ptr + rows, tl.full([ROWS], 1, tl.int8), mask=fast)
        tl.store(pre2_ptr + rows, key2, mask=fast)
        tl.store(key2_ptr + rows, key2, mask=fast)
        tl.store(kept2_ptr + rows, kept2, mask=fast)

    @triton.jit
    def _mass_from(key, d, cnt, mx, BITS: tl.constexpr):
        """Mass of the keys at or above ``key`` in its last-digit bucket, from per-key counts ``[ROWS, NB]``."""
        keys = ((key >> BITS) << BITS)[:, None] | d[None, :].to(tl.int64)
        w = tl.where((keys >= key[:, None]) & (cnt > 0), cnt.to(tl.float32) * tl.exp(_unkey(keys) - mx[:, None]), 0.0)
        return tl.sum(w, 1)

    @triton.jit
    def _kept_kernel(n_rows, n_splits, slice_len, stat_ptr, mx_ptr, on1_ptr, key1_ptr, pre1_ptr, cnt1_ptr,
                     am1_ptr, on2_ptr, key2_ptr, pre2_ptr, cnt2_ptr, am2_ptr, fast_ptr, buf_ptr, bcnt_ptr, ks_ptr,
                     ROWS: tl.constexpr, NB1: tl.constexpr, BITS1: tl.constexpr, NB2: tl.constexpr,
                     BITS2: tl.constexpr, HAS1: tl.constexpr, HAS2: tl.constexpr, GATHER: tl.constexpr,
                     KMAX: tl.constexpr, CUT1: tl.constexpr):
        """Kept mass of each split: what the draw needs to know which split holds its token. Gathered rows sum
        their buffer's entries in the split at or above ``tau`` (fixed point: exact, in any order), plus the
        bucket's per-split counts when ``tau`` lies in the bucket."""
        tl.static_assert(not (CUT1 and GATHER), "gathering needs top-k, the cut a call without it")
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        split = tl.program_id(1)
        live = rows < n_rows
        part = rows.to(tl.int64) * n_splits + split
        mx = tl.load(mx_ptr + rows, mask=live, other=0.0)
        ks = _split_mass(stat_ptr, part, live, mx)
        if HAS1:
            v1 = tl.load(on1_ptr + rows, mask=live, other=0)
            on1 = live & (v1 != 0)
            pre = tl.load(pre1_ptr + rows, mask=live, other=0)
            if CUT1:  # the cut summed each split's kept mass itself
                ks = tl.where(on1, tl.load(am1_ptr + part, mask=on1, other=0.0), ks)
            else:  # the search's rows add their bucket's keys; the cut's (on 2) summed all they keep
                d = tl.arange(0, NB1)
                count1 = live & (v1 == 1)
                cnt = tl.load(cnt1_ptr + part[:, None] * NB1 + d[None, :], mask=count1[:, None], other=0)
                ks = tl.where(on1, tl.load(am1_ptr + part, mask=on1, other=0.0) + _mass_from(pre, d, cnt, mx, BITS1),
                              ks)
        if HAS2:
            on2 = live & (tl.load(on2_ptr + rows, mask=live, other=0) != 0)
            d2 = tl.arange(0, NB2)
            pre2 = tl.load(pre2_ptr + rows, mask=live, other=0)
            if HAS1:  # search 2 never goes below search 1's threshold (rounding with p ~ 1 could ask it to)
                on2 = on2 & ~(on1 & (pre2 < pre))
            cnt2 = tl.load(cnt2_ptr + part[:, None] * NB2 + d2[None, :], mask=on2[:, None], other=0)
            ks = tl.where(on2, tl.load(am2_ptr + part, mask=on2, other=0.0) + _mass_from(pre2, d2, cnt2, mx, BITS2),
                          ks)
        if GATHER:
            fast = live & (tl.load(fast_ptr + rows, mask=live, other=0) != 0)
            key2 = tl.load(key2_ptr + rows, mask=fast, other=0)
            keys_b, packed, w = _gathered(buf_ptr, bcnt_ptr, rows, fast, mx, KMAX)
            col = (packed & 2147483647) - split * slice_len
            sel = (keys_b >= key2[:, None]) & (col >= 0) & (col < slice_len)
            in_buf = tl.sum(tl.where(sel, w, 0), 1).to(tl.float32) * (1.0 / FIXED_ONE)
            in_bucket = (key2 >> BITS1) == (pre >> BITS1)
            ks = tl.where(fast, in_buf + tl.where(in_bucket, _mass_from(key2, d, cnt, mx, BITS1), 0.0), ks)
        tl.store(ks_ptr + part, ks, mask=live)

    @triton.jit
    def _finish_kernel(x_ptr, stride, n_rows, vocab, slice_len, n_splits, inv_t_ptr, k_ptr, p_ptr, m_ptr, stat_ptr,
                       mx_ptr, lse_ptr, bad_ptr, on1_ptr, key1_ptr, kept1_ptr, pre1_ptr, on2_ptr, key2_ptr,
                       kept2_ptr, pre2_ptr, ks_ptr, u_ptr, tau_ptr, lkept_ptr, tok_ptr, lp_ptr, raw_ptr,
                       ROWS: tl.constexpr, SC: tl.constexpr, BLOCK: tl.constexpr, HAS1: tl.constexpr,
                       HAS2: tl.constexpr, SAMPLE: tl.constexpr, STATS: tl.constexpr):
        """``tau``, the row's max (into ``mx_ptr``, NaN for invalid rows) and ``log_kept`` (relative to it) per
        row; with a draw, the split holding the token (inverse CDF over the splits' kept masses in vocabulary
        order), then the draw within it, and its log-probs as ``(z - max) - log_kept`` and
        ``(z - max) - log_mass``, so a large max does not round them away. ``STATS`` (a plan without filters):
        this kernel also combines the statistics pass (and writes ``log_mass``), and each split's kept mass is its
        whole mass, so the statistics' combine and the splits' kept masses need no launches of their own."""
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        live = rows < n_rows
        if STATS:
            _, _, code, _, mx, lse, total = _combine_stats(stat_ptr, rows, live, n_splits, vocab, inv_t_ptr, k_ptr,
                                                           p_ptr, m_ptr, ROWS, SC, HAS1, HAS2)
            tl.store(lse_ptr + rows, lse, mask=live)
        else:
            mx = tl.load(mx_ptr + rows, mask=live, other=0.0)
            code = tl.load(bad_ptr + rows, mask=live, other=1)
            lse = tl.load(lse_ptr + rows, mask=live, other=0.0)
            total = tl.zeros([ROWS], tl.float32)  # _pick_split sums the splits' kept masses
        bad = code != 0
        rel = lse  # log of the kept mass relative to the max: the whole mass unless a filter kept less
        tau = tl.full([ROWS], float("-inf"), tl.float32)
        if HAS1:
            on1 = tl.load(on1_ptr + rows, mask=live, other=0) != 0
            tau = tl.where(on1, _unkey(tl.load(key1_ptr + rows, mask=live, other=0)), tau)
            rel = tl.where(on1, tl.log(tl.load(kept1_ptr + rows, mask=live, other=1.0)), rel)
        if HAS2:
            on2 = tl.load(on2_ptr + rows, mask=live, other=0) != 0
            if HAS1:
                on2 = on2 & ~(on1 & (tl.load(pre2_ptr + rows, mask=live, other=0)
                                     < tl.load(pre1_ptr + rows, mask=live, other=0)))
            tau = tl.where(on2, _unkey(tl.load(key2_ptr + rows, mask=live, other=0)), tau)
            rel = tl.where(on2, tl.log(tl.load(kept2_ptr + rows, mask=live, other=1.0)), rel)
        nan = float("nan")
        tau = tl.where(code == 2, float("inf"), tl.where(code == 3, float("-inf"),
                                                         tl.where((code == 0) | (code == 4), tau, nan)))
        rel = tl.where(bad, nan, rel)
        tl.store(tau_ptr + rows, tau, mask=live)
        tl.store(mx_ptr + rows, tl.where(bad, nan, mx), mask=live)  # read above: this program's rows only
        tl.store(lkept_ptr + rows, rel, mask=live)
        if SAMPLE:
            split, target = _pick_split(ks_ptr, stat_ptr, u_ptr, rows, live, n_splits, mx, total, ROWS, SC, STATS)
            tok, z_tok = _draw(x_ptr, stride, rows, live & ~bad, vocab, split * slice_len, slice_len, inv_t_ptr, mx,
                               tau, target, ROWS, BLOCK)
            tl.store(tok_ptr + rows, tl.where(bad, -1, tok).to(tl.int64), mask=live)
            tl.store(lp_ptr + rows, tl.where(bad, nan, (z_tok - mx) - rel), mask=live)
            tl.store(raw_ptr + rows, tl.where(bad, nan, (z_tok - mx) - lse), mask=live)

    @triton.jit
    def _kept_of_splits(ks_ptr, stat_ptr, part, ok, mx, STATS: tl.constexpr):
        """Kept masses ``[ROWS, SC]`` of splits ``part``: from ``ks_ptr``, or (``STATS``, no filter) each split's
        whole mass from its statistics."""
        return _split_mass(stat_ptr, part, ok, mx[:, None]) if STATS else tl.load(ks_ptr + part, mask=ok, other=0.0)

    @triton.jit
    def _pick_split(ks_ptr, stat_ptr, u_ptr, rows, live, n_splits, mx, total, ROWS: tl.constexpr,
                    SC: tl.constexpr, STATS: tl.constexpr):
        """The split holding each row's token and the target mass within it: inverse CDF of the row's uniform
        over the splits' kept masses (``ks_ptr``; with ``STATS``, each split's whole mass from its statistics,
        whose sum in the same order the statistics' combine passed as ``total``)."""
        sc = tl.arange(0, SC)
        if not STATS:
            total = tl.zeros([ROWS], tl.float32)
            s0 = 0
            while s0 < n_splits:
                ok = live[:, None] & ((s0 + sc) < n_splits)[None, :]
                part = rows.to(tl.int64)[:, None] * n_splits + s0 + sc[None, :]
                total += tl.sum(tl.load(ks_ptr + part, mask=ok, other=0.0), 1)
                s0 += SC
        target = tl.load(u_ptr + rows, mask=live, other=0.0) * total
        run = tl.zeros([ROWS], tl.float32)
        pick = tl.full([ROWS], -1, tl.int32)
        before = tl.zeros([ROWS], tl.float32)
        last = tl.zeros([ROWS], tl.int32)
        last_before = tl.zeros([ROWS], tl.float32)
        s0 = 0
        while s0 < n_splits:
            idx = s0 + sc
            ok = live[:, None] & (idx < n_splits)[None, :]
            part = rows.to(tl.int64)[:, None] * n_splits + idx[None, :]
            ks = _kept_of_splits(ks_ptr, stat_ptr, part, ok, mx, STATS)
            incl = run[:, None] + tl.cumsum(ks, 1)
            hit = (incl > target[:, None]) & (ks > 0)
            first = tl.min(tl.where(hit, idx[None, :], 2147483647), 1)
            found = (pick < 0) & (first < 2147483647)
            at = idx[None, :] == first[:, None]
            before = tl.where(found, tl.sum(tl.where(at, incl - ks, 0.0), 1), before)
            pick = tl.where(found, first, pick)
            lb = tl.max(tl.where(ks > 0, idx[None, :], -1), 1)
            last_before = tl.where(lb >= 0, tl.sum(tl.where(idx[None, :] == lb[:, None], incl - ks, 0.0), 1),
                                   last_before)
            last = tl.where(lb >= 0, lb, last)
            run += tl.sum(ks, 1)
            s0 += SC
        # Rounding can leave the target at or above the total: the last split with kept mass draws then.
        before = tl.where(pick < 0, last_before, before)
        pick = tl.where(pick < 0, last, pick)
        return pick, target - before

    @triton.jit
    def _draw(x_ptr, stride, rows, go, vocab, start, slice_len, inv_t_ptr, mx, tau, target, ROWS: tl.constexpr,
              BLOCK: tl.constexpr):
        """(token, its z) per row: inverse CDF over the kept tokens (``z >= tau``) of the split at ``start``, in
        vocabulary order; if rounding leaves the target above the split's running total, its last kept token.
        Rows not in ``go`` read nothing (token -1)."""
        inv_t = tl.load(inv_t_ptr + rows, mask=go, other=1.0)
        base = x_ptr + rows.to(tl.int64)[:, None] * stride
        NEG_INF = float("-inf")
        run = tl.zeros([ROWS], tl.float32)
        tok = tl.full([ROWS], -1, tl.int32)
        z_tok = tl.zeros([ROWS], tl.float32)
        last = tl.full([ROWS], -1, tl.int32)
        z_last = tl.zeros([ROWS], tl.float32)
        offset = 0
        while offset < slice_len:
            cols = start[:, None] + offset + tl.arange(0, BLOCK)[None, :]
            offset += BLOCK
            valid = go[:, None] & (cols < vocab)
            z = tl.load(base + cols, mask=valid, other=NEG_INF).to(tl.float32) * inv_t[:, None] + 0.0
            w = tl.where(valid & (z >= tau[:, None]), tl.exp(z - mx[:, None]), 0.0)
            hit = ((tl.cumsum(w, 1) + run[:, None]) > target[:, None]) & (w > 0)
            first = tl.min(tl.where(hit, cols, 2147483647), 1)
            found = (tok < 0) & (first < 2147483647)
            z_tok = tl.where(found, tl.max(tl.where(cols == first[:, None], z, NEG_INF), 1), z_tok)
            tok = tl.where(found, first, tok)
            lb = tl.max(tl.where(w > 0, cols, -1), 1)
            z_last = tl.where(lb >= 0, tl.max(tl.where(cols == lb[:, None], z, NEG_INF), 1), z_last)
            last = tl.where(lb >= 0, lb, last)
            run += tl.sum(w, 1)
        z_tok = tl.where(tok < 0, z_last, z_tok)
        tok = tl.where(tok < 0, last, tok)
        return tok, z_tok


def device_sms(device: torch.device) -> int:
    """Streaming multiprocessors (compute units) of ``device``; a nominal 132 where there is no GPU."""
    if device.type == "cuda" and torch.cuda.is_available():
        return int(torch.cuda.get_device_properties(device).multi_processor_count)
    return 132


def plan_for(logits: torch.Tensor, *, top_k: bool, top_p: bool, min_p: bool, sample: bool,
             top_k_bound: int | None = None) -> SamplingPlan:
    """The plan :func:`run` follows for ``logits`` on their device."""
    n, vocab = logits.shape
    return launch_plan(n, vocab, top_k=top_k, top_p=top_p, min_p=min_p, top_k_bound=top_k_bound, sample=sample,
                       device_sms=device_sms(logits.device), interpreter=interpreting())


def run(logits: torch.Tensor, inv_temperature: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
        min_p: torch.Tensor, uniform: torch.Tensor, plan: SamplingPlan) -> Thresholds:
    """Run ``plan`` on ``[B, V]`` logits (unit column stride) with dense per-row parameters ``[B]``."""
    n, vocab = logits.shape
    dev = logits.device
    drawn = n if plan.draw else 0
    tok = torch.empty(drawn, dtype=torch.int64, device=dev)
    lp, raw = (torch.empty(drawn, dtype=torch.float32, device=dev) for _ in range(2))
    tau, lkept, lse = (torch.empty(n, dtype=torch.float32, device=dev) for _ in range(3))
    mx = torch.empty(n, dtype=torch.float32, device=dev)
    if n == 0:
        return Thresholds(tok, lp, raw, tau, mx, lkept, lse)
    s, rows, grid = plan.splits, plan.rows_per_program, plan.grid
    f32, i64, i8, i32 = torch.float32, torch.int64, torch.int8, torch.int32
    has1 = any(p.search == 1 for p in plan.passes)
    has2 = plan.top_p
    stat = torch.empty((n, s, 3), dtype=f32, device=dev)
    bad = torch.empty(n, dtype=i8, device=dev)

    def state(shape: tuple[int, ...], dtype: torch.dtype, used: bool, zero: bool = False) -> torch.Tensor:
        """A buffer of the plan's state; where no launch of the plan reads it, one element (a pointer to pass),
        and zero-filled only where something reads it before a launch writes it (a fill is a launch too)."""
        return (torch.zeros if used and zero else torch.empty)(shape if used else (1,), dtype=dtype, device=dev)

    # Per search: bucket prefix, row on, target (count or mass), min-p key then threshold key, kept mass; the
    # last digit's per-split counts; per-split count, mass and smallest key above the bucket. Without filters
    # the finish reads only the statistics. Search 1's are written by the statistics' combine and its passes
    # before they are read; search 2's "on" starts at 0 (rows of neither top-p path: set by its setup and by the
    # gathered set's combine), and its first digit's combine reads the (empty) sums above its bucket, as do the
    # splits' kept masses for gathered rows (then replaced).
    pre, need, key, kept = ([state((n,), t, plan.filtered) for _ in range(2)] for t in (i64, f32, i64, f32))
    on = [state((n,), i8, plan.filtered), state((n,), i8, has2, zero=True)]
    # Rows whose top-p finishes from their gathered top-k set (written by the statistics' combine), their
    # buffers and counters.
    fast = state((n,), i8, plan.gather)
    buf = state((n, K_MAX), i64, plan.gather)
    bcnt = state((n,), i32, plan.gather, zero=True)
    gathered = {"GATHER": plan.gather, "KMAX": K_MAX}
    final_tot = state((1,), i32, False)
    bits = [_last_bits(plan, 1), _last_bits(plan, 2)]
    cnt = [state((n, s, 1 << b), i32, plan.filtered) for b in bits]  # the splits' kept masses read both
    acnt, amass, amin = ([state((n, s), t, has1), state((n, s), t, has2, zero=True)] for t in (i32, f32, i64))
    mass = state((n, s, 1 << MASS_DIGITS[0]), f32, has2)
    warps = 1 if interpreting() else warps_for(4096)
    sc = 1 if interpreting() else _SPLIT_CHUNK
    flags = {"HAS1": has1, "HAS2": has2}
    params = (inv_temperature, top_k, top_p, min_p)
    started2 = False

    def start_search2() -> None:
        """Rows of search 2 and their targets, then the choice of its first digit from the statistics pass."""
        first = MASS_DIGITS[0]
        _launch(_search2_setup_kernel, (grid[0],), n, vocab, *params, bad, on[1], pre[1], fast, ROWS=rows,
                GATHER=plan.gather, **flags)
        _launch(_select_kernel, (grid[0],), n, vocab, s, *params, stat, state((1,), i32, False), mass,
                state((1,), i64, False), acnt[1], amass[1], amin[1], mx, lse, bad, pre[1], on[1], need[1], key[1],
                kept[1], need[1], fast, ROWS=rows, NB=1 << first, BITS=first, SHIFT=32 - first, SC=sc, STATS=False,
                SEARCH=2, WEIGHTED=True, FINAL=False, RESCALE=True, **flags, GATHER=False, KMAX=K_MAX, CUT=False,
                MIN_P=False, num_warps=warps)

    for i, p in enumerate(plan.passes):
        if p.search == 2 and not started2:
            start_search2()
            started2 = True
        nb, j = 1 << p.bits, max(p.search, 1) - 1
        hist, final = p.search > 0 and p.bits > 0, p.final and p.search > 0
        # The statistics pass's [tile, 2^8] one-hot must fit in registers.
        tile = min(plan.mass_tile, plan.block) if p.mass_first else plan.block
        # Row totals, summed by atomics: counts, or a weighted digit's fixed-point masses.
        tot = state((n, nb), i32, hist and not p.weighted, zero=True)
        wtot = state((n, nb), i64, p.weighted, zero=True)
        _launch(_pass_kernel, grid, logits, logits.stride(0), n, vocab, plan.slice_len, s, inv_temperature, mx,
                pre[j], on[j], stat, tot, cnt[j], mass, wtot, acnt[j], amass[j], amin[j], fast, buf, bcnt, ROWS=rows,
                TILE=tile, NB=nb, BITS=p.bits, SHIFT=p.shift, STATS=i == 0, HIST=hist, WEIGHTED=p.weighted,
                FINAL=final, MASS_FIRST=p.mass_first, NB2=1 << MASS_DIGITS[0], SHIFT2=32 - MASS_DIGITS[0],
                GATHER=p.gather, KMAX=K_MAX, CUT=p.cut, num_warps=warps)
        if plan.filtered:  # without filters the finish combines the statistics itself
            _launch(_select_kernel, (grid[0],), n, vocab, s, *params, stat, tot, mass, wtot, acnt[j], amass[j],
                    amin[j], mx, lse, bad, pre[j], on[j], need[j], key[j], kept[j], need[1], fast, ROWS=rows, NB=nb,
                    BITS=p.bits, SHIFT=p.shift, SC=sc, STATS=i == 0, SEARCH=p.search, WEIGHTED=p.weighted,
                    FINAL=final, **flags, RESCALE=False, GATHER=plan.gather and i == 0, KMAX=K_MAX,
                    CUT=plan.cut if i == 0 else p.cut, MIN_P=plan.min_p and i == 0, num_warps=warps)
        if p.gather:
            final_tot = tot
    if plan.gather:  # after search 2's passes, whose setup left these rows out
        _launch(_top_p_gathered_kernel, (grid[0],), n, top_p, mx, fast, key[0], pre[0], final_tot, buf, bcnt, on[1],
                pre[1], key[1], kept[1], ROWS=rows, NB=1 << bits[0], BITS=bits[0], KMAX=K_MAX, num_warps=warps)
    ks = state((n, s), f32, plan.draw and plan.filtered)
    if plan.draw and plan.filtered:  # without filters each split's kept mass is its whole mass (the statistics)
        _launch(_kept_kernel, grid, n, s, plan.slice_len, stat, mx, on[0], key[0], pre[0], cnt[0], amass[0], on[1],
                key[1], pre[1], cnt[1], amass[1], fast, buf, bcnt, ks, ROWS=rows, NB1=1 << bits[0], BITS1=bits[0],
                NB2=1 << bits[1], BITS2=bits[1], **flags, **gathered, CUT1=plan.cut)
    _launch(_finish_kernel, (grid[0],), logits, logits.stride(0), n, vocab, plan.slice_len, s, *params, stat, mx,
            lse, bad, on[0], key[0], kept[0], pre[0], on[1], key[1], kept[1], pre[1], ks, uniform, tau, lkept,
            tok, lp, raw, ROWS=rows, SC=sc, BLOCK=plan.block, SAMPLE=plan.draw, STATS=not plan.filtered, **flags,
            num_warps=warps)
    return Thresholds(tok, lp, raw, tau, mx, lkept, lse)


# Argument types for ahead-of-time compilation (verl_ext.ops._compile_check): pointers by name, else integers.
_POINTERS = {"inv_t_ptr": "fp32", "k_ptr": "i32", "p_ptr": "fp32", "m_ptr": "fp32", "u_ptr": "fp32", "mx_ptr": "fp32",
             "lse_ptr": "fp32", "lkept_ptr": "fp32", "bad_ptr": "i8", "pre_ptr": "i64", "pre1_ptr": "i64",
             "pre2_ptr": "i64",
             "on_ptr": "i8", "on1_ptr": "i8", "on2_ptr": "i8", "need_ptr": "fp32", "need2_ptr": "fp32",
             "key_ptr": "i64", "key1_ptr": "i64", "key2_ptr": "i64", "kept_ptr": "fp32", "kept1_ptr": "fp32",
             "kept2_ptr": "fp32", "stat_ptr": "fp32", "tot_ptr": "i32", "cnt_ptr": "i32", "cnt1_ptr": "i32",
             "cnt2_ptr": "i32", "mass_ptr": "fp32", "wtot_ptr": "i64", "acnt_ptr": "i32", "amass_ptr": "fp32",
             "am1_ptr": "fp32", "am2_ptr": "fp32", "amin_ptr": "i64", "ks_ptr": "fp32", "tau_ptr": "fp32",
             "tok_ptr": "i64", "lp_ptr": "fp32", "raw_ptr": "fp32", "fast_ptr": "i8", "buf_ptr": "i64",
             "bcnt_ptr": "i32"}


def compile_specs(dtype: str, plan: SamplingPlan) -> list[tuple[str, Any, dict[str, str], dict[str, Any], int]]:
    """(name, kernel, runtime signature, constexprs, num_warps) of every launch :func:`run` makes for ``plan``
    on ``dtype`` logits ("fp32", "bf16", "fp16"), for compiling them without a GPU."""
    specs: list[tuple[str, Any, dict[str, str], dict[str, Any], int]] = []
    recorded: list[tuple[Any, dict[str, Any]]] = []

    def record(kernel: Any, grid: tuple[int, ...], *args: object, **meta: object) -> None:
        recorded.append((kernel, meta))

    global _launch
    real, _launch = _launch, record
    try:
        n, vocab = plan.batch, plan.vocab
        x = torch.empty((n, vocab), device="meta")
        t = torch.empty(n, device="meta")
        run(x, t, t.int(), t, t, t, plan)
    finally:
        _launch = real
    for kernel, meta in recorded:
        warps = int(meta.pop("num_warps", 4))
        sig = {}
        for name in kernel.arg_names:
            if name in meta:
                continue
            sig[name] = f"*{dtype}" if name == "x_ptr" else (f"*{_POINTERS[name]}" if name in _POINTERS else
                                                               "i64" if name == "stride" else "i32")
        label = ", ".join(f"{k}={v}" for k, v in meta.items()
                          if k in ("SEARCH", "SHIFT", "STATS", "SAMPLE") or (k in ("CUT", "CUT1") and v))
        specs.append((f"sampling {kernel.fn.__name__} {dtype} {label}".rstrip(), kernel, sig, dict(meta), warps))
    return specs


def _launch(kernel: Any, grid: tuple[int, ...], *args: object, **meta: object) -> None:
    """Every launch of :func:`run` goes through here (tests count them against the plan)."""
    kernel[grid](*args, **meta)


def _last_bits(plan: SamplingPlan, search: int) -> int:
    """Width of the search's last (per-key) digit; 0 when the plan has no such search."""
    bits = [p.bits for p in plan.passes if p.search == search]
    return bits[-1] if bits else 0


__all__ = ["Thresholds", "device_sms", "plan_for", "run"]
