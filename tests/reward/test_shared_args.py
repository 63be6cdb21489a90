"""Arguments sent to each reward-function process once (a reward model's tokenizer), then named by a key."""

from __future__ import annotations

import pickle
import threading
from pathlib import Path
from typing import Any

import pytest

from verl_ext.reward import process_pool
from verl_ext.reward.functions import FunctionSpec
from verl_ext.reward.runner import FunctionRunner, bind
from verl_ext.reward.shared_args import (
    MAX_SHARED,
    NotSendable,
    SharedObjects,
    WorkerObjects,
    apply_share,
    decode_kwargs,
    encode_call,
)

FNS = str(Path(__file__).parent / "fixtures" / "reward_fns.py")


class _Big:
    def __init__(self, n: int) -> None:
        self.blob = bytes(n)


def _deliver(table: SharedObjects, worker: WorkerObjects, held: dict[int, Any], kwargs: dict[str, Any]) -> Any:
    """Encode a call as the pool does, apply it as a process does; the decoded arguments."""
    encoded = encode_call(1, 0, kwargs, ("tok",), table, worker)
    for header, data in encoded.shares:
        assert apply_share(held, pickle.loads(header), data) is None
    worker.sent(encoded)
    _, _, _, data = pickle.loads(encoded.call)
    return encoded, decode_kwargs(data, held)


def test_an_object_is_sent_once_and_calls_carry_only_its_key() -> None:
    table, worker, held = SharedObjects(), WorkerObjects(), {}
    big = _Big(1 << 20)
    first, kwargs = _deliver(table, worker, held, {"tok": big, "solution_str": "x"})
    assert len(first.shares) == 1 and first.size > 1 << 20 and kwargs["tok"].blob == big.blob
    for _ in range(3):
        later, again = _deliver(table, worker, held, {"tok": big, "solution_str": "y"})
        assert not later.shares and later.size < 1024
        assert again["tok"] is kwargs["tok"]  # the process's one copy


def test_both_sides_hold_the_same_few_objects() -> None:
    """More distinct objects than MAX_SHARED: the trainer says what to drop; the process never holds more, and
    a call never names an object its process lacks."""
    table, worker, held = SharedObjects(), WorkerObjects(), {}
    objects = [_Big(i + 1) for i in range(3 * MAX_SHARED)]
    order = [*range(len(objects)), 0, 5, 5, 1, 11, 2]
    for i in order:
        _, kwargs = _deliver(table, worker, held, {"tok": objects[i]})
        assert len(kwargs["tok"].blob) == i + 1
        assert len(held) <= MAX_SHARED and set(held) == set(worker.keys)


def test_an_object_that_does_not_pickle_fails_the_call_with_the_reason() -> None:
    table = SharedObjects()
    with pytest.raises(NotSendable, match=r"tok does not pickle .*give the function kind: thread"):
        encode_call(1, 0, {"tok": threading.Lock()}, ("tok",), table, WorkerObjects())


def test_a_call_naming_an_object_its_process_lacks_fails_to_decode() -> None:
    table = SharedObjects()
    encoded = encode_call(1, 0, {"tok": _Big(3)}, ("tok",), table, WorkerObjects())
    _, _, _, data = pickle.loads(encoded.call)
    with pytest.raises(pickle.UnpicklingError, match="never sent"):
        decode_kwargs(data, {})


def test_with_a_router_auto_functions_run_in_processes_and_get_the_tokenizer(tiny_tokenizer: Any,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A reward model router (verl passes its tokenizer to every call): a synchronous `auto` function still
    runs in a killable process (third red team: it ran on trainer threads, where 8 hung calls starved later
    correct samples for ever). The tokenizer crosses once per process; a hung call is killed at its timeout
    and the samples after it score."""
    shares: list[int] = []
    real = process_pool.encode_call

    def counting(*args: Any) -> Any:
        encoded = real(*args)
        shares.extend(len(s) for s in encoded.shares)
        return encoded

    monkeypatch.setattr(process_pool, "encode_call", counting)
    [b] = bind(None, (FunctionSpec(FNS, "tokenized", timeout_s=1.0),), custom=False)
    assert b.kind == "process"
    runner = FunctionRunner([b], processes=2, dedup=False)
    router = {"reward_router_address": "127.0.0.1:1", "reward_model_tokenizer": tiny_tokenizer}
    try:
        hung = runner.score_batch([{"data_source": "d", "solution_str": "hang", "ground_truth": "1", "extra_info": None,
                                    **router}] * 10)
        scored = runner.score_batch([{"data_source": "d", "solution_str": f"answer {i}", "ground_truth": "1",
                                      "extra_info": None, **router} for i in range(20)])
    finally:
        runner.close()
    assert all(s.failures and "timed out" in s.failures[0].message for s in hung)
    assert all(not s.failures and s.result["score"] == 1.0 and s.result["tokens"] > 0 for s in scored)
    pids = {s.result["pid"] for s in scored}
    # One share per process that ever ran a call (each hung call's process was replaced): never one per call.
    assert len(shares) <= len(hung) + len(pids) < len(hung) + len(scored)


def test_a_share_sent_to_many_processes_copies_no_pickle() -> None:
    """Red team 5: each process's share message held a copy of the cached pickle (a 300 MB tokenizer and 2
    processes: 900 MB more at peak). The message now carries the cached bytes themselves."""
    import tracemalloc

    table = SharedObjects()
    big = _Big(32 << 20)
    _, cached = table.entry(big)
    tracemalloc.start()
    try:
        encoded = [encode_call(1, 0, {"tok": big}, ("tok",), table, WorkerObjects()) for _ in range(2)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(e.shares[0][1] is cached for e in encoded)
    assert peak < 1 << 20, peak


class _HangsAsItLoads:
    """A tokenizer-like argument whose unpickling in the worker sleeps for an hour."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        import time

        return time.sleep, (3600,)


class _ExitsAsItLoads:
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        import os

        return os._exit, (9,)


class _RaisesAsItLoads:
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return int, ("not a number",)


@pytest.mark.parametrize(("obj", "reason", "replaced"), [
    (_HangsAsItLoads(), "did not load within 2 s", 1),
    (_ExitsAsItLoads(), "ended the process (exit code 9)", 1),
    (_RaisesAsItLoads(), "ValueError", 0),
])
def test_a_shared_argument_that_does_not_load_fails_its_calls_at_once(monkeypatch: pytest.MonkeyPatch, obj: Any,
                                                                      reason: str, replaced: int) -> None:
    """Red team 5: a share whose unpickling hung held every call's dispatcher for 120 s whatever its timeout
    (and the next batch too); one that killed its process cost a process per call. The wait is bounded (the
    larger of the call's timeout and SHARE_LOAD_S) and the object is remembered as not loading: later calls
    fail at once, with the reason."""
    import time

    monkeypatch.setattr(process_pool, "SHARE_LOAD_S", 2.0)
    pool = process_pool.FunctionPool([FunctionSpec(FNS, "tokenized")], processes=1)
    kwargs = {"data_source": "d", "solution_str": "x", "ground_truth": "1", "extra_info": None,
              "reward_model_tokenizer": obj}
    try:
        started = time.monotonic()
        first = pool.submit(0, kwargs, 1.0, ("reward_model_tokenizer",)).result(timeout=60)
        assert isinstance(first, process_pool.CallFailed), first
        assert "reward_model_tokenizer does not load in a worker process" in first.message and reason in first.message
        assert "kind: thread" in first.message
        assert time.monotonic() - started < 40  # 2 s, on a loaded machine: not START_TIMEOUT_S
        started = time.monotonic()
        later = [pool.submit(0, kwargs, 1.0, ("reward_model_tokenizer",)).result(timeout=60) for _ in range(3)]
        assert time.monotonic() - started < 5  # no process loads it again
        assert all(isinstance(r, process_pool.CallFailed) and reason in r.message for r in later), later
        assert pool.replaced == replaced
        ok = pool.submit(0, {**kwargs, "reward_model_tokenizer": _Tokenizer()}, 60.0,
                         ("reward_model_tokenizer",)).result(timeout=300)
        assert isinstance(ok, dict) and ok["tokens"] == 1, ok
    finally:
        pool.close()


class _Tokenizer:
    def __call__(self, text: str) -> dict[str, list[int]]:
        return {"input_ids": [len(text)]}
