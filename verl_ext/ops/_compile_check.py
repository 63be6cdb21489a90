"""Compile every Triton kernel of ``verl_ext.ops`` ahead of time for NVIDIA targets, without a GPU.

Triton's interpreter (what CPU tests run) executes kernels as Python, so it cannot catch what only the
compiler rejects (types that differ between branches, unsupported ops, register blow-ups). This compiles
each kernel with the launch constants the launchers use, through Triton's own code generator and the
``ptxas`` shipped in the triton wheel: ``python -m verl_ext.ops._compile_check [sm ...]``. It must run
without ``TRITON_INTERPRET``.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def kernels() -> list[tuple[str, Any, dict[str, str], dict[str, Any], int]]:
    """(name, kernel, runtime signature, constexprs, num_warps) for each kernel and launch shape."""
    from verl_ext.ops import logprobs as lp
    from verl_ext.ops.sampling_kernels import compile_specs
    from verl_ext.ops.sampling_plan import launch_plan

    found = []
    for dtype in ("fp32", "bf16", "fp16"):
        fwd = {"logits_ptr": f"*{dtype}", "labels_ptr": "*i64", "logprob_ptr": "*fp32", "entropy_ptr": "*fp32",
               "lse_ptr": "*fp32", "mean_ptr": "*fp32", "stride_row": "i64", "vocab": "i32",
               "inv_temperature": "fp32", "ignore_index": "i64"}
        bwd = {"logits_ptr": f"*{dtype}", "labels_ptr": "*i64", "lse_ptr": "*fp32", "mean_ptr": "*fp32",
               "grad_lp_ptr": "*fp32", "grad_h_ptr": "*fp32", "grad_ptr": f"*{dtype}", "stride_row": "i64",
               "grad_stride_row": "i64", "vocab": "i32", "inv_temperature": "fp32", "ignore_index": "i64"}
        blocks = lp._blocks(128256)
        warps = blocks.pop("num_warps")
        found.append((f"logprobs forward {dtype}", lp._forward_kernel, fwd, blocks, warps))
        found.append((f"logprobs backward {dtype}", lp._backward_kernel, bwd, blocks, warps))
        # Every launch the sampler makes without filters, with all of them, with a top-k of at most K_MAX
        # known on the host (top-p from the gathered set only), with min-p (and top-p) but no top-k (min-p's
        # cut), and without a draw (with and without filters), each distinct one once.
        seen = set()
        for plan in (launch_plan(64, 128256), launch_plan(64, 128256, top_k=True, top_p=True, min_p=True),
                     launch_plan(64, 128256, top_k=True, top_p=True, top_k_bound=50),
                     launch_plan(64, 128256, top_p=True, min_p=True), launch_plan(64, 128256, min_p=True),
                     launch_plan(64, 128256, top_k=True, top_p=True, min_p=True, sample=False),
                     launch_plan(64, 128256, sample=False)):
            for spec in compile_specs(dtype, plan):
                key = (spec[1], tuple(sorted(spec[3].items())))
                if key not in seen:
                    seen.add(key)
                    found.append(spec)
    return found


def compile_all(capabilities: list[int]) -> list[str]:
    """Compile everything for each compute capability; the lines say what compiled (raises on failure)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    if os.environ.get("TRITON_INTERPRET") == "1":
        raise RuntimeError("unset TRITON_INTERPRET: the interpreter replaces the kernels the compiler needs")
    lines = []
    for cc in capabilities:
        for name, fn, sig, consts, warps in kernels():
            signature = {**sig, **{k: "constexpr" for k in consts}}
            const = {(fn.arg_names.index(k),): v for k, v in consts.items()}
            compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=const),
                                      target=GPUTarget("cuda", cc, 32), options={"num_warps": warps})
            lines.append(f"sm_{cc} {name}: ok ({compiled.metadata.shared} B shared memory, {warps} warps)")
    return lines


if __name__ == "__main__":
    caps = [int(a) for a in sys.argv[1:]] or [80, 90]
    for line in compile_all(caps):
        print(line)
