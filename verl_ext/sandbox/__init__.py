"""Run untrusted Python in a sandbox: namespaces, read-only file system, capped tmpfs, no network,
rlimits, seccomp, a wall-clock deadline enforced by the parent, capped outputs.

Each execution gets fresh user, PID, mount, network, IPC and UTS namespaces; root inside is host
``nobody`` (or your own uid when not root); only the interpreter's directories, ``/usr``, ``/lib*``,
``/bin`` and the trainer's site-packages (unless ``VERL_EXT_SANDBOX_PACKAGES=stdlib``) are visible,
read-only; ``/tmp`` (the working directory) is a private size-capped tmpfs; the network namespace has
only a downed loopback. The parent kills PID 1 of the namespace at the deadline, which ends
every process the program started.

Fail closed: when this host cannot provide that isolation, :func:`run` raises
:class:`~verl_ext.exceptions.SandboxUnavailableError` saying what is missing.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import math
import os
import sys
import sysconfig
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from verl_ext import _core
from verl_ext.exceptions import InvalidInputError, SandboxUnavailableError

__all__ = ["LIMIT_CEILINGS", "LIMIT_FLOORS", "MAX_THREADS", "MAX_TIMEOUT_S", "MODES", "PACKAGE_SCOPES", "ExecResult",
           "Limits", "Status", "cancel_epoch", "cancel_running", "capabilities", "checked_threads",
           "default_concurrency", "mode", "package_scope", "require_isolation", "run", "run_many", "run_payloads",
           "shutdown", "stop_on_interrupt", "warm_starts"]

Status = Literal["ok", "timeout", "memory_limit", "runtime_error", "output_limit", "killed"]
HARNESS_PATH = Path(__file__).with_name("harness.py")
HARNESS = HARNESS_PATH.read_text()
#: The result-channel protocol, which the harness loads by path (see ``protocol.py``).
PROTOCOL_PATH = Path(__file__).with_name("protocol.py")
ZYGOTE = Path(__file__).with_name("zygote.py").read_text()
#: Our own package (the zygote loads the compiled core and the harness from it), and where the sandbox
#: sees it, read-only: a neutral place that says nothing about the host's directories.
PACKAGE_DIR = Path(__file__).resolve().parent.parent
PACKAGE_INSIDE = "/opt/verl-ext/verl_ext"
#: Environment of sandboxed programs (nothing of the caller's environment is passed on).
SANDBOX_ENV = (("PATH", "/usr/local/bin:/usr/bin:/bin"), ("LANG", "C.UTF-8"), ("PYTHONIOENCODING", "utf-8"),
               ("HOME", "/tmp"), ("PYTHONHASHSEED", "0"),
               # glibc reserves 64 MiB of address space per malloc arena (up to 8 per core): with
               # RLIMIT_AS that would make a handful of threads fail to start.
               ("MALLOC_ARENA_MAX", "2"),
               # BLAS and OpenMP pools (numpy's) would start a thread per host core at import: with the
               # execution's process limit, that fails on a large host.
               ("OPENBLAS_NUM_THREADS", "1"), ("OMP_NUM_THREADS", "1"), ("MKL_NUM_THREADS", "1"))
#: ``VERL_EXT_SANDBOX_PACKAGES``: ``site`` (default) lets sandboxed programs and tests import what the trainer's
#: environment has installed (its site-packages, read-only), as verl's prime_code, which runs them in that
#: environment, does; ``stdlib`` keeps them to the standard library.
PACKAGE_SCOPES = ("site", "stdlib")
#: Where the sandbox shows the trainer's site-packages directories (``<SITE_INSIDE>/<i>``: neutral names, as for
#: our package), and the variable of the sandbox's environment that names them for the harness, which puts
#: them on ``sys.path`` (``python -I`` ignores PYTHONPATH).
SITE_INSIDE = "/opt/verl-ext/site"
SITE_ENV = "VERL_EXT_SITE"


#: Bounds of :class:`Limits`. The ceilings keep a typo (or a value from an untrusted config) from turning
#: a limit off: ``scratch_mb`` is a tmpfs, host memory outside the address-space limit, and every value
#: must fit the kernel's and the core's integer types. The floors are what an execution needs to start.
MAX_TIMEOUT_S = 3600
LIMIT_FLOORS = {
    # stdin/stdout/stderr, the result channel, the request pipe and the set-up report take fds 0-5, and
    # the interpreter opens a few more while starting.
    "max_open_files": 16,
}
LIMIT_CEILINGS = {
    "memory_mb": 1 << 16,  # 64 GiB of address space per process
    "output_limit": 64 << 20,
    "channel_limit": 16 << 20,
    "scratch_mb": 1 << 12,
    "max_processes": 1024,
    "max_open_files": 1 << 16,
    "max_file_mb": 1 << 12,
}


@dataclass(frozen=True)
class Limits:
    """Per-execution limits. Defaults suit competitive-programming tests."""

    timeout_s: float = 5.0
    memory_mb: int = 1024
    #: Bytes kept per stream (stdout, stderr); more ends the run with status ``output_limit``.
    output_limit: int = 64 * 1024
    #: Bytes accepted on the result channel (fd 3).
    channel_limit: int = 16 * 1024 * 1024
    scratch_mb: int = 64
    #: Processes and threads of one execution. A 64-process fork bomb takes ~100 ms of kernel time to
    #: tear down on 2 cores; 32 keeps the verdict within timeout + 100 ms there.
    max_processes: int = 32
    #: Each open socket can queue ~210 KiB of kernel buffers that no rlimit charges: with max_processes this
    #: bounds that memory per execution (64 x 32 x 210 KiB ~ 0.4 GiB).
    max_open_files: int = 64
    max_file_mb: int = 64

    def __post_init__(self) -> None:
        # Compared, and kept, as plain numbers: a subclass of int or float could say anything in a comparison.
        timeout = self.timeout_s
        plain_timeout = _plain_number(timeout)
        if plain_timeout is None or not (0 < plain_timeout <= MAX_TIMEOUT_S):
            raise InvalidInputError(f"timeout_s must be a number in (0, {MAX_TIMEOUT_S}], got {timeout!r}")
        object.__setattr__(self, "timeout_s", plain_timeout)
        for name, ceiling in LIMIT_CEILINGS.items():
            value, floor = getattr(self, name), LIMIT_FLOORS.get(name, 1)
            plain = _plain_int(value)
            if plain is None or not (floor <= plain <= ceiling):
                raise InvalidInputError(f"{name} must be an int in [{floor}, {ceiling}], got {value!r}")
            object.__setattr__(self, name, plain)


def _plain_int(value: object) -> int | None:
    """``value`` as a plain ``int`` (its base value, whatever a subclass overrides), None if not an int."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return int.__index__(value)


def _plain_number(value: object) -> float | int | None:
    """``value`` as a plain finite ``int`` or ``float``, None otherwise."""
    if isinstance(value, float):
        plain = float.__float__(value)
        return plain if math.isfinite(plain) else None
    return _plain_int(value)


#: Most executions one call may run at once (``num_threads``; 0: the default).
MAX_THREADS = 4096


def checked_threads(num_threads: object) -> int:
    """``num_threads`` as a plain int in [0, :data:`MAX_THREADS`], else :class:`InvalidInputError`."""
    plain = _plain_int(num_threads)
    if plain is None or not 0 <= plain <= MAX_THREADS:
        raise InvalidInputError(f"num_threads must be an int in [0, {MAX_THREADS}] (0: automatic), got {num_threads!r}")
    return plain


@dataclass(frozen=True)
class ExecResult:
    """Outcome of one execution. ``stdout``/``stderr`` are decoded as UTF-8 with replacement."""

    status: Status
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    wall_ms: float
    cpu_ms: float
    #: Raw bytes the program wrote on fd 3 (untrusted).
    channel: bytes = b""
    #: More than the bytes kept of the channel came (``run_payloads``' ``channel_limits``): ``channel`` is cut.
    channel_overflow: bool = False


@functools.cache
def _interpreter() -> tuple[str, list[str]]:
    """The real interpreter binary and the host paths it needs (its installation prefix)."""
    exe = os.path.realpath(sys.executable)
    prefixes = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    return exe, sorted(prefixes)


@functools.cache
def capabilities() -> dict[str, Any]:
    """What isolation this host supports (tries a full sandbox once per process)."""
    exe, paths = _interpreter()
    return dict(_core.sandbox_probe([exe, "-I", "-S", "-B", "-c", "pass"], paths))


_log = logging.getLogger("verl_ext.sandbox")

#: ``VERL_EXT_SANDBOX_MODE``: ``full`` (default; refuses to run where the host cannot isolate) or the
#: opt-in ``rlimits-only``: plain child processes with rlimits, their own process group and private
#: directory, no_new_privs and seccomp, but NO namespaces, so NO file-system, network or PID isolation.
MODES = ("full", "rlimits-only")
WEAK_MODE = "rlimits-only"


def mode() -> str:
    """The sandbox mode from ``VERL_EXT_SANDBOX_MODE`` (see :data:`MODES`)."""
    value = os.environ.get("VERL_EXT_SANDBOX_MODE", "full")
    if value not in MODES:
        raise InvalidInputError(f"VERL_EXT_SANDBOX_MODE must be one of {MODES}, got {value!r}")
    return value


def package_scope() -> str:
    """What sandboxed code may import, from ``VERL_EXT_SANDBOX_PACKAGES`` (see :data:`PACKAGE_SCOPES`)."""
    value = os.environ.get("VERL_EXT_SANDBOX_PACKAGES", "site")
    if value not in PACKAGE_SCOPES:
        raise InvalidInputError(f"VERL_EXT_SANDBOX_PACKAGES must be one of {PACKAGE_SCOPES}, got {value!r}")
    return value


@functools.cache
def _site_dirs() -> tuple[str, ...]:
    """The trainer's site-packages directories (pure and platform), as real paths."""
    paths = sysconfig.get_paths()
    return tuple(sorted({os.path.realpath(paths[k]) for k in ("purelib", "platlib") if os.path.isdir(paths[k])}))


def default_concurrency() -> int:
    """Executions this process runs at once at most (twice ``VERL_EXT_NUM_THREADS`` or the cores)."""
    return int(_core.default_sandbox_threads())


def require_isolation() -> None:
    """Raise :class:`~verl_ext.exceptions.SandboxUnavailableError` unless this host can sandbox (or the
    weaker mode was chosen explicitly)."""
    if mode() == WEAK_MODE:
        return
    caps = capabilities()
    if not caps["full_isolation"]:
        raise SandboxUnavailableError(
            "verl-ext refuses to run untrusted code without its sandbox, and this host cannot provide it: "
            f"{caps['error']}. It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1, "
            "user.max_user_namespaces > 0), mount/PID/network namespaces and seccomp; in a container, run it "
            "with a seccomp/AppArmor profile that allows them. Where that is impossible, "
            f"VERL_EXT_SANDBOX_MODE={WEAK_MODE} runs code with rlimits and seccomp only, without file-system, "
            "network or PID isolation (a warning is logged on every batch)."
        )


def run_many(
    codes: Sequence[str],
    stdins: Sequence[str | bytes] | None = None,
    *,
    limits: Limits | None = None,
    num_threads: int = 0,
    **limit_overrides: Any,
) -> list[ExecResult]:
    """Run each program in its own sandbox, in parallel on Rust threads with the GIL released.

    Parameters
    ----------
    codes
        Python sources, run as ``__main__``.
    stdins
        Standard input of each program (default: empty).
    limits
        :class:`Limits`; keyword overrides (``timeout_s=2``) apply on top.
    num_threads
        Executions at a time; 0 means twice ``VERL_EXT_NUM_THREADS`` or twice the cores (a program
        waiting for its deadline holds a slot but no core).
    """
    lim = Limits(**{**(limits.__dict__ if limits else {}), **limit_overrides})
    num_threads = checked_threads(num_threads)
    # A bare string is a sequence of one-character programs: refuse it rather than run each character.
    if isinstance(codes, (str, bytes)) or not isinstance(codes, Sequence):
        raise InvalidInputError(f"codes must be a sequence of str, got {type(codes).__name__}")
    if isinstance(stdins, (str, bytes)) or (stdins is not None and not isinstance(stdins, Sequence)):
        raise InvalidInputError(f"stdins must be a sequence of str or bytes, got {type(stdins).__name__}")
    if stdins is not None and len(stdins) != len(codes):
        raise InvalidInputError(f"{len(stdins)} stdins for {len(codes)} programs")
    payloads, stdin_bytes = [], []
    for i, code in enumerate(codes):
        if not isinstance(code, str):
            raise InvalidInputError(f"codes[{i}] must be a str, got {type(code).__name__}")
        payloads.append(b"script\n" + code.encode("utf-8", "surrogateescape"))
        stdin = b"" if stdins is None else stdins[i]
        if isinstance(stdin, str):
            stdin_bytes.append(stdin.encode("utf-8", "surrogateescape"))
        elif isinstance(stdin, (bytes, bytearray, memoryview)):  # not bytes(n): an int would allocate n zeros
            stdin_bytes.append(bytes(stdin))
        else:
            raise InvalidInputError(f"stdins[{i}] must be str or bytes, got {type(stdin).__name__}")
    return run_payloads(payloads, stdin_bytes, lim, num_threads)


def warm_starts() -> bool:
    """Whether executions are forked by warm zygotes (the default) instead of starting an interpreter
    each. ``VERL_EXT_SANDBOX_WARM=0`` turns them off; per-execution cgroups
    (``VERL_EXT_SANDBOX_CGROUPS=1``) need cold starts, which are then used."""
    return os.environ.get("VERL_EXT_SANDBOX_WARM", "1") != "0" and os.environ.get("VERL_EXT_SANDBOX_CGROUPS") != "1"


@functools.cache
def _zygote_argv() -> list[str]:
    exe, _ = _interpreter()
    core = Path(_core.__file__).resolve().relative_to(PACKAGE_DIR)
    harness = HARNESS_PATH.resolve().relative_to(PACKAGE_DIR)
    return [exe, "-I", "-S", "-B", "-c", ZYGOTE, f"{PACKAGE_INSIDE}/{core}", f"{PACKAGE_INSIDE}/{harness}"]


def shutdown() -> None:
    """Stop this process's zygotes (they also end with the process). The next execution starts new ones."""
    _core.sandbox_shutdown()


def cancel_running() -> None:
    """Stop every sandbox batch running in this process now: their executions are killed within 250 ms, and each
    batch raises :class:`~verl_ext.exceptions.SandboxCancelledError` (no verdicts). A batch waited for on the
    main thread does this by itself on Ctrl-C (and raises KeyboardInterrupt); batches on other threads stop
    when the interpreter exits, or when this is called."""
    _core.sandbox_cancel_running()


def cancel_epoch() -> int:
    """The cancel epoch now. A scoring that runs several batches (stages, threads) takes it once when it begins
    and passes it to each (``run_payloads(epoch=...)``): a :func:`cancel_running` while it runs then stops the
    batches it starts later too (they raise :class:`~verl_ext.exceptions.SandboxCancelledError` at once)."""
    return _core.sandbox_epoch()


@contextlib.contextmanager
def stop_on_interrupt() -> Iterator[None]:
    """Within it, a KeyboardInterrupt or SystemExit stops every running sandbox batch (:func:`cancel_running`)
    before it propagates: put it inside a thread pool's ``with`` so that the pool's shutdown does not wait for
    batches to end on their own."""
    try:
        yield
    except BaseException as e:
        if not isinstance(e, Exception):
            cancel_running()
        raise


def _close() -> None:
    """At exit: stop every batch, and refuse new ones (a pool thread would start its next stage)."""
    _core.sandbox_cancel_running(closing=True)


# At exit (after a KeyboardInterrupt reached the top, say), batches still running on other threads are stopped,
# and new ones refused, before the interpreter waits for those threads. CPython runs these hooks last registered
# first, so concurrent.futures' own (which waits for its pools' threads) is registered before ours.
importlib.import_module("concurrent.futures.thread")
_register_atexit = getattr(threading, "_register_atexit", None)
if _register_atexit is not None:
    _register_atexit(_close)


def run_payloads(payloads: Sequence[bytes], stdins: Sequence[bytes], limits: Limits, num_threads: int = 0,
                 channel_limits: Sequence[int] | None = None, epoch: int | None = None) -> list[ExecResult]:
    """Run harness requests (a mode line, then its body; see ``harness.py``) in parallel sandboxes.
    ``limits.channel_limit`` kills a run that writes more on its result channel; ``channel_limits`` (one per
    request, each at most that) are the bytes kept of each: past them the run goes on unaware, the bytes are
    dropped and its result's ``channel_overflow`` is set. A limit derived from expected outputs belongs
    there, never in ``limits``: the moment of a kill is visible to the program. ``epoch``: the scoring's
    :func:`cancel_epoch` (default: now)."""
    require_isolation()
    num_threads = checked_threads(num_threads)
    exe, paths = _interpreter()
    weak = mode() == WEAK_MODE
    site = _site_dirs() if package_scope() == "site" else ()
    site_inside = list(site) if weak else [f"{SITE_INSIDE}/{i}" for i in range(len(site))]
    env = [*SANDBOX_ENV, (SITE_ENV, os.pathsep.join(site_inside))]
    lim = limits
    kwargs: dict[str, Any] = dict(
        timeout_s=float(lim.timeout_s), memory_mb=int(lim.memory_mb), output_limit=int(lim.output_limit),
        channel_limit=int(lim.channel_limit), scratch_mb=int(lim.scratch_mb), max_processes=int(lim.max_processes),
        max_open_files=int(lim.max_open_files), max_file_mb=int(lim.max_file_mb), num_threads=num_threads,
        channel_limits=None if channel_limits is None else [int(c) for c in channel_limits], epoch=epoch,
    )
    if weak:
        _log.warning("verl-ext sandbox in %r mode (VERL_EXT_SANDBOX_MODE): %d program(s) run WITHOUT namespaces "
                     "- they can read what this user can read and use the network; only rlimits, seccomp, "
                     "a process group and a private directory confine them", WEAK_MODE, len(payloads))
    warm = not weak and warm_starts()
    # Cold starts find the protocol where the package is mapped (the weak mode sees the host's files).
    protocol = PROTOCOL_PATH.resolve()
    protocol_path = str(protocol) if weak else f"{PACKAGE_INSIDE}/{protocol.relative_to(PACKAGE_DIR)}"
    argv = _zygote_argv() if warm else [exe, "-I", "-S", "-B", "-c", HARNESS, protocol_path]
    requests = [(argv, env, stdin, payload) for payload, stdin in zip(payloads, stdins, strict=True)]
    raw = _core.sandbox_run_many(requests, read_only_paths=paths, start="weak" if weak else "warm" if warm else "cold",
                                 mapped_paths=[] if weak else [(str(PACKAGE_DIR), PACKAGE_INSIDE),
                                                               *zip(site, site_inside, strict=True)], **kwargs)
    results = []
    for r in raw:
        if isinstance(r, BaseException):
            raise r
        results.append(ExecResult(
            status=r["status"], exit_code=r["exit_code"], signal=r["signal"],
            stdout=r["stdout"].decode("utf-8", "replace"), stderr=r["stderr"].decode("utf-8", "replace"),
            wall_ms=r["wall_ms"], cpu_ms=r["cpu_ms"], channel=r["channel"], channel_overflow=r["channel_overflow"],
        ))
    return results


def run(code: str, *, stdin: str | bytes = "", limits: Limits | None = None, **limit_overrides: Any) -> ExecResult:
    """Run one program in a sandbox (see :func:`run_many`); e.g. ``run("print(input())", stdin="hi", timeout_s=2)``."""
    return run_many([code], [stdin], limits=limits, num_threads=1, **limit_overrides)[0]
