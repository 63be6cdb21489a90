"""Shared fixtures: a tiny tokenizer built locally (no hub downloads) and DataProto builders; hypothesis
profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

from tests.helpers import build_tiny_tokenizer

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



#: Files that share one xdist worker: the end-to-end runs (whole main_ppo runs, ~8 GiB each) must not overlap,
#: and the sandbox's threat tests measure host-wide kernel memory while they run, so no main_ppo run beside them.
SHARE_A_WORKER = ("tests/e2e/", "tests/sandbox/test_threats.py")


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """ci/test's ``-n 2 --dist loadfile``: each file runs on one worker, in order, as it does alone, and the files
    of SHARE_A_WORKER on one worker, one after another. (xdist's ``loadgroup`` cannot be used: with pytest 9 its
    group marks no longer reach the scheduler.) Other modes keep xdist's own scheduling."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:  # the unit of work sent to one worker
            file = nodeid.split("::", 1)[0]
            return "shared" if file.startswith(SHARE_A_WORKER) else file

    return SharedFileScheduling(config, log)


@pytest.fixture(scope="session")
def tiny_tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny_tokenizer")
    build_tiny_tokenizer(path)
    return path


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_tokenizer_dir: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_tokenizer_dir))
