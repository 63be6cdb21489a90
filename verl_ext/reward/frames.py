"""Reading one message of a :mod:`multiprocessing` connection with a deadline.

``Connection.poll(timeout)`` bounds only the wait for the first byte: ``recv_bytes`` then blocks until the
whole message has come, so a process that writes part of a message and stops (or a child it forked that
holds the connection) would hold the reader forever. :func:`read_frame` reads the same framing (a 4-byte
big-endian length, or -1 and an 8-byte length for large messages; ``multiprocessing.connection``) from the
descriptor, each read bounded by the deadline. The connection keeps no buffer of its own, so both can be
used on it in turn.
"""

from __future__ import annotations

import os
import select
import struct
import time
from typing import Any

#: Most bytes taken from the descriptor per read.
_CHUNK = 1 << 20


class FrameTooLong(OSError):
    """The message announces more bytes than the reader accepts (the stream is then out of step)."""


class FrameIncomplete(TimeoutError):
    """Part of a message came, the rest not in time (the stream is then out of step)."""


def _read_exactly(fd: int, poller: Any, n: int, until: float) -> bytes | None:
    chunks: list[bytes] = []
    got = 0
    while got < n:
        # Past the deadline it still looks once: bytes already there came in time.
        if not poller.poll(max(until - time.monotonic(), 0.0) * 1000):
            return None
        chunk = os.read(fd, min(n - got, _CHUNK))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(conn: Any, until: float, limit: int, body_grace_s: float = 1.0) -> bytes | None:
    """The next message of ``conn`` (a ``multiprocessing`` connection), or None when none has begun by
    ``until`` (``time.monotonic()``). Raises :class:`FrameIncomplete` when one began but the rest did not
    come ``body_grace_s`` after that, EOFError at end of file (a dead writer), :class:`FrameTooLong` for a
    message over ``limit`` bytes, and the descriptor's own errors (ConnectionResetError)."""
    fd = conn.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    first = _read_exactly(fd, poller, 1, until)
    if first is None:
        return None
    rest_until = max(until, time.monotonic()) + body_grace_s

    def rest(n: int) -> bytes:
        got = _read_exactly(fd, poller, n, rest_until)
        if got is None:
            raise FrameIncomplete(f"a message began but {n} more bytes did not come in {body_grace_s:g} s")
        return got

    (size,) = struct.unpack("!i", first + rest(3))
    if size == -1:
        (size,) = struct.unpack("!Q", rest(8))
    if size < 0 or size > limit:
        raise FrameTooLong(f"a message of {size} bytes (at most {limit})")
    return rest(size)
