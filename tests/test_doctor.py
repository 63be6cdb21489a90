"""``verl-ext doctor [--config NAME [overrides...]] [--json]``: what a main_ppo config needs from the host and
what is wrong with it (reward manager, reward options, reward functions, data files), each finding named with
the config key it comes from, and a non-zero exit when something is missing or wrong."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from verl_ext import container, doctor
from verl_ext.cli import main

HAS_VLLM = importlib.util.find_spec("vllm") is not None


def test_sampling_config_names_what_this_host_lacks(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    need_triton = "triton  <- engine_kwargs.vllm.worker_extension_cls=verl_ext.rollout.VLLMWorkerExtension"
    monkeypatch.setenv("VERL_EXT_SAMPLER_BACKEND", "torch")  # the sort-based reference: no Triton needed
    main(["doctor", "--no-sandbox", "--config", "grpo_math_verl_ext_sampling"])
    assert need_triton not in capsys.readouterr().out
    monkeypatch.delenv("VERL_EXT_SAMPLER_BACKEND")
    rc = main(["doctor", "--no-sandbox", "--config", "grpo_math_verl_ext_sampling"])
    out = capsys.readouterr().out
    assert "config grpo_math_verl_ext_sampling needs:" in out
    assert need_triton in out
    gpu_line = next(line for line in out.splitlines() if "a CUDA or ROCm GPU" in line)
    vllm_line = next(line for line in out.splitlines() if line.strip().endswith("rollout.name=vllm"))
    assert ("ok" in vllm_line) == HAS_VLLM
    missing = "MISSING" in gpu_line or "MISSING" in vllm_line
    if missing:
        assert rc == 1 and "cannot run on this host" in out
    # The config's default data files (~/data/gsm8k/...) are checked too.
    assert rc == (1 if missing or "\n  ERROR   " in out else 0)


def test_a_config_this_host_can_run_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "train.jsonl"  # not parquet: only its existence is checked
    data.write_text("{}\n")
    cfg = tmp_path / "cpu_only.yaml"
    cfg.write_text("defaults:\n  - ppo_trainer\n  - _self_\n"
                   "trainer:\n  n_gpus_per_node: 0\nactor_rollout_ref:\n  rollout:\n    name: hf\n"
                   f"data:\n  train_files: {data}\n  val_files: [{data}]\n")
    assert main(["doctor", "--no-sandbox", "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert f"config {cfg} needs:" in out
    assert f"  ok      data.val_files[0]: {data} exists (not parquet: its rows are not checked)" in out
    assert "  ok      reward.reward_manager.name: naive is registered" in out


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
    monkeypatch.setattr(container, "in_container", lambda: True)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "NO: clone3 with new namespaces failed" in out
    assert ("--security-opt seccomp=docker/seccomp.json (in the images: /opt/verl-ext/seccomp.json) "
            "--security-opt systempaths=unconfined --user verl") in out
    assert "unconfined --security-opt seccomp=unconfined" not in out and "seccomp=unconfined" not in out


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
    if caps["cgroups"].startswith("cgroup v"):
        assert "cold starts only" in caps["cgroups"]
    if caps["seccomp"]:
        assert "  memfd              denied (seccomp, EPERM)" in out
        assert "  socket families    AF_UNIX (connected pairs only), AF_INET, AF_INET6 (others: EAFNOSUPPORT)\n" in out


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
    if not caps["cgroups"].startswith("cgroup v"):
        assert caps["memory"].startswith("per process: RLIMIT_AS"), caps
        assert "memory_mb x max_processes" in caps["memory"]
    else:
        assert caps["memory"].startswith("per execution (cold starts): cgroup"), caps
    assert "oom_score_adj 1000" in caps["memory"]


# ---- doctor --config NAME [overrides...]: each finding under the config key it comes from -------------------------


def check(capsys: pytest.CaptureFixture[str], *overrides: str, config: str = "grpo_math_verl_ext") -> dict[str, Any]:
    """``verl-ext doctor --json --config CONFIG OVERRIDES...``: its JSON object, with the first finding of each
    key under ``by_key`` and the exit status under ``rc``."""
    rc = main(["doctor", "--no-sandbox", "--json", "--config", config, *overrides])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    report["rc"] = rc
    by_key: dict[str, dict[str, str]] = {}
    for f in report["config"]["findings"]:
        by_key.setdefault(f["key"], f)
    report["by_key"] = by_key
    return report


def test_a_bad_override_value_names_the_key_and_what_it_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, "reward.reward_kwargs.format_weight=abc")
    assert got["rc"] == 1 and got["ok"] is False
    assert got["by_key"]["reward.reward_kwargs.format_weight"] == {
        "level": "error", "key": "reward.reward_kwargs.format_weight", "message": "expected a number, got 'abc'"}
    got = check(capsys, "reward.reward_kwargs.on_error=ignore")
    assert got["by_key"]["reward.reward_kwargs.on_error"]["message"] == "expected one of zero, raise, got 'ignore'"


def test_an_unknown_reward_option_gets_a_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, "+reward.reward_kwargs.format_wieght=0.1")
    message = got["by_key"]["reward.reward_kwargs.format_wieght"]["message"]
    assert message.startswith("unknown option; did you mean 'format_weight'?"), message


def test_the_reward_options_are_checked_only_for_the_verl_ext_manager(capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, "reward.reward_manager.name=naive", "+reward.reward_kwargs.format_wieght=0.1")
    assert got["by_key"]["reward.reward_manager.name"]["message"] == "naive is registered"
    assert "reward.reward_kwargs.format_wieght" not in got["by_key"]


def test_an_unregistered_manager_lists_the_registered_ones(capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, "reward.reward_manager.name=verl_xt")
    finding = got["by_key"]["reward.reward_manager.name"]
    assert finding["level"] == "error" and "'verl_xt' is not a registered reward manager" in finding["message"]
    assert "verl_ext" in finding["message"].split("registered: ")[1]


def test_a_manager_loaded_by_import_path_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    source = ["reward.reward_manager.source=importlib", "reward.reward_manager.module.path=pkg://verl_ext.reward.manager"]
    got = check(capsys, *source, "reward.reward_manager.name=VerlExtRewardManager")
    assert got["by_key"]["reward.reward_manager.module.path"] == {
        "level": "ok", "key": "reward.reward_manager.module.path",
        "message": "pkg://verl_ext.reward.manager has VerlExtRewardManager"}
    got = check(capsys, *source, "reward.reward_manager.name=VerlExtRewardManager", "reward.reward_kwargs.on_error=x")
    assert got["by_key"]["reward.reward_kwargs.on_error"]["level"] == "error"  # verl-ext's options are checked
    got = check(capsys, *source, "reward.reward_manager.name=Nope")
    assert got["by_key"]["reward.reward_manager.name"]["level"] == "error"


def test_an_override_that_does_not_apply_is_a_finding_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, "reward.reward_kwargs.nope=1")
    finding = got["by_key"]["reward.reward_kwargs.nope"]
    assert finding["level"] == "error" and "does not compose" in finding["message"]
    assert "+reward.reward_kwargs.nope=1" in finding["message"]  # Hydra's hint
    assert got["config"]["composed"] is False and got["rc"] == 1


def test_the_text_report_names_the_overrides_and_the_keys(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["doctor", "--no-sandbox", "--config", "grpo_math_verl_ext", "reward.reward_kwargs.format_weight=abc"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "config grpo_math_verl_ext checks (overrides: reward.reward_kwargs.format_weight=abc):" in out
    assert "  ERROR   reward.reward_kwargs.format_weight: expected a number, got 'abc'\n" in out
    assert "doctor: config grpo_math_verl_ext " in out


def test_overrides_need_a_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--no-sandbox", "a=1"]) == 2
    assert "need --config" in capsys.readouterr().err


def test_a_missing_custom_function_file_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, f"reward.custom_reward_function.path={tmp_path / 'nope.py'}")
    finding = got["by_key"]["reward.custom_reward_function.path"]
    assert finding["level"] == "error"
    assert "cannot import" in finding["message"] and "no such file" in finding["message"]


def test_a_custom_function_with_the_wrong_signature_is_reported(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    fn = tmp_path / "reward.py"
    fn.write_text("def compute_score(data_source, solution_str):\n    return 1.0\n")
    got = check(capsys, f"reward.custom_reward_function.path={fn}")
    finding = got["by_key"]["reward.custom_reward_function.name"]
    assert finding["level"] == "error"
    assert finding["message"].startswith("compute_score(data_source, solution_str) cannot be called with verl's "
                                         "arguments (data_source, solution_str, ground_truth, extra_info)")
    got = check(capsys, f"reward.custom_reward_function.path={fn}", "reward.custom_reward_function.name=missing")
    assert "has no function 'missing'" in got["by_key"]["reward.custom_reward_function.name"]["message"]


def test_each_reward_function_is_imported_and_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fn = tmp_path / "rewards.py"
    fn.write_text("def correct(data_source, solution_str, ground_truth, extra_info=None):\n    return 1.0\n"
                  "async def judge(data_source, solution_str, ground_truth, extra_info=None):\n    return 0.5\n")
    functions = f"[{{path:'{fn}',name:correct,weight:2}},{{path:'{fn}',name:judge,kind:process}}]"
    got = check(capsys, f"+reward.reward_kwargs.functions={functions}")
    ok = got["by_key"]["reward.reward_kwargs.functions[0].path"]
    assert ok["level"] == "ok" and "correct(data_source, solution_str, ground_truth, extra_info=None)" in ok["message"]
    assert "runs as process, weight 2" in ok["message"]
    wrong = got["by_key"]["reward.reward_kwargs.functions[1].kind"]
    assert wrong["level"] == "error" and "kind=process needs a plain (not async) function" in wrong["message"]


def test_a_bad_sandbox_mode_fails_the_doctor_with_the_fix(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VERL_EXT_SANDBOX_MODE", "rlimits")
    assert main(["doctor", "--no-sandbox"]) == 1
    out = capsys.readouterr().out
    assert ("  ERROR   VERL_EXT_SANDBOX_MODE: VERL_EXT_SANDBOX_MODE must be one of ('full', 'rlimits-only'), got "
            "'rlimits'") in out
    assert "doctor: " in out and "set VERL_EXT_SANDBOX_MODE to one of full, rlimits-only, or unset it" in out
    assert main(["doctor", "--no-sandbox", "--json"]) == 1
    got = json.loads(capsys.readouterr().out)
    assert got["ok"] is False and got["environment"][0]["key"] == "VERL_EXT_SANDBOX_MODE"


def test_other_environment_variables_are_checked(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VERL_EXT_SAMPLER_BACKEND", "cuda")
    monkeypatch.setenv("VERL_EXT_NUM_THREADS", "many")
    monkeypatch.setenv("VERL_EXT_SANDBOX_PACKAGES", "all")
    assert main(["doctor", "--no-sandbox", "--json"]) == 1
    got = {f["key"]: f for f in json.loads(capsys.readouterr().out)["environment"]}
    assert got["VERL_EXT_SAMPLER_BACKEND"]["level"] == "error"
    assert "one of auto, triton, torch" in got["VERL_EXT_SAMPLER_BACKEND"]["message"]
    assert got["VERL_EXT_SANDBOX_PACKAGES"]["level"] == "error"
    assert "one of site, stdlib" in got["VERL_EXT_SANDBOX_PACKAGES"]["message"]
    assert got["VERL_EXT_NUM_THREADS"]["level"] == "warning"
    # Every execution would fail on the bad scope: no warm-start probe repeating it with a wrong hint.
    assert main(["doctor", "--no-sandbox", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["sandbox"]["warm_starts"] is None
    monkeypatch.setenv("VERL_EXT_SAMPLER_BACKEND", "flashinfer")  # the rollout sampler cannot run it
    assert main(["doctor", "--no-sandbox", "--json"]) == 1
    got = {f["key"]: f for f in json.loads(capsys.readouterr().out)["environment"]}
    assert "FlashInfer's sampler cannot take" in got["VERL_EXT_SAMPLER_BACKEND"]["message"]
    monkeypatch.delenv("VERL_EXT_SAMPLER_BACKEND")
    monkeypatch.delenv("VERL_EXT_SANDBOX_PACKAGES")
    assert main(["doctor", "--no-sandbox"]) == 0  # a warning does not fail the doctor
    assert "  WARNING VERL_EXT_NUM_THREADS: 'many' is not a positive integer" in capsys.readouterr().out


def test_json_is_one_object_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fn = tmp_path / "noisy.py"  # what a user module prints on import must not corrupt the JSON
    fn.write_text("print('importing noisy')\ndef compute_score(data_source, solution_str, ground_truth, "
                  "extra_info=None):\n    return 0.0\n")
    rc = main(["doctor", "--no-sandbox", "--json", "--config", "grpo_math_verl_ext",
               f"reward.custom_reward_function.path={fn}"])
    captured = capsys.readouterr()
    got = json.loads(captured.out)
    assert "importing noisy" in captured.err
    assert got["schema_version"] == 1 and got["ok"] is (rc == 0) and got["ok"] is (not got["problems"])
    assert {"verl-ext", "verl", "torch", "python"} <= set(got["versions"])
    assert got["verl_plugin"]["registered"] is True
    assert {"full_isolation", "mode", "capabilities"} <= set(got["sandbox"])
    assert got["config"]["name"] == "grpo_math_verl_ext" and got["config"]["composed"] is True
    assert {"what", "why", "present", "waived"} <= set(got["config"]["needs"][0])
    assert all(set(f) == {"level", "key", "message"} for f in got["config"]["findings"])
    assert main(["doctor", "--no-sandbox", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["config"] is None


# ---- data files ------------------------------------------------------------------------------------------------

COLUMNS = ("prompt", "data_source", "reward_model")


def write_parquet(path: Path, rows: list[tuple[Any, Any]], columns: tuple[str, ...] = COLUMNS) -> Path:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed: the doctor then skips reading data rows")
    pq = pytest.importorskip("pyarrow.parquet")
    table = {"prompt": [[{"role": "user", "content": "q"}]] * len(rows), "data_source": [ds for ds, _ in rows],
             "reward_model": [{"ground_truth": gt, "style": "rule"} for _, gt in rows]}
    pq.write_table(pa.table({c: table[c] for c in columns}), path)
    return path


def data_findings(got: dict[str, Any], key: str = "data.train_files") -> list[dict[str, str]]:
    return [f for f in got["config"]["findings"] if f["key"] == key]


def test_int_gsm8k_ground_truths_are_reported_with_a_count_and_a_row(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # A parquet column has one type: a dataset prepared with integer answers has them in every row.
    ints = write_parquet(tmp_path / "train.parquet", [("openai/gsm8k", 72), ("openai/gsm8k", 5), ("openai/gsm8k", 6),
                                                      ("math_dapo", 7), ("lighteval/MATH", 2)])
    strs = write_parquet(tmp_path / "test.parquet", [("openai/gsm8k", "72"), ("lighteval/MATH", "\\frac12")])
    got = check(capsys, f"data.train_files={ints}", f"data.val_files={strs}")
    errors = [f["message"] for f in data_findings(got) if f["level"] == "error"]
    assert len(errors) == 3, errors
    assert errors[0] == (f"{ints}: openai/gsm8k: 3 of 3 rows checked have a ground truth of type int (row 0: 72): "
                         "gsm8k compares the extracted answer with it as a string, so each such sample scores 0 "
                         "silently; store it as a string")
    assert errors[1].startswith(f"{ints}: math_dapo: 1 of 1 row checked have a ground truth of type int (row 3: 7): "
                                "math_dapo needs a str")
    assert errors[2].startswith(f"{ints}: lighteval/MATH: 1 of 1 row checked have a ground truth of type int")
    assert got["rc"] == 1
    assert [f["level"] for f in data_findings(got, "data.val_files")] == ["ok"]
    assert data_findings(got, "data.val_files")[0]["message"] == (
        f"{strs}: all 2 rows read: lighteval/MATH 1 (math_reward), openai/gsm8k 1 (gsm8k)")


def test_code_ground_truths_are_checked_against_their_scorer(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    good = json.dumps({"inputs": ["1\n"], "outputs": ["1\n"]})
    data = write_parquet(tmp_path / "code.parquet", [
        ("apps", good), ("apps", "not json"), ("taco", json.dumps({"inputs": ["1"]})),
        ("humaneval", json.dumps({"test": "def check(c): pass", "entry_point": "f"})),
        ("humaneval", json.dumps({"test": "def check(c): pass"})),
    ])
    got = check(capsys, f"data.train_files={data}", config="grpo_code_verl_ext")
    errors = [f["message"] for f in data_findings(got) if f["level"] == "error"]
    assert any("apps: 1 of 2 rows checked have a ground truth that is a string that is not JSON (row 1: 'not json')"
               in m for m in errors), errors
    assert any('taco: 1 of 1 row checked have a ground truth that is not an object with "inputs" and "outputs"'
               in m for m in errors), errors
    assert any("humaneval: 1 of 2 rows checked" in m and "runs check(entry_point)" in m for m in errors), errors
    assert len(errors) == 3


def test_code_rows_no_program_passes_are_errors_with_the_scorers_reason(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Red team 5: doctor passed these rows while the scorer failed every sample of them (now unscorable there)."""
    from verl_ext.reward.code import UNSCORABLE, score_code
    from verl_ext.reward.code_rows import Unreadable, read_tests

    check_add = "def check(candidate):\n    assert candidate(1, 2) == 3\n"
    bad = [("apps", {"fn_name": "add", "inputs": ["1 2"], "outputs": ["3"]}),
           ("taco", {"fn_name": "add", "inputs": ["1\n2"], "outputs": ["three"]}),
           ("codeforces", {"inputs": ["1 2\n"], "outputs": [3]}),
           ("humaneval", {"test": "x = 1\n", "entry_point": "add"})]
    good = [("apps", {"fn_name": "add", "inputs": ["1\n2"], "outputs": ["3"]}),
            ("codeforces", {"inputs": ["1 2\n"], "outputs": ["3\n"]}),
            ("humaneval", {"test": check_add, "entry_point": "add"}),
            ("humaneval", {"test": "def check(candidate, x=3):\n    pass\n", "entry_point": "add"})]
    data = write_parquet(tmp_path / "code.parquet", [(ds, json.dumps(gt)) for ds, gt in bad + good])
    got = check(capsys, f"data.train_files={data}", config="grpo_code_verl_ext")
    errors = [f["message"] for f in data_findings(got) if f["level"] == "error"]
    assert len(errors) == len(bad), errors
    for ds, gt in bad:
        reason = read_tests(ds, json.dumps(gt))
        assert isinstance(reason, Unreadable), (ds, gt)
        assert any(m.startswith(f"{data}: {ds}: 1 of ") and f"a ground truth that is {reason.reason}" in m
                   for m in errors), (reason, errors)
        assert score_code([ds], ["```python\ndef add(a, b):\n    return a + b\n```"], [json.dumps(gt)]) == [UNSCORABLE]
    assert got["rc"] == 1


def test_sources_without_a_scorer_and_missing_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A source verl knows (geometry3k: verl's own scorer) is fine; one nobody knows would stop the run at its first
    # batch (verl's NotImplementedError): an error, before any model loads.
    data = write_parquet(tmp_path / "mine.parquet", [("my/dataset", "1"), ("openai/gsm8k", "3"),
                                                     ("hiyouga/geometry3k", "3")])
    got = check(capsys, f"data.train_files={data}")
    errors = [f["message"] for f in data_findings(got) if f["level"] in ("error", "warning")]
    assert len(errors) == 1 and errors[0].startswith(f"{data}: my/dataset (1 row): no scorer knows this data source")
    assert got["config"]["findings"] and not got["ok"]
    # With a custom function every source goes to it (verl's meaning): nothing to warn about, no type checks.
    fn = tmp_path / "fn.py"
    fn.write_text("def compute_score(data_source, solution_str, ground_truth, extra_info=None):\n    return 0.0\n")
    got = check(capsys, f"data.train_files={data}", f"reward.custom_reward_function.path={fn}")
    assert [f["level"] for f in data_findings(got)] == ["ok"]
    assert "my/dataset 1 (python), openai/gsm8k 1 (python)" in data_findings(got)[0]["message"]
    # ... unless native_sources opts sources back in.
    int_gsm8k = write_parquet(tmp_path / "int.parquet", [("openai/gsm8k", 3)])
    got = check(capsys, f"data.train_files={int_gsm8k}", f"reward.custom_reward_function.path={fn}",
                "+reward.reward_kwargs.native_sources=[openai/gsm8k]")
    assert "type int" in data_findings(got)[0]["message"]
    bare = write_parquet(tmp_path / "bare.parquet", [("openai/gsm8k", "3")], columns=("prompt", "data_source"))
    got = check(capsys, f"data.train_files={bare}")
    finding = data_findings(got)[0]
    assert finding["level"] == "error" and finding["message"].startswith(f"{bare}: no column reward_model")


def test_missing_data_files_are_named_with_their_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, f"data.train_files=[{tmp_path / 'a.parquet'},{tmp_path / 'b.parquet'}]")
    assert got["by_key"]["data.train_files[1]"] == {
        "level": "error", "key": "data.train_files[1]", "message": f"no such file: {tmp_path / 'b.parquet'}"}


def test_a_directory_is_not_a_data_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(capsys, f"data.train_files={tmp_path}")
    assert got["by_key"]["data.train_files"]["message"] == \
        f"{tmp_path} is a directory: verl reads data files (list each one)"


def test_a_config_is_found_by_name_in_the_current_directory_or_by_main_ppos_flags(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "my_run.yaml").write_text("defaults:\n  - grpo_math_verl_ext\n  - _self_\n"
                                          "trainer:\n  project_name: mine\n")
    monkeypatch.chdir(tmp_path)
    for argv in (["--config", "my_run"], ["--config-path", str(tmp_path), "--config-name", "my_run"]):
        main(["doctor", "--no-sandbox", "--json", *argv])
        report = json.loads(capsys.readouterr().out)
        assert report["config"]["composed"], report["config"]
    assert main(["doctor", "--config-path", str(tmp_path)]) == 2
    assert "--config-path needs --config-name" in capsys.readouterr().err
    assert main(["doctor", "--config", "nowhere"]) == 1
    assert "looked for" in capsys.readouterr().out


def test_disabled_plugins_with_the_import_path_are_not_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """VERL_USE_EXTERNAL_PLUGINS=none and the README's import-path form: everything works (issue 26)."""
    data = tmp_path / "train.jsonl"  # not parquet: only its existence is checked
    data.write_text("{}\n")
    monkeypatch.setenv("VERL_USE_EXTERNAL_PLUGINS", "none")
    rc = main(["doctor", "--no-sandbox", "--config", "grpo_math_verl_ext", f"data.train_files={data}",
               f"data.val_files={data}", "trainer.n_gpus_per_node=0", "actor_rollout_ref.rollout.name=hf",
               "reward.reward_manager.source=importlib",
               "reward.reward_manager.module.path=pkg://verl_ext.reward.manager",
               "reward.reward_manager.name=VerlExtRewardManager"])
    out = capsys.readouterr().out
    assert "verl plugin        not loaded (VERL_USE_EXTERNAL_PLUGINS=none): the managers import by path" in out
    assert "BROKEN" not in out and "doctor: verl cannot use verl-ext" not in out, out
    assert rc == 0, out


def test_the_rlimits_only_mode_says_isolation_is_not_used_and_runs_nothing(monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from verl_ext import sandbox

    monkeypatch.setenv("VERL_EXT_SANDBOX_MODE", "rlimits-only")
    ran: list[Any] = []
    monkeypatch.setattr(sandbox, "run_many", lambda *a, **k: ran.append(a) or [])
    monkeypatch.setattr(sandbox, "run", lambda *a, **k: ran.append(a))
    main(["doctor", "--no-sandbox"])
    out = capsys.readouterr().out
    assert "NOT used: rlimits-only mode" in out and "full isolation     yes" not in out, out
    assert "warm starts" not in out and ran == []
