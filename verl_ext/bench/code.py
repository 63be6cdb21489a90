"""``verl-ext bench code``: code rewards end to end from a DataProto, verl's managers vs verl-ext.

Contenders, on the same batch and cores in one run: (a) verl's naive reward manager with prime_code,
(b) verl's prime reward manager (process pool), (c) verl-ext's batch manager (sandboxed).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verl_ext.bench.args import add_common_arguments, int_in
from verl_ext.bench.humaneval import PROBLEMS
from verl_ext.bench.report import write_results

#: Goals of issue #3.
THROUGHPUT_GOAL_NAIVE = 10.0
THROUGHPUT_GOAL_PRIME = 3.0
CORRECT_PER_CORE_GOAL = 150.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--problems", type=int_in(1, PROBLEMS), default=40,
                   help=f"HumanEval problems read, of {PROBLEMS} (those with asserts of the form candidate(...) == "
                        "<literal> are used, 154 in all): three completions each (correct, wrong, crashing)")
    p.add_argument("--slow", type=int_in(0, PROBLEMS), default=1,
                   help="slow completions, one per problem from the first (each costs verl ~15 s or more)")
    p.add_argument("--adversarial", type=int_in(0, PROBLEMS), default=4,
                   help="adversarial completions, one per problem from the first")
    p.add_argument("--skip-prime", action="store_true", help="leave out verl's prime reward manager")
    add_common_arguments(p, "code")


def _cpu_seconds() -> float:
    """Busy CPU time of the whole machine (/proc/stat): sandboxed programs are children of a zygote and
    pool workers of Ray or multiprocessing, so no process's rusage sees all of a contender's work."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def _progress(desc: str, total: int, quiet: bool, *, ticking: bool = False) -> Iterator[tqdm]:
    """A progress bar on stderr (made before ``_timed`` silences stderr, so it keeps the real one). With
    ``ticking``, for a contender scored in one opaque call, a thread redraws it every second so the elapsed
    time moves (no ETA there)."""
    bar = tqdm(total=total, desc=f"{desc:>22}", unit="compl", disable=quiet, leave=False, file=sys.stderr)
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(1.0):
            bar.refresh()

    ticker = threading.Thread(target=tick, daemon=True) if ticking and not quiet else None
    if ticker is not None:
        ticker.start()
    try:
        yield bar
    finally:
        stop.set()
        if ticker is not None:
            ticker.join()
        bar.close()


def _timed(fn: Any) -> tuple[list[float], float, float]:
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        scores = fn()
    return scores, time.perf_counter() - t0, _cpu_seconds() - cpu0


def _start_cost_ms(runs: int = 60) -> dict[str, float]:
    """Wall ms per empty program, one at a time: a new interpreter per execution vs a zygote's fork."""
    from verl_ext import sandbox

    out = {}
    old = os.environ.get("VERL_EXT_SANDBOX_WARM")
    try:
        for name, flag in (("cold", "0"), ("warm", "1")):
            os.environ["VERL_EXT_SANDBOX_WARM"] = flag
            sandbox.run_many(["pass"] * 3, num_threads=1)  # warm-up (starts the zygote)
            start = time.perf_counter()
            sandbox.run_many(["pass"] * runs, num_threads=1)
            out[name] = (time.perf_counter() - start) / runs * 1e3
    finally:
        if old is None:
            os.environ.pop("VERL_EXT_SANDBOX_WARM", None)
        else:
            os.environ["VERL_EXT_SANDBOX_WARM"] = old
    return out


def _channel_program(payload: str) -> str:
    """A program that writes `payload` (a Python bytes expression) on the result channel and leaves."""
    return f"import os\ndata = {payload}\nwhile data:\n    data = data[os.write(3, data):]\nos._exit(0)\n"


#: Hostile completions whose cost to the trainer is measured (issue #13's goal for any channel content:
#: <= 50 ms of trainer CPU and <= 32 MB of trainer RSS per sample).
HOSTILE_PROGRAMS = {
    "hash_collisions": _channel_program("b''.join(b'[\"out\",%d,0]\\n' % (k * (2**61 - 1)) for k in range(1, 12000))"),
    "flood": _channel_program("b'{}\\n' * (4 << 20)"),
    "deep_nesting": _channel_program("b'[\"verl-ext\",1]\\n[\"out\",0,' + b'[' * 100000 + b'\\n'"),
}


def _status_bytes(field: str) -> int:
    with open("/proc/self/status") as f:
        found = re.search(rf"{field}:\s+(\d+)", f.read())
    if found is None:
        raise OSError(f"no {field} in /proc/self/status")
    return int(found.group(1)) * 1024


def measure_trainer_cost(fn: Any) -> tuple[Any, float, float]:
    """(result, CPU seconds of this process (all threads), peak RSS growth in MB) of `fn`; the RSS
    growth is NaN where the kernel does not let a process reset its peak RSS."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset the peak RSS to the current RSS
        rss0: int | None = _status_bytes("VmRSS")
    except OSError:
        rss0 = None
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    result = fn()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    return result, cpu, math.nan if rss0 is None else (_status_bytes("VmHWM") - rss0) / (1 << 20)


#: Expected output per test of the 10-test stdin problems whose channels FILLING_PROGRAM fills (red team F1).
FILL_WIDTHS = {"2KB": 1000, "20KB": 10000, "100KB": 50000}
#: What FILLING_PROGRAM writes (head, repeated unit, tail of one out record): nested empty lists (valid
#: protocol, the costliest value to parse a byte: ~170 ms a MiB), and one string of short float lines (the
#: costliest a stdin program's output can be: it is compared line by line).
FILL_SHAPES = {"lists": (b'["out",0,[', b"[[[[]]]],", b"0]]\n"), "lines": (b'["out",0,"', b"0.5\\u000a", b'"]\n')}
#: Fills each run's channel (the first pass over all tests, then each test alone) with one record of a
#: FILL_SHAPES shape, as long as the run's byte budget and its first test's record budget allow (SIZES).
FILLING_PROGRAM = (
    "import os, sys\nf = sys._getframe()\n"
    "while f is not None and 'inputs_list' not in f.f_locals:\n    f = f.f_back\n"
    "size = SIZES[len(f.f_locals['inputs_list'])] if f is not None else SIZES[1]\n"
    "data = HEAD + UNIT * (size // len(UNIT)) + TAIL + b'[\"done\"]\\n'\n"
    "while data:\n    data = data[os.write(3, data):]\nos._exit(0)\n"
)


#: Prints its output a byte at a time, flushed (wrong: every run, the first and the re-runs, writes ~20 KB).
TRICKLE_PROGRAM = "import sys\nfor _ in range(20001):\n    sys.stdout.write('1')\n    sys.stdout.flush()\n"
#: Writes as much as its run's channel allows, in every run of a problem with one 2 MiB expected output.
LARGE_EXPECTED_FLOOD = ("import os\nchunk = b'7' * 65536\ntry:\n    while True:\n        os.write(3, chunk)\n"
                        "except OSError:\n    pass\nos._exit(0)\n")
#: Trainer cost goal per hostile sample (issue 13; any channel content, any way of writing).
HOSTILE_CPU_MS_GOAL = 50.0
HOSTILE_RSS_MB_GOAL = 32.0


#: The honest solution each hostile row is compared with (rows not named here have a cheap honest answer).
HONEST_OF = {"trickle_stdin": "honest_stdin_trickle_problem",
             "fill_large_expected_output": "honest_large_expected_output",
             **{f"fill_{shape}_stdin_{size}": f"honest_stdin_{size}" for shape in FILL_SHAPES for size in FILL_WIDTHS}}


def _beyond_honest(cost: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each hostile row's trainer cost beyond its honest counterpart's (the goal's measure: a large problem
    costs the trainer its comparison whoever answers)."""
    out = {}
    for name, row in cost.items():
        if name.startswith("honest"):
            continue
        base = cost.get(HONEST_OF.get(name, ""), {"cpu_ms": 0.0, "rss_mb": 0.0})
        out[name] = {"cpu_ms": row["cpu_ms"] - base["cpu_ms"], "rss_mb": row["rss_mb"] - base["rss_mb"]}
    return out


def _hostile_cost(quiet: bool = True) -> dict[str, dict[str, float]]:
    """Trainer CPU ms and RSS MB of scoring each of HOSTILE_PROGRAMS alone (10 call-based tests), and of
    FILLING_PROGRAM on stdin problems of each of FILL_WIDTHS (with the honest solution's cost beside)."""
    import json

    from verl_ext.reward.code import score_prime_code
    from verl_ext.sandbox import protocol

    tests: dict[str, Any] = {"fn_name": "f", "inputs": [json.dumps([i]) for i in range(10)],
                             "outputs": [str(i) for i in range(10)]}
    score_prime_code(["def f(x):\n    return x[0]"], [tests])  # starts the zygote outside the measurements
    cases: list[tuple[str, str, dict[str, Any]]] = [(name, prog, tests) for name, prog in HOSTILE_PROGRAMS.items()]
    for size, width in FILL_WIDTHS.items():
        outputs = [" ".join(["1"] * width)] * 10
        stdin_tests = {"inputs": [f"{i}\n" for i in range(10)], "outputs": outputs}
        cases.append((f"honest_stdin_{size}", f"print(' '.join(['1'] * {width}))", stdin_tests))
        for shape, (head, unit, tail) in FILL_SHAPES.items():
            frame = len(protocol.HEADER) + len(protocol.DONE) + len(head) + len(tail)
            value = protocol.record_budget(outputs[0], call_based=False) - len(b'["out",0,') - 1
            sizes = {n: min(protocol.prime_budget(outputs[:n], call_based=False) - frame, value) for n in (10, 1)}
            program = f"SIZES = {sizes!r}\nHEAD, UNIT, TAIL = {head!r}, {unit!r}, {tail!r}\n" + FILLING_PROGRAM
            cases.append((f"fill_{shape}_stdin_{size}", program, stdin_tests))
    # Issue 24: output written a byte at a time (one wake-up per byte before), and a problem with one large
    # expected output (each re-run could fill the largest test's channel budget before), each against its
    # honest counterpart on the same problem.
    trickle_tests = {"inputs": [f"{i}\n" for i in range(10)], "outputs": ["1" * 20000] * 10}
    cases.append(("honest_stdin_trickle_problem", "print('1' * 20000)", trickle_tests))
    cases.append(("trickle_stdin", TRICKLE_PROGRAM, trickle_tests))
    large_tests = {"inputs": [f"{i}\n" for i in range(10)], "outputs": [str(i) for i in range(9)] + ["7" * (2 << 20)]}
    cases.append(("honest_large_expected_output", "n = int(input())\nprint(n if n < 9 else '7' * (2 << 20))",
                  large_tests))
    cases.append(("fill_large_expected_output", LARGE_EXPECTED_FLOOD, large_tests))
    out = {}
    bar = tqdm(cases, desc=f"{'hostile samples':>22}", unit="sample", disable=quiet, leave=False)
    for name, program, problem in bar:
        scores, cpu, rss = measure_trainer_cost(lambda p=program, t=problem: score_prime_code([p], [t]))
        out[name] = {"cpu_ms": cpu * 1e3, "rss_mb": rss, "score": scores[0].score}
    return out


def _scores(tensor: Any) -> list[float]:
    return tensor.sum(dim=-1).tolist()


def run(args: argparse.Namespace) -> int:
    from transformers import AutoTokenizer
    from verl.utils.reward_score import default_compute_score
    from verl.workers.reward_manager import NaiveRewardManager, PrimeRewardManager

    from verl_ext.bench import humaneval
    from verl_ext.bench.dataproto import build_tiny_tokenizer, make_dataproto
    from verl_ext.reward.manager import VerlExtBatchRewardManager

    work = humaneval.build(args.problems, args.slow, args.adversarial)
    with tempfile.TemporaryDirectory() as tmp:
        build_tiny_tokenizer(Path(tmp))
        tok: Any = AutoTokenizer.from_pretrained(tmp)
    data = make_dataproto(tok, [{"prompt": c.task_id, "response": c.text, "data_source": "apps",
                                 "ground_truth": c.tests} for c in work])
    n, cores = len(work), os.cpu_count() or 1
    problems = len({c.task_id for c in work})
    quiet = args.no_progress
    print(f"verl-ext bench code: {n} completions from {problems} HumanEval problems "
          f"({', '.join(f'{k} {sum(c.kind == k for c in work)}' for k in humaneval.KINDS)}) on {cores} cores")

    latencies: list[float] = []

    def naive(bar: tqdm) -> list[float]:
        def timed_score(**kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return default_compute_score(**kw)
            finally:
                latencies.append(time.perf_counter() - t)
                bar.update()
        return _scores(NaiveRewardManager(tok, 0, compute_score=timed_score)(data))

    # Only verl's naive loop calls back per completion; the other two score the batch in one call.
    contenders: dict[str, Any] = {"verl_naive_prime_code": naive}
    if not args.skip_prime:
        contenders["verl_prime_manager"] = lambda bar: _scores(PrimeRewardManager(tok, 0)(data))
    contenders["verl_ext"] = lambda bar: _scores(VerlExtBatchRewardManager(tok, 0)(data))

    rows: list[dict[str, Any]] = []
    results: dict[str, list[float]] = {}
    for name, fn in contenders.items():
        if quiet:
            print(f"  running {name} ...", flush=True)
        with _progress(name, n, quiet, ticking=fn is not naive) as bar:
            scores, wall, cpu = _timed(lambda fn=fn, bar=bar: fn(bar))
            bar.update(n - bar.n)
        results[name] = scores
        rows.append({"name": name, "wall_s": wall, "completions_per_s": n / wall, "cpu_s_per_completion": cpu / n})
    ref = results["verl_naive_prime_code"]
    for row in rows:
        row["ratio_vs_naive"] = rows[0]["wall_s"] / row["wall_s"]
        row["agreement"] = {k: f"{sum(results[row['name']][i] == ref[i] for i, c in enumerate(work) if c.kind == k)}"
                                f"/{sum(c.kind == k for c in work)}" for k in humaneval.KINDS}

    # Per-completion latency: verl's naive loop per call; verl-ext per completion alone (sequentially).
    from verl_ext.reward.code import score_prime_code

    ours_lat = []
    alone = [c for c in work if c.kind in ("correct", "wrong", "crash")]
    for c in tqdm(alone, desc=f"{'verl_ext one at a time':>22}", unit="compl", disable=quiet, leave=False):
        t = time.perf_counter()
        score_prime_code([c.text], [c.tests], num_threads=1)
        ours_lat.append(time.perf_counter() - t)

    def pct(xs: list[float], q: int) -> float:
        return statistics.quantiles(xs, n=100)[q - 1] * 1e3 if len(xs) > 1 else float("nan")

    print(f"{'contender':>24} {'compl/s':>9} {'x naive':>8} {'CPU s/compl':>12}  agreement with (a)")
    for r in rows:
        agree = ", ".join(f"{k} {v}" for k, v in r["agreement"].items() if not v.startswith("0/"))
        print(f"{r['name']:>24} {r['completions_per_s']:>9.1f} {r['ratio_vs_naive']:>8.1f} "
              f"{r['cpu_s_per_completion']:>12.3f}  {agree}")
    print(f"latency p50/p99 ms (correct/wrong/crash): verl naive {pct(latencies, 50):.0f}/{pct(latencies, 99):.0f}, "
          f"verl-ext {pct(ours_lat, 50):.0f}/{pct(ours_lat, 99):.0f}")
    start_ms = _start_cost_ms()
    print(f"sandbox start per empty program: cold {start_ms['cold']:.1f} ms, warm {start_ms['warm']:.1f} ms "
          f"({start_ms['cold'] / start_ms['warm']:.1f}x)")
    hostile = _hostile_cost(quiet)
    print(f"trainer cost per hostile sample (goal <= {HOSTILE_CPU_MS_GOAL:g} ms, <= {HOSTILE_RSS_MB_GOAL:g} MB): "
          + ", ".join(f"{k} {v['cpu_ms']:.1f} ms +{v['rss_mb']:.1f} MB" for k, v in hostile.items()))
    extra = _beyond_honest(hostile)
    print("  beyond the honest solution of the same problem: " + ", ".join(
        f"{k} +{v['cpu_ms']:.1f} ms +{v['rss_mb']:.1f} MB" for k, v in extra.items()))
    worst_cpu = max(v["cpu_ms"] for v in extra.values())
    rss = [v["rss_mb"] for v in extra.values() if not math.isnan(v["rss_mb"])]
    worst_rss = max(rss) if rss else math.nan
    ours = next(r for r in rows if r["name"] == "verl_ext")
    prime_row = next((r for r in rows if r["name"] == "verl_prime_manager"), None)
    correct = [c for c in work if c.kind == "correct"]
    with _progress("correct alone", len(correct), quiet, ticking=True) as bar:
        _, wall_c, _ = _timed(lambda: score_prime_code([c.text for c in correct], [c.tests for c in correct]))
        bar.update(len(correct))
    per_core = len(correct) / wall_c / cores
    goals = {
        "x_naive": (ours["ratio_vs_naive"], THROUGHPUT_GOAL_NAIVE),
        "x_prime": ((ours["completions_per_s"] / prime_row["completions_per_s"]) if prime_row else float("nan"),
                    THROUGHPUT_GOAL_PRIME),
        "correct_per_s_per_core": (per_core, CORRECT_PER_CORE_GOAL),
    }
    for k, (v, goal) in goals.items():
        if math.isnan(v):  # x_prime with --skip-prime: nothing to compare with
            print(f"goal {k} >= {goal:g}: not measured (verl's prime manager skipped)")
        else:
            print(f"goal {k} >= {goal:g}: {'met' if v >= goal else 'NOT met'} ({v:.1f})")
    ceilings = {"hostile_cpu_ms": (worst_cpu, HOSTILE_CPU_MS_GOAL), "hostile_rss_mb": (worst_rss, HOSTILE_RSS_MB_GOAL)}
    for k, (v, goal) in ceilings.items():
        verdict = "not measured here" if math.isnan(v) else "met" if v <= goal else "NOT met"
        print(f"goal worst {k} <= {goal:g}: {verdict} ({v:.1f})")
    agree_ok = all(results["verl_ext"][i] == ref[i] for i, c in enumerate(work)
                   if c.kind in ("correct", "wrong", "crash"))
    print(f"agreement with (a) on correct/wrong/crash: {'100%' if agree_ok else 'NOT 100%'}")

    write_results(args.json, "code", {
        "sizes": {"completions": n, "problems": problems, "cores": cores,
                  "kinds": {k: sum(c.kind == k for c in work) for k in humaneval.KINDS}},
        "contenders": rows,
        "latency_ms": {"verl_naive_p50": pct(latencies, 50), "verl_naive_p99": pct(latencies, 99),
                       "verl_ext_p50": pct(ours_lat, 50), "verl_ext_p99": pct(ours_lat, 99)},
        "goals": {**{k: {"value": v, "goal": g, "met": None if math.isnan(v) else v >= g}
                     for k, (v, g) in goals.items()},
                  **{k: {"value": v, "goal": g, "met": None if math.isnan(v) else v <= g, "at_most": True}
                     for k, (v, g) in ceilings.items()}},
        "agreement_correct_wrong_crash": agree_ok,
        "start_ms_per_empty_program": start_ms,
        "hostile_trainer_cost": hostile,
        "hostile_trainer_cost_beyond_honest": extra,
    })
    return 0 if agree_ok else 1
