"""tests/xdist_scheduler.py under a real two-worker pytest-xdist run: each file stays on one worker, and the files
that must share a worker (the end-to-end runs, the sandbox's threat tests) do."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests import xdist_scheduler
from tests.xdist_scheduler import SHARE_A_WORKER, SHARED_SCOPE, split_scope

pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install -e '.[test]')")

SHARED_FILES = ("tests/e2e/test_run_a.py", "tests/e2e/test_run_b.py", "tests/sandbox/test_threats.py")
OWN_FILES = ("tests/sandbox/test_limits.py", "tests/ops/test_one.py", "tests/ops/test_two.py",
             "tests/reward/test_three.py", "tests/test_four.py")
# Each test records which worker ran it; the sleep keeps both workers busy while the files are handed out.
TEST_BODY = '''
import os, time

def record(name):
    with open(os.path.join(os.environ["SCHEDULER_LOG"], os.environ["PYTEST_XDIST_WORKER"]), "a") as f:
        f.write(__file__ + " " + name + "\\n")
    time.sleep(0.2)

def test_first():
    record("first")

def test_second():
    record("second")
'''


def test_split_scope_groups_only_the_shared_files() -> None:
    for file in SHARED_FILES:
        assert split_scope(f"{file}::test_x[1]") == SHARED_SCOPE
    for file in OWN_FILES:
        assert split_scope(f"{file}::test_x") == file
    assert all(prefix.startswith("tests/") for prefix in SHARE_A_WORKER)


def test_two_workers_keep_files_whole_and_the_shared_files_together(tmp_path: Path) -> None:
    project = tmp_path / "project"
    for file in SHARED_FILES + OWN_FILES:
        (project / file).parent.mkdir(parents=True, exist_ok=True)
        (project / file).write_text(TEST_BODY)
    # Load the scheduler by path: the project's own tests/ must not shadow (or be shadowed by) this repo's.
    (project / "conftest.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('scheduler_under_test', {xdist_scheduler.__file__!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "pytest_xdist_make_scheduler = module.pytest_xdist_make_scheduler\n")
    (project / "pytest.ini").write_text("[pytest]\n")
    log = tmp_path / "log"
    log.mkdir()
    env = {**os.environ, "SCHEDULER_LOG": str(log)}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadfile", "tests"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    workers_of: dict[str, set[str]] = defaultdict(set)
    ran = 0
    for worker_log in log.iterdir():
        for line in worker_log.read_text().splitlines():
            path, _ = line.rsplit(" ", 1)
            workers_of[Path(path).relative_to(project).as_posix()].add(worker_log.name)
            ran += 1
    assert ran == 2 * len(SHARED_FILES + OWN_FILES)
    assert len(set().union(*workers_of.values())) == 2, "the run was not spread over two workers"
    assert all(len(workers) == 1 for workers in workers_of.values()), dict(workers_of)
    assert len(set().union(*(workers_of[file] for file in SHARED_FILES))) == 1, dict(workers_of)
