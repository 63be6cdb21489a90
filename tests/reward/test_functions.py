"""Loading a user's reward function fails early, naming the config key, for every kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from verl_ext.exceptions import ConfigError
from verl_ext.reward.functions import FunctionSpec, combine, load_function, specs_from_config

FNS = str(Path(__file__).parent / "fixtures" / "reward_fns.py")


@pytest.mark.parametrize(("spec", "key", "says"), [
    (FunctionSpec("/no/such/file.py"), ".path", "no such file"),
    (FunctionSpec("no_such_module_xyz"), ".path", "ModuleNotFoundError"),
    (FunctionSpec(FNS, "missing"), ".name", "has no function 'missing'"),
    (FunctionSpec(FNS, "wrong_signature"), ".name", "cannot be called with verl's arguments"),
    (FunctionSpec(FNS, "length_score", kwargs={"nope": 1}), ".name", "kwargs ['nope']"),
    (FunctionSpec(FNS, "judge", kind="process"), ".kind", "needs a plain (not async) function"),
    (FunctionSpec(FNS, "match", kind="async"), ".kind", "needs a coroutine function"),
])
def test_a_bad_function_is_a_config_error(spec: FunctionSpec, key: str, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_function(spec, "reward.reward_kwargs.functions[0]")
    assert err.value.key == "reward.reward_kwargs.functions[0]" + key and says in str(err.value)


def test_a_module_that_raises_on_import_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import nonexistent_dependency_xyz\n")
    with pytest.raises(ConfigError, match="ModuleNotFoundError"):
        load_function(FunctionSpec(str(bad)))


def test_the_custom_reward_function_comes_first_with_its_kwargs() -> None:
    extra = (FunctionSpec(FNS, "judge", weight=0.5),)
    specs = specs_from_config({"path": FNS, "name": "length_score", "reward_kwargs": {"scale": 2}}, extra)
    assert [(s.name, s.weight, dict(s.kwargs)) for s in specs] == [("length_score", 1.0, {"scale": 2}),
                                                                  ("judge", 0.5, {})]
    assert specs_from_config({"path": None, "name": "compute_score"}, extra) == extra


def test_one_function_of_weight_one_passes_its_result_through() -> None:
    one = [FunctionSpec(FNS, "match")]
    assert combine(one, [{"score": 1.0, "acc": True}]) == {"score": 1.0, "acc": True}
    two = [FunctionSpec(FNS, "match"), FunctionSpec(FNS, "judge", weight=0.5)]
    assert combine(two, [{"score": 1.0, "acc": True}, 0.5]) == {"match": 1.0, "acc": True, "judge": 0.5,
                                                               "score": 1.25}


def test_a_custom_function_named_like_a_manager_key_gets_its_own_label() -> None:
    [spec] = specs_from_config({"path": FNS, "name": "score"}, ())
    assert spec.label == "custom_reward_function"
