"""Which kernel backend serves a call."""

from __future__ import annotations

import functools
import importlib
import os

import torch


@functools.cache
def triton_available() -> bool:
    """Triton can be imported (it ships with torch's CUDA and ROCm wheels)."""
    try:
        importlib.import_module("triton")
    except ImportError:
        return False
    return True


def interpreting() -> bool:
    """Triton kernels run on CPU tensors in its interpreter (``TRITON_INTERPRET=1``, tests only)."""
    return os.environ.get("TRITON_INTERPRET") == "1"


def resolve_backend(backend: str, device: torch.device) -> str:
    """``"triton"`` or ``"torch"`` for a call on ``device``; a clear error for an unavailable choice."""
    if backend not in ("auto", "triton", "torch"):
        raise ValueError(f"backend must be 'auto', 'triton' or 'torch', got {backend!r}")
    gpu = device.type == "cuda"  # ROCm builds of torch report "cuda" too
    if backend == "torch":
        return "torch"
    if backend == "triton":
        if not triton_available():
            raise RuntimeError("backend='triton' needs the triton package (pip install triton)")
        if not gpu and not interpreting():
            raise RuntimeError(f"backend='triton' needs a GPU tensor (got {device}); on CPU use backend='torch' "
                               "(or TRITON_INTERPRET=1 to run the kernels in Triton's interpreter, for tests)")
        return "triton"
    return "triton" if gpu and triton_available() else "torch"


def is_rocm() -> bool:
    """torch was built for ROCm (HIP); its GPUs still report ``device.type == "cuda"``."""
    return getattr(torch.version, "hip", None) is not None


def warps_for(block: int) -> int:
    """``num_warps`` for a kernel whose program streams ``block`` elements at a time.

    Aim for ~16 elements per lane and 256 lanes per program: 8 warps of 32 lanes on NVIDIA, 4 wavefronts of
    64 lanes on AMD (more wavefronts per program lowers occupancy on CDNA, which has 4 SIMDs per CU)."""
    lanes = 64 if is_rocm() else 32
    return max(1, min(256 // lanes, block // (16 * lanes)))
