"""``verl-ext bench math``: verl's Python scorers vs verl-ext (one thread, all cores) on one batch."""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import time
from typing import Any

from tqdm import tqdm

from verl_ext import _core
from verl_ext.bench.args import add_common_arguments, non_negative_int, positive_int, require_memory, thread_count
from verl_ext.bench.corpus import Sample, make_batch, pathological
from verl_ext.bench.report import median_seconds, write_results
from verl_ext.reward.scoring import compute_score, compute_scores
from verl_ext.wording import counted

#: Goals from the foundation issue: >= 10x verl's loop on all cores; 1 MB inputs under 50 ms.
SPEEDUP_GOAL = 10.0
PATHOLOGICAL_MS_GOAL = 50.0
#: Batches are scored in chunks so the progress bar moves without timing Python per answer.
CHUNK = 256


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=positive_int, default=4096, help="answers in the batch")
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the generated batch")
    p.add_argument("--repeats", type=positive_int, default=5,
                   help="timed repetitions per contender; the median counts")
    p.add_argument("--threads", type=thread_count, default=0,
                   help="threads of the multi-threaded run (0: all cores)")
    add_common_arguments(p, "math")


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)
    return a == b


def _verl_loop(batch: list[Sample], bar: tqdm) -> list[Any]:
    from verl.utils.reward_score import default_compute_score

    out: list[Any] = []
    # verl's math_reward prints every exception it swallows; keep the terminal usable (and cheap).
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        for start in range(0, len(batch), CHUNK):
            out.extend(default_compute_score(s.data_source, s.solution, s.ground_truth)
                       for s in batch[start:start + CHUNK])
            bar.update(min(CHUNK, len(batch) - start))
    return out


def _verl_ext(batch: list[Sample], threads: int, bar: tqdm) -> list[Any]:
    out: list[Any] = []
    step = len(batch) if threads != 1 else CHUNK  # one call for the threaded run, so threads get whole batches
    for start in range(0, len(batch), step):
        chunk = batch[start:start + step]
        out.extend(compute_scores([s.data_source for s in chunk], [s.solution for s in chunk],
                                  [s.ground_truth for s in chunk], num_threads=threads))
        bar.update(len(chunk))
    return out


#: Memory of one generated answer with its verdicts, in bytes (measured ~1.5 KB; generous).
BYTES_PER_ANSWER = 4096


def run(args: argparse.Namespace) -> int:
    require_memory(f"--n {args.n}", args.n * BYTES_PER_ANSWER)
    batch = make_batch(args.n, args.seed)
    threads = args.threads or _core.default_num_threads()
    contenders = {"verl": lambda bar: _verl_loop(batch, bar),
                  "verl_ext_1_thread": lambda bar: _verl_ext(batch, 1, bar),
                  f"verl_ext_{threads}_threads": lambda bar: _verl_ext(batch, threads, bar)}
    print(f"verl-ext bench math: {len(batch)} answers (gsm8k, MATH, math_dapo/AIME; "
          f"{sum(len(s.solution) for s in batch) / len(batch):.0f} chars on average), "
          f"{counted(args.repeats, 'repeat')}")

    results: dict[str, list[Any]] = {}
    seconds: dict[str, float] = {}
    for name, fn in contenders.items():
        with tqdm(total=len(batch) * (args.repeats + 1), desc=f"{name:>20}", unit="ans",
                  disable=args.no_progress, leave=False) as bar:
            results[name] = fn(bar)  # warm-up, and the results compared below
            seconds[name] = median_seconds(functools.partial(fn, bar), args.repeats)

    reference = results["verl"]
    rows: list[dict[str, Any]] = []
    for name, secs in seconds.items():
        agree = sum(_same(a, b) for a, b in zip(results[name], reference, strict=True))
        rate = len(batch) / secs
        rows.append({"name": name, "median_s": secs, "answers_per_s": rate,
                     "ratio_vs_verl": seconds["verl"] / secs, "agreement": agree})
    print(f"{'contender':>22} {'answers/s':>12} {'x verl':>8} {'agree':>12}")
    for r in rows:
        print(f"{r['name']:>22} {r['answers_per_s']:>12,.0f} {r['ratio_vs_verl']:>8.1f} "
              f"{r['agreement']:>6}/{len(batch)}")

    worst_ms, worst = 0.0, ""
    for s in tqdm(pathological(), desc="1 MB pathological inputs", disable=args.no_progress, leave=False):
        start = time.perf_counter()
        try:
            compute_score(s.data_source, s.solution, s.ground_truth)
        except Exception as e:  # noqa: BLE001 - only the time matters here
            print(f"  {s.data_source}: raised {type(e).__name__}: {e}")
        ms = (time.perf_counter() - start) * 1e3
        if ms > worst_ms:
            worst_ms, worst = ms, s.data_source
    print(f"slowest 1 MB pathological input: {worst_ms:.1f} ms ({worst}); goal < {PATHOLOGICAL_MS_GOAL:.0f} ms")

    best = rows[-1]
    ok_speed = best["ratio_vs_verl"] >= SPEEDUP_GOAL
    ok_agree = all(r["agreement"] == len(batch) for r in rows)
    ok_latency = worst_ms < PATHOLOGICAL_MS_GOAL
    print(f"goal >= {SPEEDUP_GOAL:.0f}x verl on {threads} threads: {'met' if ok_speed else 'NOT met'} "
          f"({best['ratio_vs_verl']:.1f}x); agreement 100%: {'met' if ok_agree else 'NOT met'}; "
          f"1 MB < {PATHOLOGICAL_MS_GOAL:.0f} ms: {'met' if ok_latency else 'NOT met'}")

    write_results(args.json, "math", {
        "sizes": {"answers": len(batch), "threads": threads, "repeats": args.repeats, "seed": args.seed},
        "contenders": rows,
        "pathological_max_ms": round(worst_ms, 3),
        "goals": {"speedup": SPEEDUP_GOAL, "speedup_met": ok_speed, "agreement_met": ok_agree,
                  "pathological_ms": PATHOLOGICAL_MS_GOAL, "pathological_met": ok_latency},
    })
    # Disagreement is a correctness bug: fail loudly. Speed goals are reported, not enforced.
    return 0 if ok_agree and not math.isnan(best["ratio_vs_verl"]) else 1
