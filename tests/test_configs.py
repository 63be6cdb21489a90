"""Every config in verl_ext/configs/ composes with verl's main_ppo (`--cfg job` needs no GPU), found by name
through verl-ext's Hydra search-path plugin, and from a user's own config through its defaults list."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

import verl_ext.configs

#: The configs of the installed package (in a checkout: the source tree).
CONFIGS = Path(verl_ext.configs.__file__).resolve().parent


@pytest.mark.parametrize("config", sorted(p.stem for p in CONFIGS.glob("*.yaml")))
def test_main_ppo_composes_config(config: str) -> None:
    job = compose(config)
    assert job["reward"]["reward_manager"] == {
        "_target_": "verl.workers.config.reward.RewardManagerConfig", "source": "register", "name": "verl_ext",
        "module": {"_target_": "verl.trainer.config.config.ModuleConfig", "path": None,
                   "name": "custom_reward_manager"},
    }
    assert job["reward"]["reward_kwargs"]["on_error"] in ("zero", "raise")


def compose(config: str, *overrides: str, config_path: Path | None = None) -> dict:
    """The job config verl's main_ppo composes from ``config`` (by name: no ``--config-path``, so it is
    found through the search-path plugin, as a user of the installed wheel runs it)."""
    path = ["--config-path", str(config_path)] if config_path else []
    out = subprocess.run(
        [sys.executable, "-m", "verl.trainer.main_ppo", *path, "--config-name", config, "--cfg", "job", *overrides],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    job = OmegaConf.to_container(OmegaConf.create(out.stdout))
    assert isinstance(job, dict)
    return job


def test_the_search_path_plugin_is_registered_with_hydra() -> None:
    from hydra.core.plugins import Plugins
    from hydra.plugins.search_path_plugin import SearchPathPlugin

    # Hydra loads each module it scans itself: compare by name, and the plugin is registered once.
    found = [f"{p.__module__}.{p.__name__}" for p in Plugins.instance().discover(SearchPathPlugin)]
    assert found.count("hydra_plugins.verl_ext_searchpath.verl_ext_searchpath.VerlExtSearchPathPlugin") == 1


def test_a_users_config_composes_a_verl_ext_config_from_its_defaults(tmp_path: Path) -> None:
    # Hydra reads hydra.searchpath only from the primary config: this works because of the plugin.
    (tmp_path / "my_run.yaml").write_text(
        "defaults:\n  - grpo_math_verl_ext\n  - _self_\n\n"
        "trainer:\n  project_name: mine\n"
        "reward:\n  reward_kwargs:\n    format_weight: 0.25\n"
    )
    job = compose("my_run", "actor_rollout_ref.rollout.n=4", config_path=tmp_path)
    assert job["reward"]["reward_manager"]["name"] == "verl_ext"
    assert job["reward"]["reward_kwargs"]["format_weight"] == 0.25  # the user's _self_ wins
    assert job["reward"]["reward_kwargs"]["on_error"] == "zero"  # verl-ext's base/grpo_math
    assert job["algorithm"]["adv_estimator"] == "grpo"
    assert job["trainer"]["project_name"] == "mine"
    assert job["actor_rollout_ref"]["rollout"]["n"] == 4
    assert "critic" in job  # verl's ppo_trainer, through grpo_math_verl_ext


def test_a_users_config_on_ppo_trainer_adds_verl_exts_settings(tmp_path: Path) -> None:
    # ppo_trainer may appear only once in a defaults tree: with it listed first, take base/grpo_math.
    (tmp_path / "mine.yaml").write_text("defaults:\n  - ppo_trainer\n  - base/grpo_math\n  - _self_\n")
    job = compose("mine", config_path=tmp_path)
    assert job["reward"]["reward_manager"]["name"] == "verl_ext"
    assert job["algorithm"]["adv_estimator"] == "grpo"


def test_no_packaged_config_sets_a_search_path() -> None:
    # hydra.searchpath in a config that a user's defaults list includes fails the composition.
    for path in CONFIGS.rglob("*.yaml"):
        assert "hydra" not in OmegaConf.load(path), path


def test_fused_config_names_the_patch_module() -> None:
    model = compose("grpo_math_verl_ext_fused")["actor_rollout_ref"]["model"]
    assert model["external_lib"] == "verl_ext.patches" and model["use_fused_kernels"] is True
    # The module verl will import exists and patches on import.
    import importlib

    assert importlib.import_module(model["external_lib"]).applied()


def test_sampling_config_installs_the_worker_extension_on_either_vllm_runner() -> None:
    job = compose("grpo_math_verl_ext_sampling")
    rollout = job["actor_rollout_ref"]["rollout"]
    assert rollout["name"] == "vllm"
    assert rollout["engine_kwargs"]["vllm"]["worker_extension_cls"] == "verl_ext.rollout.VLLMWorkerExtension"
    # V1 and V2 runners both take the sampler: vLLM picks its runner, as without verl-ext.
    runtime_env = (job.get("ray_kwargs") or {}).get("ray_init", {}).get("runtime_env") or {}
    assert "VLLM_USE_V2_MODEL_RUNNER" not in (runtime_env.get("env_vars") or {})
    module, _, name = rollout["engine_kwargs"]["vllm"]["worker_extension_cls"].rpartition(".")
    import importlib

    pytest.importorskip("vllm", reason="the worker extension subclasses verl's vLLM extension, which needs vLLM")
    assert callable(getattr(importlib.import_module(module), name).monkey_patch_model)  # what vLLM will import


#: Where the docs show `reward.reward_kwargs` overrides for the command line.
DOCS = [Path(__file__).resolve().parents[1] / p for p in
        ("README.md", "docs/configuration.md", "docs/reward-functions.md", "docs/math-verifier.md")]


def _documented_overrides() -> list[str]:
    import re

    found: list[str] = []
    for doc in DOCS:
        text = doc.read_text()
        # Quoted ('...': a list with spaces) or bare, as written; not the `<key>=...` placeholder.
        found += re.findall(r"'(\+\+reward\.reward_kwargs\.[^']+)'", text)
        found += [o for o in re.findall(r"(?<!['\w])(\+?\+?reward\.reward_kwargs\.[a-z_]+=[^\s`'\\)]+)", text)
                  if o.startswith("++") and "<" not in o and "..." not in o]
    return sorted(set(found))


def test_docs_show_overrides_with_double_plus() -> None:
    """Issue 26: `+reward.reward_kwargs.format_weight=...`, as documented, failed on verl-ext's configs, which
    set format_weight already (Hydra refuses `+` on an existing key)."""
    overrides = _documented_overrides()
    assert len(overrides) >= 4, overrides
    for doc in DOCS:
        import re

        assert not re.search(r"(?<![+\w])\+reward\.reward_kwargs", doc.read_text()), doc


@pytest.mark.parametrize("config", ["grpo_math_verl_ext", "grpo_code_verl_ext"])
def test_the_documented_overrides_compose_as_written(config: str, tmp_path: Path) -> None:
    (tmp_path / "my_rewards.py").write_text("def correctness(**kw):\n    return 0.0\n")
    overrides = [o for o in _documented_overrides() if "functions=" not in o]
    reward_kwargs = compose(config, *overrides)["reward"]["reward_kwargs"]
    assert reward_kwargs["format_weight"] == 0.1
    functions = next(o for o in _documented_overrides() if "functions=" in o)
    assert compose(config, functions)["reward"]["reward_kwargs"]["functions"]


def test_the_top_level_configs_are_the_packaged_ones() -> None:
    """`configs/` at the top of the checkout is where a reader looks; the wheel ships `verl_ext/configs`: one copy."""
    root = Path(__file__).resolve().parents[1]
    top = root / "configs"
    assert top.is_symlink() and top.resolve() == Path(verl_ext.configs.__file__).resolve().parent
