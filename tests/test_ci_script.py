"""ci/test's own logic, run on stand-ins: every command it calls is recorded instead of run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Commands ci/test calls; each stand-in records its name and arguments.
COMMANDS = ["python", "ruff", "cargo"]


def _calls(tmp_path: Path, *args: str) -> list[str]:
    (tmp_path / "ci").mkdir()
    shutil.copy(ROOT / "ci" / "test", tmp_path / "ci" / "test")
    (tmp_path / "ci" / "setup.sh").write_text("")  # the real one installs the stack
    log = tmp_path / "calls"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in COMMANDS:
        stub = bin_dir / name
        stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
        stub.chmod(0o755)
    for script in ["sandbox-required", "check-packaging", "check-wheel-reproducible"]:
        stub = tmp_path / "ci" / script
        stub.write_text(f'#!/bin/sh\necho "ci/{script}" >> "{log}"\n')
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("VERL_EXT_TEST_WORKERS", None)  # the default is what is checked
    subprocess.run(["bash", "ci/test", *args], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=60)
    return log.read_text().splitlines()


def test_arguments_select_only_pytest(tmp_path: Path) -> None:
    calls = _calls(tmp_path, "-k", "parity")
    assert [c for c in calls if not c.startswith("ci/sandbox-required")] == ['python -m pytest -m not docker -k parity']


def test_no_arguments_run_everything(tmp_path: Path) -> None:
    calls = _calls(tmp_path)
    for expected in ["ruff check .", "python -m mypy verl_ext", "cargo clippy --workspace --all-targets --locked "
                     "--quiet -- -D warnings", "python -m pytest -m not docker -n 2 --dist loadfile",
                     "ci/check-packaging", "ci/check-wheel-reproducible",
                     "python -m pytest -m docker tests/packaging/test_images.py"]:
        assert expected in calls, (expected, calls)
