"""Run a sample through the user's reward functions: all of them at once, each where its ``kind`` says.

``process`` functions go to a :class:`~verl_ext.reward.process_pool.FunctionPool`, ``thread`` functions
to a thread pool, ``async`` functions are awaited on the caller's event loop (all at once, as verl's naive
manager does, or at most ``function_concurrency`` calls in flight per loop when set). Every call has its
function's timeout. Samples with the same ``(data_source, solution_str, ground_truth, extra_info)`` in flight
at the same time are scored once (GRPO groups repeat answers).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import pickle
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verl_ext.exceptions import describe
from verl_ext.reward.functions import FunctionSpec, combine, normalized
from verl_ext.reward.process_pool import CallFailed, FunctionPool

__all__ = ["BoundFunction", "FunctionRunner", "RateLimits", "Scored", "bind"]

logger = logging.getLogger(__name__)

#: Failures logged per runner (then they are only counted in ``unscorable``).
MAX_FAILURE_WARNINGS = 10
#: Keywords verl adds to every reward-function call when a reward model router is configured.
ROUTER_KEYWORDS = ("reward_router_address", "reward_model_tokenizer")
#: Arguments a process receives once and keeps (a tokenizer is megabytes): see ``shared_args``.
SENT_ONCE = ("reward_model_tokenizer",)
#: Hung ``thread`` calls tolerated per thread slot before new ones fail at once.
MAX_ABANDONED_PER_SLOT = 4


@dataclass(frozen=True)
class BoundFunction:
    """A function, its spec, and where it runs (``process``, ``thread`` or ``async``)."""

    spec: FunctionSpec
    fn: Callable[..., Any]
    kind: str


@dataclass(frozen=True)
class RateLimits:
    """verl's ``rate_limited`` manager's limits for remote judges, under its names (``reward.max_rpm``,
    ``reward.max_tpm``, ``reward.estimated_tokens_per_request``), applied to ``async`` functions."""

    max_rpm: float | None = None
    max_tpm: float | None = None
    estimated_tokens_per_request: float = 2000.0

    @classmethod
    def from_reward_config(cls, reward: Any) -> RateLimits | None:
        get = reward.get if hasattr(reward, "get") else (lambda _k, d=None: d)
        rpm, tpm = get("max_rpm", None), get("max_tpm", None)
        if rpm is None and tpm is None:
            return None
        limits = cls(rpm, tpm, float(get("estimated_tokens_per_request", 2000) or 2000))
        for name, value in (("max_rpm", rpm), ("max_tpm", tpm)):
            if value is not None and not (isinstance(value, (int, float)) and value > 0):
                from verl_ext.exceptions import ConfigError

                raise ConfigError(f"reward.{name}", f"expected a number > 0, got {value!r}")
        return limits

    def buckets(self) -> list[tuple[Any, float]]:
        """(verl's token bucket, tokens per call) for each limit, for one event loop."""
        from verl.experimental.reward_loop.reward_manager.limited import AsyncTokenBucket

        out = []
        if self.max_rpm is not None:
            out.append((AsyncTokenBucket(rate_limit=self.max_rpm / 60, max_tokens=self.max_rpm / 60), 1.0))
        if self.max_tpm is not None:
            out.append((AsyncTokenBucket(rate_limit=self.max_tpm / 60, max_tokens=self.max_tpm / 60),
                        self.estimated_tokens_per_request))
        return out


@dataclass(frozen=True)
class Scored:
    """One sample's combined result, and the calls that failed (their scores count as 0.0)."""

    result: Any
    failures: tuple[CallFailed, ...] = ()


class FunctionRunner:
    """Scores samples with a list of reward functions; see the module docstring.

    ``processes`` and ``threads`` size the pools (started on first use), ``concurrency`` bounds async
    calls per event loop (0: no bound), ``dedup`` turns on scoring repeated samples once.
    """

    def __init__(self, functions: Sequence[BoundFunction], *, processes: int = 1, threads: int = 4,
                 concurrency: int = 0, dedup: bool = True, rate_limits: RateLimits | None = None) -> None:
        if not functions:
            raise ValueError("FunctionRunner needs at least one function")
        self.functions = tuple(functions)
        self.specs = tuple(f.spec for f in functions)
        # verl passes a reward-model router's keywords to every function; one that does not take them would
        # fail on each call, so they go only where the signature accepts them.
        self._drop = tuple(frozenset(k for k in ROUTER_KEYWORDS if not _accepts(f.fn, k)) for f in functions)
        self._processes = processes
        self._threads = threads
        self._concurrency = concurrency
        self._dedup = dedup
        self._pool: FunctionPool | None = None
        self._lock = threading.Lock()
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
            weakref.WeakKeyDictionary()
        self._thread_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
            weakref.WeakKeyDictionary()
        self._abandoned = 0
        # Per pool: process calls awaited now, and how many of those were cancelled.
        self._flight: dict[FunctionPool, list[int]] = {}
        self._rate_limits = rate_limits
        self._buckets: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[tuple[Any, float]]] = \
            weakref.WeakKeyDictionary()
        self._inflight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, asyncio.Future[Scored]]] = \
            weakref.WeakKeyDictionary()
        self._warned = 0

    async def score(self, data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any,
                    **extra: Any) -> Scored:
        """All functions on one sample, combined (:func:`~verl_ext.reward.functions.combine`)."""
        kwargs = {"data_source": data_source, "solution_str": solution_str, "ground_truth": ground_truth,
                  "extra_info": extra_info, **extra}
        key = _dedup_key(data_source, solution_str, ground_truth, extra_info) if self._dedup else None
        if key is None:
            return await self._score(kwargs)
        loop = asyncio.get_running_loop()
        inflight = self._inflight.setdefault(loop, {})
        shared = inflight.get(key)
        if shared is not None:
            return await asyncio.shield(shared)  # a cancelled duplicate leaves the shared result alone
        # The first caller scores; duplicates arriving meanwhile wait on its future.
        future: asyncio.Future[Scored] = loop.create_future()
        inflight[key] = future
        try:
            scored = await self._score(kwargs)
        except BaseException:
            future.cancel()  # duplicates see CancelledError; their own awaiting tasks decide what that means
            raise
        finally:
            inflight.pop(key, None)
        future.set_result(scored)
        return scored

    def score_batch(self, calls: Sequence[Mapping[str, Any]]) -> list[Scored]:
        """:meth:`score` on each mapping of keyword arguments, all concurrently, from synchronous code.

        Ctrl-C (or SystemExit) while it waits stops the batch at once: the processes running its calls are
        killed (the next batch starts fresh ones), its async calls are cancelled, and the interrupt propagates.
        Only ``thread`` calls cannot be stopped (they run on until they return)."""
        running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []

        async def gather() -> list[Scored]:
            task = asyncio.current_task()
            if task is not None:
                running.append((asyncio.get_running_loop(), task))
            return list(await asyncio.gather(*(self.score(**c) for c in calls)))

        # A private loop on a private daemon thread: the caller may itself be inside a running loop, and a
        # call that never ends must not hold the interpreter at exit.
        done: concurrent.futures.Future[list[Scored]] = concurrent.futures.Future()
        _daemon(lambda: _settle_future(done, lambda: asyncio.run(gather())), "verl-ext-reward-fn-loop")
        try:
            return done.result()
        except BaseException as e:
            if not isinstance(e, Exception):
                self._stop(running)
            raise

    def _stop(self, running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]]) -> None:
        """Stop an interrupted batch: kill the pool's processes (and so the calls they run), cancel the rest."""
        self._close_pool(self._pool)
        for loop, task in running:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(task.cancel)

    async def _score(self, kwargs: dict[str, Any]) -> Scored:
        if len(self.functions) == 1:  # the common case: no gather (a task per call) on the hot path
            results = [await self._call(0, self.functions[0], kwargs)]
        else:
            results = await asyncio.gather(*(self._call(i, f, kwargs) for i, f in enumerate(self.functions)))
        failures = tuple(r for r in results if isinstance(r, CallFailed))
        for failure in failures:
            self._warn(failure)
        scores = [0.0 if isinstance(r, CallFailed) else r for r in results]
        return Scored(combine(self.specs, scores), failures)

    async def _call(self, index: int, bound: BoundFunction, kwargs: dict[str, Any]) -> Any:
        spec = bound.spec
        call = {k: v for k, v in kwargs.items() if k not in self._drop[index]}
        call.update(spec.kwargs)
        try:
            if bound.kind == "process":
                result = await self._in_process(index, call, spec.timeout_s)
            elif bound.kind == "thread":
                result = await self._in_thread(bound, call)
            else:
                await self._rate_limit()
                if self._concurrency:
                    async with self._semaphore(self._concurrency):
                        result = await _within(bound.fn(**call), spec.timeout_s)
                else:
                    result = await _within(bound.fn(**call), spec.timeout_s)
        except asyncio.TimeoutError:
            return CallFailed(spec.label, f"timed out after {spec.timeout_s:g} s")
        except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's function raised: scored 0 or re-raised
            return CallFailed(spec.label, describe(e), raised=True)
        if isinstance(result, CallFailed):
            return result
        try:
            return normalized(result)
        except Exception as e:  # noqa: BLE001 - any odd result (a huge int, a str, NaN) fails this call only
            return CallFailed(spec.label, describe(e, 500), raised=True)

    async def _in_process(self, index: int, call: dict[str, Any], timeout_s: float) -> Any:
        """A call in the pool. When every call in flight was cancelled (Ctrl-C in verl's reward loop: asyncio.run
        cancels every task, then waits), nobody waits for their results: the pool's processes are killed."""
        pool = self._ensure_pool()
        future = pool.submit(index, call, timeout_s, SENT_ONCE)
        with self._lock:
            counts = self._flight.setdefault(pool, [0, 0])
            counts[0] += 1
        cancelled = False
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancelled = True
            with self._lock:
                counts[1] += 1
                abandoned = counts[1] >= counts[0]
            if abandoned:  # that pool only: a cancel that comes late must not kill the next batch's pool
                self._close_pool(pool)
            raise
        finally:
            with self._lock:
                counts[0] -= 1
                counts[1] -= cancelled
                if counts[0] == 0:
                    self._flight.pop(pool, None)

    def _close_pool(self, pool: FunctionPool | None) -> None:
        """Kill ``pool``'s processes; the next call starts a new pool if it was the current one."""
        if pool is None:
            return
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.close()

    async def _in_thread(self, bound: BoundFunction, call: dict[str, Any]) -> Any:
        """Run a ``thread`` function on a daemon thread of its own once one of ``threads`` slots is free; its
        timeout counts from the start. A thread that times out cannot be stopped: it is abandoned (it holds no
        slot), and past ``MAX_ABANDONED_PER_SLOT`` x threads abandoned ones new calls fail at once."""
        if self._abandoned >= MAX_ABANDONED_PER_SLOT * self._threads:
            return CallFailed(bound.spec.label, f"{self._abandoned} earlier calls still hang in their threads; "
                              "not starting another")
        async with self._semaphore(self._threads, threads=True):
            done: concurrent.futures.Future[Any] = concurrent.futures.Future()
            _daemon(lambda: _settle_future(done, lambda: bound.fn(**call)), "verl-ext-reward-fn")
            try:
                return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(done)), bound.spec.timeout_s)
            except asyncio.TimeoutError:
                self._abandoned += 1
                done.add_done_callback(self._reclaim)
                raise

    def _reclaim(self, _: Any) -> None:
        with self._lock:
            self._abandoned -= 1

    async def _rate_limit(self) -> None:
        """Wait for the request and token buckets, as verl's ``rate_limited`` manager does before each call."""
        if self._rate_limits is None:
            return
        loop = asyncio.get_running_loop()
        buckets = self._buckets.get(loop)
        if buckets is None:
            buckets = self._buckets[loop] = self._rate_limits.buckets()
        for bucket, tokens in buckets:
            await bucket.acquire(tokens)

    def _semaphore(self, size: int, threads: bool = False) -> asyncio.Semaphore:
        """This event loop's bound of async calls (or of thread calls) in flight."""
        semaphores = self._thread_slots if threads else self._semaphores
        loop = asyncio.get_running_loop()
        sem = semaphores.get(loop)
        if sem is None:
            sem = semaphores[loop] = asyncio.Semaphore(size)
        return sem

    def _ensure_pool(self) -> FunctionPool:
        with self._lock:
            if self._pool is None:
                self._pool = FunctionPool(self.specs, self._processes)
            return self._pool

    def _warn(self, failure: CallFailed) -> None:
        self._warned += 1
        if self._warned <= MAX_FAILURE_WARNINGS:
            logger.warning("verl_ext: reward function %r failed (its score counts as 0.0): %s", failure.label,
                           failure.message[:2000])

    @property
    def replaced_processes(self) -> int:
        """Worker processes replaced so far after a timeout or crash (for logs and tests)."""
        return self._pool.replaced if self._pool is not None else 0

    def close(self) -> None:
        """Stop the process and thread pools (a runner is otherwise reused for the life of its worker)."""
        if self._pool is not None:
            self._pool.close()


async def _within(coroutine: Any, timeout_s: float) -> Any:
    """``await coroutine`` with a timeout the function cannot defeat: it runs as a task that is cancelled and
    abandoned at the deadline (a function that swallows the cancellation keeps running, unawaited), and a
    result that comes late (the function blocked the loop) is a timeout too."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    task = loop.create_task(_contained(coroutine))
    done, _ = await asyncio.wait({task}, timeout=timeout_s)
    if not done or loop.time() - start > timeout_s:
        task.cancel()
        task.add_done_callback(_retrieve)
        raise asyncio.TimeoutError
    return task.result()


async def _contained(coroutine: Any) -> Any:
    """A task that raises SystemExit stops the whole event loop; the function's own one is its failure."""
    try:
        return await coroutine
    except SystemExit as e:
        raise RuntimeError(describe(e)) from None


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Consume an abandoned task's outcome (no 'exception was never retrieved' noise)."""
    if not task.cancelled():
        task.exception()


def _daemon(target: Callable[[], None], name: str) -> None:
    threading.Thread(target=target, name=name, daemon=True).start()


def _settle_future(future: concurrent.futures.Future[Any], fn: Callable[[], Any]) -> None:
    """Run ``fn`` and put its result or exception (any, even SystemExit) in ``future``."""
    try:
        result = fn()
    except BaseException as e:  # noqa: BLE001 - handed to whoever awaits the future
        future.set_exception(e)
    else:
        future.set_result(result)


def _dedup_key(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any) -> Any:
    """The sample's identity, compared in full (no hash-only matching); None when it cannot be formed.
    ``extra_info`` is part of it: the functions may read it (GRPO's samples of one prompt share it)."""
    try:
        return (pickle.dumps(data_source), solution_str, pickle.dumps(ground_truth), pickle.dumps(extra_info))
    except Exception:  # noqa: BLE001 - an odd ground truth is simply not deduplicated
        return None


def bind(compute_score: Any, functions: Sequence[FunctionSpec], *, custom: bool,
         custom_spec: FunctionSpec | None = None) -> list[BoundFunction]:
    """The functions a manager runs: the ``compute_score`` verl hands it when it is the user's
    ``custom_reward_function`` (``custom``), then ``reward_kwargs.functions``, each loaded and checked.

    verl wraps a custom function as ``partial(_call_with_kwargs, raw_fn, reward_kwargs)``; worker processes
    import it by ``custom_spec`` (the config's path and name), or else by the function's own file and name.
    A callable they cannot import runs in this process (threads, or the event loop when it is a coroutine
    function), with a warning: nothing bounds a thread that hangs or holds the GIL. With a reward-model router
    synchronous functions still run in processes: the tokenizer verl passes is sent to each process once
    (:mod:`verl_ext.reward.shared_args`).
    """
    from verl_ext.exceptions import ConfigError
    from verl_ext.reward.functions import custom_label, load_function, resolve_kind

    bound: list[BoundFunction] = []
    if custom and compute_score is not None:
        raw, kwargs = _unwrap(compute_score)
        spec = custom_spec
        if spec is None:  # the legacy manager sees only the callable: its file and name, if they import it again
            path = _source_file(raw) if raw is not compute_score else None
            name = getattr(raw, "__name__", "compute_score")
            name = name if name.isidentifier() else "compute_score"
            spec = FunctionSpec(path=path or "", name=name, label=custom_label(name), kwargs=kwargs)
        kind = resolve_kind(spec, raw, "reward.custom_reward_function")
        if kind == "process" and not _importable(spec):
            kind = "thread"  # cannot be imported in a worker process (a closure, a factory's function)
            logger.warning("verl_ext: the custom reward function %r cannot be imported by a worker process, so it "
                           "runs in threads of this process, where a call that hangs or holds the GIL is not "
                           "bounded by its timeout; define it at the top level of its file", spec.name)
        bound.append(BoundFunction(spec, raw, kind))
    for i, spec in enumerate(functions):
        where = f"reward.reward_kwargs.functions[{i}]"
        fn = load_function(spec, where)
        bound.append(BoundFunction(spec, fn, resolve_kind(spec, fn, where)))
    labels = [b.spec.label for b in bound]
    if len(set(labels)) != len(labels):
        raise ConfigError("reward.reward_kwargs.functions", f"labels {labels} repeat; give each function a distinct "
                          "label (the custom_reward_function is labelled by its name)")
    return bound


def _unwrap(compute_score: Any) -> tuple[Any, dict[str, Any]]:
    """(raw function, its configured kwargs) of verl's custom-function wrapper, else (compute_score, {})."""
    if isinstance(compute_score, functools.partial) and len(compute_score.args) == 2 \
            and getattr(compute_score.func, "__name__", "") in ("_call_with_kwargs", "_call_with_kwargs_async") \
            and isinstance(compute_score.args[1], Mapping):
        return compute_score.args[0], dict(compute_score.args[1])
    return compute_score, {}


def _accepts(fn: Any, keyword: str) -> bool:
    """Can ``fn`` be called with ``keyword=...`` (a named parameter or ``**kwargs``)? Unknown: yes."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_KEYWORD or (p.name == keyword and p.kind is not p.POSITIONAL_ONLY) for p in params)


def _importable(spec: FunctionSpec) -> bool:
    """Does ``spec`` import its function here (as a worker process would)? A factory-made function, or one
    whose module uses relative imports outside its package, does not: it stays in this process."""
    from verl_ext.exceptions import ConfigError
    from verl_ext.reward.functions import load_function

    if not spec.path:
        return False
    try:
        load_function(spec)
    except ConfigError:
        return False
    return True


def _source_file(fn: Any) -> str | None:
    import inspect

    try:
        path = inspect.getsourcefile(fn)
    except TypeError:
        return None
    return path if path and path.endswith(".py") else None
