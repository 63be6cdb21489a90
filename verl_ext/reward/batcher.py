"""Coalesce concurrent awaits into batches processed off the event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["MicroBatcher"]

T = TypeVar("T")
R = TypeVar("R")


class MicroBatcher(Generic[T, R]):
    """Collects items submitted during one event-loop iteration and runs ``process`` on them in a thread.

    verl's reward loop starts one ``run_single`` task per sample with ``asyncio.gather``; each task
    submits here before its first real await, so a whole chunk reaches ``process`` as one batch. The
    event loop never blocks: ``process`` runs in ``executor`` (the loop's default when None).
    ``process`` must return one result per item, in order. ``on_abandoned`` is called when every task
    awaiting a running batch was cancelled (Ctrl-C: ``asyncio.run`` cancels them all, then waits for the
    executor's thread), to stop the work nobody waits for.
    """

    def __init__(
        self,
        process: Callable[[list[T]], Sequence[R]],
        *,
        max_batch: int = 4096,
        executor: concurrent.futures.Executor | None = None,
        on_abandoned: Callable[[], None] | None = None,
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        self._process = process
        self._max_batch = max_batch
        self._executor = executor
        self._on_abandoned = on_abandoned
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[T, asyncio.Future[R]]]] = {}

    async def submit(self, item: T) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        pending = self._pending.get(loop)
        if pending is None:
            pending = self._pending[loop] = []
            loop.call_soon(self._flush, loop)
        pending.append((item, future))
        if len(pending) >= self._max_batch:
            self._flush(loop)
        return await future

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        batch = self._pending.pop(loop, None)
        if not batch:
            return
        items = [item for item, _ in batch]
        futures = [future for _, future in batch]
        work = loop.run_in_executor(self._executor, self._process, items)

        def deliver(done: asyncio.Future[Sequence[R]]) -> None:
            error = done.exception()
            results: Sequence[R] = () if error is not None else done.result()
            if error is None and len(results) != len(futures):
                error = RuntimeError(f"batch processor returned {len(results)} results for {len(futures)} items")
            for i, future in enumerate(futures):
                if future.done():  # cancelled by its awaiting task
                    continue
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(results[i])

        work.add_done_callback(deliver)
        if self._on_abandoned is not None:
            hook = self._on_abandoned

            def abandoned(_: asyncio.Future[R]) -> None:
                if not work.done() and all(f.cancelled() for f in futures):
                    hook()

            for future in futures:
                future.add_done_callback(abandoned)
