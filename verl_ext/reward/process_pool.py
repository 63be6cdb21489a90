"""A pool of forkserver processes calling the user's synchronous reward functions in parallel.

Each process imports the functions once (by ``path`` and ``name``) and serves calls one at a time. A
dispatcher thread per process sends it a call (and, while no other dispatcher waits for work, the next one
ahead, so that the process never waits for the dispatcher) and waits for the answer with the call's
timeout: a call that times out, kills its process or answers with more than ``max_result_bytes`` gets a
:class:`CallFailed` result and its process is replaced; an exception raised by the function comes back
as :class:`CallFailed` too (``raised=True``), and the process serves on. No call runs twice: a call sent
ahead to a process that may have started it before being replaced fails instead. Processes start on first
use and are reused; they exit when the pool closes or this process exits.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import resource
import signal
import sys
import threading
import time
import traceback
import types
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from verl_ext.exceptions import describe
from verl_ext.reward import plain_data
from verl_ext.reward.frames import FrameIncomplete, FrameTooLong, read_frame
from verl_ext.reward.functions import FunctionSpec
from verl_ext.reward.shared_args import (
    EncodedCall,
    NotSendable,
    SharedObjects,
    WorkerObjects,
    apply_share,
    decode_kwargs,
    encode_call,
)

__all__ = ["CallFailed", "FunctionPool"]

#: Largest pickled answer read back from a call (a reward is a number or a small dict).
MAX_RESULT_BYTES = 1 << 20
#: Seconds a process may take to start and import the functions before it is considered broken.
START_TIMEOUT_S = 120.0
#: Seconds a process may take to load a shared argument (unpickling a tokenizer imports its library: seconds on
#: a loaded machine), or the call's timeout where longer. An object that takes longer (its unpickling hangs)
#: fails that call, and every later call that needs it at once: it is remembered as not loading.
SHARE_LOAD_S = 30.0
#: Calls sent to a process ahead of the one it runs, and the largest payload sent ahead: the pipe's buffer
#: (a socket's, over 200 KiB on Linux) takes it without blocking the dispatcher, which must stay free to
#: time out the running call.
SENT_AHEAD = 1
SEND_AHEAD_BYTES = 16 << 10
#: Seconds given, after a timed-out process is stopped, to read an answer it wrote as its time ran out.
LATE_ANSWER_S = 0.2
#: _send's answer for a call that waits for the answer before it.
_HELD = object()
#: No call queued (the queue's ``None`` is the stop sentinel).
_NOTHING = object()


@dataclass(frozen=True)
class CallFailed:
    """A call that returned no result: it raised (``raised``), timed out, crashed its process or answered
    too much. ``message`` says which, with the function's exception and traceback where it raised."""

    label: str
    message: str
    raised: bool = False


def _serve(conn: multiprocessing.connection.Connection, specs: Sequence[FunctionSpec]) -> None:
    """A worker process: import the functions, then answer ``(index, kwargs)`` calls until the pipe closes."""
    from verl_ext.reward.functions import load_function

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the trainer, which then closes the pool
    # A session of its own: a timeout or crash kills the function's children with it (one killpg), and a
    # function that kills "its" process group cannot take the trainer down.
    with contextlib.suppress(OSError):
        os.setsid()
    # A subreaper: a child the function starts in a session of its own, or a daemon it double-forks, stays
    # among this process's descendants, where the pool finds and kills it (`_kill_tree`).
    _become_subreaper()
    _exit_with_parent()
    server = os.getpid()
    # Import every function now, so that no call's timeout pays for an import.
    functions: dict[int, Callable[..., Any]] = {}
    broken: dict[int, str] = {}
    for index, spec in enumerate(specs):
        try:
            functions[index] = load_function(spec)
        except Exception as e:  # noqa: BLE001 - reported by each call of this function
            broken[index] = describe(e)
    # The state calls start from, taken after the imports: what a module sets up when it loads (a handler, a
    # log file) is the functions' own, kept across calls.
    clean = _CleanState()
    held: dict[int, Any] = {}  # shared arguments (a tokenizer), by key: see shared_args
    try:
        conn.send_bytes(pickle.dumps(("ready", os.getpid())))
        while True:
            try:
                message = pickle.loads(conn.recv_bytes())
            except EOFError:
                return
            if message[0] == "share":  # a header, then the object's pickle
                # Loading may import a library: not part of any call's time.
                failed = apply_share(held, message, conn.recv_bytes())
                conn.send_bytes(pickle.dumps(("shared", message[1], failed)))
                continue
            _, seq, index, arguments = message
            try:
                if index in broken:
                    raise ImportError(broken[index])
                kwargs = decode_kwargs(arguments, held)
                outcome: tuple[Any, ...] = ("ok", functions[index](**kwargs))
            except BaseException as e:  # noqa: BLE001 - the user's function may raise anything, even SystemExit
                outcome = ("raised", describe(e), traceback.format_exc(limit=8)[-4000:])
            if os.getpid() != server:  # a child the function forked came back here: it must not answer
                os._exit(0)
            # What one call leaves behind must not reach the next: alarms, timers and signal handlers are put
            # back, child processes killed; a thread still running, or descriptors piling up, retire this
            # process after its answer (the pool runs the next call in a fresh one).
            retire = clean.restore()
            try:
                answer = plain_data.dumps((seq, *outcome, retire))
            except BaseException as e:  # noqa: BLE001 - a result that does not pickle fails its call only
                answer = pickle.dumps((seq, "raised", describe(e), traceback.format_exc(limit=8)[-4000:], retire),
                                      protocol=pickle.HIGHEST_PROTOCOL)
            conn.send_bytes(answer)
            if retire:
                os._exit(0)  # before reading the call sent ahead: the pool runs it elsewhere
    except (BrokenPipeError, ConnectionResetError, EOFError):
        return


#: Linux's prctl option that makes a process the reaper of its orphaned descendants.
_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (of each of its threads), from ``/proc``; none once it is gone."""
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as f:
                out.extend(int(c) for c in f.read().split())
    return out


def _kill_tree(pid: int, *, include_root: bool = True) -> None:
    """SIGKILL ``pid``'s descendants (and ``pid``): each is stopped, its children listed, then killed, so that
    none forks a new one behind the walk. A worker is a subreaper, so a descendant in a session of its own is
    still found; one that a dying descendant forked just before it was stopped joins the worker's children
    after the walk, so walks repeat until one finds no descendant (at most :data:`_KILL_ROUNDS`)."""
    for _ in range(_KILL_ROUNDS):
        killed: list[int] = []
        todo = [pid]
        seen = {pid}
        while todo and len(killed) < _MAX_TREE:
            p = todo.pop()
            if p != pid:
                # Stopped before its children are listed, killed right after: never left stopped should this
                # process die mid-walk (its parent's death kills a worker at once). A child it forks as the stop
                # lands is an orphan of the worker by the next walk.
                with contextlib.suppress(OSError):
                    os.kill(p, signal.SIGSTOP)
            children = _children(p)
            if p != pid:
                with contextlib.suppress(OSError):
                    os.kill(p, signal.SIGKILL)
                killed.append(p)
            for c in children:
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
        if not killed:
            break
        for p in killed:  # once dead (a zombie), its orphans have joined the worker: the next walk finds them
            _wait_for_state(p, b"ZX")
    if include_root:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


#: Walks of a kill: each catches the orphans of the processes the walk before it killed (fork-hoppers).
_KILL_ROUNDS = 50
#: Longest wait for a signalled process to stop or die (a few ms normally).
_STATE_WAIT_S = 0.2


def _wait_for_state(pid: int, states: bytes) -> None:
    """Until ``pid``'s state (``/proc/<pid>/stat``) is one of ``states`` or it is gone, at most _STATE_WAIT_S."""
    deadline = time.monotonic() + _STATE_WAIT_S
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rpartition(b")")[2][1:2]
        except OSError:
            return
        if state in states or time.monotonic() > deadline:
            return
        time.sleep(0.0005)
#: Descriptors the functions may keep open across calls (caches, log files) before their process retires.
_MAX_NEW_FDS = 32
#: Most processes one tree walk stops and kills (a fork bomb is bounded by the host's process limit anyway).
_MAX_TREE = 4096


class _CleanState:
    """A worker's state before its first call, put back after each call: no alarm or interval timer left
    armed, the signal handlers and signal mask it had, no child process, its recursion limit, no profile or
    trace hook, its soft resource limits, working directory, umask and environment. A call that leaves a
    Python thread running, lowers a hard resource limit (which cannot be raised back) or opens descriptors it
    keeps (beyond :data:`_MAX_NEW_FDS`: a library may keep a few open on purpose) retires the process, as does
    a raised niceness; interpreter-wide settings (standard streams, integer string limit, garbage collection,
    switch interval, decimal context, warning filters, socket timeout) are put back. Threads started from C
    are a library's pool (a tokenizer's, BLAS's) the first time they appear, started on first use and kept
    by design: the first growth becomes the baseline; any later growth retires the process."""

    _TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)

    def __init__(self) -> None:
        uncatchable = {signal.SIGKILL, signal.SIGSTOP}
        self.handlers = {s: signal.getsignal(s) for s in signal.valid_signals() if s not in uncatchable}
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, ())
        self.fds = set(self._open_fds())
        self.threads = threading.active_count()
        self.tasks = self._tasks()
        self.pool_started = False
        self.recursion = sys.getrecursionlimit()
        self.hooks = (sys.getprofile(), sys.gettrace(), threading.getprofile(), threading.gettrace())
        self.limits = {r: resource.getrlimit(r) for r in _RLIMITS}
        self.cwd = os.getcwd()
        self.umask = os.umask(0)
        os.umask(self.umask)
        self.environ = dict(_environ_data())
        self.interpreter = _interpreter_settings()
        self.nice = os.nice(0)

    @staticmethod
    def _tasks() -> int:
        """Threads of this process as the kernel sees them (threads started from C included)."""
        try:
            return len(os.listdir("/proc/self/task"))
        except OSError:
            return 0

    @staticmethod
    def _open_fds() -> list[int]:
        try:
            return [int(fd) for fd in os.listdir("/proc/self/fd")]
        except OSError:
            return []

    def restore(self) -> bool:
        """Put the state back; whether the process should retire (a thread left running, a hard limit lowered,
        descriptors piling up: they cannot be taken back safely)."""
        # Hooks first: a profiler left installed would also slow the rest of this restore.
        if (sys.getprofile(), sys.gettrace(), threading.getprofile(), threading.gettrace()) != self.hooks:
            sys.setprofile(self.hooks[0])
            sys.settrace(self.hooks[1])
            threading.setprofile(self.hooks[2])
            threading.settrace(self.hooks[3])
        signal.alarm(0)
        for timer in self._TIMERS:
            with contextlib.suppress(OSError):
                signal.setitimer(timer, 0)
        if signal.pthread_sigmask(signal.SIG_BLOCK, ()) != self.mask:
            # A signal the call blocked and left pending (its own alarm) would be delivered as it is unblocked,
            # to a handler that may end the process: ignoring a pending signal discards it (POSIX). The handler
            # is put back below.
            for pending in signal.sigpending() - self.mask:
                with contextlib.suppress(OSError, ValueError):
                    signal.signal(pending, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        for s, handler in self.handlers.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                if signal.getsignal(s) is not handler:
                    signal.signal(s, handler)
        if sys.getrecursionlimit() != self.recursion:
            sys.setrecursionlimit(self.recursion)
        retire = False
        for r, (soft, hard) in self.limits.items():
            now = resource.getrlimit(r)
            if now == (soft, hard):
                continue
            # A hard limit can only go down (without privileges): a lowered one stays, so the process retires.
            retire |= _rlimit_below(now[1], hard)
            with contextlib.suppress(OSError, ValueError):
                resource.setrlimit(r, (soft if not _rlimit_below(now[1], soft) else now[1], now[1]))
        os.umask(self.umask)  # one system call, cheaper than reading it first
        with contextlib.suppress(OSError):
            if os.getcwd() != self.cwd:
                os.chdir(self.cwd)
        if _environ_data() != self.environ:
            self._restore_environ()
        if _interpreter_settings() != self.interpreter:
            _restore_interpreter_settings(self.interpreter)
        retire |= os.nice(0) > self.nice  # a raised niceness cannot be lowered back without privileges
        if _children(os.getpid()):  # walked from this process, which inherits the orphans of those it kills
            _kill_tree(os.getpid(), include_root=False)
        with contextlib.suppress(ChildProcessError, OSError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        tasks = self._tasks()
        python_threads = threading.active_count() > self.threads
        if tasks > self.tasks and not python_threads and not self.pool_started:
            self.pool_started, self.tasks = True, tasks  # a C library's thread pool, started on first use
        return (retire or python_threads or tasks > self.tasks
                or len(self._open_fds()) > len(self.fds) + _MAX_NEW_FDS)

    def _restore_environ(self) -> None:
        """Through ``os.environ``, so that the C environment (what a child process gets) is put back too."""
        now = _environ_data()
        for key in [k for k in now if k not in self.environ]:
            with contextlib.suppress(KeyError, OSError):
                os.environb.pop(key)
        for key, value in self.environ.items():
            if now.get(key) != value:
                with contextlib.suppress(OSError, ValueError):
                    os.environb[key] = value


#: Resource limits put back after each call (the soft limit; see :meth:`_CleanState.restore`): those a lowered
#: value of makes a later correct call fail. Each costs a system call per call (about 0.6 us).
_RLIMITS = tuple(getattr(resource, n) for n in (
    "RLIMIT_AS", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_MEMLOCK", "RLIMIT_NOFILE",
    "RLIMIT_NPROC", "RLIMIT_STACK") if hasattr(resource, n))


def _interpreter_settings() -> tuple[Any, ...]:
    """Interpreter-wide settings one call can change for every later one (each read costs well under 1 us):
    standard streams, integer string-conversion limit, garbage collection, thread switch interval, decimal
    context, warning filters, sockets' default timeout."""
    import decimal
    import socket
    import warnings

    ctx = decimal.getcontext()
    return (sys.stdin, sys.stdout, sys.stderr, getattr(sys, "get_int_max_str_digits", lambda: 0)(),
            gc.isenabled(), sys.getswitchinterval(),
            (ctx.prec, ctx.rounding, ctx.Emin, ctx.Emax, ctx.capitals, ctx.clamp, tuple(ctx.traps.items()),
             tuple(ctx.flags.items())),
            tuple(warnings.filters), socket.getdefaulttimeout())


def _restore_interpreter_settings(saved: tuple[Any, ...]) -> None:
    import decimal
    import socket
    import warnings

    sys.stdin, sys.stdout, sys.stderr = saved[0], saved[1], saved[2]
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(saved[3])
    (gc.enable if saved[4] else gc.disable)()
    sys.setswitchinterval(saved[5])
    prec, rounding, emin, emax, capitals, clamp, traps, flags = saved[6]
    decimal.setcontext(decimal.Context(prec=prec, rounding=rounding, Emin=emin, Emax=emax, capitals=capitals,
                                       clamp=clamp, traps=[s for s, on in traps if on],
                                       flags=[s for s, on in flags if on]))
    warnings.filters = list(saved[7])
    getattr(warnings, "_filters_mutated", lambda: None)()
    socket.setdefaulttimeout(saved[8])


def _rlimit_below(a: int, b: int) -> bool:
    """Whether limit ``a`` is lower than ``b`` (``RLIM_INFINITY`` is the highest)."""
    return a != b and (b == resource.RLIM_INFINITY or (a != resource.RLIM_INFINITY and a < b))


def _environ_data() -> dict[bytes, bytes]:
    """The environment as ``os.environ`` holds it (bytes, not decoded: compared after every call)."""
    return os.environb._data if hasattr(os.environb, "_data") else dict(os.environb)


def _exit_with_parent() -> None:
    """End this worker, and every process it started, when the trainer process dies, even mid-call (a SIGTERM
    or SIGKILL gives the trainer no time to stop its pool)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        # Its descendants in sessions of their own too (this process is their subreaper), then its group: a
        # daemon left alive would also keep the forkserver waiting (it holds the forkserver's "alive" pipe).
        _kill_tree(os.getpid(), include_root=False)
        with contextlib.suppress(OSError):
            os.killpg(os.getpgrp(), signal.SIGKILL)
        os._exit(0)

    threading.Thread(target=watch, name="verl-ext-parent-watch", daemon=True).start()


_MAIN_LOCK = threading.Lock()


@contextmanager
def _main_hidden() -> Iterator[None]:
    """Start processes without the trainer's ``__main__``: multiprocessing would re-import it (a script, or
    ``verl.trainer.main_ppo`` with torch and Ray) in every worker; the workers need only this module."""
    with _MAIN_LOCK:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = main


class _Worker:
    """One process and the pipe to it."""

    def __init__(self, context: Any, specs: Sequence[FunctionSpec]) -> None:
        self._lock = threading.Lock()
        self._dead = False
        self.seq = 0  # number of the call in flight; its answer must carry it
        self.objects = WorkerObjects()  # the shared arguments it holds
        self.conn, child = context.Pipe(duplex=True)
        # Not daemonic: a daemonic process may not start children, and reward functions do (sympy timeouts,
        # subprocess checkers); the pool kills its workers itself.
        self.process = context.Process(target=_serve, args=(child, tuple(specs)), name="verl-ext-reward-fn",
                                       daemon=False)
        with _main_hidden():
            self.process.start()
        child.close()
        try:
            ready = read_frame(self.conn, time.monotonic() + START_TIMEOUT_S, MAX_RESULT_BYTES)
        except (EOFError, OSError):
            self.kill()
            raise RuntimeError(f"a reward function process exited as it started (exit code "
                               f"{self.process.exitcode})") from None
        if ready is None:
            self.kill()
            raise RuntimeError(f"a reward function process did not start within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """Kill the process and its group, keeping the pipe (what it wrote before can still be read)."""
        if self.process.is_alive():
            pid = self.process.pid
            if pid is not None:
                # Every descendant, those in sessions of their own included (the worker is their subreaper),
                # then the worker's group (setsid: its children go with it).
                _kill_tree(pid)
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)
            self.process.kill()
        self.process.join(timeout=10)

    def kill(self) -> None:
        """Idempotent: the dispatcher and the pool's shutdown may both call it."""
        with self._lock:
            if self._dead:
                return
            self._dead = True
        self.stop()
        self.conn.close()


@dataclass
class _Call:
    index: int
    label: str
    kwargs: dict[str, Any]
    timeout_s: float
    future: concurrent.futures.Future[Any]
    #: Names of arguments sent to each process once (``FunctionPool.submit``).
    shared: tuple[str, ...] = ()
    #: (process, sequence number, messages) of a call held back from sending ahead: sent as is next.
    pickled: tuple[int, int, EncodedCall] | None = None


class _Dispatcher:
    """What the dispatcher threads share (never the pool itself, so that an unclosed pool can be collected
    and its finalizer stop them): the queue of calls, the processes, and how calls are sent and answered."""

    def __init__(self, specs: tuple[FunctionSpec, ...], max_result_bytes: int) -> None:
        self.specs = specs
        self.max_result_bytes = max_result_bytes
        self.calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self.workers: set[_Worker] = set()
        self.shared = SharedObjects()
        self.closed = False
        self.replaced = 0  # processes replaced after a timeout or crash (for logs and tests)
        self.idle = 0  # dispatchers waiting for a call (then none sends ahead: the idle one takes it)
        self._idle_lock = threading.Lock()

    def run(self, context: Any) -> None:
        """Serve calls with one process. The next call is sent ahead while the process runs one (so it never
        waits for this thread between calls) when its payload fits the pipe's buffer (so sending never blocks
        this thread). A call's timeout counts from when its process started it: when it was sent to an idle
        process, or when the answer before it came. Calls sent ahead to a process that is then replaced run
        on its successor, unless they may have started (see :meth:`_receive`)."""
        worker: _Worker | None = None
        sent: collections.deque[tuple[_Call, int]] = collections.deque()  # (call, seq): sent, not answered
        retry: collections.deque[_Call] = collections.deque()  # running calls to send again, in order
        head_since = 0.0  # when the process started sent[0]
        stopping = False
        while True:
            if len(sent) < SENT_AHEAD + 1:
                call = retry.popleft() if retry else None
                if call is None and not stopping:
                    queued: object = _NOTHING
                    if not sent:
                        with self._idle_lock:
                            self.idle += 1
                        try:
                            queued = self.calls.get()
                        finally:
                            with self._idle_lock:
                                self.idle -= 1
                    elif self.idle == 0:  # send ahead only when no other dispatcher waits for work
                        try:
                            queued = self.calls.get_nowait()
                        except queue.Empty:
                            queued = _NOTHING
                    if queued is None:
                        stopping = True
                    elif isinstance(queued, _Call) and queued.future.set_running_or_notify_cancel():
                        call = queued
                if call is not None and worker is None and self.closed:
                    call.future.set_result(CallFailed(call.label, "the pool closed before the call ran"))
                    continue
                was_idle = not sent
                if call is not None:
                    try:
                        if worker is None:
                            worker = _Worker(context, self.specs)
                            self.workers.add(worker)
                        failed = self._send(worker, call, sent)
                    except BaseException as e:  # noqa: BLE001 - the call gets an answer and the thread lives
                        if sent:  # the process died running the call before: its answer says so
                            retry.appendleft(call)
                        else:
                            message = str(e) if isinstance(e, NotSendable) else f"could not run the call: {describe(e)}"
                            call.future.set_result(CallFailed(call.label, message))
                            self._replace(worker)
                            worker = None
                    else:
                        if failed is _HELD:
                            retry.appendleft(call)  # too big to send ahead: after the answer before it
                        elif failed is not None:
                            call.future.set_result(failed)
                        elif len(sent) == 1:
                            head_since = time.monotonic()  # an idle process starts it now
                    if was_idle and len(sent) == 1 and not retry:
                        continue  # it started an idle process: try once to send one more ahead
            if not sent:
                if stopping and not retry:
                    if worker is not None:
                        worker.kill()
                    return
                continue
            assert worker is not None
            call, seq = sent.popleft()
            try:
                result, broken, next_may_have_run = self._receive(worker, call, seq, head_since + call.timeout_s)
            except BaseException as e:  # noqa: BLE001 - whatever happens, the call gets an answer
                result, broken, next_may_have_run = (
                    CallFailed(call.label, f"could not run the call: {describe(e)}"), True, False)
            head_since = time.monotonic()  # the process went on to the call sent ahead, if any
            if broken:
                self._replace(worker)
                worker = None
                ahead = [c for c, _ in sent]
                sent.clear()
                if next_may_have_run and ahead:  # never run a call twice: it may have had side effects
                    ahead[0].future.set_result(CallFailed(
                        ahead[0].label, "its process was replaced when it may have started this call (the call "
                        "before it answered as its time ran out, or unreadably); not run again"))
                    ahead = ahead[1:]
                retry.extendleft(reversed(ahead))  # sent ahead, never started: run them again
            call.future.set_result(result)

    def _replace(self, worker: _Worker | None) -> None:
        """Kill a process that must not serve again; the next call starts a new one."""
        if worker is not None:
            worker.kill()
            self.workers.discard(worker)
            self.replaced += 1

    def _send(self, worker: _Worker, call: _Call, sent: collections.deque[tuple[_Call, int]]) -> Any:
        """Send ``call`` to the process and record it in ``sent``; a :class:`CallFailed` when its arguments
        do not pickle, :data:`_HELD` when it must wait for the answer before it, else None."""
        seq = worker.seq + 1
        if call.pickled is not None and call.pickled[:2] == (id(worker), seq):
            encoded = call.pickled[2]  # held back before: pickled once
        else:
            try:
                encoded = encode_call(seq, call.index, call.kwargs, call.shared, self.shared, worker.objects)
            except NotSendable as e:
                return CallFailed(call.label, str(e))
            except Exception as e:  # noqa: BLE001 - an argument that does not pickle fails this call only
                return CallFailed(call.label, f"arguments do not pickle: {describe(e)}")
        if sent and (encoded.shares or encoded.size > SEND_AHEAD_BYTES):
            call.pickled = (id(worker), seq, encoded)
            return _HELD
        call.pickled = None
        for (header, data), (key, drop) in zip(encoded.shares, encoded.placed, strict=True):
            failed = self._share(worker, header, data, key, max(call.timeout_s, SHARE_LOAD_S), encoded)
            worker.objects.hold(key, drop)
            if failed is not None:  # it raised as it loaded: the process is in step and serves on
                return CallFailed(call.label, self._refuse(encoded, key, failed))
        worker.conn.send_bytes(encoded.call)
        worker.objects.sent(encoded)
        worker.seq = seq
        sent.append((call, seq))
        return None

    def _share(self, worker: _Worker, header: bytes, data: bytes, key: int, wait_s: float,
               encoded: EncodedCall) -> str | None:
        """Send one shared object (its cached pickle as it is: no copy per process) and wait up to ``wait_s``
        for the process to load it; why it failed to load, or None. The process is idle here, so waiting
        costs no running call anything. A load that hangs or kills the process raises :class:`NotSendable`
        (the process must be replaced); either way the object is remembered as not loading."""
        worker.conn.send_bytes(header)
        worker.conn.send_bytes(data)
        try:
            ack = read_frame(worker.conn, time.monotonic() + wait_s, MAX_RESULT_BYTES)
        except (EOFError, OSError):
            worker.process.join(timeout=5)
            ack, reason = None, f"loading it ended the process (exit code {worker.process.exitcode})"
        else:
            reason = f"it did not load within {wait_s:g} s (its unpickling hangs, or takes longer)"
        answer = plain_data.loads(ack) if ack is not None else None
        if isinstance(answer, tuple) and len(answer) == 3 and answer[:2] == ("shared", key):
            return None if answer[2] is None else str(answer[2])
        if ack is not None:
            reason = "the process answered out of turn as it loaded it"
        raise NotSendable(self._refuse(encoded, key, reason))

    def _refuse(self, encoded: EncodedCall, key: int, reason: str) -> str:
        """Remember that the shared object ``key`` does not load in a process; the message of the call."""
        self.shared.refuse(key, reason)
        return (f"shared argument {encoded.names.get(key, key)} does not load in a worker process: {reason}; give "
                "the function kind: thread")

    def _receive(self, worker: _Worker, call: _Call, seq: int, deadline: float) -> tuple[Any, bool, bool]:
        """(result or CallFailed, whether the process must be replaced, whether it may have started the call
        sent after this one). Every read is bounded by ``deadline``: a process that stops partway through an
        answer times out like one that never answers. Once an answer has left the process, the process is
        free to start the next call, so whenever it is then replaced, that call may have run."""
        try:
            frame = read_frame(worker.conn, deadline, self.max_result_bytes)
        except (EOFError, ConnectionResetError):  # reset: it died with a call sent ahead unread
            worker.process.join(timeout=5)
            return CallFailed(call.label, f"its process died (exit code {worker.process.exitcode})"), True, False
        except FrameTooLong:  # the answer may already sit in the pipe's buffer
            return CallFailed(call.label, f"answered more than {self.max_result_bytes} bytes"), True, True
        except FrameIncomplete:  # part of an answer came: the rest may have followed
            return CallFailed(call.label, f"timed out after {call.timeout_s:g} s (its answer began but did not "
                              "finish)"), True, True
        late = False
        if frame is None:
            # Stop the process, then look once more: an answer it wrote as its time ran out still counts, but
            # then it may also have started the next call.
            worker.stop()
            try:
                frame = read_frame(worker.conn, time.monotonic() + LATE_ANSWER_S, self.max_result_bytes, 0.0)
            except (EOFError, OSError):
                frame = None
            if frame is None:
                return CallFailed(call.label, f"timed out after {call.timeout_s:g} s"), True, False
            late = True
        try:
            answer = plain_data.loads(frame)
        except BaseException as e:  # noqa: BLE001 - a result of a class not allowed, or one whose rebuild fails
            # The message was whole: the process is in step and serves on (unless it is already stopped).
            return CallFailed(call.label, f"its result does not unpickle here: {describe(e)}"), late, late
        if not isinstance(answer, tuple) or len(answer) < 3 or answer[0] != seq:
            return (CallFailed(call.label, "its process answered out of turn (a forked child wrote to the pipe?)"),
                    True, True)
        # A process that retires after this answer (it left a thread or descriptors) reads nothing more: the
        # call sent ahead to it never started, and runs on its successor.
        retire = bool(answer[-1])
        if answer[1] == "ok":
            return answer[2], late or retire, late
        return CallFailed(call.label, f"{answer[2]}\n{answer[3]}", raised=True), late or retire, late


class FunctionPool:
    """Calls ``specs[index](**kwargs)`` in one of ``processes`` worker processes; see the module docstring."""

    def __init__(self, specs: Sequence[FunctionSpec], processes: int, *,
                 max_result_bytes: int = MAX_RESULT_BYTES) -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        self._processes = processes
        self._dispatcher = _Dispatcher(tuple(specs), max_result_bytes)
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False
        # Runs on close(), when the pool is collected, or at exit (weakref.finalize's own atexit hook).
        self._finalizer = weakref.finalize(self, FunctionPool._shutdown, self._dispatcher, self._threads)

    @property
    def replaced(self) -> int:
        """Processes replaced after a timeout or crash (for logs and tests)."""
        return self._dispatcher.replaced

    def submit(self, index: int, kwargs: dict[str, Any], timeout_s: float,
               shared: tuple[str, ...] = ()) -> concurrent.futures.Future[Any]:
        """A future of the function's result, or of a :class:`CallFailed`; it never raises. The arguments named
        in ``shared`` (a tokenizer) are sent to each process once and named by a key in later calls
        (:mod:`verl_ext.reward.shared_args`)."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:  # queued under the lock: close() cannot slip its stop sentinels in before this call
            if self._closed:
                raise RuntimeError("the reward function pool is closed")
            if not self._threads:
                self._start()
            self._dispatcher.calls.put(_Call(index, self._dispatcher.specs[index].label, kwargs, timeout_s, future,
                                             shared))
        return future

    def _start(self) -> None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["verl_ext.reward.process_pool"])
        for i in range(self._processes):
            thread = threading.Thread(target=self._dispatcher.run, args=(context,), name=f"verl-ext-reward-fn-{i}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)

    def close(self) -> None:
        """Stop the dispatchers and processes (pending calls are cancelled)."""
        with self._lock:
            self._closed = True
        self._finalizer()

    @staticmethod
    def _shutdown(dispatcher: _Dispatcher, threads: list[threading.Thread]) -> None:
        dispatcher.closed = True
        while True:
            try:
                pending = dispatcher.calls.get_nowait()
            except queue.Empty:
                break
            if pending is not None:
                pending.future.cancel()
        for _ in threads:
            dispatcher.calls.put(None)
        for worker in list(dispatcher.workers):
            worker.kill()
        dispatcher.workers.clear()
