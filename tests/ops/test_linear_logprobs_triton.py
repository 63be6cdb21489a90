"""The tile kernels of linear_logprobs: compiled for NVIDIA targets through Triton's compiler and ptxas (on
CPU; the interpreter the other tests use cannot catch what only the compiler rejects), and, interpreted,
against the torch twins on tiles with an offset into the vocabulary."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

triton = pytest.importorskip("triton", reason="triton is not installed")
PTXAS = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
impl = importlib.import_module("verl_ext.ops.linear_logprobs")

# Runs without TRITON_INTERPRET (the interpreter replaces the kernels the compiler needs).
_COMPILE = """
import sys
from triton import compile
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from verl_ext.ops import linear_logprobs_triton as k
from verl_ext.ops.linear_logprobs_plan import MIN_VOCAB_TILE
for dtype in ("bf16", "fp32"):
    stats = {"x_ptr": f"*{dtype}", "labels_ptr": "*i64", "max_ptr": "*fp32", "sum_ptr": "*fp32", "dot_ptr": "*fp32",
             "label_logit_ptr": "*fp32", "stride_row": "i64", "cols": "i32", "col_offset": "i32",
             "inv_temperature": "fp32"}
    grad = {"x_ptr": f"*{dtype}", "labels_ptr": "*i64", "lse_ptr": "*fp32", "mean_ptr": "*fp32",
            "grad_lp_ptr": "*fp32", "grad_h_ptr": "*fp32", "stride_row": "i64", "grad_lp_stride": "i64",
            "grad_h_stride": "i64", "cols": "i32", "col_offset": "i32", "inv_temperature": "fp32",
            "ignore_index": "i64"}
    for cols in (MIN_VOCAB_TILE, 1000):
        blocks = k._blocks(cols)
        warps = blocks.pop("num_warps")
        for fn, sig in ((k._tile_stats_kernel, stats), (k._tile_gradient_kernel, grad)):
            for cc in map(int, sys.argv[1:]):
                src = ASTSource(fn=fn, signature={**sig, **{c: "constexpr" for c in blocks}},
                                constexprs={(fn.arg_names.index(c),): v for c, v in blocks.items()})
                compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": warps})
                print(f"sm_{cc} {fn.__name__} {dtype} cols={cols}: ok")
"""


@pytest.mark.skipif(not PTXAS.exists(), reason=f"this triton wheel ships no ptxas ({PTXAS})")
def test_tile_kernels_compile_for_nvidia_targets() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, "-c", _COMPILE, "80", "90"], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.count(": ok") == 16, out.stdout


@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1", reason="Triton on CPU tensors needs TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_tile_kernels_match_the_torch_steps(dtype: torch.dtype) -> None:
    """Two tiles of one row block folded in turn (the second at a vocabulary offset), then the gradient of
    the second tile; labels inside, outside and ignored."""
    g = torch.Generator().manual_seed(7)
    rows, cols, offset = 5, 37, 37
    tiles = [(torch.randn(rows, cols, generator=g) * 3).to(dtype) for _ in range(2)]
    labels = torch.tensor([3, 40, -100, 73, 0])
    stats = {}
    for backend in ("triton", "torch"):
        state = [torch.full((rows,), float("-inf")), torch.zeros(rows), torch.zeros(rows),
                 torch.full((rows,), float("nan"))]
        for v0, tile in zip((0, offset), tiles, strict=True):
            step = impl.kernels.tile_stats if backend == "triton" else impl._torch_tile_stats
            step(tile.clone(), labels, *state, v0, 0.8)
        stats[backend] = state
    for a, b in zip(stats["triton"], stats["torch"], strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5, equal_nan=True)
    m, s, t, x_label = stats["torch"]
    lse, mean = m + s.log(), t / s
    assert torch.isnan(x_label[2]) and not torch.isnan(x_label[[0, 1, 3, 4]]).any()
    g_lp, g_h = torch.randn(rows, generator=g), torch.randn(rows, generator=g)
    got, want = tiles[1].clone(), tiles[1].clone()
    impl.kernels.tile_gradient(got, labels, lse, mean, g_lp, g_h, offset, 0.8, -100)
    keep = labels != -100
    impl._torch_tile_gradient(want, labels, lse, mean, torch.where(keep, g_lp, 0.0), torch.where(keep, g_h, 0.0),
                              offset, 0.8)
    torch.testing.assert_close(got.float(), want.float(), atol=1e-5, rtol=2e-2 if dtype == torch.bfloat16 else 1e-5)
    assert (got[2] == 0).all()
