"""A realistic, seeded batch of model answers for verl's math data sources.

Long chain-of-thought text, unicode, and every answer form verl's scorers read: boxed (nested braces,
fractions, radicals, units, percent, dollars), Minerva ``Answer:`` lines and GSM8K ``####`` lines, about
half of them right.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MATH_SOURCES = ["lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"]
DAPO_SOURCES = ["math_dapo", "math", "math_dapo_reasoning", "aime2024", "aime2025"]

_WORDS = ("let", "we", "compute", "the", "sum", "of", "both", "sides", "so", "therefore", "thus", "note", "that",
          "hence", "substituting", "gives", "since", "étape", "所以", "≈", "∑", "→", "we get", "checking")
_MATH_BITS = ("x^2 + 2x + 1 = (x+1)^2", "\\frac{a}{b}", "\\sqrt{x}", "3 \\cdot 4 = 12", "\\{1, 2\\}", "$y = mx + b$",
              "\\left(\\frac{1}{2}\\right)^2", "2\\pi r", "\\int_0^1 x\\,dx")


@dataclass(frozen=True)
class Sample:
    data_source: str
    solution: str
    ground_truth: str


def _reasoning(rng: random.Random, n_chars: int) -> str:
    parts: list[str] = []
    size = 0
    while size < n_chars:
        piece = rng.choice(_MATH_BITS) if rng.random() < 0.2 else " ".join(rng.choices(_WORDS, k=rng.randint(3, 12)))
        parts.append(piece)
        size += len(piece) + 2
    return ". ".join(parts)


def _math_answer(rng: random.Random) -> tuple[str, str]:
    """(answer as the model writes it, ground truth as MATH stores it)."""
    a, b = rng.randint(1, 99), rng.randint(2, 99)
    return rng.choice([
        (f"\\dfrac{{{a}}}{{{b}}}", f"\\frac{{{a}}}{{{b}}}"),
        (f"\\frac{a % 10}{b % 10}", f"\\frac{{{a % 10}}}{{{b % 10}}}"),
        (f"{a}\\sqrt{{{b}}}", f"{a}\\sqrt{{{b}}}"),
        (f"{a}^\\circ", f"{a}"),
        (f"{a}\\%", f"{a}"),
        (f"\\${a}", f"{a}"),
        (f"x = {a}", f"{a}"),
        (f"{a}/{b}", f"\\frac{{{a}}}{{{b}}}"),
        (f"\\left( {a}, {b} \\right)", f"({a},{b})"),
        (f"{a} \\text{{ cm}}", f"{a}"),
        (f"{{{a}}}", f"{a}"),
    ])


def make_batch(n: int, seed: int = 0) -> list[Sample]:
    """``n`` samples spread over gsm8k, MATH and math_dapo/AIME, with 200-4000 characters of reasoning."""
    rng = random.Random(seed)
    out: list[Sample] = []
    for i in range(n):
        reasoning = _reasoning(rng, rng.choice([200, 800, 1500, 4000]))
        right = rng.random() < 0.5
        family = i % 3
        if family == 0:
            value = rng.randint(-999, 999_999)
            shown = f"{value:,}" if rng.random() < 0.5 else str(value)
            gt = str(value)
            if not right:
                shown = str(value + rng.randint(1, 9))
            tail = rng.choice([f"\n#### {shown}", f"\n#### {shown}\n", f" The answer is {shown}.",
                               f"\n#### ${shown}"])
            out.append(Sample("openai/gsm8k", reasoning + tail, gt))
        elif family == 1:
            shown, gt = _math_answer(rng)
            if not right:
                shown = shown + "1"
            box = rng.choice([f"\\boxed{{{shown}}}", f"\\boxed {shown}$", f"\\fbox{{{shown}}}"])
            out.append(Sample(rng.choice(MATH_SOURCES), f"{reasoning}\nSo the answer is ${box}$.", gt))
        else:
            value = rng.randint(0, 999)
            shown = str(value if right else value + 1)
            tail = rng.choice([f"\nAnswer: {shown}", f"\nAnswer: ${shown}$", f"\nanswer: {shown} degrees",
                               f"\nThe final answer is \\boxed{{{shown}}}", "\nI could not solve it."])
            out.append(Sample(rng.choice(DAPO_SOURCES), reasoning + tail, str(value)))
    return out


def pathological(megabytes: int = 1) -> list[Sample]:
    """Inputs built to be slow: huge texts, unbalanced braces, thousands of `\\frac`/`\\sqrt`, no answer."""
    mb = megabytes << 20
    return [
        Sample("lighteval/MATH", "\\boxed{" + "{" * mb, "1"),
        Sample("lighteval/MATH", "\\boxed{" + "\\frac" * (mb // 5) + "}", "1"),
        Sample("lighteval/MATH", "\\boxed{" + "\\sqrt " * (mb // 6) + "}", "1"),
        Sample("lighteval/MATH", "\\boxed " + "a=" * (mb // 2), "1"),
        Sample("openai/gsm8k", "#### " + "1," * (mb // 2), "1"),
        Sample("math_dapo", "Answer: " + "$" * mb, "1"),
        Sample("math_dapo", "Answer:" + " " * mb, "1"),
        Sample("aime2024", "x" * mb + "\\boxed{" * 1000, "1"),
    ]
