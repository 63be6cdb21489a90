"""The verl_ext managers without Ray: batching, event loop, extra-info keys, errors, legacy parity."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

import pytest
import torch
from omegaconf import OmegaConf

from tests.helpers import make_dataproto
from verl_ext.exceptions import InputTypeError, InvalidInputError
from verl_ext.reward.manager import BASE_EXTRA_KEYS, ManagerOptions, VerlExtBatchRewardManager, VerlExtRewardManager

ROWS = [
    ("openai/gsm8k", "#### 12", "12"),
    ("lighteval/MATH", "\\boxed{\\frac12}", "0.5"),
    ("math_dapo", "Answer: 3", "3"),
    ("aime25", "<think>hm</think><answer>Answer: 4</answer>", "4"),
    ("openai/gsm8k", "<think>a</think>\n<answer>#### 5</answer>", "5"),
]


def test_bare_import_of_verl_registers_both_managers() -> None:
    code = (
        "import verl\n"
        "from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls as loop\n"
        "from verl.workers.reward_manager import get_reward_manager_cls as legacy\n"
        "print(loop('verl_ext').__module__, legacy('verl_ext').__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split() == ["verl_ext.reward.manager", "verl_ext.reward.manager"]


def verl_scores(rows: list[tuple[str, str, Any]]) -> list[float]:
    from verl.utils.reward_score import default_compute_score

    results = [default_compute_score(d, r, g) for d, r, g in rows]
    return [r["score"] if isinstance(r, dict) else r for r in results]


def manager(tokenizer: Any, compute_score: Any = None, **reward_kwargs: Any) -> VerlExtRewardManager:
    config = OmegaConf.create({"reward": {"reward_kwargs": reward_kwargs}})
    if compute_score is None:
        from verl.utils.reward_score import default_compute_score as compute_score
    return VerlExtRewardManager(config, tokenizer, compute_score)


def items(tokenizer: Any, rows: list[tuple[str, str, Any]]) -> list[Any]:
    data = make_dataproto(tokenizer, [{"prompt": "q", "response": r, "data_source": d, "ground_truth": g}
                                      for d, r, g in rows])
    return [data[i: i + 1] for i in range(len(rows))]


async def run_all(m: VerlExtRewardManager, data: list[Any]) -> list[dict[str, Any]]:
    return await asyncio.gather(*(m.run_single(d) for d in data))


def test_concurrent_calls_are_coalesced_into_one_batch(tiny_tokenizer: Any) -> None:
    m = manager(tiny_tokenizer)
    sizes: list[int] = []
    inner = m._scorer.score_native
    m._scorer.score_native = lambda samples: (sizes.append(len(samples)), inner(samples))[1]  # type: ignore[method-assign]
    out = asyncio.run(run_all(m, items(tiny_tokenizer, ROWS * 20)))
    assert sizes == [len(ROWS) * 20]
    assert [o["reward_score"] for o in out[:5]] == verl_scores(ROWS)


def test_event_loop_keeps_running_while_a_batch_is_scored(tiny_tokenizer: Any) -> None:
    m = manager(tiny_tokenizer)
    inner = m._scorer.score_native

    def slow(samples: list[Any]) -> list[Any]:
        time.sleep(0.3)  # stands for a large batch
        return inner(samples)

    m._scorer.score_native = slow  # type: ignore[method-assign]

    async def main() -> int:
        ticks = 0

        async def heartbeat() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        beat = asyncio.create_task(heartbeat())
        await run_all(m, items(tiny_tokenizer, ROWS))
        beat.cancel()
        return ticks

    assert asyncio.run(main()) >= 10


def test_every_sample_reports_the_same_extra_keys(tiny_tokenizer: Any) -> None:
    m = manager(tiny_tokenizer, format_weight=0.5, extra_info_keys=["note"])
    out = asyncio.run(run_all(m, items(tiny_tokenizer, ROWS)))
    keys = {tuple(o["reward_extra_info"]) for o in out}
    assert keys == {(*BASE_EXTRA_KEYS, "format_score", "note")}
    fmt = [0.0, 0.0, 0.0, 1.0, 1.0]
    assert [o["reward_extra_info"]["format_score"] for o in out] == fmt
    assert [o["reward_score"] for o in out] == [v + 0.5 * f for v, f in zip(verl_scores(ROWS), fmt, strict=True)]
    assert out[3]["reward_extra_info"]["acc"] is False  # "4</answer>" is not "4" for math_dapo


def test_unscorable_sample_gets_zero_or_raises(tiny_tokenizer: Any, caplog: pytest.LogCaptureFixture) -> None:
    rows = [("math_dapo", "Answer: 3", 3), ("openai/gsm8k", "#### 3", "3")]
    out = asyncio.run(run_all(manager(tiny_tokenizer), items(tiny_tokenizer, rows)))
    assert [o["reward_score"] for o in out] == [0.0, 1.0]
    assert "must be a str, got int" in caplog.text
    with pytest.raises(InputTypeError):
        asyncio.run(run_all(manager(tiny_tokenizer, on_error="raise"), items(tiny_tokenizer, rows)))


def test_async_custom_function_handles_unknown_sources(tiny_tokenizer: Any) -> None:
    seen: list[dict[str, Any]] = []

    async def custom(data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any]) -> dict:
        seen.append(extra_info)
        return {"score": 0.25, "acc": False, "pred": solution_str, "note": "custom"}

    m = manager(tiny_tokenizer, compute_score=custom, extra_info_keys=["note"], native_sources=["openai/gsm8k"])
    rows = [("my_source", "xyz", "1"), ("openai/gsm8k", "#### 1", "1")]
    out = asyncio.run(run_all(m, items(tiny_tokenizer, rows)))
    assert out[0]["reward_score"] == 0.25
    assert out[0]["reward_extra_info"] == {"score": 0.25, "acc": False, "pred": "xyz", "tests_passed": 0,
                                           "tests_failed": 0, "tests_timeout": 0, "tests_error": 0, "unscorable": 0,
                                           "note": "custom"}
    assert out[1]["reward_score"] == 1.0 and out[1]["reward_extra_info"]["note"] is None
    assert seen[0]["num_turns"] is None and seen[0]["index"] == 0


def test_a_configured_custom_function_scores_every_sample(tiny_tokenizer: Any,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """verl's meaning: with custom_reward_function set, naive calls it for every sample; so does verl_ext unless
    reward_kwargs.native_sources opts sources into native scoring."""
    calls: list[str] = []

    def custom(data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any]) -> float:
        calls.append(data_source)
        return 0.5

    def scores(rows: list[tuple[str, str, Any]], **kwargs: Any) -> list[float]:
        async def go() -> list[dict[str, Any]]:  # the manager binds the running loop for sync functions
            return await run_all(manager(tiny_tokenizer, **kwargs), items(tiny_tokenizer, rows))
        return [o["reward_score"] for o in asyncio.run(go())]

    rows = [("openai/gsm8k", "#### 1", "1"), ("lighteval/MATH", "\\boxed{1}", "1"), ("other", "x", "1")]
    assert scores(rows, compute_score=custom) == [0.5, 0.5, 0.5]
    assert sorted(calls) == sorted(r[0] for r in rows)
    assert "nothing natively: custom_reward_function is configured" in capsys.readouterr().out
    calls.clear()
    assert scores(rows, compute_score=custom, native_sources="all") == [1.0, 1.0, 0.5] and calls == ["other"]
    # Without a custom function, verl's default scorer is verl-ext's to replace: everything native it can.
    assert scores(rows[:2]) == [1.0, 1.0]


def test_options_are_validated() -> None:
    with pytest.raises(InvalidInputError):
        ManagerOptions.from_reward_kwargs({"on_error": "ignore"})
    with pytest.raises(InvalidInputError, match="native_sources"):
        ManagerOptions.from_reward_kwargs({"native_sources": 3})
    assert ManagerOptions.from_reward_kwargs({"native_sources": "a, b"}).native_sources == frozenset({"a", "b"})
    with pytest.raises(InvalidInputError):
        ManagerOptions.from_reward_kwargs({"format_weight": 1.0, "format_tags": ["bad tag"]})
    with pytest.raises(InvalidInputError):
        ManagerOptions.from_reward_kwargs({"num_threads": -1})
    assert ManagerOptions.from_reward_kwargs({"format_tags": "a, b"}).format.tags == ("a", "b")


def test_legacy_manager_tensor_equals_verls_naive(tiny_tokenizer: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from verl.workers.reward_manager import NaiveRewardManager

    for family in (["openai/gsm8k"], ["lighteval/MATH"], ["math_dapo", "aime24"]):
        rows = [(family[i % len(family)], r, g) for i, (_, r, g) in enumerate(ROWS * 3)]
        rows += [(family[0], "\\boxed{12} Answer: 12 #### 12", "12")]
        data = make_dataproto(tiny_tokenizer, [{"prompt": "q" * i, "response": r, "data_source": d,
                                                "ground_truth": g} for i, (d, r, g) in enumerate(rows)])
        ref = NaiveRewardManager(tiny_tokenizer, num_examine=0)(data, return_dict=True)
        ours = VerlExtBatchRewardManager(tiny_tokenizer, num_examine=1)(data, return_dict=True)
        torch.testing.assert_close(ours["reward_tensor"], ref["reward_tensor"], rtol=0, atol=0)
        assert ref["reward_tensor"].sum() != 0
        assert list(ours["reward_extra_info"]) == list(BASE_EXTRA_KEYS)
        if "score" in ref["reward_extra_info"]:
            assert ours["reward_extra_info"]["pred"] == ref["reward_extra_info"]["pred"]
    capsys.readouterr()


def test_importlib_fallback_from_the_readme_resolves_the_manager() -> None:
    from verl.trainer.ppo.reward import resolve_reward_manager_cls

    config = OmegaConf.create({"reward": {"reward_manager": {
        "source": "importlib", "name": "VerlExtRewardManager",
        "module": {"path": "pkg://verl_ext.reward.manager", "name": "custom_reward_manager"}}}})
    assert resolve_reward_manager_cls(config) is VerlExtRewardManager


def test_code_samples_are_sandboxed_and_report_test_counts(tiny_tokenizer: Any) -> None:
    from verl_ext import sandbox

    if not sandbox.capabilities()["full_isolation"]:
        pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}")
    tests = json.dumps({"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]})
    rows = [("apps", "```python\na, b = map(int, input().split())\nprint(a + b)\n```", tests),
            ("taco", "a, b = map(int, input().split())\nprint(a * b)", tests),
            ("openai/gsm8k", "#### 3", "3")]
    out = asyncio.run(run_all(manager(tiny_tokenizer), items(tiny_tokenizer, rows)))
    assert [o["reward_score"] for o in out] == [1.0, 0.0, 1.0]
    counts = [tuple(o["reward_extra_info"][k] for k in ("tests_passed", "tests_failed", "tests_timeout",
                                                        "tests_error")) for o in out]
    assert counts == [(2, 0, 0, 0), (0, 2, 0, 0), (0, 0, 0, 0)]


FNS = str(__import__("pathlib").Path(__file__).parent / "fixtures" / "reward_fns.py")


def custom_config_manager(tokenizer: Any, name: str, **reward_kwargs: Any) -> VerlExtRewardManager:
    """The loop manager as verl builds it for a configured custom_reward_function."""
    from verl.trainer.ppo.reward import get_custom_reward_fn

    config = OmegaConf.create({"reward": {"reward_kwargs": reward_kwargs, "num_workers": 1,
                                          "custom_reward_function": {"path": FNS, "name": name,
                                                                     "reward_kwargs": {}}}})
    return VerlExtRewardManager(config, tokenizer, get_custom_reward_fn(config))


def test_reward_functions_combine_with_per_function_scores(tiny_tokenizer: Any) -> None:
    m = custom_config_manager(tiny_tokenizer, "match", function_processes=1, functions=[
        {"path": FNS, "name": "judge", "weight": 0.5}])
    rows = [("my_source", "12", "12"), ("my_source", "7", "12"), ("openai/gsm8k", "#### 12", "12")]
    out = asyncio.run(run_all(m, items(tiny_tokenizer, rows)))
    assert [o["reward_score"] for o in out] == [1.5, 0.125, 0.5]  # the custom function scores gsm8k too
    info = out[0]["reward_extra_info"]
    assert (info["match"], info["judge"], info["acc"], info["unscorable"]) == (1.0, 1.0, True, 0)
    assert len({tuple(o["reward_extra_info"]) for o in out}) == 1  # same keys for every sample


def test_a_failing_function_scores_zero_and_is_counted(tiny_tokenizer: Any) -> None:
    m = custom_config_manager(tiny_tokenizer, "length_score", function_processes=1)
    out = asyncio.run(run_all(m, items(tiny_tokenizer, [("s", "bad!", "1"), ("s", "ok", "1")])))
    assert out[0]["reward_score"] == 0.0 and out[0]["reward_extra_info"]["unscorable"] == 1
    assert out[1]["reward_extra_info"]["unscorable"] == 0
    strict = custom_config_manager(tiny_tokenizer, "length_score", function_processes=1, on_error="raise")
    from verl_ext.exceptions import RewardFunctionError

    with pytest.raises(RewardFunctionError, match="cannot score"):
        asyncio.run(run_all(strict, items(tiny_tokenizer, [("s", "bad!", "1")])))


def test_legacy_manager_runs_the_functions_as_the_loop_manager_does(tiny_tokenizer: Any) -> None:
    from functools import partial

    from verl.trainer.ppo.reward import _call_with_kwargs

    from verl_ext.reward.functions import FunctionSpec, load_function

    raw = load_function(FunctionSpec(FNS, "match"))
    rows = [("my_source", "12", "12"), ("openai/gsm8k", "#### 3", "4"), ("my_source", "12", "12")]
    legacy = VerlExtBatchRewardManager(tiny_tokenizer, 0, partial(_call_with_kwargs, raw, {}),
                                       functions=[{"path": FNS, "name": "judge", "weight": 2}],
                                       function_processes=1)
    data = make_dataproto(tiny_tokenizer, [{"prompt": "q", "response": r, "data_source": d, "ground_truth": g}
                                           for d, r, g in rows])
    out = legacy(data, return_dict=True)
    assert isinstance(out, dict)
    assert out["reward_extra_info"]["match"] == [1.0, 0.0, 1.0]
    assert out["reward_extra_info"]["judge"] == [1.0, 0.25, 1.0]
    loop = custom_config_manager(tiny_tokenizer, "match", function_processes=1,
                                 functions=[{"path": FNS, "name": "judge", "weight": 2}])
    looped = asyncio.run(run_all(loop, items(tiny_tokenizer, rows)))
    assert out["reward_tensor"].sum(-1).tolist() == [o["reward_score"] for o in looped] == [3.0, 0.5, 3.0]


def test_a_bad_functions_entry_fails_when_the_manager_is_built(tiny_tokenizer: Any) -> None:
    from verl_ext.exceptions import ConfigError

    with pytest.raises(ConfigError, match=r"functions\[0\].name"):
        manager(tiny_tokenizer, functions=[{"path": FNS, "name": "wrong_signature"}])


def test_routing_log_names_what_was_configured(tiny_tokenizer: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Only reward_kwargs.functions set: the log says so, not that custom_reward_function is configured."""
    m = manager(tiny_tokenizer, function_processes=1, functions=[{"path": FNS, "name": "judge"}])
    try:
        out = capsys.readouterr().out
        assert "reward_kwargs.functions are configured" in out and "custom_reward_function" not in out
    finally:
        m._runner.close()


def test_the_trl_example_of_the_docs_scores_as_trl_weighs_it(tiny_tokenizer: Any) -> None:
    """docs/reward-functions.md: a TRL reward_funcs/reward_weights list, moved with per-sample adapters."""
    from pathlib import Path

    example = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "trl_rewards.py")
    m = manager(tiny_tokenizer, function_processes=1, functions=[
        {"path": example, "name": "answer_accuracy", "weight": 1.0},
        {"path": example, "name": "think_format", "weight": 0.2}])
    rows = [("s", "<think>2+2</think><answer>4</answer>", "4"), ("s", "<answer>4</answer>", "4"),
            ("s", "<think>x</think> <answer>5</answer>", "4"), ("s", "4", "4")]
    out = asyncio.run(run_all(m, items(tiny_tokenizer, rows)))
    import importlib.util

    spec = importlib.util.spec_from_file_location("trl_rewards_example", example)
    assert spec is not None and spec.loader is not None
    trl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trl)
    completions = [r for _, r, _ in rows]
    weighted = [1.0 * a + 0.2 * f for a, f in zip(trl.accuracy_reward(completions, solution=[g for *_, g in rows]),
                                                   trl.format_reward(completions), strict=True)]
    assert [o["reward_score"] for o in out] == weighted == [1.2, 1.0, 0.2, 0.0]
    assert [o["reward_extra_info"]["think_format"] for o in out] == [1.0, 0.0, 1.0, 0.0]
