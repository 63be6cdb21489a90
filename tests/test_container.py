"""verl_ext.container: the container set-up doctor refuses (host root with an unmasked /proc), on fabricated
uid maps and sysctl files; the real one is run in tests/packaging/test_images.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verl_ext import container
from verl_ext.cli import main


@pytest.mark.parametrize(("uid_map", "root"), [
    ("         0          0 4294967295\n", True),       # the host's user namespace
    ("         0     100000      65536\n", False),      # Docker userns-remap, Kubernetes hostUsers: false
    ("         0       1000          1\n", False),      # rootless
    ("         0          0      65536\n", True),       # a user namespace that maps 0 to the host's 0
    ("         0          0          1\n         1     100000      65535\n", True),
    ("         1     100000      65535\n", False),      # 0 not mapped at all
    ("garbage\n\xff", False),
])
def test_host_root_is_uid_0_of_the_host_user_namespace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       uid_map: str, root: bool) -> None:
    (tmp_path / "uid_map").write_text(uid_map)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert container.host_root(tmp_path / "uid_map") is root
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert container.host_root(tmp_path / "uid_map") is False
    assert container.host_root(tmp_path / "missing") is False


@pytest.mark.parametrize(("inside", "root", "writable", "refused"), [
    (True, True, True, True), (True, True, False, False), (True, False, True, False), (False, True, True, False),
])
def test_writable_host_sysctls_are_refused_only_for_host_root_in_a_container(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside: bool, root: bool, writable: bool,
        refused: bool) -> None:
    sysctl = tmp_path / "core_pattern"
    sysctl.write_text("core\n")
    monkeypatch.setattr(container, "in_container", lambda: inside)
    monkeypatch.setattr(container, "host_root", lambda: root)
    monkeypatch.setattr(os, "access", lambda path, mode, effective_ids=False:
                        writable and Path(path) == sysctl and mode == os.W_OK and effective_ids)
    why = container.host_sysctls_writable(sysctl)
    assert (why is not None) is refused
    if why:
        assert str(sysctl) in why and "non-root user" in why and "hostUsers: false" in why and "VM" in why
    assert sysctl.read_text() == "core\n"  # checked, never written


@pytest.mark.parametrize(("files", "env", "cgroup", "inside"), [
    ((), {}, "0::/\n", False),
    (("/.dockerenv",), {}, "0::/\n", True),
    (("/run/.containerenv",), {}, "0::/\n", True),
    (("/run/systemd/container",), {}, "0::/\n", True),
    ((), {"container": "podman"}, "0::/\n", True),
    ((), {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, "0::/\n", True),
    ((), {}, "0::/system.slice/containerd.service/kubepods-besteffort.slice\n", True),
    ((), {}, "12:pids:/docker/0123abcd\n", True),
    ((), {}, None, False),  # /proc/1/cgroup unreadable
])
def test_containers_are_known_by_the_marks_their_managers_leave(monkeypatch: pytest.MonkeyPatch, files: tuple[str, ...],
                                                               env: dict[str, str], cgroup: str | None,
                                                               inside: bool) -> None:
    def exists(self: Path) -> bool:
        if str(self) == "/.dockerenv":
            raise PermissionError(13, "denied")  # an unreadable marker is no crash, and the others still count
        return str(self) in files

    def read_bytes(self: Path) -> bytes:
        if str(self) != "/proc/1/cgroup" or cgroup is None:
            raise PermissionError(13, "denied")
        return cgroup.encode()

    monkeypatch.setattr(Path, "exists", exists)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    for name in ("container", "KUBERNETES_SERVICE_HOST"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # /.dockerenv cannot be read here: it counts as absent, so that case is decided by the rest.
    assert container.in_container() is (inside and files != ("/.dockerenv",))


def test_doctor_warns_of_a_container_that_can_change_the_kernel(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(container, "host_sysctls_writable", lambda: "host root with /proc unmasked")
    main(["doctor", "--no-sandbox"])
    out = capsys.readouterr().out
    assert "WARNING container: host root with /proc unmasked" in out
