"""`verl-ext bench math` runs end to end and reports agreement with verl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verl_ext.cli import main


def test_bench_math_writes_json_with_full_agreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "math.json"
    assert main(["bench", "math", "--n", "300", "--repeats", "1", "--no-progress", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["benchmark"] == "math" and result["sizes"]["answers"] == 300
    names = [c["name"] for c in result["contenders"]]
    assert names[0] == "verl" and names[1] == "verl_ext_1_thread"
    assert all(c["agreement"] == 300 for c in result["contenders"])
    assert result["contenders"][0]["ratio_vs_verl"] == 1.0
    assert "answers/s" in capsys.readouterr().out


def test_unknown_subcommand_is_rejected() -> None:
    with pytest.raises(SystemExit):
        main(["bench", "nope"])


def test_doctor_reports_the_sandbox(capsys: pytest.CaptureFixture[str]) -> None:
    from verl_ext import sandbox

    rc = main(["doctor"])
    out = capsys.readouterr().out
    assert "verl" in out and "full isolation" in out
    assert rc == (0 if sandbox.capabilities()["full_isolation"] else 1)
    assert main(["doctor", "--no-sandbox"]) == 0


def test_bench_code_agrees_with_verl_on_a_small_workload(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from verl_ext import sandbox

    if not sandbox.capabilities()["full_isolation"]:
        pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}")
    out = tmp_path / "code.json"
    rc = main(["bench", "code", "--problems", "3", "--slow", "0", "--adversarial", "1", "--skip-prime",
               "--json", str(out)])
    result = json.loads(out.read_text())
    assert rc == 0 and result["agreement_correct_wrong_crash"] is True
    assert result["sizes"]["kinds"] == {"correct": 3, "wrong": 3, "crash": 3, "slow": 0, "adversarial": 1}
    assert [c["name"] for c in result["contenders"]] == ["verl_naive_prime_code", "verl_ext"]
    assert "completions from 3 HumanEval problems" in capsys.readouterr().out


def test_bench_logprob_checks_correctness_on_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "logprob.json"
    assert main(["bench", "logprob", "--n", "64", "--vocab", "300", "--hidden", "16", "--json", str(out)]) == 0
    assert "correctness: ok" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["ok"] and max(data["max_abs_error_vs_fp64"].values()) < 1e-4


def test_bench_sampling_checks_correctness_on_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sampling.json"
    assert main(["bench", "sampling", "--batch", "32", "--vocab", "500", "--json", str(out)]) == 0
    assert "correctness: ok" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["ok"] and all(c["inside_kept_set"] == 1.0 for c in data["checks"])


def test_bench_sampling_baseline_draws_from_the_top_k_top_p_set() -> None:
    import torch

    from verl_ext.bench.sampling import _logits, sort_based

    logits = _logits(256, 300, "cpu")
    k, p = torch.full((256,), 20, dtype=torch.int32), torch.full((256,), 0.8)
    tok = sort_based(logits, k, p)
    assert (logits.gather(1, tok[:, None]) >= logits.topk(20, 1).values[:, -1:]).all()


def test_bench_math_verify_compares_the_judges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mv.json"
    corpus = Path(__file__).resolve().parent / "data" / "math_equivalence.jsonl"
    rc = main(["bench", "math-verify", "--corpus", str(corpus), "--limit", "60", "--skip-prime", "--no-progress",
               "--json", str(out)])
    assert rc == 0
    result = json.loads(out.read_text())
    names = [j["name"] for j in result["judges"]]
    assert names == ["verl-ext", "math-verify"] and result["pairs"] == 60
    assert 0.0 <= result["judges"][1]["accuracy"] <= 1.0 and result["speed_ratios"]["math-verify"] > 0
    text = capsys.readouterr().out
    assert "wrong verdicts by category:" in text and "goals: accuracy >= Math-Verify's" in text


def test_bench_math_verify_needs_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "math-verify", "--corpus", str(tmp_path / "none.jsonl")]) == 2
    assert "no corpus at" in capsys.readouterr().err
