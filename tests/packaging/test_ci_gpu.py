"""ci/gpu and ci/gpu_suite.py, checked without a GPU and without downloads: the device call fits the device
tool's limits, stages end at their timeouts with their process groups, a machine without a GPU gets a clear
failure and a summary, results are collected by name, and the GPU test selections are not empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import torch

from tests.packaging.ci_modules import ROOT, load_ci_module

suite = load_ci_module("gpu_suite")


def test_script_parses_is_executable_and_refuses_an_unknown_command() -> None:
    script = ROOT / "ci" / "gpu"
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True)
    out = subprocess.run([str(script), "frobnicate"], capture_output=True, text=True)
    assert out.returncode == 2 and "ci/gpu prepare" in out.stderr and "ci/gpu run" in out.stderr


def test_device_call_is_within_the_tools_argument_limits() -> None:
    assert len(suite.device_command()) <= suite.COMMAND_LIMIT_CHARS
    assert 1 <= len(suite.DEVICE_CARRY) <= 8
    for path in suite.DEVICE_CARRY:  # carried paths must be git-ignored, or they travel twice
        assert subprocess.run(["git", "check-ignore", "-q", f"{path}/x.whl"], cwd=ROOT).returncode == 0, path
    assert suite.DEFAULT_BUDGET_S + 30 <= suite.RUN_LIMIT_S


def test_the_bundle_plan_fits_the_64_mib_a_call_may_carry() -> None:
    sizes = {"working tree": sum(p.stat().st_size for p in suite.travelling_files(ROOT)),
             "verl-ext wheel": suite.VERL_EXT_WHEEL_ALLOWANCE, **suite.DOWNLOAD_BYTES}
    assert set(suite.DOWNLOAD_BYTES) == set(suite.DOWNLOADS)
    assert suite.check_budget(sizes) == [], sizes
    assert suite.check_budget({**sizes, "flashinfer-cubin": 447_533_460}) != []


def test_download_commands_pin_the_device_python_and_platforms() -> None:
    cmd = suite.download_command("flashinfer-python==0.6.12", Path("/tmp/x"), python="python3")
    assert cmd[:3] == ["python3", "-m", "pip"] and "--no-deps" in cmd and "--only-binary=:all:" in cmd
    assert cmd[cmd.index("--python-version") + 1] == suite.DEVICE_PYTHON and "flashinfer-python==0.6.12" in cmd
    assert {"manylinux_2_28_x86_64", "any"} <= {cmd[i + 1] for i, a in enumerate(cmd) if a == "--platform"}
    assert all("==" in req for req in suite.DOWNLOADS)


def test_sources_digest_follows_the_wheels_sources(tmp_path: Path) -> None:
    (tmp_path / "verl_ext" / "ops").mkdir(parents=True)
    (tmp_path / "verl_ext" / "ops" / "a.py").write_text("x = 1\n")
    (tmp_path / "README.md").write_text("not a source\n")
    before = suite.sources_digest(tmp_path)
    (tmp_path / "README.md").write_text("changed\n")
    assert suite.sources_digest(tmp_path) == before
    (tmp_path / "verl_ext" / "ops" / "a.py").write_text("x = 2\n")
    assert suite.sources_digest(tmp_path) != before


def test_a_stage_past_its_timeout_is_ended_with_its_children(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("")
    pid_file = tmp_path / "pid"
    r = suite.Runner(log=log, deadline=time.monotonic() + 60, env=dict(os.environ))
    start = time.monotonic()
    stage = r.run("sleeper", ["sh", "-c", f"sleep 30 & echo $! > {pid_file}; wait"], tmp_path, cap=1.5)
    assert stage.timed_out and time.monotonic() - start < 15
    pid = int(pid_file.read_text())
    status = Path(f"/proc/{pid}/status")

    def alive() -> bool:
        try:
            return "\nState:\tZ" not in status.read_text()
        except OSError:
            return False

    # SIGKILL is delivered asynchronously: on a loaded machine the child may still be scheduled for a moment.
    gone_by = time.monotonic() + 10
    while alive() and time.monotonic() < gone_by:
        time.sleep(0.05)
    assert not alive(), "the stage's child outlived it"
    done = r.run("quick", ["sh", "-c", "echo hello"], tmp_path, cap=10)
    assert done.rc == 0 and not done.timed_out and "hello" in log.read_text()


def test_a_stage_with_no_time_left_is_not_started(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("")
    r = suite.Runner(log=log, deadline=time.monotonic() + 5, env=dict(os.environ))
    stage = r.run("late", ["sh", "-c", f"touch {tmp_path / 'ran'}"], tmp_path, cap=60, reserve=10)
    assert stage.timed_out and stage.note and not (tmp_path / "ran").exists()


def _fake_wheel(dest: Path) -> Path:
    """A wheel of an empty ``verl_ext`` package: what install and preflight need to get to the GPU check."""
    path = dest / "verl_ext-0.1.0-py3-none-any.whl"
    info = "verl_ext-0.1.0.dist-info"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("verl_ext/__init__.py", "")
        z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: verl-ext\nVersion: 0.1.0\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
    return path


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the failure on a machine without a GPU")
def test_run_without_a_gpu_fails_clearly_and_still_writes_a_summary(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root, out = tmp_path / "repo", tmp_path / "out"
    (root / suite.WHEEL_DIR).mkdir(parents=True)
    _fake_wheel(root / suite.WHEEL_DIR)
    code = suite.run_suite(root=root, out=out, work=tmp_path / "work", budget_s=120)
    assert code == 3
    assert "needs an NVIDIA GPU" in capsys.readouterr().err
    summary = json.loads((out / "gpu-suite-unknown.json").read_text())
    assert summary["ok"] is False
    assert [(s["name"], s["rc"]) for s in summary["stages"]][:1] == [("install verl-ext", 0)]
    assert summary["stages"][-1]["name"] == "preflight" and summary["stages"][-1]["rc"] != 0
    assert len(list(out.iterdir())) <= suite.OUT_FILE_LIMIT
    assert not (root / "benchmarks" / "results").exists() or not any((root / "benchmarks" / "results").iterdir())


def test_run_without_a_wheel_says_to_prepare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = suite.run_suite(root=tmp_path, out=tmp_path / "out", work=tmp_path / "work", budget_s=30)
    assert code == 2 and "ci/gpu prepare" in capsys.readouterr().err


def test_junit_summary_counts_and_reasons(tmp_path: Path) -> None:
    xml = tmp_path / "j.xml"
    xml.write_text('<testsuites><testsuite tests="3" failures="1" errors="0" skipped="1">'
                   '<testcase classname="t" name="a"/><testcase classname="t" name="b"><failure message="x"/>'
                   '</testcase><testcase classname="t" name="c"><skipped message="no flashinfer"/></testcase>'
                   '</testsuite></testsuites>')
    s = suite.junit_summary(xml)
    assert (s["passed"], s["failed"], s["skip_reasons"]) == (1, ["t::b"], {"no flashinfer": 1})
    assert suite.junit_summary(tmp_path / "absent.xml") == {"missing": True}


def test_collect_copies_only_device_results(tmp_path: Path) -> None:
    src, root = tmp_path / "files", tmp_path / "repo"
    src.mkdir()
    (root / "benchmarks" / "results").mkdir(parents=True)
    (src / "logprob-nvidia-h100.json").write_text(json.dumps({"benchmark": "logprob", "device": "nvidia-h100"}))
    (src / "gpu-suite-nvidia-h100.json").write_text(json.dumps({"suite": "gpu", "device": "nvidia-h100"}))
    (src / "gpu-suite-unknown.json").write_text(json.dumps({"suite": "gpu", "device": "unknown"}))
    (src / "other.json").write_text("[]")
    assert suite.collect(src, root) == 0
    assert sorted(p.name for p in (root / "benchmarks" / "results").iterdir()) == [
        "gpu-suite-nvidia-h100.json", "logprob-nvidia-h100.json"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert suite.collect(empty, root) == 1


def test_the_gpu_selections_are_not_empty() -> None:
    files = suite.gpu_test_files(ROOT / "tests")
    assert "tests/ops/test_gpu_kernels.py" in files
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m",
                          "gpu", *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    ids = [line for line in out.stdout.splitlines() if "::" in line]
    assert len([i for i in ids if "flashinfer" not in i]) >= 10, out.stdout[-2000:]
    assert len([i for i in ids if "flashinfer" in i]) >= 3, out.stdout[-2000:]


def test_the_flashinfer_skip_reason_reaches_the_tests() -> None:
    name = "VERL_EXT_NO_FLASHINFER_REASON"
    assert name in (ROOT / "ci" / "gpu_suite.py").read_text()
    assert name in (ROOT / "tests" / "ops" / "test_gpu_kernels.py").read_text()


def test_readme_documents_the_device_call() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "ci/gpu prepare" in readme and suite.device_command() in readme and "ci/gpu collect" in readme
