"""``verl-ext bench math-verify``: verl-ext's symbolic verifier, HuggingFace Math-Verify and verl's prime_math
judged in one run on other projects' answer-checking suites (Math-Verify's own, three held out; see
:mod:`verl_ext.bench.answer_suites`) and on this project's labelled corpus: accuracy, false positives,
disagreements by category, answers/s on one core.

With ``--adversarial``, instead: every ``verify``/``math_equal`` call on the pathological inputs of
:mod:`verl_ext.bench.adversarial_math` (at most 10 KB a side) timed on its own, against the goal of 10 ms per
call on one core."""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import math
import os
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verl_ext.bench import answer_suites
from verl_ext.bench.args import add_common_arguments, non_negative_int, positive_int
from verl_ext.bench.bounded import judge_bounded
from verl_ext.bench.report import write_results
from verl_ext.reward.math_verify import math_equal_batch
from verl_ext.wording import counted

#: The corpus written for this project (shipped in the package, beside the suites).
DEFAULT_CORPUS = Path(__file__).resolve().parent / "data" / "math_equivalence.jsonl"
#: Real model completions from public repositories, each labelled by reading its final answer (sources,
#: commits and licences per row; data/README.md).
REAL_COMPLETIONS = Path(__file__).resolve().parent / "data" / "real_completions.jsonl"
#: Real completions collected and labelled after the verifier's rules were written (held out).
HELDOUT_COMPLETIONS = Path(__file__).resolve().parent / "data" / "heldout_completions.jsonl"
#: A second held-out set: evaluation outputs of an RL-trained model (Qwen2.5-Math-7B-Instruct) from PRIME's repository.
HELDOUT_PRIME = Path(__file__).resolve().parent / "data" / "heldout_prime.jsonl"
#: GRPO training rollouts (TRL/Unsloth templates, R1-Zero tags), labelled by reading: written against.
RL_ROLLOUTS = Path(__file__).resolve().parent / "data" / "rl_rollouts.jsonl"
#: Goals of the issue: accuracy >= Math-Verify's, >= 100x its answers/s on one core.
SPEED_GOAL = 100.0
#: Goal of the issue for ``--adversarial``: every ``verify``/``math_equal`` call on inputs of at most 10 KB
#: within 10 ms on one core.
ADVERSARIAL_MS_GOAL = 10.0
#: ``--adversarial``: a call slower than this on its first timing is not timed again (it misses the goal
#: whatever the repeats say, and repeating calls of seconds would make the run take minutes).
ADVERSARIAL_ONCE_MS = 100.0
#: ``--adversarial``: how many of the slowest calls are printed, and kept in the JSON.
WORST_PRINTED, WORST_KEPT = 10, 50
#: ``--adversarial``: a call still running after this many seconds is reported as hung and the run stops
#: (exit status 1): a Rust call cannot be interrupted, and a silent hang would not say which input it was.
ADVERSARIAL_HANG_S = 60.0


@dataclass(frozen=True)
class Pair:
    id: str
    category: str
    reference: str
    prediction: str
    equal: bool
    #: Who labelled the pair: "verl-ext policy", or another project's published convention.
    label_source: str = "verl-ext policy"


def load_corpus(path: Path) -> list[Pair]:
    """The labelled pairs of a JSONL corpus (keys id, category, reference, prediction, equal)."""
    if not path.is_file():
        raise FileNotFoundError(f"no corpus at {path} (the package ships one in verl_ext/bench/data/; pass --corpus)")
    pairs = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a JSONL corpus (not UTF-8 text)") from None
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{n}: not a JSONL corpus: each line must be a JSON object with keys "
                                 f"id, category, reference, prediction, equal ({e})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{n}: not a JSONL corpus: a line is a JSON {type(row).__name__}, "
                                 "not an object")
            try:
                pairs.append(Pair(str(row["id"]), str(row["category"]), str(row["reference"]),
                                  str(row["prediction"]), bool(row["equal"]),
                                  str(row.get("label_source", "verl-ext policy"))))
            except KeyError as e:
                raise ValueError(f"{path}:{n}: missing key {e}") from None
    return pairs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="labelled JSONL corpus")
    p.add_argument("--limit", type=non_negative_int, default=0,
                   help="judge only the first N pairs (0: all); with --adversarial, the first N of each family")
    p.add_argument("--skip-prime", action="store_true", help="skip verl's prime_math (a process per answer)")
    p.add_argument("--skip-math-verify", action="store_true", help="skip HuggingFace Math-Verify")
    p.add_argument("--skip-suites", action="store_true", help="skip the other projects' answer-checking suites")
    p.add_argument("--skip-real", action="store_true",
                   help="skip the real model completions (verl_ext/bench/data/real_completions.jsonl, "
                        "heldout_completions.jsonl, heldout_prime.jsonl and rl_rollouts.jsonl)")
    p.add_argument("--adversarial", action="store_true",
                   help="instead: time every verify and math_equal call on pathological inputs of at most 10 KB "
                        "(verl_ext.bench.adversarial_math) against the goal of 10 ms per call; the corpus, suites "
                        "and other judges are not run")
    p.add_argument("--adversarial-repeats", type=positive_int, default=3,
                   help="with --adversarial: timings of each call; the minimum counts (a call over "
                        f"{ADVERSARIAL_ONCE_MS:.0f} ms is timed once)")
    add_common_arguments(p, "math-verify")


def _portable(path: Path) -> str:
    """The corpus as results name it: relative to the repository when inside it (no machine paths in
    committed results), else its file name."""
    try:
        return str(path.resolve().relative_to(DEFAULT_CORPUS.parents[2]))
    except ValueError:
        return path.name


def _math_verify_judge() -> Callable[[Pair], bool]:
    from math_verify import parse, verify

    def judge(pair: Pair) -> bool:
        try:
            return bool(verify(parse(f"${pair.reference}$"), parse(f"${pair.prediction}$")))
        except Exception:  # noqa: BLE001 - Math-Verify's own failures count as "not equal"
            return False

    return judge


def _prime_math_judge() -> Callable[[Pair], bool]:
    from verl.utils.reward_score import prime_math

    def judge(pair: Pair) -> bool:
        # prime_math extracts from \boxed{} like on a model response; it prints on some failures.
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                result = prime_math.compute_score(f"\\boxed{{{pair.prediction}}}", pair.reference)
                return bool(result[0] if isinstance(result, tuple) else result)
            except Exception:  # noqa: BLE001 - a crash of the baseline is "not equal"
                return False

    return judge


def _timed(fn: Callable[[], list[bool]]) -> tuple[list[bool], float]:
    start = time.perf_counter()
    verdicts = fn()
    return verdicts, time.perf_counter() - start


def _python_loop(judge: Callable[[Pair], bool], pairs: list[Pair], name: str, quiet: bool) -> list[bool]:
    return [judge(p) for p in tqdm(pairs, desc=name, disable=quiet, leave=False)]


def _summary(name: str, pairs: list[Pair], verdicts: list[bool], seconds: float) -> dict[str, Any]:
    right = [v == p.equal for p, v in zip(pairs, verdicts, strict=True)]
    wrong_by_category = Counter(p.category for p, ok in zip(pairs, right, strict=True) if not ok)
    return {
        "name": name,
        "accuracy": sum(right) / len(pairs),
        "false_positives": sum(v and not p.equal for p, v in zip(pairs, verdicts, strict=True)),
        "false_negatives": sum(p.equal and not v for p, v in zip(pairs, verdicts, strict=True)),
        "answers_per_s": len(pairs) / seconds if seconds > 0 else float("inf"),
        "seconds": seconds,
        "wrong_by_category": dict(sorted(wrong_by_category.items())),
    }


def _suites(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each suite judged by each contender, as its project's test runs it."""
    judges: list[tuple[str, Callable[[answer_suites.Case], bool]]] = [("verl-ext", answer_suites.verl_ext_verdict)]
    if not args.skip_math_verify:
        judges.append(("math-verify", answer_suites.math_verify_judge()))
    if not args.skip_prime:
        judges.append(("prime_math", answer_suites.prime_math_judge()))
    out = []
    for suite in answer_suites.SUITES:
        cases = [c for c in answer_suites.load(suite) if c.runnable]
        row: dict[str, Any] = {"suite": suite, "held_out": suite in answer_suites.HELD_OUT, "cases": len(cases),
                               "judges": {}}
        for name, judge in judges:
            start = time.perf_counter()
            if name == "math-verify":  # unbounded on hostile cases: a child process with a memory and time bound
                with tqdm(total=len(cases), desc=f"{suite}: {name}", disable=args.no_progress, leave=False) as bar:
                    verdicts = judge_bounded(judge, cases, on_case=bar.update)
            else:
                verdicts = [judge(c) for c in tqdm(cases, desc=f"{suite}: {name}", disable=args.no_progress,
                                                   leave=False)]
            secs = time.perf_counter() - start
            t = answer_suites.tally(cases, verdicts)
            row["judges"][name] = {
                "passed": t.passed, "agree_with_labels": t.agree_with_labels, "accuracy": t.passed / len(cases),
                "false_positives": t.false_positives, "false_negatives": t.false_negatives,
                "agrees_with_mislabelled": t.mislabelled_agreed,
                "answers_per_s": len(cases) / secs if secs > 0 else float("inf"),
            }
        out.append(row)
    return out


def load_real_completions(path: Path = REAL_COMPLETIONS) -> list[dict[str, Any]]:
    """The labelled real completions: one JSON object per line (``completion``, ``gold``, ``correct``, and the
    row's provenance: ``source``, ``commit``, ``path``, ``model``, ``licence``, ``format``)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _math_verify_completion_judge() -> Callable[[dict[str, Any]], bool]:
    from math_verify import parse, verify

    def judge(row: dict[str, Any]) -> bool:
        try:
            return bool(verify(parse(row["gold"]), parse(row["completion"])))
        except Exception:  # noqa: BLE001 - Math-Verify's own failures count as "no credit"
            return False

    return judge


def _real(args: argparse.Namespace, path: Path = REAL_COMPLETIONS, kind: str = "real model completions"
          ) -> dict[str, Any]:
    """verl-ext's ``verify`` and Math-Verify on whole real completions (``path``): false negatives (a correct
    answer given no credit) and false positives (credit for a wrong one), in all and by answer format."""
    from verl_ext.reward.math_verify import verify_batch

    rows = load_real_completions(path)
    start = time.perf_counter()
    ours = [r["acc"] for r in verify_batch([r["completion"] for r in rows], [r["gold"] for r in rows], num_threads=1)]
    judges: dict[str, tuple[list[bool], float]] = {"verl-ext": (ours, time.perf_counter() - start)}
    if not args.skip_math_verify:
        judge = _math_verify_completion_judge()
        start = time.perf_counter()
        with tqdm(total=len(rows), desc=f"{kind}: Math-Verify", disable=args.no_progress, leave=False) as bar:
            theirs = judge_bounded(judge, rows, on_case=bar.update)
        judges["math-verify"] = (theirs, time.perf_counter() - start)

    def errors(verdicts: list[bool], idx: list[int]) -> tuple[int, int]:
        fn = sum(rows[i]["correct"] and not verdicts[i] for i in idx)
        return fn, sum(verdicts[i] and not rows[i]["correct"] for i in idx)

    everything = list(range(len(rows)))
    print(f"{kind}: {_portable(path)} ({counted(len(rows), 'completion')} of "
          f"{counted(len({r['model'] for r in rows}), 'model')} from "
          f"{counted(len({r['source'] for r in rows}), 'repository', 'repositories')}, "
          f"{sum(r['correct'] for r in rows)} correct by a reading of the final answer); false - = a correct "
          "answer given no credit, false + = credit for a wrong one")
    print(f"{'format':<28} {'rows':>5}" + "".join(f" {n + ' false -':>20} {'false +':>8}" for n in judges))
    by_format: dict[str, dict[str, Any]] = {}
    for fmt in sorted({r["format"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["format"] == fmt]
        cells = {n: errors(v, idx) for n, (v, _) in judges.items()}
        by_format[fmt] = {"rows": len(idx), **{n: {"false_negatives": c[0], "false_positives": c[1]}
                                               for n, c in cells.items()}}
        print(f"{fmt[:28]:<28} {len(idx):>5}" + "".join(f" {c[0]:>20} {c[1]:>8}" for c in cells.values()))
    totals = {n: errors(v, everything) for n, (v, _) in judges.items()}
    print(f"{'all':<28} {len(rows):>5}" + "".join(f" {c[0]:>20} {c[1]:>8}" for c in totals.values()))
    goals: dict[str, Any] = {}
    if "math-verify" in totals:
        (fn, fp), (mfn, mfp) = totals["verl-ext"], totals["math-verify"]
        goals = {"false_negatives": {"goal": f"<= Math-Verify's ({mfn})", "value": fn, "met": fn <= mfn},
                 "false_positives": {"goal": f"<= Math-Verify's ({mfp})", "value": fp, "met": fp <= mfp}}
        print(f"goals: false - <= Math-Verify's: {'met' if fn <= mfn else 'NOT met'} ({fn} vs {mfn}); "
              f"false + <= Math-Verify's: {'met' if fp <= mfp else 'NOT met'} ({fp} vs {mfp})")
    print()
    return {
        "rows": len(rows),
        "judges": {n: {"false_negatives": totals[n][0], "false_positives": totals[n][1],
                       "answers_per_s": len(rows) / secs if secs > 0 else float("inf")}
                   for n, (_, secs) in judges.items()},
        "by_format": by_format,
        "goals": goals,
        "wrong": [{"id": r["id"], "correct": r["correct"], **{n: v[i] for n, (v, _) in judges.items()}}
                  for i, r in enumerate(rows) if any(v[i] != r["correct"] for v, _ in judges.values())],
    }


def _print_suites(rows: list[dict[str, Any]]) -> None:
    names = list(rows[0]["judges"])
    print("other projects' answer-checking suites (verl_ext/bench/data/README.md), each case run as its project's test "
          "runs it; right = label agreed with (mislabelled cases corrected), false + = equal where the label "
          "says not")
    print(f"{'suite':<16} {'cases':>5}" + "".join(f" {n + ' right':>18} {'false +':>7} {'answers/s':>9}"
                                             for n in names))
    for r in rows:
        cells = "".join(f" {j['passed']:>11} ({j['accuracy']:>4.0%}) {len(j['false_positives']):>7} "
                        f"{j['answers_per_s']:>9.0f}" for j in r["judges"].values())
        print(f"{r['suite'] + (' *' if r['held_out'] else ''):<16} {r['cases']:>5}{cells}")
    print("* held out from Math-Verify's suite (its first run missed 10 of 162; four rules were then added: "
          "Python powers, \\approx after an exact value, revising words between boxes, percent labels)")
    for n in names:
        total = sum(r["judges"][n]["passed"] for r in rows)
        held = sum(r["judges"][n]["passed"] for r in rows if r["held_out"])
        print(f"  {n}: {total}/{sum(r['cases'] for r in rows)} right in all, "
              f"{held}/{sum(r['cases'] for r in rows if r['held_out'])} held out")
    print()


@dataclass(frozen=True)
class TimedCall:
    family: str
    index: int
    #: ``verify`` or ``math_equal``.
    function: str
    #: Which sides, first argument then second: ``s/g`` (solution, ground truth), ``g/s``, ``s/s`` (a side
    #: against itself), ``s/s'`` (against a respelled copy: same value, different text).
    direction: str
    first: str
    second: str
    ms: float
    equal: bool
    reason: str


def _time_call(fn: Callable[[str, str], Any], a: str, b: str, repeats: int) -> tuple[float, Any]:
    """Milliseconds of the fastest of ``repeats`` calls ``fn(a, b)`` (one when the first is over
    :data:`ADVERSARIAL_ONCE_MS`), and what the call returned."""
    best = None
    result = None
    for _ in range(repeats):
        start = time.perf_counter_ns()
        result = fn(a, b)
        ns = time.perf_counter_ns() - start
        best = ns if best is None else min(best, ns)
        if ns > ADVERSARIAL_ONCE_MS * 1e6:
            break
    assert best is not None
    return best / 1e6, result


def _adversarial_calls(pair: Any) -> list[tuple[str, str, str]]:
    """(direction, first, second) of each comparison made of a pair: both ways, each side against itself and
    against a respelled copy; the same two texts only once."""
    from verl_ext.bench.adversarial_math import respell

    s, g = pair.solution, pair.ground_truth
    calls = [("s/g", s, g), ("g/s", g, s), ("s/s", s, s), ("g/g", g, g)]
    for name, text in (("s/s'", s), ("g/g'", g)):
        copy = respell(text)
        if copy is not None:
            calls.append((name, text, copy))
    seen: set[tuple[str, str]] = set()
    out = []
    for direction, a, b in calls:
        if (a, b) not in seen:
            seen.add((a, b))
            out.append((direction, a, b))
    return out


class _Watchdog:
    """A daemon thread that ends the process when one call runs past :data:`ADVERSARIAL_HANG_S` (the verifier
    releases the GIL, so the thread runs meanwhile), after printing which call it was."""

    def __init__(self) -> None:
        #: (monotonic start, pair, direction, function) of the call running now, or None.
        self.current: tuple[float, Any, str, str] | None = None
        threading.Thread(target=self._watch, name="adversarial-watchdog", daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(0.5)
            current = self.current
            if current is not None and time.monotonic() - current[0] > ADVERSARIAL_HANG_S:
                _, pair, direction, function = current
                message = (f"verl-ext bench math-verify --adversarial: {function} {direction} on "
                           f"{pair.family}[{pair.index}] still running after {ADVERSARIAL_HANG_S:.0f} s; stopping. "
                           f"solution ({len(pair.solution.encode())} bytes): {_head(pair.solution)}; ground truth "
                           f"({len(pair.ground_truth.encode())} bytes): {_head(pair.ground_truth)}")
                sys.stdout.flush()
                print(message, file=sys.stderr, flush=True)
                os._exit(1)


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in (0, 1]) of sorted values."""
    return sorted_values[max(math.ceil(q * len(sorted_values)) - 1, 0)]


def _head(text: str, n: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 3] + "..."


def _call_row(c: TimedCall) -> dict[str, Any]:
    return {"family": c.family, "index": c.index, "function": c.function, "direction": c.direction,
            "ms": round(c.ms, 4), "equal": c.equal, "reason": c.reason, "first_bytes": len(c.first.encode()),
            "second_bytes": len(c.second.encode()), "first_head": c.first[:200], "second_head": c.second[:200]}


def _adversarial(args: argparse.Namespace) -> int:
    """``--adversarial``: every call on the pathological pairs timed on its own, on this thread."""
    from verl_ext.bench import adversarial_math
    from verl_ext.reward.math_verify import math_equal, verify

    pairs = adversarial_math.generate(limit=args.limit)
    families = [name for name, _ in adversarial_math.FAMILIES]
    repeats = args.adversarial_repeats

    def judge_verify(a: str, b: str) -> tuple[bool, str]:
        result = verify(a, b)
        return result["acc"], result["reason"]

    def judge_math_equal(a: str, b: str) -> tuple[bool, str]:
        return math_equal(a, b), ""

    functions = (("verify", judge_verify), ("math_equal", judge_math_equal))
    for _ in range(20):  # warm-up: first-call costs (lazy tables, page faults) are not the verifier's per call
        for a, b in (("\\boxed{\\frac12}", "0.5"), ("The answer is $x^2+1$.", "1+x^2"), ("(1,2]", "(1,2)")):
            for _, fn in functions:
                fn(a, b)
    calls: list[TimedCall] = []
    watchdog = _Watchdog()
    gc.collect()
    gc.disable()  # no collection inside a timed call
    try:
        for pair in tqdm(pairs, desc="adversarial pairs", disable=args.no_progress, leave=False):
            for direction, a, b in _adversarial_calls(pair):
                for name, fn in functions:
                    watchdog.current = (time.monotonic(), pair, direction, name)
                    ms, (equal, reason) = _time_call(fn, a, b, repeats)
                    calls.append(TimedCall(pair.family, pair.index, name, direction, a, b, ms, equal, reason))
    finally:
        watchdog.current = None
        gc.enable()

    # A respelled copy judged "not equal" while the text equals itself: a false negative (usually a limit).
    self_equal = {(c.family, c.index, c.function, c.direction[0]) for c in calls
                  if c.direction in ("s/s", "g/g") and c.equal}
    missed = [c for c in calls if c.direction.endswith("'") and not c.equal
              and (c.family, c.index, c.function, c.direction[0]) in self_equal]

    print(f"verl-ext bench math-verify --adversarial: {len(pairs)} pathological pairs in {len(families)} families "
          f"(each side <= {adversarial_math.MAX_BYTES} bytes), {len(calls)} calls of verify and math_equal (each "
          "pair both ways, each side against itself and against a respelled copy); one thread; each call timed "
          f"{repeats} times after a warm-up, the minimum counts (once when over {ADVERSARIAL_ONCE_MS:.0f} ms)")
    print(f"{'family':<26} {'pairs':>5} {'calls':>5} {'median ms':>9} {'p99 ms':>8} {'max ms':>8} "
          f"{'verify max':>10} {'m_eq max':>8} {'>10 ms':>6} {'self!=':>6}")
    rows = []
    for family in families:
        mine = [c for c in calls if c.family == family]
        if not mine:
            continue
        times = sorted(c.ms for c in mine)
        by_fn = {name: max((c.ms for c in mine if c.function == name), default=0.0) for name, _ in functions}
        row = {"family": family, "pairs": len({c.index for c in mine}), "calls": len(mine),
               "median_ms": statistics.median(times), "p99_ms": _percentile(times, 0.99), "max_ms": times[-1],
               "verify_max_ms": by_fn["verify"], "math_equal_max_ms": by_fn["math_equal"],
               "over_goal": sum(t > ADVERSARIAL_MS_GOAL for t in times),
               "respelled_not_equal": sum(c.family == family for c in missed)}
        rows.append(row)
        print(f"{family:<26} {row['pairs']:>5} {row['calls']:>5} {row['median_ms']:>9.3f} {row['p99_ms']:>8.2f} "
              f"{row['max_ms']:>8.2f} {row['verify_max_ms']:>10.2f} {row['math_equal_max_ms']:>8.2f} "
              f"{row['over_goal']:>6} {row['respelled_not_equal']:>6}")
    print("self!=: a side judged not equal to a respelled copy of itself (same value, other text), though equal "
          "to itself")

    worst = sorted(calls, key=lambda c: c.ms, reverse=True)
    slowest_of_pair: dict[tuple[str, int], TimedCall] = {}
    for c in worst:
        slowest_of_pair.setdefault((c.family, c.index), c)
    worst_inputs = list(slowest_of_pair.values())  # each pair once, by its slowest call
    print(f"\nslowest {WORST_PRINTED} inputs, each by its slowest call (s = solution, g = ground truth, ' = "
          "respelled copy; bytes of the first/second argument):")
    print(f"{'ms':>9}  {'call':<16} {'family':<30} {'bytes':>11}  {'verdict':<40} first argument")
    for c in worst_inputs[:WORST_PRINTED]:
        verdict = ("equal" if c.equal else "not equal") + (f" ({c.reason})" if c.reason else "")
        sizes = f"{len(c.first.encode())}/{len(c.second.encode())}"
        print(f"{c.ms:>9.2f}  {c.function + ' ' + c.direction:<16} {c.family + '[' + str(c.index) + ']':<30} "
              f"{sizes:>11}  {_head(verdict, 40):<40} {_head(c.first)}")

    worst_ms = worst[0].ms if worst else 0.0
    worst_by_fn = {name: max((c.ms for c in calls if c.function == name), default=0.0) for name, _ in functions}
    met = worst_ms <= ADVERSARIAL_MS_GOAL
    print(f"\ngoal worst call <= {ADVERSARIAL_MS_GOAL:.0f} ms: {'met' if met else 'NOT met'} ({worst_ms:.2f} ms; "
          f"verify {worst_by_fn['verify']:.2f} ms, math_equal {worst_by_fn['math_equal']:.2f} ms; "
          f"{sum(c.ms > ADVERSARIAL_MS_GOAL for c in calls)} of {len(calls)} calls over)")

    write_results(args.json, "math-verify-adversarial", {
        "sizes": {"pairs": len(pairs), "calls": len(calls), "families": len(rows), "limit_per_family": args.limit,
                  "max_bytes": adversarial_math.MAX_BYTES, "repeats": repeats, "statistic": "min",
                  "timed_once_over_ms": ADVERSARIAL_ONCE_MS, "seed": 0},
        "families": rows,
        # Each pair once, by its slowest call; find a pair again with adversarial_math.generate() (family, index).
        "worst_inputs": [_call_row(c) for c in worst_inputs[:WORST_KEPT]],
        "worst_calls": [_call_row(c) for c in worst[:WORST_KEPT]],
        "respelled_not_equal": [{"family": c.family, "index": c.index, "function": c.function,
                                 "direction": c.direction, "reason": c.reason, "first_head": c.first[:200]}
                                for c in missed],
        "goals": {
            "worst_call_ms": {"goal": ADVERSARIAL_MS_GOAL, "value": round(worst_ms, 4), "met": met},
            "worst_verify_ms": {"goal": ADVERSARIAL_MS_GOAL, "value": round(worst_by_fn["verify"], 4),
                                "met": worst_by_fn["verify"] <= ADVERSARIAL_MS_GOAL},
            "worst_math_equal_ms": {"goal": ADVERSARIAL_MS_GOAL, "value": round(worst_by_fn["math_equal"], 4),
                                    "met": worst_by_fn["math_equal"] <= ADVERSARIAL_MS_GOAL},
        },
    })
    return 0  # benches report goals; they do not fail on them


def run(args: argparse.Namespace) -> int:
    if args.adversarial:
        return _adversarial(args)
    try:
        pairs = load_corpus(args.corpus)[: args.limit or None]
    except (OSError, ValueError) as e:
        print(f"verl-ext bench math-verify: {e}", file=sys.stderr)
        return 2
    suites = [] if args.skip_suites else _suites(args)
    if suites:
        _print_suites(suites)
    real = {} if args.skip_real else _real(args)
    heldout = {} if args.skip_real else _real(
        args, HELDOUT_COMPLETIONS, "held-out real completions (collected and labelled after the rules)")
    prime = {} if args.skip_real else _real(
        args, HELDOUT_PRIME, "held-out outputs of an RL-trained model (collected and labelled after the rules)")
    rollouts = {} if args.skip_real else _real(args, RL_ROLLOUTS, "GRPO training rollouts")
    quiet = args.no_progress
    contenders: list[tuple[str, list[bool], float]] = []
    preds, refs = [p.prediction for p in pairs], [p.reference for p in pairs]
    # The corpus's own policy counts an inequality equal to its interval either way round; rows labelled by
    # other projects' conventions are judged at the defaults.
    own = [p.label_source == "verl-ext policy" for p in pairs]
    math_equal_batch(preds[:64], refs[:64], num_threads=1, allow_set_relation_comp=True)  # warm-up

    def verl_ext_verdicts() -> list[bool]:
        by_own = {flag: math_equal_batch([x for x, o in zip(preds, own, strict=True) if o == flag],
                                         [x for x, o in zip(refs, own, strict=True) if o == flag],
                                         num_threads=1, allow_set_relation_comp=flag) for flag in (True, False)}
        iters = {flag: iter(v) for flag, v in by_own.items()}
        return [next(iters[o]) for o in own]

    verdicts, secs = _timed(verl_ext_verdicts)
    contenders.append(("verl-ext", verdicts, secs))
    if not args.skip_math_verify:
        judge = _math_verify_judge()
        with tqdm(total=len(pairs), desc="Math-Verify", disable=quiet, leave=False) as bar:
            verdicts, secs = _timed(lambda: judge_bounded(judge, pairs, on_case=bar.update))
        contenders.append(("math-verify", verdicts, secs))
    if not args.skip_prime:
        judge = _prime_math_judge()
        verdicts, secs = _timed(lambda: _python_loop(judge, pairs, "prime_math", quiet))
        contenders.append(("prime_math", verdicts, secs))

    summaries = [_summary(name, pairs, v, s) for name, v, s in contenders]
    categories = sorted({p.category for p in pairs})
    print(f"this project's corpus: {_portable(args.corpus)} ({counted(len(pairs), 'pair')}, "
          f"{counted(len(categories), 'category')}, "
          f"{sum(p.equal for p in pairs)} equivalent; {sum(own)} labelled by its own policy, the rest by other "
          "projects' published conventions); one core each")
    print(f"{'judge':<12} {'accuracy':>9} {'false +':>8} {'false -':>8} {'answers/s':>11}")
    for s in summaries:
        print(f"{s['name']:<12} {s['accuracy']:>9.2%} {s['false_positives']:>8} {s['false_negatives']:>8} "
              f"{s['answers_per_s']:>11.0f}")
    print("\naccuracy by who labelled the pairs:")
    for source in sorted({p.label_source for p in pairs}):
        idx = [i for i, p in enumerate(pairs) if p.label_source == source]
        cells = "".join(f"{sum(v[i] == pairs[i].equal for i in idx) / len(idx):>13.2%}" for _, v, _ in contenders)
        print(f"{source:<36}{cells}{len(idx):>7}")
    print("\nwrong verdicts by category:")
    print(f"{'category':<22}" + "".join(f"{s['name']:>13}" for s in summaries) + f"{'pairs':>7}")
    for c in categories:
        n = sum(p.category == c for p in pairs)
        print(f"{c:<22}" + "".join(f"{s['wrong_by_category'].get(c, 0):>13}" for s in summaries) + f"{n:>7}")
    ours = summaries[0]
    ratios: dict[str, float] = {}
    for s in summaries[1:]:
        ratios[s["name"]] = ours["answers_per_s"] / s["answers_per_s"]
        print(f"\nverl-ext vs {s['name']}: accuracy {ours['accuracy']:.2%} vs {s['accuracy']:.2%}, "
              f"{ratios[s['name']]:.0f}x the answers/s")
    if "math-verify" in ratios:
        mv = next(s for s in summaries if s["name"] == "math-verify")
        print(f"goals: accuracy >= Math-Verify's: {'met' if ours['accuracy'] >= mv['accuracy'] else 'NOT met'}; "
              f">= {SPEED_GOAL:.0f}x its answers/s: {'met' if ratios['math-verify'] >= SPEED_GOAL else 'NOT met'}")
    disagreements = [
        {"id": p.id, "category": p.category, "reference": p.reference, "prediction": p.prediction,
         "expected": p.equal, **{name: v[i] for name, v, _ in contenders}}
        for i, p in enumerate(pairs) if len({v[i] for _, v, _ in contenders}) > 1
    ]
    write_results(args.json, "math-verify", {
        "suites": suites, "real_completions": real, "heldout_completions": heldout,
        "heldout_prime": prime, "rl_rollouts": rollouts,
        "corpus": _portable(args.corpus), "pairs": len(pairs),
        "judges": summaries,
        "speed_ratios": ratios, "disagreements": disagreements,
    })
    return 0
