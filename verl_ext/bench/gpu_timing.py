"""How ``bench logprob`` and ``bench sampling`` time a call and probe memory on a GPU, injected so that tests
run the benches' whole GPU code path on CPU tensors with a stand-in.

Every call is timed two ways (:func:`time_call`):

* **device time** (goals are judged on it): what the GPU spends per call. ``calls`` calls are captured in one
  CUDA graph, the graph is replayed, and the median replay divided by ``calls`` counts: launch overhead and
  Python are gone, the gaps between the kernels of a call stay. A call that cannot be captured (it reads a
  value back to the host, reads a generator's state, synchronises) falls back to the profiler: the sum of the
  durations of its kernels, memory copies and sets (``torch.profiler``, CUDA activity) over ``calls`` calls,
  which counts no gap at all. The row records which method gave the figure and why the graph was not used.
* **eager time**: what a Python caller waits per call, launches included: CUDA events around each call
  (after one warm-up call), median of up to ``repeats`` calls within a time budget.

A :class:`Rig` bundles the device tensors are made on, the :class:`Timer`, the :class:`MemoryProbe` and the
kernel backend verl-ext's ops are asked for; :func:`cuda_rig` is the real one. Tests pass a rig with
``device="cpu"``, ``backend="torch"`` and stand-ins that call the function and return figures of their own.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any, Literal, Protocol

#: Calls captured in one CUDA graph for calls of a few microseconds (sampling); fewer for slow calls, so
#: one graph holds about :data:`GRAPH_WORK_US` of work (a 100 ms call is captured alone).
GRAPH_CALLS = 20
GRAPH_WORK_US = 5000.0
#: Timed replays of a graph; their median counts.
GRAPH_REPLAYS = 5
#: Eager repeats are cut short by a time budget, but never below this many.
MIN_EAGER_REPEATS = 3
#: Device-time methods, as recorded in the results.
CUDA_GRAPH, PROFILER, UNMEASURED = "cuda_graph", "profiler", "unmeasured"


class Timer(Protocol):
    """Runs ``fn`` (a call with no arguments whose work is queued on the device) and times it."""

    def eager_ms(self, fn: Callable[[], Any], repeats: int, budget_s: float) -> list[float]:
        """One warm-up call, then per-call milliseconds of up to ``repeats`` calls (at least
        :data:`MIN_EAGER_REPEATS`; stops once ``budget_s`` seconds have passed)."""
        ...

    def graph_ms(self, fn: Callable[[], Any], calls: int, replays: int) -> float:
        """Milliseconds per call from ``calls`` calls captured in one graph, median of ``replays`` replays;
        raises when ``fn`` cannot be captured."""
        ...

    def profiler_ms(self, fn: Callable[[], Any], calls: int) -> float:
        """Milliseconds per call: the device's kernel time over ``calls`` calls, by the profiler."""
        ...


class MemoryProbe(Protocol):
    def free_bytes(self) -> int:
        """Bytes the device can still allocate (call :meth:`release` first for a figure without the cache)."""
        ...

    def peak_extra_bytes(self, fn: Callable[[], Any]) -> int:
        """Peak bytes allocated during one call of ``fn`` above what was allocated before it."""
        ...

    def release(self) -> None:
        """Give cached, unused memory back (after a row, and after an out-of-memory error)."""
        ...


@dataclasses.dataclass(frozen=True)
class Rig:
    """Where and how a bench's GPU path runs: tensors on ``device``, verl-ext's ops with ``backend``."""

    device: str
    timer: Timer
    memory: MemoryProbe
    backend: Literal["triton", "torch"] = "triton"
    #: The device's name as it reports it (``torch.cuda.get_device_name()``), for bandwidth floors.
    name: str = ""


@dataclasses.dataclass(frozen=True)
class Timing:
    """One call's two figures, in microseconds."""

    #: Device time per call (``None`` when neither method could measure it; ``fallback`` says why).
    device_us: float | None
    #: :data:`CUDA_GRAPH`, :data:`PROFILER` or :data:`UNMEASURED`.
    device_method: str
    #: Calls per graph (or per profiled run) the device time is divided by.
    calls: int
    #: Median eager time per call (CUDA events).
    eager_us: float
    eager_repeats: int
    #: Why the graph was not used, when it was not.
    fallback: str | None = None

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        if d["fallback"] is None:
            del d["fallback"]
        return d


def graph_calls(eager_us: float, most: int = GRAPH_CALLS) -> int:
    """Calls to capture in one graph: ``most`` for short calls, fewer so a graph holds about
    :data:`GRAPH_WORK_US` of work, at least one."""
    if not eager_us > 0:
        return most
    return max(1, min(most, math.ceil(GRAPH_WORK_US / eager_us)))


def _why(e: BaseException) -> str:
    """An exception as one short line, with the one it replaced (a failed capture's own error is often the
    context of the error ending the capture)."""
    text = f"{type(e).__name__}: {e}"
    if e.__context__ is not None and e.__context__ is not e:
        text += f" (after {type(e.__context__).__name__}: {e.__context__})"
    return " ".join(text.split())[:300]


def time_call(rig: Rig, fn: Callable[[], Any], *, repeats: int, budget_s: float, most_calls: int = GRAPH_CALLS,
              key: str = "", no_graph: dict[str, str] | None = None) -> Timing:
    """Eager time of ``fn``, then its device time by graph replay, or by the profiler where the graph fails.

    ``no_graph`` remembers, per ``key`` (a contender), why its capture failed, so later sizes of the same
    contender go straight to the profiler. An out-of-memory error of the eager calls propagates (the caller
    may step the size down); one of the graph falls back to the profiler like any other capture failure.
    """
    eager = rig.timer.eager_ms(fn, repeats, budget_s)
    eager_us = 1e3 * statistics.median(eager)
    calls = graph_calls(eager_us, most_calls)
    memo = {} if no_graph is None else no_graph
    reason = memo.get(key)
    if reason is None:
        try:
            graph_us = 1e3 * rig.timer.graph_ms(fn, calls, GRAPH_REPLAYS)
        except Exception as e:  # noqa: BLE001 - any capture failure falls back to the profiler, and is recorded
            reason = memo[key] = f"not capturable: {_why(e)}"
        else:
            return Timing(graph_us, CUDA_GRAPH, calls, eager_us, len(eager))
        rig.memory.release()
    try:
        prof_us = 1e3 * rig.timer.profiler_ms(fn, calls)
    except Exception as e:  # noqa: BLE001 - the row keeps its eager time and says why there is no device time
        return Timing(None, UNMEASURED, calls, eager_us, len(eager), f"{reason}; profiler: {_why(e)}")
    return Timing(prof_us, PROFILER, calls, eager_us, len(eager), reason)


def is_out_of_memory(e: BaseException) -> bool:
    import torch

    return isinstance(e, torch.cuda.OutOfMemoryError)


def step_down(measure: Callable[[int], dict[str, Any]], n: int, *, least: int, memory: MemoryProbe,
              what: str) -> dict[str, Any]:
    """``measure(n)``, halving ``n`` after each out-of-memory error down to ``least``: the result gets ``n``
    and, when stepped down, ``stepped_down_from`` (also printed). Any other error, or memory still short at
    ``least``, gives ``{"n": ..., "error": why}``: one contender never ends the bench."""
    start = n
    while True:
        try:
            row = measure(n)
        except Exception as e:  # noqa: BLE001 - the row says why; the bench goes on
            error, oom = _why(e), is_out_of_memory(e)
        else:
            row = {"n": n, **({"stepped_down_from": start} if n != start else {}), **row}
            return row
        # Out of the except block: the traceback (and the tensors its frames hold) is gone before the release.
        memory.release()
        if not oom or n // 2 < least:
            return {"n": n, "error": error if not oom else f"out of memory down to N={n}: {error}"}
        print(f"  {what}: out of memory at N={n}; stepping down to N={n // 2}")
        n //= 2


# ------------------------------------------------------------------------------------------------ CUDA
class CudaTimer:
    """:class:`Timer` on the current CUDA device and stream."""

    def eager_ms(self, fn: Callable[[], Any], repeats: int, budget_s: float) -> list[float]:
        import torch

        fn()
        torch.cuda.synchronize()
        times: list[float] = []
        t0 = time.perf_counter()
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
            if len(times) >= MIN_EAGER_REPEATS and time.perf_counter() - t0 > budget_s:
                break
        return times

    def graph_ms(self, fn: Callable[[], Any], calls: int, replays: int) -> float:
        import torch

        # Warm-up on a side stream, as torch's CUDA-graph notes ask (lazy initialisation, autograd's streams).
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                for _ in range(calls):
                    fn()
            graph.replay()  # untimed: the first replay uploads the graph
            torch.cuda.synchronize()
            times = []
            for _ in range(replays):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                graph.replay()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
        finally:
            del graph  # its memory pool goes with it
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        return statistics.median(times) / calls

    def profiler_ms(self, fn: Callable[[], Any], calls: int) -> float:
        import torch
        from torch.profiler import ProfilerActivity, profile

        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
        us = kernel_us(prof.events())
        if us <= 0:
            raise RuntimeError("the profiler recorded no kernel time (is CUPTI available?)")
        return us / 1e3 / calls


def kernel_us(events: Iterable[Any]) -> float:
    """Microseconds of device activity among profiler events: kernels, memory copies and sets (the events whose
    device type is CUDA, user annotations left out), as the profiler's own "Self CUDA time total" counts."""
    from torch.autograd import DeviceType

    return float(sum(e.self_device_time_total for e in events
                     if e.device_type == DeviceType.CUDA and not getattr(e, "is_user_annotation", False)))


class CudaMemory:
    """:class:`MemoryProbe` of the current CUDA device (torch's caching allocator)."""

    def free_bytes(self) -> int:
        import torch

        return int(torch.cuda.mem_get_info()[0])

    def peak_extra_bytes(self, fn: Callable[[], Any]) -> int:
        import torch

        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        fn()
        torch.cuda.synchronize()
        return int(torch.cuda.max_memory_allocated() - base)

    def release(self) -> None:
        import torch

        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def cuda_rig() -> Rig:
    """The real rig: the current CUDA device, CUDA graphs / events / profiler, the caching allocator's
    figures, verl-ext's Triton kernels."""
    import torch

    return Rig(device="cuda", timer=CudaTimer(), memory=CudaMemory(), backend="triton",
               name=torch.cuda.get_device_name())
