"""Rows for the end-to-end runs (tests/e2e and the image test): gsm8k-style arithmetic and HumanEval-shaped
problems, in verl's dataset layout."""

from __future__ import annotations

import json
from typing import Any

#: The math run's data sources: gsm8k rows scored natively (Rust), the others by the user's functions.
NATIVE, BY_FUNCTIONS = "openai/gsm8k", "e2e/arithmetic"


def math_rows(split: str, n: int) -> list[dict[str, Any]]:
    instruction = 'Let\'s think step by step and output the final answer after "####".'
    rows = []
    for i in range(n):
        a, b = i + 2, 3 * i + 1
        rows.append({"data_source": (NATIVE, BY_FUNCTIONS)[i % 2], "ability": "math",
                     "prompt": [{"role": "user", "content": f"What is {a} + {b}? {instruction}"}],
                     "reward_model": {"style": "rule", "ground_truth": str(a + b)},
                     "extra_info": {"split": split, "index": i}})
    return rows


#: HumanEval-shaped problems (prompt, entry point, test), run in the sandbox by the code config.
CODE_PROBLEMS = [
    ("add", 'def add(a: int, b: int) -> int:\n    """Return a + b."""\n',
     "def check(candidate):\n    assert candidate(1, 2) == 3\n"),
    ("double", 'def double(x: int) -> int:\n    """Return 2 * x."""\n',
     "def check(candidate):\n    assert candidate(2) == 4\n"),
]


def code_rows(split: str, n: int) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        name, prompt, test = CODE_PROBLEMS[i % len(CODE_PROBLEMS)]
        truth = json.dumps({"test": test, "entry_point": name, "prompt": prompt})
        rows.append({"data_source": "humaneval", "ability": "code",
                     "prompt": [{"role": "user", "content": "Complete the function.\n" + prompt}],
                     "reward_model": {"style": "rule", "ground_truth": truth},
                     "extra_info": {"split": split, "index": i}})
    return rows
