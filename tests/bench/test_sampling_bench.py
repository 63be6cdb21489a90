"""``verl-ext bench sampling``'s GPU path, run whole on CPU tensors with the stand-in timer and memory probe of
test_logprob_bench (verl-ext's torch backend where Triton would need a GPU): every size has every contender's row
or the reason it is missing, FlashInfer enters through its import path (stubbed there, or absent), a contender
that fails or cannot be captured costs only its own figures, and the goals come from device time. One test runs
the real CUDA rig where a GPU is present (ci/gpu)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import types
from typing import Any

import pytest
import torch

from tests.bench.gpu_standins import LAUNCH_MS, StandInTimer, cpu_rig
from verl_ext.bench import gpu_timing, sampling
from verl_ext.bench.gpu_timing import CUDA_GRAPH, PROFILER
from verl_ext.cli import build_parser


def bench_args(*argv: str) -> argparse.Namespace:
    full = ["bench", "sampling", "--batch", "8", "64", "128", "--vocab", "300", "--top-k", "20", "--repeats", "2",
            "--no-progress", *argv]
    return build_parser(full).parse_args(full)


class FlashInferStandIn:
    """``flashinfer.sampling``'s functions the bench calls, in torch (tokens only, as FlashInfer returns)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def module(self) -> types.ModuleType:
        mod = types.ModuleType(sampling.FLASHINFER_SAMPLING)
        mod.sampling_from_logits = self.sampling_from_logits  # type: ignore[attr-defined]
        mod.top_k_top_p_sampling_from_logits = self.top_k_top_p_sampling_from_logits  # type: ignore[attr-defined]
        mod.softmax = self.softmax  # type: ignore[attr-defined]
        mod.min_p_sampling_from_probs = self.min_p_sampling_from_probs  # type: ignore[attr-defined]
        return mod

    def softmax(self, logits: torch.Tensor) -> torch.Tensor:
        self.calls.append("softmax")
        return logits.softmax(-1)

    def min_p_sampling_from_probs(self, probs: torch.Tensor, min_p: torch.Tensor) -> torch.Tensor:
        assert min_p.dtype == torch.float32 and min_p.shape == probs.shape[:1]
        self.calls.append("min_p")
        kept = probs >= min_p[:, None] * probs.amax(-1, keepdim=True)
        return torch.multinomial(torch.where(kept, probs, 0.0), 1)[:, 0]

    def sampling_from_logits(self, logits: torch.Tensor, *, deterministic: bool = False,
                             generator: torch.Generator | None = None) -> torch.Tensor:
        self.calls.append("backend unfiltered" if deterministic else "unfiltered")
        return torch.multinomial(logits.softmax(-1), 1, generator=generator)[:, 0]

    def top_k_top_p_sampling_from_logits(self, logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor, *,
                                         filter_apply_order: str, deterministic: bool = False,
                                         generator: torch.Generator | None = None) -> torch.Tensor:
        assert filter_apply_order == "top_k_first" and k.dtype == torch.int32 and p.dtype == torch.float32
        # verl-ext's backend="flashinfer" asks for deterministic draws; the bench's own baseline does not.
        self.calls.append("backend" if deterministic else "filtered")
        return sampling.sort_based(logits, k, p)


@pytest.fixture
def flashinfer(monkeypatch: pytest.MonkeyPatch) -> FlashInferStandIn:
    stand_in = FlashInferStandIn()
    module = stand_in.module()
    package = types.ModuleType("flashinfer")
    monkeypatch.setitem(sys.modules, "flashinfer", package)  # ``import flashinfer.sampling as fs`` binds through it
    monkeypatch.setitem(sys.modules, sampling.FLASHINFER_SAMPLING, module)
    return stand_in


@pytest.fixture
def no_flashinfer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, sampling.FLASHINFER_SAMPLING, None)  # what a missing package raises
    monkeypatch.delenv("VERL_EXT_NO_FLASHINFER_REASON", raising=False)


def _sizes(result: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(r["distribution"], r["batch"], r["vocab"]) for r in result["rows"]]


def test_gpu_path_reports_every_contender_at_every_size(flashinfer: FlashInferStandIn,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    result = sampling.run_gpu(bench_args(), cpu_rig())
    json.dumps(result)
    assert _sizes(result) == [(d, b, 300) for d in ("peaked", "flat") for b in (8, 64, 128)]
    assert result["flashinfer"] is True and set(flashinfer.calls) == {"unfiltered", "filtered"}
    for row in result["rows"]:
        assert tuple(row["contenders"]) == sampling.CONTENDERS
        for name, c in row["contenders"].items():
            assert c["device_method"] == CUDA_GRAPH and c["device_us"] > 0, (name, c)
            assert c["eager_us"] > 1e3 * LAUNCH_MS and c["eager_repeats"] == 2
        assert {r for r, _, _ in sampling.RATIOS} == set(row["ratios"])
        ours, fi = row["contenders"][sampling.OURS_FILTERED], row["contenders"][sampling.FI_FILTERED]
        ratio = ours["device_us"] / fi["device_us"]
        assert row["ratios"]["verl_ext_top_k_top_p_over_flashinfer"] == pytest.approx(ratio)
        assert row["check"]["ok"] and row["check"]["backend"] == "torch"
    assert result["timing"]["goals_judged_on"] == "device_us"
    out = capsys.readouterr().out
    assert "goal B=64 unfiltered <= 30 us:" in out and "  flat   128    300 |" in out


def test_goals_are_computed_from_device_time(flashinfer: FlashInferStandIn) -> None:
    result = sampling.run_gpu(bench_args(), cpu_rig())
    rows, goals = result["rows"], result["goals"]

    def device(row: dict[str, Any], name: str) -> float:
        return float(row["contenders"][name]["device_us"])

    b64 = [r for r in rows if r["batch"] == 64]
    assert goals["B=64 unfiltered <= 30 us"]["value"] == max(device(r, sampling.OURS_UNFILTERED) for r in b64)
    assert goals["B=64 top-k+top-p <= 60 us"]["value"] == max(device(r, sampling.OURS_FILTERED) for r in b64)
    worst = max(device(r, sampling.OURS_UNFILTERED) / device(r, sampling.FI_UNFILTERED) for r in rows)
    assert goals["unfiltered with log-probs <= flashinfer sampling_from_logits"]["value"] == pytest.approx(worst)
    big = [r for r in rows if r["batch"] >= sampling.SPEEDUP_FROM_B]
    slowest = min(device(r, sampling.SORT_FILTERED) / device(r, sampling.OURS_FILTERED) for r in big)
    assert goals[">= 10x torch sort at B >= 128"]["value"] == pytest.approx(slowest)
    for g in goals.values():
        if g["value"] is not None:
            assert g["met"] == (g["value"] <= g["goal"] if g["at_most"] else g["value"] >= g["goal"])
    # Eager figures carry 5 ms of launch overhead: a goal read from them would be over 5000 us.
    assert goals["B=64 unfiltered <= 30 us"]["value"] < 1e3 * LAUNCH_MS
    assert goals["draws inside the kept set, exact log-probs"]["met"] is True


def test_without_flashinfer_its_rows_say_why_and_its_goals_are_not_judged(
        no_flashinfer: None, monkeypatch: pytest.MonkeyPatch) -> None:
    result = sampling.run_gpu(bench_args(), cpu_rig())
    assert result["flashinfer"] is False and "ModuleNotFoundError" in result["flashinfer_missing"]
    for row in result["rows"]:
        for name in (sampling.FI_UNFILTERED, sampling.FI_FILTERED):
            assert row["contenders"][name]["missing"].startswith("flashinfer unavailable: ModuleNotFoundError")
        assert "device_us" in row["contenders"][sampling.OURS_UNFILTERED]
        assert set(row["ratios"]) == {"verl_ext_unfiltered_over_vllm_torch", "verl_ext_top_k_top_p_over_sort"}
    fi_goal = result["goals"]["unfiltered with log-probs <= flashinfer sampling_from_logits"]
    assert fi_goal["met"] is None and "ModuleNotFoundError" in fi_goal["detail"]
    # ci/gpu's reason, when it left FlashInfer out, is the one reported.
    monkeypatch.setenv("VERL_EXT_NO_FLASHINFER_REASON", "FlashInfer's JIT build timed out")
    result = sampling.run_gpu(bench_args("--batch", "8", "--distribution", "flat"), cpu_rig())
    assert result["rows"][0]["contenders"][sampling.FI_FILTERED]["missing"] == (
        "flashinfer unavailable: FlashInfer's JIT build timed out")


def test_a_contender_that_fails_costs_only_its_row(flashinfer: FlashInferStandIn,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def out_of_memory(logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.16 GiB")

    monkeypatch.setattr(sampling, "sort_based", out_of_memory)
    rig = cpu_rig()
    result = sampling.run_gpu(bench_args(), rig)
    for row in result["rows"]:
        assert row["contenders"][sampling.SORT_FILTERED]["error"].startswith("OutOfMemoryError: CUDA out of memory")
        assert "verl_ext_top_k_top_p_over_sort" not in row["ratios"]
        assert row["contenders"][sampling.OURS_FILTERED]["device_us"] > 0
    sort_goal = result["goals"][">= 10x torch sort at B >= 128"]
    assert sort_goal["met"] is None and sort_goal["value"] is None


def test_contenders_that_cannot_be_captured_are_profiled_once_they_fail(flashinfer: FlashInferStandIn) -> None:
    rig = cpu_rig(graph_fails=True)
    result = sampling.run_gpu(bench_args(), rig)
    for row in result["rows"]:
        for c in row["contenders"].values():
            assert c["device_method"] == PROFILER and "not capturable" in c["fallback"]
    # The graph is tried once per contender; later sizes go straight to the profiler.
    assert isinstance(rig.timer, StandInTimer)
    assert rig.timer.methods.count(CUDA_GRAPH) == len(sampling.CONTENDERS)
    assert rig.timer.methods.count(PROFILER) == len(sampling.CONTENDERS) * len(result["rows"])


def test_the_time_budget_skips_the_sizes_left(flashinfer: FlashInferStandIn) -> None:
    result = sampling.run_gpu(bench_args("--time-budget", "1e-9"), cpu_rig())
    assert _sizes(result) == [(d, b, 300) for d in ("peaked", "flat") for b in (8, 64, 128)]
    assert all(set(r) == {"distribution", "batch", "vocab", "skipped"} for r in result["rows"])
    assert all(g["met"] is None for g in result["goals"].values())


def test_vllm_path_draws_from_the_softmax_and_returns_its_log_prob() -> None:
    logits = sampling._logits(64, 300, "cpu", "flat")
    tok, lp = sampling.vllm_unfiltered(logits)
    assert tok.shape == lp.shape == (64,) and ((tok >= 0) & (tok < 300)).all()
    assert torch.allclose(lp, logits.log_softmax(-1).gather(1, tok[:, None])[:, 0])
    peaked = sampling._logits(64, 300, "cpu")
    assert (peaked.max(-1).values > logits.max(-1).values).all()  # 8 dominant tokens per row


def test_min_p_contenders_at_every_size_when_asked(flashinfer: FlashInferStandIn,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    result = sampling.run_gpu(bench_args("--min-p", "0.1"), cpu_rig())
    json.dumps(result)
    assert result["sizes"]["min_p"] == 0.1 and {"softmax", "min_p"} <= set(flashinfer.calls)
    for row in result["rows"]:
        assert tuple(row["contenders"]) == sampling.CONTENDERS + sampling.MIN_P_CONTENDERS
        for name in sampling.MIN_P_CONTENDERS:
            assert row["contenders"][name]["device_us"] > 0, name
        ours, fi = row["contenders"][sampling.OURS_MIN_P], row["contenders"][sampling.FI_MIN_P]
        assert row["ratios"]["verl_ext_min_p_over_flashinfer"] == pytest.approx(ours["device_us"] / fi["device_us"])
        assert "verl_ext_min_p_over_vllm_torch" in row["ratios"]
        check = row["check"]
        assert check["ok"] and check["min_p_ok"] and check["min_p_inside_kept_set"] == 1.0
        assert check["min_p_max_logprob_error"] < 1e-5
    out = capsys.readouterr().out
    assert "ours mp" in out and "mp/FI" in out
    # Off by default: the sizes keep the time budget.
    plain = sampling.run_gpu(bench_args("--batch", "8", "--distribution", "flat"), cpu_rig())
    assert tuple(plain["rows"][0]["contenders"]) == sampling.CONTENDERS
    assert "min_p_ok" not in plain["rows"][0]["check"]


def test_min_p_without_flashinfer_says_why(no_flashinfer: None) -> None:
    result = sampling.run_gpu(bench_args("--min-p", "0.05", "--batch", "8"), cpu_rig())
    for row in result["rows"]:
        assert row["contenders"][sampling.FI_MIN_P]["missing"].startswith("flashinfer unavailable")
        assert set(row["ratios"]) >= {"verl_ext_min_p_over_vllm_torch"}
        assert "verl_ext_min_p_over_flashinfer" not in row["ratios"]


def test_vllm_min_p_path_draws_inside_the_min_p_set_and_returns_the_raw_log_prob() -> None:
    logits = sampling._logits(64, 300, "cpu")
    m = torch.full((64,), 0.2)
    for _ in range(5):
        tok, lp = sampling.vllm_min_p(logits, m)
        probs = logits.softmax(-1)
        p_tok = probs.gather(1, tok[:, None])[:, 0]
        assert (p_tok >= 0.2 * probs.amax(-1) * (1 - 1e-6)).all()
        assert torch.allclose(lp, logits.log_softmax(-1).gather(1, tok[:, None])[:, 0])
    assert torch.equal(logits, sampling._logits(64, 300, "cpu"))  # the bench's logits are not masked in place


def test_the_min_p_check_fails_a_draw_outside_the_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from verl_ext.ops import SampleOutput, sample

    logits = sampling._logits(8, 300, "cpu")
    good = sampling._min_p_check(logits, 0.1, "torch")
    assert good["min_p_ok"]

    def argmin(x: torch.Tensor, **kw: Any) -> SampleOutput:
        out = sample(x, **kw)
        assert isinstance(out, SampleOutput)
        return out._replace(token_ids=x.argmin(-1))

    monkeypatch.setattr("verl_ext.ops.sample", argmin)
    bad = sampling._min_p_check(logits, 0.1, "torch")
    assert not bad["min_p_ok"] and bad["min_p_inside_kept_set"] == 0.0


def test_the_min_p_check_takes_a_token_at_the_fp32_threshold_and_fails_a_wrong_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The second logit is fp32's log(0.1): at the threshold in fp32, a hair below it in fp64. Kept, and fine.
    logits = torch.tensor([[0.0, math.log(0.1)]] * 64)
    check = sampling._min_p_check(logits, 0.1, "torch")
    assert check["min_p_ok"] and check["min_p_max_logprob_error"] < 1e-6, check

    def keep_all(x: torch.Tensor, **kw: Any) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.full((x.shape[0],), float("-inf")), x.logsumexp(-1)

    monkeypatch.setattr("verl_ext.ops.kept_threshold", keep_all)
    wrong = sampling._min_p_check(sampling._logits(8, 300, "cpu"), 0.1, "torch")
    assert not wrong["min_p_kept_set_ok"] and not wrong["min_p_ok"]


@pytest.fixture
def flashinfer_backend_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """verl-ext's ``backend="flashinfer"`` past its device check, so the stand-in serves it on CPU tensors."""
    from verl_ext.ops import sampling as ops_sampling

    real = ops_sampling._choose

    def choose(backend: str, device: torch.device, per_row_random: bool, want_logprobs: bool) -> str:
        return "flashinfer" if backend == "flashinfer" else real(backend, device, per_row_random, want_logprobs)

    monkeypatch.setattr(ops_sampling, "_choose", choose)


def test_flashinfer_backend_contenders_when_asked(flashinfer: FlashInferStandIn, flashinfer_backend_on_cpu: None,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    result = sampling.run_gpu(bench_args("--flashinfer-backend"), cpu_rig())
    json.dumps(result)
    # verl-ext's sample(backend="flashinfer") reached FlashInfer: its unfiltered sampler without filters.
    assert {"backend", "backend unfiltered"} <= set(flashinfer.calls)
    faster = {name: 0 for name, _, _ in sampling.VIA_FI_RATIOS}
    for row in result["rows"]:
        assert tuple(row["contenders"]) == sampling.CONTENDERS + sampling.VIA_FI_CONTENDERS
        for name, mine, base in sampling.VIA_FI_RATIOS:
            ratio = row["contenders"][mine]["device_us"] / row["contenders"][base]["device_us"]
            assert row["ratios"][name] == pytest.approx(ratio)
            faster[name] += ratio < 1
    auto = result["auto_tokens_only"]
    for name, count in faster.items():
        assert auto[name]["measured"] == len(result["rows"]) and auto[name]["flashinfer_faster"] == count
        assert len(auto[name]["sizes"]) == count
    out = capsys.readouterr().out
    assert "o/FI k+p" in out and "backend='auto', tokens only (flashinfer_backend_top_k_top_p_over_triton)" in out
    # Off by default.
    plain = sampling.run_gpu(bench_args("--batch", "8", "--distribution", "flat"), cpu_rig())
    assert tuple(plain["rows"][0]["contenders"]) == sampling.CONTENDERS and "auto_tokens_only" not in plain


def test_flashinfer_backend_without_flashinfer_says_why(no_flashinfer: None) -> None:
    result = sampling.run_gpu(bench_args("--flashinfer-backend", "--batch", "8"), cpu_rig())
    for row in result["rows"]:
        for name in sampling.VIA_FI_CONTENDERS:
            assert row["contenders"][name]["missing"].startswith("flashinfer unavailable")
        assert not {r for r, _, _ in sampling.VIA_FI_RATIOS} & set(row["ratios"])
    assert all(a["measured"] == 0 and a["worst"] is None for a in result["auto_tokens_only"].values())


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (ci/gpu runs it on one)")
@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") == "1", reason="TRITON_INTERPRET=1: the compiled kernels only")
def test_flashinfer_backend_on_the_cuda_rig() -> None:
    """verl-ext's FlashInfer backend through the bench on a GPU, timed against its Triton path."""
    sampling_module, missing = sampling.flashinfer_sampling()
    if sampling_module is None:
        pytest.skip(f"needs FlashInfer (ci/gpu's flashinfer stage): {missing}")
    args = bench_args("--batch", "4", "64", "--vocab", "4096", "--distribution", "peaked", "--repeats", "5",
                      "--flashinfer-backend")
    result = sampling.run_gpu(args, gpu_timing.cuda_rig())
    for row in result["rows"]:
        for name in sampling.VIA_FI_CONTENDERS:
            c = row["contenders"][name]
            assert c.get("device_us") and c["device_us"] > 0, (name, c)
    assert all(a["measured"] == 2 for a in result["auto_tokens_only"].values())


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (ci/gpu runs it on one)")
@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") == "1", reason="TRITON_INTERPRET=1: the compiled kernels only")
def test_gpu_path_on_the_cuda_rig() -> None:
    """The real timer on verl-ext's Triton sampler and the torch paths, at small sizes: graph replay works where
    the calls are capturable, and the draws check passes."""
    args = bench_args("--batch", "4", "64", "--vocab", "4096", "--distribution", "peaked", "--repeats", "5",
                      "--min-p", "0.1")
    result = sampling.run_gpu(args, gpu_timing.cuda_rig())
    for row in result["rows"]:
        for name in (sampling.VLLM_UNFILTERED, sampling.SORT_FILTERED, sampling.OURS_UNFILTERED,
                     sampling.OURS_FILTERED, sampling.VLLM_MIN_P, sampling.OURS_MIN_P):
            c = row["contenders"][name]
            assert c.get("device_us") and c["device_us"] > 0, (name, c)
        assert row["contenders"][sampling.OURS_FILTERED]["device_method"] == CUDA_GRAPH, row
        assert row["check"]["ok"], row["check"]
