"""HTML character references around a math answer score as the text they render as.

The verifier refuses credit when a relation, negation or approximation stands next to the answer (``x \\ge
\\boxed{5}`` is a bound). A policy can try to hide that symbol as an HTML reference the decoder does not know;
the decoder reads every WHATWG named reference and every numeric form a browser renders, as Python's
``html.unescape`` does, so each completion here must score exactly as its ``html.unescape`` text does.
"""

from __future__ import annotations

import html
import importlib.util
from html.entities import html5
from pathlib import Path

import pytest

from verl_ext.reward.math_verify import verify

#: Positions around a correct answer (gold ``5``) where a symbol changes the verdict: a lead-in, the start of
#: an answer tag, and after a box.
TEMPLATES = ("The answer is {} \\boxed{{5}}", "<answer>{}5</answer>", "\\boxed{{5}}{}", "x {}= \\boxed{{5}}")

#: The five C1 controls ``html.unescape`` keeps as themselves (windows-1252 has no character for them); the
#: verifier drops them like every other control character.
C1_KEPT = "\x81\x8d\x8f\x90\x9d"


def _rendered(text: str) -> str:
    return html.unescape(text).translate({ord(c): None for c in C1_KEPT})


def _verdict(text: str) -> tuple[float, str]:
    result = verify(text, "5")
    return result["acc"], result["reason"]


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_named_reference_scores_as_its_text(template: str) -> None:
    refused, differ = [], []
    for name, text in sorted(html5.items()):
        raw = template.format(text)
        entity = template.format("&" + name)
        # A legacy name without `;` may run into the text after it; compare like with like.
        if html.unescape(entity) != raw:
            continue
        raw_verdict = _verdict(raw)
        if not raw_verdict[0]:
            refused.append(name)
        if _verdict(entity) != raw_verdict:
            differ.append(name)
    assert not differ, f"{len(differ)} references score unlike their text: {differ[:20]}"
    # The relations a red team hid as references are among those refused in a lead-in.
    if template.startswith("The answer is"):
        for name in ("NotEqual;", "nlt;", "nge;", "notin;", "ncong;", "not;", "not", "GreaterEqual;", "geqslant;",
                     "ges;", "gE;", "lesssim;", "gg;", "ap;", "approxeq;", "thkap;", "cong;", "gt", "GT", "lt"):
            assert name in refused, name


@pytest.mark.parametrize(
    "text",
    [
        "The answer is &gt 5",
        "The answer is &GT; \\boxed{5}",
        "x &LT \\boxed{5}",
        "x &#62 \\boxed{5}",
        "x &#x3E \\boxed{5}",
        "x &#X3e;= \\boxed{5}",
        "x &#0000000062; \\boxed{5}",
        "x &#x00000003E; \\boxed{5}",
        "x &#" + "0" * 5000 + "8805; \\boxed{5}",
        "x &#x" + "0" * 5000 + "2265 \\boxed{5}",
        "x &geqslant; \\boxed{5}",
        "It is n&shy;ot \\boxed{5}",
        "It is n&#173;ot \\boxed{5}",
        "It is n&#xAD;ot \\boxed{5}",
        "It is n&ZeroWidthSpace;ot \\boxed{5}",
        "It is n&#1;ot \\boxed{5}",
        "It is n&#x81;ot \\boxed{5}",
        "&notin; \\boxed{5}",
        "&ncong; \\boxed{5}",
        "&not \\boxed{5}",
        "\\boxed{5}&sup2;",
        "\\boxed{5}&sup2",
        "\\boxed{5&frasl;2}",
        "\\boxed{5}&permil;",
        "\\boxed{5}&quest;",
        "<answer>&#8776;5</answer>",
        "<answer>&thkap;5</answer>",
        "<answer>&NotEqual;5</answer>",
    ],
)
def test_hidden_relation_is_refused(text: str) -> None:
    assert _verdict(text)[0] == 0.0, verify(text, "5")["reason"]
    # Decimal digits past 4300 are beyond Python's int(); every other case is html.unescape's reading.
    if "0" * 5000 not in text:
        assert _verdict(text) == _verdict(_rendered(text))


@pytest.mark.parametrize(
    "text",
    [
        "The answer is &#53;.",
        "The answer is \\boxed{&#x35;}",
        "The answer is \\boxed{&#0000053}",
        "<answer>&#x0035</answer>",
        "AT&T says the answer is \\boxed{5}",
        "5 &amp; 6 give \\boxed{5}",
        "x &amp;gt; y, so the answer is \\boxed{5}",
        "The answer is&nbsp;\\boxed{5}",
    ],
)
def test_references_to_the_answer_are_read(text: str) -> None:
    assert _verdict(text)[0] == 1.0, verify(text, "5")["reason"]


def test_numeric_references_score_as_their_text() -> None:
    codes = [*range(0x300), 0x2260, 0x2264, 0x2265, 0x2248, 0x2245, 0x2249, 0x226E, 0x226F, 0x2208, 0x2209,
             0x00AC, 0x00AD, 0x200B, 0x2060, 0xFEFF, 0xD800, 0xFFFE, 0x10FFFF, 0x110000]
    differ = []
    for code in codes:
        for template in TEMPLATES:
            for reference in (f"&#{code};", f"&#x{code:x}", f"&#000{code}"):
                text = template.format(reference)
                if _verdict(text) != _verdict(_rendered(text)):
                    differ.append(text)
    assert not differ, differ[:20]


def test_table_is_generated_from_this_python() -> None:
    # The checked-in table is ci/gen_entities_table.py's output (its first line names the Python that ran it).
    script = Path(__file__).resolve().parents[2] / "ci" / "gen_entities_table.py"
    spec = importlib.util.spec_from_file_location("gen_entities_table", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    checked_in = gen.TARGET.read_text().split("\n", 1)[1]
    assert gen.render().split("\n", 1)[1] == checked_in, "run ci/gen_entities_table.py"
