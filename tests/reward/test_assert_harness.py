"""The assert-mode harness run directly (no sandbox: its own logic, on any host): the checking process
reports a pass only when it is non-dumpable, the program's process chooses neither which names are
taken from builtins nor which modules the checking process imports."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
from typing import Any

import pytest

from verl_ext.reward.code import _assert_request
from verl_ext.sandbox import HARNESS_PATH, PROTOCOL_PATH
from verl_ext.sandbox import protocol as p

NONCE = "0f" * 16
PASSED = p.HEADER + p.record_pass(NONCE) + p.DONE


def _high_fd(fd: int) -> int:
    """`fd` moved above 4, so that placing the harness's fds 3 and 4 cannot close it."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


def run_harness(code: str, ground_truth: dict[str, Any], prelude: str = "") -> tuple[int, bytes, str]:
    """(exit code, result channel, stdout + stderr) of the harness (cold start) on an assert request, with
    `prelude` run first in its interpreter."""
    payload = _assert_request(code, ground_truth, NONCE)
    assert payload is not None
    chan_r, chan_w = map(_high_fd, os.pipe())
    pay_r, pay_w = map(_high_fd, os.pipe())
    boot = (f"import os, sys\nos.dup2({chan_w}, 3)\nos.dup2({pay_r}, 4)\nos.close({chan_w})\nos.close({pay_r})\n"
            f"sys.argv[1:] = [{str(PROTOCOL_PATH)!r}]\n{prelude}\n") + HARNESS_PATH.read_text()
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-B", "-c", boot], pass_fds=(chan_w, pay_r),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    os.close(chan_w)
    os.close(pay_r)

    def feed() -> None:
        view = memoryview(payload)
        try:
            while view:
                view = view[os.write(pay_w, view):]
        except BrokenPipeError:
            pass
        finally:
            os.close(pay_w)

    feeder = threading.Thread(target=feed)
    feeder.start()
    channel = b""
    with os.fdopen(chan_r, "rb") as f:
        channel = f.read()
    out, _ = proc.communicate(timeout=30)
    feeder.join()
    return proc.returncode, channel, out.decode("utf-8", "replace")


ADD = {"entry_point": "add", "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"}
ADD_CODE = "def add(a, b):\n    return a + b\n"


def test_the_harness_runs_here() -> None:
    rc, channel, out = run_harness(ADD_CODE, ADD)
    assert (rc, channel) == (0, PASSED), out


NO_DUMP_FAILURES = {
    "no ctypes": "sys.modules['ctypes'] = None",
    "prctl fails": "import types\nctypes = types.ModuleType('ctypes')\n"
                   "class _Libc:\n    def prctl(self, *args):\n        return -1\n"
                   "ctypes.CDLL = lambda *a, **k: _Libc()\nsys.modules['ctypes'] = ctypes",
    "prctl does nothing": "import types\nctypes = types.ModuleType('ctypes')\n"
                          "class _Libc:\n    def prctl(self, option, *args):\n        return 1 if option == 3 else 0\n"
                          "ctypes.CDLL = lambda *a, **k: _Libc()\nsys.modules['ctypes'] = ctypes",
}


@pytest.mark.parametrize("name", sorted(NO_DUMP_FAILURES))
def test_a_checking_process_that_stays_dumpable_reports_no_pass(name: str) -> None:
    rc, channel, _ = run_harness(ADD_CODE, ADD, NO_DUMP_FAILURES[name])
    assert rc != 0 and channel == b""


@pytest.mark.parametrize("entry", ["sum", "max", "sorted", "len"])
def test_an_entry_point_may_be_named_like_a_builtin(entry: str) -> None:
    gt = {"entry_point": entry, "test": "def check(candidate):\n    assert candidate([1, 2]) == 42\n"
                                        "    assert max([1, 5]) == 5 and len([1]) == 1\n"}
    code = f"def {entry}(xs):\n    return 42\n" if entry not in ("max", "len") else \
        f"import builtins\ndef {entry}(xs):\n    return 42 if xs == [1, 2] else builtins.{entry}(xs)\n"
    rc, channel, out = run_harness(code, gt)
    assert (rc, channel) == (0, PASSED), out


def test_the_program_does_not_choose_the_modules_the_checker_imports() -> None:
    """A module the test names is the checking process's own copy, and only of a fixed list: here the
    program offers `this` (importing it prints the Zen of Python in the checking process)."""
    gt = {"entry_point": "f", "test": "def check(candidate):\n    assert candidate() == 1\n    if False:\n"
                                      "        helper\n"}
    code = "import types\nhelper = types.ModuleType('this')\ndef f():\n    return 1\n"
    rc, channel, out = run_harness(code, gt)
    assert "Zen of Python" not in out
    assert (rc, channel) == (0, PASSED), out


def test_modules_of_the_program_reach_the_test() -> None:
    gt = {"entry_point": "f", "test": "def check(candidate):\n    assert m.sqrt(candidate()) == 2\n"}
    rc, channel, out = run_harness("import math as m\ndef f():\n    return 4\n", gt)
    assert (rc, channel) == (0, PASSED), out


def test_a_long_test_is_read_after_the_fork() -> None:
    """The test travels after the program's part of the request: a test larger than a pipe's buffer."""
    lines = "".join(f"    assert candidate({i}, 1) == {i + 1}\n" for i in range(3000))
    rc, channel, out = run_harness(ADD_CODE, {"entry_point": "add", "test": "def check(candidate):\n" + lines})
    assert (rc, channel) == (0, PASSED), out


def test_requests_are_json_of_plain_text() -> None:
    payload = _assert_request(ADD_CODE, ADD, NONCE)
    assert payload is not None and payload.startswith(b"assert\n") and NONCE.encode() in payload
    assert json.dumps(ADD["test"]).encode() in payload
