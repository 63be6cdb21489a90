"""Multiple choice as models write it, read with the ``string`` target: AQuA's option labels (``C)620``; 16
completions of the held-out corpus), a letter that denies another (``C, not B``), and a letter revised, restated,
negated or listed.

- ``C)620``, ``'E)1,900'``, ``A)(a + b)(a - b)`` are labels; a letter closing a bracket (``P(A and B)``) is not.
- Every option listed (``A)5 B)6 C)7``, one per line, ``C)7/D)8``) chooses none; a letter revised by another
  letter is not paid, nor replaced by a letter the reasoning ruled out earlier; one revised by values only and
  restated is paid.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verl_ext.reward import verify

LETTERS = "ABCDE"


STRING = ("latex", "expr", "string")


def paid(text: str) -> list[str]:
    """The letters whose reference ``text`` is paid for, choice letters read."""
    return [letter for letter in LETTERS if verify(text, letter, extraction=STRING)["score"] == 1.0]


@pytest.mark.parametrize("text, letter", [
    # Held-out AQuA completions (GPT-4, Program-of-Thoughts) as they end.
    ("So, the correct answer is:\nC)620", "C"),
    ("The correct answer is B)5.", "B"),
    ("So the correct answer is 'E)1,900'.", "E"),
    ("D)15", "D"),
    ("A)(a + b)(a - b)", "A"),
    ("HM = 4 / 0.01041667 \u2248 384\n\nThe correct answer is A)384.", "A"),
    ("So, the correct answer is B) Rs. 1680.", "B"),
    ("The closest answer option to this value is:\n\nB)s.5723", "B"),
    ("So, the correct answer is:\nA) 4 1/3 km/h", "A"),
    ("The correct answer is A) 9 Trousers.", "A"),
    ("The correct option is (B).", "B"),
    ("\u7b54\u6848\u662f B\u3002", "B"),
    ("La bonne r\u00e9ponse est (B).", "B"),
    # Another letter denied keeps the answer, as another value does (`5, not 6`).
    ("The answer is C, not B.", "C"),
    ("The answer is (C), not (B).", "C"),
    ("Answer: C (not B)", "C"),
])
def test_option_labels_and_denials_are_read(text: str, letter: str) -> None:
    assert paid(text) == [letter]


def test_a_letter_revised_by_values_and_restated_is_paid() -> None:
    # Sky-T1 (real completions): the letter, `Wait, but just to be thorough`, values of other options, the letter.
    text = ("(A) Line: A line would vary.\n\nTherefore, the correct answer should be (C) Plane.\n\nWait, but just to "
            "be thorough, could \\( z = c \\) be a line? A sphere would require \\( r^2 + z^2 = a^2 \\).\n\nA cone "
            "would have an equation like \\( z = k r \\).\n\nTherefore, the only correct option is (C) Plane.")
    assert paid(text) == ["C"]
    # Revised to another letter: neither, and never an earlier letter of the text instead.
    assert paid("Option A is tempting. The answer is (C). Wait, that is wrong: it is (D).") == []
    assert paid("(A) Line: A line is out.\n\nSo the answer is (C). Wait, no, (C) fails.") == []
    # A letter withdrawn where it stands is not replaced by one ruled out earlier in the reasoning (a review's
    # endings), only by the one it is set against (`C non A`).
    assert paid("We can rule out C since it is bad.\n\nANSWER: D I hope it is correct.") == []
    assert paid("We can rule out A.\n\nC)605 (approx.)") == []
    assert paid("La r\u00e9ponse est C non A.") == ["C"]


@pytest.mark.parametrize("text", [
    "The answer is A)5 B)6 C)7 D)8 E)9",
    "A)5 B)6 C)7 D)8 E)9",
    "A)5\nB)6\nC)7\nD)8\nE)9",
    "The answer is C)7 or D)8",
    "The answer is C)7, D)8",
    "The answer is C)7,D)8",
    "The answer is C)7/D)8",
    "Answer: C) 7\nD) 8",
    "Answer: (C) 7\n(D) 8",
    "Answer: C)7 and D)8 both work",
    "The answer is C)7 (or maybe D)8)",
    "The answer is C)7. Not sure, could be D).",
    "The answer is C) or D)",
    "The answer is C, not sure.",
    "The answer is C)620, I think.",
    "Answer: (C)(D)",
])
def test_options_listed_or_hedged_choose_none(text: str) -> None:
    assert paid(text) == []


@pytest.mark.parametrize("text", [
    "We need P(A and B) and f(x, C).",
    "so g(x) = (x + B)^2 holds",
    "Let the events be (A \u222a B) and (B \u2229 C).",
])
def test_a_letter_closing_a_bracket_is_no_label(text: str) -> None:
    assert paid(text) == []


@settings(max_examples=60, deadline=None)
@given(chosen=st.sampled_from(LETTERS), value=st.integers(0, 10**6),
       lead=st.sampled_from(["The correct answer is ", "So, the correct answer is:\n", "Answer: ", ""]),
       listed=st.booleans())
def test_an_option_label_pays_its_letter_only(chosen: str, value: int, lead: str, listed: bool) -> None:
    """One label pays its letter (and no value reference); every option listed pays none."""
    if listed:
        text = lead + " ".join(f"{c}){value + k}" for k, c in enumerate(LETTERS))
        assert paid(text) == []
    else:
        text = f"{lead}{chosen}){value}."
        assert paid(text) == [chosen]
        assert verify(text, str(value + 1), extraction=STRING)["score"] == 0.0
