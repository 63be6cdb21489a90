"""Every config in configs/ composes with verl's main_ppo (`--cfg job` needs no GPU)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.mark.parametrize("config", sorted(p.stem for p in CONFIGS.glob("*.yaml")))
def test_main_ppo_composes_config(config: str) -> None:
    job = compose(config)
    assert job["reward"]["reward_manager"] == {
        "_target_": "verl.workers.config.reward.RewardManagerConfig", "source": "register", "name": "verl_ext",
        "module": {"_target_": "verl.trainer.config.config.ModuleConfig", "path": None,
                   "name": "custom_reward_manager"},
    }
    assert job["reward"]["reward_kwargs"]["on_error"] in ("zero", "raise")


def compose(config: str) -> dict:
    """The job config verl's main_ppo composes from ``configs/<config>.yaml``."""
    out = subprocess.run(
        [sys.executable, "-m", "verl.trainer.main_ppo", "--config-path", str(CONFIGS), "--config-name", config,
         "--cfg", "job"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return yaml.safe_load(out.stdout)


def test_fused_config_names_the_patch_module() -> None:
    model = compose("grpo_math_verl_ext_fused")["actor_rollout_ref"]["model"]
    assert model["external_lib"] == "verl_ext.patches" and model["use_fused_kernels"] is True
    # The module verl will import exists and patches on import.
    import importlib

    assert importlib.import_module(model["external_lib"]).applied()


def test_sampling_config_installs_the_worker_extension_on_vllms_v1_runner() -> None:
    job = compose("grpo_math_verl_ext_sampling")
    rollout = job["actor_rollout_ref"]["rollout"]
    assert rollout["name"] == "vllm"
    assert rollout["engine_kwargs"]["vllm"]["worker_extension_cls"] == "verl_ext.rollout.VLLMWorkerExtension"
    assert job["ray_kwargs"]["ray_init"]["runtime_env"]["env_vars"]["VLLM_USE_V2_MODEL_RUNNER"] == "0"
    import verl_ext.rollout

    assert "VLLMWorkerExtension" in verl_ext.rollout.__all__  # resolved lazily (it needs vLLM)
