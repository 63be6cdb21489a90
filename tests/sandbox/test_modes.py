"""Fail-closed refusal, the opt-in ``rlimits-only`` mode, and the warm zygotes' lifecycle."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from verl_ext import _core, sandbox
from verl_ext.exceptions import InvalidInputError, SandboxUnavailableError

FULL = sandbox.capabilities()["full_isolation"]


def _weak_dirs() -> set[str]:
    return {p.name for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("verl-ext-weak-*")}


def test_refuses_without_isolation_and_names_the_weaker_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERL_EXT_SANDBOX_MODE", raising=False)
    monkeypatch.setattr(sandbox, "capabilities", lambda: {"full_isolation": False, "error": "no user namespaces"})
    with pytest.raises(SandboxUnavailableError, match="no user namespaces") as err:
        sandbox.run("print(1)")
    assert sandbox.WEAK_MODE in str(err.value)


def test_unknown_mode_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERL_EXT_SANDBOX_MODE", "none")
    with pytest.raises(InvalidInputError, match="VERL_EXT_SANDBOX_MODE"):
        sandbox.run("print(1)")


def test_weak_mode_runs_with_limits_and_warns_every_batch(monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("VERL_EXT_SANDBOX_MODE", sandbox.WEAK_MODE)
    # Works even where the full sandbox is unavailable: that is what the mode is for.
    monkeypatch.setattr(sandbox, "capabilities", lambda: {"full_isolation": False, "error": "simulated"})
    before = _weak_dirs()
    with caplog.at_level(logging.WARNING, logger="verl_ext.sandbox"):
        ok = sandbox.run("import os; print(input(), os.getcwd() != '/')", stdin="hi")
        sandbox.run_many(["pass", "pass"])
    assert (ok.status, ok.stdout) == ("ok", "hi True\n")
    assert sum(sandbox.WEAK_MODE in r.getMessage() for r in caplog.records) == 2

    start = time.perf_counter()
    busy = sandbox.run("while True: pass", timeout_s=0.5)
    assert busy.status == "timeout" and time.perf_counter() - start < 1.5
    assert sandbox.run("x = bytearray(1 << 31)", memory_mb=256).status == "memory_limit"
    assert sandbox.run("print('x' * 100000)", output_limit=1000).status == "output_limit"
    # A child that stays in the process group is killed with it.
    marker = f"verl-ext-weak-sleeper-{os.getpid()}"
    r = sandbox.run(f"import subprocess; subprocess.Popen(['sleep', '30', '{marker}']); print('started')")
    assert r.status == "ok"
    time.sleep(0.2)
    assert not [p for p in Path("/proc").glob("[0-9]*") if marker.encode() in _cmdline(p)]
    assert _weak_dirs() == before, "private directories left behind"


def _cmdline(p: Path) -> bytes:
    try:
        return (p / "cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.skipif(not FULL, reason=f"this host cannot sandbox: {sandbox.capabilities()['error']}")
def test_zygotes_restart_after_being_killed_and_stop_on_shutdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERL_EXT_SANDBOX_MODE", raising=False)
    monkeypatch.delenv("VERL_EXT_SANDBOX_WARM", raising=False)
    assert sandbox.run("print(1)").stdout == "1\n"
    assert _core.sandbox_live_zygotes() >= 1
    for p in Path("/proc").glob("[0-9]*"):
        if b"verl-ext-sandbox-zygote" in _cmdline(p) and (p / "stat").read_text().split(") ")[1].split()[1] == str(
                os.getpid()):
            os.kill(int(p.name), 9)
    # The dead zygote is noticed and replaced; the execution still runs.
    assert sandbox.run("print(2)").stdout == "2\n"
    sandbox.shutdown()
    deadline = time.monotonic() + 3
    while _core.sandbox_live_zygotes() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _core.sandbox_live_zygotes() == 0
    assert sandbox.run("print(3)").stdout == "3\n"


@pytest.mark.skipif(not FULL, reason=f"this host cannot sandbox: {sandbox.capabilities()['error']}")
def test_warm_and_cold_starts_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    code = ("import sys, os, threading\nprint(sys.getrecursionlimit(), os.getuid(), os.getcwd(),"
            " sorted(os.listdir('/')), threading.active_count(), input())\nsys.exit(3)")
    out = {}
    for warm in ("1", "0"):
        monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", warm)
        r = sandbox.run(code, stdin="in")
        out[warm] = (r.status, r.exit_code, r.stdout)
    assert out["1"][:2] == out["0"][:2] == ("runtime_error", 3)
    # Same program view (both hold our package read-only at /opt: the harness loads the protocol from it).
    assert out["1"][2] == out["0"][2]


@pytest.mark.skipif(not FULL, reason=f"this host cannot sandbox: {sandbox.capabilities()['error']}")
def test_prime_namespace_is_the_same_warm_and_cold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Warm executions run only the tail of prime_code's header; the solution must see the same names."""
    import json

    code = ("def f(x):\n    g = globals()\n    return [sorted(k for k in g if not k.startswith('__')),\n"
            "            [repr(g[k])[:60] for k in ('exit', 'quit', 'help', 'open', 'compile', 'stdout', 'stderr',"
            " 'stdin', 'datetime', 'json', 'sys')],\n            sys.getrecursionlimit()]\n")
    payload = b"prime\n" + json.dumps({"code": code, "fn_name": "f", "inputs": ["1"], "alarm_s": 5}).encode()
    seen = {}
    for warm in ("1", "0"):
        monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", warm)
        r = sandbox.run_payloads([payload], [b""], sandbox.Limits(), 1)[0]
        assert r.status == "ok", r
        seen[warm] = r.channel.split(b"\n")[1]  # after the protocol's header line
    assert seen["1"].startswith(b'["out",0,'), seen
    assert seen["1"] == seen["0"]


@pytest.mark.skipif(not FULL, reason=f"this host cannot sandbox: {sandbox.capabilities()['error']}")
@pytest.mark.parametrize("warm", ["1", "0"])
def test_set_up_failures_name_their_step_warm_and_cold(warm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both starts run the same named steps: with 3 open files allowed, the step that moves the report pipe
    to descriptor 5 fails, and the error says which step that was."""
    from verl_ext.exceptions import SandboxError

    monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", warm)
    with pytest.raises(SandboxError, match="close inherited descriptors: Bad file descriptor"):
        sandbox.run("pass", max_open_files=3)
