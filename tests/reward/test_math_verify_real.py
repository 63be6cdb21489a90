"""The verifier on real model completions (``verl_ext/bench/data/real_completions.jsonl``: 619 outputs of 34
models from 10 public repositories, each labelled by reading its final answer; provenance per row), and on
the answer shapes those completions take: the R1-Zero answer tag, special tokens, a sentence before a box,
ordinary words around an answer, float-repr golds, final sentences, revisions that revise nothing."""

from __future__ import annotations

import pytest

from verl_ext.bench.math_verify import HELDOUT_COMPLETIONS, HELDOUT_PRIME, RL_ROLLOUTS, load_real_completions
from verl_ext.reward.math_verify import verify

#: Rows verl-ext judges against their label, and why (each a limitation, stated in docs/math-verifier.md).
KNOWN_MISSES = {
    "gaokao-bench::gpt4-0314-m2fill::62": "the gold '0. 98.' is written with a space inside the number",
    "skythought::qwen25-math-7b/minerva_math::68":
        "the model restates an earlier subproblem's solution from its prompt ('Final answer: … 1/3 x'), then poses "
        "the asked subproblem on a line of its own ('Subproblem 2: …') and answers it: read as a drift into a new "
        "question after answering, which earns nothing",
}


def test_real_completions_match_their_labels() -> None:
    rows = load_real_completions()
    assert len(rows) >= 500
    assert len({r["model"] for r in rows}) >= 10 and len({r["source"] for r in rows}) >= 5
    for r in rows:
        assert r["licence"] and len(r["commit"]) == 40 and r["source"].startswith("https://github.com/"), r["id"]
    wrong = {r["id"]: (r["correct"], r["gold"], verify(r["completion"], r["gold"])["reason"])
             for r in rows if verify(r["completion"], r["gold"])["acc"] != r["correct"]}
    assert wrong.keys() == KNOWN_MISSES.keys(), {k: v for k, v in wrong.items() if k not in KNOWN_MISSES}


def test_no_false_positive_on_real_completions() -> None:
    credited_wrong = [r["id"] for r in load_real_completions()
                      if not r["correct"] and verify(r["completion"], r["gold"])["acc"]]
    assert credited_wrong == []


#: Correct held-out rows given no credit, at most (docs/math-verifier.md: an option letter after `The closest
#: answer option to this value is:`, a "solve for v" answer with an extra variable, a yes/no answer in words).
HELDOUT_MISSES = 3


def test_held_out_completions_credit_no_wrong_answer() -> None:
    """The completions collected and labelled after the rules were written: provenance on every row, no wrong
    answer credited, and no more correct ones missed than the docs state."""
    rows = load_real_completions(HELDOUT_COMPLETIONS)
    assert len(rows) >= 200 and len({r["source"] for r in rows}) >= 5
    for r in rows:
        assert r["licence"] and len(r["commit"]) == 40 and r["source"].startswith("https://github.com/"), r["id"]
    verdicts = [verify(r["completion"], r["gold"])["acc"] for r in rows]
    assert [r["id"] for r, v in zip(rows, verdicts, strict=True) if v and not r["correct"]] == []
    assert sum(r["correct"] and not v for r, v in zip(rows, verdicts, strict=True)) <= HELDOUT_MISSES


#: Correct answers of the second held-out set (Qwen2.5-Math-7B-Instruct via PRIME) verl-ext misses: judged once,
#: before any rule was written for them (docs/math-verifier.md lists them).
HELDOUT_PRIME_MISSES = 10


def test_second_held_out_set_credits_no_wrong_answer() -> None:
    rows = load_real_completions(HELDOUT_PRIME)
    assert len(rows) >= 100
    for r in rows:
        assert r["licence"] and len(r["commit"]) == 40 and r["source"].startswith("https://github.com/"), r["id"]
    verdicts = [verify(r["completion"], r["gold"])["acc"] for r in rows]
    assert [r["id"] for r, v in zip(rows, verdicts, strict=True) if v and not r["correct"]] == []
    assert sum(r["correct"] and not v for r, v in zip(rows, verdicts, strict=True)) <= HELDOUT_PRIME_MISSES


#: GRPO rollouts verl-ext judges against their label, and why.
RL_ROLLOUT_MISSES = {
    "curious::Qwen2-0.5B-Instruct-train/gsm8k::8":
        "the last number of a final sentence is not its answer ('delivers 1,000 bags in 5 days')",
    "self-llm::Phi-4/gsm8k::80": "cut off right after its last number ('- Bert has 450'): no sign of the cut",
    "self-llm::Phi-4/gsm8k::10":
        "after its answer tag the model invents a '[Query]' turn and a '[Reply]': not read as a drift",
}


def test_grpo_rollouts_match_their_labels() -> None:
    """Training rollouts in TRL's, Unsloth's and the R1-Zero templates: every row at its label but the listed."""
    rows = load_real_completions(RL_ROLLOUTS)
    assert len(rows) >= 100 and len({r["source"] for r in rows}) >= 3
    for r in rows:
        assert r["licence"] and len(r["commit"]) == 40 and r["source"].startswith("https://github.com/"), r["id"]
    wrong = {r["id"] for r in rows if verify(r["completion"], r["gold"])["acc"] != r["correct"]}
    assert wrong == RL_ROLLOUT_MISSES.keys()


def test_every_answer_format_of_the_corpus_is_credited_somewhere() -> None:
    """Each format with a correct row has a correct row credited: no format is read as 'no answer' throughout."""
    rows = load_real_completions()
    for fmt in {r["format"] for r in rows if r["correct"]}:
        assert any(verify(r["completion"], r["gold"])["acc"] for r in rows if r["format"] == fmt and r["correct"]), fmt


# The shapes of real outputs (issue 32's classes), each with the hostile twin that must stay withdrawn.
CREDITED = [
    ("<think>5+10=15</think> <answer> 15 </answer>", "15"),
    ("<think>5+10=15</think>\n<answer>15</answer>", "15"),
    ("<think>...</think> <answer> $60 </answer>", "60"),
    ("<think>...</think> <answer> 494,550 </answer>", "494550"),
    ("<think>...</think> <answer> 4. </answer>", "4"),
    ("<think>...</think> <answer>So the total is 12 apples.</answer>", "12"),
    ("<think>2+2</think> <answer> 4", "4"),
    ("<think>嗯\uff0c计算一下</think><answer>答案是 180</answer>", "180"),
    # Other GRPO templates: TRL's and Unsloth's `<reasoning>`, Unsloth's working-out and `<SOLUTION>` tags,
    # OpenThoughts' special tokens.
    ("<reasoning>\n11 + 24 + 18 = 53\n</reasoning>\n\n<answer>53</answer>", "53"),
    ("<reasoning>\n8 + 3 = 11 days\n</reasoning>\n<answer>\n11 days\n</answer>", "11"),
    ("= 76\n\n<end_working_out>\n\n<SOLUTION>\n76</SOLUTION>", "76"),
    ("<start_working_out>\n$135 - $40 = $95\n<end_working_out>\n\n<SOLUTION> \n$95", "95"),
    ("<|begin_of_thought|>\n2+2=4\n<|end_of_thought|>\n\n<|begin_of_solution|>\n\\boxed{4}\n<|end_of_solution|>", "4"),
    # A closing tag the model dropped; an empty answer tag.
    ("<reasoning>\n4 * 24 = 96 pounds.\n</answer>\n96 pounds of oats", "96"),
    ("<think>\nSo 9 * $2 = $18 per day.\n<answer>\nShe makes $18 every day.", "18"),
    ("Total is 20 + 52 = 72.\n\nThe answer is 72. <SOLUTION></SOLUTION>", "72"),
    ("The value is 5 which is option A", "5"),
    ("The final answer is\n\n$$\\boxed{5}$$", "5"),
    ("**Final Answer:**\n\\[\n\\boxed{5}\n\\]", "5"),
    ("### Final Answer\n\n\\boxed{5}", "5"),
    ("The number of ways is at most 10, so\n\n\\boxed{5}", "5"),
    # GSM8K's marker; a check after the answer's sentence; a bullet in a tag; HTML references and comments.
    ("She pays $18.50 in total.\n#### 18.50", "18.5"),
    ("So 72.\n#### 72\n\nNote: 8*9+1 = 73", "72"),
    ("#### [3, 7)", "[3,7)"),
    ("#### 1. Setup\nWe get 5.", "5"),
    ("The answer is 5.\nI verified: 5 \u00d7 2 = 10 \u2713", "5"),
    ("The answer is \\boxed{5}. Wait, let me verify: 2+3 = 5. Yes.", "5"),
    ("<answer>\n- 23\n</answer>", "23"),
    ("The answer is 23&nbsp;cm", "23"),
    ("<answer>17 <!-- a note --></answer>", "17"),
    # LaTeX without delimiters after an answer's label, and bold labels before a tuple or an expression.
    ("Answer: \\frac{3}{4}", "3/4"),
    ("<think>\n...\n</think>\n\nThe answer is \\pi.", "\\pi"),
    ("The answer is 2\\sqrt{3}.", "2\\sqrt{3}"),
    ("The answer is 2^{10}.", "1024"),
    ("Answer: y = 2x + 1", "y=2x+1"),
    ("**Answer:** x^2 + 2x + 1", "x^2+2x+1"),
    ("**Answer:** (1, 2)", "(1, 2)"),
    ("The answer is \\{3, 7\\}.", "\\{3,7\\}"),
    ("<answer><b>23</b></answer>", "23"),
    ("We add the parts: $\\begin{aligned} a &= 1 \\\\[2pt] b &= 20 \\end{aligned}$ so the total is 21 apples", "21"),
    ("\\[ 1.5 \\times 14 = 21 \\]", "21"),
    ("So the answer is 14<|eot_id|>", "14"),
    ("The answer is \\boxed{14}.<|im_end|>", "14"),
    ("So she has 14 apples.</s>", "14"),
    ("x = 2, so the answer is 2<\uff5cend▁of▁sentence\uff5c>", "2"),
    ("【答案】 10 <eoa>", "10"),
    ("Jane must score at least 9 points.", "9"),
    ("They need $\\boxed{7300}$ more bottles.", "7300"),
    ("So she needs $1 more.", "1"),
    ("Therefore, she spent a total of 70 minutes on the games.", "70"),
    ("48+24 = 72. \\boxed{72}", "72"),
    ("She has 72. \\boxed{72}", "72"),
    ("So the total is = 72 \\boxed{72}", "72"),
    ("**Answer:**  \\boxed{\\frac{19}{34}}", "\\frac{19}{34}"),
    ("The answer is 0.6666666666666667", "0.6666666666666666"),
    ("The answer is 2/3", "0.6666666666666666"),
    ("The answer is \n\nShe bought 12 pencils in all.", "12"),
    ("He pays $1,250 for the rent.", "1250"),
    ("答案\uff1a180", "180"),
    ("Ответ: 5", "5"),
    ('{"reasoning": "6 / 2 = 3 days", "answer": "9"}', "9"),
    ("Answer: (2, 4)", "(2,4)"),
    ("Answer: 5x - 7y + 11z + 4 = 0", "5x - 7y + 11z + 4 = 0"),
    ("\\boxed{72}\n\nI made no mistakes.", "72"),
    ("\\boxed{72}. Let me verify: 48+24=72. Correct.", "72"),
    ("\\boxed{72}. A wrong approach would be to subtract.", "72"),
    ("\\boxed{0.5\\%}", "0.005"),
    ("\\boxed{50\\%}", "50"),
    ("\\boxed{50\\%}", "0.5"),
    ("<think>long reasoning that reaches 7</think>\n\nThe final answer is \\boxed{8}.", "8"),
    ("【答案】14π<eoa>", "14 \\pi"),
    # Generation ends at an end-of-sequence token: what follows it is not the model's.
    ("14<|eot_id|> or 15", "14"),
    ("\\boxed{5}<|im_end|>\n<|im_start|>user\nAnd 6?<|im_end|><|im_start|>assistant\n\\boxed{6}", "5"),
    ("【答案】 解上述方程\uff0c我们得到 $a = 1$ 或 $a = -3$。但是 $a \\neq -3$。因此\uff0c$a = 1$。<eoa>", "1"),
    ("So the answer is 12 (5 more than 7).", "12"),
    ("$\\boxed{5}^\\circ$", "5"),
    ("x => \\boxed{72}", "72"),
    ("~~5~~ \\boxed{6}", "6"),
    ("x = 3. \\boxed{14}", "14"),
    ("\\text{Answer: }\\boxed{5}", "5"),
    ('{"final_answer": "9"}', "9"),
    ("\\boxed{72}. Wait, let me double-check: 48 + 24 = 72. Yes, that's right.", "72"),
    ("\\boxed{72}. Actually, let me recompute: 8 \\times 9 = 72.", "72"),
    ("So she has 14 apples", "14"),
    ("The answer is '9'", "9"),
    ("<thinking>it is 4</thinking> So \\boxed{5}.", "5"),
]
WITHDRAWN = [
    ("<think>x</think><answer>answer here</answer>", "5"),
    ("<think>it is 5</think><answer></answer>", "5"),
    ("<think>so far we have 5 and then", "5"),
    ("<think>it is 5</think> I cannot tell.", "5"),
    ("<answer> at least 5 </answer>", "5"),
    ("<answer>5 or 6</answer>", "5"),
    ("The answer is at least 9.", "9"),
    ("The answer must be at least 9.", "9"),
    ("\\boxed{5} more than the other", "5"),
    ("\\boxed{5}+1", "5"),
    ("\\boxed{5}\\pi", "5"),
    ("\\boxed{72}. Wait, actually it is 73.", "72"),
    ("\\boxed{72}. Wait, that is wrong.", "72"),
    ("\\boxed{72}. I think I made a mistake somewhere.", "72"),
    ("\\boxed{0.5\\%}", "\\frac{1}{2}"),
    ("The answer is 0.67", "0.6666666666666666"),
    ("The answer is 0.6666", "0.6666666666666666"),
    ("Let me think. " + "The answer is 5. So we add 2 and 3. " * 12, "5"),
    # What surrounds an answer tag or a reasoning block is read too.
    ("<answer>5</answer> That is wrong.", "5"),
    ("at least <answer>5</answer>", "5"),
    ("x > <answer>5</answer>", "5"),
    ("<answer>5</answer> or 6", "5"),
    ("<answer>5 6</answer>", "6"),
    ("<think>so <answer>5</answer> maybe</think> I give up.", "5"),
    ("The answer is not</think>\\boxed{5}", "5"),
    # Special tokens hide no word.
    ("not<|reserved_special_token_0|>\\boxed{5}", "5"),
    ("at<|pad|>least 5", "5"),
    ("x \\geq\n\\boxed{5}", "5"),
    # A number restated in a box carries its own hedges.
    ("not 72 \\boxed{72}", "72"),
    ("at least 72 \\boxed{72}", "72"),
    ("x < 72 \\boxed{72}", "72"),
    ("72 or 73 \\boxed{73}", "73"),
    ("x = -72 \\boxed{72}", "72"),
    ("1,5 \\boxed{15}", "15"),
    ("x > **\\boxed{5}**", "5"),
    ("**\\boxed{5}**?", "5"),
    # Chinese and Russian hedges.
    ("答案\uff1a约180", "180"),
    ("答案\uff1a至少180", "180"),
    ("答案\uff1a180或181", "180"),
    ("答案\uff1a180左右", "180"),
    ("Ответ: не 5", "5"),
    ("Ответ: 5 или 6", "5"),
    ("Ответ: около 5", "5"),
    # Revisions and disavowals.
    ("\\boxed{5}. No, that's wrong.", "5"),
    ("\\boxed{5}. That's the wrong number.", "5"),
    ("\\boxed{5}. Actually, the correct answer is six.", "5"),
    ("\\boxed{5}. Or 6.", "5"),
    ("\\boxed{5}. This can't be right.", "5"),
    ("\\boxed{5}. Wait, I think it's 6 or 5.", "5"),
    ("They must become at least \\boxed{9}", "9"),
    ("\\boxed{5} more", "5"),
    ("It is a minimum of 5.", "5"),
    ("It is up to 5.", "5"),
    ("I guess the answer is 5.", "5"),
    ("Wrong answer: 5", "5"),
    ('{"wrong_answer": "9"}', "9"),
    ("x >= \\boxed{5}", "5"),
    ("x &gt; \\boxed{5}", "5"),
    ("\\sqrt{2}\\boxed{3}", "3"),
    ("\\pi\\boxed{2}", "2"),
    ("0. \\boxed{5}", "5"),
    ("\\boxed{\\frac{2}{3} + 10^{-20}i}", "0.6666666666666666"),
    ("The answer is 6.\n\nQuestion: What is 2+3?\nAnswer: 5", "5"),
    ("<thinking>so far it is 5", "5"),
    # Reasoning cut off mid-sentence: its last number is no answer.
    ("Let me compute. 3*4 = 12, so we need to multiply by", "12"),
    ("First, 12 * 3 = 36. Then we subtract", "36"),
    ("Let $x = 50$ be the first day. James collects 50 tins on", "50"),
    ("Therefore, 16% of the ads from the total ad pool are not", "16"),
    ("<reasoning>\nSo 299 cars fit.\n</reasoning>\n<answer", "299"),
    ("Thus, 40,000 fans attended.\n\n<reasoning>\n1. Calculate the number of seats", "40000"),
    ("<|begin_of_thought|>\nso the answer is 4", "4"),
    ("<think>maybe <answer>4</answer> " + "then we check the other case, 7 - 3. " * 4, "4"),
    # Cut off where the answer begins: the last number before the label is not it.
    ("Janet has 10 + 13 = 23 apples.\n\n**Answer:**", "23"),
    ("Janet has 10 + 13 = 23 apples.\n\nSo the answer is:", "23"),
    ("Janet has 10 + 13 = 23 apples.\n\n<answer>", "23"),
    ("Janet has 10 + 13 = 23 apples.\n\n#### ", "23"),
    ("<think>\n10 + 13 = 23\n</think>\n\n**Final Answer**\n\\[\n\\boxed{", "23"),
    ("So 10 + 13 = 23. Hence the answer is $", "23"),
    # A hedge or a label on the line before a display or a box, through a blank line.
    ("The answer is approximately\n\n$$\\boxed{5}$$", "5"),
    ("It is at least\n\n\\[\\boxed{23}\\]", "23"),
    ("The answer is not\n\n\\boxed{23}.", "23"),
    ("Lower bound:\n\\boxed{23}", "23"),
    ("My guess:\n\n\\boxed{23}", "23"),
    ("#### [3, 7)", "7"),
    ("#### 17, 23", "23"),
    ("x &gt;= \\boxed{23}", "23"),
    ("x &#8805; \\boxed{23}", "23"),
    ("x &approx; \\boxed{23}", "23"),
    ("&minus;\\boxed{23}", "23"),
    ("<answer>17 <!-- 23 --></answer>", "23"),
    ("Answer: 5&nbsp;6", "5"),
    # A list read as its last value.
    ("**Answer:** (3, 7)", "7"),
    ("The answer is \\{3, 7\\}.", "7"),
    ("Answer: \\frac{1}{2} and\n3 is the result.", "\\frac{1}{2}"),
    ("4. Total usage:\n   \\[\n   \\text{Total} = 1.5 \\times 14 = 21", "21"),
    ("So $$x = 1.5 \\times 14 = 21", "21"),
    ("The answer is not\n\\boxed{5}", "5"),
    ("at most\n\\boxed{5}", "5"),
    ("Lower bound: \\boxed{5}", "5"),
    ("Approximately, the answer is \\boxed{5}", "5"),
    ("\\boxed{5} and more", "5"),
    ("答案\uff1a180\uff0c不对\uff0c应该是181", "180"),
    ("错误答案\uff1a180", "180"),
    ("Ответ: 5. Нет, это неверно.", "5"),
    ("Неверный ответ: 5", "5"),
]


@pytest.mark.parametrize(("completion", "gold"), CREDITED)
def test_real_answer_shapes_are_credited(completion: str, gold: str) -> None:
    result = verify(completion, gold)
    assert result["acc"], result


@pytest.mark.parametrize(("completion", "gold"), WITHDRAWN)
def test_their_hostile_twins_earn_nothing(completion: str, gold: str) -> None:
    result = verify(completion, gold)
    assert not result["acc"], result
