"""Call arguments sent to each worker process once, then named by a key: a reward model's tokenizer.

verl passes ``reward_model_tokenizer`` (an object of megabytes) to every reward-function call when a reward
model router is configured. Pickling it into each call would cost milliseconds per sample, so the pool
pickles each such object once, sends it to a process before the first call that needs it, and the call
itself carries only its key (pickle's persistent ids). Each side holds at most :data:`MAX_SHARED` objects;
the trainer decides which a process drops, so both sides always agree on what it holds.
"""

from __future__ import annotations

import collections
import io
import pickle
import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from verl_ext.exceptions import describe

__all__ = ["MAX_SHARED", "EncodedCall", "NotSendable", "SharedObjects", "WorkerObjects", "apply_share", "decode_kwargs",
           "encode_call"]

#: Shared objects held by the trainer's pool and by each process (one tokenizer per run is usual).
MAX_SHARED = 4


class NotSendable(Exception):
    """A shared argument does not pickle: calls that need it cannot run in a process."""


class SharedObjects:
    """The trainer side: each shared object pickled once, under a key, while it is among the
    :data:`MAX_SHARED` used last (the entry holds the object, so its ``id`` is not reused meanwhile)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: collections.OrderedDict[int, tuple[object, int, bytes | str]] = collections.OrderedDict()
        self._next = 0

    def entry(self, obj: object) -> tuple[int, bytes]:
        """(key, pickled bytes) of ``obj``; :class:`NotSendable` when it does not pickle."""
        with self._lock:
            found = self._entries.get(id(obj))
            if found is None or found[0] is not obj:
                try:
                    data: bytes | str = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
                except Exception as e:  # noqa: BLE001 - any object may refuse; remembered, not retried per call
                    data = describe(e, 300)
                self._next += 1
                found = self._entries[id(obj)] = (obj, self._next, data)
                while len(self._entries) > MAX_SHARED:
                    self._entries.popitem(last=False)
            else:
                self._entries.move_to_end(id(obj))
        _, key, data = found
        if isinstance(data, str):
            raise NotSendable(data)
        return key, data


class WorkerObjects:
    """What the trainer knows one process holds, in the order it was sent (the oldest is dropped first)."""

    def __init__(self) -> None:
        self.keys: collections.OrderedDict[int, None] = collections.OrderedDict()

    def sent(self, call: EncodedCall) -> None:
        """Record what the process holds once ``call``'s messages reached it (the drops it makes too)."""
        for key, drop in call.placed:
            for k in drop:
                self.keys.pop(k, None)
            self.keys[key] = None
        for key in call.needed:
            self.keys.move_to_end(key)


@dataclass(frozen=True)
class EncodedCall:
    """The messages of one call: ``shares`` first (each a shared object the process lacks, and the keys it
    drops to stay within :data:`MAX_SHARED`), then ``call``."""

    shares: list[bytes]
    call: bytes
    #: (key, keys dropped) of each share, and the keys the call names.
    placed: list[tuple[int, list[int]]]
    needed: list[int]

    @property
    def size(self) -> int:
        return len(self.call) + sum(map(len, self.shares))


def encode_call(seq: int, index: int, kwargs: Mapping[str, Any], shared_names: Collection[str],
                table: SharedObjects, worker: WorkerObjects) -> EncodedCall:
    """Encode call ``seq`` of function ``index`` for a process; the arguments named in ``shared_names`` go by
    key. Raises :class:`NotSendable` when one of them does not pickle."""
    by_id: dict[int, int] = {}
    shares: list[bytes] = []
    placed: list[tuple[int, list[int]]] = []
    needed: list[int] = []
    held = list(worker.keys)
    for name in shared_names:
        value = kwargs.get(name)
        if value is None or isinstance(value, (str, bytes, int, float, bool)):
            continue  # small or immutable: pickled into the call as usual
        try:
            key, data = table.entry(value)
        except NotSendable as e:
            raise NotSendable(f"argument {name} does not pickle ({e}), so a function that takes it cannot run in "
                              "a process; give it kind: thread") from None
        by_id[id(value)] = key
        needed.append(key)
        if key not in held:
            drop = [k for k in held if k not in needed][: max(0, len(held) + 1 - MAX_SHARED)]
            held = [k for k in held if k not in drop] + [key]
            placed.append((key, drop))
            shares.append(pickle.dumps(("share", key, data, drop), protocol=pickle.HIGHEST_PROTOCOL))

    class _Pickler(pickle.Pickler):
        def persistent_id(self, obj: Any) -> Any:
            return by_id.get(id(obj)) if by_id else None

    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(dict(kwargs))
    call = pickle.dumps(("call", seq, index, buffer.getvalue()), protocol=pickle.HIGHEST_PROTOCOL)
    return EncodedCall(shares, call, placed, needed)


def apply_share(held: dict[int, Any], message: tuple[Any, ...]) -> None:
    """The process side of a share message: drop what the trainer says, then load the new object (an object
    that fails to load is kept as its error, raised by each call that names it)."""
    _, key, data, drop = message
    for k in drop:
        held.pop(k, None)
    try:
        held[key] = pickle.loads(data)
    except BaseException as e:  # noqa: BLE001 - unpickling runs the object's code: any failure is the calls'
        held[key] = _Unloadable(describe(e, 300))


class _Unloadable:
    def __init__(self, reason: str) -> None:
        self.reason = reason


def decode_kwargs(data: bytes, held: Mapping[int, Any]) -> dict[str, Any]:
    """A call's keyword arguments, its shared objects taken from ``held``."""

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: Any) -> Any:
            obj = held.get(pid) if isinstance(pid, int) else None
            if obj is None:
                raise pickle.UnpicklingError(f"shared argument {pid!r} was never sent to this process")
            if isinstance(obj, _Unloadable):
                raise pickle.UnpicklingError(f"a shared argument does not load here: {obj.reason}")
            return obj

    kwargs = _Unpickler(io.BytesIO(data)).load()
    if not isinstance(kwargs, dict):
        raise pickle.UnpicklingError("call arguments are not a dict")
    return kwargs
