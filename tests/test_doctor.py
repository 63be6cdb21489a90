"""``verl-ext doctor --config``: what a main_ppo config needs from the host, each missing item named with the
config key that needs it, and a non-zero exit when something is missing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from verl_ext import doctor
from verl_ext.cli import main

HAS_VLLM = importlib.util.find_spec("vllm") is not None


def test_sampling_config_names_what_this_host_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["doctor", "--no-sandbox", "--config", "grpo_math_verl_ext_sampling"])
    out = capsys.readouterr().out
    assert "config grpo_math_verl_ext_sampling needs:" in out
    assert "triton  <- engine_kwargs.vllm.worker_extension_cls=verl_ext.rollout.VLLMWorkerExtension" in out
    gpu_line = next(line for line in out.splitlines() if "a CUDA or ROCm GPU" in line)
    vllm_line = next(line for line in out.splitlines() if line.strip().endswith("rollout.name=vllm"))
    assert ("ok" in vllm_line) == HAS_VLLM
    missing = "MISSING" in gpu_line or "MISSING" in vllm_line
    assert rc == (1 if missing else 0)
    if missing:
        assert "cannot run on this host" in out


def test_a_config_this_host_can_run_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "cpu_only.yaml"
    cfg.write_text("hydra:\n  searchpath:\n    - pkg://verl.trainer.config\ndefaults:\n  - ppo_trainer\n  - _self_\n"
                   "trainer:\n  n_gpus_per_node: 0\nactor_rollout_ref:\n  rollout:\n    name: hf\n")
    assert main(["doctor", "--no-sandbox", "--config", str(cfg)]) == 0
    assert f"config {cfg} needs:" in capsys.readouterr().out


def test_a_config_that_does_not_compose_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--no-sandbox", "--config", "no_such_config"]) == 1
    assert "does not compose: no config 'no_such_config'" in capsys.readouterr().out


def test_needs_follow_the_config_keys() -> None:
    cfg = doctor.compose("grpo_code_verl_ext")
    found = {n.what: n for n in doctor.needs(cfg, "none (CPU only)", sandbox_ok=False)}
    assert not found["a CUDA or ROCm GPU"].present
    assert not found["the verl-ext code sandbox (full isolation)"].present
    assert found["vllm"].why == "actor_rollout_ref.rollout.name=vllm"
    fused = {n.why for n in doctor.needs(doctor.compose("grpo_math_verl_ext_fused"), "CUDA: H100 (x8)", True)}
    assert "actor_rollout_ref.model.external_lib=verl_ext.patches (fused kernels on GPU)" in fused


def test_doctor_reports_the_plugin_registration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--no-sandbox"]) == 0
    assert "verl plugin        reward manager verl_ext registered" in capsys.readouterr().out


def test_a_broken_registration_fails_the_doctor(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from verl.workers import reward_manager

    def missing(name: str) -> None:
        raise ValueError(f"Unknown reward manager: {name}")

    monkeypatch.setattr(reward_manager, "get_reward_manager_cls", missing)
    assert main(["doctor", "--no-sandbox"]) == 1
    out = capsys.readouterr().out
    assert "verl plugin        BROKEN: ValueError: Unknown reward manager: verl_ext" in out
    assert "the reward manager is not registered" in out


def test_doctor_says_how_to_run_a_container_when_isolation_fails(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from verl_ext import sandbox

    caps = {**sandbox.capabilities(), "full_isolation": False, "error": "clone3 with new namespaces failed"}
    monkeypatch.setattr(sandbox, "capabilities", lambda: caps)
    monkeypatch.setattr(doctor, "_in_container", lambda: True)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "NO: clone3 with new namespaces failed" in out
    assert "--security-opt seccomp=unconfined --security-opt systempaths=unconfined" in out


def test_doctor_says_which_resource_controls_are_in_force(capsys: pytest.CaptureFixture[str]) -> None:
    """memfd policy, socket-family filter and the CPU-share mechanism per start kind (issue #13), printed as the
    sandbox's own detection found them (its cases are tested in the sandbox crate with fabricated hosts)."""
    from verl_ext import sandbox

    main(["doctor", "--no-sandbox"])
    out = capsys.readouterr().out
    caps = sandbox.capabilities()
    cold, warm = caps["cpu_share"], caps["cpu_share_warm"]
    for share in (cold, warm):
        assert share.split(":")[0] in ("cgroup", "autogroup") or share.startswith("none ("), share
    assert not warm.startswith("cgroup"), "warm starts get no cgroup"
    if cold == warm:
        assert f"  cpu share          {cold}\n" in out
    else:
        in_use = "warm" if sandbox.warm_starts() else "cold"
        assert f"  cpu share          cold starts: {cold}{' (in use)' * (in_use == 'cold')}\n" in out
        assert f"                     warm starts: {warm}{' (in use)' * (in_use == 'warm')}\n" in out
    if not caps["cgroups"].startswith("unavailable"):
        assert "cold starts only" in caps["cgroups"]
    if caps["seccomp"]:
        assert "  memfd              denied (seccomp, EPERM)" in out
        assert "  socket families    AF_UNIX, AF_INET, AF_INET6 (others: EAFNOSUPPORT)\n" in out


def test_doctor_says_which_memory_accounting_is_in_force(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Without cgroups (the default) memory_mb is RLIMIT_AS, per process: an execution may hold memory_mb x
    max_processes (red team F2). doctor says so, or that the execution's cgroup bounds the sum, and that the
    OOM killer picks sandboxed processes before the trainer."""
    from verl_ext import sandbox

    monkeypatch.delenv("VERL_EXT_SANDBOX_CGROUPS", raising=False)
    main(["doctor", "--no-sandbox"])
    out = capsys.readouterr().out
    caps = sandbox.capabilities()
    line = next(ln for ln in out.splitlines() if ln.startswith("  memory accounting  "))
    assert line == f"  memory accounting  {caps['memory']}"
    if caps["cgroups"].startswith("unavailable"):
        assert caps["memory"].startswith("per process: RLIMIT_AS"), caps
        assert "memory_mb x max_processes" in caps["memory"]
    else:
        assert caps["memory"].startswith("per execution (cold starts): cgroup"), caps
    assert "oom_score_adj 1000" in caps["memory"]
