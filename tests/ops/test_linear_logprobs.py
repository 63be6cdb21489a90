"""linear_logprobs (from hidden states, chunked, recomputing backward) against the fp64 definition."""

from __future__ import annotations

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
    """Token chunks through cuBLAS-style matmuls and the fused kernels (interpreted on CPU), fp32 inputs."""
    hidden, weight = case["hidden"].float(), case["weight"].float()
    labels, temperature = case["labels"], case["temperature"]
    h = hidden.clone().requires_grad_(True)
    w = weight.clone().requires_grad_(True)
    lp, ent = linear_logprobs(h, w, labels, temperature=temperature, return_entropy=True, backend="triton",
                              chunk_tokens=case["chunks"][0])
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
