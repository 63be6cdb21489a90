"""The memory plan of linear_logprobs: its predictions at the issue's size, and, on CPU at small sizes, the
implementation's real allocations (tracked per tensor storage) against them."""

from __future__ import annotations

import gc
import importlib
import os

import pytest
import torch

from tests.ops.live_bytes import LiveBytes
from verl_ext.ops.linear_logprobs_plan import MIN_VOCAB_TILE, TILE_BYTES, plan_linear_logprobs

impl = importlib.import_module("verl_ext.ops.linear_logprobs")  # the package re-exports a function of that name
#: The Triton path takes CPU tensors only in Triton's interpreter (tests/ops/conftest.py sets it on CPU hosts).
interpreted = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1",
                                 reason="Triton on CPU tensors needs TRITON_INTERPRET=1")
GIB = 2**30
#: verl 0.9.1's linear_cross_entropy measured on an H100, bf16, H=4096, V=128256 (issue 34): peak extra
#: 1.54 GiB at N=16384 and 3.2 GiB at N=65536.
VERL_GIB = {16384: 1.54, 65536: 3.2}


def test_issue_size_fits_the_budget() -> None:
    plan = plan_linear_logprobs(16384, 4096, 128256, torch.bfloat16)
    assert plan.peak_bytes <= 1.5 * GIB
    returned = 128256 * 4096 * 2 + 16384 * 4096 * 2
    # Beyond the returned gradients: the fp32 d-hidden accumulator, one tile and the [N] outputs.
    assert 0 <= plan.peak_bytes - returned - (16384 * 4096 * 4 + TILE_BYTES + 4 * 16384 * 4) <= 64
    assert (plan.chunk_tokens, plan.chunk_vocab) == (16384, 4096)
    assert plan.forward_bytes <= TILE_BYTES + 16384 * 4 * 5


def test_memory_grows_no_faster_than_verls() -> None:
    small, large = (plan_linear_logprobs(n, 4096, 128256, torch.bfloat16).peak_bytes for n in VERL_GIB)
    verl_slope = (VERL_GIB[65536] - VERL_GIB[16384]) * GIB / (65536 - 16384)
    assert (large - small) / (65536 - 16384) <= verl_slope
    assert large <= VERL_GIB[65536] * GIB
    # Far past one token chunk the tile stays TILE_BYTES and MIN_VOCAB_TILE wide.
    huge = plan_linear_logprobs(1 << 20, 4096, 128256, torch.bfloat16)
    assert huge.chunk_vocab == MIN_VOCAB_TILE and huge.chunk_tokens * huge.chunk_vocab * 2 == TILE_BYTES


@pytest.mark.parametrize(("tokens", "vocab", "dtype"), [(0, 10, torch.bfloat16), (1, 1, torch.float32),
                                                         (300, 128256, torch.bfloat16), (5000, 7, torch.float16),
                                                         (10**6, 50000, torch.float32)])
def test_tiles_cover_the_problem_within_the_tile_budget(tokens: int, vocab: int, dtype: torch.dtype) -> None:
    plan = plan_linear_logprobs(tokens, 64, vocab, dtype)
    assert 1 <= plan.chunk_tokens <= max(tokens, 1) and 1 <= plan.chunk_vocab <= vocab
    size = torch.empty((), dtype=dtype).element_size()
    assert plan.chunk_tokens * plan.chunk_vocab * size <= max(TILE_BYTES, plan.chunk_vocab * size)
    assert plan.vocab_tiles * plan.chunk_vocab >= vocab and plan.token_chunks * plan.chunk_tokens >= tokens


def test_fixed_chunks_are_kept_and_errors() -> None:
    plan = plan_linear_logprobs(100, 8, 50, torch.float32, chunk_tokens=7, chunk_vocab=9)
    assert (plan.chunk_tokens, plan.chunk_vocab, plan.token_chunks, plan.vocab_tiles) == (7, 9, 15, 6)
    assert plan_linear_logprobs(100, 8, 50, torch.float32, chunk_tokens=1000).chunk_tokens == 100
    with pytest.raises(ValueError, match="chunk sizes"):
        plan_linear_logprobs(4, 8, 50, torch.float32, chunk_vocab=0)
    with pytest.raises(ValueError, match="vocab >= 1"):
        plan_linear_logprobs(4, 8, 0, torch.float32)


def _problem(n: int, hidden: int, vocab: int, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(n + vocab)
    h = torch.randn(n, hidden, generator=g).to(dtype)
    w = (torch.randn(vocab, hidden, generator=g) * hidden**-0.5).to(dtype)
    labels = torch.randint(0, vocab, (n,), generator=g)
    labels[::5] = -100
    return h, w, labels


@pytest.mark.parametrize(("backend", "dtype"), [
    ("torch", torch.float64), ("torch", torch.float32), ("torch", torch.bfloat16),
    pytest.param("triton", torch.float32, marks=interpreted),
    pytest.param("triton", torch.bfloat16, marks=interpreted)])
@pytest.mark.parametrize("chunks", [(0, 0), (16, 40), (64, 40), (16, 0)], ids=["plan", "both", "vocab", "tokens"])
def test_real_allocations_match_the_plan(backend: str, dtype: torch.dtype, chunks: tuple[int, int]) -> None:
    """The forward's and the backward's peak of live tensor bytes (above the inputs) is the plan's
    prediction: exactly on the Triton path, within the per-token vectors the plan over-counts on the torch
    path. Covers one tile, vocabulary tiles (the d-hidden accumulator), token chunks (the d-weight one) and
    both, in the dtypes whose accumulators differ."""
    n, hidden, vocab = 64, 32, 300
    h, w, labels = _problem(n, hidden, vocab, dtype)
    plan = impl.make_plan(h, w, backend, *chunks, (True, True))
    with LiveBytes() as fwd:
        lp, _, lse, mean = impl._forward(h, w, labels, 0.9, -100, backend, impl.make_plan(h, w, backend, *chunks))
    g = torch.Generator().manual_seed(1)
    g_lp, g_h = torch.randn(n, generator=g, dtype=lp.dtype), torch.randn(n, generator=g, dtype=lp.dtype)
    with LiveBytes() as bwd:
        d_hidden, d_weight = impl._backward(h, w, labels, lse, mean, g_lp, g_h, 0.9, -100, backend, plan, True, True)
    gc.collect()  # Triton's interpreter leaves reference cycles holding its last arguments
    assert fwd.live == plan.output_bytes  # only the outputs outlive the forward
    assert bwd.live == d_hidden.nbytes + d_weight.nbytes
    slack = 0 if backend == "triton" else 16 * lse.element_size() * n  # per-token vectors, counted generously
    assert plan.forward_bytes - slack <= fwd.peak <= plan.forward_bytes
    assert plan.backward_bytes - slack - 2 * lse.element_size() <= bwd.peak <= plan.backward_bytes


def test_the_op_through_autograd_allocates_outputs_and_gradients_only() -> None:
    """Seen from outside the custom ops: the four [N] outputs, the two returned gradients, and nothing of
    size N or more for the upstream gradients (autograd fills in no zeros for unused outputs, and a
    gradient broadcast from a scalar is read where it lies)."""
    n, hidden, vocab = 48, 16, 200
    h, w, labels = _problem(n, hidden, vocab, torch.float32)
    h.requires_grad_(True)
    w.requires_grad_(True)
    with LiveBytes() as mem:
        lp, ent = impl.linear_logprobs(h, w, labels, return_entropy=True, backend="torch")
        (lp.sum() + ent.sum()).backward()
    assert h.grad is not None and w.grad is not None
    assert mem.peak <= 4 * n * 4 + h.nbytes + w.nbytes + 64
