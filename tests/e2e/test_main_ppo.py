"""verl's own trainer, whole: ``python -m verl.trainer.main_ppo`` with verl-ext's configs for one GRPO step and
a validation pass on this CPU machine (vLLM's CPU build, verl's FSDP2 engine, verl-ext's CPU platform), in a
subprocess of the end-to-end venv (``.venv-e2e``, made by ``ci/setup.sh``). Everything is asserted from the
run's own outputs: its metrics file and its validation dump. (The code config runs through ``verl-ext smoke``:
test_smoke.py.)"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.rows import BY_FUNCTIONS, NATIVE, code_rows, math_rows
from tests.helpers import BUSY_MACHINE
from verl_ext.cpu.overrides import cpu_overrides
from verl_ext.smoke.assets import tiny_checkpoint
from verl_ext.smoke.run import DAEMON_EXIT_S, STEP, processes_with, socket_folder

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-e2e" / "bin" / "python"
FUNCTIONS = Path(__file__).with_name("reward_fns.py")
#: reward_extra_info keys every sample of the verl_ext manager reports (README, "Use it in your verl run").
MANAGER_KEYS = {"score", "acc", "pred", "tests_passed", "tests_failed", "tests_timeout", "tests_error", "unscorable"}
#: A whole run on the 2-core VM takes 100-170 s; ten times that on a loaded machine is a hang.
RUN_TIMEOUT_S = 1200

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PYTHON.exists(), reason=f"{PYTHON} missing: ci/setup.sh makes it (vLLM's CPU build)"),
]


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import pandas as pd

    root = tmp_path_factory.mktemp("e2e")
    tiny_checkpoint(root / "model")
    for kind, rows in (("math", math_rows), ("code", code_rows)):
        (root / kind).mkdir()
        pd.DataFrame(rows("train", 16)).to_parquet(root / kind / "train.parquet")
        pd.DataFrame(rows("test", 4)).to_parquet(root / kind / "test.parquet")
    return root


def main_ppo(assets: Path, config: str, data: str, out: Path, *extra: str) -> dict[str, Any]:
    """Run main_ppo for one step plus validation; return its step-1 metrics (asserting exit 0 and that no
    process of the run outlives it)."""
    out.mkdir()
    mark = f"VERL_EXT_E2E_RUN={uuid.uuid4().hex}"
    argv = [str(PYTHON), "-m", "verl.trainer.main_ppo", "--config-name", config,
            f"data.train_files={assets / data / 'train.parquet'}", f"data.val_files={assets / data / 'test.parquet'}",
            f"actor_rollout_ref.model.path={assets / 'model'}", *cpu_overrides(), *STEP,
            # Later values win: sampled validation (the functions' scores differ between samples).
            "actor_rollout_ref.rollout.val_kwargs.do_sample=True",
            "trainer.project_name=e2e", f"trainer.experiment_name={config}",
            f"trainer.validation_data_dir={out / 'validation'}", f"trainer.rollout_data_dir={out / 'rollout'}",
            f"trainer.default_local_dir={out / 'checkpoints'}", *extra]
    started = time.monotonic()
    with socket_folder() as sockets:  # removed once the run's processes are gone
        env = {**os.environ, "VERL_PLATFORM": "cpu", "VERL_FILE_LOGGER_PATH": str(out / "metrics.jsonl"),
               "TOKENIZERS_PARALLELISM": "false", "HYDRA_FULL_ERROR": "1", mark.split("=")[0]: mark.split("=")[1],
               **sockets}
        try:
            run = subprocess.run(argv, cwd=out, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        finally:
            deadline = time.monotonic() + BUSY_MACHINE * DAEMON_EXIT_S  # Ray's daemons exit shortly after the driver
            while processes_with(mark) and time.monotonic() < deadline:
                time.sleep(0.5)
            left = processes_with(mark)
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)
    (out / "log.txt").write_text(run.stdout + run.stderr)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert not left, f"processes left after the run: {left}"
    print(f"{config}: {time.monotonic() - started:.0f} s")
    lines = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    return next(m["data"] for m in lines if m.get("step") == 1)


def _validation_rows(out: Path) -> list[dict[str, Any]]:
    files = sorted((out / "validation").glob("*.jsonl"))
    assert files, "no validation dump"
    return [json.loads(line) for line in files[-1].read_text().splitlines() if line.strip()]


def test_grpo_step_with_fused_ops_fused_sampler_and_reward_functions(assets: Path, tmp_path: Path) -> None:
    """The math config with the fused actor ops (external_lib=verl_ext.patches), the fused sampler in vLLM
    (VLLMWorkerExtension), gsm8k rows scored natively and the other rows by two reward functions of the
    user's (one sync, one async), in the same batches."""
    functions = (f"[{{path: {FUNCTIONS}, name: length_score, weight: 1.0}}, "
                 f"{{path: {FUNCTIONS}, name: digit_share, weight: 0.5}}]")
    metrics = main_ppo(assets, "grpo_math_verl_ext_fused", "math", tmp_path / "run",
                       f"++reward.reward_kwargs.functions={functions}",
                       f"++reward.reward_kwargs.native_sources=[{NATIVE}]",
                       "++actor_rollout_ref.rollout.engine_kwargs.vllm.worker_extension_cls="
                       "verl_ext.rollout.VLLMWorkerExtension")
    # The functions' scores differ between a prompt's samples: non-zero advantages and gradient.
    assert metrics["actor/grad_norm"] > 0, metrics
    # The actor's log-probs (fused op) and the rollout's (vLLM with the fused sampler) agree.
    assert metrics["training/rollout_probs_diff_max"] < 0.02, metrics
    for source, keys in ((NATIVE, ("acc", "unscorable")), (BY_FUNCTIONS, ("acc", "unscorable", "length_score",
                                                                          "digit_share"))):
        for key in keys:
            assert f"val-{'core' if key == 'acc' else 'aux'}/{source}/{key}/mean@1" in metrics, sorted(metrics)
    rows = _validation_rows(tmp_path / "run")
    assert len(rows) == 4
    for row in rows:
        # The same keys for every sample, whichever scored it.
        assert set(row) >= MANAGER_KEYS | {"length_score", "digit_share"}, sorted(row)
        assert row["unscorable"] == 0, row
        if row["gts"] in {r["reward_model"]["ground_truth"] for r in math_rows("test", 4)[1::2]}:
            # Scored by the functions: the weighted sum of theirs.
            assert row["score"] == pytest.approx(row["length_score"] + 0.5 * row["digit_share"]), row
        else:
            # gsm8k's own scorer: right or wrong; the functions' keys are there, empty.
            assert row["score"] in (0.0, 1.0) and row["length_score"] is None, row
