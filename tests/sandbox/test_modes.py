"""Fail-closed refusal, the opt-in ``rlimits-only`` mode, and the warm zygotes' lifecycle."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verl_ext import _core, sandbox
from verl_ext.exceptions import InvalidInputError, SandboxUnavailableError

FULL = sandbox.capabilities()["full_isolation"]


def _weak_dirs() -> set[str]:
    """This process's private directories (named with its pid): other processes may run weak sandboxes too."""
    return {p.name for p in Path(os.environ.get("TMPDIR", "/tmp")).glob(f"verl-ext-weak-{os.getpid()}-*")}


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
    # Ten times the tight figure (timeout + 0.5 s, measured by `verl-ext bench code`): CI shares its cores.
    assert busy.status == "timeout" and time.perf_counter() - start < 0.5 + 5.0
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


def test_weak_mode_programs_are_the_oom_killers_first_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in the full sandbox (tests/sandbox/test_threats.py), best effort: the host's /proc is writable here."""
    monkeypatch.setenv("VERL_EXT_SANDBOX_MODE", sandbox.WEAK_MODE)
    monkeypatch.setattr(sandbox, "capabilities", lambda: {"full_isolation": False, "error": "simulated"})
    r = sandbox.run("import os\npid = os.fork()\nif pid == 0:\n"
                    "    print(open('/proc/self/oom_score_adj').read().strip())\nelse:\n    os.waitpid(pid, 0)")
    assert (r.status, r.stdout) == ("ok", "1000\n"), r


@pytest.mark.skipif(not FULL, reason=f"this host cannot sandbox: {sandbox.capabilities()['error']}")
@pytest.mark.parametrize("warm", ["1", "0"])
def test_set_up_failures_name_their_step_warm_and_cold(warm: str) -> None:
    """Both starts run the same named steps: in a trainer whose hard limit on open files is below
    ``max_open_files``, the step that sets the execution's rlimits fails (raising a hard limit takes a privilege
    no execution has), and the error says which step that was."""
    script = ("import resource\n"
              "from verl_ext import sandbox\n"
              "from verl_ext.exceptions import SandboxError\n"
              "assert sandbox.capabilities()['full_isolation']  # probed (and cached) under the usual limits\n"
              "resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))\n"
              "try:\n"
              "    print(sandbox.run('pass', max_open_files=65))\n"
              "except SandboxError as e:\n"
              "    print(type(e).__name__, e)\n")
    env = {**os.environ, "VERL_EXT_SANDBOX_WARM": warm}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert "SandboxError sandbox set-up failed: set resource limits: Operation not permitted" in done.stdout, done


def test_too_few_open_files_are_refused_by_the_core_too() -> None:
    """Below 16 open files no execution can start (descriptors 0-5 are its own): the compiled module refuses such
    limits as invalid input in every start mode, not with a set-up failure."""
    for start in ("cold", "warm", "weak"):
        raw = _core.sandbox_run_many([(["/bin/true"], [], b"", b"")], timeout_s=1.0, memory_mb=256, output_limit=1024,
                                     channel_limit=1024, scratch_mb=1, max_processes=4, max_open_files=5,
                                     max_file_mb=1, read_only_paths=[], start=start)
        assert isinstance(raw[0], InvalidInputError) and "max_open_files" in str(raw[0]), (start, raw)


class _DescriptorsTaken:
    """Hold /dev/null open on every descriptor below ``upto`` (the trainer's many sockets and files), so the
    next ones (an execution's pipes) get numbers around ``upto``."""

    def __init__(self, upto: int) -> None:
        self.upto, self.fds = upto, list[int]()

    def __enter__(self) -> _DescriptorsTaken:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < self.upto + 64:
            pytest.skip(f"RLIMIT_NOFILE {soft} leaves no room for {self.upto} descriptors")
        while True:
            fd = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)
            self.fds.append(fd)
            if fd >= self.upto - 1:
                break
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.fds:
            os.close(fd)


@pytest.mark.skipif(not FULL, reason=f"this host cannot sandbox: {sandbox.capabilities()['error']}")
@pytest.mark.parametrize("upto", [299, 303, 1000])
@pytest.mark.parametrize("warm", ["1", "0"])
def test_a_trainer_with_many_open_descriptors(upto: int, warm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's set-up must not put anything on a descriptor its own pipes (or the set-up report) still sit on
    in the trainer: with ~300 descriptors open, fixed numbers from 300 up once replaced the execution's pipes
    (cold: a runtime_error with empty stdout; warm: the zygote, itself a cold start, failed)."""
    monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", warm)
    sandbox.shutdown()  # the zygote too starts with the descriptors taken
    with _DescriptorsTaken(upto):
        r = sandbox.run("print(input())", stdin="hello")
        assert (r.status, r.stdout) == ("ok", "hello\n"), r
        exe, paths = sandbox._interpreter()
        probe = _core.sandbox_probe([exe, "-I", "-S", "-B", "-c", "pass"], paths)
        assert probe["full_isolation"], probe["error"]
    sandbox.shutdown()


def test_zygote_serving_checks_its_preconditions() -> None:
    """``_zygote_serve`` is safe to call: it refuses (before serving) in a process with other threads, where a lock
    held across the clone could hang the execution, and on a descriptor that is not a socket."""
    script = ("import sys, threading, time\n"
              "from verl_ext import _core\n"
              "if sys.argv[1] == 'threads':\n"
              "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
              "try:\n"
              "    _core._zygote_serve(0)\n"
              "except RuntimeError as e:\n"
              "    print(e)\n")
    for case, expected in (("threads", "must be single-threaded"), ("plain", "control descriptor 0 is not a socket")):
        done = subprocess.run([sys.executable, "-c", script, case], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60)
        assert expected in done.stdout, (case, done)
