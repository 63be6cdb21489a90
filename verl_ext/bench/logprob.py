"""``verl-ext bench logprob``: log-probs + entropy from logits and from hidden states.

On a GPU: median CUDA-event times of forward and backward and the peak memory above the inputs, for a
plain torch implementation, verl's ``linear_cross_entropy`` (from hidden states) and verl-ext, in one
run, with the goals of issue 4 (bandwidth floor, backward/forward ratio, bytes per token, TFLOP/s,
memory ratio). On CPU: a small size, correctness only (against fp64), as timings there mean nothing for
the kernels' purpose.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from verl_ext.bench.args import add_common_arguments, positive_int, require_memory
from verl_ext.bench.report import cuda_median_ms, gpu_device, write_results

if TYPE_CHECKING:
    import torch

#: Goals (issue 4); the floor is reading the bf16 logits once at the measured HBM bandwidth.
H100_BANDWIDTH = 3.0e12
FORWARD_FLOOR_FRACTION = 0.8
BACKWARD_OVER_FORWARD = 2.5
EXTRA_BYTES_PER_TOKEN = 16
HIDDEN_TFLOPS_GOAL = 550.0
HIDDEN_MEMORY_RATIO_GOAL = 30.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=positive_int, default=None,
                   help="tokens (default: 131072 on a GPU, scaled down to fit; 256 on CPU)")
    p.add_argument("--vocab", type=positive_int, default=None,
                   help="vocabulary (default: 128256 on a GPU; 1000 on CPU)")
    p.add_argument("--hidden", type=positive_int, default=None, help="hidden size (default: 4096 on a GPU; 64 on CPU)")
    p.add_argument("--repeats", type=positive_int, default=10, help="timed repetitions (GPU); the median counts")
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


def _peak_extra(fn: Callable[[], Any]) -> int:
    import torch

    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


def _fwd_bwd(make: Callable[[], tuple[torch.Tensor, ...]], op: Callable[..., Any],
             repeats: int) -> dict[str, float]:
    inputs = make()

    def forward() -> None:
        with torch.no_grad():
            op(*inputs)

    def both() -> None:
        lp, ent = op(*inputs)
        (lp.sum() + ent.sum()).backward()
        for t in inputs:
            t.grad = None

    fwd = cuda_median_ms(forward, repeats)
    total = cuda_median_ms(both, repeats)
    return {"forward_ms": fwd, "backward_ms": max(total - fwd, 0.0), "peak_extra_bytes": _peak_extra(both)}


def _gpu(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from verl_ext.ops import linear_logprobs, logprobs_from_logits

    vocab, hidden = args.vocab or 128256, args.hidden or 4096
    n = args.n or 131072
    free, _ = torch.cuda.mem_get_info()
    # Room for the torch baseline: bf16 logits, their gradient and ~3 fp32 copies.
    while n > 1024 and n * vocab * (2 + 2 + 12) > 0.8 * free:
        n //= 2
    if n != (args.n or 131072):
        print(f"  N scaled down to {n} to fit the torch baseline in {free / 2**30:.0f} GiB")
    dev, dt = "cuda", torch.bfloat16
    labels = torch.randint(0, vocab, (n,), device=dev)

    def logits_inputs() -> tuple[torch.Tensor, ...]:
        return (torch.randn(n, vocab, device=dev, dtype=dt).requires_grad_(True),)

    bar = tqdm(total=5, desc="contenders", disable=args.no_progress, leave=False)
    rows: dict[str, Any] = {"logits/torch": _fwd_bwd(logits_inputs, lambda x: _plain(x, labels), args.repeats)}
    bar.update()
    rows["logits/verl_ext"] = _fwd_bwd(logits_inputs, lambda x: logprobs_from_logits(x, labels, return_entropy=True),
                                       args.repeats)
    bar.update()
    torch.cuda.empty_cache()

    def hidden_inputs() -> tuple[torch.Tensor, ...]:
        return (torch.randn(n, hidden, device=dev, dtype=dt).requires_grad_(True),
                (torch.randn(vocab, hidden, device=dev, dtype=dt) * hidden**-0.5).requires_grad_(True))

    rows["hidden/torch"] = _fwd_bwd(hidden_inputs, lambda h, w: _plain(h @ w.T, labels), args.repeats)
    bar.update()
    try:
        from verl.utils.kernel.linear_cross_entropy import linear_cross_entropy

        rows["hidden/verl_linear_cross_entropy"] = _fwd_bwd(
            hidden_inputs, lambda h, w: linear_cross_entropy(h, w, labels, 1.0, "none"), args.repeats)
    except Exception as e:  # noqa: BLE001 - report why verl's kernel could not run
        rows["hidden/verl_linear_cross_entropy"] = {"error": repr(e)[:300]}
    bar.update()
    rows["hidden/verl_ext"] = _fwd_bwd(hidden_inputs, lambda h, w: linear_logprobs(h, w, labels, return_entropy=True),
                                       args.repeats)
    bar.update()
    bar.close()
    floor_ms = 2 * n * vocab / H100_BANDWIDTH * 1e3
    ours, base = rows["logits/verl_ext"], rows["hidden/verl_ext"]
    flops = 2 * n * hidden * vocab
    goals = {
        "logits_forward_floor_fraction": (floor_ms / ours["forward_ms"], FORWARD_FLOOR_FRACTION),
        "logits_backward_over_forward": (ours["backward_ms"] / ours["forward_ms"], BACKWARD_OVER_FORWARD),
        "logits_extra_bytes_per_token": (max(ours["peak_extra_bytes"] - 2 * n * vocab, 0) / n, EXTRA_BYTES_PER_TOKEN),
        "hidden_forward_tflops": (flops / (base["forward_ms"] * 1e-3) / 1e12, HIDDEN_TFLOPS_GOAL),
        "hidden_memory_ratio_vs_torch": (rows["hidden/torch"]["peak_extra_bytes"] / max(base["peak_extra_bytes"], 1),
                                         HIDDEN_MEMORY_RATIO_GOAL),
    }
    return {"sizes": {"n": n, "vocab": vocab, "hidden": hidden, "dtype": "bfloat16"}, "rows": rows,
            "goals": goals, "floor_ms_h100": floor_ms}


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
    print(f"verl-ext bench logprob on {torch.cuda.get_device_name()}")
    result = _gpu(args)
    for name, row in result["rows"].items():
        if "error" in row:
            print(f"  {name:<34} unavailable: {row['error']}")
        else:
            print(f"  {name:<34} fwd {row['forward_ms']:8.2f} ms  bwd {row['backward_ms']:8.2f} ms  "
                  f"peak extra {row['peak_extra_bytes'] / 2**30:7.2f} GiB")
    for k, (v, goal) in result["goals"].items():
        better = v <= goal if ("over" in k or "bytes" in k) else v >= goal
        print(f"goal {k}: {'met' if better else 'NOT met'} ({v:.2f} vs {goal})")
    result["goals"] = {k: {"value": v, "goal": g} for k, (v, g) in result["goals"].items()}
    write_results(args.json, "logprob", result, device=gpu_device())
    return 0
