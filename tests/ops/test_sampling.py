"""verl_ext.ops.sample: distribution tests (G-test against the exact renormalised distribution), exact
invariants against an fp64 reference written from the definition, and edge cases; Triton runs in its
interpreter on CPU, the torch path is the sort-based reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.helpers import g_test_p_value, kept_reference
from verl_ext.ops import (
    min_p_sampling_from_probs,
    sample,
    top_k_mask_logits,
    top_k_renorm_probs,
    top_k_top_p_sampling_from_logits,
    top_p_renorm_probs,
    top_p_sampling_from_probs,
)
from verl_ext.ops import sampling as S

BACKENDS = ["torch", "triton"]
# Draws per distribution case. The interpreted Triton path keeps per-row histograms (2048 buckets of the first
# key digit), so it draws fewer rows: a wrong renormalisation over 111 tokens still moves G by hundreds.
DRAWS = {"torch": 100_000, "triton": 20_000}
# A correct sampler fails a case with probability 1e-7; a wrong renormalisation over 111 tokens moves G by
# thousands at 10^5 draws.
P_VALUE_FLOOR = 1e-7


def unambiguous(z: torch.Tensor, top_k: int | None, top_p: float | None, min_p: float | None) -> bool:
    """The kept set does not change when p and min-p move by a relative 1e-4 (no fp32 boundary case)."""
    lo = kept_reference(z, top_k, None if top_p is None else top_p * (1 - 1e-4),
                        None if min_p is None else min_p * (1 + 1e-4))
    hi = kept_reference(z, top_k, None if top_p is None else min(1.0, top_p * (1 + 1e-4)),
                        None if min_p is None else min_p * (1 - 1e-4))
    return bool(torch.equal(lo, hi))


ROW = torch.linspace(-4.0, 3.0, 111, dtype=torch.float64)[
    torch.randperm(111, generator=torch.Generator().manual_seed(7))]
DIST_CASES = {  # name: (temperature, top_k, top_p, min_p)
    "temperature only": (1.3, None, None, None),
    "top-k": (1.0, 17, None, None),
    "top-p": (1.0, None, 0.8, None),
    "min-p": (0.9, None, None, 0.05),
    "all filters": (0.7, 40, 0.9, 0.01),
}
TRITON_DIST_CASES = ["temperature only", "top-p", "min-p", "all filters"]


# The interpreted Triton path is slow per filtered draw: top-k alone is left to "all filters".
@pytest.mark.parametrize(("backend", "case"),
                         [("torch", c) for c in DIST_CASES] + [("triton", c) for c in TRITON_DIST_CASES])
def test_draws_follow_the_renormalised_distribution(backend: str, case: str) -> None:
    temperature, top_k, top_p, min_p = DIST_CASES[case]
    z = ROW / temperature
    assert unambiguous(z, top_k, top_p, min_p)
    keep = kept_reference(z, top_k, top_p, min_p)
    probs = torch.where(keep, torch.softmax(z, 0), 0.0)
    probs /= probs.sum()
    logits = ROW.float()[None].expand(DRAWS[backend], -1)
    out = sample(logits, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p, seed=1234,
                 return_logprobs=True, backend=backend)
    assert keep[out.token_ids].all(), "a token outside the kept set was drawn"
    counts = torch.bincount(out.token_ids, minlength=ROW.numel())
    assert g_test_p_value(counts[keep], probs[keep]) > P_VALUE_FLOOR
    torch.testing.assert_close(out.logprobs.double(), torch.log(probs)[out.token_ids], atol=2e-5, rtol=0)
    torch.testing.assert_close(out.raw_logprobs.double(), torch.log_softmax(z, 0)[out.token_ids], atol=2e-5, rtol=0)


PER_ROW_CASES = [  # (temperature, top_k, top_p, min_p) of each row of one batch
    (1.0, 0, 1.0, 0.0), (0.8, 12, 1.0, 0.0), (1.2, 0, 0.7, 0.0), (1.0, 25, 0.9, 0.05)]


def test_triton_draws_per_row_follow_the_torch_reference() -> None:
    """Rows with different filters in one call, each drawn 3000 times (one uniform per draw from the seed): every
    row's counts pass a G-test against the probabilities the torch reference keeps for it."""
    draws, vocab = 3000, 40
    g = torch.Generator().manual_seed(12)
    base = torch.randn(len(PER_ROW_CASES), vocab, generator=g, dtype=torch.float64) * 1.5
    logits = base.float().repeat_interleave(draws, 0)
    temperature, top_k, top_p, min_p = (torch.tensor([c[i] for c in PER_ROW_CASES]).repeat_interleave(draws)
                                        for i in range(4))
    out = sample(logits, temperature=temperature, top_k=top_k.int(), top_p=top_p, min_p=min_p, seed=2024,
                 backend="triton")
    ref = S._torch(base.float(), S._rows(base.float(), *(t[::draws] for t in (temperature, top_k.int(), top_p, min_p)),
                                         None, torch.zeros(len(PER_ROW_CASES))), sample=False)
    for i in range(len(PER_ROW_CASES)):
        z = base[i].float() * (1.0 / temperature[i * draws])
        keep = z >= ref.tau[i]
        probs = torch.where(keep, torch.exp(z.double() - float(ref.log_norm[i])), 0.0)
        tok = out[i * draws:(i + 1) * draws]
        assert keep[tok].all(), f"row {i}: a token outside the kept set was drawn"
        counts = torch.bincount(tok, minlength=vocab)
        assert g_test_p_value(counts[keep], probs[keep] / probs[keep].sum()) > P_VALUE_FLOOR, f"row {i}"


def test_triton_draws_are_reproducible_for_a_seed() -> None:
    logits = torch.randn(48, 300, generator=torch.Generator().manual_seed(13)) * 2
    kwargs = {"top_k": 60, "top_p": 0.95, "return_logprobs": True, "backend": "triton"}
    a, b = sample(logits, seed=77, **kwargs), sample(logits, seed=77, **kwargs)
    assert torch.equal(a.token_ids, b.token_ids) and torch.equal(a.logprobs, b.logprobs)
    assert not torch.equal(a.token_ids, sample(logits, seed=78, **kwargs).token_ids)


@st.composite
def batches(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 6))
    vocab = draw(st.sampled_from([2, 7, 111, 300]))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    wide = torch.round(torch.randn(n, vocab + 2, generator=g) * draw(st.sampled_from([0.5, 2.0, 6.0])) * 8) / 8
    if draw(st.booleans()):
        wide = wide.masked_fill(torch.rand(n, vocab + 2, generator=g) < 0.3, float("-inf"))
        wide[:, 1] = 0.0  # every row keeps a finite entry
    logits = wide[:, 1:vocab + 1].to(draw(st.sampled_from([torch.float32, torch.bfloat16, torch.float16])))

    def per_row(values):  # scalar or per-row tensor, disabled values included
        if draw(st.booleans()):
            return draw(st.sampled_from(values))
        return [draw(st.sampled_from(values)) for _ in range(n)]

    return {"logits": logits,
            "temperature": per_row([0.5, 1.0, 1.5]),
            "top_k": per_row([None, 0, -1, 1, 3, vocab - 1, vocab, vocab + 5]),
            "top_p": per_row([None, 1.0, 0.3, 0.75, 0.95]),
            "min_p": per_row([None, 0.0, 0.02, 0.3])}


def _as_arg(value, dtype):
    if isinstance(value, list):
        fill = {torch.int32: 0, torch.float32: 0.0}
        if dtype == torch.float32 and all(v is None for v in value):
            return None
        return torch.tensor([fill[dtype] if v is None else v for v in value], dtype=dtype)
    return value


def _row_params(case: dict, i: int) -> tuple[float, int | None, float | None, float | None]:
    def pick(v):
        return v[i] if isinstance(v, list) else v

    return pick(case["temperature"]), pick(case["top_k"]), pick(case["top_p"]), pick(case["min_p"])


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=batches(), seed=st.integers(0, 2**40))
def test_invariants_against_the_fp64_definition(backend: str, case: dict, seed: int) -> None:
    logits = case["logits"]
    rows = [_row_params(case, i) for i in range(logits.shape[0])]
    for i, (t, k, p, m) in enumerate(rows):
        assume(unambiguous(logits[i].double() / t, k, p, m))
    top_p = case["top_p"]
    if isinstance(top_p, list):
        top_p = torch.tensor([1.0 if v is None else v for v in top_p])
    min_p = case["min_p"]
    if isinstance(min_p, list):
        min_p = torch.tensor([0.0 if v is None else v for v in min_p])
    top_k = case["top_k"]
    if isinstance(top_k, list):
        top_k = torch.tensor([0 if v is None else v for v in top_k], dtype=torch.int32)
    temperature = case["temperature"]
    if isinstance(temperature, list):
        temperature = torch.tensor(temperature)
    out = sample(logits, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p, seed=seed,
                 return_logprobs=True, backend=backend)
    again = sample(logits, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p, seed=seed,
                   return_logprobs=True, backend=backend)
    assert torch.equal(out.token_ids, again.token_ids), "equal seeds must give equal draws"
    for i, (t, k, p, m) in enumerate(rows):
        z = logits[i].double() / t
        keep = kept_reference(z, k, p, m)
        tok = int(out.token_ids[i])
        assert keep[tok], f"row {i}: token {tok} is outside the kept set"
        assert math.isfinite(float(z[tok]))
        expected = z[tok] - torch.logsumexp(z[keep], 0)
        assert abs(float(out.logprobs[i]) - float(expected)) <= 1e-5 * max(1.0, abs(float(expected)))
        raw = torch.log_softmax(z, 0)[tok]
        assert abs(float(out.raw_logprobs[i]) - float(raw)) <= 1e-5 * max(1.0, abs(float(raw)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_top_k_one_is_argmax_and_disabled_values_keep_everything(backend: str) -> None:
    logits = torch.randn(64, 111, generator=torch.Generator().manual_seed(3))
    tok = sample(logits, top_k=1, seed=5, backend=backend)
    assert torch.equal(logits.gather(1, tok[:, None])[:, 0], logits.max(1).values)
    # Disabled per-row values everywhere: the same draws as no filter at all (same uniforms).
    k = torch.tensor([0, -1, 111, 500] * 16, dtype=torch.int32)
    plain = sample(logits, seed=5, return_logprobs=True, backend=backend)
    disabled = sample(logits, top_k=k, top_p=torch.ones(64), min_p=torch.zeros(64), seed=5, return_logprobs=True,
                      backend=backend)
    assert torch.equal(plain.token_ids, disabled.token_ids)
    torch.testing.assert_close(plain.logprobs, plain.raw_logprobs)
    torch.testing.assert_close(disabled.logprobs, plain.logprobs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_row_seeds_and_noncontiguous_input(backend: str) -> None:
    base = torch.randn(8, 2 * 111, generator=torch.Generator().manual_seed(4))
    logits = base[:, ::2]  # row stride 222, column stride 2
    assert not logits.is_contiguous()
    rows = logits[[0, 1, 0, 1]]
    seeds = torch.tensor([11, 12, 11, 12])
    tok = sample(rows, top_p=0.9, seed=seeds, backend=backend)
    assert tok[0] == tok[2] and tok[1] == tok[3], "equal per-row seeds on equal rows must give equal draws"
    a = sample(logits, top_k=20, seed=9, return_logprobs=True, backend=backend)
    b = sample(logits.contiguous(), top_k=20, seed=9, return_logprobs=True, backend=backend)
    assert torch.equal(a.token_ids, b.token_ids)
    torch.testing.assert_close(a.logprobs, b.logprobs)


@pytest.mark.parametrize("filtered", [True, False], ids=["filters", "temperature only"])
def test_backends_draw_the_same_tokens_from_the_same_uniforms(filtered: bool) -> None:
    """Triton's split choice and draw within the split against the torch reference's inverse CDF over the whole
    row (several splits per row: without filters the finish takes each split's mass from the statistics)."""
    g = torch.Generator().manual_seed(6)
    logits = torch.randn(512, 300, generator=g) * 3
    kwargs = {"top_k": torch.randint(0, 300, (512,), generator=g), "top_p": torch.rand(512, generator=g) * 0.9 + 0.1,
              "min_p": torch.rand(512, generator=g) * 0.1, "temperature": torch.rand(512, generator=g) + 0.5}
    if not filtered:
        kwargs = {"temperature": kwargs["temperature"]}
        assert S.launch_plan(512, 300, interpreter=True).splits >= 3
    u = torch.rand(512, generator=g)
    a = sample(logits, uniform=u, return_logprobs=True, backend="triton", **kwargs)
    b = sample(logits, uniform=u, return_logprobs=True, backend="torch", **kwargs)
    # Only fp32 rounding of the running sums can move a draw to a neighbour at a CDF boundary.
    assert (a.token_ids == b.token_ids).float().mean() >= 0.99
    same = a.token_ids == b.token_ids
    torch.testing.assert_close(a.logprobs[same], b.logprobs[same], atol=1e-5, rtol=1e-5)


def _hard_rows(kind: str, n: int, vocab: int, g: torch.Generator) -> torch.Tensor:
    """Rows that defeat pivot- or candidate-based threshold searches."""
    if kind == "ties":
        x = torch.randn(n, vocab, generator=g) * 2
        x[::2, ::3] = 2.5  # a tie across the top-k/top-p boundary
        return x
    if kind == "flat":  # a top-k in the hundreds over nearly equal logits
        return torch.randn(n, vocab, generator=g) * 1e-3
    if kind == "all equal":
        return torch.full((n, vocab), 0.75)
    if kind == "peaked":  # 8 dominant tokens over a Gaussian bulk, as LLM logits
        x = torch.randn(n, vocab, generator=g) * 2
        return x.scatter_add(1, torch.randint(0, vocab, (n, 8), generator=g), torch.linspace(6.0, 9.0, 8).repeat(n, 1))
    if kind == "-inf":
        x = torch.randn(n, vocab, generator=g) * 2
        return x.masked_fill(torch.rand(n, vocab, generator=g) < 0.6, float("-inf"))
    if kind == "+inf":  # z overflows: no distribution (token -1), but every filter's kept set is defined
        x = torch.randn(n, vocab, generator=g) * 2
        x[:, 5] = float("inf")
        x[::3, 9] = 3e38
        return x
    if kind == "huge range":  # masses that underflow fp32 next to ones that do not; keys of every sign and size
        return torch.randn(n, vocab, generator=g) * torch.logspace(-30, 30, vocab)[torch.randperm(vocab, generator=g)]
    raise AssertionError(kind)


HARD_ROWS = ["ties", "flat", "all equal", "peaked", "-inf", "huge range", "+inf"]


@pytest.mark.parametrize("kind", HARD_ROWS)
def test_triton_thresholds_are_exact_on_hard_rows(kind: str) -> None:
    """The radix searches (and top-p over a gathered top-k set) find the reference's kept set exactly, whatever
    the data (a fixed number of passes: tests/ops/test_sampling_plan.py counts them)."""
    g = torch.Generator().manual_seed(8)
    n, vocab = 24, 300
    logits = _hard_rows(kind, n, vocab, g)
    top_k = torch.tensor([0, 1, 7, 150, 290, 299, 0, 40] * 3, dtype=torch.int32)
    top_p = torch.tensor([0.9, 1.0, 0.5, 0.999, 0.3, 1.0, 0.05, 0.95] * 3)
    min_p = torch.tensor([0.0] * 8 + [0.02] * 8 + [0.5] * 8)
    params = S._rows(logits, torch.rand(n, generator=g) + 0.5, top_k, top_p, min_p, 3, None)
    t = S._triton(logits, params, sample=True)
    r = S._torch(logits, params, sample=True)
    z = logits * params.inv_temperature[:, None]
    assert torch.equal(z >= t.tau[:, None], z >= r.tau[:, None]), "kept sets differ"
    assert torch.equal(t.tau, r.tau), "tau is the smallest kept value on both backends"
    torch.testing.assert_close(t.log_norm, r.log_norm, atol=1e-5, rtol=1e-5, equal_nan=True)
    # A Python-int top-k of at most K_MAX ("g"): every row's top-p finishes from its gathered top-k set (no mass
    # passes); above, rows with top-k 0 took the mass passes and the others the gathered set, in one call.
    for k in (7, 150):
        one_k = S._rows(logits, params.inv_temperature.reciprocal(), k, top_p, min_p, 3, None)
        t_k, r_k = S._triton(logits, one_k, sample=True, filters="kpmg"), S._torch(logits, one_k, sample=True)
        assert torch.equal(t_k.tau, r_k.tau), f"top-k {k}: tau differs"
        torch.testing.assert_close(t_k.log_norm, r_k.log_norm, atol=1e-5, rtol=1e-5, equal_nan=True)
        assert torch.equal(t_k.token_ids == -1, r_k.token_ids == -1)
    # No top-k in the call ("pm"): min-p rows take the cut (one pass at the known min-p key) instead of the
    # count search. On these rows (no top-p target within fp32 rounding of a cumulative mass, where the order
    # of summation decides) both keep exactly what the reference keeps.
    no_k = S._rows(logits, params.inv_temperature.reciprocal(), None, top_p, min_p, 3, None)
    t_c, r_c = S._triton(logits, no_k, sample=True, filters="pm"), S._torch(logits, no_k, sample=True)
    assert torch.equal(t_c.tau, r_c.tau), "min-p's cut: tau differs"
    torch.testing.assert_close(t_c.log_norm, r_c.log_norm, atol=1e-5, rtol=1e-5, equal_nan=True)
    t_n = S._triton(logits, no_k, sample=True, filters="kpm")  # the same rows through the count search
    assert torch.equal(t_c.tau, t_n.tau)
    torch.testing.assert_close(t_c.log_norm, t_n.log_norm, atol=1e-6, rtol=1e-6, equal_nan=True)
    assert torch.equal(t_c.token_ids == -1, r_c.token_ids == -1)
    if kind == "+inf":
        assert (t.token_ids == -1).all() and (r.token_ids == -1).all()
        return
    z_c = logits * no_k.inv_temperature[:, None]
    assert (z_c.gather(1, t_c.token_ids[:, None])[:, 0] >= t_c.tau).all()
    # Same kept sets; the splits' kept masses are summed in another order, so fp32 rounding may move a draw
    # that sits at a CDF boundary.
    assert (t_c.token_ids == t_n.token_ids).float().mean() >= 0.9
    kept = z.gather(1, t.token_ids[:, None])[:, 0] >= t.tau
    assert kept.all(), "a token outside the kept set was drawn"
    assert (t.token_ids == r.token_ids).float().mean() >= 0.9


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_odd_vocabulary(backend: str) -> None:
    g = torch.Generator().manual_seed(9)
    logits = (torch.randn(4, 32003, generator=g) * 4).to(torch.bfloat16)
    out = sample(logits, top_k=torch.tensor([0, 50, 5000, 32003], dtype=torch.int32), top_p=0.95, seed=1,
                 return_logprobs=True, backend=backend)
    for i, k in enumerate([None, 50, 5000, None]):
        z = logits[i].double()
        keep = kept_reference(z, k, 0.95, None)
        assert keep[out.token_ids[i]]
        expected = z[out.token_ids[i]] - torch.logsumexp(z[keep], 0)
        assert abs(float(out.logprobs[i]) - float(expected)) < 1e-4


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the interpreter on NaN rows
def test_invalid_rows_get_minus_one_and_nan(backend: str) -> None:
    logits = torch.randn(5, 111)
    logits[1] = float("-inf")
    logits[2, 5] = float("nan")
    out = sample(logits, temperature=torch.tensor([1.0, 1.0, 1.0, 0.0, 1.0]),
                 top_p=torch.tensor([0.9, 0.9, 0.9, 0.9, -0.5]), seed=0, return_logprobs=True, backend=backend)
    assert out.token_ids.tolist()[1:] == [-1, -1, -1, -1]
    assert out.token_ids[0] >= 0 and math.isfinite(float(out.logprobs[0]))
    assert torch.isnan(out.logprobs[1:]).all() and torch.isnan(out.raw_logprobs[1:]).all()


def test_parameters_that_would_be_reinterpreted_are_refused_or_mean_what_the_docs_say() -> None:
    """No silent truncation or wrap-around: per-row top_k past int32 disables the filter (as >= V does), scalar
    top_k beyond int32 too; fractional per-row top_k, non-integer seeds and a temperature whose inverse
    overflows fp32 are refused; a negative uniform draws the first kept token, as 0 does."""
    g = torch.Generator().manual_seed(21)
    logits = torch.randn(2, 50, generator=g)
    u = torch.tensor([0.3, 0.7])
    for backend in ("torch", "triton"):
        free = sample(logits, uniform=u, backend=backend)
        for k in (torch.tensor([2**32 + 3] * 2), torch.tensor([-(2**40)] * 2), 2**31, 2**40, -(2**40), 50):
            assert torch.equal(sample(logits, top_k=k, uniform=u, backend=backend), free), (backend, k)
        kept = logits >= logits.topk(5, 1).values[:, -1:]
        first = torch.where(kept, torch.arange(50), 50).min(1).values
        for low in (0.0, -0.5, float("-inf")):
            tok = sample(logits, top_k=5, uniform=torch.full((2,), low), backend=backend)
            assert torch.equal(tok, first), (backend, low)
    with pytest.raises(TypeError, match="integer tensor"):
        sample(logits, top_k=torch.tensor([3.9, 3.9]), backend="torch")
    # A bool tensor would mean 1 (or 0: an invalid row), a complex one would lose its imaginary part.
    for kw in ({"top_p": torch.tensor([True, False])}, {"temperature": torch.tensor([1 + 1j, 1 + 0j])},
               {"min_p": torch.tensor(True)}):
        with pytest.raises(TypeError, match=next(iter(kw))):
            sample(logits, backend="torch", **kw)
    for seed in (7.9, "7", True, torch.tensor([1.2, 1.8])):
        with pytest.raises(TypeError, match="seed"):
            sample(logits, seed=seed, backend="torch")  # type: ignore[arg-type]
    assert torch.equal(sample(logits, seed=np.int64(3), backend="torch"), sample(logits, seed=3, backend="torch"))
    # Its inverse, or itself, beyond fp32; 1 / 3.4e38 passes fp64's check, but its fp32 inverse overflows.
    for temperature in (1e-40, 1 / 3.4028234663852886e38, 1e39, 1e300):
        with pytest.raises(ValueError, match="temperature"):
            sample(logits, temperature=temperature, backend="torch")
    assert (sample(logits.clamp(-3, 3), temperature=1.1754943508222875e-38, backend="torch") >= 0).all()  # least normal
    with pytest.raises(ValueError, match="at least one column"):
        sample(torch.randn(2, 0), backend="torch")
    with pytest.raises(TypeError, match="floating-point"):
        sample(logits, uniform=torch.tensor([0, 1]), backend="torch")
    # numpy's scalars are numbers; unsigned per-row top_k past int32 disables the filter.
    ref = sample(logits, top_k=5, temperature=0.5, uniform=u, backend="torch")
    assert torch.equal(sample(logits, top_k=np.int64(5), temperature=np.float32(0.5), uniform=u, backend="torch"), ref)
    free = sample(logits, uniform=u, backend="torch")
    assert torch.equal(sample(logits, top_k=torch.tensor([2**63 + 5] * 2, dtype=torch.uint64), uniform=u,
                              backend="torch"), free)
    assert torch.equal(sample(logits, top_k=torch.tensor([5, 5], dtype=torch.uint64), uniform=u, backend="torch"),
                       sample(logits, top_k=5, uniform=u, backend="torch"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("vocab", [400, 500, 1000])
def test_top_p_target_is_exact_when_every_mass_is_one(backend: str, vocab: int) -> None:
    """Half the tokens at 1e-30, half at 0: every exp(z - max) is exactly 1, the top half's mass is exactly
    p = 0.5 of the total, so top-p keeps the top half. A target taken through exp(log(mass)) lands above it by
    an ulp and kept everything (Triton at V = 500 and 1000)."""
    x = torch.zeros(3, vocab)
    x[:, : vocab // 2] = 1e-30
    tau, _ = S.kept_threshold(x, top_p=0.5, backend=backend)
    assert ((x >= tau[:, None]).sum(1) == vocab // 2).all()


def test_threshold_functions_refuse_flashinfer_by_name() -> None:
    """FlashInfer has no threshold kernel: naming it where thresholds come back is an error, not a silent
    Triton or torch run; an unknown backend's message lists every name."""
    logits = torch.randn(2, 20)
    probs = logits.softmax(-1)
    for call in (lambda: S.kept_threshold(logits, top_k=3, backend="flashinfer"),
                 lambda: S.sample_with_threshold(logits, top_k=3, uniform=torch.rand(2), backend="flashinfer"),
                 lambda: top_k_renorm_probs(probs, 3, backend="flashinfer"),
                 lambda: top_k_mask_logits(logits, 3, backend="flashinfer")):
        with pytest.raises(ValueError, match="no FlashInfer kernel"):
            call()
    with pytest.raises(ValueError, match="'flashinfer'"):
        sample(logits, backend="FlashInfer")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scalar seed"):
        sample(logits, uniform=torch.rand(2), backend="flashinfer")


def test_backend_errors_keep_their_type_under_torch_compile() -> None:
    """The name checks run outside the constant-folded backend choice: an exception inside an
    ``assume_constant_result`` function surfaces as Dynamo's internal error, which ``except ValueError`` misses."""
    torch._dynamo.reset()
    logits = torch.randn(2, 20)
    calls = [lambda x: sample(x, backend="bogus"),  # type: ignore[arg-type]
             lambda x: sample(x, uniform=torch.rand(2), backend="flashinfer"),
             lambda x: S.kept_threshold(x, top_k=3, backend="flashinfer")[0]]
    for call in calls:
        with pytest.raises(ValueError):
            torch.compile(call, backend="eager")(logits)


def test_scalar_parameters_are_validated() -> None:
    logits = torch.randn(2, 10)
    for kwargs, match in [({"temperature": 0.0}, "temperature"), ({"top_p": 0.0}, "top_p"), ({"top_p": 1.5}, "top_p"),
                          ({"min_p": 2.0}, "min_p"), ({"top_k": 2.5}, "top_k"),
                          ({"top_k": torch.ones(3)}, r"shape \[2\]")]:
        with pytest.raises(ValueError, match=match):
            sample(logits, backend="torch", **kwargs)
    with pytest.raises(ValueError, match="seed or uniform"):
        sample(logits, seed=1, uniform=torch.rand(2), backend="torch")
    with pytest.raises(ValueError, match=r"\[B, V\]"):
        sample(torch.randn(10), backend="torch")
    with pytest.raises(RuntimeError, match="flashinfer"):
        sample(logits, backend="flashinfer")
    with pytest.raises(ValueError, match="backend"):
        sample(logits, backend="cuda")  # type: ignore[arg-type]


def test_triton_on_cpu_without_the_interpreter_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("verl_ext.ops._backend.interpreting", lambda: False)
    with pytest.raises(RuntimeError, match="GPU tensor"):
        sample(torch.randn(2, 10), backend="triton")


@pytest.mark.parametrize("backend", BACKENDS)
def test_flashinfer_style_names(backend: str) -> None:
    g = torch.Generator().manual_seed(10)
    logits = torch.randn(32, 111, generator=g) * 2
    probs = torch.softmax(logits, -1)
    renorm = top_k_renorm_probs(probs, 5, backend=backend)
    assert ((renorm > 0).sum(1) == 5).all()
    torch.testing.assert_close(renorm.sum(1), torch.ones(32))
    kth = probs.topk(5, 1).values[:, -1:]
    torch.testing.assert_close(renorm, torch.where(probs >= kth, probs, 0.0) / torch.where(probs >= kth, probs, 0.0)
                               .sum(1, keepdim=True))
    masked = top_k_mask_logits(logits, 5, backend=backend)
    assert torch.equal(torch.isfinite(masked), probs >= kth)
    top_p = top_p_renorm_probs(probs, 0.6, backend=backend)
    for i in range(32):
        keep = kept_reference(logits[i], None, 0.6, None)
        assert torch.equal(top_p[i] > 0, keep)
    tok = top_p_sampling_from_probs(probs, 0.6, seed=1, backend=backend)
    assert (top_p.gather(1, tok[:, None]) > 0).all()
    tok = min_p_sampling_from_probs(probs, 0.2, seed=1, backend=backend)
    assert (probs.gather(1, tok[:, None])[:, 0] >= 0.2 * probs.max(1).values * (1 - 1e-6)).all()
    tok = top_k_top_p_sampling_from_logits(logits, 5, 0.9, seed=1, backend=backend)
    assert (probs.gather(1, tok[:, None]) >= kth).all()


def test_seeded_uniform_is_a_deterministic_function_of_seed_and_row() -> None:
    a = S.seeded_uniform(42, 1000, "cpu")
    assert torch.equal(a, S.seeded_uniform(42, 1000, "cpu"))
    assert not torch.equal(a, S.seeded_uniform(43, 1000, "cpu"))
    assert ((a >= 0) & (a < 1)).all() and a.unique().numel() > 990
    assert abs(float(a.mean()) - 0.5) < 0.05
    per_row = S.seeded_uniform(torch.tensor([7, 8, 7]), 3, "cpu")
    assert per_row[0] == per_row[2] != per_row[1]


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA or ROCm GPU")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("backend", ["triton", "flashinfer"])
def test_gpu_backends_at_llm_vocabulary(backend: str) -> None:
    if backend == "flashinfer" and not S.flashinfer_available():
        pytest.skip("flashinfer-python is not installed")
    g = torch.Generator(device="cuda").manual_seed(0)
    logits = torch.randn(256, 128256, device="cuda", generator=g) * 3
    out = sample(logits, top_k=50, top_p=0.9, seed=3, return_logprobs=True, backend=backend)
    ref = S._torch(logits, S._rows(logits, 1.0, 50, 0.9, None, 3, None), sample=False)
    z = logits.float()
    assert (z.gather(1, out.token_ids[:, None])[:, 0] >= ref.tau).all()
    torch.testing.assert_close(out.logprobs, z.gather(1, out.token_ids[:, None])[:, 0] - ref.log_norm, atol=1e-4,
                               rtol=0)


def test_a_filter_left_out_of_the_plan_is_ignored_by_min_p_cut() -> None:
    """The custom op's ``triton:<filters>`` names the filters the plan serves; a row's top-k that the string
    leaves out is ignored (as a missing ``p`` or ``m`` is), not half-applied, and reads nothing in the cut."""
    logits = torch.randn(3, 300, generator=torch.Generator().manual_seed(12)) * 2
    with_k = S._rows(logits, 1.0, torch.tensor([5, 5, 0], dtype=torch.int32), None,
                     torch.tensor([0.0, 0.05, 0.0]), 3, None)
    without_k = S._rows(logits, 1.0, None, None, torch.tensor([0.0, 0.05, 0.0]), 3, None)
    a, b = S._triton(logits, with_k, sample=True, filters="pm"), S._torch(logits, without_k, sample=True)
    assert torch.equal(a.tau, b.tau) and torch.equal(a.token_ids, b.token_ids)
    assert a.tau[0] == a.tau[2] == float("-inf")  # min-p off: everything kept


def test_auto_takes_flashinfer_for_tokens_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """With log-probs FlashInfer's path would run Triton's threshold passes and its sampler on top: auto takes
    Triton then; FlashInfer only for tokens without per-row randomness (an NVIDIA device is all it looks at)."""
    monkeypatch.setattr(S, "flashinfer_available", lambda: True)
    monkeypatch.setattr(S, "is_rocm", lambda: False)
    cuda = torch.device("cuda")
    assert S._choose("auto", cuda, False, False) == "flashinfer"
    assert S._choose("auto", cuda, False, True) == "triton"
    assert S._choose("auto", cuda, True, False) == "triton"
    assert S._choose("flashinfer", cuda, False, True) == "flashinfer"  # asked for by name: honoured
    assert S._choose("auto", torch.device("cpu"), False, False) == "torch"


def test_flashinfer_path_runs_only_the_kernels_its_filters_need(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through a stand-in of ``flashinfer.sampling`` on CPU: without top-k and top-p the path calls FlashInfer's
    unfiltered sampler (one kernel) instead of its top-k/top-p sampler with everything kept; min-p's mask is
    applied only where some row may have min-p, and then no token below its threshold is drawn."""
    import sys
    import types

    calls: list[tuple[str, torch.Tensor]] = []

    def draw(z: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
        # verl-ext hands FlashInfer only rows with a distribution (bad rows are replaced, then masked to -1).
        assert not torch.isnan(z).any() and (z < float("inf")).all() and (z.amax(1) > float("-inf")).all()
        return torch.multinomial(torch.softmax(z, -1), 1, generator=generator)[:, 0].int()

    def unfiltered(z: torch.Tensor, *, deterministic: bool, generator: torch.Generator | None) -> torch.Tensor:
        calls.append(("unfiltered", z))
        return draw(z, generator)

    def top_k_top_p(z: torch.Tensor, k: torch.Tensor, p: torch.Tensor, *, filter_apply_order: str,
                    deterministic: bool, generator: torch.Generator | None) -> torch.Tensor:
        assert filter_apply_order == "top_k_first" and k.dtype == torch.int32
        calls.append(("top_k_top_p", z))
        kth = z.sort(-1, descending=True).values.gather(1, (k.long() - 1)[:, None])
        return draw(torch.where(z >= kth, z, float("-inf")), generator)

    module = types.ModuleType("flashinfer.sampling")
    module.sampling_from_logits = unfiltered  # type: ignore[attr-defined]
    module.top_k_top_p_sampling_from_logits = top_k_top_p  # type: ignore[attr-defined]
    package = types.ModuleType("flashinfer")
    monkeypatch.setitem(sys.modules, "flashinfer", package)
    monkeypatch.setitem(sys.modules, "flashinfer.sampling", module)
    logits = torch.randn(64, 50, generator=torch.Generator().manual_seed(3)) * 3

    def run(top_k: int | None = None, min_p: float | None = None) -> torch.Tensor:
        calls.clear()
        rows = S._rows(logits, 0.8, top_k, None, min_p, 5, None)
        return S._flashinfer(logits, rows, 5, False, S._filters_on(top_k, None, min_p, 50)).token_ids

    z = logits * (1 / 0.8)
    run()
    assert [name for name, _ in calls] == ["unfiltered"] and torch.equal(calls[0][1], z)
    tok = run(min_p=0.3)
    assert [name for name, _ in calls] == ["unfiltered"]
    kept = (z - z.max(1, keepdim=True).values) >= torch.tensor(0.3).log()
    assert torch.equal(torch.isfinite(calls[0][1]), kept) and kept.gather(1, tok[:, None]).all()
    tok = run(top_k=4)
    assert [name for name, _ in calls] == ["top_k_top_p"] and torch.equal(calls[0][1], z)
    assert (z.gather(1, tok[:, None]) >= z.topk(4, 1).values[:, -1:]).all()
    # Rows without a distribution get -1, as on the torch reference, on both FlashInfer calls.
    bad = logits.clone()
    bad[1, 3], bad[2], bad[3, 7] = float("nan"), float("-inf"), float("inf")
    temperature = torch.tensor([1.0, 1.0, 1.0, 1.0, -1.0, 0.0] + [1.0] * 58)
    top_p = torch.tensor([1.0] * 6 + [0.0, float("nan")] + [1.0] * 56)
    min_p = torch.tensor([0.0] * 8 + [2.0, -0.5] + [0.0] * 54)
    want = S._torch(bad, S._rows(bad, temperature, None, top_p, min_p, 5, None), True).token_ids
    assert want[1:10].eq(-1).all() and want[0] >= 0 and want[10:].ge(0).all()
    for top_k in (None, torch.full((64,), 4, dtype=torch.int32)):
        rows = S._rows(bad, temperature, top_k, top_p, min_p, 5, None)
        tok = S._flashinfer(bad, rows, 5, False, S._filters_on(top_k, top_p, min_p, 50)).token_ids
        assert torch.equal(tok < 0, want < 0), (top_k, tok)


def test_min_p_threshold_is_the_least_fp32_value_that_passes() -> None:
    """``t - max >= log(min_p)`` holds at the threshold and fails one fp32 step below it, across magnitudes,
    signs and binades (a threshold near 0 sits in a run of 2^30 keys); ``-inf`` without min-p, and a non-finite
    max gives ``max + log(min_p)``."""
    mx = torch.tensor([1e6, 0.5, 2.3, -3.0, 0.0, 1e-30, -1e6, 3e38, 1.0, -2e-38] * 6)
    min_p = torch.tensor([0.01, 0.1, 0.5, 1.0, 1e-30, 1e-45]).repeat_interleave(10)
    t = S._min_p_threshold(mx, min_p)
    log_m = min_p.log()
    below = torch.nextafter(t, torch.tensor(float("-inf")))
    assert ((t - mx) >= log_m).all() and not ((below - mx) >= log_m).any()
    edge = S._min_p_threshold(torch.tensor([1.0, float("inf"), 2.0]), torch.tensor([0.0, 0.5, -0.1]))
    assert edge.tolist() == [float("-inf"), float("inf"), float("-inf")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_min_p_is_decided_relative_to_the_max(backend: str) -> None:
    """Min-p keeps ``{z : z - max >= log(min_p)}`` (fp32), as ``p >= min_p * max p`` does, at any magnitude: the
    threshold ``fp32(max + log(min_p))`` is off by up to half an ulp of the max (0.03 at 1e6) and kept a token
    with ``p / max p = 0.0098`` at ``min_p = 0.01``. Through min-p's cut, the cut with top-p, and the count
    search (a per-row top_k tensor whose rows are disabled or wider than the set)."""
    x = torch.tensor([[1e6, 1e6 - 4.625, 1e6 - 10.0]])
    for kw in ({}, {"top_k": torch.tensor([3])}):
        tau, _ = S.kept_threshold(x, min_p=0.01, backend=backend, **kw)
        assert tau.item() == 1e6, kw  # exp(-4.625) = 0.0098 < 0.01: only the first token is kept
        out = sample(x, min_p=0.01, uniform=torch.tensor([0.999]), return_logprobs=True, backend=backend, **kw)
        assert out.token_ids.item() == 0 and out.logprobs.item() == 0.0, kw
    g = torch.Generator().manual_seed(8)
    for offset in (0.0, 1e3, 1e6, -1e6):
        for step in (0.0625, 1.0):  # logits on a grid, so some lie right at the threshold
            z = (torch.randn(6, 200, generator=g) * 3 / step).round() * step + offset
            min_p = torch.rand(6, generator=g) * 0.5 + 1e-3
            want = (z - z.max(1, keepdim=True).values) >= min_p.log()[:, None]
            top_k = torch.tensor([0, 200, 150, -1, 190, 199])
            kth = z.sort(1, descending=True).values.gather(1, (top_k.clamp(1, 200) - 1)[:, None])
            in_top_k = (z >= kth) | ((top_k <= 0) | (top_k >= 200))[:, None]
            for kw, expected in (({}, want), ({"top_k": top_k}, want & in_top_k)):
                tau, _ = S.kept_threshold(z, min_p=min_p, backend=backend, **kw)
                assert torch.equal(z >= tau[:, None], expected), (offset, step, kw)
            tau, _ = S.kept_threshold(z, min_p=min_p, top_p=0.5, backend=backend)
            assert ((z >= tau[:, None]) <= want).all(), (offset, step)  # top-p keeps part of min-p's set


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", ["offset 1e6", "temperature 1e-5"])
def test_log_probs_and_top_p_hold_at_large_logit_magnitudes(backend: str, case: str) -> None:
    """Logits far from 0 (an offset the policy could learn, or a tiny temperature): fp32 cannot hold
    ``max + log(kept mass)``, so log-probs and top-p's target are computed relative to the row's max. Both
    backends keep the same set, and log-probs match fp64's log-softmax over it (they were off by 0.03 at 1e6,
    and Triton's top-p kept up to all 300 tokens at 4e6)."""
    g = torch.Generator().manual_seed(17)
    x = torch.randn(6, 300, generator=g)
    temperature = 1.0
    if case == "offset 1e6":
        x = x + 1e6
    else:
        x, temperature = x * 20, 1e-5
    z = (x * (1 / temperature)).double()
    for kw in ({"top_p": 0.9}, {"top_k": 20, "top_p": 0.5}, {"min_p": 1e-3, "top_p": 0.8}, {}):
        out = sample(x, temperature=temperature, seed=2, return_logprobs=True, backend=backend, **kw)
        tau, _ = S.kept_threshold(x, temperature=temperature, backend=backend, **kw)
        if backend == "triton":
            ref, _ = S.kept_threshold(x, temperature=temperature, backend="torch", **kw)
            assert torch.equal(tau, ref), kw
        kept = z >= tau.double()[:, None]
        tok = out.token_ids[:, None]
        assert kept.gather(1, tok).all(), kw
        expected = torch.log_softmax(torch.where(kept, z, float("-inf")), -1).gather(1, tok)[:, 0]
        raw = torch.log_softmax(z, -1).gather(1, tok)[:, 0]
        assert (out.logprobs.double() - expected).abs().max() < 1e-5, kw
        assert (out.raw_logprobs.double() - raw).abs().max() < 1e-5, kw
        processed = S.sample_processed(x, temperature=temperature, uniform=torch.rand(6, generator=g),
                                       backend=backend, **kw)
        assert torch.equal(processed.tau, tau), kw
        full = processed.logprobs(x).double()
        assert torch.equal(torch.isfinite(full), kept), kw
        # Against the z the call computed, within fp32's relative precision (a log-prob of -7e6 far below the
        # max is itself held to 0.5).
        z32 = (x * (1.0 / torch.full((6, 1), temperature))).double()
        want = torch.log_softmax(torch.where(kept, z32, float("-inf")), -1)[kept]
        assert ((full[kept] - want).abs() <= 1e-5 * want.abs().clamp(min=1.0)).all(), kw
        if "top_p" in kw and "top_k" not in kw and "min_p" not in kw:  # the smallest top set with mass >= p
            probs = torch.softmax(z, -1)
            mass = torch.where(kept, probs, 0.0).sum(1)
            last = torch.where(z == tau.double()[:, None], probs, 0.0).sum(1)  # the tokens tied at tau go together
            assert (mass >= kw["top_p"] - 1e-6).all() and (mass - last < kw["top_p"] + 1e-6).all(), kw


@pytest.mark.parametrize("backend", BACKENDS)
def test_processed_sample_of_rows_without_a_distribution(backend: str) -> None:
    """``sample_processed`` on a +inf logit, an all -inf row and a NaN: token -1, NaN row max and log_kept on
    every backend, NaN log-probs wherever tau keeps them; logits of another shape are refused."""
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(3))
    x[0, 2], x[1], x[2, 1] = float("inf"), float("-inf"), float("nan")
    res = S.sample_processed(x, top_k=2, uniform=torch.full((4,), 0.5), backend=backend)
    assert res.token_ids[:3].eq(-1).all() and res.token_ids[3] >= 0
    assert res.row_max[:3].isnan().all() and res.log_kept[:3].isnan().all()
    lp = res.logprobs(x)
    # NaN everywhere on those rows, as a log-softmax gives (the +inf row's tau still keeps only its +inf token).
    assert lp[:3].isnan().all() and lp[3].isfinite().sum() == 2
    assert res.tau[0] == x[0].topk(2).values[1]  # its top-k set
    for other in (x[:1], x[:, :7], torch.cat([x, x], 1), x[None]):
        with pytest.raises(ValueError, match=r"\[4, 8\] logits"):
            res.logprobs(other)
    for other in (x.half(), x.double(), x.long()):
        with pytest.raises(ValueError, match=r"torch\.float32 logits"):
            res.logprobs(other)
    # Not differentiable: a loss built on them must not get a gradient that lacks the normaliser's.
    assert not res.logprobs(x.clone().requires_grad_()).requires_grad


@pytest.mark.parametrize("filtered", [False, True], ids=["temperature only", "k+p+min-p"])
def test_the_split_count_changes_only_rounding(filtered: bool) -> None:
    """On a GPU the number of vocabulary splits depends on the batch size (and the SM count), so one row may be
    summed in different orders in different calls: thresholds stay exact, log-probs move by rounding only, and a
    token changes only where its uniform lies within rounding of a boundary of the kept distribution's CDF."""
    from verl_ext.ops.sampling_kernels import run

    n, vocab = 64, 3000
    g = torch.Generator().manual_seed(11)
    logits = (torch.randn(n, vocab, generator=g) * 2).bfloat16().float()  # bf16 rounding: many ties, as models give
    inv_t = torch.full((n,), 1 / 0.8)
    top_k = torch.full((n,), 50 if filtered else 0, dtype=torch.int32)
    top_p = torch.full((n,), 0.9 if filtered else 1.0)
    min_p = torch.full((n,), 0.01 if filtered else 0.0)
    u = torch.rand(n, generator=g)
    filters = {"top_k": filtered, "top_p": filtered, "min_p": filtered}
    few, many = (S.launch_plan(n, vocab, device_sms=sms, interpreter=True, **filters) for sms in (1, 132))
    assert few.splits < many.splits
    a, b = (run(logits, inv_t, top_k, top_p, min_p, u, plan) for plan in (few, many))
    assert torch.equal(a.tau, b.tau)
    assert (a.logprobs - b.logprobs).abs().max() <= 1e-5
    assert (a.raw_logprobs - b.raw_logprobs).abs().max() <= 1e-5
    # The kept distribution's CDF in vocabulary order (fp64): tokens may differ only next to one of its steps.
    z = logits.double() * inv_t.double()[:, None]
    kept = z >= a.tau.double()[:, None]
    probs = torch.softmax(z.masked_fill(~kept, -math.inf), dim=-1)
    near_step = ((probs.cumsum(-1) - u.double()[:, None]).abs() < 2e-6).any(-1)
    assert torch.equal(a.token_ids[~near_step], b.token_ids[~near_step])
    assert bool((~near_step).sum() >= 0.9 * n)  # the comparison covers most rows
