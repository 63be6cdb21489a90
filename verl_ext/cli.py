"""The ``verl-ext`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from verl_ext import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verl-ext", description="verl-ext: faster, safer building blocks for verl.")
    parser.add_argument("--version", action="version", version=f"verl-ext {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    bench = commands.add_parser("bench", help="benchmarks: baseline and verl-ext in one run, with ratios")
    which = bench.add_subparsers(dest="benchmark", required=True)
    from verl_ext.bench import math as bench_math

    bench_math.add_arguments(which.add_parser("math", help="math reward scoring: verl's Python vs verl-ext"))
    from verl_ext.bench import code as bench_code

    bench_code.add_arguments(which.add_parser("code", help="code rewards: verl's managers vs verl-ext's sandbox"))

    from verl_ext.bench import logprob as bench_logprob

    bench_logprob.add_arguments(which.add_parser("logprob", help="fused log-prob/entropy ops: torch, verl, verl-ext"))
    from verl_ext.bench import sampling as bench_sampling

    bench_sampling.add_arguments(which.add_parser("sampling", help="top-k/top-p sampling: torch sort, FlashInfer, "
                                                  "verl-ext"))
    from verl_ext.bench import math_verify as bench_math_verify

    bench_math_verify.add_arguments(which.add_parser("math-verify", help="math answer equivalence: verl-ext's "
                                                     "verifier vs Math-Verify vs verl's prime_math"))
    doctor = commands.add_parser("doctor", help="report versions, accelerator and sandbox capabilities")
    doctor.add_argument("--no-sandbox", action="store_true", help="do not fail when the sandbox is unavailable")
    doctor.add_argument("--config", default=None, metavar="NAME_OR_YAML",
                        help="also check what this main_ppo config needs (a name in configs/ or a YAML path)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "bench" and args.benchmark == "math":
        from verl_ext.bench import math as bench_math

        return bench_math.run(args)
    if args.command == "bench" and args.benchmark == "logprob":
        from verl_ext.bench import logprob as bench_logprob

        return bench_logprob.run(args)
    if args.command == "bench" and args.benchmark == "sampling":
        from verl_ext.bench import sampling as bench_sampling

        return bench_sampling.run(args)
    if args.command == "bench" and args.benchmark == "math-verify":
        from verl_ext.bench import math_verify as bench_math_verify

        return bench_math_verify.run(args)
    if args.command == "bench" and args.benchmark == "code":
        from verl_ext.bench import code as bench_code

        return bench_code.run(args)
    if args.command == "doctor":
        from verl_ext import doctor

        return doctor.run(require_sandbox=not args.no_sandbox, config=args.config)
    raise AssertionError(f"unhandled command {args}")  # argparse rejects unknown commands first


if __name__ == "__main__":
    sys.exit(main())
