"""``verl-ext bench logprob``'s GPU path, run whole on CPU tensors with a stand-in timer and memory probe: every row
exists or says why not, the upstream gradient each contender gets is contiguous (verl's kernel asserts it), the
torch baselines are sized to the free memory and step down on out-of-memory errors, a graph that cannot be
captured falls back to the profiler, and the goals come from device time. One test runs the real CUDA rig where
a GPU is present (ci/gpu)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch

from tests.bench.gpu_standins import LAUNCH_MS, StandInMemory, StandInTimer, cpu_rig
from tests.ops.live_bytes import LiveBytes
from verl_ext.bench import gpu_timing, logprob
from verl_ext.bench.gpu_timing import CUDA_GRAPH, PROFILER
from verl_ext.cli import build_parser

VERL_MODULE, VERL_FN = logprob.VERL_LINEAR_CROSS_ENTROPY
LIGER_MODULE, LIGER_FN = logprob.LIGER_FUSED_LINEAR_CROSS_ENTROPY

def bench_args(*argv: str) -> argparse.Namespace:
    """The bench's own parser, so the flags the GPU path reads are the ones the CLI defines."""
    full = ["bench", "logprob", "--n", "64", "--vocab", "300", "--hidden", "16", "--repeats", "2", "--no-progress",
            *argv]
    return build_parser(full).parse_args(full)


# -------------------------------------------------------------------------------- a stand-in for verl
@dataclass
class VerlStandIn:
    """verl's ``linear_cross_entropy`` contract (``(hidden, weight, labels, temperature, reduction) -> (logp,
    entropy)``) with its kernel's assertion that both upstream gradients are contiguous."""

    upstream_contiguous: list[bool] = field(default_factory=list)
    fail: bool = False

    def module(self) -> types.ModuleType:
        mod = types.ModuleType(VERL_MODULE)
        setattr(mod, VERL_FN, self.linear_cross_entropy)
        return mod

    def linear_cross_entropy(self, hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                             temperature: float = 1.0, reduction: str = "none") -> list[torch.Tensor]:
        assert isinstance(temperature, float) and reduction == "none"
        if self.fail:
            raise RuntimeError("Triton kernel failed to launch")
        seen = self.upstream_contiguous

        class LinearCrossEntropy(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, h: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                ctx.save_for_backward(h, w)
                with torch.enable_grad():
                    return tuple(t.detach() for t in logprob._plain(h @ w.T / temperature, labels))  # type: ignore[return-value]

            @staticmethod
            def backward(ctx: Any, dlogprobs: torch.Tensor, dentropy: torch.Tensor) -> tuple[torch.Tensor, ...]:
                seen.append(dlogprobs.is_contiguous() and dentropy.is_contiguous())
                assert dlogprobs.is_contiguous() and dentropy.is_contiguous()  # as verl's kernel asserts
                h, w = (t.detach().requires_grad_(True) for t in ctx.saved_tensors)
                with torch.enable_grad():
                    outs = logprob._plain(h @ w.T / temperature, labels)
                    return torch.autograd.grad(outs, (h, w), (dlogprobs, dentropy))

        return list(LinearCrossEntropy.apply(hidden, weight))


@pytest.fixture
def verl(monkeypatch: pytest.MonkeyPatch) -> Iterator[VerlStandIn]:
    """verl's kernel stubbed at its import path; Liger absent (``None`` in sys.modules: an ImportError)."""
    stand_in = VerlStandIn()
    monkeypatch.setitem(sys.modules, VERL_MODULE, stand_in.module())
    monkeypatch.setitem(sys.modules, LIGER_MODULE, None)
    yield stand_in


# ---------------------------------------------------------------------------------------------- tests
def _measured(row: dict[str, Any]) -> bool:
    return "error" not in row and "missing" not in row


def test_gpu_path_reports_every_row_with_both_timings(verl: VerlStandIn, capsys: pytest.CaptureFixture[str]) -> None:
    rig = cpu_rig()
    result = logprob.run_gpu(bench_args(), rig)
    json.dumps(result)  # what write_results stores
    rows = result["rows"]
    assert list(rows) == list(logprob.ROWS)
    assert "liger_kernel" in rows[logprob.HIDDEN_LIGER]["missing"] and "loss only" in rows[logprob.HIDDEN_LIGER]["note"]
    for name in logprob.ROWS:
        row = rows[name]
        if name == logprob.HIDDEN_LIGER:
            continue
        assert _measured(row), (name, row)
        assert row["n"] == 64 and "stepped_down_from" not in row
        for phase in ("forward", "forward_backward"):
            t = row[phase]
            assert t["device_method"] == CUDA_GRAPH and t["device_us"] > 0 and "fallback" not in t
            assert t["eager_us"] > 1e3 * LAUNCH_MS and t["eager_repeats"] == 2
        assert row["backward_device_us"] >= 0 and row["peak_extra_bytes"] > 0 and row["forward_peak_extra_bytes"] > 0
        assert row["upstream_gradient"]["contiguous"] is True
    # verl's kernel ran its backward and got contiguous upstream gradients (its assert would have failed it).
    assert verl.upstream_contiguous and all(verl.upstream_contiguous)
    # Ratios per token against the section's baselines, on device time.
    ours = rows[logprob.HIDDEN_OURS]
    assert set(ours["speedup_per_token_vs"]) == {logprob.HIDDEN_TORCH, logprob.HIDDEN_VERL}
    verl_row = rows[logprob.HIDDEN_VERL]
    assert ours["speedup_per_token_vs"][logprob.HIDDEN_VERL]["forward_backward"] == pytest.approx(
        verl_row["forward_backward"]["device_us"] / ours["forward_backward"]["device_us"])
    assert set(rows[logprob.LOGITS_OURS]["speedup_per_token_vs"]) == {logprob.LOGITS_TORCH}
    assert result["timing"]["goals_judged_on"] == "device_us"
    logprob.print_report(result)
    out = capsys.readouterr().out
    assert "goal hidden_speedup_over_verl >= 1.5" in out and "unavailable: liger_kernel" in out


def test_goals_are_computed_from_device_time(verl: VerlStandIn) -> None:
    result = logprob.run_gpu(bench_args(), cpu_rig())
    rows, g, s = result["rows"], result["goals"], result["sizes"]
    lg, hd, vr = rows[logprob.LOGITS_OURS], rows[logprob.HIDDEN_OURS], rows[logprob.HIDDEN_VERL]
    floor_us = 2 * 64 * 300 / result["bandwidth_bytes_per_s"] * 1e6
    expected = {
        "logits_forward_floor_fraction": floor_us / lg["forward"]["device_us"],
        "logits_backward_over_forward": lg["backward_device_us"] / lg["forward"]["device_us"],
        "hidden_forward_tflops": 2 * 64 * 16 * 300 / (hd["forward"]["device_us"] * 1e-6) / 1e12,
        "hidden_backward_over_forward": hd["backward_device_us"] / hd["forward"]["device_us"],
        "hidden_speedup_over_verl": vr["forward_backward"]["device_us"] / hd["forward_backward"]["device_us"],
    }
    for name, value in expected.items():
        assert g[name]["value"] == pytest.approx(value), name
        assert g[name]["met"] == (value <= g[name]["goal"] if g[name]["at_most"] else value >= g[name]["goal"])
    # The eager figures (launch overhead included) would give other values.
    assert g["logits_forward_floor_fraction"]["value"] != pytest.approx(floor_us / lg["forward"]["eager_us"])
    assert g["logits_extra_bytes_per_token"]["value"] == max(lg["peak_extra_bytes"] - 2 * 64 * 300, 0) / 64
    # The memory goal is stated at N=16384, H=4096, V=128256: not judged at other sizes.
    assert g["hidden_peak_extra_gib"]["met"] is None and "16384" in g["hidden_peak_extra_gib"]["detail"]
    assert s == {"n": 64, "vocab": 300, "hidden": 16, "dtype": "bfloat16"}


def test_torch_baselines_step_down_on_out_of_memory(verl: VerlStandIn, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    plain = logprob._plain

    def small_gpu(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if logits.shape[0] > 16:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 31.31 GiB")
        return plain(logits, labels)

    monkeypatch.setattr(logprob, "_plain", small_gpu)  # the torch baselines only (verl's stand-in keeps its own)
    verl_row_plain = VerlStandIn()
    monkeypatch.setitem(sys.modules, VERL_MODULE, verl_row_plain.module())
    rig = cpu_rig()
    result = logprob.run_gpu(bench_args(), rig)
    rows = result["rows"]
    for name in (logprob.LOGITS_TORCH, logprob.HIDDEN_TORCH):
        assert _measured(rows[name]) and rows[name]["n"] == 16 and rows[name]["stepped_down_from"] == 64
    for name in (logprob.LOGITS_OURS, logprob.HIDDEN_OURS):
        assert _measured(rows[name]) and rows[name]["n"] == 64
    # Ratios across different N compare time per token.
    ours, base = rows[logprob.LOGITS_OURS], rows[logprob.LOGITS_TORCH]
    assert ours["speedup_per_token_vs"][logprob.LOGITS_TORCH]["forward"] == pytest.approx(
        (base["forward"]["device_us"] / 16) / (ours["forward"]["device_us"] / 64))
    out = capsys.readouterr().out
    assert "logits/torch: out of memory at N=64; stepping down to N=32" in out
    assert "out of memory at N=32; stepping down to N=16" in out
    assert isinstance(rig.memory, StandInMemory) and rig.memory.releases > 0


def test_a_row_still_out_of_memory_at_the_least_size_says_so(verl: VerlStandIn,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory.")

    monkeypatch.setattr(logprob, "_plain", no_memory)
    rows = logprob.run_gpu(bench_args(), cpu_rig())["rows"]
    assert rows[logprob.LOGITS_TORCH]["error"].startswith("out of memory down to N=1:")
    assert _measured(rows[logprob.LOGITS_OURS]) and _measured(rows[logprob.HIDDEN_OURS])


def test_torch_baselines_are_sized_to_the_free_memory(verl: VerlStandIn, capsys: pytest.CaptureFixture[str]) -> None:
    rig = cpu_rig()
    assert isinstance(rig.memory, StandInMemory)
    # Room for 20 tokens of the logits baseline at 2 + 24 B per logit: N=64 halves twice, to 16.
    rig.memory.free = int(20 * 300 * (2 + logprob.TORCH_EXTRA_BYTES_PER_LOGIT) / logprob.GPU_MEMORY_SHARE)
    rows = logprob.run_gpu(bench_args(), rig)["rows"]
    assert rows[logprob.LOGITS_TORCH]["n"] == 16 and rows[logprob.LOGITS_TORCH]["sized_to_free_memory_from"] == 64
    assert "stepped_down_from" not in rows[logprob.LOGITS_TORCH]
    assert rows[logprob.LOGITS_OURS]["n"] == 64 and "sized_to_free_memory_from" not in rows[logprob.LOGITS_OURS]
    assert "logits torch baseline: N=16 fits" in capsys.readouterr().out


def test_the_estimate_of_the_torch_baselines_memory_covers_its_peak() -> None:
    """The plain forward+backward's peak beyond its input, tracked op by op on CPU, is what the sizing assumes
    at most (the issue's run ran out of memory with an estimate of 16 B per logit; this measures 20)."""
    n, vocab = 256, 4096
    x = torch.randn(n, vocab, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, vocab, (n,))
    adv, ent_coef = torch.randn(n), torch.randn(n)

    def forward_backward() -> None:
        outs = logprob._plain(x, labels)
        torch.autograd.backward(outs, logprob.upstream(outs, adv, ent_coef))

    with LiveBytes() as live:
        forward_backward()
    per_logit = live.peak / (n * vocab)
    assert 16 < per_logit <= logprob.TORCH_EXTRA_BYTES_PER_LOGIT, per_logit


def test_graphs_that_cannot_be_captured_fall_back_to_the_profiler(verl: VerlStandIn) -> None:
    rig = cpu_rig(graph_fails=True)
    result = logprob.run_gpu(bench_args(), rig)
    for name, row in result["rows"].items():
        if name == logprob.HIDDEN_LIGER:
            continue
        for phase in ("forward", "forward_backward"):
            t = row[phase]
            assert t["device_method"] == PROFILER and t["device_us"] > 0, (name, phase)
            assert "not capturable: RuntimeError: CUDA error: operation not permitted" in t["fallback"]
    # Each (row, phase) tries the graph once; the goals are still judged, on the profiler's figures.
    assert isinstance(rig.timer, StandInTimer) and rig.timer.methods.count(CUDA_GRAPH) == 2 * 5
    assert result["goals"]["logits_backward_over_forward"]["met"] is not None


def test_a_failing_or_missing_contender_costs_only_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    failing = VerlStandIn(fail=True)
    monkeypatch.setitem(sys.modules, VERL_MODULE, failing.module())
    monkeypatch.setitem(sys.modules, LIGER_MODULE, None)
    result = logprob.run_gpu(bench_args(), cpu_rig())
    rows = result["rows"]
    assert "RuntimeError: Triton kernel failed to launch" in rows[logprob.HIDDEN_VERL]["error"]
    assert _measured(rows[logprob.HIDDEN_OURS]) and _measured(rows[logprob.HIDDEN_TORCH])
    speedup = result["goals"]["hidden_speedup_over_verl"]
    assert speedup["met"] is None and "Triton kernel failed" in speedup["detail"]
    monkeypatch.setitem(sys.modules, VERL_MODULE, None)  # not installed: the same import guard
    rows = logprob.run_gpu(bench_args(), cpu_rig())["rows"]
    assert rows[logprob.HIDDEN_VERL]["missing"].startswith(f"{VERL_MODULE}.{VERL_FN} unavailable: ModuleNotFoundError")


def test_liger_runs_through_its_import_path_with_a_scalar_upstream_gradient(
        verl: VerlStandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def liger(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor, *, reduction: str) -> torch.Tensor:
        calls.append(reduction)
        return torch.nn.functional.cross_entropy((h @ w.T).float(), y, reduction=reduction)

    mod = types.ModuleType(LIGER_MODULE)
    setattr(mod, LIGER_FN, liger)
    monkeypatch.setitem(sys.modules, LIGER_MODULE, mod)
    rows = logprob.run_gpu(bench_args(), cpu_rig())["rows"]
    row = rows[logprob.HIDDEN_LIGER]
    assert _measured(row) and row["upstream_gradient"]["contiguous"] and "no entropy" in row["note"]
    assert set(calls) == {"sum"}


def test_step_down_retries_only_out_of_memory() -> None:
    memory = StandInMemory()
    tried: list[int] = []

    def broken(n: int) -> dict[str, Any]:
        tried.append(n)
        raise ValueError("bad shape")

    row = gpu_timing.step_down(broken, 64, least=1, memory=memory, what="x")
    assert row == {"n": 64, "error": "ValueError: bad shape"} and tried == [64]


def test_kernel_time_sums_device_events_once() -> None:
    from torch.autograd import DeviceType

    @dataclass
    class Event:
        device_type: Any
        self_device_time_total: float
        is_user_annotation: bool = False

    events = [Event(DeviceType.CPU, 50.0), Event(DeviceType.CUDA, 3.0), Event(DeviceType.CUDA, 4.5),
              Event(DeviceType.CUDA, 100.0, is_user_annotation=True)]
    assert gpu_timing.kernel_us(events) == 7.5


def test_graph_calls_hold_a_bounded_amount_of_work() -> None:
    assert gpu_timing.graph_calls(10.0) == gpu_timing.GRAPH_CALLS
    assert gpu_timing.graph_calls(1000.0) == 5
    assert gpu_timing.graph_calls(100_000.0) == 1
    assert gpu_timing.graph_calls(0.0, most=7) == 7


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (ci/gpu runs it on one)")
@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") == "1", reason="TRITON_INTERPRET=1: the compiled kernels only")
def test_gpu_path_on_the_cuda_rig() -> None:
    """The real timer and memory probe at a small size: graphs capture verl-ext's Triton paths and their
    backward, the profiler is a working fallback, the figures are positive."""
    rig = gpu_timing.cuda_rig()
    args = bench_args("--n", "1024", "--vocab", "4096", "--hidden", "256", "--repeats", "3", "--graph-calls", "4")
    result = logprob.run_gpu(args, rig)
    rows = result["rows"]
    for name in (logprob.LOGITS_TORCH, logprob.LOGITS_OURS, logprob.HIDDEN_TORCH, logprob.HIDDEN_OURS):
        row = rows[name]
        assert _measured(row), (name, row)
        assert row["forward"]["device_us"] > 0 and row["forward_backward"]["device_us"] > 0
        assert row["peak_extra_bytes"] > 0 and row["upstream_gradient"]["contiguous"]
    assert rows[logprob.LOGITS_OURS]["forward"]["device_method"] == CUDA_GRAPH, rows[logprob.LOGITS_OURS]
    # The profiler fallback measures the same call within a factor (no launch gaps counted).
    fn = _cuda_logits_call()
    prof = rig.timer.profiler_ms(fn, 4)
    graph = rig.timer.graph_ms(fn, 4, 3)
    assert prof > 0 and graph > 0 and 0.25 < prof / graph < 4, (prof, graph)


def _cuda_logits_call() -> Callable[[], Any]:
    x = torch.randn(1024, 4096, device="cuda")
    return lambda: torch.log_softmax(x, -1)


def test_verls_kernel_is_found_where_import_verl_fails() -> None:
    """ci/gpu carries verl's wheel but not Ray, which `import verl` needs: the bench still times verl's own
    kernel, imported without its package's __init__ (run in a fresh process where Ray cannot import)."""
    import subprocess

    script = ("import sys\nsys.modules['ray'] = None\n"
              "from verl_ext.bench import logprob\n"
              "fn, why = logprob._verl_kernel()\n"
              "print(getattr(fn, '__self__', fn).__module__, why)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["verl.utils.kernel.linear_cross_entropy", "None"], out.stderr[-2000:]
