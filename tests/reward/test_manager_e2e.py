"""End to end on CPU: verl's RewardLoopManager on a local Ray cluster, `verl_ext` against `naive`."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.helpers import make_dataproto
from verl_ext.reward.manager import BASE_EXTRA_KEYS

ray = pytest.importorskip("ray")

CONFIGS = Path(pytest.importorskip("verl_ext.configs").__file__).resolve().parent

pytestmark = pytest.mark.slow

FAMILY_BATCHES: dict[str, list[tuple[str, str, Any]]] = {
    "gsm8k": [
        ("openai/gsm8k", "She pays 3 * 4 = 12.\n#### 12", "12"),
        ("openai/gsm8k", "#### 1,000", "1000"),
        ("openai/gsm8k", "The answer is 7", "7"),
        ("openai/gsm8k", "#### -3.5", "-3.5"),
        ("openai/gsm8k", "#### 8 é😀", "9"),
    ],
    "math": [
        ("lighteval/MATH", "So \\boxed{\\dfrac{1}{2}}.", "\\frac12"),
        ("HuggingFaceH4/MATH-500", "\\boxed{3\\sqrt2}", "3\\sqrt{2}"),
        ("DigitalLearningGmbH/MATH-lighteval", "\\fbox{4}", "4"),
        ("lighteval/MATH", "no box at all", "4"),
        ("lighteval/MATH", "\\boxed{10\\%}", "10"),
    ],
    "dapo": [
        ("math_dapo", "Reasoning...\nAnswer: 42", "42"),
        ("aime2024", "Answer: $\\frac{1}{2}$", "\\frac{1}{2}"),
        ("math", "\\boxed{7}", "7"),
        ("math_dapo_reasoning", "Answer: 5 dollars", "6"),
        ("aime", "nothing", "1"),
    ],
}

CUSTOM_FN = """
def compute_score(data_source, solution_str, ground_truth, extra_info=None, bonus=0.0):
    assert extra_info is not None and "num_turns" in extra_info
    return float(solution_str.strip().endswith(ground_truth)) + bonus
"""


def compose(tokenizer_dir: Path, manager: str, *overrides: str) -> Any:
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from verl.experimental.reward_loop import migrate_legacy_reward_impl

    with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
        cfg = hydra_compose(
            "grpo_math_verl_ext",
            overrides=[
                f"actor_rollout_ref.model.path={tokenizer_dir}",
                "reward.num_workers=2",
                f"reward.reward_manager.name={manager}",
                *overrides,
            ],
        )
    return migrate_legacy_reward_impl(cfg)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    # Logical CPUs: every reward worker actor reserves one for scheduling.
    ray.init(num_cpus=8, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"TOKENIZERS_PARALLELISM": "false"}})
    yield
    ray.shutdown()


def rm_scores(cfg: Any, batches: list[Any]) -> list[Any]:
    from verl.experimental.reward_loop import RewardLoopManager

    manager = RewardLoopManager(cfg)
    try:
        return [manager.compute_rm_score(b) for b in batches]
    finally:
        for worker in manager.reward_loop_workers:
            ray.kill(worker)


def batch(tokenizer: Any, rows: list[tuple[str, str, Any]]) -> Any:
    return make_dataproto(tokenizer, [
        {"prompt": f"question {i}", "response": r, "data_source": ds, "ground_truth": gt}
        for i, (ds, r, gt) in enumerate(rows)
    ])


def test_reward_loop_verl_ext_equals_naive(ray_cluster: None, tiny_tokenizer_dir: Path, tiny_tokenizer: Any) -> None:
    batches = [batch(tiny_tokenizer, rows) for rows in FAMILY_BATCHES.values()]
    naive = rm_scores(compose(tiny_tokenizer_dir, "naive"), batches)
    ours = rm_scores(compose(tiny_tokenizer_dir, "verl_ext"), batches)
    for family, n, o in zip(FAMILY_BATCHES, naive, ours, strict=True):
        torch.testing.assert_close(o.batch["rm_scores"], n.batch["rm_scores"], rtol=0, atol=0, msg=family)
        assert o.meta_info["reward_extra_keys"] == list(BASE_EXTRA_KEYS)
        assert (n.batch["rm_scores"] != 0).any(), family  # the batches do contain rewarded answers
    dapo = ours[2].non_tensor_batch
    assert list(dapo["pred"]) == ["42", "\\frac{1}{2}", "7", "5", "[INVALID]"]


def test_reward_loop_routes_unknown_sources_to_custom_function(
    ray_cluster: None, tiny_tokenizer_dir: Path, tiny_tokenizer: Any, tmp_path: Path
) -> None:
    fn = tmp_path / "my_reward.py"
    fn.write_text(textwrap.dedent(CUSTOM_FN))
    rows = [("my_source", "the end: abc", "abc"), ("my_source", "xyz", "abc"), ("other", "... 5", "5")]
    custom = [f"reward.custom_reward_function.path={fn}", "+reward.custom_reward_function.reward_kwargs.bonus=0.5"]
    data = [batch(tiny_tokenizer, rows)]
    naive = rm_scores(compose(tiny_tokenizer_dir, "naive", *custom), data)
    ours = rm_scores(compose(tiny_tokenizer_dir, "verl_ext", *custom), data)
    torch.testing.assert_close(ours[0].batch["rm_scores"], naive[0].batch["rm_scores"], rtol=0, atol=0)
    assert sorted(ours[0].batch["rm_scores"].sum(-1).tolist()) == [0.5, 1.5, 1.5]


def test_reward_loop_runs_a_list_of_python_functions_in_parallel(
    ray_cluster: None, tiny_tokenizer_dir: Path, tiny_tokenizer: Any, tmp_path: Path
) -> None:
    """The custom function (in each worker's process pool) plus an async judge from reward_kwargs.functions,
    with a sample that kills its process: per-function scores and the failure count reach the batch."""
    fns = Path(__file__).parent / "fixtures" / "reward_fns.py"
    rows = [("my_source", "12", "12"), ("my_source", "7", "12"), ("openai/gsm8k", "#### 12", "12"),
            ("my_source", "12", "12"), ("my_source", "exit", "12")]
    overrides = [f"reward.custom_reward_function.path={fns}", "reward.custom_reward_function.name=match",
                 f"+reward.reward_kwargs.functions=[{{path: '{fns}', name: judge, weight: 0.5}},"
                 f"{{path: '{fns}', name: hostile, weight: 0, timeout_s: 20}}]",
                 "+reward.reward_kwargs.function_processes=1"]
    [out] = rm_scores(compose(tiny_tokenizer_dir, "verl_ext", *overrides), [batch(tiny_tokenizer, rows)])
    # match + 0.5 * judge (+ 0 * hostile); the "exit" sample's hostile call dies: counted, scored 0.0.
    assert out.batch["rm_scores"].sum(-1).tolist() == [1.5, 0.125, 0.5, 1.5, 0.125]
    keys = out.meta_info["reward_extra_keys"]
    assert keys == [*BASE_EXTRA_KEYS, "match", "judge", "hostile"]
    extra = out.non_tensor_batch
    assert list(extra["unscorable"]) == [0, 0, 0, 0, 1]
    assert list(extra["judge"]) == [1.0, 0.25, 1.0, 1.0, 0.25] and list(extra["hostile"]) == [0.5] * 4 + [0.0]
