"""``verl-ext bench sampling``: sampling from fp32 logits, unfiltered, with top-k + top-p, and (``--min-p``) with
min-p.

On a GPU, for each distribution (``peaked``: 8 dominant tokens over a Gaussian bulk; ``flat``: the Gaussian
bulk alone), batch size B and vocabulary V, in one run and on the same logits:

* FlashInfer's ``sampling_from_logits`` (unfiltered) and ``top_k_top_p_sampling_from_logits`` (filtered), when
  ``flashinfer`` imports (tokens only);
* vLLM's PyTorch path without filters: softmax, the exponential race ``argmax(p / q)`` with ``q ~ Exp(1)``,
  and the token's log-prob gathered from the log-softmax;
* the sort-based top-k/top-p path (the shape of vLLM's PyTorch fallback, :func:`sort_based`; tokens only);
* verl-ext's ``sample(..., backend="triton")``, unfiltered and with top-k + top-p, both returning log-probs;
* with ``--min-p``: FlashInfer's ``softmax`` then ``min_p_sampling_from_probs`` (tokens only), vLLM's PyTorch
  min-p path (softmax, mask below ``min_p`` times the largest probability, exponential race, the token's raw
  log-prob) and verl-ext's ``sample(..., min_p=...)`` with log-probs (min-p's cut: no threshold search);
* with ``--flashinfer-backend``: verl-ext's ``sample(..., backend="flashinfer")`` for tokens only, unfiltered
  and with top-k + top-p, against ``backend="triton"`` with log-probs: the figures behind ``backend="auto"``
  (FlashInfer for tokens-only calls; with log-probs that path adds Triton's threshold passes, so Triton).

Each contender is timed two ways (:mod:`verl_ext.bench.gpu_timing`: device time by CUDA-graph replay or the
profiler's kernel time, eager time by CUDA events); the ratios against the baselines and the goals of issue 34
use device time. verl-ext's draws are checked against the fp64 definition at every size. A contender that is
missing or fails says so in its row. On CPU: a small size, correctness only (kept sets and log-probs against
an fp64 reference), as timings there mean nothing for the kernels' purpose.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import math
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from verl_ext.bench.args import (
    UsageError,
    add_common_arguments,
    float_in,
    positive_float,
    positive_int,
    require_memory,
)
from verl_ext.bench.gpu_timing import GRAPH_CALLS, Rig, time_call
from verl_ext.bench.report import gpu_device, write_results

if TYPE_CHECKING:
    import torch

    from verl_ext.ops import SampleOutput
    from verl_ext.ops.sampling import Backend

#: Goals (issues 5 and 34), on an H100, judged on device time: at B=64 at most this many microseconds
#: unfiltered and with top-k + top-p (log-probs returned), at most FlashInfer's time for the same filtering
#: (FlashInfer returning tokens only), and at least this many times faster than the sort-based path from
#: B = SPEEDUP_FROM_B.
B64_UNFILTERED_MICROSECONDS = 30.0
B64_MICROSECONDS = 60.0
TRITON_OVER_FLASHINFER = 1.0
SPEEDUP_OVER_SORT = 10.0
SPEEDUP_FROM_B = 128

#: Defaults on a GPU.
DEFAULT_BATCHES = (1, 8, 64, 128, 256, 1024)
DEFAULT_VOCABS = (128256, 151936)
DISTRIBUTIONS = ("peaked", "flat")
#: Eager timing of one contender at one size stops after this many seconds (at least 3 calls).
EAGER_BUDGET_S = 0.3
#: Whole GPU run: sizes not started when it is spent are recorded as skipped (ci/gpu gives the stage 120 s).
DEFAULT_TIME_BUDGET_S = 90.0

FI_UNFILTERED = "flashinfer/sampling_from_logits"
FI_FILTERED = "flashinfer/top_k_top_p_sampling_from_logits"
FI_MIN_P = "flashinfer/softmax+min_p_sampling_from_probs"
VLLM_MIN_P = "vllm_torch/min_p"
OURS_MIN_P = "verl_ext/min_p"
VLLM_UNFILTERED = "vllm_torch/unfiltered"
SORT_FILTERED = "torch_sort/top_k_top_p"
OURS_UNFILTERED = "verl_ext/unfiltered"
OURS_FILTERED = "verl_ext/top_k_top_p"
VIA_FI_UNFILTERED = "verl_ext_flashinfer/unfiltered"
VIA_FI_FILTERED = "verl_ext_flashinfer/top_k_top_p"
#: Every contender of a row, in the order they run; with ``--min-p``, then the min-p ones.
CONTENDERS = (FI_UNFILTERED, FI_FILTERED, VLLM_UNFILTERED, SORT_FILTERED, OURS_UNFILTERED, OURS_FILTERED)
MIN_P_CONTENDERS = (FI_MIN_P, VLLM_MIN_P, OURS_MIN_P)
#: With ``--flashinfer-backend``, last: ``sample(..., backend="flashinfer")``, tokens only.
VIA_FI_CONTENDERS = (VIA_FI_UNFILTERED, VIA_FI_FILTERED)
#: Ratios of a row: (name, contender, baseline); device time of the contender over the baseline's.
RATIOS = (("verl_ext_unfiltered_over_flashinfer", OURS_UNFILTERED, FI_UNFILTERED),
          ("verl_ext_top_k_top_p_over_flashinfer", OURS_FILTERED, FI_FILTERED),
          ("verl_ext_unfiltered_over_vllm_torch", OURS_UNFILTERED, VLLM_UNFILTERED),
          ("verl_ext_top_k_top_p_over_sort", OURS_FILTERED, SORT_FILTERED))
#: Ratios of a row with ``--min-p`` (reported; the issue sets no min-p goal).
MIN_P_RATIOS = (("verl_ext_min_p_over_flashinfer", OURS_MIN_P, FI_MIN_P),
                ("verl_ext_min_p_over_vllm_torch", OURS_MIN_P, VLLM_MIN_P))
#: Ratios of a row with ``--flashinfer-backend``: verl-ext through FlashInfer (tokens only) over verl-ext's Triton
#: path (with log-probs); below 1, ``backend="auto"`` is right to take FlashInfer for tokens-only calls.
VIA_FI_RATIOS = (("flashinfer_backend_unfiltered_over_triton", VIA_FI_UNFILTERED, OURS_UNFILTERED),
                 ("flashinfer_backend_top_k_top_p_over_triton", VIA_FI_FILTERED, OURS_FILTERED))
#: Where FlashInfer's sampling functions are imported from.
FLASHINFER_SAMPLING = "flashinfer.sampling"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--batch", type=positive_int, nargs="+", default=None,
                   help=f"rows, one or more sizes (default: {' '.join(map(str, DEFAULT_BATCHES))} on a GPU; 64 on "
                        "CPU, first size only)")
    p.add_argument("--vocab", type=positive_int, nargs="+", default=None,
                   help=f"vocabulary, one or more sizes (default: {' '.join(map(str, DEFAULT_VOCABS))} on a GPU; "
                        "1000 on CPU, first size only)")
    p.add_argument("--distribution", choices=DISTRIBUTIONS, nargs="+", default=None,
                   help="logits: 'peaked' (8 dominant tokens over a Gaussian bulk) and/or 'flat' (the bulk alone) "
                        "(default: both on a GPU; peaked on CPU)")
    p.add_argument("--top-k", type=positive_int, default=50, help="tokens kept by top-k (at most the smallest --vocab)")
    p.add_argument("--top-p", type=float_in(0.0, 1.0, low_open=True), default=0.9,
                   help="probability mass kept by top-p, in (0, 1]")
    p.add_argument("--min-p", type=float_in(0.0, 1.0), default=0.0,
                   help="also time min-p sampling with this min_p, in (0, 1] (default 0: off; it adds three "
                        "contenders per size, so fewer sizes fit in --time-budget)")
    p.add_argument("--flashinfer-backend", action="store_true",
                   help="also time verl-ext's sample(..., backend='flashinfer') for tokens only against "
                        "backend='triton' (the figures behind backend='auto'; two more contenders per size)")
    p.add_argument("--repeats", type=positive_int, default=50,
                   help="eager calls timed by CUDA events per contender and size (GPU; the median counts, fewer "
                        "for slow calls)")
    p.add_argument("--graph-calls", type=positive_int, default=GRAPH_CALLS,
                   help="calls captured in one CUDA graph for device time (GPU; fewer for calls over 250 us)")
    p.add_argument("--time-budget", type=positive_float, default=DEFAULT_TIME_BUDGET_S,
                   help="seconds for the GPU run; sizes not started by then are recorded as skipped")
    add_common_arguments(p, "sampling")


def _logits(batch: int, vocab: int, device: str, kind: str = "peaked") -> torch.Tensor:
    """LLM-like fp32 logits (vLLM samples in fp32): a Gaussian bulk (sd 2), with 8 dominant tokens (+8) per row
    when ``kind`` is ``"peaked"``."""
    import torch

    g = torch.Generator(device=device).manual_seed(0)
    logits = torch.randn(batch, vocab, generator=g, device=device) * 2
    if kind == "flat":
        return logits
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


def vllm_unfiltered(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """vLLM's PyTorch sampling path with no filter: softmax, exponential race (``argmax(p / q)``, ``q ~
    Exp(1)``), and the sampled token's log-prob gathered from the log-softmax of the logits."""
    import torch

    probs = logits.softmax(-1, dtype=torch.float32)
    tok = probs.div_(torch.empty_like(probs).exponential_()).argmax(-1)
    return tok, logits.log_softmax(-1, dtype=torch.float32).gather(-1, tok[:, None])[:, 0]


def vllm_min_p(logits: torch.Tensor, min_p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """vLLM's PyTorch min-p path: softmax, tokens below ``min_p`` times the row's largest probability masked,
    exponential race over the rest, and the token's raw log-prob (from the unprocessed logits, as vLLM returns
    by default)."""
    import torch

    probs = logits.softmax(-1, dtype=torch.float32)
    masked = logits.masked_fill(probs < min_p[:, None] * probs.amax(-1, keepdim=True), float("-inf"))
    probs = masked.softmax(-1, dtype=torch.float32)
    tok = probs.div_(torch.empty_like(probs).exponential_()).argmax(-1)
    return tok, logits.log_softmax(-1, dtype=torch.float32).gather(-1, tok[:, None])[:, 0]


def flashinfer_min_p(fs: Any, logits: torch.Tensor, min_p: torch.Tensor) -> torch.Tensor:
    """FlashInfer's min-p from logits: its fused softmax, then ``min_p_sampling_from_probs`` (tokens only)."""
    return fs.min_p_sampling_from_probs(fs.softmax(logits), min_p)


def _against(z: torch.Tensor, kept: torch.Tensor, out: SampleOutput) -> tuple[torch.Tensor, float]:
    """Draws ``out`` against the fp64 logits ``z`` and a kept set: whether each token lies in the set, and the
    largest error of its log-prob against the log-softmax renormalised over the set."""
    import torch

    tok = out.token_ids[:, None]
    expected = torch.log_softmax(torch.where(kept, z, float("-inf")), -1).gather(1, tok)[:, 0]
    return kept.gather(1, tok)[:, 0], (out.logprobs.double() - expected).abs().max().item()


def _min_p_check(logits: torch.Tensor, min_p: float, backend: Backend) -> dict[str, Any]:
    """verl-ext's min-p draws against the fp64 definition: the kept set is ``{z >= max + log(min_p)}`` (a token
    within ``1e-5`` of that threshold may fall either side: thresholds are fp32), the tokens lie inside the set
    the sampler kept, and their log-probs are renormalised over it."""
    from verl_ext.ops import SampleOutput, kept_threshold, sample

    out = sample(logits, min_p=min_p, seed=0, return_logprobs=True, backend=backend)
    assert isinstance(out, SampleOutput)
    tau, _ = kept_threshold(logits, min_p=min_p, backend=backend)
    z = logits.double()
    t_min = z.max(-1, keepdim=True).values + math.log(min_p)
    kept = z >= tau.double()[:, None]
    set_ok = bool((kept | (z < t_min + 1e-5)).all() and (~kept | (z >= t_min - 1e-5)).all())
    in_set, err = _against(z, kept, out)
    return {"min_p": min_p, "min_p_kept_set_ok": set_ok, "min_p_inside_kept_set": float(in_set.double().mean()),
            "min_p_max_logprob_error": err, "min_p_ok": set_ok and bool(in_set.all()) and err < 1e-4}


def _check(logits: torch.Tensor, top_k: int, top_p: float, backend: Backend, min_p: float = 0.0) -> dict[str, Any]:
    """verl-ext's draws against the fp64 definition: inside the kept set, log-probs exact (filtered, unfiltered,
    and with ``min_p`` > 0 min-p alone)."""
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
    in_set, err = _against(z, kept, out)
    free = sample(logits, seed=0, return_logprobs=True, backend=backend)
    assert isinstance(free, SampleOutput)
    _, free_err = _against(z, torch.ones_like(kept), free)
    ok = bool(in_set.all()) and err < 1e-4 and free_err < 1e-4
    extra = _min_p_check(logits, min_p, backend) if min_p > 0 else {}
    return {"backend": backend, "inside_kept_set": float(in_set.double().mean()), "max_logprob_error": err,
            "unfiltered_max_logprob_error": free_err, **extra, "ok": ok and extra.get("min_p_ok", True)}


# ------------------------------------------------------------------------------------------------ GPU path
def flashinfer_sampling() -> tuple[Any, str | None]:
    """FlashInfer's sampling module, or why it is missing (ci/gpu passes its reason in
    ``VERL_EXT_NO_FLASHINFER_REASON`` when it left FlashInfer out)."""
    try:
        return importlib.import_module(FLASHINFER_SAMPLING), None
    except Exception as e:  # noqa: BLE001 - not installed, or a CUDA/JIT/library error at import
        why = os.environ.get("VERL_EXT_NO_FLASHINFER_REASON") or f"{type(e).__name__}: {e}"
        return None, " ".join(f"flashinfer unavailable: {why}".split())[:300]


def contenders(rig: Rig, logits: torch.Tensor, k: torch.Tensor, p: torch.Tensor, fs: Any,
               fs_missing: str | None, m: torch.Tensor | None = None,
               via_flashinfer: bool = False) -> dict[str, Callable[[], Any] | str]:
    """Each contender's call on these logits, or why it is missing; with per-row ``m``, the min-p ones too, and
    with ``via_flashinfer`` verl-ext's FlashInfer backend (tokens only)."""
    from verl_ext.ops import sample

    calls: dict[str, Callable[[], Any] | str] = {}
    if fs is None:
        calls[FI_UNFILTERED] = calls[FI_FILTERED] = fs_missing or "flashinfer unavailable"
    else:
        calls[FI_UNFILTERED] = functools.partial(fs.sampling_from_logits, logits)
        calls[FI_FILTERED] = functools.partial(fs.top_k_top_p_sampling_from_logits, logits, k, p,
                                               filter_apply_order="top_k_first")
    calls[VLLM_UNFILTERED] = functools.partial(vllm_unfiltered, logits)
    calls[SORT_FILTERED] = functools.partial(sort_based, logits, k, p)
    calls[OURS_UNFILTERED] = functools.partial(sample, logits, return_logprobs=True, backend=rig.backend)
    calls[OURS_FILTERED] = functools.partial(sample, logits, top_k=k, top_p=p, return_logprobs=True,
                                             backend=rig.backend)
    if m is not None:
        calls[FI_MIN_P] = (fs_missing or "flashinfer unavailable") if fs is None else \
            functools.partial(flashinfer_min_p, fs, logits, m)
        calls[VLLM_MIN_P] = functools.partial(vllm_min_p, logits, m)
        calls[OURS_MIN_P] = functools.partial(sample, logits, min_p=m, return_logprobs=True, backend=rig.backend)
    if via_flashinfer:
        why = (fs_missing or "flashinfer unavailable") if fs is None else None
        calls[VIA_FI_UNFILTERED] = why or functools.partial(sample, logits, backend="flashinfer")
        calls[VIA_FI_FILTERED] = why or functools.partial(sample, logits, top_k=k, top_p=p, backend="flashinfer")
    assert tuple(calls) == CONTENDERS + (MIN_P_CONTENDERS if m is not None else ()) \
        + (VIA_FI_CONTENDERS if via_flashinfer else ())
    return calls


def _device_us(row: dict[str, Any], name: str) -> float | None:
    return row["contenders"].get(name, {}).get("device_us")


def _row(rig: Rig, args: argparse.Namespace, kind: str, batch: int, vocab: int, fs: Any, fs_missing: str | None,
         no_graph: dict[str, str]) -> dict[str, Any]:
    import torch

    logits = _logits(batch, vocab, rig.device, kind)
    k = torch.full((batch,), args.top_k, dtype=torch.int32, device=rig.device)
    p = torch.full((batch,), args.top_p, device=rig.device)
    m = torch.full((batch,), args.min_p, device=rig.device) if args.min_p > 0 else None
    row: dict[str, Any] = {"distribution": kind, "batch": batch, "vocab": vocab, "contenders": {}}
    for name, call in contenders(rig, logits, k, p, fs, fs_missing, m, args.flashinfer_backend).items():
        if isinstance(call, str):
            row["contenders"][name] = {"missing": call}
            continue
        try:
            timing = time_call(rig, call, repeats=args.repeats, budget_s=EAGER_BUDGET_S, most_calls=args.graph_calls,
                               key=name, no_graph=no_graph)
        except Exception as e:  # noqa: BLE001 - one contender's failure (out of memory included) costs its row
            row["contenders"][name] = {"error": " ".join(f"{type(e).__name__}: {e}".split())[:300]}
            rig.memory.release()
        else:
            row["contenders"][name] = timing.as_dict()
    row["ratios"] = {}
    for ratio, mine, base in RATIOS + (MIN_P_RATIOS if m is not None else ()) \
            + (VIA_FI_RATIOS if args.flashinfer_backend else ()):
        a, b = _device_us(row, mine), _device_us(row, base)
        if a is not None and b:
            row["ratios"][ratio] = a / b
    try:
        row["check"] = _check(logits, args.top_k, args.top_p, rig.backend, args.min_p)
    except Exception as e:  # noqa: BLE001 - a failed check is a failed row, not a crashed bench
        row["check"] = {"ok": False, "error": " ".join(f"{type(e).__name__}: {e}".split())[:300]}
    del logits
    rig.memory.release()
    return row


def _cell(row: dict[str, Any], name: str) -> str:
    c = row["contenders"][name]
    if "device_us" not in c:
        return "    n/a " if "missing" in c else "    err "
    if c["device_us"] is None:
        return "      ? "
    return f"{c['device_us']:7.1f}" + ("*" if c["device_method"] == "profiler" else " ")


def print_header(min_p: bool = False, via_flashinfer: bool = False) -> None:
    print("device time per call, us (CUDA-graph replay; * the profiler's kernel sum; n/a: not installed, err: "
          "failed, ?: not measured, see the JSON); ratios of device times")
    extra = f" | {'FI mp':>8} {'vLLM mp':>8} {'ours mp':>8} | mp/FI mp/vLLM" if min_p else ""
    if via_flashinfer:
        extra += f" | {'ours/FI':>8} {'o/FI k+p':>8} | /ours  /kp"
    print(f"{'':>6} {'B':>5} {'V':>6} | {'FI':>8} {'FI k+p':>8} | {'vLLM':>8} {'sort':>8} | {'ours':>8} "
          f"{'ours k+p':>8} | ours/FI kp/FI ours/vLLM sort/kp{extra} draws")


def print_row(row: dict[str, Any]) -> None:
    r = row["ratios"]

    def ratio(name: str, invert: bool = False) -> str:
        v = r.get(name)
        return "    -" if not v else f"{(1 / v if invert else v):5.2f}"

    print(f"{row['distribution']:>6} {row['batch']:5d} {row['vocab']:6d} | {_cell(row, FI_UNFILTERED)} "
          f"{_cell(row, FI_FILTERED)} | {_cell(row, VLLM_UNFILTERED)} {_cell(row, SORT_FILTERED)} | "
          f"{_cell(row, OURS_UNFILTERED)} {_cell(row, OURS_FILTERED)} | "
          f"  {ratio('verl_ext_unfiltered_over_flashinfer')} {ratio('verl_ext_top_k_top_p_over_flashinfer')} "
          f"    {ratio('verl_ext_unfiltered_over_vllm_torch')}   {ratio('verl_ext_top_k_top_p_over_sort', True)} "
          + (f"| {_cell(row, FI_MIN_P)} {_cell(row, VLLM_MIN_P)} {_cell(row, OURS_MIN_P)} | "
             f"{ratio('verl_ext_min_p_over_flashinfer')}   {ratio('verl_ext_min_p_over_vllm_torch')} "
             if OURS_MIN_P in row["contenders"] else "")
          + (f"| {_cell(row, VIA_FI_UNFILTERED)} {_cell(row, VIA_FI_FILTERED)} | "
             f"{ratio('flashinfer_backend_unfiltered_over_triton')} "
             f"{ratio('flashinfer_backend_top_k_top_p_over_triton')} "
             if VIA_FI_UNFILTERED in row["contenders"] else "")
          + f"{'ok' if row['check'].get('ok') else 'FAILED'}")


def _worst(rows: list[dict[str, Any]], pick: Callable[[dict[str, Any]], float | None], at_most: bool, goal: float,
           what: str, missing: str, describe: Callable[[float], str]) -> dict[str, Any]:
    """A goal over rows: the worst value (largest for an upper bound); ``met`` is None when no row has it
    (``missing`` says why), False when one of verl-ext's own figures is missing."""
    values = [(pick(r), r) for r in rows]
    have = [(v, r) for v, r in values if v is not None]
    if not have:
        return {"value": None, "goal": goal, "at_most": at_most, "met": None, "detail": missing}
    v, r = (max if at_most else min)(have, key=lambda x: x[0])
    where = f"{r['distribution']} B={r['batch']} V={r['vocab']}"
    met = (v <= goal if at_most else v >= goal) and len(have) == len(values)
    detail = f"worst {describe(v)} at {where} ({what})"
    if len(have) < len(values):
        detail += f"; {len(values) - len(have)} row(s) without a figure"
    return {"value": v, "goal": goal, "at_most": at_most, "met": met, "detail": detail}


def _ratio(name: str, row: dict[str, Any]) -> float | None:
    return row["ratios"].get(name)


def goals(rows: list[dict[str, Any]], fs_missing: str | None) -> dict[str, dict[str, Any]]:
    """The goals, from device times; FlashInfer's absence leaves its goals ``met: None``."""
    done = [r for r in rows if "skipped" not in r]
    out: dict[str, dict[str, Any]] = {}
    fi_done = [r for r in done if "device_us" in r["contenders"].get(FI_UNFILTERED, {})]
    for name, ratio in (("unfiltered with log-probs <= flashinfer sampling_from_logits",
                         "verl_ext_unfiltered_over_flashinfer"),
                        ("top-k+top-p with log-probs <= flashinfer top_k_top_p_sampling_from_logits",
                         "verl_ext_top_k_top_p_over_flashinfer")):
        out[name] = _worst(fi_done, functools.partial(_ratio, ratio), True, TRITON_OVER_FLASHINFER,
                           "device time ratio", fs_missing or "no size measured FlashInfer", lambda v: f"{v:.2f}x")
    b64 = [r for r in done if r["batch"] == 64]
    out[f"B=64 unfiltered <= {B64_UNFILTERED_MICROSECONDS:g} us"] = _worst(
        b64, lambda r: _device_us(r, OURS_UNFILTERED), True, B64_UNFILTERED_MICROSECONDS, "device time",
        "no B=64 row", lambda v: f"{v:.1f} us")
    out[f"B=64 top-k+top-p <= {B64_MICROSECONDS:g} us"] = _worst(
        b64, lambda r: _device_us(r, OURS_FILTERED), True, B64_MICROSECONDS, "device time", "no B=64 row",
        lambda v: f"{v:.1f} us")

    def speedup(r: dict[str, Any]) -> float | None:
        v = r["ratios"].get("verl_ext_top_k_top_p_over_sort")
        return 1 / v if v else None

    out[f">= {SPEEDUP_OVER_SORT:g}x torch sort at B >= {SPEEDUP_FROM_B}"] = _worst(
        [r for r in done if r["batch"] >= SPEEDUP_FROM_B], speedup, False, SPEEDUP_OVER_SORT, "device time",
        f"no row with B >= {SPEEDUP_FROM_B}", lambda v: f"{v:.1f}x")
    checked = [r["check"].get("ok", False) for r in done]
    out["draws inside the kept set, exact log-probs"] = {
        "value": None, "goal": None, "at_most": None, "met": all(checked) if checked else None,
        "detail": f"fp64 check at {len(checked)} size(s)"}
    return out


def auto_choice(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per ``--flashinfer-backend`` ratio: at how many measured sizes verl-ext through FlashInfer (tokens only)
    was faster than its Triton path (with log-probs), the evidence for ``backend="auto"``'s tokens-only choice."""
    out = {}
    for name, _, _ in VIA_FI_RATIOS:
        have = [(r["ratios"][name], r) for r in rows if name in r.get("ratios", {})]
        faster = [f"{r['distribution']} B={r['batch']} V={r['vocab']}" for v, r in have if v < 1]
        out[name] = {"flashinfer_faster": len(faster), "measured": len(have), "sizes": faster,
                     "worst": max((v for v, _ in have), default=None)}
    return out


def run_gpu(args: argparse.Namespace, rig: Rig) -> dict[str, Any]:
    """The GPU path on ``rig``: every size and contender, the ratios and the goals (see the module docstring)."""
    start = time.monotonic()
    fs, fs_missing = flashinfer_sampling()
    if fs_missing:
        print(f"  {fs_missing}")
    batches, vocabs = args.batch or list(DEFAULT_BATCHES), args.vocab or list(DEFAULT_VOCABS)
    kinds = args.distribution or list(DISTRIBUTIONS)
    sizes = [(kind, b, v) for kind in kinds for v in vocabs for b in batches]
    rows: list[dict[str, Any]] = []
    no_graph: dict[str, str] = {}
    print_header(args.min_p > 0, args.flashinfer_backend)
    for kind, batch, vocab in tqdm(sizes, desc="sizes", disable=args.no_progress, leave=False):
        if time.monotonic() - start > args.time_budget:
            rows.append({"distribution": kind, "batch": batch, "vocab": vocab,
                         "skipped": f"the run's time budget ({args.time_budget:g} s) was spent"})
            continue
        rows.append(_row(rig, args, kind, batch, vocab, fs, fs_missing, no_graph))
        print_row(rows[-1])
    skipped = sum("skipped" in r for r in rows)
    if skipped:
        print(f"  {skipped} size(s) skipped: the run's time budget ({args.time_budget:g} s) was spent")
    for name, why in no_graph.items():
        print(f"  {name}: timed by the profiler ({why})")
    result_goals = goals(rows, fs_missing)
    for name, g in result_goals.items():
        print(f"  goal {name}: {({True: 'met', False: 'NOT met', None: 'not judged'})[g['met']]} ({g['detail']})")
    auto = auto_choice(rows) if args.flashinfer_backend else {}
    for name, a in auto.items():
        print(f"  backend='auto', tokens only ({name}): FlashInfer faster than Triton at {a['flashinfer_faster']} "
              f"of {a['measured']} size(s)")
    return {"sizes": {"batch": batches, "vocab": vocabs, "distribution": kinds,
                      "top_k": args.top_k, "top_p": args.top_p, "min_p": args.min_p, "dtype": "float32"},
            "rows": rows, "goals": result_goals, "flashinfer": fs is not None,
            **({"auto_tokens_only": auto} if args.flashinfer_backend else {}),
            **({"flashinfer_missing": fs_missing} if fs_missing else {}),
            "timing": {"device": "CUDA-graph replay of up to --graph-calls calls, median replay / calls; the "
                                 "profiler's kernel-time sum where a call cannot be captured (device_method)",
                       "eager": "CUDA events around each call, median", "goals_judged_on": "device_us"},
            "seconds": round(time.monotonic() - start, 1)}


def run(args: argparse.Namespace) -> int:
    import torch

    from verl_ext.ops._backend import interpreting

    gpu = torch.cuda.is_available()
    vocabs = args.vocab or (list(DEFAULT_VOCABS) if gpu else [1000])
    if args.top_k > min(vocabs):
        raise UsageError(f"argument --top-k: must be at most the vocabulary ({min(vocabs)}), got {args.top_k}")
    if not gpu:
        batch, vocab = (args.batch or [64])[0], vocabs[0]
        # fp64 logits, probabilities, sorted copies and masks per backend.
        require_memory(f"--batch {batch} --vocab {vocab}", 8 * 8 * batch * vocab)
        print(f"verl-ext bench sampling: no GPU; correctness only at B={batch}, V={vocab}, top-k {args.top_k}, "
              f"top-p {args.top_p}{f', min-p {args.min_p:g}' if args.min_p > 0 else ''} (CPU timings say nothing "
              "about the kernels)")
        logits = _logits(batch, vocab, "cpu")
        checks = [_check(logits, args.top_k, args.top_p, "torch", args.min_p)]
        if interpreting():
            checks.append(_check(logits, args.top_k, args.top_p, "triton", args.min_p))
        for c in checks:
            print(f"  {c['backend']:7s} inside kept set {c['inside_kept_set']:.3f}, "
                  f"max log-prob error vs fp64 {c['max_logprob_error']:.2e} (unfiltered "
                  f"{c['unfiltered_max_logprob_error']:.2e})"
                  + (f"; min-p {args.min_p:g}: inside {c['min_p_inside_kept_set']:.3f}, max log-prob error "
                     f"{c['min_p_max_logprob_error']:.2e}" if args.min_p > 0 else ""))
        ok = all(c["ok"] for c in checks)
        print(f"correctness: {'ok' if ok else 'FAILED'}")
        sizes = {"batch": batch, "vocab": vocab, "min_p": args.min_p}
        write_results(args.json, "sampling", {"sizes": sizes, "checks": checks, "ok": ok})
        return 0 if ok else 1
    from verl_ext.bench.gpu_timing import cuda_rig

    rig = cuda_rig()
    print(f"verl-ext bench sampling on {rig.name}")
    result = run_gpu(args, rig)
    write_results(args.json, "sampling", result, device=gpu_device())
    checked = [r["check"].get("ok") for r in result["rows"] if "skipped" not in r]
    return 0 if checked and all(checked) else 1
