"""Every Triton kernel compiles for sm_80 and sm_90 through Triton's compiler and ptxas, on CPU: the
interpreter the other tests use cannot catch what only the compiler rejects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

triton = pytest.importorskip("triton", reason="triton is not installed")
PTXAS = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"


@pytest.mark.skipif(not PTXAS.exists(), reason=f"this triton wheel ships no ptxas ({PTXAS})")
def test_kernels_compile_for_nvidia_targets() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, "-m", "verl_ext.ops._compile_check", "80", "90"], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    lines = out.stdout.splitlines()
    from verl_ext.ops._compile_check import kernels

    assert len(lines) == 2 * len(kernels()) and all(line.endswith("warps)") and ": ok (" in line for line in lines), \
        out.stdout
