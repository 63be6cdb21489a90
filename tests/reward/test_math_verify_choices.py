"""Multiple choice as models write it: AQuA's option labels (``C)620``), a letter reference read for letters by
default where an answer is stated, choosing phrases and foreign answer words, a letter that denies another (``C,
not B``), and a letter revised, restated, negated, doubted, ruled out or listed.

- A reference that is one choice letter (``C``, ``(C)``, ``\\text{(C)}``) has the completion's choice letters read
  whatever ``extraction`` says, where an answer is stated (after ``answer`` with only stating words between, a
  choosing phrase, a foreign answer word, a whole one-line text): 16 held-out AQuA completions written ``C)620``
  scored 0. Two reviews' generated endings (2,400 and 2,600): correct letter paid 1583 -> 2034 and 1248 -> 1984,
  no wrong letter paid before or after. A stated letter beside another it offers, or guessed, is none (red teams
  26 and 27); of two stated letters the last is read, as of two stated values. The last letter anywhere stays
  ``string``'s (opt-in): in prose it is as often a point, a unit, an option ruled out or a list's last item.
- ``C)620``, ``'E)1,900'``, ``A)(a + b)(a - b)`` are labels; a letter closing a bracket (``P(A and B)``) is not.
- A choosing phrase (``The correct option is (A)``, ``option (A) is correct``) or a foreign answer word
  (``Réponse : A``, ``答案`` and a fullwidth colon) outranks a letter a later remark names (``Note that option D
  is a common trap``); the last letter of a text is one the text does not rule out or doubt where it stands.
- Every option listed (``A)5 B)6 C)7``, one per line, ``C)7/D)8``, a table, ``A vs B``, ``A. B. C.``) or two
  joined in another language (``C ou D``, ``C veya D``, ``C 还是 D``) chooses none; a letter revised by another
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


def paid(text: str, extraction: tuple[str, ...] = ("latex", "expr")) -> list[str]:
    """The letters whose reference ``text`` is paid for."""
    return [letter for letter in LETTERS if verify(text, letter, extraction=extraction)["score"] == 1.0]


@pytest.mark.parametrize("text, letter", [
    # Held-out AQuA completions (GPT-4, Program-of-Thoughts) as they end.
    ("So, the correct answer is:\nC)620", "C"),
    ("The correct answer is B)5.", "B"),
    ("So the correct answer is 'E)1,900'.", "E"),
    ("D)15", "D"),
    ("A)(a + b)(a - b)", "A"),
    ("HM = 4 / 0.01041667 \u2248 384\n\nThe correct answer is A)384.", "A"),
    ("So, the correct answer is B) Rs. 1680.", "B"),
    ("So, the correct answer is:\nA) 4 1/3 km/h", "A"),
    ("The correct answer is A) 9 Trousers.", "A"),
    ("The correct option is (B).", "B"),
    ("\u7b54\u6848\u662f B\u3002", "B"),
    ("La bonne r\u00e9ponse est (B).", "B"),
    # Another letter denied keeps the answer, as another value does (`5, not 6`).
    # A choosing phrase or a foreign answer word outranks a letter a later remark names.
    ("Hence, option (A) is correct.\n\nNote that option D is a common trap.", "A"),
    ("The correct option is (A) Route C.", "A"),
    ("R\u00e9ponse : A\n\nNote that option B is a common trap because it ignores the units.", "A"),
    ("\u7b54\u6848\uff1aD\n\nNote that option C is a common trap.", "D"),
    ("The correct choice is B, Plan D.", "B"),
    ("The correct choice is A, 405 m/s.\n\nVerification: plugging back in confirms option A (405 m/s).", "A"),
    ("The options are:\n(A) 87/94\n(B) 99/106\n(B) is incorrect.\n\nThe correct option is (A) 87/94.", "A"),
    ("The correct option is (C) $562\\pi$.", "C"),
    ("**B) 70%**\n\nWe can rule out C since it doesn't satisfy the condition.", "B"),
    ("The answer is C, not B.", "C"),
    ("The answer is (C), not (B).", "C"),
    ("Answer: C (not B)", "C"),
])
def test_option_labels_and_denials_are_read(text: str, letter: str) -> None:
    assert paid(text) == [letter]
    assert paid(text, STRING) == [letter]


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
    "La r\u00e9ponse est C ou D.",
    "Answer: C oder D",
    "The answer is C o D.",
    "Answer: C (70%) / D (30%)",
    "(A) | (B) | (C) | (D) | (E)",
    "A vs B vs C vs D vs E",
    "* (A)\n* (B)\n* (C)\n* (D)\n* (E)",
    "The correct option is C or D.",
    "The answer is not sure, C.",
    "I think C)7 or D)8, not sure.",
])
def test_options_listed_or_hedged_choose_none(text: str) -> None:
    assert paid(text) == []
    assert paid(text, STRING) == []


@pytest.mark.parametrize("text", [
    "We need P(A and B) and f(x, C).",
    "so g(x) = (x + B)^2 holds",
    "Let the events be (A \u222a B) and (B \u2229 C).",
])
def test_a_letter_closing_a_bracket_is_no_label(text: str) -> None:
    assert paid(text) == []
    assert paid(text, STRING) == []


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


def test_a_value_reference_is_not_read_for_letters() -> None:
    """Letters are read for a letter reference only: a value reference reads the value, not its option's label."""
    assert verify("The answer is (B) 3.", "3")["score"] == 1.0
    assert verify("Answer: B", "3")["score"] == 0.0
    assert verify("The correct option is (B) 3.", "B", extraction=("latex",))["score"] == 1.0
    # A letter outside `choices` is no choice.
    assert verify("The correct option is (F).", "F")["score"] == 0.0


@pytest.mark.parametrize("text", [
    # Red team 25: letters read by default only where an answer is stated, never the last letter anywhere.
    "- C) 620\n- D) 640", "| C) 620 |\n| D) 640 |", "Candidates: (C) 620, (D) 640", "1. (C) 620\n2. (D) 640",
    "(C) 620 \u8fd8\u662f (D) 640", "A) 1\nB) 2\nC) 3\nD) 4\nE) 5", "A. B. C. D. E.", "A:, B:, C:, D:, E:",
    "C is a trap.", "C can be ruled out", "C is a distractor", "C... hmm", "Answer: (C)=(D)", "Answer: C = D",
    "Answer: C veya D", "C \u06cc\u0627 D", "Answer: C atau D", "C. \u307e\u305f\u306f D.", "C: ou D:",
    "Answer: C (\u0634\u0627\u06cc\u062f)", "C (muhtemelen)", "The answer is wahrscheinlich C.",
    "The answer: A few options remain.", "Final answer: A lot of work.", "E.g. consider x.", "B.S. degree",
    "E. coli", "Vitamin C", "Point C lies on the circle", "Answer: 5 C", "The answer is D. Some might say C",
])
def test_letters_are_read_by_default_where_an_answer_is_stated(text: str) -> None:
    assert all(c not in paid(text) for c in "ABCE")  # only `D` is ever committed to above


@pytest.mark.parametrize("text, letter", [
    ("E)-897\n\nNote that option A is a common trap because it ignores the units.", "E"),
    ("It is not A or B, so C.", "C"),
    ("The closest answer option to this value is:\n\nB)s.5723", "B"),
])
def test_the_last_letter_anywhere_stays_opt_in(text: str, letter: str) -> None:
    assert paid(text) == []
    assert paid(text, STRING) == [letter]


@pytest.mark.parametrize("text", [
    # Red team 26: another letter offered beside a stated one, by any joiner, or one letter under a condition or a
    # guess; read by default, none is a choice.
    "Answer: B \u2192 C", "Answer: B und C", "Answer: B then C", "Answer: B, but C also works", "Answer: B \\lor C",
    "Answer: B (and C)", "Answer: B as well as C", "Answer: B\u304bC", "Answer: B\u3001C", "Answer: B\u3010C\u3011",
    "Option B \u2192 C is correct", "B \u2228 C is the right choice", "Option B\nC is correct", "Answer: B (60%)",
    "Answer: B (est.)", "Answer: B when n is odd", "Answer: B (sonst C)", "Option I think B is correct",
    "I think B is the right choice", "Option if n is odd then B is correct", "\\boxed{C}\n**Answer: B**",
    # Red team 27: labels, LaTeX spacing, list items, filler words, guesses on the line, a letter in an equation.
    "Answer: (C) y (D)", "The answer is (C) either (D)", "The correct option is C ... D", "Answer: (C)\u3001(D)",
    "Answer: (C) \\lor (D)", "The correct option is (C)\n- (D)", "Answer: (C) x x x or (D)",
    "Réponse : (C)\\,\\,\\, \u6216 D", "The correct option is C \\; D", "Answer: (C)?", "Answer: ? C",
    "Answer: C sans doute", "Answer: C. (I think)", "Answer: C. if x>0", "The correct option is C (50/50)",
    "Answer: C. (60%)", "vielleicht The correct option is C", "Answer: E = mc^2", "The correct option is Vitamin C",
])
def test_a_letter_offered_beside_another_or_guessed_is_no_choice(text: str) -> None:
    assert paid(text) == []


@pytest.mark.parametrize("text, letter", [
    ("Wait, C.\n**Answer: B**", "B"),
    ("B\u3002\u4e0d\u662f A", "B"),
    ("Answer: C because B is too small", "C"),
    ("The correct option is (C) Plan B", "C"),
    ("Answer: (C) Both A and B", "C"),
    ("The answer: D, it doesn't make sense for it to be A or B", "D"),
    # Review 26: a verification naming an option it rejects.
    ("The answer is C.\n\nVerification: substituting x = 3 satisfies the equation, so C is correct and A is not.",
     "C"),
])
def test_a_letter_explained_or_named_beside_the_choice_keeps_it(text: str, letter: str) -> None:
    assert paid(text) == [letter]
