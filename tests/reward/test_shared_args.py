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
    for share in encoded.shares:
        apply_share(held, pickle.loads(share))
    worker.sent(encoded)
    _, _, _, data = pickle.loads(encoded.call)
    return encoded, decode_kwargs(data, held)


def test_an_object_is_sent_once_and_calls_carry_only_its_key() -> None:
    table, worker, held = SharedObjects(), WorkerObjects(), {}
    big = _Big(1 << 20)
    first, kwargs = _deliver(table, worker, held, {"tok": big, "solution_str": "x"})
    assert len(first.shares) == 1 and len(first.shares[0]) > 1 << 20 and kwargs["tok"].blob == big.blob
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
    with pytest.raises(NotSendable, match=r"tok does not pickle .*kind: thread"):
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
