"""``verl-ext bench math-verify``: verl-ext's symbolic verifier, HuggingFace Math-Verify and verl's prime_math
judged in one run on other projects' answer-checking suites (Math-Verify's own, three held out; see
:mod:`verl_ext.bench.answer_suites`) and on this project's labelled corpus: accuracy, false positives,
disagreements by category, answers/s on one core."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verl_ext.bench import answer_suites
from verl_ext.bench.args import add_common_arguments, non_negative_int
from verl_ext.bench.report import write_results
from verl_ext.reward.math_verify import math_equal_batch

#: The corpus written for this project (checked out next to the package).
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "math_equivalence.jsonl"
#: Goals of the issue: accuracy >= Math-Verify's, >= 100x its answers/s on one core.
SPEED_GOAL = 100.0


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
        raise FileNotFoundError(f"no corpus at {path} (it ships in the repository: tests/data/; pass --corpus)")
    pairs = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            try:
                pairs.append(Pair(str(row["id"]), str(row["category"]), str(row["reference"]),
                                  str(row["prediction"]), bool(row["equal"]),
                                  str(row.get("label_source", "verl-ext policy"))))
            except KeyError as e:
                raise ValueError(f"{path}:{n}: missing key {e}") from None
    return pairs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="labelled JSONL corpus")
    p.add_argument("--limit", type=non_negative_int, default=0, help="judge only the first N pairs (0: all)")
    p.add_argument("--skip-prime", action="store_true", help="skip verl's prime_math (a process per answer)")
    p.add_argument("--skip-math-verify", action="store_true", help="skip HuggingFace Math-Verify")
    p.add_argument("--skip-suites", action="store_true", help="skip the other projects' answer-checking suites")
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
            progress = tqdm(cases, desc=f"{suite}: {name}", disable=args.no_progress, leave=False)
            start = time.perf_counter()
            verdicts = [judge(c) for c in progress]
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


def _print_suites(rows: list[dict[str, Any]]) -> None:
    names = list(rows[0]["judges"])
    print("other projects' answer-checking suites (tests/data/README.md), each case run as its project's test "
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


def run(args: argparse.Namespace) -> int:
    try:
        pairs = load_corpus(args.corpus)[: args.limit or None]
    except (OSError, ValueError) as e:
        print(f"verl-ext bench math-verify: {e}", file=sys.stderr)
        return 2
    suites = [] if args.skip_suites else _suites(args)
    if suites:
        _print_suites(suites)
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
        verdicts, secs = _timed(lambda: _python_loop(judge, pairs, "Math-Verify", quiet))
        contenders.append(("math-verify", verdicts, secs))
    if not args.skip_prime:
        judge = _prime_math_judge()
        verdicts, secs = _timed(lambda: _python_loop(judge, pairs, "prime_math", quiet))
        contenders.append(("prime_math", verdicts, secs))

    summaries = [_summary(name, pairs, v, s) for name, v, s in contenders]
    categories = sorted({p.category for p in pairs})
    print(f"this project's corpus: {_portable(args.corpus)} ({len(pairs)} pairs, {len(categories)} categories, "
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
        "suites": suites, "corpus": _portable(args.corpus), "pairs": len(pairs), "judges": summaries,
        "speed_ratios": ratios, "disagreements": disagreements,
    })
    return 0
