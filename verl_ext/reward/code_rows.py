"""One reader of a code row's ground truth, shared by the code scorer and ``verl-ext doctor``: a row the scorer
cannot run is exactly a row doctor reports, with the same reason.

A ground truth may be a JSON string, UTF-8 JSON bytes or a dict (verl's prime_code reads the first two with
``json.loads``, and a dataset loaded from Parquet may hand either over). prime_code sources need
``{"inputs": [...], "outputs": [...], "fn_name"?}`` with at least one test and at least as many outputs as
inputs (a string stands for the list of its characters, as prime_code indexes it), each test's input and
expected output a string, and for call-based rows (``fn_name`` set) each input JSON lines (one argument a line)
and each expected output JSON, as the harness and the comparison decode them; assert-based sources
``{"test": str, "entry_point": str, "prompt"?: str}`` whose test compiles and defines ``check`` callable as
``check(candidate)``, and whose entry point is a name a program can define. Nothing is executed: the test code
is only parsed and compiled. A row that fails these is one a correct program cannot pass (prime_code's run of
all its tests, and HumanEval's check, fail there too).

Where verl differs: a row with no tests (``{"inputs": [], "outputs": []}``) gets 1.0 from verl's prime_code for
any answer, the empty one included. Here it is unscorable: 0.0, counted in ``reward_extra_info["unscorable"]``,
and an ERROR in doctor, so a dataset that lost its tests is found before a run learns to print nothing.
"""

from __future__ import annotations

import ast
import json
import keyword
import types
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from verl_ext.sandbox import protocol

__all__ = ["ASSERT_SOURCES", "PRIME_CODE_SOURCES", "AssertTests", "PrimeTests", "Unreadable", "read_assert_tests",
           "read_prime_tests", "read_tests"]

#: verl's data sources that prime_code scores.
PRIME_CODE_SOURCES = frozenset({"codecontests", "apps", "codeforces", "taco"})
#: Assert-based sources: ground truth ``{"test": <code defining check(candidate)>, "entry_point": <name>}``.
ASSERT_SOURCES = frozenset({"humaneval"})


@dataclass(frozen=True)
class PrimeTests:
    """prime_code's tests: ``inputs`` and ``outputs`` lists (``fn_name`` for call-based problems)."""

    tests: dict[str, Any]


@dataclass(frozen=True)
class AssertTests:
    """An assert-based problem: the test code defining ``check(candidate)``, the entry point, and the prompt
    whose helper definitions the test uses (HumanEval's), if given."""

    test: str
    entry_point: str
    prompt: str | None


@dataclass(frozen=True)
class Unreadable:
    """Why a ground truth cannot be scored (each sample of its row is unscorable: 0.0)."""

    reason: str


def _load(ground_truth: Any) -> dict[str, Any] | Unreadable:
    """The ground truth as a JSON object, or an :class:`Unreadable`."""
    if isinstance(ground_truth, dict):
        return ground_truth
    if not isinstance(ground_truth, (str, bytes, bytearray)):
        return Unreadable(f"a {type(ground_truth).__name__}, not a JSON string, JSON bytes or a dict")
    try:
        spec = json.loads(ground_truth)
    except (ValueError, RecursionError, MemoryError):
        # UnicodeDecodeError is a ValueError; a ground truth nested 100k deep is a RecursionError.
        return Unreadable("a string that is not JSON")
    return spec if isinstance(spec, dict) else Unreadable(f"a JSON {type(spec).__name__}, not an object")


def read_tests(data_source: str, ground_truth: Any) -> PrimeTests | AssertTests | Unreadable:
    """The tests of a code row of ``data_source`` (one of the code sources), or why it has none to run."""
    return read_assert_tests(ground_truth) if data_source in ASSERT_SOURCES else read_prime_tests(ground_truth)


def read_assert_tests(ground_truth: Any) -> AssertTests | Unreadable:
    """An assert-based row's test, entry point and prompt, or why it has none to run."""
    spec = _load(ground_truth)
    if isinstance(spec, Unreadable):
        return spec
    test, entry, prompt = spec.get("test"), spec.get("entry_point"), spec.get("prompt")
    if not isinstance(test, str) or not isinstance(entry, str):
        return Unreadable('not an object with string "test" and "entry_point"')
    if prompt is not None and not isinstance(prompt, str):
        return Unreadable(f'an object whose "prompt" is a {type(prompt).__name__}, not a string')
    if not test.strip():
        return Unreadable('an object with an empty "test": nothing checks the answer')
    problem = _assert_problem(test, entry) or (_prompt_problem(prompt) if prompt is not None else None)
    return Unreadable(problem) if problem is not None else AssertTests(test, entry, prompt)


#: Rows whose checks are remembered: a batch holds several samples of each row, next to each other.
_ROWS_CACHED = 64


@lru_cache(maxsize=_ROWS_CACHED)
def _prompt_problem(prompt: str) -> str | None:
    """Why the harness cannot run ``prompt`` (it executes the dataset's prompt for its helpers), or None."""
    try:
        compile(prompt, "prompt.py", "exec")
    except SyntaxError as e:
        return f'an object whose "prompt" does not compile ({type(e).__name__} at line {e.lineno}: {str(e.msg)[:60]})'
    except (ValueError, RecursionError, MemoryError) as e:
        return f'an object whose "prompt" does not compile ({type(e).__name__})'
    return None


@lru_cache(maxsize=_ROWS_CACHED)
def _assert_problem(test: str, entry_point: str) -> str | None:
    """Why the harness cannot run ``check(<entry_point>)`` of ``test`` (``harness._run_assert``), or None.
    Parses and compiles ``test`` once, executing nothing."""
    if not _is_definable(entry_point):
        return f'an object whose "entry_point" is {entry_point[:40]!r}, not a function name a program can define'
    try:
        tree = ast.parse(test, "test.py")
        code = compile(tree, "test.py", "exec")  # errors only the compiler finds (`return` outside a function)
    except SyntaxError as e:
        return f'an object whose "test" does not compile ({type(e).__name__} at line {e.lineno}: {str(e.msg)[:60]})'
    except (ValueError, RecursionError, MemoryError) as e:  # ValueError: a NUL byte
        return f'an object whose "test" does not compile ({type(e).__name__})'
    defs = [(i, s) for i, s in enumerate(tree.body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name == "check"]
    if not defs:
        if "check" in _names(code) or any(_star_import(node) for node in ast.walk(tree)):
            return None  # bound some other way (`check = ...`, an import): the scorer runs it
        return 'an object whose "test" defines no check function (the scorer calls check(candidate))'
    at, last = defs[-1]
    if isinstance(last, ast.AsyncFunctionDef) or last.decorator_list \
            or any(_binds_check(node) for s in tree.body[at + 1:] for node in ast.walk(s)) \
            or any(isinstance(node, ast.Global) and "check" in node.names for node in ast.walk(tree)):
        return None  # the check called may not be this plain function: the scorer runs it
    if not _takes_one_argument(last.args):
        return 'an object whose "test" defines a check that cannot be called as check(candidate)'
    return None


def _is_definable(name: str) -> bool:
    """Whether ``def <name>`` binds ``name`` in a program's namespace, where the harness looks for it (it refuses
    dunder names; the parser NFKC-normalises identifiers)."""
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__") \
        and unicodedata.normalize("NFKC", name) == name


def _names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the functions in it read or bind (as the harness's ``_used_names``)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _star_import(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)


def _binds_check(node: ast.AST) -> bool:
    """Whether ``node`` may bind the name ``check`` (in any scope: a wider answer only skips a check)."""
    if isinstance(node, ast.Name):
        return node.id == "check" and not isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs,
                         ast.MatchStar)):
        return node.name == "check"
    if isinstance(node, ast.alias):
        return node.name == "*" or (node.asname or node.name.split(".")[0]) == "check"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "check" in node.names
    return False


def _takes_one_argument(args: ast.arguments) -> bool:
    """Whether a function with these parameters can be called with one positional argument."""
    positional = len(args.posonlyargs) + len(args.args)
    return (positional >= 1 or args.vararg is not None) and positional - len(args.defaults) <= 1 \
        and all(default is not None for default in args.kw_defaults)


def read_prime_tests(ground_truth: Any) -> PrimeTests | Unreadable:
    """A prime_code row's tests, or why it has none to run."""
    spec = _load(ground_truth)
    if isinstance(spec, Unreadable):
        return spec
    # prime_code indexes `inputs` and `outputs`: a string is a list of one-character tests to it.
    tests = {**spec, **{k: list(spec[k]) for k in ("inputs", "outputs") if isinstance(spec.get(k), str)}}
    inputs, outputs = tests.get("inputs"), tests.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(outputs) < len(inputs):
        return Unreadable('not an object with "inputs" and "outputs" lists (at least as many outputs as inputs)')
    if not inputs:
        return Unreadable("an object with no tests (verl scores any answer 1.0; verl-ext: unscorable, 0.0)")
    fn_name = tests.get("fn_name")
    if fn_name is not None and (not isinstance(fn_name, str) or not fn_name.isidentifier()):
        return Unreadable(f'an object whose "fn_name" is {str(fn_name)[:40]!r}, not a function name')
    if not all(isinstance(i, str) for i in inputs):
        return Unreadable('an object whose "inputs" are not all strings (each is a test\'s stdin or JSON arguments)')
    # prime_code (`truncatefn`) and the scorer (`code._verdicts`) fail a test whose expected output is not a string.
    if not all(isinstance(o, str) for o in outputs[:len(inputs)]):
        return Unreadable('an object whose "outputs" are not all strings (each is a test\'s stdout or JSON value)')
    if fn_name is not None:
        problem = _call_problem(tuple(inputs), tuple(outputs[:len(inputs)]))
        if problem is not None:
            return Unreadable(problem)
    try:
        # What the harness sends must be plain JSON: no bytes, sets, NaN, integers past Python's digit limit,
        # nor nesting past the interpreter's recursion limit.
        json.dumps(tests, allow_nan=False)
    except (TypeError, ValueError, RecursionError, MemoryError) as e:
        return Unreadable(f"an object the scorer cannot send to a program as JSON ({type(e).__name__})")
    # An honest run reports each output at least at its expected size: past what the trainer keeps of a run's
    # result channel, even a right answer fails (verl-ext only: prime_code has no such bound).
    honest = sum(len(o) for o in outputs[:len(inputs)])
    if honest > protocol.PRIME_BUDGET_CAP:
        return Unreadable(f'an object whose expected "outputs" hold {honest} characters: more than the '
                          f"{protocol.PRIME_BUDGET_CAP >> 20} MiB of program output a run may report")
    return PrimeTests(tests)


@lru_cache(maxsize=8)  # small: a key holds a row's tests, which may be large
def _call_problem(inputs: tuple[str, ...], outputs: tuple[str, ...]) -> str | None:
    """Why a call-based row's tests cannot be decoded as the harness decodes each input (``json.loads`` of each
    line: one argument a line) and the scorer each expected output (``json.loads``), or None."""
    if not all(_is_json(line) for raw in inputs for line in raw.split("\n")):
        return ('a call-based object ("fn_name" set) whose "inputs" are not all JSON lines (one argument a line, '
                'each read with json.loads)')
    if not all(_is_json(o) for o in outputs):
        return 'a call-based object ("fn_name" set) whose "outputs" are not all JSON (each read with json.loads)'
    return None


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError, MemoryError):  # past the integer digit limit is a ValueError too
        return False
    return True
