"""Shared fixtures: a tiny tokenizer built locally (no hub downloads) and DataProto builders; hypothesis
profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

from tests.helpers import build_tiny_tokenizer
from tests.xdist_scheduler import pytest_xdist_make_scheduler

__all__ = ["pytest_xdist_make_scheduler"]  # a pytest hook: pytest finds it here, in a conftest

# vLLM on a CPU host (tests/rollout): vLLM swaps its Triton kernels for placeholders when no GPU driver is
# active, unless CUDA_VISIBLE_DEVICES is set and empty (its "distributed environment" case). The V2 model
# runner's sampler is Triton (temperature, Gumbel draw); with that and Triton's interpreter its kernels run on
# CPU tensors. Global on purpose: it must precede the first import of vLLM anywhere in the session (verl imports
# it too), and tests/ops sets TRITON_INTERPRET for the whole session anyway. A host with a GPU keeps its devices.
if not torch.cuda.is_available():
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("TRITON_INTERPRET", "1")

# CI (ci/test sets HYPOTHESIS_PROFILE=ci): the same examples on every run and no example database, so a
# landing never fails on a draw no one can reproduce. Plain `pytest` draws fresh examples each run and
# keeps failures in the local database, to find what CI's fixed draws miss.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def tiny_tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny_tokenizer")
    build_tiny_tokenizer(path)
    return path


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_tokenizer_dir: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_tokenizer_dir))
