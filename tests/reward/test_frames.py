"""verl_ext.reward.frames.read_frame: multiprocessing's framing read from the descriptor, every read bounded
by the deadline; checked against Connection.send_bytes on real pipes."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import struct
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verl_ext.reward.frames import FrameIncomplete, FrameTooLong, read_frame


@contextlib.contextmanager
def _pipe() -> Iterator[tuple[Any, Any]]:
    """Both ends of a duplex multiprocessing pipe, closed afterwards."""
    reader, writer = multiprocessing.Pipe(duplex=True)
    try:
        yield reader, writer
    finally:
        reader.close()
        writer.close()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=70_000), min_size=1, max_size=4))
def test_it_reads_what_send_bytes_sends(messages: list[bytes]) -> None:
    with _pipe() as (reader, writer):
        for m in messages:
            writer.send_bytes(m)
            assert read_frame(reader, time.monotonic() + 10, 1 << 20) == m
        writer.send_bytes(b"tail")  # and the connection's own reader stays in step
        assert reader.recv_bytes() == b"tail"


def test_nothing_by_the_deadline_is_none_and_data_already_there_counts() -> None:
    with _pipe() as (reader, writer):
        assert read_frame(reader, time.monotonic() + 0.1, 100) is None
        writer.send_bytes(b"late")
        assert read_frame(reader, time.monotonic() - 5, 100) == b"late"  # past the deadline, but there


def test_a_message_begun_and_never_finished_is_cut_off() -> None:
    with _pipe() as (reader, writer):
        os.write(writer.fileno(), struct.pack("!i", 4096) + b"x")
        started = time.monotonic()
        with pytest.raises(FrameIncomplete):
            read_frame(reader, time.monotonic() + 0.1, 1 << 20, body_grace_s=0.2)
        assert time.monotonic() - started < 10


def test_too_long_and_end_of_file() -> None:
    reader, writer = multiprocessing.Pipe(duplex=True)
    writer.send_bytes(b"x" * 101)
    with pytest.raises(FrameTooLong):  # the stream is then out of step: the pool replaces that process
        read_frame(reader, time.monotonic() + 10, 100)
    reader.close()
    writer.close()
    reader, writer = multiprocessing.Pipe(duplex=True)
    os.write(writer.fileno(), b"\0\0")  # half a length, then the writer is gone
    writer.close()
    with pytest.raises(EOFError):
        read_frame(reader, time.monotonic() + 10, 100)
    reader.close()
