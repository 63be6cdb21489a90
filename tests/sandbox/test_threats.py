"""One test per threat of DESIGN.md: the right status, within timeout + 100 ms, nothing left on the host."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from verl_ext import sandbox
from verl_ext.exceptions import InvalidInputError

if not sandbox.capabilities()["full_isolation"]:
    if os.environ.get("VERL_EXT_REQUIRE_SANDBOX") == "1":
        raise RuntimeError(f"sandbox required but unavailable: {sandbox.capabilities()['error']}")
    pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}", allow_module_level=True)

TIMEOUT = 1.0
#: The parent must end an execution within timeout + 100 ms (issue #3); measured around `run`.
SLACK_S = 0.1
PYTHON_SLACK_S = 0.5
MARKER = "verl-ext-sandbox-harness"
#: Warm executions are forked from a zygote and show its command line.
ZYGOTE_MARKER = "verl-ext-sandbox-zygote"
#: Bound on the kernel's background teardown of a killed namespace (64 processes take ~0.25 s).
TEARDOWN_S = 3.0


def sandbox_pids() -> set[int]:
    """Processes of executions (cold or warm) on the host; zygotes, which live as long as this process,
    are not executions (their parent is this process)."""
    marked: dict[int, tuple[bool, int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmdline = (d / "cmdline").read_bytes()
                ppid = int((d / "stat").read_text().rsplit(") ", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if MARKER.encode() in cmdline or ZYGOTE_MARKER.encode() in cmdline:
                marked[int(d.name)] = (ZYGOTE_MARKER.encode() in cmdline, ppid)
    return {pid for pid, (zygote, ppid) in marked.items() if not (zygote and ppid not in marked)}


def sandbox_cgroups() -> set[str]:
    """Per-execution cgroups still present under this process's memory/pids groups."""
    found = set()
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for mount in (Path("/sys/fs/cgroup") / c for c in ([controllers] if controllers else ["."])):
            base = mount / path.lstrip("/")
            if base.is_dir():
                found |= {d.name for d in base.iterdir() if d.name.startswith("verl-ext-")}
    return found


def host_state() -> tuple[set[str], str]:
    return set(os.listdir("/tmp")), Path("/proc/self/mountinfo").read_text()


@pytest.fixture(autouse=True, params=["warm", "cold"])
def start_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every threat against both ways of starting an execution: forked by a zygote, or a new interpreter."""
    monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", "1" if request.param == "warm" else "0")
    return str(request.param)


@pytest.fixture(autouse=True)
def nothing_left_behind() -> Iterator[None]:
    before = host_state()
    yield
    # A killed namespace's processes all have SIGKILL pending and never run user code again; the
    # kernel finishes tearing them down in the background (about 4 ms per process here).
    deadline = time.monotonic() + TEARDOWN_S
    while (sandbox_pids() or sandbox_cgroups()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sandbox_pids() == set(), "sandboxed processes survived"
    assert sandbox_cgroups() == set(), "per-execution cgroups left behind"
    tmp_after, mounts_after = host_state()
    assert tmp_after - before[0] == set(), "files left in the host's /tmp"
    assert mounts_after == before[1], "mounts changed on the host"


def run(code: str, timeout_s: float = TIMEOUT, **kw: object) -> sandbox.ExecResult:
    start = time.perf_counter()
    r = sandbox.run(code, timeout_s=timeout_s, **kw)  # type: ignore[arg-type]
    # The verdict (measured by the sandbox from clone to verdict) within timeout + 100 ms; the Python
    # return may lag a little more while the kernel tears a large process tree down on our 2 cores.
    assert r.wall_ms <= (timeout_s + SLACK_S) * 1e3, r
    assert time.perf_counter() - start <= timeout_s + PYTHON_SLACK_S, r
    return r


@pytest.mark.parametrize("code", [
    "while True: pass",
    "import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGXCPU):\n"
    "    signal.signal(s, signal.SIG_IGN)\nwhile True: pass",
    "import time; time.sleep(100)",
    "import os\nos.setsid() if hasattr(os, 'setsid') else None\nwhile True: pass",
], ids=["busy_loop", "ignored_signals", "sleep", "new_session"])
def test_runaway_programs_time_out(code: str) -> None:
    assert run(code).status == "timeout"


def test_fork_bomb() -> None:
    r = run("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass")
    assert r.status in ("timeout", "runtime_error")


def test_thread_bomb() -> None:
    r = run("import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(100,)).start()")
    assert r.status in ("timeout", "runtime_error")


def test_memory_bomb() -> None:
    r = run("x = []\nwhile True: x.append(bytearray(10**7))", memory_mb=256)
    assert r.status == "memory_limit"


def test_output_flood() -> None:
    r = run("import sys\nwhile True: sys.stdout.write('x' * 4096)")
    assert r.status == "output_limit" and len(r.stdout) == 64 * 1024


def test_stderr_flood() -> None:
    r = run("import sys\nwhile True: sys.stderr.write('y' * 4096)", output_limit=1000)
    assert r.status == "output_limit" and len(r.stderr) == 1000


def test_disk_fill_stays_in_the_capped_scratch() -> None:
    r = run("f = open('/tmp/big', 'wb')\nwhile True: f.write(b'0' * (1 << 20))", scratch_mb=8)
    assert r.status == "runtime_error" and "No space left" in r.stderr


def test_double_forked_daemon_holding_pipes_is_killed() -> None:
    code = ("import os, time\nif os.fork() == 0:\n    if os.fork() == 0:\n        time.sleep(100)\n    os._exit(0)\n"
            "print('parent done')")
    r = run(code, timeout_s=5.0)
    assert r.status == "ok" and r.stdout == "parent done\n" and r.wall_ms < 1000


def test_zombies_are_reaped() -> None:
    r = run("import os\nfor _ in range(20):\n    if os.fork() == 0:\n        os._exit(0)\nprint('ok')")
    assert r.status == "ok"


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A TCP server on the host's loopback: the sandbox must not reach it."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "8.8.8.8", "::1"])
def test_no_network(host: str, listening_port: int) -> None:
    port = listening_port if host == "127.0.0.1" else 53
    code = (f"import socket\nfam = socket.AF_INET6 if ':' in {host!r} else socket.AF_INET\n"
            f"s = socket.socket(fam)\ns.settimeout(0.5)\ntry:\n    s.connect(({host!r}, {port}))\n    print('CONNECTED')\n"
            "except OSError as e:\n    print('blocked', e.errno)")
    r = run(code)
    assert r.status == "ok" and r.stdout.startswith("blocked"), r


def test_host_secrets_are_out_of_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERL_EXT_TEST_SECRET", "s3cr3t-value")
    home = os.path.expanduser("~")
    code = f"""
import os
found = []
for p in [{home!r}, '/etc/shadow', '/etc/passwd', '/root', '/home', '/work']:
    try:
        os.listdir(p) if os.path.isdir(p) else open(p).read()
        found.append(p)
    except OSError:
        pass
env = open('/proc/1/environ', 'rb').read()
print(found, b's3cr3t' in env, 's3cr3t' in str(os.environ))
"""
    r = run(code)
    assert r.status == "ok", r
    # The interpreter's own directory may sit under $HOME (pyenv): only that prefix is visible there.
    visible = eval(r.stdout.split("]")[0] + "]")  # noqa: S307 - our own test output
    assert "/etc/shadow" not in visible and "/etc/passwd" not in visible and "/work" not in visible
    assert r.stdout.strip().endswith("False False")


def test_other_executions_files_are_invisible() -> None:
    writer = "open('/tmp/secret.txt', 'w').write('mine'); import time; time.sleep(0.5)"
    reader = "import time, os; time.sleep(0.2); print(os.listdir('/tmp'))"
    w, r = sandbox.run_many([writer, reader], timeout_s=3, num_threads=2)
    assert w.status == "ok" and r.stdout.strip() == "[]", r


def test_writing_outside_scratch_fails() -> None:
    code = """
import os
for p in ['/usr/evil', '/evil', '/bin/evil', os.__file__]:
    try:
        open(p, 'a').write('x')
        print('WROTE', p)
    except OSError as e:
        print('denied', e.errno)
"""
    r = run(code)
    assert r.status == "ok" and "WROTE" not in r.stdout and r.stdout.count("denied") == 4, r


def test_cannot_kill_or_trace_other_processes() -> None:
    code = """
import ctypes, os, signal
print('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
try:
    os.kill(os.getppid() or 1, signal.SIGKILL)
except OSError as e:
    print('kill', e.errno)
libc = ctypes.CDLL(None, use_errno=True)
print('ptrace', libc.ptrace(16, 1, 0, 0), ctypes.get_errno())  # PTRACE_ATTACH
"""
    r = run(code)
    assert r.status == "ok", r
    assert re.search(r"pids \[1\]", r.stdout), r.stdout  # only itself is visible
    assert "ptrace -1 1" in r.stdout  # EPERM


SYSCALLS = {  # name: (x86_64 number, args)
    "mount": (165, (0, 0, 0, 0, 0)),
    "bpf": (321, (0, 0, 0)),
    "keyctl": (250, (0, 0, 0)),
    "userfaultfd": (323, (0,)),
    "io_uring_setup": (425, (1, 0)),
    "perf_event_open": (298, (0, 0, -1, -1, 0)),
    "unshare(CLONE_NEWUSER)": (272, (0x10000000,)),
    "unshare(CLONE_NEWNET)": (272, (0x40000000,)),
    "setns": (308, (0, 0)),
}


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="syscall numbers in this test are x86_64's")
@pytest.mark.parametrize("name", sorted(SYSCALLS))
def test_forbidden_syscalls_fail_with_eperm(name: str) -> None:
    nr, args = SYSCALLS[name]
    code = (f"import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            f"r = libc.syscall({nr}, *{args!r})\nprint(r, ctypes.get_errno())")
    r = run(code)
    assert r.status == "ok" and r.stdout.strip() == "-1 1", (name, r)


def test_threads_and_subprocesses_still_work() -> None:
    code = ("import threading, subprocess\nt = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n"
            "print(subprocess.run(['/bin/echo', 'child'], capture_output=True, text=True).stdout.strip())")
    r = run(code, timeout_s=5)
    assert r.status == "ok" and r.stdout == "thread\nchild\n", r


def test_results_report_exit_codes_and_times() -> None:
    r = run("import sys; print('a'); sys.exit(7)")
    assert (r.status, r.exit_code, r.stdout) == ("runtime_error", 7, "a\n")
    assert r.wall_ms > 0 and r.cpu_ms >= 0
    r = run("raise ValueError('boom')")
    assert r.status == "runtime_error" and "ValueError: boom" in r.stderr


def test_bad_arguments() -> None:
    with pytest.raises(InvalidInputError):
        sandbox.run("pass", timeout_s=0)
    with pytest.raises(InvalidInputError):
        sandbox.run_many(["pass"], ["a", "b"])
    with pytest.raises(InvalidInputError):
        sandbox.run_many([b"pass"])  # type: ignore[list-item]


def test_a_fork_bomb_does_not_starve_a_neighbours_process_limit() -> None:
    """Process limits are per execution (own user namespace, and own host uid as root), not shared."""
    from concurrent.futures import ThreadPoolExecutor

    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    neighbour = ("import threading, time\ntime.sleep(0.2)\nts = [threading.Thread(target=time.sleep, args=(0.01,)) "
                 "for _ in range(20)]\n[t.start() for t in ts]\n[t.join() for t in ts]\nprint('ok')")
    with ThreadPoolExecutor(2) as pool:
        b = pool.submit(sandbox.run, bomb, timeout_s=2.0)
        time.sleep(0.1)
        n = pool.submit(sandbox.run, neighbour, timeout_s=4.0)
        b_result, n_result = b.result(), n.result()
    assert b_result.status == "timeout"
    assert (n_result.status, n_result.stdout) == ("ok", "ok\n"), n_result


def test_no_capabilities_even_as_namespace_root() -> None:
    code = ("import subprocess\nfor text in (open('/proc/self/status').read(),\n"
            "             subprocess.run(['/bin/cat', '/proc/self/status'], capture_output=True, text=True).stdout):\n"
            "    caps = {l.split(':')[0]: l.split()[1] for l in text.splitlines() if l.startswith('Cap')}\n"
            "    print(sorted(set(caps.values())))")
    r = run(code, timeout_s=5)
    assert r.status == "ok" and r.stdout == "['0000000000000000']\n" * 2, r


@pytest.mark.skipif(sandbox.capabilities()["cgroups"].startswith("unavailable"),
                    reason=f"per-execution cgroups not in use: {sandbox.capabilities()['cgroups']}")
def test_memory_of_a_process_tree_is_capped_by_its_cgroup() -> None:
    """Each process stays under RLIMIT_AS; only the execution's cgroup bounds their sum."""
    code = ("import os, time\nfor _ in range(7):\n    if os.fork() == 0:\n        break\n"
            "x = bytearray(100 * 1024 * 1024)\nfor i in range(0, len(x), 4096):\n    x[i] = 1\n"
            "time.sleep(1)\nprint('alive')")
    r = run(code, timeout_s=5, memory_mb=300)
    assert r.status == "memory_limit" and "alive" not in r.stdout, r
