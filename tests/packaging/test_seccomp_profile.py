"""ci/seccomp_profile.py: the shipped seccomp profile is Docker's default plus verl-ext's reasoned additions,
and its OCI form (for containerd) is that profile resolved for one architecture and capability set. (That
each addition is needed is shown by running the sandbox without it: tests/packaging/test_images.py.)"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.packaging.ci_modules import ROOT, load_ci_module

sp = load_ci_module("seccomp_profile")
PROFILE: dict[str, Any] = json.loads((ROOT / "docker" / "seccomp.json").read_text())


def _tree(tmp_path: Path, profile: dict[str, Any], oci: dict[str, Any] | None = None) -> Path:
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "seccomp.json").write_text(json.dumps(profile, indent=2))
    (tmp_path / "docker" / "seccomp-oci.json").write_text(json.dumps(oci or sp.oci(profile), indent=2) + "\n")
    return tmp_path


def test_the_shipped_profiles_pass() -> None:
    assert sp.check() == []


def test_the_additions_are_the_sandboxs_syscalls_each_with_a_reason() -> None:
    added = sp.additions(PROFILE)
    assert sorted(n for rule in added for n in rule["names"]) == ["clone3", "mount", "pivot_root", "sethostname",
                                                                   "umount2"]
    assert all(rule["action"] == "SCMP_ACT_ALLOW" and rule["comment"].startswith("verl-ext: ") for rule in added)
    assert sp.REPLACED_RULE not in PROFILE["syscalls"]


@pytest.mark.parametrize("change", ["allow_more", "drop_a_rule", "change_default", "unmarked_addition"])
def test_any_change_to_dockers_rules_is_caught(tmp_path: Path, change: str) -> None:
    profile = copy.deepcopy(PROFILE)
    if change == "allow_more":
        profile["syscalls"][0]["names"].append("kexec_load")
    elif change == "drop_a_rule":
        del profile["syscalls"][-1]
    elif change == "change_default":
        profile["defaultAction"] = "SCMP_ACT_LOG"
    else:
        profile["syscalls"].append({"names": ["bpf"], "action": "SCMP_ACT_ALLOW"})
    problems = sp.check(_tree(tmp_path, profile))
    assert any("a rule of Docker's default was changed" in p for p in problems), problems


def test_an_addition_without_its_reason_is_caught(tmp_path: Path) -> None:
    profile = copy.deepcopy(PROFILE)
    next(r for r in profile["syscalls"] if sp.is_addition(r))["comment"] = "verl-ext: needed"
    assert any("must allow and give its reason" in p for p in sp.check(_tree(tmp_path, profile)))


def test_a_stale_oci_form_is_caught(tmp_path: Path) -> None:
    stale = sp.oci(PROFILE)
    stale["syscalls"].append({"names": ["bpf"], "action": "SCMP_ACT_ALLOW"})
    assert any("is not seccomp.json's OCI form" in p for p in sp.check(_tree(tmp_path, PROFILE, stale)))
    shutil.rmtree(tmp_path / "docker")
    _tree(tmp_path, PROFILE)
    (tmp_path / "docker" / "seccomp-oci.json").unlink()
    assert any("OCI form" in p for p in sp.check(tmp_path))


def _allowed(oci: dict[str, Any]) -> set[str]:
    return {n for r in oci["syscalls"] if r["action"] == "SCMP_ACT_ALLOW" and "args" not in r for n in r["names"]}


def test_the_oci_form_resolves_dockers_conditions_for_its_capabilities() -> None:
    oci = sp.oci(PROFILE)
    assert all(set(rule) <= {"names", "action", "errnoRet", "args"} for rule in oci["syscalls"])
    assert oci["architectures"] == ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"]
    allowed = _allowed(oci)
    assert {"clone3", "mount", "umount2", "pivot_root", "sethostname", "read", "arch_prctl"} <= allowed
    # CAP_SYS_ADMIN-only rules and other architectures' rules are left out.
    assert not {"bpf", "setns", "unshare", "open_by_handle_at", "chroot", "s390_runtime_instr"} & allowed
    # clone without namespace flags only (Docker's masked rule, not the s390 one).
    clones = [r for r in oci["syscalls"] if r["names"] == ["clone"]]
    assert len(clones) == 1 and clones[0]["args"][0]["index"] == 0
    # With CAP_SYS_ADMIN Docker's own rule allows them; the additions step aside (no duplicate rules).
    admin = sp.oci(PROFILE, caps={"CAP_SYS_ADMIN"})
    assert "bpf" in _allowed(admin)
    assert sum("mount" in r["names"] for r in admin["syscalls"]) == 1
    assert sp.oci(PROFILE, kernel=(4, 4)) != oci  # minKernel rules follow the kernel
