"""One test per threat of DESIGN.md: the right status, promptly after the deadline, nothing left on the host."""

from __future__ import annotations

import ast
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verl_ext import sandbox
from verl_ext.exceptions import InvalidInputError

if not sandbox.capabilities()["full_isolation"]:
    if os.environ.get("VERL_EXT_REQUIRE_SANDBOX") == "1":
        raise RuntimeError(f"sandbox required but unavailable: {sandbox.capabilities()['error']}")
    pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}", allow_module_level=True)

TIMEOUT = 1.0
#: How late after its deadline a verdict may come. The tight figures (timeout + 100 ms for the verdict,
#: + 0.5 s for the Python return, issue #3) are measured by `verl-ext bench code` on an idle machine; CI
#: shares 2 cores with other jobs, so here the bound is ten times that: it catches a hang, not a slow host.
SLACK_S = 1.0
PYTHON_SLACK_S = 5.0
MARKER = "verl-ext-sandbox-harness"
#: Warm executions are forked from a zygote and show its command line.
ZYGOTE_MARKER = "verl-ext-sandbox-zygote"
#: Bound on the kernel's background teardown of a killed namespace (64 processes take ~0.25 s).
TEARDOWN_S = 3.0


def sandbox_pids() -> set[int]:
    """Processes of this test process's executions (cold or warm); zygotes, which live as long as this
    process, are not executions (their parent is this process). Other processes on the host may run
    sandboxes of their own: only our descendants count."""
    parents: dict[int, int] = {}
    marked: dict[int, bool] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmdline = (d / "cmdline").read_bytes()
                parents[int(d.name)] = int((d / "stat").read_text().rsplit(") ", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if MARKER.encode() in cmdline or ZYGOTE_MARKER.encode() in cmdline:
                marked[int(d.name)] = ZYGOTE_MARKER.encode() in cmdline

    def ours(pid: int) -> bool:
        for _ in range(64):
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
            if pid <= 1:
                return False
        return False

    return {pid for pid, zygote in marked.items() if ours(pid) and not (zygote and parents[pid] == os.getpid())}


def sandbox_cgroups() -> set[str]:
    """Per-execution cgroups of this process still present under its memory/pids/cpu groups."""
    found = set()
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for mount in (Path("/sys/fs/cgroup") / c for c in ([controllers] if controllers else ["."])):
            base = mount / path.lstrip("/")
            if base.is_dir():
                found |= {d.name for d in base.iterdir() if d.name.startswith(f"verl-ext-{os.getpid()}-")}
    return found


#: Names the sandbox of this process may create in the host's temp dir (weak-mode scratch dirs carry the
#: trainer's pid; other processes' sandboxes are not ours to check).
OWN_NAMES = re.compile(rf"verl-ext-weak-{os.getpid()}-")
#: Where an execution's mounts would appear if they leaked into the host's mount namespace (its stage and
#: scratch are mounted at /tmp inside, its /proc at /proc).
OWN_MOUNT_POINTS = re.compile(r"^(/tmp(/.*)?|/proc)$")


def host_state() -> tuple[set[str], list[str]]:
    """The sandbox's own traces on the host: its names in the temp dirs, mounts at its mount points. Other
    processes on the same machine may create files and mounts at any time; they are not ours to check."""
    names = set()
    for tmp in {"/tmp", os.environ.get("TMPDIR", "/tmp")}:
        names |= {f"{tmp}/{n}" for n in os.listdir(tmp) if OWN_NAMES.match(n)}
    mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return names, sorted(m for m in mounts if OWN_MOUNT_POINTS.match(m))


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
    names_after, mounts_after = host_state()
    assert names_after - before[0] == set(), "files left in the host's temp dir"
    assert mounts_after == before[1], "mounts changed on the host"


def run(code: str, timeout_s: float = TIMEOUT, **kw: Any) -> sandbox.ExecResult:
    start = time.perf_counter()
    r = sandbox.run(code, timeout_s=timeout_s, **kw)
    # The verdict (measured by the sandbox from clone to verdict) soon after the deadline; the Python
    # return may lag a little more while the kernel tears a large process tree down.
    assert r.wall_ms <= (timeout_s + SLACK_S) * 1e3, r
    assert time.perf_counter() - start <= timeout_s + PYTHON_SLACK_S, r
    return r


@pytest.mark.parametrize("code", [
    "while True: pass",
    "import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGXCPU):\n"
    "    signal.signal(s, signal.SIG_IGN)\nwhile True: pass",
    "import time; time.sleep(100)",
    "import os\ntry:\n    os.setsid()\nexcept OSError:\n    pass\nwhile True: pass",
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
    r = run(code, timeout_s=10.0)
    # The verdict comes when the parent exits (~50 ms), not at the deadline while the daemon holds the pipes.
    assert r.status == "ok" and r.stdout == "parent done\n" and r.wall_ms < 5000


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
            f"s = socket.socket(fam)\ns.settimeout(0.5)\ntry:\n    s.connect(({host!r}, {port}))\n"
            "    print('CONNECTED')\n"
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
    visible = ast.literal_eval(r.stdout.split("]")[0] + "]")
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
    not_text: Any = [b"pass"]
    with pytest.raises(InvalidInputError):
        sandbox.run_many(not_text)


def attacker_and_neighbour(attacker: str, attacker_timeout_s: float, neighbour: str,
                           neighbour_timeout_s: float) -> tuple[sandbox.ExecResult, sandbox.ExecResult]:
    """Two concurrent executions, the neighbour started 0.1-0.2 s after the attacker."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(sandbox.run, attacker, timeout_s=attacker_timeout_s)
        time.sleep(0.15)
        n = pool.submit(sandbox.run, neighbour, timeout_s=neighbour_timeout_s)
        return a.result(), n.result()


def test_a_fork_bomb_does_not_starve_a_neighbours_process_limit() -> None:
    """Process limits are per execution (own user namespace, and own host uid as root), not shared."""
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    neighbour = ("import threading, time\ntime.sleep(0.2)\nts = [threading.Thread(target=time.sleep, args=(0.01,)) "
                 "for _ in range(20)]\n[t.start() for t in ts]\n[t.join() for t in ts]\nprint('ok')")
    b_result, n_result = attacker_and_neighbour(bomb, 2.0, neighbour, 4.0)
    assert b_result.status == "timeout"
    assert (n_result.status, n_result.stdout) == ("ok", "ok\n"), n_result


@pytest.mark.skipif(os.geteuid() != 0, reason="executions have host uids of their own only when the trainer is root")
def test_descriptors_in_flight_do_not_starve_a_neighbour() -> None:
    """The kernel counts descriptors in flight (sent over a UNIX socket, not yet received) per host user,
    against the sender's RLIMIT_NOFILE: executions sharing a host uid could make each other's sends fail."""
    filler = ("import array, os, socket, time\na, b = socket.socketpair()\na.setblocking(False)\n"
              "fd = os.open('/dev/null', os.O_RDONLY)\nsent = 0\ntry:\n    while True:\n"
              "        a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [fd] * 200))])\n"
              "        sent += 200\nexcept OSError as e:\n    print('full', flush=True)\ntime.sleep(3)")
    neighbour = ("import array, os, socket, time\ntime.sleep(1)\na, b = socket.socketpair()\n"
                 "fd = os.open('/dev/null', os.O_RDONLY)\n"
                 "a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [fd]))])\n"
                 "print(len(socket.recv_fds(b, 1, 1)[1]))")
    f_result, n_result = attacker_and_neighbour(filler, 6.0, neighbour, 6.0)
    assert (f_result.status, f_result.stdout) == ("ok", "full\n"), f_result
    assert (n_result.status, n_result.stdout) == ("ok", "1\n"), n_result


@pytest.mark.parametrize("warm", ["1", "0"])
def test_programs_run_at_nice_zero_whatever_the_watchers_priority(warm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trainer's watcher threads run at a raised priority (nice -5, as root); a process inherits the nice
    value of the thread that cloned it, so without a reset every program (and the zygote's children) would
    outrank the trainer (red team: nice -5 in warm and cold starts)."""
    monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", warm)
    code = "import os\nprint(os.getpriority(os.PRIO_PROCESS, 0))\ntry:\n    os.nice(-1)\nexcept OSError as e:\n" \
           "    print('refused', e.errno)"
    r = run(code, timeout_s=5)
    import errno

    assert (r.status, r.stdout) == ("ok", f"0\nrefused {errno.EPERM}\n"), r


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(),
                    reason="needs root and setpriv to start a trainer without CAP_SYS_NICE")
def test_a_trainer_at_lower_priority_keeps_its_programs_there() -> None:
    """A trainer under `nice` (Ray's workers) without CAP_SYS_NICE: its programs stay at its priority (resetting
    to 0 would raise it, which the kernel refuses: every execution failed its set-up in a Ray reward worker)."""
    import subprocess
    import sys

    probe = ("from verl_ext import sandbox\nr = sandbox.run('import os\\nprint(os.getpriority(os.PRIO_PROCESS, 0))', "
             "timeout_s=5)\nprint(r.status, r.stdout.strip())")
    out = subprocess.run(["/usr/bin/setpriv", "--bounding-set=-sys_nice", "--inh-caps=-sys_nice", "nice", "-n", "5",
                          sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1:] == ["ok 5"], out.stdout + out.stderr


def test_no_capabilities_even_as_namespace_root() -> None:
    code = ("import subprocess\nfor text in (open('/proc/self/status').read(),\n"
            "             subprocess.run(['/bin/cat', '/proc/self/status'], capture_output=True, text=True).stdout):\n"
            "    caps = {l.split(':')[0]: l.split()[1] for l in text.splitlines() if l.startswith('Cap')}\n"
            "    print(sorted(set(caps.values())))")
    r = run(code, timeout_s=5)
    assert r.status == "ok" and r.stdout == "['0000000000000000']\n" * 2, r


@pytest.mark.skipif(not sandbox.capabilities()["cgroups"].startswith("cgroup v"),
                    reason=f"per-execution cgroups not in use: {sandbox.capabilities()['cgroups']}")
def test_memory_of_a_process_tree_is_capped_by_its_cgroup() -> None:
    """Each process stays under RLIMIT_AS; only the execution's cgroup bounds their sum."""
    code = ("import os, time\nfor _ in range(7):\n    if os.fork() == 0:\n        break\n"
            "x = bytearray(100 * 1024 * 1024)\nfor i in range(0, len(x), 4096):\n    x[i] = 1\n"
            "time.sleep(1)\nprint('alive')")
    r = run(code, timeout_s=5, memory_mb=300)
    assert r.status == "memory_limit" and "alive" not in r.stdout, r


# ---- resource accounting (issue #13) ------------------------------------------------------------------------


def test_memfd_pages_cannot_escape_the_memory_limit() -> None:
    """memfd pages are charged to no rlimit (issue #13: 32 x 64 MiB with memory_mb=128, +2 GB of host shared
    memory). memfd_create is refused; the capped /tmp is where a program keeps file-backed memory."""
    code = """
import errno, os
total = 0
for i in range(32):
    try:
        fd = os.memfd_create(f"m{i}")
    except OSError as e:
        print('refused', errno.errorcode[e.errno])
        break
    for off in range(0, 64 << 20, 1 << 20):
        os.pwrite(fd, b'x' * (1 << 20), off)
    total += 64 << 20
    if total > (128 << 20):
        print('over the limit')
        break
"""
    r = run(code, timeout_s=10, memory_mb=128)
    assert r.status == "ok" and r.stdout == "refused EPERM\n", r


@pytest.mark.parametrize(("family", "allowed"), [
    ("AF_INET", True), ("AF_INET6", True),
    ("AF_VSOCK", False), ("AF_NETLINK", False), ("AF_PACKET", False), ("AF_ALG", False), ("AF_KEY", False),
])
def test_only_unix_and_ip_sockets(family: str, allowed: bool) -> None:
    """AF_VSOCK reaches outside the network namespace (it shares port space with the host); netlink, packet,
    crypto and key sockets are kernel attack surface no test program needs."""
    code = f"""
import socket
for make in (lambda: socket.socket(socket.{family}, socket.SOCK_DGRAM if socket.{family} != socket.AF_PACKET
             else socket.SOCK_RAW), lambda: socket.socketpair(socket.{family})):
    try:
        make()
        print('made')
    except OSError as e:
        print('refused', e.errno)
"""
    r = run(code)
    assert r.status == "ok", r
    first = r.stdout.splitlines()[0]
    if allowed:
        assert first == "made", r
    else:
        import errno

        assert r.stdout.splitlines() == [f"refused {errno.EAFNOSUPPORT}"] * 2, r


def test_the_oom_killer_picks_sandboxed_processes_first() -> None:
    """Without cgroups, memory_mb bounds each process, not the tree (red team F2: 31 forks x 60 MB took 2 GB with
    memory_mb=128). Under host memory pressure the kernel's OOM killer must pick the execution, not the trainer:
    every sandboxed process, forked ones included, has oom_score_adj 1000, and none can lower it."""
    code = """
import os
def state():
    value = open('/proc/self/oom_score_adj').read().strip()
    try:
        with open('/proc/self/oom_score_adj', 'w') as f:
            f.write('0')
        lowered = 'lowered'
    except OSError as e:
        lowered = f'refused {e.errno}'
    return f"{value} {lowered} {open('/proc/self/oom_score_adj').read().strip()}"
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.write(w, state().encode())
    os._exit(0)
os.waitpid(pid, 0)
print('child', os.read(r, 100).decode())
print('parent', state())
"""
    r = run(code)
    import errno

    assert r.status == "ok", r
    for line, who in zip(r.stdout.splitlines(), ("child", "parent"), strict=True):
        # EACCES from Landlock (writes only below /tmp), EROFS from the read-only /proc where there is none.
        assert line.split() in ([who, "1000", "refused", str(e), "1000"] for e in (errno.EACCES, errno.EROFS)), r


#: A correct solution that needs 1.2 s of CPU (the issue's neighbour).
NEIGHBOUR = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.2:\n    pass\nprint('done')"
#: 31 forks through `posix` (prime_code's guard nulls only os.fork), every process in a busy loop.
CPU_HOG = "import posix\nfor _ in range(31):\n    if posix.fork() == 0:\n        break\nwhile True:\n    pass"


def test_a_process_tree_cannot_starve_its_neighbours_cpu() -> None:
    """Each execution's tree gets one fair CPU share (its own autogroup or cgroup), not one per process: a
    32-process busy tree next to a 1.2 s solution in the same batch must not push it past its deadline.
    Bound: the neighbour's own deadline (6 s), five times its CPU need, for a loaded 2-core CI machine."""
    caps = sandbox.capabilities()
    share = caps["cpu_share_warm"] if sandbox.warm_starts() else caps["cpu_share"]
    if share.startswith("none"):
        pytest.skip(f"no per-execution CPU share for these starts on this host: {share}")
    hog, neighbour = sandbox.run_many([CPU_HOG, NEIGHBOUR], timeout_s=6.0, num_threads=2)
    assert hog.status == "timeout", hog
    assert (neighbour.status, neighbour.stdout) == ("ok", "done\n"), neighbour


def test_new_sessions_are_refused() -> None:
    """A new session would be a new autogroup: a fresh CPU share per process."""
    code = ("import os\npid = os.fork()\nif pid == 0:\n    try:\n        os.setsid()\n        os._exit(0)\n"
            "    except OSError as e:\n        os._exit(e.errno)\nprint(os.waitpid(pid, 0)[1] >> 8)")
    r = run(code)
    import errno

    assert (r.status, r.stdout) == ("ok", f"{errno.EPERM}\n"), r


#: Calls on shared files (or shared kernel objects) one execution could use to signal another or to slow
#: the host: each must fail with EPERM. Python's own wrappers where they report errors, ctypes otherwise.
#: A program's start: a read-only shared mapping of the interpreter's `os.py` at `p`, and the futex syscall number.
_MAP_INTERPRETER = (
    "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.mmap.restype = ctypes.c_void_p\n"
    "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\n"
    "p = libc.mmap(None, 4096, 1, 1, os.open(os.__file__, os.O_RDONLY), 0)\n"
    "NR_FUTEX = {'x86_64': 202, 'aarch64': 98}[os.uname().machine]\n"
)

SHARED_STATE_CALLS = {
    "flock": "import fcntl, os\nfcntl.flock(open(os.__file__), fcntl.LOCK_SH)",
    "fcntl_lock": "import fcntl, os\nfcntl.lockf(open(os.__file__), fcntl.LOCK_SH)",
    "inotify_init1": "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                     "if libc.inotify_init1(0) < 0: raise OSError(ctypes.get_errno(), 'inotify_init1')",
    # glibc's sync() returns nothing: the raw syscall (x86-64: 162, aarch64: 81) shows the error.
    "sync": "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "if libc.syscall({'x86_64': 162, 'aarch64': 81}[os.uname().machine]) < 0:\n"
            "    raise OSError(ctypes.get_errno(), 'sync')",
    "syncfs": "import ctypes, os\nfd = os.open(os.__file__, os.O_RDONLY)\nlibc = ctypes.CDLL(None, use_errno=True)\n"
              "if libc.syncfs(fd) < 0: raise OSError(ctypes.get_errno(), 'syncfs')",
    # Page-cache residency of shared files (red team F3): which pages of the interpreter another execution read.
    "mincore": "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.mmap.restype = ctypes.c_void_p\n"
               "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, "
               "ctypes.c_long]\naddr = libc.mmap(None, 4096, 1, 1, os.open(os.__file__, os.O_RDONLY), 0)\n"
               "vec = ctypes.create_string_buffer(1)\n"
               "if libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(4096), vec) < 0:\n"
               "    raise OSError(ctypes.get_errno(), 'mincore')",
    "readahead": "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                 "if libc.readahead(os.open(os.__file__, os.O_RDONLY), ctypes.c_int64(0), ctypes.c_size_t(4096)) < 0:\n"
                 "    raise OSError(ctypes.get_errno(), 'readahead')",
    "fadvise": "import os\nos.posix_fadvise(os.open(os.__file__, os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)",
    # A channel between executions (red team 3): one wakes a futex on a word of a file every execution maps,
    # another counts the wake-ups. Shared wake-ups, requeues and futex_waitv are refused.
    "futex_wake_shared": _MAP_INTERPRETER + "if libc.syscall(NR_FUTEX, ctypes.c_void_p(p), 1, 1, None, None, 0) < 0:\n"
                                            "    raise OSError(ctypes.get_errno(), 'futex wake')",
    "futex_requeue_shared": _MAP_INTERPRETER + "if libc.syscall(NR_FUTEX, ctypes.c_void_p(p), 3, 1, "
                                               "ctypes.c_void_p(1), ctypes.c_void_p(p + 4), 0) < 0:\n"
                                               "    raise OSError(ctypes.get_errno(), 'futex requeue')",
    "futex_waitv": "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                   "if libc.syscall(449, None, 0, 0, None, 0) < 0:\n"
                   "    raise OSError(ctypes.get_errno(), 'futex_waitv')",
    # Page-cache residency through a read that refuses to wait for the disk (red team 3: 16 of 16 bits).
    "preadv2_nowait": "import os\nfd = os.open(os.__file__, os.O_RDONLY)\n"
                      "os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)",
    "pwritev2_flags": "import os\nfd = os.open('/tmp/w', os.O_WRONLY | os.O_CREAT)\n"
                      "os.pwritev(fd, [b'x'], 0, os.RWF_DSYNC)",
    "sync_file_range": "import os\nfd = os.open(os.__file__, os.O_RDONLY)\nimport ctypes\n"
                       "libc = ctypes.CDLL(None, use_errno=True)\n"
                       "if libc.sync_file_range(fd, ctypes.c_int64(0), ctypes.c_int64(0), 2) < 0:\n"
                       "    raise OSError(ctypes.get_errno(), 'sync_file_range')",
}


@pytest.mark.parametrize("name", sorted(SHARED_STATE_CALLS))
def test_shared_state_calls_are_refused(name: str) -> None:
    code = f"{SHARED_STATE_CALLS[name]}\nprint('ALLOWED')"
    r = run(code)
    assert r.status == "runtime_error" and "ALLOWED" not in r.stdout, r
    assert "PermissionError" in r.stderr or "[Errno 1]" in r.stderr, r


def test_threads_private_futexes_and_plain_vector_reads_still_work() -> None:
    """What the futex and preadv2 rules keep: threads that start, lock, wait and join (private futexes, and the
    shared wait glibc's join makes), and vector reads and writes without flags."""
    code = ("import os, threading\n"
            "lock, cond, out = threading.Lock(), threading.Condition(), []\n"
            "def work(i):\n"
            "    with cond:\n"
            "        out.append(i)\n"
            "        cond.notify_all()\n"
            "ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]\n"
            "[t.start() for t in ts]\n"
            "[t.join() for t in ts]\n"
            "fd = os.open(os.__file__, os.O_RDONLY)\n"
            "buf = bytearray(16)\n"
            "n = os.preadv(fd, [buf], 0)\n"
            "w = os.open('/tmp/w', os.O_RDWR | os.O_CREAT)\n"
            "os.pwritev(w, [b'ok'], 0)\n"
            "print(sorted(out) == list(range(8)), n == 16, os.pread(w, 2, 0) == b'ok')")
    r = run(code)
    assert r.status == "ok" and r.stdout.split() == ["True", "True", "True"], r


@pytest.fixture
def host_unix_listener() -> Iterator[tuple[str, Any]]:
    """A listening UNIX socket file under the interpreter's prefix, which every execution sees read-only."""
    import shutil
    import socket
    import tempfile

    _, prefixes = sandbox._interpreter()
    if not os.access(prefixes[0], os.W_OK):
        pytest.skip(f"the interpreter prefix {prefixes[0]} is not writable here: no socket file can be put in it")
    folder = tempfile.mkdtemp(prefix="verl-ext-listener-", dir=prefixes[0])
    path = os.path.join(folder, "s")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    server.setblocking(False)
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dgram.bind(path + "d")
    dgram.setblocking(False)
    try:
        yield path, (server, dgram)
    finally:
        server.close()
        dgram.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_no_host_unix_socket_is_reachable(host_unix_listener: tuple[str, Any]) -> None:
    """A read-only bind does not stop `connect()` to a socket file: neither a new UNIX socket nor a datagram
    pair may be made, so no path can be connected or sent to; connected stream pairs still work."""
    path, (server, dgram) = host_unix_listener
    code = f"""
import socket
for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
    try:
        s = socket.socket(socket.AF_UNIX, kind)
        s.connect({path!r})
        s.sendall(b'LEAK')
        print('CONNECTED')
    except OSError as e:
        print('refused', e.errno)
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b'LEAK', {path + "d"!r})
    print('SENT')
except OSError as e:
    print('refused', e.errno)
a, b = socket.socketpair()
a.sendall(b'pair')
print(b.recv(4).decode())
"""
    r = run(code)
    import errno

    assert r.status == "ok", r
    assert r.stdout.splitlines() == [f"refused {errno.EACCES}"] * 4 + ["pair"], r
    with pytest.raises(BlockingIOError):
        server.accept()
    with pytest.raises(BlockingIOError):
        dgram.recv(16)


def test_device_nodes_work_but_their_metadata_cannot_change() -> None:
    """`utimensat` on a device node would change the host's node, which later executions read."""
    before = os.stat("/dev/zero").st_mtime_ns
    code = """
import os
with open('/dev/null', 'w') as f:
    f.write('x')
print(len(open('/dev/zero', 'rb').read(3)))
try:
    os.utime('/dev/zero', (0, 0))
    print('CHANGED')
except OSError as e:
    print('refused', e.errno)
"""
    r = run(code)
    import errno

    assert (r.status, r.stdout) == ("ok", f"3\nrefused {errno.EROFS}\n"), r
    assert os.stat("/dev/zero").st_mtime_ns == before


def test_shared_anonymous_mappings_are_refused() -> None:
    """Each would be a kernel file and inode no limit counts; private and file mappings still work."""
    code = """
import mmap, os
m = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)
m[:1] = b'x'
with open('/tmp/f', 'wb+') as f:
    f.write(b'0' * 4096)
    f.flush()
    mmap.mmap(f.fileno(), 4096)[:1] = b'y'
try:
    mmap.mmap(-1, 4096)
    print('MAPPED')
except OSError as e:
    print('refused', e.errno)
"""
    r = run(code)
    import errno

    assert (r.status, r.stdout) == ("ok", f"refused {errno.EPERM}\n"), r


def test_scratch_files_are_capped_in_number() -> None:
    """Empty files cost host kernel memory the scratch's size does not count: their number is capped."""
    code = """
import os
n = 0
try:
    for n in range(1_000_000):
        open(f'/tmp/{n}', 'w').close()
    print('ALL')
except OSError as e:
    print('stopped', e.errno, n <= 64 * 64)
"""
    r = run(code, timeout_s=20, scratch_mb=64)
    import errno

    assert (r.status, r.stdout) == ("ok", f"stopped {errno.ENOSPC} True\n"), r


def test_pipe_buffers_cannot_grow() -> None:
    code = """
import fcntl, os
r, w = os.pipe()
try:
    fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
    print('GREW')
except OSError as e:
    print('refused', e.errno)
"""
    r = run(code)
    import errno

    assert (r.status, r.stdout) == ("ok", f"refused {errno.EPERM}\n"), r


def trainer_cpu(code: str, status: str, stdout_len: int = 0, **limits: Any) -> float:
    """CPU seconds of this process (the trainer) while one execution of ``code`` runs; it must end in ``status``
    having printed ``stdout_len`` bytes."""
    start = time.process_time()
    r = run(code, **limits)
    assert (r.status, len(r.stdout)) == (status, stdout_len), r.status
    return time.process_time() - start


@pytest.mark.parametrize("fd", [2, 3], ids=["stderr", "channel"])
def test_a_slow_trickle_costs_the_trainer_little(fd: int) -> None:
    """A byte every 0.1 ms on stderr or the result channel until the deadline (red teams: ~1.4 ms of trainer CPU
    per second of the execution; a channel trickle was counted at 29x an honest sample, which is what any
    program that runs to its limit costs). Bound: 100 ms over 5 s against a program that only sleeps, ten
    times the measured figure."""
    trickle = f"import os, time\nwhile True:\n    os.write({fd}, b'x')\n    time.sleep(0.0001)\n"
    quiet = "import time\ntime.sleep(60)\n"

    extra = trainer_cpu(trickle, "timeout", timeout_s=5) - trainer_cpu(quiet, "timeout", timeout_s=5)
    assert extra <= 0.1, extra


def test_trainer_cpu_does_not_depend_on_how_output_is_written() -> None:
    """A program writing its output a byte at a time costs the trainer about what one writing it at once
    does (red team: one wake-up per byte, ~0.5-1 s of trainer CPU for this MiB; measured after: ~20 ms).
    Bound: 200 ms more, ten times the measured figure, for a loaded CI machine."""
    size = 1024 * 1024
    honest = f"import os\nos.write(1, b'x' * {size})"
    trickle = f"import os\nfor _ in range({size}):\n    os.write(1, b'x')"

    limits = {"timeout_s": 30, "output_limit": 2 * size, "stdout_len": size}
    trainer_cpu(honest, "ok", **limits)
    extra = trainer_cpu(trickle, "ok", **limits) - trainer_cpu(honest, "ok", **limits)
    assert extra <= 0.2, extra


def _slab_kb() -> int:
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Slab:"))


def test_kernel_objects_of_one_execution_stay_within_its_scratch_and_a_margin() -> None:
    """Host kernel memory (slab) one execution pins through objects no rlimit counts: empty files in its
    scratch, shared anonymous mappings (each a kernel file and inode), POSIX timers, epoll instances and pipes,
    from four processes, held until the deadline. Goal: at most scratch_mb + 64 MB, measured on the host while
    it runs (red team: ~0.5 GB before, several GB allowed). Socket buffers are the documented residual
    (`crates/verl_ext_sandbox/src/lib.rs`)."""
    import threading

    code = """
import mmap, os, select, signal, time
for _ in range(2):
    os.fork()
made = 0
end = time.monotonic() + 3
keep = []
while time.monotonic() < end:
    try:
        open(f'/tmp/{os.getpid()}-{made}', 'w').close()
        made += 1
    except OSError:
        break
for _ in range(100000):
    try:
        keep.append(mmap.mmap(-1, 4096))
    except OSError:
        break
for _ in range(60):
    try:
        keep.append(select.epoll())
    except OSError:
        break
time.sleep(30)
"""
    scratch_mb = 64
    before = _slab_kb()
    peak = [before]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _slab_kb())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        r = run(code, timeout_s=6, scratch_mb=scratch_mb)
    finally:
        done.set()
        watcher.join()
    assert r.status == "timeout", r
    grew_mb = (peak[0] - before) / 1024
    assert grew_mb <= scratch_mb + 64, f"slab grew {grew_mb:.0f} MB"


def test_socket_buffers_keep_the_hosts_default_size() -> None:
    """`net.core.wmem_max` may let one socket queue megabytes no limit counts (red team: ~0.5 GB a process)."""
    code = """
import socket
a, b = socket.socketpair()
for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
    try:
        a.setsockopt(socket.SOL_SOCKET, option, 64 << 20)
        print('GREW')
    except OSError as e:
        print('refused', e.errno)
a.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
a.sendall(b'ok')
print(b.recv(2).decode())
"""
    r = run(code)
    import errno

    assert (r.status, r.stdout) == ("ok", f"refused {errno.EPERM}\nrefused {errno.EPERM}\nok\n"), r


#: A POSIX timer's `struct sigevent` (SIGEV_NONE timers need only its first fields), for ctypes in a program.
TIMER_EVENT = ("libc = ctypes.CDLL(None, use_errno=True)\nclass Event(ctypes.Structure):\n"
               "    _fields_ = [('value', ctypes.c_long), ('signo', ctypes.c_int), ('notify', ctypes.c_int),\n"
               "                ('pad', ctypes.c_byte * 48)]\n")


def test_one_executions_timers_leave_its_neighbours_theirs() -> None:
    """POSIX timers hold queued signals, counted per user namespace: each execution may have 1024 (red team:
    96,364 timers of one execution made a concurrent execution's timer_create fail)."""
    hog = """
import ctypes, time
{TIMER_EVENT}made = 0
for _ in range(200000):
    ev = Event(0, 0, 1)  # SIGEV_NONE
    t = ctypes.c_void_p()
    if libc.timer_create(1, ctypes.byref(ev), ctypes.byref(t)) != 0:
        break
    made += 1
print(made <= 1024)
time.sleep(3)
"""
    neighbour = """
import ctypes, time
time.sleep(1.5)
{TIMER_EVENT}ev = Event(0, 0, 1)
t = ctypes.c_void_p()
print(libc.timer_create(1, ctypes.byref(ev), ctypes.byref(t)) == 0, ctypes.get_errno())
"""
    hog, neighbour = (p.replace("{TIMER_EVENT}", TIMER_EVENT) for p in (hog, neighbour))
    hog_r, neighbour_r = sandbox.run_many([hog, neighbour], timeout_s=6, num_threads=2)
    assert hog_r.stdout == "True\n", hog_r
    assert neighbour_r.stdout.startswith("True"), neighbour_r


HOST_COUNTERS = ["/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state",
                 "/proc/sys/kernel/random/boot_id", "/proc/loadavg", "/proc/stat", "/proc/meminfo", "/proc/vmstat",
                 "/proc/uptime", "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/interrupts",
                 "/proc/softirqs", "/proc/schedstat", "/proc/diskstats", "/proc/zoneinfo", "/proc/buddyinfo",
                 "/proc/locks", "/proc/cpuinfo", "/proc/swaps", "/proc/key-users", "/proc/slabinfo"]


def test_host_counters_under_proc_are_hidden() -> None:
    """/proc's host-wide files follow what neighbours do: /proc/sys's file counters every open file (red team
    3), `loadavg`/`stat` their running threads, `meminfo`/`vmstat` their pages (red team 4: a sample told
    another its verdict through them). A program reads none of them, nor the same figures through `sysinfo`,
    and cannot write there; its own process directories still work (`/proc/self/fd`, as subprocess uses)."""
    code = ("import ctypes, json, os, subprocess, sys\n"
            f"out = {{}}\nfor path in {HOST_COUNTERS!r}:\n"
            "    try:\n        out[path] = open(path).read()\n"
            "    except OSError as e:\n        out[path] = type(e).__name__\n"
            "try:\n    out['getloadavg'] = os.getloadavg()\nexcept OSError as e:\n    out['getloadavg'] = 'OSError'\n"
            "buf = ctypes.create_string_buffer(256)\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "out['sysinfo'] = [libc.sysinfo(buf), ctypes.get_errno()]\n"
            "try:\n    open('/proc/sys/x', 'w')\n    out['write'] = 'WROTE'\n"
            "except OSError as e:\n    out['write'] = 'OSError'\n"
            "out['own'] = [len(os.listdir('/proc/self/fd')) >= 3, os.path.exists('/proc/self/status')]\n"
            "out['child'] = subprocess.run([sys.executable, '-c', 'print(7)'], capture_output=True).stdout.decode()\n"
            "print(json.dumps(out))")
    r = run(code, timeout_s=20)
    assert r.status == "ok", r
    import json

    out = json.loads(r.stdout)
    leaked = {p: v for p, v in out.items() if p.startswith("/proc") and v not in ("FileNotFoundError", "")}
    assert not leaked, leaked
    assert out["getloadavg"] == "OSError" and out["sysinfo"] == [-1, 1] and out["write"] == "OSError", out
    assert out["own"] == [True, True] and out["child"] == "7\n", out


def test_no_program_can_sleep_on_a_shared_futex() -> None:
    """Red team 3's last futex channel: a thread whose clear-tid address is a word of a file every execution
    maps makes the kernel wake that word's shared futex when it exits, which no filter sees; another
    execution sleeping on the word hears it. Shared waits now return EAGAIN at once (glibc retries: joins
    and shared semaphores spin instead of sleeping), so nobody sleeps there to hear anything; a private
    wait still sleeps until its timeout."""
    code = _MAP_INTERPRETER + (
        "class Timespec(ctypes.Structure):\n"
        "    _fields_ = [('s', ctypes.c_long), ('ns', ctypes.c_long)]\n"
        "word = ctypes.c_uint32.from_address(p).value\n"
        "def wait(addr, op, value, bits=0):\n"
        "    r = libc.syscall(NR_FUTEX, ctypes.c_void_p(addr), op, value, ctypes.byref(Timespec(0, 200000000)), None,\n"
        "                     ctypes.c_uint32(bits))\n"
        "    return os.strerror(ctypes.get_errno()) if r < 0 else 'woken'\n"
        "mine = ctypes.c_uint32(7)\n"
        "print(wait(p, 0, word), '|', wait(p, 9, word, 0xFFFFFFFF), '|', wait(ctypes.addressof(mine), 128, 7))\n")
    r = run(code)
    assert r.status == "ok", r
    shared, bitset, private = (part.strip() for part in r.stdout.split("|"))
    assert shared == bitset == os.strerror(11) and private == os.strerror(110), r.stdout
