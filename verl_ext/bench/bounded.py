"""Another project's judge run over many cases in a child process with a memory and a time bound, so that a
case that makes it allocate without end (Math-Verify reached 24 GB on a hostile suite) or hang costs that
case, not the machine: the case is judged False and the child is started again after it. The child leads a
process group of its own, killed whole; the address-space bound is per process (RLIMIT_AS), so a judge that
starts processes gets it once for each."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import resource
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: Address space a child may add to what it inherits (the judge's parse trees and caches).
EXTRA_ADDRESS_SPACE = 4 << 30
#: Seconds one case may take before the child is killed and the case judged False.
CASE_TIMEOUT_S = 60.0
#: Seconds a child may take to fork and set its bound.
START_TIMEOUT_S = 60.0
#: A child's first message: its bound is set.
_READY = "ready"


def _serve(conn: multiprocessing.connection.Connection, judge: Callable[[Any], bool], cases: Sequence[Any],
           start: int, extra_bytes: int) -> None:
    os.setsid()  # a group of its own: whatever the judge starts is killed with it
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm") as f:
        inherited = int(f.read().split()[0]) * page
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = inherited + extra_bytes if hard == resource.RLIM_INFINITY else min(inherited + extra_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard if hard != resource.RLIM_INFINITY else limit))
    conn.send(_READY)
    for i in range(start, len(cases)):
        try:
            verdict = bool(judge(cases[i]))
        except MemoryError:  # the bound at work: this case only
            verdict = False
        conn.send((i, verdict))
    conn.close()


def judge_bounded(judge: Callable[[T], bool], cases: Sequence[T], *, extra_bytes: int = EXTRA_ADDRESS_SPACE,
                  case_timeout_s: float = CASE_TIMEOUT_S, on_case: Callable[[], None] | None = None) -> list[bool]:
    """``[judge(c) for c in cases]``, computed in forked children bounded by ``extra_bytes`` of address space
    beyond what they inherit and ``case_timeout_s`` per case; a case that kills or stalls its child is False.
    ``on_case`` is called once per case judged (for a progress bar)."""
    context = multiprocessing.get_context("fork")
    verdicts: list[bool] = []
    while len(verdicts) < len(cases):
        reader, writer = context.Pipe(duplex=False)
        child = context.Process(target=_serve, args=(writer, judge, cases, len(verdicts), extra_bytes), daemon=True)
        child.start()
        writer.close()
        try:
            try:
                started = reader.poll(START_TIMEOUT_S) and reader.recv() == _READY
            except EOFError:
                started = False
            if not started:  # not a case's doing: the judge cannot run here at all
                raise RuntimeError(f"the bounded judge's process did not start (exit code {child.exitcode})")
            while len(verdicts) < len(cases):
                if not reader.poll(case_timeout_s):
                    break  # a stalled case
                try:
                    _, verdict = reader.recv()
                except EOFError:
                    break  # the child died on this case
                verdicts.append(verdict)
                if on_case:
                    on_case()
        finally:
            if child.pid is not None:
                with contextlib.suppress(OSError):
                    os.killpg(child.pid, signal.SIGKILL)
            child.kill()
            child.join()
            reader.close()
        if len(verdicts) < len(cases):
            verdicts.append(False)  # the case the child did not answer
            if on_case:
                on_case()
    return verdicts
