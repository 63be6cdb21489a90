"""vLLM 0.24.0's samplers made constructible on a CPU host, for both test files here.

What is not vLLM's own: the V2 runner's pinned-memory ``UvaBuffer`` (it needs a GPU) becomes plain CPU tensors;
under Triton's interpreter, libdevice's ``log1p`` in vLLM's Gumbel kernel becomes ``log(1 + x)``; V1's Triton
top-k/top-p gives way to vLLM's own PyTorch one. Triton's interpreter (``tests/conftest.py`` sets it when there
is no GPU) runs the V2 sampler's other kernels on CPU tensors.
"""

from __future__ import annotations

import os
import types
from collections.abc import Iterator

import pytest
import torch

try:  # torch brings Triton on Linux x86-64; without it vLLM reports no Triton and the V2 fixture skips
    import triton
    import triton.language as tl
except ImportError:
    triton = None

VLLM_MISSING = "vLLM is not installed (ci/requirements-vllm.lock pins it)"


if triton is not None:
    @triton.jit
    def _interpreted_log1p(x):
        return tl.log(1.0 + x)


class CpuUvaBuffer:
    """vLLM's ``UvaBuffer`` is pinned host memory with a GPU view of it; on a CPU host both views are the
    same tensor."""

    def __init__(self, size: int | tuple[int, ...], dtype: torch.dtype) -> None:
        self.cpu = torch.zeros(size, dtype=dtype)
        self.np = self.cpu.numpy()
        self.uva = self.cpu


@pytest.fixture(autouse=True)
def _vllm_torch_top_k_top_p(monkeypatch: pytest.MonkeyPatch) -> None:
    # vLLM's CPU path runs its Triton top-k/top-p when Triton is importable; in the interpreter on NumPy 2 its
    # runtime-bounded loops fail. Its sort-based PyTorch implementation is the same filter.
    topk_topp = pytest.importorskip("vllm.v1.sample.ops.topk_topp_sampler", reason=VLLM_MISSING)
    monkeypatch.setattr(topk_topp, "HAS_TRITON", False)


@pytest.fixture
def v2(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """The V2 runner's sampler module, constructible on CPU."""
    triton_utils = pytest.importorskip("vllm.triton_utils", reason=VLLM_MISSING)
    if not triton_utils.HAS_TRITON:
        pytest.skip("vLLM disabled Triton in this process (CUDA_VISIBLE_DEVICES set non-empty without a GPU?): "
                    "the V2 sampler's kernels are Triton")
    from vllm.v1.worker.gpu import buffer_utils
    from vllm.v1.worker.gpu.sample import gumbel
    from vllm.v1.worker.gpu.sample import sampler as v2_sampler

    monkeypatch.setattr(buffer_utils, "UvaBuffer", CpuUvaBuffer)
    if os.environ.get("TRITON_INTERPRET") == "1":
        # Triton's interpreter has no libdevice; vLLM's Gumbel draw calls libdevice's log1p.
        monkeypatch.setattr(gumbel, "tldevice", types.SimpleNamespace(log1p=_interpreted_log1p))
    yield v2_sampler
