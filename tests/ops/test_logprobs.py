"""logprobs_from_logits against an fp64 reference: Triton (interpreted on CPU) and torch backends."""

from __future__ import annotations

import math
import os

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ops.live_bytes import LiveBytes
from verl_ext.ops import logprobs as lp_mod
from verl_ext.ops import logprobs_from_logits

BACKENDS = ["torch", "triton"]
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
IGNORE = -100


def reference(logits: torch.Tensor, labels: torch.Tensor, temperature: float) -> tuple[torch.Tensor, torch.Tensor]:
    """fp64, straight from the definition."""
    x = logits.double() / temperature
    logp = torch.log_softmax(x, -1)
    keep = labels != IGNORE
    safe = torch.where(keep, labels, 0).long()
    lp = torch.where(keep, logp.gather(-1, safe[:, None])[:, 0], 0.0)
    # H = -sum p log p, with 0 log 0 = 0; written with the finite entries of log p so gradients stay finite.
    finite_logp = torch.where(torch.isfinite(logp), logp, 0.0)
    ent = torch.where(keep, -(logp.exp() * finite_logp).sum(-1), 0.0)
    return lp, ent


def torch_same_dtype(logits: torch.Tensor, labels: torch.Tensor, temperature: float) -> torch.Tensor:
    """What plain torch gives in the input dtype (the error budget of a kernel)."""
    logp = torch.log_softmax(logits / temperature, -1)
    safe = torch.where(labels != IGNORE, labels, 0).long()
    return torch.where(labels != IGNORE, logp.gather(-1, safe[:, None])[:, 0].double(), 0.0)


@st.composite
def cases(draw: st.DrawFn) -> tuple[torch.Tensor, torch.Tensor, float]:
    n = draw(st.integers(0, 5))
    vocab = draw(st.sampled_from([1, 2, 7, 33, 111, 300]))
    dtype = draw(st.sampled_from(DTYPES))
    temperature = draw(st.sampled_from([0.6, 1.0, 1.7]))
    seed = draw(st.integers(0, 2**31 - 1))
    scale = draw(st.sampled_from([0.1, 3.0, 20.0]))
    g = torch.Generator().manual_seed(seed)
    wide = torch.randn(n, vocab + 3, generator=g) * scale
    if draw(st.booleans()) and vocab > 1:  # some -inf entries, never a whole row
        mask = torch.rand(n, vocab + 3, generator=g) < 0.3
        mask[:, 1] = False  # the first column of the slice below stays finite
        wide = wide.masked_fill(mask, float("-inf"))
    logits = wide[:, 1:vocab + 1].to(dtype) if vocab > 1 else wide[:, :1].to(dtype)  # non-contiguous rows
    labels = torch.randint(0, vocab, (n,), generator=g)
    finite = torch.isfinite(logits.double()).nonzero()
    for i in range(n):  # labels on finite entries mostly; some ignored
        row = finite[finite[:, 0] == i][:, 1]
        labels[i] = row[torch.randint(0, len(row), (1,), generator=g)]
        if torch.rand(1, generator=g).item() < 0.2:
            labels[i] = IGNORE
    return logits, labels, temperature


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_forward_matches_fp64_within_torch_error(backend: str, case: tuple) -> None:
    logits, labels, temperature = case
    lp, ent = logprobs_from_logits(logits, labels, temperature=temperature, return_entropy=True, backend=backend)
    ref_lp, ref_ent = reference(logits, labels, temperature)
    assert lp.dtype == torch.float32 and lp.shape == labels.shape
    if not len(labels):
        return
    torch_err = (torch_same_dtype(logits, labels, temperature) - ref_lp).abs().max().item()
    tol = 1e-5 * (1 + ref_lp.abs().max().item())
    assert (lp.double() - ref_lp).abs().max().item() <= torch_err + tol
    finite_max = logits.double().abs().nan_to_num(posinf=0, neginf=0).max().item()
    ent_tol = 1e-5 * (1 + ref_ent.abs().max().item() + finite_max)
    assert (ent.double() - ref_ent).abs().max().item() <= ent_tol
    # Properties: log-prob <= 0; 0 <= entropy <= log V.
    assert (lp <= 1e-6).all()
    assert (ent >= -1e-5).all() and (ent <= math.log(logits.shape[1]) + 1e-4).all()


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), shift=st.sampled_from([-50.0, 3.0, 1000.0]))
def test_invariant_to_a_constant_added_to_a_row(backend: str, case: tuple, shift: float) -> None:
    logits, labels, temperature = case
    logits = logits.float()
    a = logprobs_from_logits(logits, labels, temperature=temperature, return_entropy=True, backend=backend)
    b = logprobs_from_logits(logits + shift, labels, temperature=temperature, return_entropy=True, backend=backend)
    for x, y in zip(a, b, strict=True):
        assert torch.allclose(x, y, atol=1e-5 * (1 + abs(shift) / temperature), rtol=1e-4)


def _grads(logits: torch.Tensor, labels: torch.Tensor, temperature: float, backend: str,
           g_lp: torch.Tensor, g_h: torch.Tensor) -> torch.Tensor:
    x = logits.detach().clone().requires_grad_(True)
    lp, ent = logprobs_from_logits(x, labels, temperature=temperature, return_entropy=True, backend=backend)
    ((lp * g_lp).sum() + (ent * g_h).sum()).backward()
    return x.grad


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), which=st.sampled_from(["logprob", "entropy", "both"]))
def test_gradients_match_fp64_autograd(backend: str, case: tuple, which: str) -> None:
    logits, labels, temperature = case
    g = torch.Generator().manual_seed(len(labels))
    g_lp = torch.randn(len(labels), generator=g) * (which != "entropy")
    g_h = torch.randn(len(labels), generator=g) * (which != "logprob")
    got = _grads(logits, labels, temperature, backend, g_lp, g_h)
    assert got.dtype == logits.dtype and got.shape == logits.shape
    x = logits.double().detach().requires_grad_(True)
    lp, ent = reference(x, labels, temperature)
    ((lp * g_lp.double()).sum() + (ent * g_h.double()).sum()).backward()
    want = x.grad
    if not len(labels):
        return
    assert torch.isfinite(got.double()).all()
    # Stored in the input dtype: allow its rounding of the largest gradient, plus fp32 arithmetic, whose
    # rounding of x = logits / T is amplified by |E[x] - x| in the entropy's gradient.
    eps = torch.finfo(logits.dtype).eps
    scale = 1 + want.abs().max().item()
    x_max = logits.double().nan_to_num(posinf=0.0, neginf=0.0).abs().max().item() / temperature
    fp32 = 8 * torch.finfo(torch.float32).eps * (1 + x_max)
    assert (got.double() - want).abs().max().item() <= (2 * eps + 1e-5 + fp32) * scale
    ignored = labels == IGNORE
    assert (got[ignored] == 0).all()


def test_gradcheck_fp64_torch_path() -> None:
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 9, generator=g, dtype=torch.float64, requires_grad=True)
    labels = torch.tensor([1, IGNORE, 8, 0])

    def both(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return logprobs_from_logits(x, labels, temperature=0.7, return_entropy=True, backend="torch")

    assert torch.autograd.gradcheck(both, (logits,))


@pytest.mark.parametrize("backend", BACKENDS)
def test_results_do_not_depend_on_chunk_sizes(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(7, 1000, generator=g) * 4
    labels = torch.randint(0, 1000, (7,), generator=g)
    base = logprobs_from_logits(logits, labels, return_entropy=True, backend=backend)
    monkeypatch.setattr(lp_mod, "BLOCK_V", 64)  # Triton: many vocabulary blocks per row
    small = logprobs_from_logits(logits, labels, return_entropy=True, backend=backend, chunk_rows=2)
    for a, b in zip(base, small, strict=True):
        assert torch.allclose(a, b, atol=2e-5, rtol=1e-5)


def test_backend_choice_and_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    logits, labels = torch.randn(2, 5), torch.tensor([0, 4])
    with pytest.raises(ValueError, match="backend must be"):
        logprobs_from_logits(logits, labels, backend="cuda")  # type: ignore[arg-type]
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(RuntimeError, match="needs a GPU tensor"):
        logprobs_from_logits(logits, labels, backend="triton")
    # auto on CPU is the torch path (no interpreter involved)
    assert torch.allclose(logprobs_from_logits(logits, labels), reference(logits, labels, 1.0)[0].float(), atol=1e-6)
    with pytest.raises(ValueError, match="labels must be in"):
        logprobs_from_logits(logits, torch.tensor([0, 5]), backend="torch")
    with pytest.raises(ValueError, match=r"logits must be \[N, V\]"):
        logprobs_from_logits(logits[0], labels[:1])
    with pytest.raises(ValueError, match="temperature"):
        logprobs_from_logits(logits, labels, temperature=0.0)
    with pytest.raises(ValueError, match="labels must be"):
        logprobs_from_logits(logits, labels.float())  # type: ignore[arg-type]


def test_triton_gives_nan_for_out_of_range_labels() -> None:
    lp = logprobs_from_logits(torch.randn(2, 5), torch.tensor([0, 7]), backend="triton")
    assert torch.isfinite(lp[0]) and torch.isnan(lp[1])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("used", ["both", "logprob", "entropy"])
def test_extra_bytes_per_token_through_autograd(backend: str, used: str) -> None:
    """Forward and backward hold, beyond d logits, at most 16 bytes per token: the outputs log-prob and
    entropy and the two floats saved for the backward (lse, E[x]). Autograd fills in no zeros for the outputs
    nobody used, and gradients broadcast from ``sum()`` are read where they lie."""
    n, vocab = 40, 300
    logits = torch.randn(n, vocab, generator=torch.Generator().manual_seed(2), dtype=torch.bfloat16)
    labels = torch.randint(0, vocab, (n,), generator=torch.Generator().manual_seed(3))
    x = logits.requires_grad_(True)
    with LiveBytes() as mem:
        lp, ent = logprobs_from_logits(x, labels, return_entropy=True, backend=backend)
        loss = {"both": lp.sum() + ent.sum(), "logprob": lp.sum(), "entropy": ent.sum()}[used]
        loss.backward()
    assert x.grad is not None and torch.isfinite(x.grad.float()).all()
    assert mem.peak - x.grad.nbytes <= 16 * n + 64  # + a few scalars (the loss, a broadcast zero)


@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="Triton on CPU tensors needs TRITON_INTERPRET=1")
def test_triton_backward_reads_broadcast_gradients_in_place() -> None:
    n, vocab = 6, 50
    logits = torch.randn(n, vocab)
    labels = torch.randint(0, vocab, (n,))
    _, _, lse, mean = lp_mod.triton_forward(logits, labels, 1.0, IGNORE)
    ones, zeros = torch.ones(()).expand(n), torch.zeros(()).expand(n)
    with LiveBytes() as mem:
        grad = lp_mod.triton_backward(logits, labels, lse, mean, ones, zeros, 1.0, IGNORE)
    assert mem.peak == grad.nbytes
    want = lp_mod.triton_backward(logits, labels, lse, mean, torch.ones(n), torch.zeros(n), 1.0, IGNORE)
    assert torch.equal(grad, want)
    # Different strides: both read contiguous, same result.
    mixed = lp_mod.triton_backward(logits, labels, lse, mean, torch.ones(n), zeros, 1.0, IGNORE)
    assert torch.equal(mixed, want)
