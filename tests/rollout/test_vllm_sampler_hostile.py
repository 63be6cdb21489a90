"""Hostile inputs to verl-ext's fused sampler inside vLLM 0.24.0's real V1 and V2 samplers (on CPU, as in
``test_vllm_sampler.py``, whose helpers this file reuses).

The policy being trained writes the logits (NaN, +/-inf, all -inf rows, values near the fp32 range, exact ties,
a single finite entry) and users write the sampling parameters (greedy, top-k 1 / off, top-p tiny, min-p 1,
temperatures at vLLM's clamp and far above, seeds at the int64 extremes). Whatever they write, the rollout must
not raise or fall back, must give int64 token ids in ``[0, V)`` that lie inside vLLM's own kept set whenever
vLLM keeps any token, and must never give the sampled token a -inf processed log-prob (verl's rollout log-probs
and importance ratios are built from it). The V2 runner's uniforms (a hash of the request's seed and the token's
position) are checked against a Python-integer reference (so CUDA, which wraps int64 the same way, gives the
same numbers) and for uniformity and independence across positions, seeds and seed families.
"""

from __future__ import annotations

import logging
import os
import types
from typing import Any

import numpy as np
import pytest
import torch

from tests.helpers import chi2_sf

# Its own import skips this module too when vLLM is missing (ci/requirements-vllm.lock pins it).
from tests.rollout.test_vllm_sampler import (
    VOCAB,
    SamplingParams,
    _min_p_as_vllms_kernel,
    metadata,
    through_verl,
    v1_min_p,
    v1_sampler,
    v2_call,
    v2_sampler,
)
from verl_ext.rollout import FusedTopKTopP, FusedV2Sample, install_fused_sampler, vllm_sampler

INF, NAN = float("inf"), float("nan")
_MASK64 = (1 << 64) - 1


def _backends() -> list[str]:
    triton_runs = torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1"
    return ["torch", "triton"] if triton_runs else ["torch"]


def row(*entries: float, fill: float = 0.0) -> list[float]:
    return list(entries) + [fill] * (VOCAB - len(entries))


def hostile_rows() -> torch.Tensor:
    """One row per thing a policy can emit; the continuous rows keep top-p boundaries free of ties."""
    smooth = torch.randn(4, VOCAB, generator=torch.Generator().manual_seed(11)) * 3
    rows = [
        row(0.0, NAN, 1.0),  # a NaN
        row(NAN, fill=NAN),  # all NaN
        row(0.0, 1.0, INF),  # one +inf
        row(INF, 1.0, INF),  # two +inf
        row(INF, fill=-INF),  # +inf and -inf only
        row(fill=-INF),  # nothing finite
        row(*([-INF] * 7), 3.0, fill=-INF),  # a single finite entry
        row(3e38, -3e38, 3.3e38, fill=-3.4e38),  # near the fp32 range: differences overflow
        row(fill=1e-45),  # denormals, all tied
        row(fill=0.0),  # all tied
        row(5.0, 5.0, 5.0, fill=-2.0),  # tied top three
        row(float(torch.finfo(torch.bfloat16).max), float(torch.finfo(torch.float16).max), fill=-1e4),
        *smooth.tolist(),
    ]
    return torch.tensor(rows, dtype=torch.float32)


def _check_against_vllm(tokens: torch.Tensor, ours: torch.Tensor, theirs: torch.Tensor, logits: torch.Tensor,
                        greedy: torch.Tensor, logprobs: bool) -> None:
    """``ours``/``theirs``: processed log-probs (``logprobs``) or logits ``[B, V]`` of the fused sampler and of
    vLLM's own. Where vLLM's row is a distribution, the kept sets agree up to two documented differences: ties
    at the boundary are all kept (vLLM's sort keeps an arbitrary part of them), and tokens whose probability
    underflows fp32 (below e^-87) are kept (vLLM drops them: its top-p, even at 1.0, drops tokens whose running
    mass is still 0; neither sampler can draw them)."""
    assert tokens.dtype == torch.int64 and tokens.shape == (logits.shape[0],)
    assert ((tokens >= 0) & (tokens < VOCAB)).all(), f"token ids out of range: {tokens.tolist()}"
    at_token = ours.gather(1, tokens[:, None])[:, 0]
    something = ~(logits == -INF).all(1)  # a row of -inf logits has -inf processed logits whatever is drawn
    wrong = (at_token == -INF) & something
    assert not wrong.any(), f"rows {torch.nonzero(wrong)[:, 0].tolist()}: the sampled token is given -inf"
    for i in range(logits.shape[0]):
        theirs_kept = (theirs[i] != -INF) & ~theirs[i].isnan()
        if greedy[i] or not theirs_kept.any() or not torch.isfinite(logits[i]).all() \
                or theirs[i].isnan().any() or (theirs[i] == INF).any():
            continue  # vLLM's argmax row, or vLLM's row is no distribution (e.g. temperature overflowed to +inf)
        ours_kept = (ours[i] != -INF) & ~ours[i].isnan()
        assert not (theirs_kept & ~ours_kept).any(), f"row {i}: drops tokens vLLM keeps"
        boundary = logits[i][theirs_kept].min()
        extra = ours_kept & ~theirs_kept
        log_probs = ours[i] if logprobs else ours[i] - torch.logsumexp(ours[i][ours_kept], 0)
        allowed = (logits[i] == boundary) | (log_probs < -87)
        assert not (extra & ~allowed).any(), \
            f"row {i}: keeps {torch.nonzero(extra & ~allowed)[:, 0].tolist()} beyond vLLM's kept set and its ties"
        t = int(tokens[i])
        assert theirs_kept[t] or allowed[t], f"row {i}: token {t} is outside vLLM's kept set"


# ---------------------------------------------------------------------------------------------------- V1

@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("mode", ["processed_logprobs", "processed_logits"])
def test_v1_hostile_logits_and_params(mode: str, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    logits = hostile_rows()
    n = logits.shape[0]
    # Each row under several parameter sets: greedy, top-1, top-2, tiny top-p, top-p with top-k, no filter,
    # min-p 1 (only the maxima pass vLLM's min-p), min-p with top-k and top-p.
    reps = 8
    logits = logits.repeat(reps, 1)
    temperature = torch.tensor([0.0, 1.0, 0.01, 2.0, 0.7, 1.0, 1.0, 1.5]).repeat_interleave(n)
    top_k = torch.tensor([VOCAB, 1, 2, VOCAB, 3, VOCAB, VOCAB, 5], dtype=torch.int32).repeat_interleave(n)
    top_p = torch.tensor([1.0, 1.0, 1.0, 1e-30, 0.5, 1.0, 1.0, 0.8]).repeat_interleave(n)
    min_p = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.3]).repeat_interleave(n).tolist()
    reference = v1_sampler(mode)(logits.clone(), metadata(temperature, top_k, top_p, {},
                                                          logitsprocs=v1_min_p(min_p)))
    sampler = v1_sampler(mode)
    through_verl(sampler, backend=backend, monkeypatch=monkeypatch)
    fused = sampler.topk_topp_sampler.forward
    assert isinstance(fused, FusedTopKTopP)
    out = sampler(logits.clone(), metadata(temperature, top_k, top_p, {}, logitsprocs=v1_min_p(min_p)))
    assert not fused.failed, "hostile logits must not switch the worker to vLLM's sampler"
    tokens = out.sampled_token_ids[:, 0].long()
    _check_against_vllm(tokens, out.logprobs_tensors.logprobs, reference.logprobs_tensors.logprobs, logits,
                        temperature < 1e-5, logprobs=mode == "processed_logprobs")
    greedy = temperature < 1e-5
    assert torch.equal(tokens[greedy], reference.sampled_token_ids[:, 0].long()[greedy])


@pytest.mark.parametrize("backend", _backends())
def test_v1_rows_without_a_usable_distribution_are_not_given_minus_inf(backend: str) -> None:
    """The fused call directly: NaN and all -inf rows get vLLM's argmax and, like vLLM's log-softmax, NaN
    processed log-probs, not -inf at the token they were given."""
    logits = torch.tensor([row(0.0, NAN, 1.0), row(fill=-INF), row(9.0, 1.0)])
    for mode in ("processed_logprobs", "processed_logits"):
        tokens, processed = FusedTopKTopP(mode, backend)(logits.clone(), {}, None, torch.tensor([0.5] * 3))
        assert processed is not None
        assert tokens.tolist()[2] == 0 and ((tokens >= 0) & (tokens < VOCAB)).all()
        at_token = processed.gather(1, tokens[:, None])[:, 0]
        if mode == "processed_logprobs":
            assert at_token[:2].isnan().all() and at_token[2] > -0.01, at_token.tolist()
        else:  # the logits themselves: NaN row untouched, the all -inf row is -inf everywhere
            assert torch.equal(processed[:2].isnan(), logits[:2].isnan()) and at_token[2] == 9.0


def test_v1_empty_batch() -> None:
    tokens, processed = FusedTopKTopP("processed_logprobs", "torch")(torch.empty(0, VOCAB), {}, None, None)
    assert tokens.shape == (0,) and processed is not None and processed.shape == (0, VOCAB)


@pytest.mark.parametrize("backend", _backends())
def test_v1_extreme_and_repeated_seeds_repeat_and_do_not_couple_rows(backend: str) -> None:
    n = 64
    logits = torch.zeros(n, VOCAB)  # flat: the token is a direct image of the uniform
    seeds = [-(2**63), 2**63 - 1, -1, 0, 1, 2**32] * 10 + [7, 7, 7, 7]

    def generators() -> dict[int, torch.Generator]:
        return {i: torch.Generator().manual_seed(s) for i, s in enumerate(seeds)}

    fused = FusedTopKTopP("processed_logprobs", backend)
    a, _ = fused(logits.clone(), generators(), None, None)
    b, _ = fused(logits.clone(), generators(), None, None)
    assert torch.equal(a, b), "seeded rows must repeat"
    same = [i for i, s in enumerate(seeds) if s == seeds[0]]
    assert (a[same] == a[same[0]]).all()  # equal seeds, equal draws (vLLM's own generators do the same)
    assert len({int(a[i]) for i in range(6)}) > 1, "different seeds must not draw alike"
    gens = generators()
    c, _ = fused(logits.clone(), gens, None, None)
    d, _ = fused(logits.clone(), gens, None, None)  # the generators advanced: a new draw per step
    assert not torch.equal(c, d)


def test_v1_install_many_times_then_fallback_serves_vllms_own(monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    sampler = v1_sampler("processed_logprobs")
    native = sampler.topk_topp_sampler.forward
    for _ in range(3):
        installed = install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend="torch")
        assert isinstance(installed, FusedTopKTopP) and installed.fallback == native
        assert sampler.topk_topp_sampler.forward is installed
    logits = hostile_rows()
    n = logits.shape[0]
    meta = metadata(torch.ones(n), torch.full((n,), 3, dtype=torch.int32), torch.full((n,), 0.5), {})
    reference = v1_sampler("processed_logprobs")(logits.clone(), meta)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("kernel failed to compile")

    monkeypatch.setattr(vllm_sampler, "sample_processed", broken)
    with caplog.at_level(logging.ERROR):
        out = sampler(logits.clone(), meta)
    assert installed.failed
    # vLLM's own sampler got the logits untouched: its processed log-probs are exactly the reference's.
    torch.testing.assert_close(out.logprobs_tensors.logprobs, reference.logprobs_tensors.logprobs, equal_nan=True)
    again = install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend="torch")
    assert isinstance(again, FusedTopKTopP) and again.fallback == native  # never a fused one as the fallback


# ---------------------------------------------------------------------------------------------------- V2

HOSTILE_V2 = [
    SamplingParams(temperature=0.0),  # greedy
    SamplingParams(temperature=0.5, top_k=1, seed=2**63 - 1),
    SamplingParams(temperature=1e-4, top_p=1e-9, seed=-(2**63)),  # vLLM clamps the temperature to 0.01
    SamplingParams(temperature=2.0, top_p=0.999999, seed=-5),
    SamplingParams(temperature=1.0, top_k=3, top_p=0.5, seed=0),
    SamplingParams(temperature=1.0, top_k=10**9),  # > vocabulary: off
]


@pytest.mark.parametrize("backend", _backends())
def test_v2_hostile_logits_and_params(v2: types.ModuleType, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm.v1.worker.gpu.sample import states as v2_states

    # vLLM's min-p kernel as torch, for both samplers: Triton's interpreter cannot run it (test_vllm_sampler.py).
    monkeypatch.setattr(v2_states, "apply_min_p", _min_p_as_vllms_kernel)
    params = [*HOSTILE_V2, SamplingParams(temperature=1.0, min_p=1.0, seed=9),  # only the maxima pass min-p
              SamplingParams(temperature=1.5, top_k=5, top_p=0.8, min_p=0.3, seed=10)]
    rows = hostile_rows()
    picks = [0, 2, 4, 5, 6, 7, 9, 10, 12, 13]  # NaN, +inf, +inf/-inf, no finite, one finite, overflow, ties, smooth
    logits = rows[picks].repeat(len(params), 1)
    requests = torch.arange(len(params)).repeat_interleave(len(picks))
    positions = torch.arange(requests.numel()) % 5 + 2**40
    ref_tokens, ref_processed = v2_call(v2_sampler(v2, params), logits, requests, positions)
    sampler = v2_sampler(v2, params)
    through_verl(sampler, backend=backend, monkeypatch=monkeypatch)
    assert isinstance(sampler.sample, FusedV2Sample)
    tokens, processed = v2_call(sampler, logits, requests, positions)
    assert not sampler.sample.failed, "hostile logits must not switch the worker to vLLM's sampler"
    greedy = torch.tensor([params[int(r)].temperature == 0 for r in requests])
    _check_against_vllm(tokens, processed, ref_processed, logits, greedy, logprobs=False)
    # Greedy rows, and top-1 rows whose maximum is unique and finite, are vLLM's argmax exactly.
    finite = torch.isfinite(logits).all(1)
    unique_max = (logits == logits.max(1, keepdim=True).values).sum(1) == 1
    top1 = torch.tensor([params[int(r)].top_k == 1 for r in requests]) & finite & unique_max
    assert torch.equal(tokens[greedy], ref_tokens[greedy])
    assert torch.equal(tokens[top1], ref_tokens[top1])


def test_v2_equal_seed_and_position_draw_alike_as_in_vllm(v2: types.ModuleType,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # Four requests with one seed, at one position: vLLM's Gumbel noise is a function of (seed, position), so
    # its draws are equal; so are the fused sampler's. Different positions draw anew.
    params = [SamplingParams(temperature=1.0, seed=42) for _ in range(4)] + [SamplingParams(temperature=1.0,
                                                                                            seed=43)]
    logits = torch.zeros(10, VOCAB)
    requests = torch.tensor([0, 1, 2, 3, 4] * 2)
    positions = torch.tensor([9] * 5 + [10] * 5)
    sampler = v2_sampler(v2, params)
    through_verl(sampler, monkeypatch=monkeypatch)
    tokens, _ = v2_call(sampler, logits, requests, positions)
    assert tokens.dtype == torch.int64 and tokens.shape == (10,)
    assert (tokens[:4] == tokens[0]).all() and (tokens[5:9] == tokens[5]).all()
    ref, _ = v2_call(v2_sampler(v2, params), logits, requests, positions)
    assert (ref[:4] == ref[0]).all()  # vLLM's own behaves the same


def test_v2_greedy_ties_take_the_first_maximum_as_vllm(v2: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    params = [SamplingParams(temperature=0.0), SamplingParams(temperature=0.0, seed=3)]
    logits = torch.tensor([row(1.0, 2.0, 2.0, 2.0), row(fill=0.0), row(-INF, -INF, 4.0, 4.0, fill=-INF),
                           row(fill=-1.0)])
    requests = torch.tensor([0, 1, 0, 1])
    sampler = v2_sampler(v2, params)
    through_verl(sampler, monkeypatch=monkeypatch)
    tokens, _ = v2_call(sampler, logits, requests, torch.tensor([0, 0, 1, 1]))
    ref, _ = v2_call(v2_sampler(v2, params), logits, requests, torch.tensor([0, 0, 1, 1]))
    assert tokens.tolist() == ref.tolist() == [1, 0, 2, 0]


def test_v2_install_many_times_and_fallback(v2: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = v2_sampler(v2, HOSTILE_V2)
    native = sampler.sample
    for _ in range(3):
        installed = install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend="torch")
        assert isinstance(installed, FusedV2Sample) and installed.fallback == native
        assert installed.sampler is sampler
    logits = hostile_rows()[[6, 12, 13, 14, 15, 9]]
    requests = torch.arange(len(HOSTILE_V2))
    ref_tokens, ref_processed = v2_call(v2_sampler(v2, HOSTILE_V2), logits, requests, torch.zeros(6))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("kernel failed to compile")

    monkeypatch.setattr(vllm_sampler, "sample_processed", broken)
    tokens, processed = v2_call(sampler, logits, requests, torch.zeros(6))
    assert installed.failed
    # The fallback is vLLM's own sampler on untouched logits and the same seeds: the same output exactly (the
    # last request has no seed, so each sampler drew its own).
    assert torch.equal(tokens[:5], ref_tokens[:5])
    torch.testing.assert_close(processed, ref_processed, equal_nan=True)


# ---------------------------------------------------------------------------------------- V2 uniforms

_G, _M1, _M2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def reference_uniform(seed: int, pos: int) -> float:
    """The V2 uniform in Python integers modulo 2^64: SplitMix64 of ``seed * golden + pos``."""
    x = (seed * _G + pos + _G) & _MASK64
    x = ((x ^ (x >> 30)) * _M1) & _MASK64
    x = ((x ^ (x >> 27)) * _M2) & _MASK64
    x ^= x >> 31
    return (x >> 40) / float(1 << 24)


def test_position_uniforms_are_modular_arithmetic_at_the_int64_extremes() -> None:
    rng = np.random.default_rng(0)
    seeds = [-(2**63), 2**63 - 1, -1, 0, 1, -5, 2**62, *rng.integers(-(2**63), 2**63 - 1, 40, dtype=np.int64)]
    positions = [0, 1, 2**31 - 1, 2**31, 2**40, 2**63 - 1]
    s = torch.tensor([int(a) for a in seeds for _ in positions], dtype=torch.int64)
    p = torch.tensor([b for _ in seeds for b in positions], dtype=torch.int64)
    u = vllm_sampler.position_uniforms(s, p)
    expected = torch.tensor([reference_uniform(int(a), b) for a, b in zip(s.tolist(), p.tolist(), strict=True)])
    assert u.dtype == torch.float32 and torch.equal(u, expected)
    assert ((u >= 0) & (u < 1)).all()
    # int32 positions (what a runner might pass) hash as their int64 values.
    assert torch.equal(vllm_sampler.position_uniforms(s[:3], p[:3].to(torch.int32)),
                       vllm_sampler.position_uniforms(s[:3], p[:3]))


def _chi2_p(u: np.ndarray, bins: int) -> float:
    counts = np.bincount(np.minimum((u * bins).astype(np.int64), bins - 1), minlength=bins)
    expected = len(u) / bins
    stat = float(((counts - expected) ** 2 / expected).sum())
    return chi2_sf(stat, bins - 1)


def _uniform_and_independent(u: np.ndarray, what: str) -> None:
    n = len(u)
    assert _chi2_p(u, 64) > 1e-6, f"{what}: not uniform"
    pairs = np.minimum((u[:-1] * 16).astype(np.int64), 15) * 16 + np.minimum((u[1:] * 16).astype(np.int64), 15)
    assert _chi2_p((pairs + 0.5) / 256, 256) > 1e-6, f"{what}: consecutive pairs not uniform"
    for lag in (1, 2, 3, 7):
        z = np.corrcoef(u[:-lag], u[lag:])[0, 1] * np.sqrt(n)
        assert abs(z) < 5.5, f"{what}: lag-{lag} correlation z={z:.1f}"


@pytest.mark.parametrize("seed", [0, 1, -1, 2**63 - 1, -(2**63), 123456789])
def test_position_uniforms_of_one_seed_are_uniform_and_uncorrelated(seed: int) -> None:
    n = 1 << 15
    u = vllm_sampler.position_uniforms(torch.full((n,), seed, dtype=torch.int64), torch.arange(n)).double().numpy()
    _uniform_and_independent(u, f"seed {seed} over positions")


@pytest.mark.parametrize("pos", [0, 1, 4097])
def test_position_uniforms_across_seeds_are_uniform_and_uncorrelated(pos: int) -> None:
    n = 1 << 15
    seeds = torch.arange(n, dtype=torch.int64) - n // 2  # consecutive seeds, as vLLM gives n>1 children
    u = vllm_sampler.position_uniforms(seeds, torch.full((n,), pos)).double().numpy()
    _uniform_and_independent(u, f"consecutive seeds at position {pos}")
    scattered = torch.tensor(np.random.default_rng(pos).integers(-(2**63), 2**63 - 1, n, dtype=np.int64))
    v = vllm_sampler.position_uniforms(scattered, torch.full((n,), pos)).double().numpy()
    _uniform_and_independent(v, f"random int64 seeds at position {pos}")


@pytest.mark.parametrize("step", [1, 2, 1 << 32, 10**9, 1 << 58, 3524578])
def test_seed_families_do_not_share_shifted_streams(step: int) -> None:
    """Seeds ``s + m * step`` (vLLM's n>1 children are ``seed + index``; users pick round numbers): no two
    streams coincide at any position shift within a window, and streams are pairwise uncorrelated."""
    n, window, members = 2048, 64, 8
    base = 987654321
    streams = []
    for m in range(members):
        s = (base + m * step + (1 << 63)) % (1 << 64) - (1 << 63)
        u = vllm_sampler.position_uniforms(torch.full((n + window,), s, dtype=torch.int64), torch.arange(n + window))
        streams.append((u * (1 << 24)).long())
    for a in range(members):
        for b in range(members):
            if a == b:
                continue
            for shift in range(window):
                same = int((streams[a][shift:shift + n] == streams[b][:n]).sum())
                # a 24-bit coincidence has probability 2^-24 per position: 2 in 2048 is already ~1e-8
                assert same <= 1, f"seeds {a} and {b} of step {step} coincide at shift {shift} ({same} of {n})"
            if a < b:
                z = np.corrcoef(streams[a].double().numpy(), streams[b].double().numpy())[0, 1] * np.sqrt(n + window)
                assert abs(z) < 5.5
