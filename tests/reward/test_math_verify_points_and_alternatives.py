"""A twenty-first red team and a fifth review of honest endings, each class with its honest and hostile twins.

- The solutions of one variable (``x=2 \\text{ or } x=3``, ``x=2, x=3``) are a set: never the point or the open
  interval ``(2, 3)``, which they were paid for beside ``\\{2, 3\\}``.
- Named values against an unnamed point are taken in the order of their names (``y=1, x=2`` is the point
  ``(2, 1)``): they were taken as written, paying ``(1, 2)``.
- ``or`` (and ``but``) in more languages between two values (``42 oppure 43``, ``\\boxed{42} eða 43``), and ``or``
  written with look-alike letters (Cyrillic, circled, spaced ``O R``, hyphenated ``o-r``), join them: neither is paid.
- Bounds, doubts and negations in more languages around a value (``au plus 42``, ``42 (vielleicht)``, ``42 ではない``,
  ``περίπου 42``), each beside honest endings in the same languages; French ``pas`` after a determiner is a noun.
- The fifth review's honest endings: ``The final answer is: 2\\sqrt{3}``, ``Answer — \\frac{1}{2}``, a proof's end
  mark after the answer, a remark with ``instead`` and no value; a value denied after the noun the answer counts.
- Another value after the answer that the text accepts (``43 is arguable``, ``However, 43 is also defensible``),
  attributes to someone (``some would say 43``, ``the official key may say 43``), puts under an aside's label
  (``NB: 43``), a bracket in a text group (``\\text{ (43?)}``) or another case withdraws it; a remark that refuses the
  other value (``which misses …``, ``a common trap``) keeps it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verl_ext.reward import verify

SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
pairs = st.tuples(st.integers(-99, 99), st.integers(-99, 99)).filter(lambda p: p[0] != p[1])


def score(completion: str, reference: str) -> float:
    return verify(completion, reference)["score"]


@SETTINGS
@given(pairs, st.sampled_from(["\\text{ or }", ", ", "\\text{ and }"]))
def test_solutions_of_one_variable_are_a_set(pair: tuple[int, int], joint: str) -> None:
    a, b = pair
    answer = f"\\boxed{{x={a}{joint}x={b}}}"
    assert score(answer, f"\\{{{a}, {b}\\}}") == 1.0
    assert score(answer, f"\\{{{b}, {a}\\}}") == 1.0
    assert score(answer, f"{a}, {b}") == 1.0
    assert score(answer, f"x={b} \\text{{ or }} x={a}") == 1.0
    assert score(answer, f"({a}, {b})") == 0.0  # a point has two coordinates; an open interval is not its ends
    assert score(answer, f"x={a}, y={b}") == 0.0
    assert score(answer, f"[{min(a, b)}, {max(a, b)}]") == 0.0


@SETTINGS
@given(pairs, st.sampled_from([("x", "y"), ("a", "b"), ("m", "n"), ("x_1", "x_2"), ("p", "q")]))
def test_named_values_against_a_point_in_the_order_of_their_names(pair: tuple[int, int], names: tuple[str, str]
                                                                  ) -> None:
    a, b = pair
    first, second = names
    in_order = f"\\boxed{{{first}={a}, {second}={b}}}"
    reversed_order = f"\\boxed{{{second}={b}, {first}={a}}}"
    for answer in (in_order, reversed_order):
        assert score(answer, f"({a}, {b})") == 1.0
        assert score(answer, f"({b}, {a})") == 0.0
        assert score(answer, f"{first}={a}, {second}={b}") == 1.0


@pytest.mark.parametrize(("answer", "reference", "expected"), [
    ("\\boxed{y = 1, x = 2}", "(2, 1)", 1.0), ("The solution is \\boxed{y = 1, x = 2}.", "(1, 2)", 0.0),
    ("\\boxed{x_2 = 5, x_1 = 3}", "(3, 5)", 1.0), ("\\boxed{x_{10} = 5, x_2 = 3}", "(3, 5)", 1.0),
    # Names without a conventional order keep the order written.
    ("\\boxed{x = 4, \\lambda = 2}", "(4, 2)", 1.0), ("\\boxed{(2, 1)}", "y = 1, x = 2", 1.0),
])
def test_named_values_cases(answer: str, reference: str, expected: float) -> None:
    assert score(answer, reference) == expected


OR_WORDS = ["oppure", "albo", "atau", "hoặc", "hoặc là", "eða", "vai", "ili", "чи", "или же", "ó", "o bien", "ou bien",
            "ya da", "yahut", "või", "arba", "یا", "या", "বা", "או", "또는", "혹은", "หรือ", "または", "もしくは", "bzw.",
            "instead of", "ama", "aber", "pero", "но"]


@SETTINGS
@given(st.sampled_from(OR_WORDS), st.integers(2, 10**6), st.sampled_from(["", "The answer is ", "Answer: ", "So "]))
def test_another_languages_or_between_two_values_pays_neither(word: str, value: int, opening: str) -> None:
    """``42 oppure 43`` paid 43 (the last number) and ``\\boxed{42} eða 43`` paid 42: words for ``or`` (and ``but``)
    in more languages join two values."""
    for text in (f"{opening}{value} {word} {value + 1}", f"{opening}\\boxed{{{value}}} {word} {value + 1}"):
        assert score(text, str(value)) == 0.0, text
        assert score(text, str(value + 1)) == 0.0, text


@pytest.mark.parametrize("word", ["\u043e", "\u24de\u24e1", "O R", "o-r", "\uff2f\uff52", "\u041eR"])
def test_or_written_with_look_alike_letters_joins_two_values(word: str) -> None:
    assert score(f"\\boxed{{42}} {word} 43", "42") == 0.0


@pytest.mark.parametrize(("text", "reference"), [
    ("\\boxed{12} of 30", "12"), ("The answer is \\boxed{42}. Aber 3 davon sind rot.", "42"),
    ("So the answer is 42 people, in 3 groups of 14.", "42"), ("\\boxed{5} a.m.", "5"),
    ("La respuesta es \\boxed{42}. Pero primero verificamos: 6 \\times 7 = 42.", "42"),
])
def test_words_after_an_answer_that_join_nothing_keep_it(text: str, reference: str) -> None:
    assert score(text, reference) == 1.0, text


BEFORE = ["au plus", "como máximo", "co najmniej", "en az", "en fazla",
          "ít nhất", "อย่างน้อย", "على الأقل", "לפחות", "कम से कम", "적어도",
          "최소", "최대", "paling sedikit", "περίπου", "yakla\u015f\u0131k",
          "sekitar", "khoảng", "ประมาณ", "حوالي", "בערך", "लगभग", "circa",
          "bukan", "không phải", "ไม่ใช่", "ليس", "לא", "inte", "nem", "nicht",
          "δεν είναι", "n'est pas", "no es", "não é", "non è", "nie jest"]
AFTER = ["oder mehr", "ou plus", "ou mais", "o más", "及以上", "大概", "değil",
         "ではない", "(vielleicht)", "(peut-être)", "(也许)", "(たぶん)", "(아마)",
         "(может быть)", "(forse)", "(talvez)", "(belki)", "(mungkin)",
         "(misschien)", "(kanskje)", "(ehkä)", "(ربما)", "(אולי)", "(शायद)",
         "hopefully", "(rough)", "barring errors"]


@SETTINGS
@given(st.sampled_from(BEFORE), st.integers(2, 10**6))
def test_bounds_doubts_and_negations_before_a_value_in_more_languages(word: str, value: int) -> None:
    assert score(f"{word} \\boxed{{{value}}}", str(value)) == 0.0


@SETTINGS
@given(st.sampled_from(AFTER), st.integers(2, 10**6))
def test_bounds_doubts_and_negations_after_a_value_in_more_languages(word: str, value: int) -> None:
    assert score(f"\\boxed{{{value}}} {word}", str(value)) == 0.0


@pytest.mark.parametrize("text", [
    "Die Antwort ist nicht 41, sondern \\boxed{42}.", "La risposta non è 41 ma \\boxed{42}.",
    "No es 41, es \\boxed{42}.",
    "A resposta é \\boxed{42}, não 41.", "La réponse est \\boxed{42}. Ne pas oublier les unités.",
    "Jadi jawabannya adalah \\boxed{42}.", "Câu trả lời là \\boxed{42}.", "Cevap \\boxed{42} olur.",
    "الجواب هو \\boxed{42}", "התשובה היא \\boxed{42}", "उत्तर \\boxed{42} है।", "Svaret är \\boxed{42}.",
    "Die Lösung lautet \\boxed{42} (sicher).", "Il y a donc \\boxed{42} pommes au total.", "정답은 \\boxed{42}입니다.",
    "答えは \\boxed{42} です。", "答案是 \\boxed{42} 个。", "Odpowiedź: \\boxed{42}. Nie ma innych rozwiązań.",
    "Es gibt \\boxed{42} Möglichkeiten, nicht mehr.", "La respuesta es \\boxed{42}, o sea 6 por 7.",
    "Le nombre de pas est \\boxed{42}.",
])
def test_honest_endings_in_those_languages_keep_the_answer(text: str) -> None:
    assert score(text, "42") == 1.0


ANSWERS = [("2\\sqrt{3}", "2\\sqrt3"), ("12\\pi", "12\\pi"), ("\\frac{3}{4}", "\\frac34"), ("(2, 3)", "(2,3)"),
           ("[1, 5)", "[1,5)"), ("-3", "-3"), ("x^2+1", "x^2+1")]


@pytest.mark.parametrize(("answer", "reference"), ANSWERS)
def test_honest_endings_of_the_fifth_review(answer: str, reference: str) -> None:
    """Each scored 0: ``The final answer is:`` (MetaMath's colon after the final answer's words) read only the
    first factor; ``Answer —`` (a spaced dash as the label's colon) found nothing or the first factor; a proof's end
    mark after the answer (``\\(\\blacksquare\\)``) joined it as a second value; ``instead`` in a remark on
    another reading, with no value, withdrew the answer."""
    for text in (f"The final answer is: {answer}", f"Answer — {answer}",
                 f"The answer is ${answer}$ \\(\\blacksquare\\)",
                 f"So we get $\\boxed{{{answer}}}$.\n\n---\n\n**Note:** If the problem intended degrees instead, the "
                 "answer would differ."):
        assert score(text, reference) == 1.0, text


@pytest.mark.parametrize(("text", "expected"), [
    # Another value after the dash, mark or remark still counts against the answer.
    ("Answer — 12 or 13", 0.0), ("The answer is $12$ \\(\\blacksquare\\) $13$", 0.0),
    ("\\boxed{12}. If it were inclusive instead, the answer would be 13.", 0.0),
    ("\\boxed{12}. Instead, it is 13.", 0.0), ("\\boxed{12}. Actually, if I recount, hmm.", 0.0),
    # A value denied after the noun it counts keeps the answer; the answer itself denied does not.
    ("The answer is $\\boxed{12}$ boxes (not 13, which is what he already has).", 1.0),
    ("\\boxed{12} boxes, not 12", 0.0), ("\\boxed{12}, not 12", 0.0), ("\\boxed{12} is not 13", 0.0),
])
def test_the_same_forms_with_another_value_or_a_denial(text: str, expected: float) -> None:
    assert score(text, "12") == expected


@pytest.mark.parametrize("after", [
    ", though 43 is arguable", " — 43 also plausible.", "\n\nHowever, 43 is also defensible.",
    "\n\nThe official key may say 43.", " (some sources say 43)", ". Some would say 43.", ", failing that 43",
    "\n\nNB: 43", "\\text{ (43?)}", " (43 in the other case)", ". Many students give 43.",
    ". Some would say 43, but who knows.", ". Though some say 43, it may be either.",
])
def test_another_value_accepted_attributed_or_set_aside_withdraws_the_answer(after: str) -> None:
    """Red team 21: each paid 42 beside another value the text accepts, attributes to someone, or puts aside."""
    assert score(f"\\boxed{{42}}{after}", "42") == 0.0
    assert score(f"\\boxed{{42}}{after}", "43") == 0.0


@pytest.mark.parametrize("after", [
    ". Many students give 41, which misses the last term.", ". A common trap is to say 41.",
    ". Many people get 41, forgetting the last one.", "\n\nNote: the answer key also gives 42.",
    ". Note: 42 is even.", ". (Some sources count 0 as natural, but the problem says positive.)",
    ". However, 42 is also the number of ways with repetition allowed.", ". In each case there are 4 choices.",
    ". Both cases give 42.", ". Though 42 is large, it is correct.",
    # A sixth review: another value conceded or turned back in the rest of its sentence.
    ". Even though the book says 41, our computation is correct.",
    ". Although 41 seems plausible at first, we must include Sunday.",
    ". Although the answer key says 41, I believe it is a misprint.",
    ". Though the key says 41, that counts the empty set.",
    ". (The textbook lists 41, but that includes the empty set.)",
    ". Some sources list 41, but they include the empty set.",
])
def test_remarks_on_other_values_that_refuse_them_keep_the_answer(after: str) -> None:
    assert score(f"\\boxed{{42}}{after}", "42") == 1.0


@pytest.mark.parametrize("unit", ["The final answer is ", "final answer ", "Final Answer: ", "The answer is: ",
                                  "Answer — ", "The final answer is $"])
def test_a_megabyte_of_answer_statements_is_read_in_linear_time(unit: str) -> None:
    """Red team 22: ``'The final answer is ' * n + '5'`` took 225 s at 1 MB (each statement read on to the line's
    end); each reading now tries the last few statements only."""
    import time

    text = unit * (1_000_000 // len(unit)) + "5"
    started = time.monotonic()
    verify(text, "5")
    assert time.monotonic() - started < 5  # ~0.06 s alone


@pytest.mark.parametrize(("text", "reference", "expected"), [
    ("\\boxed{(y,x)=(3,4)}", "(3,4)", 0.0), ("\\boxed{(y,x)=(3,4)}", "(4,3)", 1.0),
    ("\\boxed{(b,a)=(3,4)}", "(3,4)", 0.0),
    ("\\boxed{(x,y)=(3,4)}", "(3,4)", 1.0), ("\\boxed{(x,y)=(3,4)}", "(x,y)=(3,4)", 1.0),
    ("The answer is $\\boxed{3} \\cup \\{4\\}$.", "3", 0.0), ("$\\boxed{3} \\setminus\\{3\\}$", "3", 0.0),
    ("$\\boxed{3} \\uparrow\\uparrow 2$", "3", 0.0), ("$\\boxed{3} \\triangle \\{4\\}$", "3", 0.0),
])
def test_names_of_a_tuple_equation_and_set_operators_after_a_box(text: str, reference: str, expected: float) -> None:
    assert score(text, reference) == expected


@pytest.mark.parametrize("after", [
    ", vermutlich", ", 大概", "\uff0c可能吧", ", наверное", ", たぶん", ", 아마도",
    ", ربما", ", शायद", ", I think.",
    ", presumably.", "\uff0c也可能是6", "\uff0c或6", "\uff0c或者6", " ou peut-être 6", " o forse 6",
    " o quizás 6", " veya belki 6",
    "、あるいは6", ", second choice 6", ", runner-up 6", "\n\n> Note: 6 is equally valid.",
])
def test_red_team_22_hedges_after_the_answer(after: str) -> None:
    assert score(f"\\boxed{{5}}{after}", "5") == 0.0


@pytest.mark.parametrize("after", [
    ", to 6 decimal places", ", which is 6 - 1", "\uff0c共6个", "\uff0c即6减1", "\uff0c因为 2+3=5。",
    ". Note: 6 is the number of edges.",
    ". The second choice 6 would violate the constraint.", ", o sea 6 menos 1.", ", I checked it twice.",
])
def test_honest_remarks_after_the_answer_keep_it(after: str) -> None:
    assert score(f"\\boxed{{5}}{after}", "5") == 1.0


@pytest.mark.parametrize("word", ["**n**ot", "*n*ot", "n*o*t", "m**ay**be", "**appro**ximately", "$n$ot", "n o t",
                                  "m-a-y-b-e", "n_o_t", "\u207f\u1d52\u1d57"])
def test_hedge_words_split_by_markup_spaced_or_in_modifier_letters(word: str) -> None:
    """Red team 22: emphasis or a math delimiter inside a word, letters spaced or hyphenated apart, and small
    modifier letters hid ``not`` and ``maybe`` before the answer."""
    assert score(f"The answer is {word} \\boxed{{5}}.", "5") == 0.0


@pytest.mark.parametrize("text", ["The answer is a b c \\boxed{5}.", "The sides a b and c give \\boxed{5}.",
                                  "So $x$ and $y$ sum to \\boxed{5}.", "The answer is **five**: \\boxed{5}.",
                                  "Let **n** be the count; then n = \\boxed{5}."])
def test_letters_and_markup_that_spell_no_cue_keep_the_answer(text: str) -> None:
    assert score(text, "5") == 1.0
