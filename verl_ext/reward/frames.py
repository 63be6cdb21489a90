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
    """The next message of ``conn`` (a ``multiprocessing`` connection), or None when its first bytes have not
    come by ``until`` (``time.monotonic()``) or the rest not ``body_grace_s`` after that. Raises EOFError at
    end of file (a dead writer), :class:`FrameTooLong` for a message over ``limit`` bytes, and the
    descriptor's own errors (ConnectionResetError)."""
    fd = conn.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    header = _read_exactly(fd, poller, 4, until)
    if header is None:
        return None
    rest_until = max(until, time.monotonic()) + body_grace_s
    (size,) = struct.unpack("!i", header)
    if size == -1:
        wide = _read_exactly(fd, poller, 8, rest_until)
        if wide is None:
            return None
        (size,) = struct.unpack("!Q", wide)
    if size < 0 or size > limit:
        raise FrameTooLong(f"a message of {size} bytes (at most {limit})")
    return _read_exactly(fd, poller, size, rest_until)
