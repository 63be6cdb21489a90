"""``verl-ext bench logprob``: log-probs + entropy from logits and from hidden states.

On a GPU, in one run and on the same inputs (bf16, N tokens, vocabulary V, hidden size H):

* from logits ``[N, V]``: plain torch (fp32 log-softmax over the logits) and verl-ext's
  ``logprobs_from_logits``;
* from hidden states ``[N, H]`` and the output projection ``[V, H]``: plain torch (the logits materialised,
  then as above), verl's ``linear_cross_entropy`` (verl 0.9.1), Liger-Kernel's fused linear cross entropy
  when installed (the loss only: no entropy, and it takes only a scalar upstream gradient) and verl-ext's
  ``linear_logprobs``.

Each row: forward and forward+backward, each timed two ways (:mod:`verl_ext.bench.gpu_timing`: device time
by CUDA-graph replay or the profiler's kernel time, eager time by CUDA events), the peak memory above the
inputs, and its speed per token against the baselines. The backward gets a PPO-like upstream gradient,
that of ``(logprob * adv).sum() + (entropy * c).sum()`` with random ``adv`` and ``c``: contiguous fp32
vectors, passed to ``torch.autograd.backward`` (verl's kernel asserts its upstream gradients are contiguous;
``.sum()``'s would be a stride-0 expansion). The torch baselines are sized to the GPU's free memory (they
hold the fp32 log-softmax and its gradient), the other rows run at ``--n``; any row that still runs out of
memory halves its N until it fits, and a contender that is missing or fails says so in its row. The goals
(issue 34) are judged on device time.

On CPU: a small size, correctness only (against fp64), as timings there mean nothing for the kernels'
purpose.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from verl_ext.bench.args import add_common_arguments, positive_float, positive_int, require_memory
from verl_ext.bench.gpu_timing import GRAPH_CALLS, Rig, step_down, time_call
from verl_ext.bench.report import gpu_device, write_results

if TYPE_CHECKING:
    import torch

#: HBM bandwidth measured on each GPU (DESIGN.md): the forward's floor is reading the bf16 logits once.
H100_BANDWIDTH = 3.0e12
H200_BANDWIDTH = 4.3e12
#: Goals (issues 4 and 34), judged on device time. From logits: the forward reaches this share of the
#: one-read floor, the backward costs at most this many forwards, and the peak beyond the logits' own gradient
#: is at most this many bytes per token.
FORWARD_FLOOR_FRACTION = 0.8
BACKWARD_OVER_FORWARD = 2.5
EXTRA_BYTES_PER_TOKEN = 16
#: From hidden states: forward throughput, backward at most this many forwards, forward+backward this many
#: times faster than verl's ``linear_cross_entropy``, and a peak above the inputs of at most this much at
#: the goal's sizes (which hold the bf16 gradients of the weight, 1 GiB, and of the hidden states).
HIDDEN_TFLOPS_GOAL = 550.0
HIDDEN_BACKWARD_OVER_FORWARD = 3.0
HIDDEN_SPEEDUP_OVER_VERL = 1.5
HIDDEN_PEAK_EXTRA_BYTES = 1.5 * 2**30
HIDDEN_GOAL_SIZES = {"n": 16384, "hidden": 4096, "vocab": 128256}

#: Defaults on a GPU: the hidden-state goals' sizes.
DEFAULT_N, DEFAULT_VOCAB, DEFAULT_HIDDEN = 16384, 128256, 4096
#: Peak bytes per logit of the plain torch forward+backward beyond its input: the fp32 log-softmax and its
#: exp (saved), then in the backward their two products with the gradient and the exp's gradient, 5 x 4 B
#: (20.0 measured on CPU by tests/bench/test_logprob_bench.py), plus room for the CUDA allocator's rounding.
TORCH_EXTRA_BYTES_PER_LOGIT = 24
#: Share of the GPU's free memory a torch baseline is sized to.
GPU_MEMORY_SHARE = 0.8
#: No row steps down below this many tokens (below N / 64 for smaller N).
LEAST_N = 256
#: Eager timing of one phase of one row stops after this many seconds (at least 3 calls).
EAGER_BUDGET_S = 3.0
#: Whole GPU run: rows not started when it is spent are recorded as skipped (ci/gpu gives the stage 180 s).
DEFAULT_TIME_BUDGET_S = 140.0

LOGITS_TORCH, LOGITS_OURS = "logits/torch", "logits/verl_ext"
HIDDEN_TORCH, HIDDEN_VERL, HIDDEN_LIGER, HIDDEN_OURS = (
    "hidden/torch", "hidden/verl_linear_cross_entropy", "hidden/liger_fused_linear_cross_entropy", "hidden/verl_ext")
#: Every row the GPU run reports, and the baselines each section's rows are compared with.
ROWS = (LOGITS_TORCH, LOGITS_OURS, HIDDEN_TORCH, HIDDEN_VERL, HIDDEN_LIGER, HIDDEN_OURS)
BASELINES = {"logits": (LOGITS_TORCH,), "hidden": (HIDDEN_TORCH, HIDDEN_VERL)}
#: Where the optional contenders are imported from (module, function).
VERL_LINEAR_CROSS_ENTROPY = ("verl.utils.kernel.linear_cross_entropy", "linear_cross_entropy")
LIGER_FUSED_LINEAR_CROSS_ENTROPY = ("liger_kernel.transformers.functional", "liger_fused_linear_cross_entropy")
UPSTREAM = ("d/d(logprob, entropy) of (logprob * adv).sum() + (entropy * c).sum(): adv, c random contiguous "
            "fp32 [N], passed to torch.autograd.backward")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=positive_int, default=None,
                   help=f"tokens (default: {DEFAULT_N} on a GPU, the torch baselines sized down to the free memory; "
                        "256 on CPU)")
    p.add_argument("--vocab", type=positive_int, default=None,
                   help=f"vocabulary (default: {DEFAULT_VOCAB} on a GPU; 1000 on CPU)")
    p.add_argument("--hidden", type=positive_int, default=None,
                   help=f"hidden size (default: {DEFAULT_HIDDEN} on a GPU; 64 on CPU)")
    p.add_argument("--repeats", type=positive_int, default=10,
                   help="eager calls timed by CUDA events per phase (GPU; the median counts, fewer for slow calls)")
    p.add_argument("--graph-calls", type=positive_int, default=GRAPH_CALLS,
                   help="calls captured in one CUDA graph for device time (GPU; fewer for calls over 250 us)")
    p.add_argument("--time-budget", type=positive_float, default=DEFAULT_TIME_BUDGET_S,
                   help="seconds for the GPU run; rows not started by then are recorded as skipped")
    add_common_arguments(p, "logprob")


def _plain(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The unfused path: fp32 log-softmax over the whole [N, V]."""
    import torch

    logp = torch.log_softmax(logits.float(), -1)
    return logp.gather(-1, labels[:, None])[:, 0], -(logp.exp() * logp).sum(-1)


def _check_cpu(n: int, vocab: int, hidden: int) -> dict[str, Any]:
    import torch

    from verl_ext.ops import linear_logprobs, logprobs_from_logits

    g = torch.Generator().manual_seed(0)
    h = torch.randn(n, hidden, generator=g)
    w = torch.randn(vocab, hidden, generator=g) * hidden**-0.5
    labels = torch.randint(0, vocab, (n,), generator=g)
    logits = h @ w.T
    ref_lp, ref_ent = _plain(logits.double(), labels)
    lp, ent = logprobs_from_logits(logits, labels, return_entropy=True)
    lp2, ent2 = linear_logprobs(h, w, labels, return_entropy=True, chunk_tokens=64, chunk_vocab=256)
    errs = {"logits_logprob": (lp.double() - ref_lp).abs().max().item(),
            "logits_entropy": (ent.double() - ref_ent).abs().max().item(),
            "hidden_logprob": (lp2.double() - ref_lp).abs().max().item(),
            "hidden_entropy": (ent2.double() - ref_ent).abs().max().item()}
    return {"max_abs_error_vs_fp64": errs, "ok": all(e < 1e-4 for e in errs.values())}


# ------------------------------------------------------------------------------------------------ GPU path
@dataclasses.dataclass(frozen=True)
class Contender:
    """A row: ``op(*inputs, labels)`` returns ``(logprob, entropy)``, or ``(loss,)`` for a loss-only
    contender; ``op`` is ``None`` when the contender is missing (``missing`` says why)."""

    name: str
    op: Callable[..., tuple[torch.Tensor, ...]] | None
    missing: str | None = None
    note: str | None = None
    #: Sized to the free memory before it runs (the torch baselines, which materialise fp32 logits).
    sized_to_memory: bool = False


def _optional(module: str, attr: str) -> tuple[Callable[..., Any] | None, str | None]:
    """A function from an optional package, or why it cannot be had (not installed, or failing to import)."""
    try:
        return getattr(importlib.import_module(module), attr), None
    except Exception as e:  # noqa: BLE001 - a missing or broken package costs only its row
        return None, " ".join(f"{module}.{attr} unavailable: {type(e).__name__}: {e}".split())[:300]


#: The packages between ``verl`` and its kernel module, stood in for when ``import verl`` fails (below).
_VERL_KERNEL_PACKAGES = ("verl", "verl.utils", "verl.utils.kernel", "verl.plugin")


def _verl_kernel() -> tuple[Callable[..., Any] | None, str | None]:
    """verl's ``linear_cross_entropy``. ``import verl`` runs its package's ``__init__``, which pulls in Ray and
    DataProto (80 MB more than a GPU box for benchmarks may carry, ci/gpu's); the kernel itself needs only
    torch, triton and two of verl's small modules. So where ``import verl`` fails, verl's own kernel files
    are imported under package stand-ins that skip those ``__init__`` files: the same code, timed as is.
    Nothing else in this process could have imported verl anyway."""
    fn, missing = _optional(*VERL_LINEAR_CROSS_ENTROPY)
    if fn is not None:
        return fn, None
    import importlib.util
    import sys
    import types

    try:
        importlib.import_module("verl")
    except Exception:  # noqa: BLE001 - whatever stops verl's __init__ (Ray missing, most often)
        spec = importlib.util.find_spec("verl")
    else:
        return None, missing  # verl imports: its kernel itself is what is missing or broken
    if spec is None or not spec.submodule_search_locations:
        return None, missing
    root = next(iter(spec.submodule_search_locations))
    for name in [m for m in sys.modules if m == "verl" or m.startswith("verl.")]:
        del sys.modules[name]  # what the failed import left half-done
    for name in _VERL_KERNEL_PACKAGES:
        package = types.ModuleType(name)
        package.__path__ = [os.path.join(root, *name.split(".")[1:])]
        sys.modules[name] = package
    fn, why = _optional(*VERL_LINEAR_CROSS_ENTROPY)
    return (fn, None) if fn is not None else (None, f"{missing}; without verl's package init: {why}")


LIGER_NOTE = ("loss only (no entropy); Liger computes the gradients in its forward and takes only a scalar "
              "upstream gradient, so its backward gets d(loss.sum()) = 1")


def contenders(rig: Rig) -> list[Contender]:
    """The rows, in the order they run (a section's torch baseline first)."""
    from verl_ext.ops import linear_logprobs, logprobs_from_logits

    verl, verl_missing = _verl_kernel()
    liger, liger_missing = _optional(*LIGER_FUSED_LINEAR_CROSS_ENTROPY)

    def verl_op(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        assert verl is not None
        return tuple(verl(h, w, y, 1.0, "none"))

    def liger_op(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        assert liger is not None
        out = liger(h, w, y, reduction="sum")
        # Liger versions return the loss bare, first in a tuple with the z-loss, or as an object's ``loss``.
        return (out[0] if isinstance(out, (tuple, list)) else getattr(out, "loss", out),)

    def ours_hidden(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = linear_logprobs(h, w, y, return_entropy=True, backend=rig.backend)
        assert isinstance(out, tuple)
        return out

    return [Contender(LOGITS_TORCH, _plain, sized_to_memory=True),
            Contender(LOGITS_OURS, lambda x, y: logprobs_from_logits(x, y, return_entropy=True, backend=rig.backend)),
            Contender(HIDDEN_TORCH, lambda h, w, y: _plain(h @ w.T, y), sized_to_memory=True),
            Contender(HIDDEN_VERL, verl_op if verl else None, verl_missing),
            Contender(HIDDEN_LIGER, liger_op if liger else None, liger_missing, note=LIGER_NOTE),
            Contender(HIDDEN_OURS, ours_hidden)]


@dataclasses.dataclass
class _Inputs:
    """What the rows share: sizes, labels and the upstream gradient's vectors (for the largest N)."""

    n: int
    vocab: int
    hidden: int
    labels: torch.Tensor
    adv: torch.Tensor
    ent_coef: torch.Tensor


def _make(rig: Rig, section: str, s: _Inputs, n: int) -> tuple[torch.Tensor, ...]:
    import torch

    dev, dt = rig.device, torch.bfloat16
    if section == "logits":
        return (torch.randn(n, s.vocab, device=dev, dtype=dt).requires_grad_(True),)
    return (torch.randn(n, s.hidden, device=dev, dtype=dt).requires_grad_(True),
            (torch.randn(s.vocab, s.hidden, device=dev, dtype=dt) * s.hidden**-0.5).requires_grad_(True))


def upstream(outputs: tuple[torch.Tensor, ...], adv: torch.Tensor, ent_coef: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The upstream gradient of ``(logprob * adv).sum() + (entropy * ent_coef).sum()`` for each output:
    a contiguous slice of ``adv`` / ``ent_coef`` for ``[N]`` outputs, 1 for a scalar loss."""
    import torch

    grads = []
    for out, vec in zip(outputs, (adv, ent_coef)[:len(outputs)], strict=True):
        g = vec[:out.shape[0]].to(out.dtype) if out.dim() == 1 else torch.ones_like(out)
        if not g.is_contiguous():  # the vectors are made contiguous; a slice of one stays so
            raise AssertionError("upstream gradient is not contiguous")
        grads.append(g)
    return tuple(grads)


def _measure(rig: Rig, c: Contender, section: str, s: _Inputs, n: int, *, args: argparse.Namespace,
             no_graph: dict[str, str]) -> dict[str, Any]:
    """Forward and forward+backward of one contender at ``n`` tokens: both timings, peak memory."""
    import torch

    assert c.op is not None
    op = c.op
    inputs = _make(rig, section, s, n)
    labels = s.labels[:n]
    detached = tuple(t.detach() for t in inputs)
    seen: dict[str, bool] = {}

    def forward() -> None:
        with torch.no_grad():
            op(*detached, labels)

    def forward_backward() -> None:
        outs = op(*inputs, labels)
        grads = upstream(outs, s.adv, s.ent_coef)
        seen["contiguous"] = all(g.is_contiguous() for g in grads)
        torch.autograd.backward(outs, grads)
        for t in inputs:
            t.grad = None

    timed = {"repeats": args.repeats, "budget_s": EAGER_BUDGET_S, "most_calls": args.graph_calls}
    fwd = time_call(rig, forward, key=f"{c.name}/forward", no_graph=no_graph, **timed)
    both = time_call(rig, forward_backward, key=f"{c.name}/forward_backward", no_graph=no_graph, **timed)
    row: dict[str, Any] = {"forward": fwd.as_dict(), "forward_backward": both.as_dict()}
    if fwd.device_us is not None and both.device_us is not None:
        row["backward_device_us"] = max(both.device_us - fwd.device_us, 0.0)
    row["backward_eager_us"] = max(both.eager_us - fwd.eager_us, 0.0)
    row["forward_peak_extra_bytes"] = rig.memory.peak_extra_bytes(forward)
    row["peak_extra_bytes"] = rig.memory.peak_extra_bytes(forward_backward)
    row["upstream_gradient"] = {"contiguous": seen["contiguous"], "form": UPSTREAM}
    return row


def _baseline_n(rig: Rig, section: str, s: _Inputs) -> int:
    """The largest N (``s.n`` halved) at which a torch baseline's forward+backward fits the free memory."""
    per_token = s.vocab * (2 + TORCH_EXTRA_BYTES_PER_LOGIT)  # its bf16 input (logits or their matmul) and more
    fixed = 0
    if section == "hidden":  # hidden states and weights, with their bf16 gradients
        per_token += 2 * 2 * s.hidden
        fixed = 2 * 2 * s.vocab * s.hidden
    rig.memory.release()
    room = GPU_MEMORY_SHARE * rig.memory.free_bytes()
    n = s.n
    while n // 2 >= _least(s.n) and fixed + n * per_token > room:
        n //= 2
    if n != s.n:
        print(f"  {section} torch baseline: N={n} fits {room / 2**30:.1f} GiB ({GPU_MEMORY_SHARE:.0%} of the free "
              f"memory; {TORCH_EXTRA_BYTES_PER_LOGIT} + 2 B per logit); the other rows run at N={s.n}")
    return n


def _least(n: int) -> int:
    return max(1, min(LEAST_N, n // 64))


def _per_token(row: dict[str, Any], phase: str) -> float | None:
    us = row.get(phase, {}).get("device_us") if "error" not in row and "missing" not in row else None
    return None if us is None else us / row["n"]


def _ratios(rows: dict[str, dict[str, Any]]) -> None:
    """Each row's speed-up per token against its section's baselines (device time; > 1: faster)."""
    for name, row in rows.items():
        section = name.split("/")[0]
        out: dict[str, dict[str, float]] = {}
        for base in BASELINES[section]:
            if base == name or base not in rows:
                continue
            pair = {}
            for phase in ("forward", "forward_backward"):
                mine, theirs = _per_token(row, phase), _per_token(rows[base], phase)
                if mine and theirs:
                    pair[phase] = theirs / mine
            if pair:
                out[base] = pair
        if out:
            row["speedup_per_token_vs"] = out


def bandwidth(device_name: str) -> float:
    """HBM bytes/s for the floor: the H200's where the device says H200, else the H100's."""
    return H200_BANDWIDTH if "h200" in device_name.lower() else H100_BANDWIDTH


def _goal(value: float | None, goal: float, at_most: bool, detail: str = "") -> dict[str, Any]:
    met = None if value is None else (value <= goal if at_most else value >= goal)
    return {"value": value, "goal": goal, "at_most": at_most, "met": met, **({"detail": detail} if detail else {})}


def goals(rows: dict[str, dict[str, Any]], s: _Inputs, bytes_per_s: float) -> dict[str, dict[str, Any]]:
    """The goals, from device times (and peak memory); a goal whose figures are missing is ``met: None``
    with the reason."""

    def device(row: dict[str, Any], phase: str) -> float | None:
        return None if "error" in row or "missing" in row else row[phase].get("device_us")

    def why(row: dict[str, Any]) -> str:
        return row.get("error") or row.get("missing") or "no device time"

    out: dict[str, dict[str, Any]] = {}
    lg = rows.get(LOGITS_OURS, {"error": "not run"})
    fwd, bwd = device(lg, "forward"), lg.get("backward_device_us")
    if fwd and bwd is not None:
        n = lg["n"]
        floor_us = 2 * n * s.vocab / bytes_per_s * 1e6
        out["logits_forward_floor_fraction"] = _goal(floor_us / fwd, FORWARD_FLOOR_FRACTION, False,
                                                     f"floor {floor_us:.0f} us at {bytes_per_s / 1e12:.1f} TB/s")
        out["logits_backward_over_forward"] = _goal(bwd / fwd, BACKWARD_OVER_FORWARD, True)
        out["logits_extra_bytes_per_token"] = _goal(max(lg["peak_extra_bytes"] - 2 * n * s.vocab, 0) / n,
                                                    EXTRA_BYTES_PER_TOKEN, True,
                                                    "peak above the logits and their bf16 gradient")
    else:
        for k, g, at_most in (("logits_forward_floor_fraction", FORWARD_FLOOR_FRACTION, False),
                              ("logits_backward_over_forward", BACKWARD_OVER_FORWARD, True),
                              ("logits_extra_bytes_per_token", EXTRA_BYTES_PER_TOKEN, True)):
            out[k] = {**_goal(None, g, at_most, why(lg)), "met": False}
    hd = rows.get(HIDDEN_OURS, {"error": "not run"})
    fwd, bwd, both = device(hd, "forward"), hd.get("backward_device_us"), device(hd, "forward_backward")
    names = (("hidden_forward_tflops", HIDDEN_TFLOPS_GOAL, False),
             ("hidden_backward_over_forward", HIDDEN_BACKWARD_OVER_FORWARD, True),
             ("hidden_peak_extra_gib", HIDDEN_PEAK_EXTRA_BYTES / 2**30, True),
             ("hidden_speedup_over_verl", HIDDEN_SPEEDUP_OVER_VERL, False))
    if not (fwd and both and bwd is not None):
        for k, g, at_most in names:
            out[k] = {**_goal(None, g, at_most, why(hd)), "met": False}
        return out
    n = hd["n"]
    out["hidden_forward_tflops"] = _goal(2 * n * s.hidden * s.vocab / (fwd * 1e-6) / 1e12, HIDDEN_TFLOPS_GOAL, False)
    out["hidden_backward_over_forward"] = _goal(bwd / fwd, HIDDEN_BACKWARD_OVER_FORWARD, True)
    sizes = {"n": n, "hidden": s.hidden, "vocab": s.vocab}
    peak = _goal(hd["peak_extra_bytes"] / 2**30, HIDDEN_PEAK_EXTRA_BYTES / 2**30, True,
                 "peak above hidden states and weights, their bf16 gradients included")
    if sizes != HIDDEN_GOAL_SIZES:
        peak.update(met=None, detail=f"measured at {sizes}; the goal is stated at {HIDDEN_GOAL_SIZES}")
    out["hidden_peak_extra_gib"] = peak
    verl = rows.get(HIDDEN_VERL, {"missing": "not run"})
    theirs = device(verl, "forward_backward")
    if theirs is None:
        out["hidden_speedup_over_verl"] = _goal(None, HIDDEN_SPEEDUP_OVER_VERL, False, f"verl: {why(verl)}")
    else:
        out["hidden_speedup_over_verl"] = _goal((theirs / verl["n"]) / (both / n), HIDDEN_SPEEDUP_OVER_VERL, False,
                                                "forward+backward per token")
    return out


def run_gpu(args: argparse.Namespace, rig: Rig) -> dict[str, Any]:
    """The GPU path on ``rig``: every row, the ratios and the goals (see the module docstring)."""
    import torch

    start = time.monotonic()
    n = args.n or DEFAULT_N
    vocab, hidden = args.vocab or DEFAULT_VOCAB, args.hidden or DEFAULT_HIDDEN
    g = torch.Generator(device=rig.device).manual_seed(0)
    s = _Inputs(n, vocab, hidden, torch.randint(0, vocab, (n,), device=rig.device, generator=g),
                torch.randn(n, device=rig.device, generator=g), torch.randn(n, device=rig.device, generator=g))
    rows: dict[str, dict[str, Any]] = {}
    no_graph: dict[str, str] = {}
    todo = contenders(rig)
    for c in tqdm(todo, desc="contenders", disable=args.no_progress, leave=False):
        section = c.name.split("/")[0]
        if c.op is None:
            rows[c.name] = {"missing": c.missing}
        elif time.monotonic() - start > args.time_budget:
            rows[c.name] = {"error": f"skipped: the run's time budget ({args.time_budget:g} s) was spent"}
        else:
            first = _baseline_n(rig, section, s) if c.sized_to_memory else n
            measure = functools.partial(_measure, rig, c, section, s, args=args, no_graph=no_graph)
            rows[c.name] = step_down(measure, first, least=_least(n), memory=rig.memory, what=c.name)
            if first != n:
                rows[c.name]["sized_to_free_memory_from"] = n
        if c.note:
            rows[c.name]["note"] = c.note
        rig.memory.release()
    _ratios(rows)
    bytes_per_s = bandwidth(rig.name)
    return {"sizes": {"n": n, "vocab": vocab, "hidden": hidden, "dtype": "bfloat16"}, "rows": rows,
            "goals": goals(rows, s, bytes_per_s), "bandwidth_bytes_per_s": bytes_per_s,
            "timing": {"device": "CUDA-graph replay of up to --graph-calls calls, median replay / calls; the "
                                 "profiler's kernel-time sum where a call cannot be captured (device_method)",
                       "eager": "CUDA events around each call, median", "goals_judged_on": "device_us"},
            "seconds": round(time.monotonic() - start, 1)}


def _ms(us: float | None) -> str:
    return "     n/a" if us is None else f"{us / 1e3:8.2f}"


def print_report(result: dict[str, Any]) -> None:
    print("  device time per call (graph replay, or * the profiler's kernel sum) / eager time (CUDA events), ms")
    for name, row in result["rows"].items():
        if "missing" in row or "error" in row:
            print(f"  {name:<40} unavailable: {row.get('missing') or row.get('error')}")
            continue
        f, b = row["forward"], row["forward_backward"]
        star = "*" if "profiler" in (f["device_method"], b["device_method"]) else " "
        speed = "; ".join(f"{base.split('/')[1]} x{r.get('forward_backward', float('nan')):.2f}"
                          for base, r in row.get("speedup_per_token_vs", {}).items())
        print(f"  {name:<40} N={row['n']:<6} fwd {_ms(f['device_us'])}{star}/{_ms(f['eager_us'])}  bwd "
              f"{_ms(row.get('backward_device_us'))}{star}/{_ms(row['backward_eager_us'])}  peak extra "
              f"{row['peak_extra_bytes'] / 2**30:6.2f} GiB" + (f"  fwd+bwd per token: {speed}" if speed else ""))
        if row.get("note"):
            print(f"  {'':<40} ({row['note']})")
    for k, g in result["goals"].items():
        verdict = {True: "met", False: "NOT met", None: "not judged"}[g["met"]]
        value = "n/a" if g["value"] is None else f"{g['value']:.2f}"
        print(f"goal {k} {'<=' if g['at_most'] else '>='} {g['goal']:g}: {verdict} ({value}"
              + (f"; {g['detail']}" if g.get("detail") else "") + ")")


def run(args: argparse.Namespace) -> int:
    import torch

    if not torch.cuda.is_available():
        n, vocab, hidden = args.n or 256, args.vocab or 1000, args.hidden or 64
        # fp64 logits, their gradients and a few copies per backend, and the weights.
        require_memory(f"--n {n} --vocab {vocab} --hidden {hidden}", 8 * (8 * n * vocab + 3 * hidden * vocab))
        print(f"verl-ext bench logprob: no GPU; correctness only at N={n}, V={vocab}, H={hidden} (CPU timings "
              "say nothing about the kernels)")
        result = _check_cpu(n, vocab, hidden)
        for k, v in result["max_abs_error_vs_fp64"].items():
            print(f"  {k:<16} max |error| vs fp64 {v:.2e}")
        print(f"correctness: {'ok' if result['ok'] else 'FAILED'}")
        write_results(args.json, "logprob", {"sizes": {"n": n, "vocab": vocab, "hidden": hidden}, **result})
        return 0 if result["ok"] else 1
    from verl_ext.bench.gpu_timing import cuda_rig

    rig = cuda_rig()
    print(f"verl-ext bench logprob on {rig.name}")
    result = run_gpu(args, rig)
    print_report(result)
    write_results(args.json, "logprob", result, device=gpu_device())
    ours_failed = any("error" in result["rows"][k] for k in (LOGITS_OURS, HIDDEN_OURS))
    return 1 if ours_failed else 0
