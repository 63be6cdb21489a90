"""``verl-ext bench sampling``: top-k + top-p sampling from logits.

On a GPU: for B in {64, 128, 256} and V = 128256, median CUDA-event times of verl-ext's Triton path,
FlashInfer (when installed) and the sort-based torch path (the algorithm of vLLM's ``forward_native``), in
one run, with the goals of issue 5 and a correctness check of verl-ext's draws. On CPU: a small size,
correctness only (kept sets and log-probs against an fp64 reference), as timings there mean nothing for
the kernels' purpose.
"""

from __future__ import annotations

import argparse
import functools
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from verl_ext.bench.args import UsageError, add_common_arguments, float_in, positive_int, require_memory
from verl_ext.bench.report import cuda_median_ms, gpu_device, write_results

if TYPE_CHECKING:
    import torch

    from verl_ext.ops.sampling import Backend

#: Goals (issue 5), on an H100.
B64_MICROSECONDS = 60.0
SPEEDUP_OVER_SORT = 10.0
SPEEDUP_FROM_B = 128
TRITON_OVER_FLASHINFER = 1.5


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--batch", type=positive_int, nargs="+", default=None,
                   help="rows, one or more sizes (default: 64 128 256 on a GPU; 64 on CPU, first size only)")
    p.add_argument("--vocab", type=positive_int, default=None,
                   help="vocabulary (default: 128256 on a GPU; 1000 on CPU)")
    p.add_argument("--top-k", type=positive_int, default=50, help="tokens kept by top-k (at most --vocab)")
    p.add_argument("--top-p", type=float_in(0.0, 1.0, low_open=True), default=0.9,
                   help="probability mass kept by top-p, in (0, 1]")
    p.add_argument("--repeats", type=positive_int, default=50, help="timed repetitions (GPU); the median counts")
    add_common_arguments(p, "sampling")


def _logits(batch: int, vocab: int, device: str) -> torch.Tensor:
    """LLM-like logits: a few dominant tokens over a Gaussian bulk (fp32, as vLLM samples in fp32)."""
    import torch

    g = torch.Generator(device=device).manual_seed(0)
    logits = torch.randn(batch, vocab, generator=g, device=device) * 2
    top = torch.randint(0, vocab, (batch, 8), generator=g, device=device)
    return logits.scatter_add(1, top, torch.full((batch, 8), 8.0, device=device))


def sort_based(logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """The baseline: full sort, top-k and top-p masks, softmax, exponential-race draw."""
    import torch

    s, idx = logits.sort(-1, descending=False)
    kth = s.gather(1, (s.shape[1] - k.long())[:, None])
    s = s.masked_fill(s < kth, float("-inf"))
    cum = s.softmax(-1).cumsum(-1)
    mask = cum <= 1 - p[:, None]
    mask[:, -1] = False
    s = s.masked_fill(mask, float("-inf"))
    probs = torch.empty_like(s).scatter_(1, idx, s).softmax(-1)
    return probs.div_(torch.empty_like(probs).exponential_()).argmax(-1)


def _check(logits: torch.Tensor, top_k: int, top_p: float, backend: Backend) -> dict[str, Any]:
    """verl-ext's draws against the fp64 definition: inside the kept set, log-probs exact."""
    import torch

    from verl_ext.ops import SampleOutput, sample

    out = sample(logits, top_k=top_k, top_p=top_p, seed=0, return_logprobs=True, backend=backend)
    assert isinstance(out, SampleOutput)
    z = logits.double()
    s = z.sort(-1, descending=True).values
    kept = z >= s[:, top_k - 1:top_k]
    q = torch.where(kept, torch.softmax(z, -1), 0.0)
    q = q / q.sum(-1, keepdim=True)
    qs = torch.where(kept, q, -1.0).sort(-1, descending=True).values.clamp(min=0)
    above = qs.cumsum(-1) - qs
    floor = torch.where(above < top_p, qs, float("inf")).min(-1).values  # smallest kept probability
    kept &= q >= floor[:, None] * (1 - 1e-9)
    tok = out.token_ids
    in_set = kept.gather(1, tok[:, None])[:, 0]
    expected = torch.log(q.gather(1, tok[:, None])[:, 0] / torch.where(kept, q, 0.0).sum(-1))
    err = (out.logprobs.double() - expected).abs().max().item()
    return {"backend": backend, "inside_kept_set": float(in_set.double().mean()), "max_logprob_error": err,
            "ok": bool(in_set.all()) and err < 1e-4}


def _gpu(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from verl_ext.ops import sample
    from verl_ext.ops.sampling import flashinfer_available

    vocab = args.vocab or 128256
    rows = []
    for batch in tqdm(args.batch or [64, 128, 256], desc="batch sizes", disable=args.no_progress, leave=False):
        logits = _logits(batch, vocab, "cuda")
        k = torch.full((batch,), args.top_k, dtype=torch.int32, device="cuda")
        p = torch.full((batch,), args.top_p, device="cuda")
        row: dict[str, Any] = {"batch": batch, "vocab": vocab}
        row["triton_us"] = 1e3 * cuda_median_ms(
            functools.partial(sample, logits, top_k=k, top_p=p, backend="triton"),
                                                args.repeats)
        row["triton_with_logprobs_us"] = 1e3 * cuda_median_ms(
            functools.partial(sample, logits, top_k=k, top_p=p, return_logprobs=True, backend="triton"), args.repeats)
        row["torch_sort_us"] = 1e3 * cuda_median_ms(functools.partial(sort_based, logits, k, p), args.repeats)
        if flashinfer_available():
            import flashinfer.sampling as fs

            row["flashinfer_us"] = 1e3 * cuda_median_ms(
                functools.partial(fs.top_k_top_p_sampling_from_logits, logits, k, p,
                                  filter_apply_order="top_k_first"),
                args.repeats)
            row["triton_over_flashinfer"] = row["triton_us"] / row["flashinfer_us"]
        row["speedup_over_sort"] = row["torch_sort_us"] / row["triton_us"]
        row["check"] = _check(logits, args.top_k, args.top_p, "triton")
        rows.append(row)
        fi = f"{row['flashinfer_us']:8.1f}" if "flashinfer_us" in row else "     n/a"
        print(f"B={batch:4d} V={vocab}: verl-ext triton {row['triton_us']:8.1f} us "
              f"(+log-probs {row['triton_with_logprobs_us']:.1f}), flashinfer {fi} us, torch sort "
              f"{row['torch_sort_us']:8.1f} us -> {row['speedup_over_sort']:.1f}x sort; draws ok: {row['check']['ok']}")
    goals = _goals(rows)
    for name, (met, detail) in goals.items():
        print(f"  goal {name}: {'met' if met else 'NOT met'} ({detail})")
    return {"rows": rows, "goals": {n: {"met": m, "detail": d} for n, (m, d) in goals.items()},
            "flashinfer": flashinfer_available()}


def _goals(rows: list[dict[str, Any]]) -> dict[str, tuple[bool | None, str]]:
    goals: dict[str, tuple[bool | None, str]] = {}
    b64 = [r for r in rows if r["batch"] == 64]
    if b64:
        goals["B=64 <= 60 us"] = (b64[0]["triton_us"] <= B64_MICROSECONDS, f"{b64[0]['triton_us']:.1f} us")
    big = [r for r in rows if r["batch"] >= SPEEDUP_FROM_B]
    if big:
        worst = min(r["speedup_over_sort"] for r in big)
        goals[">= 10x torch sort at B >= 128"] = (worst >= SPEEDUP_OVER_SORT, f"worst {worst:.1f}x")
    with_fi = [r for r in rows if "triton_over_flashinfer" in r]
    if with_fi:
        worst = max(r["triton_over_flashinfer"] for r in with_fi)
        goals["triton <= 1.5x flashinfer"] = (worst <= TRITON_OVER_FLASHINFER, f"worst {worst:.2f}x")
    else:
        goals["triton <= 1.5x flashinfer"] = (None, "flashinfer-python not installed")
    goals["draws inside the kept set, exact log-probs"] = (all(r["check"]["ok"] for r in rows), "fp64 check")
    return goals


def run(args: argparse.Namespace) -> int:
    import torch

    from verl_ext.ops._backend import interpreting

    vocab = args.vocab or (128256 if torch.cuda.is_available() else 1000)
    if args.top_k > vocab:
        raise UsageError(f"argument --top-k: must be at most the vocabulary ({vocab}), got {args.top_k}")
    if not torch.cuda.is_available():
        batch, vocab = (args.batch or [64])[0], args.vocab or 1000
        # fp64 logits, probabilities, sorted copies and masks per backend.
        require_memory(f"--batch {batch} --vocab {vocab}", 8 * 8 * batch * vocab)
        print(f"verl-ext bench sampling: no GPU; correctness only at B={batch}, V={vocab}, top-k {args.top_k}, "
              f"top-p {args.top_p} (CPU timings say nothing about the kernels)")
        logits = _logits(batch, vocab, "cpu")
        checks = [_check(logits, args.top_k, args.top_p, "torch")]
        if interpreting():
            checks.append(_check(logits, args.top_k, args.top_p, "triton"))
        for c in checks:
            print(f"  {c['backend']:7s} inside kept set {c['inside_kept_set']:.3f}, "
                  f"max log-prob error vs fp64 {c['max_logprob_error']:.2e}")
        ok = all(c["ok"] for c in checks)
        print(f"correctness: {'ok' if ok else 'FAILED'}")
        write_results(args.json, "sampling", {"sizes": {"batch": batch, "vocab": vocab}, "checks": checks, "ok": ok})
        return 0 if ok else 1
    result = _gpu(args)
    write_results(args.json, "sampling", result, device=gpu_device())
    return 0 if all(r["check"]["ok"] for r in result["rows"]) else 1
