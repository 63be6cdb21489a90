"""Bad input: verl's result or a clear verl-ext exception, never a panic, a hang or a crash."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from verl.utils.reward_score import default_compute_score

from verl_ext import _core
from verl_ext.exceptions import InputTypeError, InvalidInputError, VerlExtError
from verl_ext.reward import compute_score, compute_scores, format_score

SOURCES = ["openai/gsm8k", "lighteval/MATH", "math_dapo", "aime24"]
MB = 1 << 20


def verl(ds: str, sol: Any, gt: Any) -> Any:
    try:
        return default_compute_score(ds, sol, gt)
    except Exception as e:  # noqa: BLE001
        return e


def ours(ds: str, sol: Any, gt: Any) -> Any:
    try:
        return compute_score(ds, sol, gt)
    except Exception as e:  # noqa: BLE001
        return e


@pytest.mark.parametrize("data_source", SOURCES)
@pytest.mark.parametrize(
    ("solution", "ground_truth"),
    [
        ("Answer: \ud800x \\boxed{\udc00} #### 1", "\udc00"),
        ("Answer: \ud83d\ude00 \\boxed{\ud800}", "\ud800"),
        ("#### 1\x00\nAnswer: 1\x00 \\boxed{1\x00}", "1\x00"),
        ("\x00" * 1000, "\x00"),
        ("x" * MB + "\\boxed{5} Answer: 5 #### 5", "5"),
        ("\\boxed{" + "{" * MB + "}", "5"),
        ("\\boxed{" + "\\frac" * (MB // 5) + "}", "1"),
        ("Answer: " + "$" * MB, "$"),
        ("\\boxed{" + "\\sqrt{" * 50000 + "}" * 50000 + "}", "x"),
        ("#### 1", None),
        ("\\boxed{1} Answer: 1", 1),
        ("\\boxed{1}", {"answer": "1"}),
        ("\\boxed{1}", ["1"]),
        (None, "1"),
        (b"\\boxed{1}", "1"),
        (12, "12"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else f"str{len(v)}",
)
def test_bad_input_matches_verl_or_raises_clearly(data_source: str, solution: Any, ground_truth: Any,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ref, got = verl(data_source, solution, ground_truth), ours(data_source, solution, ground_truth)
    capsys.readouterr()
    if isinstance(ref, Exception):
        # verl raises AttributeError/TypeError here; verl-ext names the problem instead.
        assert isinstance(got, InputTypeError), got
        assert "must be a str" in str(got)
    else:
        assert type(got) is type(ref) and got == ref


def test_numpy_strings_are_strings() -> None:
    arr = np.array(["#### 7", "7"], dtype=object).astype(str)
    assert compute_score("openai/gsm8k", arr[0], arr[1]) == default_compute_score("openai/gsm8k", arr[0], arr[1])


def test_surrogate_mapping_cannot_be_confused_with_plane_16() -> None:
    with pytest.raises(InvalidInputError, match="surrogates"):
        compute_score("math_dapo", "Answer: \ud800 \U0010f800", "1")
    # Either alone is fine and round-trips.
    assert compute_score("math_dapo", "Answer: \U0010f800", "\U0010f800")["pred"] == "\U0010f800"
    assert compute_score("math_dapo", "Answer: \udbff", "x")["pred"] == "\udbff"


def test_unknown_and_non_string_data_sources() -> None:
    with pytest.raises(NotImplementedError, match=r"data_source='nope'"):
        compute_score("nope", "x", "y")
    with pytest.raises(InputTypeError, match="data_sources\\[0\\] must be a str"):
        compute_score(None, "x", "y")  # type: ignore[arg-type]


def test_batch_arguments_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="same length"):
        compute_scores(["openai/gsm8k"], ["a", "b"], ["1"])
    with pytest.raises(InvalidInputError, match="extra_infos"):
        compute_scores(["openai/gsm8k"], ["a"], ["1"], extra_infos=[{}, {}])
    with pytest.raises(TypeError):
        compute_scores(["openai/gsm8k"], 5, ["1"])  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        compute_scores(["openai/gsm8k", "math_dapo"], ["#### 1", "Answer: 1"], ["1", 1])
    assert compute_scores([], [], []) == []


def test_errors_form_one_hierarchy() -> None:
    for cls in (InputTypeError, InvalidInputError):
        assert issubclass(cls, VerlExtError)
    with pytest.raises(InvalidInputError):
        _core.FormatSpec([])
    assert format_score(None) == 0.0  # type: ignore[arg-type]
    assert format_score("<think>\ud800</think><answer>1</answer>") == 1.0


DEEP = "[" * 100000 + "]" * 100000


@pytest.mark.parametrize("data_source", ["apps", "humaneval"])
@pytest.mark.parametrize("ground_truth", [None, 5, 1.5, b"{}", ["1"], {"inputs": "1", "outputs": "1"},
                                          {"inputs": [1], "outputs": [1]}, {"inputs": [DEEP], "outputs": ["1"]},
                                          {"inputs": "12", "outputs": "1"}, {"inputs": "1", "outputs": "12"},
                                          {"fn_name": "f", "inputs": "1", "outputs": "1"},
                                          DEEP, '{"test": ' + DEEP + "}", {"test": None, "entry_point": "f"},
                                          {"test": "def check(c): pass", "entry_point": 5}, "\ud800", "{"],
                         ids=lambda v: type(v).__name__ if not isinstance(v, str) else f"str{len(v)}")
def test_bad_code_ground_truths_score_zero(data_source: str, ground_truth: Any,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever the ground truth, a code sample gets a score, never an exception: verl's for the
    prime_code sources, 0 for humaneval (none of these is a usable assert test)."""
    from verl_ext import sandbox

    if not sandbox.capabilities()["full_isolation"]:
        pytest.skip("this host cannot sandbox")
    code = "def f(x):\n    return 1\nprint(1)"
    got = ours(data_source, code, ground_truth)
    assert got == (verl(data_source, code, ground_truth) if data_source == "apps" else 0.0), got
    capsys.readouterr()
