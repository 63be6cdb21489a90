"""The vLLM worker extension's sampler patch, against a stand-in of vLLM 0.24.0's sampler interface (see
verl_ext/rollout/vllm_sampler.py) and, when vLLM is importable, against vLLM's real TopKTopPSampler."""

from __future__ import annotations

import importlib.util
import logging

import pytest
import torch
from torch import nn

from tests.helpers import kept_reference
from verl_ext.rollout import FusedTopKTopP, install_fused_sampler, vllm_sampler

VOCAB = 111


class StandInTopKTopP(nn.Module):
    """vLLM 0.24.0's TopKTopPSampler shape: ``forward`` chosen in __init__ as an instance attribute."""

    def __init__(self, logprobs_mode: str = "raw_logprobs") -> None:
        super().__init__()
        self.logprobs_mode = logprobs_mode
        self.forward = self.forward_native
        self.native_calls = 0

    def forward_native(self, logits, generators, k, p):
        self.native_calls += 1
        return logits.argmax(-1), None


class StandInSampler(nn.Module):
    def __init__(self, logprobs_mode: str) -> None:
        super().__init__()
        self.topk_topp_sampler = StandInTopKTopP(logprobs_mode)


class StandInRunner:  # GPUModelRunner (V1): .sampler.topk_topp_sampler
    def __init__(self, logprobs_mode: str = "processed_logprobs") -> None:
        self.sampler = StandInSampler(logprobs_mode)


def reference_kept(logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    return torch.stack([kept_reference(row, int(ki), float(pi), None)
                        for row, ki, pi in zip(logits, k, p, strict=True)])


def batch(n: int = 16, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    logits = torch.round(torch.randn(n, VOCAB, generator=g) * 16) / 8
    k = torch.tensor([VOCAB, 5, 20, 1] * (n // 4), dtype=torch.int32)  # VOCAB = off, as vLLM fills it
    p = torch.tensor([1.0, 0.9, 0.5, 0.7] * (n // 4))
    return logits, k, p


@pytest.mark.parametrize("mode", ["processed_logprobs", "processed_logits", "raw_logprobs"])
def test_installed_sampler_draws_from_the_filtered_distribution_and_returns_it(mode: str) -> None:
    runner = StandInRunner(mode)
    fused = install_fused_sampler(runner, backend="torch")
    assert isinstance(fused, FusedTopKTopP) and fused.logprobs_mode == mode
    logits, k, p = batch()
    tokens, processed = runner.sampler.topk_topp_sampler(logits, {}, k, p)  # nn.Module.__call__ -> forward
    assert runner.sampler.topk_topp_sampler.native_calls == 0
    keep = reference_kept(logits, k, p)
    assert tokens.dtype == torch.int64 and keep.gather(1, tokens[:, None]).all()
    if mode == "raw_logprobs":
        assert processed is None
        return
    assert torch.equal(torch.isfinite(processed), keep)
    expected = logits.masked_fill(~keep, float("-inf"))
    if mode == "processed_logprobs":
        expected = torch.log_softmax(expected.double(), -1).float()
    torch.testing.assert_close(processed, expected, atol=1e-5, rtol=0)


def test_seeded_requests_repeat_and_others_vary() -> None:
    runner = StandInRunner()
    install_fused_sampler(runner, backend="torch")
    logits = torch.zeros(8, VOCAB)  # uniform distribution: draws differ unless seeded alike
    k, p = torch.full((8,), VOCAB, dtype=torch.int32), torch.ones(8)

    def draw():
        gens = {0: torch.Generator().manual_seed(5), 3: torch.Generator().manual_seed(6)}
        return runner.sampler.topk_topp_sampler(logits, gens, k, p)[0]

    a, b = draw(), draw()
    assert a[0] == b[0] and a[3] == b[3]
    unseeded = torch.stack([draw() for _ in range(4)])[:, [1, 2, 4, 5, 6, 7]]
    assert unseeded.unique(dim=0).shape[0] > 1, "unseeded rows must not repeat"


def test_none_parameters_nan_rows_and_fallback(caplog: pytest.LogCaptureFixture,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    runner = StandInRunner("raw_logprobs")
    install_fused_sampler(runner, backend="torch")
    logits, _, _ = batch(4)
    logits[2, 7] = float("nan")
    tokens, _ = runner.sampler.topk_topp_sampler(logits, {}, None, None)
    assert (tokens >= 0).all() and tokens[2] == logits[2].argmax()

    def broken(*args, **kwargs):
        raise RuntimeError("kernel failed to compile")

    monkeypatch.setattr(vllm_sampler, "sample_with_threshold", broken)
    with caplog.at_level(logging.ERROR):
        tokens, _ = runner.sampler.topk_topp_sampler(logits, {}, None, None)
    assert "vLLM's own sampler takes over" in caplog.text
    assert runner.sampler.topk_topp_sampler.native_calls == 1
    runner.sampler.topk_topp_sampler(logits, {}, None, None)
    assert runner.sampler.topk_topp_sampler.native_calls == 2  # stays on the fallback


def test_reinstall_keeps_vllms_sampler_as_the_fallback() -> None:
    runner = StandInRunner()
    native = runner.sampler.topk_topp_sampler.forward
    install_fused_sampler(runner, backend="torch")
    second = install_fused_sampler(runner, backend="torch")
    assert second.fallback == native


def test_v2_model_runner_is_refused_with_the_fix() -> None:
    class V2Sampler:  # vllm/v1/worker/gpu/sample/sampler.py: no topk_topp_sampler
        pass

    class V2Runner:
        sampler = V2Sampler()

    with pytest.raises(RuntimeError, match="VLLM_USE_V2_MODEL_RUNNER=0"):
        install_fused_sampler(V2Runner())


def test_backend_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(vllm_sampler.BACKEND_ENV, "torch")
    assert install_fused_sampler(StandInRunner()).backend == "torch"


HAS_VLLM = importlib.util.find_spec("vllm") is not None


@pytest.mark.skipif(not HAS_VLLM, reason="vLLM is not installed; the stand-in above follows vLLM 0.24.0's interface")
def test_against_vllms_real_topk_topp_sampler() -> None:
    from vllm.v1.sample.ops.topk_topp_sampler import TopKTopPSampler

    class Runner:
        pass

    runner = Runner()
    runner.sampler = nn.Module()
    runner.sampler.topk_topp_sampler = TopKTopPSampler("processed_logprobs")
    install_fused_sampler(runner, backend="torch")
    logits, k, p = batch()
    tokens, processed = runner.sampler.topk_topp_sampler(logits, {}, k, p)
    keep = reference_kept(logits, k, p)
    assert keep.gather(1, tokens[:, None]).all() and torch.equal(torch.isfinite(processed), keep)


def test_worker_extension_subclasses_verls_or_explains_what_is_missing() -> None:
    try:
        from verl.workers.rollout.vllm_rollout.utils import vLLMColocateWorkerExtension
    except (ImportError, ValueError):  # verl raises ValueError("vllm version None not supported") without vLLM
        with pytest.raises(ImportError, match="needs vLLM"):
            from verl_ext.rollout import VLLMWorkerExtension
        return
    from verl_ext.rollout import VLLMWorkerExtension

    assert issubclass(VLLMWorkerExtension, vLLMColocateWorkerExtension)
    assert set(vars(VLLMWorkerExtension)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                              "__static_attributes__"} == {"monkey_patch_model"}
