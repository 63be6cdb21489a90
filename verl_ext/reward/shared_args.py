"""Call arguments sent to each worker process once, then named by a key: a reward model's tokenizer.

verl passes ``reward_model_tokenizer`` (an object of megabytes) to every reward-function call when a reward
model router is configured. Pickling it into each call would cost milliseconds per sample, so the pool
pickles each such object once, sends it to a process before the first call that needs it, and the call
itself carries only its key (pickle's persistent ids). Each side holds at most :data:`MAX_SHARED` objects;
the trainer decides which a process drops, so both sides always agree on what it holds. A share is two
messages, a small header and the cached pickle itself, so sending it to any number of processes copies
nothing. An object that does not pickle, or that fails to load in a process (it raises, hangs or kills the
process as it unpickles), is remembered as such: later calls that need it fail at once with the reason.
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
    """A shared argument does not pickle, or does not load in a process: calls that need it cannot run in one."""


class SharedObjects:
    """The trainer side: each shared object pickled once, under a key, while it is among the
    :data:`MAX_SHARED` used last (the entry holds the object, so its ``id`` is not reused meanwhile); an
    entry holds instead why the object cannot be sent (it does not pickle, or did not load in a process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: collections.OrderedDict[int, tuple[object, int, bytes | str]] = collections.OrderedDict()
        self._next = 0

    def entry(self, obj: object) -> tuple[int, bytes]:
        """(key, pickled bytes) of ``obj``; :class:`NotSendable` (saying why) when it does not pickle or did
        not load in a process before."""
        with self._lock:
            found = self._entries.get(id(obj))
            if found is None or found[0] is not obj:
                try:
                    data: bytes | str = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
                except Exception as e:  # noqa: BLE001 - any object may refuse; remembered, not retried per call
                    data = f"does not pickle ({describe(e, 300)})"
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

    def refuse(self, key: int, reason: str) -> None:
        """Remember that the object under ``key`` does not load in a worker process (``reason``): every later
        :meth:`entry` of it raises at once instead of each call paying for another try."""
        with self._lock:
            for ident, (obj, k, _) in self._entries.items():
                if k == key:
                    self._entries[ident] = (obj, k, f"does not load in a worker process: {reason}")


class WorkerObjects:
    """What the trainer knows one process holds, in the order it was sent (the oldest is dropped first)."""

    def __init__(self) -> None:
        self.keys: collections.OrderedDict[int, None] = collections.OrderedDict()

    def hold(self, key: int, drop: list[int]) -> None:
        """Record a share the process has read: it dropped ``drop`` and holds ``key`` (loaded, or as its
        error)."""
        for k in drop:
            self.keys.pop(k, None)
        self.keys[key] = None

    def sent(self, call: EncodedCall) -> None:
        """Record what the process holds once ``call``'s messages reached it (the drops it makes too)."""
        for key, drop in call.placed:
            self.hold(key, drop)
        for key in call.needed:
            self.keys.move_to_end(key)


@dataclass(frozen=True)
class EncodedCall:
    """The messages of one call: ``shares`` first (each a shared object the process lacks, and the keys it
    drops to stay within :data:`MAX_SHARED`: a header message, then the object's cached pickle as it is), then
    ``call``."""

    shares: list[tuple[bytes, bytes]]
    call: bytes
    #: (key, keys dropped) of each share, and the keys the call names.
    placed: list[tuple[int, list[int]]]
    needed: list[int]
    #: The argument name of each key the call names (for messages).
    names: dict[int, str]

    @property
    def size(self) -> int:
        return len(self.call) + sum(len(header) + len(data) for header, data in self.shares)


def encode_call(seq: int, index: int, kwargs: Mapping[str, Any], shared_names: Collection[str],
                table: SharedObjects, worker: WorkerObjects) -> EncodedCall:
    """Encode call ``seq`` of function ``index`` for a process; the arguments named in ``shared_names`` go by
    key. Raises :class:`NotSendable` when one of them does not pickle or did not load in a process before."""
    by_id: dict[int, int] = {}
    names: dict[int, str] = {}
    shares: list[tuple[bytes, bytes]] = []
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
            raise NotSendable(f"argument {name} {e}, so a function that takes it cannot run in a process; give the "
                              "function kind: thread") from None
        by_id[id(value)] = key
        names[key] = name
        needed.append(key)
        if key not in held:
            drop = [k for k in held if k not in needed][: max(0, len(held) + 1 - MAX_SHARED)]
            held = [k for k in held if k not in drop] + [key]
            placed.append((key, drop))
            shares.append((pickle.dumps(("share", key, drop), protocol=pickle.HIGHEST_PROTOCOL), data))

    class _Pickler(pickle.Pickler):
        def persistent_id(self, obj: Any) -> Any:
            return by_id.get(id(obj)) if by_id else None

    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(dict(kwargs))
    call = pickle.dumps(("call", seq, index, buffer.getvalue()), protocol=pickle.HIGHEST_PROTOCOL)
    return EncodedCall(shares, call, placed, needed, names)


def apply_share(held: dict[int, Any], header: tuple[Any, ...], data: bytes) -> str | None:
    """The process side of a share (its header message and the pickled object): drop what the trainer says,
    then load the new object; why it failed to load, or None. An object that fails to load is kept as its
    error (raised by a call that names it), so that both sides still agree on what the process holds."""
    _, key, drop = header
    for k in drop:
        held.pop(k, None)
    try:
        held[key] = pickle.loads(data)
    except BaseException as e:  # noqa: BLE001 - unpickling runs the object's code: any failure is the calls'
        held[key] = _Unloadable(describe(e, 300))
        return held[key].reason
    return None


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
