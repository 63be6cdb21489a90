"""Stand-ins for the GPU rig of ``verl-ext bench`` (``verl_ext.bench.gpu_timing.Rig``), so the benches' GPU
paths run whole on CPU tensors: a timer whose device and eager figures differ on purpose, and a memory probe
that measures peaks of CPU tensors."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.ops.live_bytes import LiveBytes
from verl_ext.bench import gpu_timing
from verl_ext.bench.gpu_timing import CUDA_GRAPH, PROFILER, Rig

#: The stand-in's eager time is the call's wall time plus this launch overhead (ms); its device time is the wall
#: time alone, so a figure taken from the wrong one shows.
LAUNCH_MS = 5.0


@dataclass
class StandInTimer:
    """Calls ``fn`` as the CUDA timer does (a warm-up, the timed calls, the captured calls). Eager: wall time
    plus :data:`LAUNCH_MS`; device: 1 us for the first measurement, 2 us for the second, ... (deterministic,
    distinct, and far below any eager figure). ``graph_fails`` makes every capture fail as a host read under
    capture does."""

    graph_fails: bool = False
    methods: list[str] = field(default_factory=list)

    def _device_ms(self, fn: Callable[[], Any], calls: int) -> float:
        for _ in range(calls):
            fn()
        return 1e-3 * len(self.methods)

    def eager_ms(self, fn: Callable[[], Any], repeats: int, budget_s: float) -> list[float]:
        fn()
        times = []
        for _ in range(min(repeats, gpu_timing.MIN_EAGER_REPEATS)):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3 + LAUNCH_MS)
        return times

    def graph_ms(self, fn: Callable[[], Any], calls: int, replays: int) -> float:
        self.methods.append(CUDA_GRAPH)
        if self.graph_fails:
            fn()
            raise RuntimeError("CUDA error: operation not permitted when stream is capturing")
        return self._device_ms(fn, calls)

    def profiler_ms(self, fn: Callable[[], Any], calls: int) -> float:
        self.methods.append(PROFILER)
        return self._device_ms(fn, calls)


@dataclass
class StandInMemory:
    """Free memory as told; peaks measured by :class:`LiveBytes` on CPU tensors."""

    free: int = 1 << 40
    releases: int = 0

    def free_bytes(self) -> int:
        return self.free

    def peak_extra_bytes(self, fn: Callable[[], Any]) -> int:
        with LiveBytes() as live:
            fn()
        return live.peak

    def release(self) -> None:
        self.releases += 1


def cpu_rig(**timer: Any) -> Rig:
    return Rig(device="cpu", timer=StandInTimer(**timer), memory=StandInMemory(), backend="torch", name="cpu")
