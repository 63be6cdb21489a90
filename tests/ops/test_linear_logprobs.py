"""linear_logprobs (from hidden states, chunked, recomputing backward) against the fp64 definition."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.ops import linear_logprobs

IGNORE = -100


def reference(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float
              ) -> tuple[torch.Tensor, torch.Tensor]:
    x = (hidden.double() @ weight.double().T) / temperature
    logp = torch.log_softmax(x, -1)
    keep = labels != IGNORE
    lp = torch.where(keep, logp.gather(-1, torch.where(keep, labels, 0).long()[:, None])[:, 0], 0.0)
    ent = torch.where(keep, -(logp.exp() * logp).sum(-1), 0.0)
    return lp, ent


@st.composite
def cases(draw: st.DrawFn) -> dict:
    n = draw(st.integers(0, 9))
    h = draw(st.sampled_from([1, 8, 24]))
    vocab = draw(st.sampled_from([1, 5, 37, 111]))
    seed = draw(st.integers(0, 2**31 - 1))
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, vocab, (n,), generator=g)
    labels[torch.rand(n, generator=g) < 0.2] = IGNORE
    return {
        "hidden": torch.randn(n, h, generator=g, dtype=torch.float64),
        "weight": torch.randn(vocab, h, generator=g, dtype=torch.float64) * draw(st.sampled_from([0.1, 1.0, 3.0])),
        "labels": labels,
        "temperature": draw(st.sampled_from([0.7, 1.0, 1.5])),
        "chunks": (draw(st.integers(1, 12)), draw(st.integers(1, 64))),
        "g_seed": seed,
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_values_and_gradients_match_fp64_for_any_chunking(case: dict) -> None:
    h = case["hidden"].clone().requires_grad_(True)
    w = case["weight"].clone().requires_grad_(True)
    labels, temperature = case["labels"], case["temperature"]
    chunk_tokens, chunk_vocab = case["chunks"]
    lp, ent = linear_logprobs(h, w, labels, temperature=temperature, return_entropy=True,
                              chunk_tokens=chunk_tokens, chunk_vocab=chunk_vocab)
    h_ref = case["hidden"].clone().requires_grad_(True)
    w_ref = case["weight"].clone().requires_grad_(True)
    ref_lp, ref_ent = reference(h_ref, w_ref, labels, temperature)
    assert torch.allclose(lp, ref_lp, atol=1e-10) and torch.allclose(ent, ref_ent, atol=1e-10)
    if not len(labels):
        return
    g = torch.Generator().manual_seed(case["g_seed"])
    g_lp, g_h = torch.randn(len(labels), generator=g, dtype=torch.float64), torch.randn(len(labels), generator=g,
                                                                                        dtype=torch.float64)
    ((lp * g_lp).sum() + (ent * g_h).sum()).backward()
    ((ref_lp * g_lp).sum() + (ref_ent * g_h).sum()).backward()
    assert torch.allclose(h.grad, h_ref.grad, atol=1e-9) and torch.allclose(w.grad, w_ref.grad, atol=1e-9)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_low_precision_error_is_no_worse_than_torch(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(3)
    hidden = torch.randn(64, 32, generator=g).to(dtype)
    weight = (torch.randn(1000, 32, generator=g) * 0.5).to(dtype)
    labels = torch.randint(0, 1000, (64,), generator=g)
    got = linear_logprobs(hidden, weight, labels, chunk_tokens=16, chunk_vocab=128)
    ref, _ = reference(hidden, weight, labels, 1.0)
    plain = torch.log_softmax((hidden @ weight.T).float(), -1).gather(-1, labels[:, None])[:, 0].double()
    assert got.dtype == torch.float32
    assert (got.double() - ref).abs().max() <= (plain - ref).abs().max() + 1e-5


def test_gradcheck_fp64() -> None:
    g = torch.Generator().manual_seed(0)
    h = torch.randn(5, 4, generator=g, dtype=torch.float64, requires_grad=True)
    w = torch.randn(7, 4, generator=g, dtype=torch.float64, requires_grad=True)
    labels = torch.tensor([0, 6, IGNORE, 3, 3])

    def f(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return linear_logprobs(a, b, labels, temperature=0.8, return_entropy=True, chunk_tokens=2, chunk_vocab=3)

    assert torch.autograd.gradcheck(f, (h, w))


def test_errors() -> None:
    h, w, labels = torch.randn(2, 4), torch.randn(5, 4), torch.tensor([0, 4])
    with pytest.raises(ValueError, match="hidden \\[N, H\\]"):
        linear_logprobs(h, torch.randn(5, 3), labels)
    with pytest.raises(ValueError, match="labels must be in"):
        linear_logprobs(h, w, torch.tensor([0, 5]))
    with pytest.raises(ValueError, match="Triton backend takes"):
        linear_logprobs(h.double(), w.double(), labels, backend="triton")
    with pytest.raises(ValueError, match="share a device"):
        linear_logprobs(h, w.double(), labels)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_triton_path_matches_fp64(case: dict) -> None:
    """Tiles through matmuls and the in-place kernels (interpreted on CPU), fp32 inputs."""
    hidden, weight = case["hidden"].float(), case["weight"].float()
    labels, temperature = case["labels"], case["temperature"]
    h = hidden.clone().requires_grad_(True)
    w = weight.clone().requires_grad_(True)
    lp, ent = linear_logprobs(h, w, labels, temperature=temperature, return_entropy=True, backend="triton",
                              chunk_tokens=case["chunks"][0], chunk_vocab=case["chunks"][1])
    h_ref = hidden.double().requires_grad_(True)
    w_ref = weight.double().requires_grad_(True)
    ref_lp, ref_ent = reference(h_ref, w_ref, labels, temperature)
    assert lp.dtype == torch.float32
    assert torch.allclose(lp.double(), ref_lp, atol=1e-4) and torch.allclose(ent.double(), ref_ent, atol=1e-4)
    if not len(labels):
        return
    g = torch.Generator().manual_seed(case["g_seed"])
    g_lp, g_h = torch.randn(len(labels), generator=g), torch.randn(len(labels), generator=g)
    ((lp * g_lp).sum() + (ent * g_h).sum()).backward()
    ((ref_lp * g_lp.double()).sum() + (ref_ent * g_h.double()).sum()).backward()
    assert h.grad.dtype == torch.float32 and w.grad.dtype == torch.float32
    scale = 1 + h_ref.grad.abs().max().item() + w_ref.grad.abs().max().item()
    assert torch.allclose(h.grad.double(), h_ref.grad, atol=1e-4 * scale)
    assert torch.allclose(w.grad.double(), w_ref.grad, atol=1e-4 * scale)


def _fp64_grads(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
                g_lp: torch.Tensor | None, g_h: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
    h, w = hidden.double().requires_grad_(True), weight.double().requires_grad_(True)
    lp, ent = reference(h, w, labels, temperature)
    loss = sum((out * g.double()).sum() for out, g in ((lp, g_lp), (ent, g_h)) if g is not None)
    assert isinstance(loss, torch.Tensor)
    loss.backward()
    assert h.grad is not None and w.grad is not None
    return lp, ent, h.grad, w.grad


BACKENDS = ["torch", pytest.param("triton", marks=pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1", reason="Triton on CPU tensors needs TRITON_INTERPRET=1"))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunks", [(None, None), (40, 64), (None, 64), (40, None)],
                         ids=["one-tile", "both", "vocab-tiles", "token-chunks"])
def test_bf16_error_is_no_worse_than_torch_with_accumulators(backend: str, chunks: tuple) -> None:
    """bf16 through every accumulation path (fp32 d-hidden over vocabulary tiles, fp32 d-weight over token
    chunks, direct writes for a single tile or chunk): values and both gradients, relative error against
    fp64 within twice that of plain torch in bf16 (one matmul, fp32 log-softmax, autograd)."""
    g = torch.Generator().manual_seed(4)
    n, hidden, vocab, temperature = 100, 32, 300, 0.9
    h0 = torch.randn(n, hidden, generator=g).bfloat16()
    w0 = (torch.randn(vocab, hidden, generator=g) * hidden**-0.5 * 3).bfloat16()
    labels = torch.randint(0, vocab, (n,), generator=g)
    labels[::7] = IGNORE
    g_lp, g_h = torch.randn(n, generator=g), torch.randn(n, generator=g)

    def run(fn: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]) -> tuple[torch.Tensor, ...]:
        h, w = h0.clone().requires_grad_(True), w0.clone().requires_grad_(True)
        lp, ent = fn(h, w)
        ((lp * g_lp).sum() + (ent * g_h).sum()).backward()
        assert h.grad is not None and w.grad is not None and h.grad.dtype == w.grad.dtype == torch.bfloat16
        return lp.double(), ent.double(), h.grad.double(), w.grad.double()

    def plain(h: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logp = torch.log_softmax((h @ w.T).float() / temperature, -1)
        keep = labels != IGNORE
        lp = torch.where(keep, logp.gather(-1, torch.where(keep, labels, 0)[:, None])[:, 0], 0.0)
        return lp, torch.where(keep, -(logp.exp() * logp).sum(-1), 0.0)

    ours = run(lambda h, w: linear_logprobs(h, w, labels, temperature=temperature, return_entropy=True,
                                            backend=backend, chunk_tokens=chunks[0], chunk_vocab=chunks[1]))
    torch_bf16 = run(plain)
    ref = _fp64_grads(h0, w0, labels, temperature, g_lp, g_h)
    for name, a, p, r in zip(("logprob", "entropy", "d hidden", "d weight"), ours, torch_bf16, ref, strict=True):
        ours_err = ((a - r).norm() / r.norm()).item()
        torch_err = ((p - r).norm() / r.norm()).item()
        assert ours_err <= 2 * torch_err + 1e-5, f"{name}: relative error {ours_err:.3g}, torch's {torch_err:.3g}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("used", ["logprob", "entropy", "sums", "hidden-only", "weight-only"])
def test_gradients_for_any_upstream_layout(backend: str, used: str) -> None:
    """Only one output used (autograd passes no gradient for the other), both summed (gradients broadcast
    from scalars, read with stride 0), and one input without requires_grad (one gradient computed)."""
    g = torch.Generator().manual_seed(5)
    n, hidden, vocab = 30, 8, 50
    h0, w0 = torch.randn(n, hidden, generator=g), torch.randn(vocab, hidden, generator=g) * 0.5
    labels = torch.randint(0, vocab, (n,), generator=g)
    labels[3] = IGNORE
    h = h0.clone().requires_grad_(used != "weight-only")
    w = w0.clone().requires_grad_(used != "hidden-only")
    lp, ent = linear_logprobs(h, w, labels, temperature=1.3, return_entropy=True, backend=backend, chunk_tokens=8,
                              chunk_vocab=16)
    ones = torch.ones(n)
    if used == "logprob":
        lp.mul(torch.arange(n) / n).sum().backward()
        g_lp, g_h = torch.arange(n) / n, None
    elif used == "entropy":
        ent.mul(torch.arange(n) / n).sum().backward()
        g_lp, g_h = None, torch.arange(n) / n
    else:
        (lp.sum() + ent.sum()).backward()
        g_lp, g_h = ones, ones
    _, _, want_h, want_w = _fp64_grads(h0, w0, labels, 1.3, g_lp, g_h)
    if used == "weight-only":
        assert h.grad is None
    else:
        assert h.grad is not None and torch.allclose(h.grad.double(), want_h, atol=1e-5)
    if used == "hidden-only":
        assert w.grad is None
    else:
        assert w.grad is not None and torch.allclose(w.grad.double(), want_w, atol=1e-5)
