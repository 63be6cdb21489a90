"""Hypothesis strategies for realistic model solutions and ground truths of verl's math data sources.

They mix the pieces verl's normalisers react to (boxes, fractions, radicals, units, percent, dollars,
commas, `=`, `####` and `Answer:` lines) with free text, unicode and long reasoning, so that the
differential tests hit every branch of verl's scorers, including the ones that raise inside verl.
"""

from __future__ import annotations

from hypothesis import strategies as st

# Pieces of LaTeX and text that verl's normalisation rewrites or strips.
LATEX_PIECES = [
    "\\frac{1}{2}", "\\frac12", "\\dfrac{3}{4}", "\\tfrac13", "\\frac1{72}", "\\frac{a}", "\\frac", "\\fracab",
    "\\sqrt{2}", "\\sqrt3", "\\sqrt", "\\sqrt{x}", "^\\circ", "^{\\circ}", "\\%", "\\\\%", "\\$", "$", "\\!", "\\\\",
    "\\left(", "\\right)", "\\text{ cm}", "\\text{ m}", "\\text{and}", ",\\text{and}", "\\text{m}", "\\text{s}",
    "\\mbox{in}", "\\textbf{5}", "\\overline{3}", "\\mathrm{th}", "\\ldots", "\\dots", "\\;", ",\\!", "{,}", "\\ ",
    "\\pi", "\\infty", "\\cdot", "x = ", "k=", "y=", "=", "/", ".", " .", "{.", ",", "{", "}", "(", ")", "[", "]",
    "-", "+", "^2", "\\text{}", "\\text{}^2", "\\text{\n}", "\\boxed{4}", "\\fbox{2}", "an ", "a ", ".$", '"',
]
UNITS = ["dollars", "cm", "degrees", "units", "inches", "mph", "km", "points", "students", "square", "ways",
         "feet", "minutes", "cents", "meters", "sue"]
UNICODE_BITS = ["é", "π", "√", "½", "²", "١٢", "😀", "\u3000", "\u00a0", "\x1c", "\x85", "\u017f", "İ", "\u2212",
                "\u200b", "中文"]

ascii_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
any_text = st.text(max_size=30)


@st.composite
def numbers(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "commas", "decimal", "leading_dot", "neg", "big", "slash"]))
    n = draw(st.integers(min_value=0, max_value=10**7))
    if kind == "int":
        return str(n)
    if kind == "commas":
        return f"{n:,}"
    if kind == "decimal":
        return f"{n}.{draw(st.integers(0, 999))}"
    if kind == "leading_dot":
        return f".{draw(st.integers(0, 99))}"
    if kind == "neg":
        return f"-{n}"
    if kind == "big":
        return str(draw(st.integers(10**15, 10**40)))
    a, b = draw(st.integers(-99, 99)), draw(st.integers(-99, 99))
    return f"{a}/{b}" if draw(st.booleans()) else f"{a:02d}/{b}"


def piece() -> st.SearchStrategy[str]:
    return st.one_of(
        numbers(),
        st.sampled_from(LATEX_PIECES),
        st.sampled_from(UNITS),
        st.sampled_from(UNICODE_BITS),
        st.sampled_from("abcxyzABC0123456789 \n"),
        ascii_text.map(lambda s: s[:6]),
    )


answers = st.lists(piece(), min_size=0, max_size=6).map("".join)


@st.composite
def variants(draw: st.DrawFn, answer: str) -> str:
    """A ground truth: the same answer, a normalisation-equivalent rewrite, or something else."""
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return answer
    if choice == 1:
        return answer.replace("\\frac", "\\dfrac").replace(" ", "")
    if choice == 2:
        return f"{answer} {draw(st.sampled_from(UNITS))}"
    if choice == 3:
        return answer.replace(",", "")
    if choice == 4:
        return f"x = {answer}"
    return draw(answers)


def wrap(answer: str, style: str) -> str:
    return {
        "boxed": f"\\boxed{{{answer}}}",
        "boxed_nested": f"\\boxed{{{{{answer}}}}}",
        "boxed_space": f"\\boxed {answer}$",
        "fbox": f"\\fbox{{{answer}}}",
        "hashes": f"#### {answer}",
        "answer_line": f"Answer: {answer}",
        "answer_loose": f"answer :\n {answer}",
        "dollars": f"${answer}$",
        "bare": answer,
    }[style]


STYLES = ["boxed", "boxed_nested", "boxed_space", "fbox", "hashes", "answer_line", "answer_loose", "dollars", "bare"]


@st.composite
def fillers(draw: st.DrawFn) -> str:
    """Reasoning text of 0 to ~1500 characters: short, around verl's 100/300-character windows, or long."""
    size = draw(st.sampled_from(["none", "short", "window", "long"]))
    if size == "none":
        return ""
    base = draw(st.lists(st.one_of(ascii_text, any_text, st.sampled_from(UNICODE_BITS)), min_size=1, max_size=4))
    text = " ".join(base)
    if size == "short":
        return text
    target = draw(st.integers(90, 320)) if size == "window" else draw(st.integers(400, 1500))
    while len(text) < target:
        text += " step: " + (text or "x")
    return text[:target]


# The final answer's wrapping, weighted towards what each family's scorer reads.
FINAL_STYLES = {
    "gsm8k": ["hashes"] * 6 + STYLES,
    "math_reward": ["boxed", "boxed_space", "boxed_nested"] * 2 + STYLES,
    "math_dapo": ["answer_line", "answer_loose", "boxed"] * 2 + STYLES,
}


@st.composite
def solutions(draw: st.DrawFn, family: str = "math_reward") -> tuple[str, str]:
    """(solution_str, ground_truth) for a data-source family (`gsm8k`, `math_reward`, `math_dapo`)."""
    answer = draw(numbers() if family == "gsm8k" and draw(st.integers(0, 3)) else answers)
    gt = draw(variants(answer))
    parts = [draw(fillers())]
    for _ in range(draw(st.integers(1, 3))):
        parts.append(wrap(draw(st.one_of(st.just(answer), answers)), draw(st.sampled_from(STYLES))))
        parts.append(draw(st.sampled_from(["", " ", "\n", ". ", "$", "\n\n"])))
    parts.append(wrap(answer, draw(st.sampled_from(FINAL_STYLES[family]))))
    parts.append(draw(st.one_of(st.just(""), st.sampled_from([".", " $.", "\n", "}", "$"]), fillers())))
    return "".join(parts), gt
