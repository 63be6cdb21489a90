"""reward_kwargs as a typed config: every mistake is a ConfigError naming the key and what it accepts."""

from __future__ import annotations

from typing import Any

import pytest

from verl_ext.exceptions import ConfigError
from verl_ext.reward.options import ManagerOptions


@pytest.mark.parametrize(("kwargs", "key", "says"), [
    ({"format_wieght": 1}, "reward.reward_kwargs.format_wieght", "did you mean 'format_weight'"),
    ({"format_weight": "abc"}, "reward.reward_kwargs.format_weight", "expected a number, got 'abc'"),
    ({"on_error": "ignore"}, "reward.reward_kwargs.on_error", "expected one of zero, raise"),
    ({"num_threads": -1}, "reward.reward_kwargs.num_threads", ">= 0"),
    ({"num_threads": "2.5"}, "reward.reward_kwargs.num_threads", "expected an integer"),
    ({"dedup": "maybe"}, "reward.reward_kwargs.dedup", "true or false"),
    ({"native_sources": 5}, "reward.reward_kwargs.native_sources", "'all' or a list"),
    ({"format_tags": [1, 2]}, "reward.reward_kwargs.format_tags", "list of tag names"),
    ({"code_timeout_s": 0}, "reward.reward_kwargs.code_timeout_s", "(0, 3599]"),
    ({"code_timeout_s": 3600}, "reward.reward_kwargs.code_timeout_s", "(0, 3599]"),
    ({"code_assert_timeout_s": 3600.5}, "reward.reward_kwargs.code_assert_timeout_s", "(0, 3600]"),
    ({"function_concurrency": -1}, "reward.reward_kwargs.function_concurrency", ">= 0 (0: no bound)"),
    ({"functions": "f.py"}, "reward.reward_kwargs.functions", "expected a list"),
    ({"functions": [{"name": "f"}]}, "reward.reward_kwargs.functions[0].path", "required"),
    ({"functions": [{"path": "f.py", "kind": "gpu"}]}, "reward.reward_kwargs.functions[0].kind",
     "auto, process, thread, async"),
    ({"functions": [{"path": "f.py", "weight": "heavy"}]}, "reward.reward_kwargs.functions[0].weight", "number"),
    ({"functions": [{"path": "f.py", "timeout_s": -1}]}, "reward.reward_kwargs.functions[0].timeout_s", "> 0"),
    ({"functions": [{"path": "f.py", "wieght": 1}]}, "reward.reward_kwargs.functions[0].wieght", "unknown key"),
    ({"functions": [{"path": "a.py"}, {"path": "b.py"}]}, "reward.reward_kwargs.functions[1].label", "distinct"),
    ({"functions": [{"path": "a.py", "label": "score"}]}, "reward.reward_kwargs.functions[0].label", "distinct"),
])
def test_a_mistake_names_its_key(kwargs: dict[str, Any], key: str, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        ManagerOptions.from_reward_kwargs(kwargs)
    assert err.value.key == key and says in str(err.value)


def test_values_from_the_command_line_are_converted() -> None:
    o = ManagerOptions.from_reward_kwargs({"format_weight": "0.5", "num_threads": "2", "dedup": "false",
                                           "native_sources": "openai/gsm8k, math", "format_tags": "a,b",
                                           "functions": [{"path": "f.py", "weight": "0.25", "kwargs": {"k": 1}}]})
    assert (o.format.weight, o.format.tags, o.num_threads, o.dedup) == (0.5, ("a", "b"), 2, False)
    assert o.native_sources == frozenset({"openai/gsm8k", "math"})
    assert o.functions[0].weight == 0.25 and dict(o.functions[0].kwargs) == {"k": 1} and o.custom_function


def test_defaults_are_verls_behaviour() -> None:
    o = ManagerOptions.from_reward_kwargs(None)
    assert not o.format.enabled and o.on_error == "zero" and not o.custom_function and o.functions == ()
    assert (o.code_timeouts.first_pass_s, o.code_timeouts.per_test_s, o.code_timeouts.assert_s) == (5, 10, 5)


def test_native_sources_all_in_a_list_means_all() -> None:
    assert ManagerOptions.from_reward_kwargs({"native_sources": ["all"]}).native_sources == "all"
    with pytest.raises(ConfigError, match="not both"):
        ManagerOptions.from_reward_kwargs({"native_sources": ["all", "openai/gsm8k"]})
